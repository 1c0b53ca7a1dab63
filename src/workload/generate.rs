//! Seeded document and query generators: the workloads behind `sim.generate(...)` and the
//! lesson presets (monotonic keys, low cardinality, skewed frequency, multi-tenant keys,
//! missing fields).
//!
//! A workload spec is a template document whose field values describe how to fill each
//! field, the way a mongosh user would write it:
//!
//! ```text
//! { x: "increasing", ts: "date", continent: "continent",
//!   n: { gen: "uniformInt", min: 0, max: 1000 },
//!   projectId: { gen: "tenant", tenants: 50, skew: 1.2 },
//!   email: { gen: "missing", p: 0.3, of: "uniformString" },
//!   payload: { gen: "padding", bytes: 200 },
//!   meta: { source: "import", seq: "increasing" } }
//! ```
//!
//! A string naming a generator, or an object with a `gen` field, is a generator; an object
//! without `gen` is a nested template; anything else is copied as is. Generation is
//! deterministic: the same spec, seed and `start` give the same documents natively and in
//! wasm32, because every random draw comes from [`SplitMix64`] and every floating point
//! step uses only IEEE basic arithmetic (no platform `pow`, `exp` or `ln`).

use crate::engine::analyze::QuerySample as QueryOp;
use crate::keys::shard_key::KeyPattern;
use crate::support::rng::SplitMix64;
use crate::values::error::ClusterError;
use crate::values::order::compare_values;
use crate::values::path::lookup_path;
use bson::oid::ObjectId;
use bson::spec::BinarySubtype;
use bson::{Binary, Bson, DateTime, Document};

/// The most documents one `generate` call may produce: about a second of work in a
/// phone's browser, so that no single command freezes the page for long.
pub const MAX_GENERATE: u64 = 100_000;

/// The most bytes of documents one `generate` call may produce (estimated from the first
/// document before any is made): with [`MAX_GENERATE`], the work budget of one call.
pub const MAX_GENERATE_BYTES: u64 = 64 * 1024 * 1024;

/// The most queries one `generate_queries` call may produce. Each may be an update or a
/// delete that scans the collection, so fewer than documents.
pub const MAX_QUERIES: u64 = 10_000;

/// The largest `n` a Zipf or tenant generator accepts; its table holds one weight per value.
pub const MAX_ZIPF_N: u64 = 1_000_000;

/// The largest filler a `padding` generator makes, in bytes (well under BSON's 16 MB).
pub const MAX_PADDING: u64 = 1_000_000;

/// The generator names a spec may use, as listed in error messages.
pub const GENERATOR_NAMES: &[&str] = &[
    "increasing",
    "decreasing",
    "objectId",
    "date",
    "uniformInt",
    "uniformString",
    "continent",
    "zipf",
    "uuid",
    "choice",
    "tenant",
    "missing",
    "const",
    "padding",
];

/// The seven continents, in the order the `continent` generator's weights follow.
pub const CONTINENTS: [&str; 7] = [
    "Asia",
    "Africa",
    "Europe",
    "North America",
    "South America",
    "Oceania",
    "Antarctica",
];

/// Rough population shares: low cardinality *and* uneven frequency, yet every continent
/// shows up in a few hundred documents.
const CONTINENT_WEIGHTS: [f64; 7] = [0.30, 0.18, 0.18, 0.14, 0.10, 0.06, 0.04];

/// The first second of generated ObjectIds and dates: 2023-11-14T22:13:20Z.
const EPOCH_SECONDS: u32 = 1_700_000_000;

/// A compiled field generator.
#[derive(Debug, Clone)]
enum Gen {
    /// `start + i * step`.
    Increasing { start: i64, step: i64 },
    /// `start - i * step`.
    Decreasing { start: i64, step: i64 },
    /// ObjectIds that grow with the document number: seconds, a fixed process, a counter.
    ObjectId { process: [u8; 5], per_second: u64 },
    /// Dates `step_ms` apart, starting at `start_ms`.
    Date { start_ms: i64, step_ms: i64 },
    /// A uniform integer in `[min, max]`.
    UniformInt { min: i64, max: i64 },
    /// A random lowercase alphanumeric string.
    UniformString { len: u32 },
    /// A continent, population-weighted.
    Continent,
    /// A value `1..=n` with probability proportional to `1 / k^s`.
    Zipf { cdf: Vec<f64> },
    /// A random version 4 UUID (BSON binary subtype 4).
    Uuid,
    /// One of `values`, optionally weighted.
    Choice {
        values: Vec<Bson>,
        cdf: Option<Vec<f64>>,
    },
    /// A tenant's ObjectId, tenants drawn with Zipf skew so a few tenants are huge.
    Tenant { cdf: Vec<f64> },
    /// The inner generator, or no field at all with probability `p`.
    Missing { p: f64, of: Box<Gen> },
    /// Always `value`.
    Const(Bson),
    /// A string of `bytes` filler characters.
    Padding(String),
    /// A nested template.
    Object(Vec<(String, Gen)>),
}

/// A compiled workload spec; build it once and draw many documents from it.
#[derive(Debug, Clone)]
pub struct Template {
    fields: Vec<(String, Gen)>,
}

