//! How a request and an answer cross the wire: `{"v": 3, "id": 7, "session": "s1",
//! "method": "run", "params": {...}}`, answered by `{"v": 3, "id": 7, "method": "run",
//! "result": {...}}` or `{"v": 3, "id": 7, "method": "run", "error": {...}}`.
//!
//! [`Call`](crate::Call) and [`Reply`] keep serde's own (external) tagging in Rust, whose
//! reader decodes each variant's content straight into its type; these adapters move the
//! variant's name to the message's `method` and its content to `params` or `result`, both
//! ways. Nothing is buffered on the way: a frame of thousands of chunks is decoded once, in
//! place, and each request's parameters are decoded by one reader per type (serde's tagged
//! readers would buffer them and decode them twice over, which was a tenth of the engine's
//! first part). Reading an answer needs `method` before `result` (the engine writes them
//! so), and [`Request`]'s own reader needs `method` before `params` (the page writes them
//! so); the engine's worker reads a request's `method` first ([`RequestSeed`]), so that a
//! request from any host may carry its keys in any order.

use crate::{EngineError, Outcome, Reply, Request, Response, PROTOCOL_VERSION};
use serde::de::value::StringDeserializer;
use serde::de::{
    self, DeserializeSeed, EnumAccess, IgnoredAny, IntoDeserializer, MapAccess, VariantAccess,
    Visitor,
};
use serde::ser::{self, SerializeMap};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;
use std::marker::PhantomData;

impl Serialize for Response {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("v", &PROTOCOL_VERSION)?;
        map.serialize_entry("id", &self.id)?;
        match &self.outcome {
            Outcome::Result(reply) => {
                map.serialize_entry("method", reply.method())?;
                if !matches!(reply, Reply::Close) {
                    map.serialize_entry("result", &Content(reply))?;
                }
            }
            Outcome::Error(method, error) => {
                if let Some(method) = method {
                    map.serialize_entry("method", method)?;
                }
                map.serialize_entry("error", error)?;
            }
        }
        map.end()
    }
}

impl Serialize for Request {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("v", &self.v)?;
        map.serialize_entry("id", &self.id)?;
        if let Some(session) = &self.session {
            map.serialize_entry("session", session)?;
        }
        map.serialize_entry("method", self.call.method())?;
        if self.call.has_params() {
            map.serialize_entry("params", &Content(&self.call))?;
        }
        map.end()
    }
}

/// An enum's content without its variant's name.
struct Content<'a, T>(&'a T);

impl<T: Serialize> Serialize for Content<'_, T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(ContentOnly(serializer))
    }
}

/// A serializer that writes an enum's variant as its content alone.
struct ContentOnly<S>(S);

/// A struct variant's fields, written as a struct.
struct Fields<T>(T);

impl<T: ser::SerializeStruct> ser::SerializeStructVariant for Fields<T> {
    type Ok = T::Ok;
    type Error = T::Error;

    fn serialize_field<V: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &V,
    ) -> Result<(), T::Error> {
        self.0.serialize_field(key, value)
    }

    fn end(self) -> Result<T::Ok, T::Error> {
        self.0.end()
    }
}

/// A tuple variant's items, written as a tuple.
struct Items<T>(T);

impl<T: ser::SerializeTuple> ser::SerializeTupleVariant for Items<T> {
    type Ok = T::Ok;
    type Error = T::Error;

    fn serialize_field<V: Serialize + ?Sized>(&mut self, value: &V) -> Result<(), T::Error> {
        self.0.serialize_element(value)
    }

    fn end(self) -> Result<T::Ok, T::Error> {
        self.0.end()
    }
}

/// Forwards a method of [`Serializer`] unchanged (a reply is always an enum, so these are
/// there only to be complete).
macro_rules! forward {
    ($($name:ident($($arg:ident: $ty:ty),*) -> $out:ty;)*) => {
        $(fn $name(self, $($arg: $ty),*) -> Result<$out, S::Error> {
            self.0.$name($($arg),*)
        })*
    };
}

