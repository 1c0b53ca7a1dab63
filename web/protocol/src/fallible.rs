//! A result that may fail, as the protocol carries it: `{ok: true, value}` or `{ok: false,
//! error}`, the shape of a statement's entry, rather than serde's `{Ok: ...}`/`{Err: ...}`.
//! Fields use it with `#[serde(with = "crate::fallible")]` (or `fallible::option` for an
//! optional one, which is `null` when absent).

use serde::{Deserialize, Deserializer, Serialize, Serializer};

#[derive(Serialize)]
struct Out<'a, T> {
    ok: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    value: Option<&'a T>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<&'a str>,
}

#[derive(Deserialize)]
struct In<T> {
    ok: bool,
    #[serde(default = "none")]
    value: Option<T>,
    #[serde(default)]
    error: Option<String>,
}

fn none<T>() -> Option<T> {
    None
}

fn out<T>(r: &Result<T, String>) -> Out<'_, T> {
    match r {
        Ok(value) => Out {
            ok: true,
            value: Some(value),
            error: None,
        },
        Err(e) => Out {
            ok: false,
            value: None,
            error: Some(e),
        },
    }
}

fn back<T, E: serde::de::Error>(w: In<T>) -> Result<Result<T, String>, E> {
    match (w.ok, w.value, w.error) {
        (true, Some(value), _) => Ok(Ok(value)),
        (false, _, Some(error)) => Ok(Err(error)),
        (true, None, _) => Err(E::missing_field("value")),
        (false, _, None) => Err(E::missing_field("error")),
    }
}

/// Writes a result as `{ok, value}` or `{ok, error}`.
pub fn serialize<T: Serialize, S: Serializer>(
    r: &Result<T, String>,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    out(r).serialize(serializer)
}

/// Reads a result written by [`serialize`].
pub fn deserialize<'de, T: Deserialize<'de>, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Result<T, String>, D::Error> {
    back(In::deserialize(deserializer)?)
}

/// An optional result: `null`, or as [`serialize`] writes it.
pub mod option {
    use super::{back, out, In};
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    /// Writes `null` or the result.
    pub fn serialize<T: Serialize, S: Serializer>(
        r: &Option<Result<T, String>>,
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        r.as_ref().map(out).serialize(serializer)
    }

    /// Reads what [`serialize`] writes.
    pub fn deserialize<'de, T: Deserialize<'de>, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<Option<Result<T, String>>, D::Error> {
        match Option::<In<T>>::deserialize(deserializer)? {
            Some(w) => back(w).map(Some),
            None => Ok(None),
        }
    }
}