impl Template {
    /// Compiles a spec document, or explains what is wrong with it.
    pub fn compile(spec: &Document) -> Result<Self, ClusterError> {
        Ok(Template {
            fields: compile_fields(spec, "")?,
        })
    }

    /// The document with number `i` (0-based over the life of the generator).
    pub fn document(&self, i: u64, rng: &mut SplitMix64) -> Document {
        fill(&self.fields, i, rng)
    }
}

/// Generates `count` documents from `spec`. `start` is how many documents this spec has
/// already produced, so counters (`increasing`, `objectId`, `date`, ...) continue where
/// the previous call stopped; random fields draw from `rng`.
pub fn generate(
    spec: &Document,
    count: u64,
    start: u64,
    rng: &mut SplitMix64,
) -> Result<Vec<Document>, ClusterError> {
    if count > MAX_GENERATE {
        return Err(ClusterError::BadValue(format!(
            "cannot generate {count} documents in one call; the limit is {MAX_GENERATE}"
        )));
    }
    let template = Template::compile(spec)?;
    // The first document, made on a copy of the generator's state so that the real run
    // draws the same values, estimates the whole call's size before any work is done.
    if count > 0 {
        let sample = template.document(start, &mut rng.clone());
        let each = sample.to_vec().map_or(0, |b| b.len() as u64);
        let total = each.saturating_mul(count);
        if total > MAX_GENERATE_BYTES {
            return Err(ClusterError::ExceededMemoryLimit(format!(
                "cannot generate {count} documents of about {each} bytes in one call \
                 ({} MiB); the limit is {} MiB per call",
                total >> 20,
                MAX_GENERATE_BYTES >> 20
            )));
        }
    }
    let mut out = Vec::with_capacity(count as usize);
    for n in 0..count {
        out.push(template.document(start.saturating_add(n), rng));
    }
    Ok(out)
}

/// The names accepted by [`preset`], in the order the UI lists them.
pub fn preset_names() -> &'static [&'static str] {
    &[
        "monotonic",
        "decreasing",
        "objectIds",
        "hashedId",
        "uniform",
        "continents",
        "zipf",
        "multiTenant",
        "missingFields",
    ]
}

/// A named workload spec for the lessons, or `None` for an unknown name.
///
/// - `monotonic`: `x` grows with every insert, like a counter or a timestamp.
/// - `decreasing`: `x` shrinks with every insert.
/// - `objectIds` (alias `hashedId`): `_id` is a growing ObjectId, the case for `{_id: "hashed"}`.
/// - `uniform`: `x` is uniformly random over a million values.
/// - `continents`: `continent` has seven values only, with uneven shares.
/// - `zipf`: `x` follows a Zipf law, so a few values hold most documents.
/// - `multiTenant`: `projectId` names one of 50 tenants of very different sizes and `_id`
///   is a growing ObjectId, the `{projectId: 1, _id: 1}` case.
/// - `missingFields`: `x` is absent from about a third of the documents.
pub fn preset(name: &str) -> Option<Document> {
    let padding = |bytes: i32| Bson::Document(bson::doc! { "gen": "padding", "bytes": bytes });
    let spec = match name {
        "monotonic" => bson::doc! { "x": "increasing", "ts": "date", "payload": padding(100) },
        "decreasing" => bson::doc! { "x": "decreasing", "ts": "date", "payload": padding(100) },
        "objectIds" | "hashedId" => {
            bson::doc! { "_id": "objectId", "ts": "date", "payload": padding(100) }
        }
        "uniform" => bson::doc! {
            "x": { "gen": "uniformInt", "min": 0, "max": 999_999 },
            "payload": padding(100),
        },
        "continents" => bson::doc! {
            "continent": "continent",
            "user": "uniformString",
            "payload": padding(100),
        },
        "zipf" => bson::doc! {
            "x": { "gen": "zipf", "n": 1000, "s": 1.1 },
            "payload": padding(100),
        },
        "multiTenant" => bson::doc! {
            "_id": "objectId",
            "projectId": { "gen": "tenant", "tenants": 50, "skew": 1.2 },
            "event": { "gen": "choice", "values": ["error", "warning", "info"] },
            "payload": padding(100),
        },
        "missingFields" => bson::doc! {
            "x": { "gen": "missing", "p": 0.3, "of": { "gen": "uniformInt", "min": 0, "max": 999_999 } },
            "payload": padding(100),
        },
        _ => return None,
    };
    Some(spec)
}

fn bad(msg: impl Into<String>) -> ClusterError {
    ClusterError::BadValue(msg.into())
}

fn unknown_generator(path: &str, name: &str) -> ClusterError {
    bad(format!(
        "unknown generator \"{name}\" for field '{path}'; valid generators are: {}",
        GENERATOR_NAMES.join(", ")
    ))
}

fn join(prefix: &str, name: &str) -> String {
    if prefix.is_empty() {
        name.to_string()
    } else {
        format!("{prefix}.{name}")
    }
}