impl<S: Serializer> Serializer for ContentOnly<S> {
    type Ok = S::Ok;
    type Error = S::Error;
    type SerializeSeq = S::SerializeSeq;
    type SerializeTuple = S::SerializeTuple;
    type SerializeTupleStruct = S::SerializeTupleStruct;
    type SerializeTupleVariant = Items<S::SerializeTuple>;
    type SerializeMap = S::SerializeMap;
    type SerializeStruct = S::SerializeStruct;
    type SerializeStructVariant = Fields<S::SerializeStruct>;

    forward! {
        serialize_bool(v: bool) -> S::Ok;
        serialize_i8(v: i8) -> S::Ok;
        serialize_i16(v: i16) -> S::Ok;
        serialize_i32(v: i32) -> S::Ok;
        serialize_i64(v: i64) -> S::Ok;
        serialize_u8(v: u8) -> S::Ok;
        serialize_u16(v: u16) -> S::Ok;
        serialize_u32(v: u32) -> S::Ok;
        serialize_u64(v: u64) -> S::Ok;
        serialize_f32(v: f32) -> S::Ok;
        serialize_f64(v: f64) -> S::Ok;
        serialize_char(v: char) -> S::Ok;
        serialize_str(v: &str) -> S::Ok;
        serialize_bytes(v: &[u8]) -> S::Ok;
        serialize_none() -> S::Ok;
        serialize_unit() -> S::Ok;
        serialize_unit_struct(name: &'static str) -> S::Ok;
        serialize_seq(len: Option<usize>) -> S::SerializeSeq;
        serialize_tuple(len: usize) -> S::SerializeTuple;
        serialize_tuple_struct(name: &'static str, len: usize) -> S::SerializeTupleStruct;
        serialize_map(len: Option<usize>) -> S::SerializeMap;
        serialize_struct(name: &'static str, len: usize) -> S::SerializeStruct;
    }

    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<S::Ok, S::Error> {
        self.0.serialize_some(value)
    }

    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        name: &'static str,
        value: &T,
    ) -> Result<S::Ok, S::Error> {
        self.0.serialize_newtype_struct(name, value)
    }

    fn serialize_unit_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
    ) -> Result<S::Ok, S::Error> {
        self.0.serialize_unit()
    }

    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        value: &T,
    ) -> Result<S::Ok, S::Error> {
        value.serialize(self.0)
    }

    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        len: usize,
    ) -> Result<Items<S::SerializeTuple>, S::Error> {
        self.0.serialize_tuple(len).map(Items)
    }

    fn serialize_struct_variant(
        self,
        name: &'static str,
        _: u32,
        _: &'static str,
        len: usize,
    ) -> Result<Fields<S::SerializeStruct>, S::Error> {
        self.0.serialize_struct(name, len).map(Fields)
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
                    reply = Some(map.next_value_seed(ContentSeed::new(method, "result"))?);
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
            (None, None, Some(method)) => Outcome::Result(without_content(method, "result")?),
            _ => {
                return Err(de::Error::custom(
                    "an answer carries exactly one of `result` and `error`",
                ))
            }
        };
        Ok(Response { id, outcome })
    }
}

/// Reads a message's `field` (a request's `params`, an answer's `result`) as the variant
/// of `T` ([`Call`](crate::Call), [`Reply`]) its method names.
struct ContentSeed<T> {
    method: String,
    field: &'static str,
    of: PhantomData<T>,
}

impl<T> ContentSeed<T> {
    fn new(method: String, field: &'static str) -> Self {
        ContentSeed {
            method,
            field,
            of: PhantomData,
        }
    }
}

impl<'de, T: Deserialize<'de>> DeserializeSeed<'de> for ContentSeed<T> {
    type Value = T;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<T, D::Error> {
        T::deserialize(Named {
            method: self.method,
            content: Some(deserializer),
            field: self.field,
        })
    }
}

/// The variant of `T` that `method` names, for a message without its `field`: a variant
/// without content, or else the error that the field is missing.
fn without_content<'de, T: Deserialize<'de>, E: de::Error>(
    method: String,
    field: &'static str,
) -> Result<T, E> {
    T::deserialize(Named::<de::value::UnitDeserializer<E>> {
        method,
        content: None,
        field,
    })
}

/// A method's name and the reader of its content (`field`: a request's `params`, an
/// answer's `result`), shown to [`Call`](crate::Call)'s or [`Reply`]'s derived reader as
/// the enum it expects: the name is the variant, the field its content.
struct Named<D> {
    method: String,
    content: Option<D>,
    field: &'static str,
}

