//! Closed sets of names: `--format`, `--target`, `--mode` and the other choices a setting
//! or the description takes. Each is an enum deriving its names once with `strum`
//! (`EnumIter`, `IntoStaticStr`, `Display`); [`parse`] and [`named_from_str!`](crate::named_from_str) turn text
//! back into one with the error every such setting gives, listing every name.
//! [`closed_set!`](crate::closed_set) declares such an enum with each word spelt once, for serde, strum
//! and the JSON Schema alike: the description's closed sets are declared with it.

/// The member of `T` named `text`, or an error listing every name (`what`: "a target").
///
/// ```
/// #[derive(Clone, Copy, Debug, PartialEq, strum::EnumIter, strum::IntoStaticStr)]
/// #[strum(serialize_all = "lowercase")]
/// enum Side { Front, Back }
/// assert_eq!(vat_model::named::parse::<Side>("back", "a side"), Ok(Side::Back));
/// assert_eq!(
///     vat_model::named::parse::<Side>("top", "a side").unwrap_err(),
///     "\"top\" is not a side: give one of front, back"
/// );
/// ```
pub fn parse<T>(text: &str, what: &str) -> Result<T, String>
where
    T: strum::IntoEnumIterator + Into<&'static str> + Copy,
{
    T::iter().find(|&t| t.into() == text).ok_or_else(|| {
        let names: Vec<&'static str> = T::iter().map(Into::into).collect();
        format!("\"{text}\" is not {what}: give one of {}", names.join(", "))
    })
}

/// Every name of `T`, in declaration order.
pub fn names<T>() -> Vec<&'static str>
where
    T: strum::IntoEnumIterator + Into<&'static str>,
{
    T::iter().map(Into::into).collect()
}

/// `impl FromStr` for a named enum through [`parse`]: `named_from_str!(Target, "a target");`.
#[macro_export]
macro_rules! named_from_str {
    ($type:ty, $what:expr) => {
        impl ::std::str::FromStr for $type {
            type Err = String;
            fn from_str(text: &str) -> Result<Self, String> {
                $crate::named::parse(text, $what)
            }
        }
    };
}

/// A closed set of names as an enum, each member spelt once: `Member = "word"`. The
/// enum gets `Clone`, `Copy`, `Debug`, `PartialEq`, `Eq` and `Hash`; serde reads and
/// writes it as the word (an unknown word is refused); strum's `EnumIter`,
/// `IntoStaticStr` and `Display` give the words to [`parse`], [`names`] and `{}`; its
/// JSON Schema is `{"type": "string", "enum": [the words]}`; and `as_str` names a
/// member. `FromStr` is left to the caller: [`named_from_str!`](crate::named_from_str), or its own wording.
/// The crate that uses it depends on serde, schemars and strum.
///
/// ```
/// vat_model::closed_set! {
///     /// Which way a model faces.
///     #[derive(Default)]
///     pub enum Facing {
///         /// Towards +z.
///         #[default]
///         Front = "front",
///         /// Towards −z.
///         Back = "back",
///     }
/// }
/// vat_model::named_from_str!(Facing, "a facing");
/// assert_eq!(Facing::Back.as_str(), "back");
/// assert_eq!(Facing::Front.to_string(), "front");
/// assert_eq!("back".parse::<Facing>(), Ok(Facing::Back));
/// assert_eq!(vat_model::named::names::<Facing>(), ["front", "back"]);
/// assert_eq!(serde_json::to_string(&Facing::Back).unwrap(), "\"back\"");
/// ```
#[macro_export]
macro_rules! closed_set {
    (
        $(#[$meta:meta])*
        $vis:vis enum $name:ident {
            $(
                $(#[$member_meta:meta])*
                $member:ident = $word:literal
            ),+ $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(
            Clone, Copy, Debug, PartialEq, Eq, Hash,
            ::serde::Serialize, ::serde::Deserialize,
            ::strum::EnumIter, ::strum::IntoStaticStr, ::strum::Display,
        )]
        $vis enum $name {
            $(
                $(#[$member_meta])*
                #[serde(rename = $word)]
                #[strum(serialize = $word)]
                $member,
            )+
        }

        impl $name {
            /// The member's word, as the description and the command line spell it.
            pub fn as_str(self) -> &'static str {
                self.into()
            }
        }

        impl ::schemars::JsonSchema for $name {
            fn schema_name() -> ::std::borrow::Cow<'static, str> {
                ::std::borrow::Cow::Borrowed(stringify!($name))
            }
            fn json_schema(_: &mut ::schemars::SchemaGenerator) -> ::schemars::Schema {
                ::schemars::json_schema!({ "type": "string", "enum": [$($word),+] })
            }
        }
    };
}