fn compile_fields(spec: &Document, prefix: &str) -> Result<Vec<(String, Gen)>, ClusterError> {
    spec.iter()
        .map(|(name, value)| Ok((name.clone(), compile_value(value, &join(prefix, name))?)))
        .collect()
}

fn compile_value(value: &Bson, path: &str) -> Result<Gen, ClusterError> {
    match value {
        Bson::String(name) => match compile_named(name, &Document::new(), path) {
            Ok(gen) => Ok(gen),
            // A string that names no generator is a literal value.
            Err(None) => Ok(Gen::Const(value.clone())),
            Err(Some(e)) => Err(e),
        },
        Bson::Document(d) => match d.get("gen") {
            Some(Bson::String(name)) => compile_named(name, d, path)
                .map_err(|e| e.unwrap_or_else(|| unknown_generator(path, name))),
            Some(other) => Err(bad(format!(
                "'gen' of field '{path}' must be a generator name string, got {other}"
            ))),
            None => Ok(Gen::Object(compile_fields(d, path)?)),
        },
        other => Ok(Gen::Const(other.clone())),
    }
}

/// Compiles a named generator with its options; `Err(None)` means the name is unknown.
fn compile_named(name: &str, opts: &Document, path: &str) -> Result<Gen, Option<ClusterError>> {
    let o = Options { opts, path };
    let gen = match name {
        "increasing" => Gen::Increasing {
            start: o.int("start", 0)?,
            step: o.int("step", 1)?,
        },
        "decreasing" => Gen::Decreasing {
            start: o.int("start", 1_000_000_000)?,
            step: o.int("step", 1)?,
        },
        "objectId" => compile_object_id(&o)?,
        "date" => Gen::Date {
            start_ms: o.int("start", i64::from(EPOCH_SECONDS) * 1000)?,
            step_ms: o.int("stepMs", 1000)?,
        },
        "uniformInt" => compile_uniform_int(&o)?,
        "uniformString" => compile_uniform_string(&o)?,
        "continent" => Gen::Continent,
        "zipf" => Gen::Zipf {
            cdf: compile_zipf(&o, ("n", 1000), ("s", 1.1))?,
        },
        "tenant" => Gen::Tenant {
            cdf: compile_zipf(&o, ("tenants", 50), ("skew", 1.2))?,
        },
        "uuid" => Gen::Uuid,
        "choice" => compile_choice(&o)?,
        "missing" => compile_missing(&o)?,
        "const" => match opts.get("value") {
            Some(v) => Gen::Const(v.clone()),
            None => {
                return Err(Some(bad(format!(
                    "generator \"const\" of field '{path}' needs 'value'"
                ))))
            }
        },
        "padding" => compile_padding(&o)?,
        _ => return Err(None),
    };
    Ok(gen)
}

/// A generator's options and the path of the field it fills (for error messages).
struct Options<'a> {
    opts: &'a Document,
    path: &'a str,
}

impl Options<'_> {
    /// An integer option, or `default` when it is absent.
    fn int(&self, key: &str, default: i64) -> Result<i64, ClusterError> {
        opt_int(self.opts, key, self.path).map(|v| v.unwrap_or(default))
    }

    /// A number option, or `default` when it is absent.
    fn float(&self, key: &str, default: f64) -> Result<f64, ClusterError> {
        opt_float(self.opts, key, self.path).map(|v| v.unwrap_or(default))
    }
}

/// `{gen: "objectId", perSecond}`.
fn compile_object_id(o: &Options) -> Result<Gen, ClusterError> {
    let per_second = o.int("perSecond", 1)?;
    if per_second < 1 {
        return Err(bad(format!(
            "'perSecond' of field '{}' must be at least 1",
            o.path
        )));
    }
    Ok(Gen::ObjectId {
        process: process_bytes(o.path),
        per_second: per_second as u64,
    })
}

/// `{gen: "uniformInt", min, max}`.
fn compile_uniform_int(o: &Options) -> Result<Gen, ClusterError> {
    let min = o.int("min", 0)?;
    let max = o.int("max", 1_000_000)?;
    if min > max {
        return Err(bad(format!(
            "'min' ({min}) of field '{}' is greater than 'max' ({max})",
            o.path
        )));
    }
    Ok(Gen::UniformInt { min, max })
}

/// `{gen: "uniformString", length}`.
fn compile_uniform_string(o: &Options) -> Result<Gen, ClusterError> {
    let len = o.int("length", 12)?;
    if !(1..=1024).contains(&len) {
        return Err(bad(format!(
            "'length' of field '{}' must be between 1 and 1024, got {len}",
            o.path
        )));
    }
    Ok(Gen::UniformString { len: len as u32 })
}

/// The distribution of a `zipf` or `tenant` generator: its count option and exponent
/// option, each with its key and default.
fn compile_zipf(
    o: &Options,
    (n_key, n_default): (&str, i64),
    (s_key, s_default): (&str, f64),
) -> Result<Vec<f64>, ClusterError> {
    let n = bounded_n(o.int(n_key, n_default)?, n_key, o.path)?;
    let s = o.float(s_key, s_default)?;
    zipf_cdf(n, s, o.path)
}

