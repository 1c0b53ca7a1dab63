//! The methods a script calls on values: arrays (`push`, `map`, `forEach`, `filter`,
//! ...), strings (`toUpperCase`, `split`, ...), numbers (`toFixed`), dates (`getTime`)
//! and ObjectIds. A method that changes an array (`push`, `pop`, ...) writes the array
//! back to the variable, property or element it was read from.

use super::interpreter::{Session, StatementError};
use super::js_values::{
    characters, compare, into_bson, js_string, number, pieces, place_text, string_too_long, truthy,
};
use super::script_state::Value;
use crate::shell::parser::{CompareOp, Expr};
use crate::values::js::js_number;
use crate::values::limits::MAX_STRING_BYTES;
use bson::Bson;

fn arg(args: &[Value], i: usize) -> Value {
    args.get(i).cloned().unwrap_or(Value::UNDEFINED)
}

fn data(b: Bson) -> Value {
    Value::Data(b)
}

fn num(x: f64) -> Value {
    Value::Data(js_number(x))
}

/// A relative index as `slice` reads it: negative counts from the end.
fn relative(v: &Value, len: usize, default: usize) -> usize {
    let n = number(v);
    if n.is_nan() {
        return if matches!(v, Value::Data(Bson::Undefined)) {
            default
        } else {
            0
        };
    }
    let len_f = len as f64;
    let i = if n < 0.0 {
        (len_f + n.trunc()).max(0.0)
    } else {
        n.trunc().min(len_f)
    };
    i as usize
}

impl Session {
    /// `place.method(args)` on a value read from `place`.
    pub(crate) fn js_method(
        &mut self,
        place: &Expr,
        recv: Bson,
        method: &str,
        args: Vec<Value>,
    ) -> Result<Value, StatementError> {
        let found = match recv {
            Bson::Array(a) => self.array_method(place, a, method, args)?,
            Bson::String(s) if matches!(method, "toUpperCase" | "toLowerCase") => {
                // Unicode's case tables: in the browser they load with the commands a first
                // visit does not run (see `later.rs`).
                let call = super::later::LaterCall::Case(&s, method == "toUpperCase");
                let what = format!("String.prototype.{method}");
                let changed = self
                    .later(&what, call)
                    .map(|out| out.map(|out| data(super::script::output_value(out))));
                changed.transpose()?
            }
            Bson::String(s) => string_method(&s, method, &args)?,
            Bson::Int32(_) | Bson::Int64(_) | Bson::Double(_) => {
                number_method(&data(recv), method, &args)
            }
            Bson::DateTime(d) => match method {
                "getTime" | "valueOf" => Some(num(d.timestamp_millis() as f64)),
                "toISOString" | "toJSON" => Some(data(Bson::String(
                    crate::values::encoding::format_iso(d.timestamp_millis()),
                ))),
                "toString" => Some(data(Bson::String(js_string(&data(Bson::DateTime(d)))))),
                _ => None,
            },
            Bson::ObjectId(o) => match method {
                "toString" | "toHexString" => Some(data(Bson::String(o.to_hex()))),
                "getTimestamp" => Some(data(Bson::DateTime(bson::DateTime::from_millis(
                    o.timestamp().timestamp_millis(),
                )))),
                _ => None,
            },
            Bson::Document(d) => match method {
                "hasOwnProperty" => Some(data(Bson::Boolean(
                    d.contains_key(js_string(&arg(&args, 0))),
                ))),
                _ => None,
            },
            Bson::Null | Bson::Undefined => {
                return Err(StatementError::type_error(format!(
                    "Cannot read properties of {} (reading '{method}')",
                    if recv == Bson::Null {
                        "null"
                    } else {
                        "undefined"
                    }
                )))
            }
            _ => None,
        };
        found.ok_or_else(|| {
            StatementError::type_error(format!("{}.{method} is not a function", place_text(place)))
        })
    }

    fn array_method(
        &mut self,
        place: &Expr,
        mut a: Vec<Bson>,
        method: &str,
        args: Vec<Value>,
    ) -> Result<Option<Value>, StatementError> {
        let result = match method {
            "push" | "unshift" => {
                let items = args
                    .into_iter()
                    .map(into_bson)
                    .collect::<Result<Vec<_>, _>>()?;
                if method == "push" {
                    a.extend(items);
                } else {
                    a.splice(0..0, items);
                }
                let len = num(a.len() as f64);
                self.write_back(place, Bson::Array(a))?;
                len
            }
            "pop" | "shift" => {
                let v = if method == "pop" {
                    a.pop()
                } else if a.is_empty() {
                    None
                } else {
                    Some(a.remove(0))
                };
                self.write_back(place, Bson::Array(a))?;
                data(v.unwrap_or(Bson::Undefined))
            }
            "reverse" | "sort" => {
                if method == "reverse" {
                    a.reverse();
                } else {
                    self.sort(&mut a, args.first())?;
                }
                self.write_back(place, Bson::Array(a.clone()))?;
                data(Bson::Array(a))
            }
            _ => return self.array_read(a, method, args),
        };
        Ok(Some(result))
    }

