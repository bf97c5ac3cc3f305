//! Closed sets of named values (categories, roles, outcomes, formats):
//! each is an enum whose variants carry their names, declared once with
//! [`named_enum!`](crate::named_enum), which derives the rest: the list of values, the name,
//! parsing, display and serde.

/// A name that is not one of a closed set's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UnknownName;

/// Declares an enum whose every variant has a name (`Variant = "name"`) and
/// derives `ALL`, `name()`, `Display`, `FromStr`, `Serialize` and
/// `Deserialize` from those names.
#[macro_export]
macro_rules! named_enum {
    (
        $(#[$meta:meta])*
        $vis:vis enum $enum:ident {
            $( $(#[$variant_meta:meta])* $variant:ident = $name:literal, )*
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        $vis enum $enum {
            $( $(#[$variant_meta])* $variant, )*
        }

        impl $enum {
            /// Every value, in declaration order.
            pub const ALL: &'static [$enum] = &[$($enum::$variant),*];

            /// The name in rule files, reports and JSON.
            pub fn name(self) -> &'static str {
                match self {
                    $($enum::$variant => $name,)*
                }
            }
        }

        impl ::std::fmt::Display for $enum {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.write_str(self.name())
            }
        }

        impl ::std::str::FromStr for $enum {
            type Err = $crate::named::UnknownName;

            fn from_str(name: &str) -> Result<Self, Self::Err> {
                match name {
                    $($name => Ok($enum::$variant),)*
                    _ => Err($crate::named::UnknownName),
                }
            }
        }

        impl ::serde::Serialize for $enum {
            fn serialize<S: ::serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_str(self.name())
            }
        }

        impl<'de> ::serde::Deserialize<'de> for $enum {
            fn deserialize<D: ::serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                let name = <::std::borrow::Cow<'de, str> as ::serde::Deserialize>::deserialize(deserializer)?;
                name.parse().map_err(|_| ::serde::de::Error::custom(format!("unknown name '{name}'")))
            }
        }
    };
}

/// The name among `known` closest to `typed` by edit distance (a swap of
/// neighbours is one edit), if it is within a third of the name's length
/// (at least 1): a typing slip worth a "did you mean".
pub fn closest<'a>(typed: &str, known: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    known
        .into_iter()
        .map(|name| (strsim::osa_distance(typed, name), name))
        .filter(|(distance, name)| *distance > 0 && *distance <= (name.len() / 3).max(1))
        .min_by_key(|(distance, _)| *distance)
        .map(|(_, name)| name)
}