/// `{gen: "choice", values, weights}`.
fn compile_choice(o: &Options) -> Result<Gen, ClusterError> {
    let path = o.path;
    let values = match o.opts.get("values") {
        Some(Bson::Array(a)) if !a.is_empty() => a.clone(),
        _ => {
            return Err(bad(format!(
                "'values' of field '{path}' must be a non-empty array"
            )))
        }
    };
    let cdf = match o.opts.get("weights") {
        None => None,
        Some(Bson::Array(w)) if w.len() == values.len() => {
            let mut weights = Vec::with_capacity(w.len());
            for x in w {
                match as_f64(x) {
                    Some(v) if v >= 0.0 && v.is_finite() => weights.push(v),
                    _ => {
                        return Err(bad(format!(
                            "'weights' of field '{path}' must be non-negative numbers"
                        )))
                    }
                }
            }
            Some(normalise(&weights, path)?)
        }
        Some(_) => {
            return Err(bad(format!(
                "'weights' of field '{path}' must be an array as long as 'values'"
            )))
        }
    };
    Ok(Gen::Choice { values, cdf })
}

/// `{gen: "missing", p, of}`.
fn compile_missing(o: &Options) -> Result<Gen, ClusterError> {
    let path = o.path;
    let p = o.float("p", 0.5)?;
    if !(0.0..=1.0).contains(&p) {
        return Err(bad(format!(
            "'p' of field '{path}' must be between 0 and 1, got {p}"
        )));
    }
    let of = match o.opts.get("of") {
        Some(v) => compile_value(v, path)?,
        None => {
            return Err(bad(format!(
                "generator \"missing\" of field '{path}' needs 'of', the generator to use when the field is present"
            )))
        }
    };
    Ok(Gen::Missing {
        p,
        of: Box::new(of),
    })
}

/// `{gen: "padding", bytes}`.
fn compile_padding(o: &Options) -> Result<Gen, ClusterError> {
    let bytes = o.int("bytes", 100)?;
    if !(0..=MAX_PADDING as i64).contains(&bytes) {
        return Err(bad(format!(
            "'bytes' of field '{}' must be between 0 and {MAX_PADDING}, got {bytes}",
            o.path
        )));
    }
    Ok(Gen::Padding("x".repeat(bytes as usize)))
}

fn as_f64(v: &Bson) -> Option<f64> {
    match v {
        Bson::Int32(n) => Some(f64::from(*n)),
        Bson::Int64(n) => Some(*n as f64),
        Bson::Double(d) => Some(*d),
        _ => None,
    }
}

fn opt_int(opts: &Document, key: &str, path: &str) -> Result<Option<i64>, ClusterError> {
    match opts.get(key) {
        None => Ok(None),
        Some(Bson::Int32(n)) => Ok(Some(i64::from(*n))),
        Some(Bson::Int64(n)) => Ok(Some(*n)),
        Some(Bson::Double(d)) if d.fract() == 0.0 && d.abs() < 9.0e15 => Ok(Some(*d as i64)),
        Some(other) => Err(bad(format!(
            "'{key}' of field '{path}' must be an integer, got {other}"
        ))),
    }
}

fn opt_float(opts: &Document, key: &str, path: &str) -> Result<Option<f64>, ClusterError> {
    match opts.get(key) {
        None => Ok(None),
        Some(v) => match as_f64(v) {
            Some(x) if x.is_finite() => Ok(Some(x)),
            _ => Err(bad(format!(
                "'{key}' of field '{path}' must be a number, got {v}"
            ))),
        },
    }
}

fn bounded_n(n: i64, key: &str, path: &str) -> Result<u64, ClusterError> {
    if n < 1 || n as u64 > MAX_ZIPF_N {
        return Err(bad(format!(
            "'{key}' of field '{path}' must be between 1 and {MAX_ZIPF_N}, got {n}"
        )));
    }
    Ok(n as u64)
}

/// A per-field "process" part for ObjectIds, fixed by the field's path so that ids stay
/// ordered across calls (FNV-1a of the path).
fn process_bytes(path: &str) -> [u8; 5] {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in path.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    let b = h.to_be_bytes();
    [b[0], b[1], b[2], b[3], b[4]]
}

/// The cumulative distribution of a Zipf law over `1..=n` with exponent `s`.
fn zipf_cdf(n: u64, s: f64, path: &str) -> Result<Vec<f64>, ClusterError> {
    if !(0.0..=10.0).contains(&s) {
        return Err(bad(format!(
            "the exponent of field '{path}' must be between 0 and 10, got {s}"
        )));
    }
    let weights: Vec<f64> = (1..=n).map(|k| det_exp(-s * det_ln(k as f64))).collect();
    normalise(&weights, path)
}

fn normalise(weights: &[f64], path: &str) -> Result<Vec<f64>, ClusterError> {
    let total: f64 = weights.iter().sum();
    if total <= 0.0 || !total.is_finite() {
        return Err(bad(format!(
            "the weights of field '{path}' must not all be 0"
        )));
    }
    let mut acc = 0.0;
    Ok(weights
        .iter()
        .map(|w| {
            acc += w / total;
            acc
        })
        .collect())
}