    /// `sort()` by JavaScript's default (as strings) or with a comparator.
    fn sort(&mut self, a: &mut [Bson], cmp: Option<&Value>) -> Result<(), StatementError> {
        let Some(f) = cmp.cloned() else {
            a.sort_by_cached_key(|x| {
                js_string(&data(x.clone()))
                    .encode_utf16()
                    .collect::<Vec<_>>()
            });
            return Ok(());
        };
        let mut error = None;
        a.sort_by(|x, y| {
            if error.is_some() {
                return std::cmp::Ordering::Equal;
            }
            match self.call_value(&f, vec![data(x.clone()), data(y.clone())]) {
                Ok(v) => number(&v)
                    .partial_cmp(&0.0)
                    .unwrap_or(std::cmp::Ordering::Equal),
                Err(e) => {
                    error = Some(e);
                    std::cmp::Ordering::Equal
                }
            }
        });
        error.map_or(Ok(()), Err)
    }

    /// The array methods that leave the array as it is.
    fn array_read(
        &mut self,
        a: Vec<Bson>,
        method: &str,
        args: Vec<Value>,
    ) -> Result<Option<Value>, StatementError> {
        let r = match method {
            "map" | "forEach" | "filter" | "find" | "findIndex" | "some" | "every" => {
                self.array_callback(a, method, &arg(&args, 0))?
            }
            "reduce" => self.reduce(a, &args)?,
            "join" => {
                let sep = match arg(&args, 0) {
                    Value::Data(Bson::Undefined) => ",".to_string(),
                    v => js_string(&v),
                };
                let parts: Vec<String> = a
                    .into_iter()
                    .map(|x| match x {
                        Bson::Null | Bson::Undefined => String::new(),
                        x => js_string(&data(x)),
                    })
                    .collect();
                let total: usize =
                    parts.iter().map(String::len).sum::<usize>() + sep.len() * parts.len();
                if total > MAX_STRING_BYTES {
                    return Err(string_too_long());
                }
                data(Bson::String(parts.join(&sep)))
            }
            "toString" => data(Bson::String(js_string(&data(Bson::Array(a))))),
            "indexOf" | "includes" => {
                let needle = arg(&args, 0);
                let pos = a
                    .iter()
                    .position(|x| compare(CompareOp::StrictEq, &data(x.clone()), &needle));
                if method == "includes" {
                    data(Bson::Boolean(pos.is_some()))
                } else {
                    num(pos.map_or(-1.0, |p| p as f64))
                }
            }
            "slice" => {
                let start = relative(&arg(&args, 0), a.len(), 0);
                let end = relative(&arg(&args, 1), a.len(), a.len());
                data(Bson::Array(
                    a.get(start..end.max(start)).unwrap_or_default().to_vec(),
                ))
            }
            "concat" => {
                let mut out = a;
                for v in args {
                    match into_bson(v)? {
                        Bson::Array(more) => out.extend(more),
                        other => out.push(other),
                    }
                }
                crate::values::limits::measure(
                    &Bson::Array(out.clone()),
                    crate::values::limits::MAX_BSON_BYTES,
                )?;
                data(Bson::Array(out))
            }
            _ => return Ok(None),
        };
        Ok(Some(r))
    }

    /// The methods that call a function once per element with `(element, index)`.
    fn array_callback(
        &mut self,
        a: Vec<Bson>,
        method: &str,
        f: &Value,
    ) -> Result<Value, StatementError> {
        let mut mapped = Vec::new();
        for (i, x) in a.into_iter().enumerate() {
            // A shell function gets the element alone, as a cursor's `forEach` passes
            // it: `db.c.find().forEach(printjson)` prints each document.
            let args = match f {
                Value::Native(_) => vec![data(x.clone())],
                _ => vec![data(x.clone()), num(i as f64)],
            };
            let r = self.call_value(f, args)?;
            match method {
                "map" => mapped.push(into_bson(r)?),
                "filter" if truthy(&r) => mapped.push(x),
                "find" if truthy(&r) => return Ok(data(x)),
                "findIndex" if truthy(&r) => return Ok(num(i as f64)),
                "some" if truthy(&r) => return Ok(data(Bson::Boolean(true))),
                "every" if !truthy(&r) => return Ok(data(Bson::Boolean(false))),
                _ => {}
            }
        }
        Ok(match method {
            "map" | "filter" => data(Bson::Array(mapped)),
            "find" => Value::UNDEFINED,
            "findIndex" => num(-1.0),
            "some" => data(Bson::Boolean(false)),
            "every" => data(Bson::Boolean(true)),
            _ => Value::UNDEFINED,
        })
    }

