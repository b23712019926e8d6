//! The rules of a document that the loader and the [`summary`](crate::summary) share,
//! so that the two agree: which versions are read, and which channel paths move nodes.

use std::path::Path;

use gltf::json::animation::Property as JsonProperty;
use gltf::json::validation::Checked;
use vat_model::Property;

use crate::error::{ErrorKind, LoadError};

/// The one version check of a document, the loader's and the [`summary`](crate::summary)'s: `asset.version`
/// must be there and be 2.x.
pub(crate) fn check_version(file: &Path, version: Option<&str>) -> Result<(), LoadError> {
    match version {
        Some(v) if v.starts_with("2.") => Ok(()),
        Some(v) => Err(LoadError::new(file, ErrorKind::Unsupported, format!("glTF version {v}; only 2.x is read"))
            .with_hint("re-export the model as glTF 2.0")),
        None => Err(LoadError::new(file, ErrorKind::NotGltf, "not a glTF 2.0 document: it has no asset.version")),
    }
}

/// The one mapping of a channel's `target.path` to the node property it moves, the
/// loader's and the [`summary`](crate::summary)'s: `None` for a path that is not node motion (e.g.
/// `pointer`, from KHR_animation_pointer), which the bake skips.
pub(crate) fn node_property(path: &Checked<JsonProperty>) -> Option<Property> {
    match path {
        Checked::Valid(JsonProperty::Translation) => Some(Property::Translation),
        Checked::Valid(JsonProperty::Rotation) => Some(Property::Rotation),
        Checked::Valid(JsonProperty::Scale) => Some(Property::Scale),
        Checked::Valid(JsonProperty::MorphTargetWeights) => Some(Property::Weights),
        Checked::Invalid => None,
    }
}