impl<'de, D: Deserializer<'de>> Deserializer<'de> for Named<D> {
    type Error = D::Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
        visitor.visit_enum(self)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _: &'static str,
        _: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        visitor.visit_enum(self)
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf option unit unit_struct newtype_struct seq tuple
        tuple_struct map struct identifier ignored_any
    }
}

impl<'de, D: Deserializer<'de>> EnumAccess<'de> for Named<D> {
    type Error = D::Error;
    type Variant = Variant<D>;

    fn variant_seed<V: DeserializeSeed<'de>>(
        self,
        seed: V,
    ) -> Result<(V::Value, Variant<D>), D::Error> {
        let name: StringDeserializer<D::Error> = self.method.into_deserializer();
        let value = seed.deserialize(name)?;
        Ok((
            value,
            Variant {
                content: self.content,
                field: self.field,
            },
        ))
    }
}

/// A variant's content: the request's `params` or the answer's `result` (`field`), or
/// nothing.
struct Variant<D> {
    content: Option<D>,
    field: &'static str,
}

impl<D> Variant<D> {
    fn content<E: de::Error>(self) -> Result<D, E> {
        self.content.ok_or_else(|| E::missing_field(self.field))
    }
}

impl<'de, D: Deserializer<'de>> VariantAccess<'de> for Variant<D> {
    type Error = D::Error;

    fn unit_variant(self) -> Result<(), D::Error> {
        match self.content {
            Some(content) => IgnoredAny::deserialize(content).map(|_| ()),
            None => Ok(()),
        }
    }

    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value, D::Error> {
        seed.deserialize(self.content()?)
    }

    fn tuple_variant<V: Visitor<'de>>(self, len: usize, visitor: V) -> Result<V::Value, D::Error> {
        self.content()?.deserialize_tuple(len, visitor)
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        self.content()?.deserialize_struct("", fields, visitor)
    }
}

impl<'de> Deserialize<'de> for Request {
    /// Reads a request whose `method` comes before its `params` (as the page and
    /// `JSON.stringify` of `{v, id, session, method, params}` write it). The engine's
    /// worker reads its requests with [`RequestSeed`], having read `method` first, so
    /// that there the keys may come in any order.
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(RequestVisitor(None))
    }
}

/// Reads a request whose `method` was read first (the engine's worker reads it from the
/// message before the rest): `params` is then decoded straight into the method's
/// parameters wherever it comes among the keys, and nothing is buffered.
pub struct RequestSeed(pub String);

impl<'de> DeserializeSeed<'de> for RequestSeed {
    type Value = Request;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Request, D::Error> {
        deserializer.deserialize_map(RequestVisitor(Some(self.0)))
    }
}

/// Reads a request, its method known beforehand or not.
struct RequestVisitor(Option<String>);

impl<'de> Visitor<'de> for RequestVisitor {
    type Value = Request;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a request: {v, id, session, method, params}")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Request, A::Error> {
        let mut method = self.0;
        let mut named = false;
        let mut v = None;
        let mut id = None;
        let mut session = None;
        let mut call = None;
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "v" => v = Some(map.next_value::<u32>()?),
                "id" => id = Some(map.next_value::<u64>()?),
                "session" => session = map.next_value::<Option<String>>()?,
                "method" => {
                    // Once, and the one read first when it was.
                    let this = map.next_value::<String>()?;
                    if named || method.as_ref().is_some_and(|m| *m != this) {
                        return Err(de::Error::custom("a request names one method"));
                    }
                    named = true;
                    method = Some(this);
                }
                "params" => {
                    let Some(method) = method.clone() else {
                        return Err(de::Error::custom(
                            "a request names its `method` before its `params`",
                        ));
                    };
                    call = Some(map.next_value_seed(ContentSeed::new(method, "params"))?);
                }
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        let method = method.ok_or_else(|| de::Error::missing_field("method"))?;
        let call = match call {
            Some(call) => call,
            // A method without parameters (`catalog`, `close`, ...).
            None => without_content(method, "params")?,
        };
        Ok(Request {
            v: v.ok_or_else(|| de::Error::missing_field("v"))?,
            id: id.ok_or_else(|| de::Error::missing_field("id"))?,
            session,
            call,
        })
    }
}
