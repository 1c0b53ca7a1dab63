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
//! limit before it is refused. A global variable's measured size is also checked against
//! the session's memory budget, which it shares with the other variables and the
//! cluster's documents ([`Session::bind`]): past it the change is undone and refused.

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

/// Why a change in place was refused.
enum Refused {
    /// Past one value's limits.
    Limit(StatementError),
    /// Past the session's memory budget.
    Budget,
}

impl From<StatementError> for Refused {
    fn from(e: StatementError) -> Self {
        Refused::Limit(e)
    }
}

impl Session {
    /// Whether `name` is a variable of a call's or block's scope (not a global).
    fn is_local(&self, name: &str) -> bool {
        let mut scope = self.script.scope.as_ref();
        while let Some(s) = scope {
            if s.vars.borrow().contains_key(name) {
                return true;
            }
            scope = s.parent.get();
        }
        false
    }

    /// How many bytes a variable changed in place may reach: a global's room in the
    /// session's memory budget; a local's is bounded by one value's limits alone.
    fn room_in_place(&self, name: &str) -> u64 {
        if self.is_local(name) {
            u64::MAX
        } else {
            self.room_for_variable(name)
        }
    }

    /// Ends a change in place: notes a global's new measured size, or turns a refusal
    /// into its error.
    fn settle<T>(
        &mut self,
        name: &str,
        r: Result<(T, Option<u64>), Refused>,
    ) -> Result<T, StatementError> {
        match r {
            Ok((v, measured)) => {
                if let Some(bytes) = measured {
                    if !self.is_local(name) {
                        self.note_variable(name, bytes);
                    }
                }
                Ok(v)
            }
            Err(Refused::Limit(e)) => Err(e),
            Err(Refused::Budget) => Err(self.memory_refusal("changing", name)),
        }
    }

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
        let room = self.room_in_place(name);
        let r = self
            .with_data_var(name, |d| {
                let Bson::Array(a) = d else {
                    return None;
                };
                Some(array_in_place(a, method, items, room))
            })
            .flatten()?;
        Some(self.settle(name, r))
    }

    /// `name[key] = v` or `name.key = v` on a variable holding an array or a document;
    /// `None` when it holds something else.
    pub(crate) fn var_set_key(
        &mut self,
        name: &str,
        key: &str,
        v: Bson,
    ) -> Option<Result<(), StatementError>> {
        let room = self.room_in_place(name);
        let r = self
            .with_data_var(name, |d| match d {
                Bson::Array(a) => Some(set_in_array(a, key, v, room).map(|m| ((), m))),
                Bson::Document(doc) => Some(set_in_document(doc, key, v, room).map(|m| ((), m))),
                _ => None,
            })
            .flatten()?;
        Some(self.settle(name, r))
    }
}

/// Whether a value is small enough to add without measuring the whole; an error when
/// it is past MongoDB's limit on its own.
fn is_small(v: &Bson) -> Result<bool, StatementError> {
    Ok(measure(v, MAX_BSON_BYTES)?.bytes <= SMALL_ELEMENT_BYTES)
}

/// `doc[key] = v` on a variable's document, measured as [`check_growth`] measures an
/// array.
fn set_in_document(
    doc: &mut bson::Document,
    key: &str,
    v: Bson,
    room: u64,
) -> Result<Option<u64>, Refused> {
    let small = is_small(&v)?;
    let old = doc.insert(key, v);
    if small && !doc.len().is_power_of_two() {
        return Ok(None);
    }
    let whole = Bson::Document(std::mem::take(doc));
    let checked = measured_within(&whole, room);
    if let Bson::Document(back) = whole {
        *doc = back;
    }
    if checked.is_err() {
        match old {
            Some(o) => doc.insert(key, o),
            None => doc.remove(key),
        };
    }
    checked.map(Some)
}

/// A value's size, refused past one value's limits or past `room` bytes.
fn measured_within(whole: &Bson, room: u64) -> Result<u64, Refused> {
    let bytes = measure(whole, MAX_BSON_BYTES)
        .map_err(|e| Refused::Limit(e.into()))?
        .bytes;
    if bytes > room {
        return Err(Refused::Budget);
    }
    Ok(bytes)
}

/// Measures a grown array when the growth calls for it (see the module's note), and
/// returns its size if it did; on failure the array is put back as it was by `undo`.
fn check_growth(
    a: &mut Vec<Bson>,
    small: bool,
    undo: impl FnOnce(&mut Vec<Bson>),
    room: u64,
) -> Result<Option<u64>, Refused> {
    if small && !a.len().is_power_of_two() {
        return Ok(None);
    }
    let whole = Bson::Array(std::mem::take(a));
    let checked = measured_within(&whole, room);
    if let Bson::Array(back) = whole {
        *a = back;
    }
    if checked.is_err() {
        undo(a);
    }
    checked.map(Some)
}

fn array_in_place(
    a: &mut Vec<Bson>,
    method: &str,
    items: Vec<Bson>,
    room: u64,
) -> Result<(Value, Option<u64>), Refused> {
    let shrunk = |v: Bson| Ok((Value::Data(v), None));
    match method {
        "push" | "unshift" => {
            let mut small = true;
            for item in &items {
                small &= is_small(item)?;
            }
            let n = items.len();
            let measured = if method == "push" {
                a.extend(items);
                check_growth(a, small, |a| a.truncate(a.len() - n), room)?
            } else {
                a.splice(0..0, items);
                check_growth(
                    a,
                    small,
                    |a| {
                        a.drain(0..n);
                    },
                    room,
                )?
            };
            Ok((Value::Data(js_number(a.len() as f64)), measured))
        }
        "pop" => shrunk(a.pop().unwrap_or(Bson::Undefined)),
        _ => shrunk(if a.is_empty() {
            Bson::Undefined
        } else {
            a.remove(0)
        }),
    }
}

fn set_in_array(a: &mut Vec<Bson>, key: &str, v: Bson, room: u64) -> Result<Option<u64>, Refused> {
    let small = is_small(&v)?;
    let before = a.len();
    let index = key.parse::<usize>().ok();
    let old = index.and_then(|i| a.get(i).cloned());
    set_element(a, key, v)?;
    let grew = a.len() != before;
    check_growth(
        a,
        small && (grew || old.is_some()),
        |a| match (index, old) {
            (Some(i), Some(o)) => a[i] = o,
            _ => a.truncate(before),
        },
        room,
    )
}