    fn reduce(&mut self, a: Vec<Bson>, args: &[Value]) -> Result<Value, StatementError> {
        let f = arg(args, 0);
        let mut items = a.into_iter().enumerate();
        let mut acc = match args.get(1) {
            Some(init) => init.clone(),
            None => match items.next() {
                Some((_, first)) => data(first),
                None => {
                    return Err(StatementError::type_error(
                        "Reduce of empty array with no initial value",
                    ))
                }
            },
        };
        for (i, x) in items {
            acc = self.call_value(&f, vec![acc, data(x), num(i as f64)])?;
        }
        Ok(acc)
    }
}

fn string_method(s: &str, method: &str, args: &[Value]) -> Result<Option<Value>, StatementError> {
    let text = |i: usize| js_string(&arg(args, i));
    let units: Vec<u16> = s.encode_utf16().collect();
    let from_units = |u: &[u16]| data(Bson::String(String::from_utf16_lossy(u)));
    let r = match method {
        "trim" => data(Bson::String(s.trim().to_string())),
        "toString" | "valueOf" => data(Bson::String(s.to_string())),
        "includes" => data(Bson::Boolean(s.contains(&text(0)))),
        "startsWith" => data(Bson::Boolean(s.starts_with(&text(0)))),
        "endsWith" => data(Bson::Boolean(s.ends_with(&text(0)))),
        "indexOf" => {
            let needle: Vec<u16> = text(0).encode_utf16().collect();
            let pos = (0..=units.len().saturating_sub(needle.len()))
                .find(|&i| units.get(i..i + needle.len()) == Some(&needle[..]));
            num(pos.map_or(-1.0, |p| p as f64))
        }
        "slice" | "substring" => {
            let start = relative(&arg(args, 0), units.len(), 0);
            let end = relative(&arg(args, 1), units.len(), units.len());
            let (start, end) = if method == "substring" && start > end {
                (end, start)
            } else {
                (start, end.max(start))
            };
            from_units(&units[start..end])
        }
        "charAt" => {
            let i = relative(&arg(args, 0), units.len(), 0);
            from_units(units.get(i..i + 1).unwrap_or_default())
        }
        "split" => {
            let sep = text(0);
            let parts = if sep.is_empty() {
                characters(s)?
            } else {
                pieces(s.split(sep.as_str()))?
            };
            data(Bson::Array(parts))
        }
        "repeat" | "padStart" | "padEnd" | "concat" => return grow_string(s, method, args),
        _ => return Ok(None),
    };
    Ok(Some(r))
}

/// The string methods that build a longer string, refused past MongoDB's size limit.
fn grow_string(s: &str, method: &str, args: &[Value]) -> Result<Option<Value>, StatementError> {
    let n = number(&arg(args, 0));
    let n = if n.is_nan() { 0.0 } else { n.max(0.0) };
    let out = match method {
        "repeat" => {
            if (s.len() as f64) * n > MAX_STRING_BYTES as f64 {
                return Err(string_too_long());
            }
            s.repeat(n as usize)
        }
        "concat" => {
            let mut out = s.to_string();
            for a in args {
                out.push_str(&js_string(a));
                if out.len() > MAX_STRING_BYTES {
                    return Err(string_too_long());
                }
            }
            out
        }
        _ => {
            let fill = match arg(args, 1) {
                Value::Data(Bson::Undefined) => " ".to_string(),
                v => js_string(&v),
            };
            let len = s.encode_utf16().count();
            if n > MAX_STRING_BYTES as f64 {
                return Err(string_too_long());
            }
            let want = (n as usize).saturating_sub(len);
            let fill_bytes = fill.len() / fill.chars().count().max(1) + 1;
            if want.saturating_mul(fill_bytes) + s.len() > MAX_STRING_BYTES {
                return Err(string_too_long());
            }
            if fill.is_empty() || want == 0 {
                s.to_string()
            } else {
                let pad: String = fill.chars().cycle().take(want).collect();
                if method == "padStart" {
                    pad + s
                } else {
                    s.to_string() + &pad
                }
            }
        }
    };
    Ok(Some(data(Bson::String(out))))
}

fn number_method(v: &Value, method: &str, args: &[Value]) -> Option<Value> {
    let x = number(v);
    match method {
        "toFixed" => {
            let digits = number(&arg(args, 0));
            let digits = if digits.is_nan() {
                0
            } else {
                digits.clamp(0.0, 100.0) as usize
            };
            Some(data(Bson::String(format!("{x:.digits$}"))))
        }
        "toString" | "valueOf" if method == "valueOf" => Some(num(x)),
        "toString" => Some(data(Bson::String(js_string(v)))),
        _ => None,
    }
}