/// The index drawn from a cumulative distribution.
fn pick(cdf: &[f64], rng: &mut SplitMix64) -> usize {
    let u = rng.unit();
    cdf.partition_point(|&c| c <= u)
        .min(cdf.len().saturating_sub(1))
}

/// `e^x` from basic arithmetic only, so that it rounds the same on every platform:
/// `x = k ln 2 + r` with `|r| <= ln 2 / 2`, a Taylor series for `e^r`, then a scale by 2^k.
fn det_exp(x: f64) -> f64 {
    const LN2: f64 = std::f64::consts::LN_2;
    if x < -745.0 {
        return 0.0;
    }
    if x > 709.0 {
        return f64::INFINITY;
    }
    let k = (x / LN2).round();
    let r = x - k * LN2;
    let mut term = 1.0;
    let mut sum = 1.0;
    for i in 1..=20 {
        term *= r / f64::from(i);
        sum += term;
    }
    let mut scale = 1.0;
    let (base, steps) = if k >= 0.0 { (2.0, k) } else { (0.5, -k) };
    for _ in 0..(steps as u32) {
        scale *= base;
    }
    sum * scale
}

/// `ln x` for `x >= 1` from basic arithmetic only: halve to `[1, 2)`, then the series
/// `ln m = 2 atanh((m - 1) / (m + 1))`.
fn det_ln(x: f64) -> f64 {
    const LN2: f64 = std::f64::consts::LN_2;
    let mut m = x;
    let mut k = 0u32;
    while m >= 2.0 {
        m /= 2.0;
        k += 1;
    }
    let t = (m - 1.0) / (m + 1.0);
    let t2 = t * t;
    let mut term = t;
    let mut sum = 0.0;
    let mut i = 1.0;
    while i < 80.0 {
        sum += term / i;
        term *= t2;
        i += 2.0;
    }
    2.0 * sum + f64::from(k) * LN2
}

/// An integer as mongosh would store it: Int32 when it fits, else Int64.
pub fn int_value(v: i64) -> Bson {
    match i32::try_from(v) {
        Ok(small) => Bson::Int32(small),
        Err(_) => Bson::Int64(v),
    }
}

fn object_id(seconds: u32, process: [u8; 5], counter: u32) -> ObjectId {
    let mut bytes = [0u8; 12];
    bytes[0..4].copy_from_slice(&seconds.to_be_bytes());
    bytes[4..9].copy_from_slice(&process);
    bytes[9..12].copy_from_slice(&counter.to_be_bytes()[1..4]);
    ObjectId::from_bytes(bytes)
}

fn fill(fields: &[(String, Gen)], i: u64, rng: &mut SplitMix64) -> Document {
    let mut doc = Document::new();
    for (name, gen) in fields {
        if let Some(v) = value(gen, i, rng) {
            doc.insert(name.clone(), v);
        }
    }
    doc
}

/// The value of one field of document `i`, or `None` when the field is left out.
fn value(gen: &Gen, i: u64, rng: &mut SplitMix64) -> Option<Bson> {
    let i_signed = i64::try_from(i).unwrap_or(i64::MAX);
    let v = match gen {
        Gen::Increasing { start, step } => {
            int_value(start.saturating_add(i_signed.saturating_mul(*step)))
        }
        Gen::Decreasing { start, step } => {
            int_value(start.saturating_sub(i_signed.saturating_mul(*step)))
        }
        Gen::ObjectId {
            process,
            per_second,
        } => {
            let seconds = EPOCH_SECONDS.wrapping_add((i / per_second) as u32);
            Bson::ObjectId(object_id(seconds, *process, (i & 0x00ff_ffff) as u32))
        }
        Gen::Date { start_ms, step_ms } => Bson::DateTime(DateTime::from_millis(
            start_ms.saturating_add(i_signed.saturating_mul(*step_ms)),
        )),
        Gen::UniformInt { min, max } => {
            let span = (*max as i128 - *min as i128 + 1) as u128;
            let draw = if span > u128::from(u64::MAX) {
                u128::from(rng.next_u64())
            } else {
                u128::from(rng.below(span as u64))
            };
            int_value((*min as i128 + draw as i128) as i64)
        }
        Gen::UniformString { len } => {
            const ALPHABET: &[u8; 36] = b"abcdefghijklmnopqrstuvwxyz0123456789";
            let s: String = (0..*len)
                .map(|_| char::from(ALPHABET[rng.below(36) as usize]))
                .collect();
            Bson::String(s)
        }
        Gen::Continent => {
            let u = rng.unit();
            let mut acc = 0.0;
            let mut chosen = CONTINENTS[CONTINENTS.len() - 1];
            for (name, w) in CONTINENTS.iter().zip(CONTINENT_WEIGHTS) {
                acc += w;
                if u < acc {
                    chosen = name;
                    break;
                }
            }
            Bson::String(chosen.to_string())
        }
        Gen::Zipf { cdf } => int_value(pick(cdf, rng) as i64 + 1),
        Gen::Uuid => {
            let mut bytes = [0u8; 16];
            bytes[0..8].copy_from_slice(&rng.next_u64().to_be_bytes());
            bytes[8..16].copy_from_slice(&rng.next_u64().to_be_bytes());
            // Version 4, variant 10xx, as RFC 4122 random UUIDs are marked.
            bytes[6] = (bytes[6] & 0x0f) | 0x40;
            bytes[8] = (bytes[8] & 0x3f) | 0x80;
            Bson::Binary(Binary {
                subtype: BinarySubtype::Uuid,
                bytes: bytes.to_vec(),
            })
        }
        Gen::Choice { values, cdf } => {
            let idx = match cdf {
                Some(cdf) => pick(cdf, rng),
                None => rng.below(values.len() as u64) as usize,
            };
            values.get(idx).cloned().unwrap_or(Bson::Null)
        }
        Gen::Tenant { cdf } => {
            // Tenant k (1 = biggest) gets an ObjectId from the day it "signed up", so
            // tenant ids look real and sort by age.
            let k = pick(cdf, rng) as u32 + 1;
            let seconds = 1_600_000_000u32.wrapping_add(k.wrapping_mul(86_400));
            Bson::ObjectId(object_id(seconds, [0x7e, 0x4a, 0x11, 0x00, 0x01], k))
        }
        Gen::Missing { p, of } => {
            if rng.unit() < *p {
                return None;
            }
            return value(of, i, rng);
        }
        Gen::Const(v) => v.clone(),
        Gen::Padding(s) => Bson::String(s.clone()),
        Gen::Object(fields) => Bson::Document(fill(fields, i, rng)),
    };
    Some(v)
}

