//! Reading and changing a variable's data where it lives, without copying it: `a[i]`,
//! `a.length`, `a.push(x)` and `a[i] = x` on a variable holding a large array would
//! otherwise copy the whole array each time, and a loop that builds an array with `push`
//! would take time quadratic in its length (10,000 pushes took minutes).
//!
//! A changed array or document is measured against MongoDB's limits
//! ([`crate::values::limits`]) when it grows by a large element or its length reaches a
//! power of two, rather than after every change: measuring is linear in its size, and
//! this keeps the cost of building one linear. Between two measures it grows by at most
//! its length times [`SMALL_ELEMENT_BYTES`], so it never holds more than twice MongoDB's
//! limit before it is refused.

use super::interpreter::{Session, StatementError};
use super::js_values::{data_property, set_element};
use super::script_state::Value;
use crate::values::js::js_number;
use crate::values::limits::{measure, MAX_BSON_BYTES};
use bson::Bson;

/// Elements up to this size (`{x: i, name: "user" + i}` is about 40 bytes) do not make a
/// growing array or document be measured at once.
const SMALL_ELEMENT_BYTES: u64 = 160;

/// The array methods changed in place when called on a variable.
pub(crate) const IN_PLACE_METHODS: [&str; 4] = ["push", "pop", "shift", "unshift"];

impl Session {
    /// Runs `f` on the data a variable holds, in place; `None` when `name` is not a
    /// variable or holds a function. `f` must not run script code.
    fn with_data_var<T>(&mut self, name: &str, f: impl FnOnce(&mut Bson) -> T) -> Option<T> {
        let mut scope = self.script.scope.clone();
        while let Some(s) = scope {
            if let Some(b) = s.vars.borrow_mut().get_mut(name) {
                return match &mut b.value {
                    Value::Data(d) => Some(f(d)),
                    _ => None,
                };
            }
            scope = s.parent.get().cloned();
        }
        self.ctx.variables.get_mut(name).map(f)
    }

    /// Whether a variable holds an array (`Some(true)`) or a document (`Some(false)`);
    /// `None` for anything else.
    pub(crate) fn var_holds(&mut self, name: &str) -> Option<bool> {
        self.with_data_var(name, |d| match d {
            Bson::Array(_) => Some(true),
            Bson::Document(_) => Some(false),
            _ => None,
        })
        .flatten()
    }

    /// `name.key` or `name[key]` read where the variable lives, copying only the result.
    pub(crate) fn var_property(
        &mut self,
        name: &str,
        key: &str,
    ) -> Option<Result<Value, StatementError>> {
        self.with_data_var(name, |d| data_property(d, key).map(Value::Data))
    }

    /// `name.push(...)` and the other [`IN_PLACE_METHODS`] on a variable holding an
    /// array; `None` when it holds something else.
    pub(crate) fn var_array_method(
        &mut self,
        name: &str,
        method: &str,
        items: Vec<Bson>,
    ) -> Option<Result<Value, StatementError>> {
        self.with_data_var(name, |d| {
            let Bson::Array(a) = d else {
                return None;
            };
            Some(array_in_place(a, method, items))
        })
        .flatten()
    }

    /// `name[key] = v` or `name.key = v` on a variable holding an array or a document;
    /// `None` when it holds something else.
    pub(crate) fn var_set_key(
        &mut self,
        name: &str,
        key: &str,
        v: Bson,
    ) -> Option<Result<(), StatementError>> {
        self.with_data_var(name, |d| match d {
            Bson::Array(a) => Some(set_in_array(a, key, v)),
            Bson::Document(doc) => {
                let small = match is_small(&v) {
                    Ok(small) => small,
                    Err(e) => return Some(Err(e)),
                };
                let old = doc.insert(key, v);
                if small && !doc.len().is_power_of_two() {
                    return Some(Ok(()));
                }
                let whole = Bson::Document(std::mem::take(doc));
                let checked = measure(&whole, MAX_BSON_BYTES).map(|_| ());
                let Bson::Document(back) = whole else {
                    return None;
                };
                *doc = back;
                if checked.is_err() {
                    match old {
                        Some(o) => doc.insert(key, o),
                        None => doc.remove(key),
                    };
                }
                Some(checked.map_err(StatementError::from))
            }
            _ => None,
        })
        .flatten()
    }
}

/// Whether a value is small enough to add without measuring the whole; an error when
/// it is past MongoDB's limit on its own.
fn is_small(v: &Bson) -> Result<bool, StatementError> {
    Ok(measure(v, MAX_BSON_BYTES)?.bytes <= SMALL_ELEMENT_BYTES)
}

/// Measures a grown array when the growth calls for it (see the module's note); on
/// failure the array is put back as it was by `undo`.
fn check_growth(
    a: &mut Vec<Bson>,
    small: bool,
    undo: impl FnOnce(&mut Vec<Bson>),
) -> Result<(), StatementError> {
    if small && !a.len().is_power_of_two() {
        return Ok(());
    }
    let whole = Bson::Array(std::mem::take(a));
    let checked = measure(&whole, MAX_BSON_BYTES);
    if let Bson::Array(back) = whole {
        *a = back;
    }
    if let Err(e) = checked {
        undo(a);
        return Err(e.into());
    }
    Ok(())
}

fn array_in_place(
    a: &mut Vec<Bson>,
    method: &str,
    items: Vec<Bson>,
) -> Result<Value, StatementError> {
    match method {
        "push" | "unshift" => {
            let mut small = true;
            for item in &items {
                small &= is_small(item)?;
            }
            let n = items.len();
            if method == "push" {
                a.extend(items);
                check_growth(a, small, |a| a.truncate(a.len() - n))?;
            } else {
                a.splice(0..0, items);
                check_growth(a, small, |a| {
                    a.drain(0..n);
                })?;
            }
            Ok(Value::Data(js_number(a.len() as f64)))
        }
        "pop" => Ok(Value::Data(a.pop().unwrap_or(Bson::Undefined))),
        _ => Ok(Value::Data(if a.is_empty() {
            Bson::Undefined
        } else {
            a.remove(0)
        })),
    }
}

fn set_in_array(a: &mut Vec<Bson>, key: &str, v: Bson) -> Result<(), StatementError> {
    let small = is_small(&v)?;
    let before = a.len();
    let index = key.parse::<usize>().ok();
    let old = index.and_then(|i| a.get(i).cloned());
    set_element(a, key, v)?;
    let grew = a.len() != before;
    check_growth(a, small && (grew || old.is_some()), |a| {
        match (index, old) {
            (Some(i), Some(o)) => a[i] = o,
            _ => a.truncate(before),
        }
    })
}
