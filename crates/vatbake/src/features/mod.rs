//! The features whose values are settings (`--animations`, `--max-size`/`--device`,
//! `--normals`, `--root-motion`, `--fps auto`): each one file, holding its setting's type and the work
//! its stage does with it. Below both `settings` and `pipeline`, which use them; they use
//! neither.

pub(crate) mod animations;
pub(crate) mod layers;
pub(crate) mod normals;
pub(crate) mod rates;
pub(crate) mod root_motion;