/// The operation kinds a query workload mixes, in the order their ratios are read.
pub const QUERY_KINDS: &[&str] = &[
    "eq",
    "range",
    "other",
    "update",
    "updateKey",
    "updateMany",
    "delete",
];

/// Generates `count` operations against a collection holding `known_docs`.
///
/// The spec: `{kind, key, other, ratios, rangeWidth}`.
/// - `key`: the field (or array of fields) the operations target as the shard key; values
///   are drawn from `known_docs` (a missing field gives `null`, as the key would).
/// - `other`: a field that is not part of the key, for non-targeted queries (default
///   `payload`).
/// - `kind`: `"mixed"` (the default) uses `ratios`; a kind name below alone means 100%
///   of that kind.
/// - `ratios`: weights for each kind (they need not sum to 1), default
///   `{eq: 0.5, range: 0.2, other: 0.2, update: 0.1}`:
///   - `eq`: `find` with equality on every key field, taken from a random document;
///   - `range`: `find` with `{$gte, $lt}` on the first key field, spanning about
///     `rangeWidth` documents (default 10) in key order;
///   - `other`: `find` with equality on the `other` field only;
///   - `update`: `updateOne` by key equality that `$set`s the `other` field;
///   - `updateKey`: `updateOne` by key equality that `$set`s the first key field to another
///     document's value, moving the document in key space;
///   - `updateMany`: `updateMany` by equality on the `other` field;
///   - `delete`: `deleteOne` by key equality.
pub fn generate_queries(
    spec: &Document,
    count: u64,
    rng: &mut SplitMix64,
    known_docs: &[Document],
) -> Result<Vec<QueryOp>, ClusterError> {
    if count > MAX_QUERIES {
        return Err(bad(format!(
            "cannot generate {count} queries in one call; the limit is {MAX_QUERIES}"
        )));
    }
    let spec = QuerySpec::parse(spec)?;
    if count == 0 {
        return Ok(Vec::new());
    }
    if known_docs.is_empty() {
        return Err(bad(
            "a query workload draws its values from existing documents, but the collection is empty",
        ));
    }
    // The first key field's values in order, for ranges that span `width` documents.
    let mut sorted_first: Vec<Bson> = known_docs
        .iter()
        .map(|d| field_or_null(d, &spec.keys[0]))
        .collect();
    sorted_first.sort_by(compare_values);
    let draw = QueryDraw {
        spec: &spec,
        known_docs,
        sorted_first,
    };
    let n = known_docs.len() as u64;
    let mut out = Vec::with_capacity(count as usize);
    for _ in 0..count {
        let doc = &known_docs[rng.below(n) as usize];
        let kind = QUERY_KINDS[pick(&spec.cdf, rng)];
        out.push(draw.op(kind, doc, rng));
    }
    Ok(out)
}

/// A query workload spec, read and checked.
struct QuerySpec {
    /// The shard key's fields.
    keys: Vec<String>,
    /// The field that is not part of the key.
    other: String,
    /// How many documents a range spans.
    width: usize,
    /// The cumulative distribution of [`QUERY_KINDS`].
    cdf: Vec<f64>,
}

