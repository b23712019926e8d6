//! Closed sets of names: `--format`, `--target`, `--mode` and the other choices a setting
//! or the description takes. Each is an enum deriving its names once with `strum`
//! (`EnumIter`, `IntoStaticStr`, `Display`); [`parse`] and [`named_from_str!`](crate::named_from_str) turn text
//! back into one with the error every such setting gives, listing every name.

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
