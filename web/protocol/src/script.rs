//! What the JavaScript module's `run` answers: one entry per statement, its value as
//! plain JSON-compatible data and its text as mongosh prints it.

use serde::de::{MapAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// One statement of an `evaluate`, serialised as `{ok: true, value, printed}` or
/// `{ok: false, error, printed}`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StatementResult {
    /// Whether the statement succeeded.
    pub ok: bool,
    /// Its value in relaxed Extended JSON (absent when it has none, or failed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<Json>,
    /// MongoDB's or mongosh's error, when it failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<StatementError>,
    /// What the `shardlab` CLI prints for the statement, byte for byte: the lines it
    /// printed, then its result as mongosh prints it, each ending in a line break (empty
    /// when it prints nothing).
    pub printed: String,
    /// The session's step after the statement ran (the step it is part of).
    pub step: u64,
}

/// A statement's error, as `shardlab --json` reports it, and its line.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StatementError {
    /// MongoDB's error code (0 for a mongosh error such as a `SyntaxError`).
    pub code: i32,
    /// MongoDB's code name, or the error's class (`SyntaxError`, `TypeError`, ...).
    pub code_name: String,
    /// The message.
    pub errmsg: String,
    /// The 1-based line of the source where it happened, when known.
    pub line: Option<u32>,
}

/// A JSON value: what crosses to JavaScript as a plain object, array, string, number,
/// boolean or `null`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Json {
    /// `null`.
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// A number.
    Number(f64),
    /// A string.
    Text(String),
    /// An array.
    List(Vec<Json>),
    /// An object, its keys in order.
    Object(JsonObject),
}

/// A JSON object's members, in order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct JsonObject(pub Vec<(String, Json)>);

impl Serialize for JsonObject {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (k, v) in &self.0 {
            map.serialize_entry(k, v)?;
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for JsonObject {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Members;
        impl<'de> Visitor<'de> for Members {
            type Value = JsonObject;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut access: A) -> Result<JsonObject, A::Error> {
                let mut members = Vec::new();
                while let Some(member) = access.next_entry::<String, Json>()? {
                    members.push(member);
                }
                Ok(JsonObject(members))
            }
        }
        deserializer.deserialize_map(Members)
    }
}