impl QuerySpec {
    /// Reads `{kind, key, other, ratios, rangeWidth}`.
    fn parse(spec: &Document) -> Result<Self, ClusterError> {
        let keys: Vec<String> = match spec.get("key") {
            Some(Bson::String(s)) => vec![s.clone()],
            Some(Bson::Array(a)) if !a.is_empty() => a
                .iter()
                .map(|v| match v {
                    Bson::String(s) => Ok(s.clone()),
                    _ => Err(bad("'key' must be a field name or an array of field names")),
                })
                .collect::<Result<_, _>>()?,
            _ => return Err(bad("'key' must be a field name or an array of field names")),
        };
        let other = match spec.get("other") {
            None => "payload".to_string(),
            Some(Bson::String(s)) => s.clone(),
            Some(_) => return Err(bad("'other' must be a field name")),
        };
        let width = opt_int(spec, "rangeWidth", "rangeWidth")?
            .unwrap_or(10)
            .max(1) as usize;
        let cdf = normalise(&query_weights(spec)?, "ratios")?;
        Ok(QuerySpec {
            keys,
            other,
            width,
            cdf,
        })
    }
}

/// The weight of each of [`QUERY_KINDS`]: from `ratios` for the `mixed` kind (the
/// default), else all of it on the one kind named.
fn query_weights(spec: &Document) -> Result<[f64; 7], ClusterError> {
    let mut weights = [0.0f64; 7];
    let mixed = Bson::String("mixed".into());
    match spec.get("kind").unwrap_or(&mixed) {
        Bson::String(k) if k == "mixed" => match spec.get("ratios") {
            None => weights[..4].copy_from_slice(&[0.5, 0.2, 0.2, 0.1]),
            Some(Bson::Document(r)) => {
                for (name, v) in r {
                    let idx = QUERY_KINDS.iter().position(|k| k == name).ok_or_else(|| {
                        bad(format!(
                            "unknown query kind '{name}' in 'ratios'; valid kinds are: {}",
                            QUERY_KINDS.join(", ")
                        ))
                    })?;
                    match as_f64(v) {
                        Some(x) if x >= 0.0 && x.is_finite() => weights[idx] = x,
                        _ => {
                            return Err(bad(format!(
                                "ratio '{name}' must be a non-negative number"
                            )))
                        }
                    }
                }
            }
            Some(_) => return Err(bad("'ratios' must be an object")),
        },
        Bson::String(k) => {
            let idx = QUERY_KINDS.iter().position(|q| q == k).ok_or_else(|| {
                bad(format!(
                    "unknown query workload kind '{k}'; valid kinds are: mixed, {}",
                    QUERY_KINDS.join(", ")
                ))
            })?;
            weights[idx] = 1.0;
        }
        _ => return Err(bad("'kind' must be a string")),
    }
    Ok(weights)
}

/// The value at a dotted path, or null when it is missing (as a shard key reads it).
fn field_or_null(doc: &Document, path: &str) -> Bson {
    lookup_path(doc, path).cloned().unwrap_or(Bson::Null)
}

/// What the operations of one query workload are drawn from.
struct QueryDraw<'a> {
    spec: &'a QuerySpec,
    known_docs: &'a [Document],
    /// The first key field's values over `known_docs`, in key order.
    sorted_first: Vec<Bson>,
}

impl QueryDraw<'_> {
    /// An equality filter on every key field, with `doc`'s values.
    fn key_filter(&self, doc: &Document) -> Document {
        self.spec
            .keys
            .iter()
            .map(|k| (k.clone(), field_or_null(doc, k)))
            .collect()
    }

    /// An equality filter on the `other` field, with `doc`'s value.
    fn other_filter(&self, doc: &Document) -> Document {
        let other = &self.spec.other;
        bson::doc! { other.clone(): field_or_null(doc, other) }
    }

    /// One operation of `kind` about `doc` (see [`generate_queries`] for each kind).
    fn op(&self, kind: &str, doc: &Document, rng: &mut SplitMix64) -> QueryOp {
        let (command, filter, update) = match kind {
            "eq" => ("find", self.key_filter(doc), None),
            "range" => ("find", self.range_filter(rng), None),
            "other" => ("find", self.other_filter(doc), None),
            "update" => {
                let value = int_value(rng.below(1_000_000) as i64);
                let set = bson::doc! { "$set": { self.spec.other.clone(): value } };
                ("updateOne", self.key_filter(doc), Some(set))
            }
            "updateKey" => {
                let n = self.known_docs.len() as u64;
                let target = &self.known_docs[rng.below(n) as usize];
                let first = &self.spec.keys[0];
                let set = bson::doc! { "$set": { first.clone(): field_or_null(target, first) } };
                ("updateOne", self.key_filter(doc), Some(set))
            }
            "updateMany" => {
                let set = bson::doc! { "$set": { "touched": true } };
                ("updateMany", self.other_filter(doc), Some(set))
            }
            _ => ("deleteOne", self.key_filter(doc), None),
        };
        QueryOp {
            command: command.into(),
            filter,
            update,
            upsert: false,
        }
    }

    /// `{$gte, $lt}` on the first key field, about `width` documents wide in key order.
    fn range_filter(&self, rng: &mut SplitMix64) -> Document {
        let lo_idx = rng.below(self.known_docs.len() as u64) as usize;
        let hi_idx = lo_idx + self.spec.width;
        let mut range = bson::doc! { "$gte": self.sorted_first[lo_idx].clone() };
        if let Some(hi) = self.sorted_first.get(hi_idx) {
            range.insert("$lt", hi.clone());
        }
        bson::doc! { self.spec.keys[0].clone(): range }
    }
}

