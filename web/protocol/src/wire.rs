//! How an answer crosses the wire: `{"v": 3, "id": 7, "method": "run", "result": {...}}`
//! or `{"v": 3, "id": 7, "method": "run", "error": {...}}`.
//!
//! [`Reply`] is tagged by `method` with its content in `result`, as serde's adjacent
//! tagging writes it; the answer adds `v` and `id` around those two fields. It is read in
//! one pass: the reader keeps `v` and `id`, and hands `method` and `result` to
//! [`Reply`]'s own reader as a map of those two fields, so that a large result (a frame
//! of thousands of chunks) is decoded straight into its type, never buffered.

use crate::{EngineError, Outcome, Reply, Response, PROTOCOL_VERSION};
use serde::de::value::{StringDeserializer, UnitDeserializer};
use serde::de::{self, DeserializeSeed, IgnoredAny, IntoDeserializer, MapAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

impl Serialize for Response {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct Answer<'a> {
            v: u32,
            id: u64,
            #[serde(flatten)]
            body: Body<'a>,
        }
        #[derive(Serialize)]
        #[serde(untagged)]
        enum Body<'a> {
            Result(&'a Reply),
            Error {
                #[serde(skip_serializing_if = "Option::is_none")]
                method: &'a Option<String>,
                error: &'a EngineError,
            },
        }
        let body = match &self.outcome {
            Outcome::Result(reply) => Body::Result(reply),
            Outcome::Error(method, error) => Body::Error { method, error },
        };
        Answer {
            v: PROTOCOL_VERSION,
            id: self.id,
            body,
        }
        .serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for Response {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(AnswerVisitor)
    }
}

struct AnswerVisitor;

impl<'de> Visitor<'de> for AnswerVisitor {
    type Value = Response;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an answer: {v, id, method, result} or {v, id, method, error}")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Response, A::Error> {
        let mut id = None;
        let mut method: Option<String> = None;
        let mut reply = None;
        let mut error = None;
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "id" => id = Some(map.next_value::<u64>()?),
                "method" => method = Some(map.next_value()?),
                "result" => {
                    let Some(method) = method.clone() else {
                        return Err(de::Error::custom(
                            "an answer names its method before its result",
                        ));
                    };
                    reply = Some(map.next_value_seed(ResultSeed(method))?);
                }
                "error" => error = Some(map.next_value::<EngineError>()?),
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        let id = id.ok_or_else(|| de::Error::missing_field("id"))?;
        let outcome = match (reply, error, method) {
            (Some(reply), None, _) => Outcome::Result(reply),
            (None, Some(error), method) => Outcome::Error(method, error),
            // A method whose result has no content (`close`).
            (None, None, Some(method)) => {
                Outcome::Result(Reply::deserialize(Tagged::<UnitDeserializer<A::Error>> {
                    method,
                    result: None,
                })?)
            }
            _ => {
                return Err(de::Error::custom(
                    "an answer carries exactly one of `result` and `error`",
                ))
            }
        };
        Ok(Response { id, outcome })
    }
}

/// Reads `result` as the [`Reply`] its method names.
struct ResultSeed(String);

impl<'de> DeserializeSeed<'de> for ResultSeed {
    type Value = Reply;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Reply, D::Error> {
        Reply::deserialize(Tagged {
            method: self.0,
            result: Some(deserializer),
        })
    }
}

/// A method's name and its result's reader, shown to [`Reply`]'s derived reader as the
/// map `{method, result}` it expects.
struct Tagged<D> {
    method: String,
    result: Option<D>,
}

impl<'de, D: Deserializer<'de>> Deserializer<'de> for Tagged<D> {
    type Error = D::Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
        visitor.visit_map(TaggedMap {
            method: Some(self.method),
            result: self.result,
            next: Next::Method,
        })
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf option unit unit_struct newtype_struct seq tuple
        tuple_struct map struct enum identifier ignored_any
    }
}

enum Next {
    Method,
    Result,
}

struct TaggedMap<D> {
    method: Option<String>,
    result: Option<D>,
    next: Next,
}

impl<'de, D: Deserializer<'de>> MapAccess<'de> for TaggedMap<D> {
    type Error = D::Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, D::Error> {
        let key = match self.next {
            Next::Method if self.method.is_some() => "method",
            Next::Method | Next::Result if self.result.is_some() => {
                self.next = Next::Result;
                "result"
            }
            _ => return Ok(None),
        };
        let key: StringDeserializer<D::Error> = key.to_string().into_deserializer();
        seed.deserialize(key).map(Some)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, D::Error> {
        match self.next {
            Next::Method => {
                self.next = Next::Result;
                let method = self.method.take().unwrap_or_default();
                let method: StringDeserializer<D::Error> = method.into_deserializer();
                seed.deserialize(method)
            }
            Next::Result => match self.result.take() {
                Some(result) => seed.deserialize(result),
                None => Err(de::Error::custom("an answer's result was read twice")),
            },
        }
    }
}
