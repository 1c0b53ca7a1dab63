//! localStorage without serde: values are JSON texts written and read by the browser's own
//! `JSON.stringify` and `JSON.parse`, in the format the page always stored (a string as a
//! JSON string literal, the guide's progress as `{"lesson":…,"step":…}`), so saved
//! sessions and progress from earlier versions keep loading. Keeping serde_json out of the
//! wasm makes the download smaller.
//!
//! sessionStorage (per tab, kept across reloads) holds what the crash recovery needs: the
//! command in flight and the record of a crash (see [`crate::recovery`]). Its helpers are
//! the `session_*` functions.

use wasm_bindgen::{JsCast, JsValue};

fn local() -> Option<web_sys::Storage> {
    if !super::in_browser() {
        return None;
    }
    web_sys::window()?.local_storage().ok()?
}

fn session() -> Option<web_sys::Storage> {
    if !super::in_browser() {
        return None;
    }
    web_sys::window()?.session_storage().ok()?
}

/// The raw text stored under `key` in sessionStorage.
pub fn session_get(key: &str) -> Option<String> {
    session()?.get_item(key).ok()?
}

/// Stores raw text under `key` in sessionStorage. A full or refused store is ignored: the
/// recovery it serves is a best effort, and the page must work without it.
pub fn session_set(key: &str, text: &str) {
    if let Some(s) = session() {
        let _ = s.set_item(key, text);
    }
}

/// Removes `key` from sessionStorage.
pub fn session_remove(key: &str) {
    if let Some(s) = session() {
        let _ = s.remove_item(key);
    }
}

/// The raw text stored under `key`.
pub fn get(key: &str) -> Option<String> {
    local()?.get_item(key).ok()?
}

/// Removes `key`.
pub fn remove(key: &str) {
    if let Some(s) = local() {
        let _ = s.remove_item(key);
    }
}

/// Stores `value` as JSON text.
pub fn set_json(key: &str, value: &JsValue) {
    if let (Some(s), Ok(json)) = (local(), js_sys::JSON::stringify(value)) {
        let _ = s.set_item(key, &String::from(json));
    }
}

/// Stores a string as a JSON string literal.
pub fn set_string(key: &str, text: &str) {
    set_json(key, &JsValue::from_str(text));
}

/// Stores a string as [`set_string`] does and says whether it is stored: a full store
/// refuses it, and a copy that must exist before its original is removed needs to know.
pub fn try_set_string(key: &str, text: &str) -> bool {
    set_string(key, text);
    get_string(key).as_deref() == Some(text)
}

/// Reads a string stored as a JSON string literal; text that is not one is returned as is.
pub fn get_string(key: &str) -> Option<String> {
    let text = get(key)?;
    Some(
        js_sys::JSON::parse(&text)
            .ok()
            .and_then(|v| v.as_string())
            .unwrap_or(text),
    )
}

/// Reads the JSON object stored under `key`.
pub fn get_object(key: &str) -> Option<js_sys::Object> {
    parse_object(&get(key)?)
}

/// Parses JSON text that should hold an object.
pub fn parse_object(text: &str) -> Option<js_sys::Object> {
    let value = js_sys::JSON::parse(text).ok()?;
    value
        .is_object()
        .then(|| wasm_bindgen::JsCast::unchecked_into(value))
}

/// The JSON text of an object built with [`set_field`].
pub fn to_json_text(object: &js_sys::Object) -> Option<String> {
    js_sys::JSON::stringify(object).ok().map(String::from)
}

/// A string field of a JSON object.
pub fn string_field(object: &js_sys::Object, name: &str) -> Option<String> {
    js_sys::Reflect::get(object, &JsValue::from_str(name))
        .ok()?
        .as_string()
}

/// A boolean field of a JSON object (`false` when absent).
pub fn bool_field(object: &js_sys::Object, name: &str) -> bool {
    js_sys::Reflect::get(object, &JsValue::from_str(name))
        .ok()
        .and_then(|v| v.as_bool())
        .unwrap_or(false)
}

/// A numeric field of a JSON object.
pub fn number_field(object: &js_sys::Object, name: &str) -> Option<f64> {
    js_sys::Reflect::get(object, &JsValue::from_str(name))
        .ok()?
        .as_f64()
}

/// Sets a field of an object being built for [`set_json`].
pub fn set_field(object: &js_sys::Object, name: &str, value: &JsValue) {
    let _ = js_sys::Reflect::set(object, &JsValue::from_str(name), value);
}

/// Stores name/value pairs as a JSON array of two-item arrays.
pub fn set_pairs(key: &str, pairs: &[(String, String)]) {
    let list = js_sys::Array::new();
    for (name, value) in pairs {
        list.push(&js_sys::Array::of2(
            &JsValue::from_str(name),
            &JsValue::from_str(value),
        ));
    }
    set_json(key, &list);
}

/// Reads [`set_pairs`]'s pairs; anything else reads as none (storage can hold anything).
pub fn get_pairs(key: &str) -> Vec<(String, String)> {
    let Some(text) = get(key) else {
        return Vec::new();
    };
    let Ok(value) = js_sys::JSON::parse(&text) else {
        return Vec::new();
    };
    if !js_sys::Array::is_array(&value) {
        return Vec::new();
    }
    let list: js_sys::Array = value.unchecked_into();
    list.iter()
        .take(64)
        .filter_map(|pair| {
            if !js_sys::Array::is_array(&pair) {
                return None;
            }
            let pair: js_sys::Array = pair.unchecked_into();
            Some((pair.get(0).as_string()?, pair.get(1).as_string()?))
        })
        .collect()
}

/// Reads JSON text (a content file the page fetched) with the browser's own parser, into
/// the plain JavaScript values [`as_object`], [`as_list`] and [`field`] read.
pub fn parse_json(text: &str) -> Result<JsValue, String> {
    js_sys::JSON::parse(text).map_err(|e| {
        e.dyn_ref::<js_sys::Error>()
            .map(|e| String::from(e.message()))
            .unwrap_or_else(|| "not JSON".to_string())
    })
}

/// A JSON object (not a list, not `null`).
pub fn as_object(value: &JsValue) -> Option<js_sys::Object> {
    (value.is_object() && !js_sys::Array::is_array(value)).then(|| value.clone().unchecked_into())
}

/// A JSON list.
pub fn as_list(value: &JsValue) -> Option<js_sys::Array> {
    js_sys::Array::is_array(value).then(|| value.clone().unchecked_into())
}

/// The field `name` of a JSON object (`undefined` when absent).
pub fn field(object: &js_sys::Object, name: &str) -> JsValue {
    js_sys::Reflect::get(object, &JsValue::from_str(name)).unwrap_or(JsValue::UNDEFINED)
}