// --- Workloads and shard keys --------------------------------------------------------

/// How a workload's documents fit a shard key: the key's fields its documents never hold.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyFit {
    /// The key's fields the workload never generates, in key order. From 4.4 a missing
    /// key field is routed as `null` (spec §3), so all such documents share one key value
    /// and one chunk that can never be split; 3.6 refuses them.
    pub missing: Vec<String>,
    /// The key's fields the workload leaves out of some documents (a `missing` generator).
    pub sometimes: Vec<String>,
}

impl KeyFit {
    /// Whether every document holds every key field.
    pub fn fits(&self) -> bool {
        self.missing.is_empty() && self.sometimes.is_empty()
    }
}

impl Template {
    /// Every field the template writes, as dotted paths in template order (a nested
    /// template's fields after its own name), each with whether some documents leave it
    /// out.
    pub fn fields(&self) -> Vec<(String, bool)> {
        fn walk(
            fields: &[(String, Gen)],
            prefix: &str,
            optional: bool,
            out: &mut Vec<(String, bool)>,
        ) {
            for (name, gen) in fields {
                let path = join(prefix, name);
                let (gen, optional) = match gen {
                    Gen::Missing { of, .. } => (&**of, true),
                    other => (other, optional),
                };
                out.push((path.clone(), optional));
                if let Gen::Object(inner) = gen {
                    walk(inner, &path, optional, out);
                }
            }
        }
        let mut out = Vec::new();
        walk(&self.fields, "", false, &mut out);
        out
    }
}

/// How the documents of workload `spec` fit the shard key `pattern`. `_id` always fits:
/// an insert without one gets an ObjectId.
pub fn key_fit(spec: &Document, pattern: &KeyPattern) -> Result<KeyFit, ClusterError> {
    let fields = Template::compile(spec)?.fields();
    let mut fit = KeyFit {
        missing: Vec::new(),
        sometimes: Vec::new(),
    };
    for (key, _) in pattern.fields() {
        if key == "_id" {
            continue;
        }
        match fields.iter().find(|(path, _)| path == key) {
            None => fit.missing.push(key.clone()),
            Some((_, true)) => fit.sometimes.push(key.clone()),
            Some((_, false)) => {}
        }
    }
    Ok(fit)
}

/// The named workloads whose documents always hold every field of `pattern`, in the
/// order [`preset_names`] lists them (aliases left out).
pub fn presets_fitting(pattern: &KeyPattern) -> Vec<&'static str> {
    preset_names()
        .iter()
        .copied()
        .filter(|name| *name != "hashedId")
        .filter(|name| {
            preset(name)
                .and_then(|spec| key_fit(&spec, pattern).ok())
                .is_some_and(|fit| fit.fits())
        })
        .collect()
}

/// `spec` with generators added for the key fields it never writes (see [`key_fit`]): a
/// uniform integer over a million values, nested under its parent for a dotted path. A
/// field whose parent the template already writes as a plain value cannot be added and
/// is left out.
pub fn with_key_fields(spec: &Document, pattern: &KeyPattern) -> Result<Document, ClusterError> {
    fn put(doc: &mut Document, path: &[&str]) {
        let Some((first, rest)) = path.split_first() else {
            return;
        };
        if rest.is_empty() {
            if !doc.contains_key(*first) {
                doc.insert(
                    *first,
                    bson::doc! { "gen": "uniformInt", "min": 0, "max": 999_999 },
                );
            }
            return;
        }
        let entry = doc
            .entry(first.to_string())
            .or_insert_with(|| Bson::Document(Document::new()));
        // A nested template is a document without `gen`; anything else is a value.
        if let Bson::Document(inner) = entry {
            if !inner.contains_key("gen") {
                put(inner, rest);
            }
        }
    }
    let fit = key_fit(spec, pattern)?;
    let mut out = spec.clone();
    for field in &fit.missing {
        let parts: Vec<&str> = field.split('.').collect();
        put(&mut out, &parts);
    }
    Template::compile(&out)?;
    Ok(out)
}

/// A workload as the page names it: a preset's name (see [`preset`]) or a template in
/// shell syntax (`{x: "increasing"}`), checked by compiling it; the error says what is
/// wrong, in the shell's words.
pub fn spec_of(text: &str) -> Result<Document, String> {
    let text = text.trim();
    if !text.starts_with('{') {
        return preset(text).ok_or_else(|| {
            format!(
                "unknown workload '{}'; the presets are: {}",
                text.chars().take(40).collect::<String>(),
                preset_names().join(", ")
            )
        });
    }
    let value = crate::shell::parse_value(text, &mut Default::default())
        .map_err(|e| format!("SyntaxError: {e}"))?;
    let Bson::Document(spec) = value else {
        return Err("a workload template is an object such as {x: \"increasing\"}".to_string());
    };
    Template::compile(&spec).map_err(|e| e.to_string())?;
    Ok(spec)
}
