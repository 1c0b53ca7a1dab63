//! The shareable scenario: a cluster's settings plus the shell commands that built it, and
//! the two ways it leaves the program — a compact string for links and a JSON file.
//!
//! A link carries `v1.` followed by base64url (no padding) of a small binary record,
//! compressed with a dependency-free LZ77 coder when that makes it shorter. The record
//! holds only settings and shell statements of ShardLab's own language, never code to
//! evaluate: opening a link replays the statements through the same interpreter as the
//! console. The format is versioned and old links keep decoding forever: a new layout gets
//! a new tag and a new decoder beside the old one; the `v1` decoder never changes. `v2.`
//! is the `v1` record followed by the page's own state ([`Scenario::page`]: the lesson,
//! the workload, the tab...), as plain name/value strings the page reads back and checks;
//! a scenario without page state is still written as `v1.`.
//!
//! Decoding is defensive. Anything typed or pasted can reach [`from_query`], so it refuses
//! unknown tags, corrupt base64, truncated or trailing data and absurd sizes with a clear
//! [`ScenarioError`], and it never allocates more than [`MAX_DECODED_BYTES`] for the record.

use crate::engine::cluster::{ClusterConfig, VersionMode};
use crate::session::interpreter::Session;
use crate::shell::ejson::{parse_ejson, write_json_string};
use crate::values::encoding::BASE64URL;
use bson::Bson;
use thiserror::Error;

/// The largest decoded record a link may carry, in bytes (before compression).
pub const MAX_DECODED_BYTES: usize = 256 * 1024;

/// The most commands a scenario may hold when it is decoded.
pub const MAX_COMMANDS: usize = 65_536;

/// The most shards a scenario may ask for (the same cap as `sim.reset`).
pub use crate::engine::cluster::MAX_SHARDS;

/// The longest query string [`from_query`] looks at. A valid `v1` string can never be
/// longer: the encoder stores the record raw when compression does not help, and base64
/// grows it by a third.
const MAX_QUERY_CHARS: usize = 3 + (MAX_DECODED_BYTES + 16) * 4 / 3 + 4;

/// The tag in front of every version 1 string.
const V1_TAG: &str = "v1.";

/// The tag of links that carry page state after the `v1` record.
const V2_TAG: &str = "v2.";

/// The most name/value entries a scenario's page state may hold.
pub const MAX_PAGE_ENTRIES: usize = 32;

/// The longest name of a page state entry, in bytes.
pub const MAX_PAGE_NAME_BYTES: usize = 64;

/// The longest value of a page state entry, in bytes.
pub const MAX_PAGE_VALUE_BYTES: usize = 8 * 1024;

/// The `format` field of a scenario file.
const JSON_FORMAT: &str = "shardlab-scenario";

/// Why a scenario could not be read.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ScenarioError {
    /// The string does not start with a format tag this build knows (`v1.` or `v2.`).
    #[error("unknown scenario format '{0}': it may come from a newer ShardLab")]
    UnknownVersion(String),
    /// The text after the tag is not base64url.
    #[error("the scenario link is corrupt: invalid base64 at character {0}")]
    Base64(usize),
    /// The data ends before the record does.
    #[error("the scenario link is truncated: {0} is missing")]
    Truncated(&'static str),
    /// The data goes on after the record ends.
    #[error("the scenario link is corrupt: {0} unexpected bytes after the end")]
    TrailingBytes(usize),
    /// A size in the record is beyond what a scenario may hold.
    #[error("the scenario is too large: {0}")]
    TooLarge(String),
    /// The compressed data does not decompress to a record.
    #[error("the scenario link is corrupt: {0}")]
    Corrupt(&'static str),
    /// A field holds a value a scenario cannot have.
    #[error("invalid scenario value: {0}")]
    InvalidValue(String),
    /// A scenario file is not valid JSON.
    #[error("the scenario file is not valid JSON: {0}")]
    Json(String),
}

/// A scenario: cluster settings, the commands to replay, and where the timeline stands.
#[derive(Debug, Clone, PartialEq)]
pub struct Scenario {
    /// The behaviour era.
    pub version: VersionMode,
    /// Number of shards to start with.
    pub shards: u32,
    /// The maximum chunk size in bytes; `None` means the version's default.
    pub chunk_size: Option<u64>,
    /// The seed of every pseudo-random choice.
    pub seed: u64,
    /// Shell statements of ShardLab's language, one timeline step each, in order.
    pub commands: Vec<String>,
    /// The timeline position (how many commands are applied); `None` means all of them.
    pub position: Option<u64>,
    /// What the page showed besides the cluster (the lesson, the workload, the tab, the
    /// viewed collection...), as name/value strings in order. The core only carries them,
    /// within [`MAX_PAGE_ENTRIES`], [`MAX_PAGE_NAME_BYTES`] and [`MAX_PAGE_VALUE_BYTES`];
    /// the page gives them meaning and must check every value, since a link can say
    /// anything.
    pub page: Vec<(String, String)>,
}

impl Default for Scenario {
    fn default() -> Self {
        Scenario::from_config(&ClusterConfig::default(), Vec::new(), None)
    }
}

impl Scenario {
    /// A scenario with a configuration's settings.
    pub fn from_config(
        config: &ClusterConfig,
        commands: Vec<String>,
        position: Option<u64>,
    ) -> Self {
        Scenario {
            version: config.version,
            shards: config.shards,
            chunk_size: config.chunk_size,
            seed: config.seed,
            commands,
            position,
            page: Vec::new(),
        }
    }

    /// The page state entry called `name`, if there is one.
    pub fn page_value(&self, name: &str) -> Option<&str> {
        self.page
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// The cluster configuration the scenario starts from.
    pub fn config(&self) -> ClusterConfig {
        ClusterConfig {
            shards: self.shards,
            version: self.version,
            chunk_size: self.chunk_size,
            seed: self.seed,
        }
    }

    /// A session with the commands up to the position run, one after another. Errors in
    /// commands are part of the story (a scenario may show a refused command), so they are
    /// not reported here; replay through a [`crate::sim::timeline::Timeline`] to see outcomes.
    pub fn build(&self) -> Session {
        let mut session = Session::new(self.config());
        let upto = self.applied();
        for command in self.commands.iter().take(upto) {
            session.run(command);
        }
        session
    }

    /// How many commands the position applies, clamped to the commands there are.
    pub fn applied(&self) -> usize {
        let len = self.commands.len();
        match self.position {
            Some(p) => usize::try_from(p).map_or(len, |p| p.min(len)),
            None => len,
        }
    }
}

/// Encodes a scenario as a compact, URL-safe string (`v1.` + base64url).
///
/// Every scenario encodes; a scenario beyond the decoder's limits ([`MAX_DECODED_BYTES`],
/// [`MAX_COMMANDS`], [`MAX_SHARDS`]) gives a string that [`from_query`] refuses, so check
/// with [`to_query_checked`] before offering a link.
pub fn to_query(scenario: &Scenario) -> String {
    let mut record = encode_record(scenario);
    let tag = if scenario.page.is_empty() {
        V1_TAG
    } else {
        encode_page(&scenario.page, &mut record);
        V2_TAG
    };
    let packed = compress(&record);
    let mut body = Vec::with_capacity(1 + record.len().min(packed.len()));
    if packed.len() < record.len() {
        body.push(METHOD_LZ);
        body.extend_from_slice(&packed);
    } else {
        body.push(METHOD_STORED);
        body.extend_from_slice(&record);
    }
    let mut out = String::from(tag);
    BASE64URL.encode_into(&body, &mut out);
    out
}

/// Encodes a scenario as [`to_query`] does, or says why the string would not decode.
pub fn to_query_checked(scenario: &Scenario) -> Result<String, ScenarioError> {
    validate(scenario)?;
    let mut record = encode_record(scenario);
    encode_page(&scenario.page, &mut record);
    let record_len = record.len();
    if record_len > MAX_DECODED_BYTES {
        return Err(ScenarioError::TooLarge(format!(
            "{record_len} bytes of commands and settings, at most {MAX_DECODED_BYTES} fit in a link"
        )));
    }
    Ok(to_query(scenario))
}

/// Decodes a string made by [`to_query`] by this or any earlier version of ShardLab.
pub fn from_query(text: &str) -> Result<Scenario, ScenarioError> {
    let text = text.trim();
    if text.len() > MAX_QUERY_CHARS {
        return Err(ScenarioError::TooLarge(format!(
            "the link holds {} characters, at most {MAX_QUERY_CHARS} are accepted",
            text.len()
        )));
    }
    let (tag, with_page) = if text.starts_with(V2_TAG) {
        (V2_TAG, true)
    } else {
        (V1_TAG, false)
    };
    let Some(payload) = text.strip_prefix(tag) else {
        let tag: String = text
            .split('.')
            .next()
            .unwrap_or("")
            .chars()
            .take(16)
            .collect();
        return Err(ScenarioError::UnknownVersion(tag));
    };
    // The offset reported for errors is counted in the whole string, tag included.
    let body = BASE64URL
        .decode(payload)
        .map_err(|at| ScenarioError::Base64(at + tag.len()))?;
    let (&method, data) = body
        .split_first()
        .ok_or(ScenarioError::Truncated("the header"))?;
    let record = match method {
        METHOD_STORED => {
            if data.len() > MAX_DECODED_BYTES {
                return Err(too_large_record(data.len() as u64));
            }
            data.to_vec()
        }
        METHOD_LZ => decompress(data)?,
        _ => return Err(ScenarioError::Corrupt("unknown compression method")),
    };
    let scenario = decode_record(&record, with_page)?;
    validate(&scenario)?;
    Ok(scenario)
}

/// Checks the values a decoded scenario may hold.
fn validate(s: &Scenario) -> Result<(), ScenarioError> {
    if s.shards == 0 || s.shards > MAX_SHARDS {
        return Err(ScenarioError::InvalidValue(format!(
            "shards must be between 1 and {MAX_SHARDS}, got {}",
            s.shards
        )));
    }
    if let Some(c) = s.chunk_size {
        if c < 1024 {
            return Err(ScenarioError::InvalidValue(format!(
                "chunk size must be at least 1024 bytes, got {c}"
            )));
        }
    }
    if s.commands.len() > MAX_COMMANDS {
        return Err(ScenarioError::TooLarge(format!(
            "{} commands, at most {MAX_COMMANDS} are accepted",
            s.commands.len()
        )));
    }
    validate_page(&s.page)?;
    if let Some(p) = s.position {
        if p > s.commands.len() as u64 {
            return Err(ScenarioError::InvalidValue(format!(
                "position {p} is past the last of {} commands",
                s.commands.len()
            )));
        }
    }
    Ok(())
}

/// Checks a scenario's page state against its limits.
fn validate_page(page: &[(String, String)]) -> Result<(), ScenarioError> {
    if page.len() > MAX_PAGE_ENTRIES {
        return Err(ScenarioError::TooLarge(format!(
            "{} page settings, at most {MAX_PAGE_ENTRIES} are accepted",
            page.len()
        )));
    }
    for (name, value) in page {
        if name.is_empty() || name.len() > MAX_PAGE_NAME_BYTES {
            return Err(ScenarioError::InvalidValue(format!(
                "a page setting's name must hold 1 to {MAX_PAGE_NAME_BYTES} bytes, got {}",
                name.len()
            )));
        }
        if value.len() > MAX_PAGE_VALUE_BYTES {
            return Err(ScenarioError::TooLarge(format!(
                "the page setting '{name}' holds {} bytes, at most {MAX_PAGE_VALUE_BYTES} are accepted",
                value.len()
            )));
        }
    }
    Ok(())
}

fn too_large_record(len: u64) -> ScenarioError {
    ScenarioError::TooLarge(format!(
        "the record decodes to {len} bytes, at most {MAX_DECODED_BYTES} are accepted"
    ))
}

// --- The v1 record -------------------------------------------------------------------
//
// All integers are unsigned LEB128 varints.
//
//   version     1 byte: 0 = 3.6, 1 = 5.0, 2 = 8.0
//   flags       1 byte: bit 0 = chunk size present, bit 1 = position present; others zero
//   shards      varint
//   chunk size  varint, when flagged
//   seed        varint
//   position    varint, when flagged
//   count       varint: number of commands
//   commands    count × (varint byte length, UTF-8 bytes)
//
// The body behind the tag is one method byte (0 = stored, 1 = LZ) and then the record
// itself or its compressed form.
//
// The v2 record is the v1 record followed by the page state:
//
//   count       varint: number of entries
//   entries     count × (varint byte length, UTF-8 name, varint byte length, UTF-8 value)

const METHOD_STORED: u8 = 0;
const METHOD_LZ: u8 = 1;
const FLAG_CHUNK_SIZE: u8 = 1;
const FLAG_POSITION: u8 = 2;

fn version_code(v: VersionMode) -> u8 {
    match v {
        VersionMode::V36 => 0,
        VersionMode::V50 => 1,
        VersionMode::V80 => 2,
        VersionMode::V70 => 3,
    }
}

fn encode_record(s: &Scenario) -> Vec<u8> {
    let mut out = Vec::new();
    out.push(version_code(s.version));
    let mut flags = 0;
    if s.chunk_size.is_some() {
        flags |= FLAG_CHUNK_SIZE;
    }
    if s.position.is_some() {
        flags |= FLAG_POSITION;
    }
    out.push(flags);
    put_varint(&mut out, u64::from(s.shards));
    if let Some(c) = s.chunk_size {
        put_varint(&mut out, c);
    }
    put_varint(&mut out, s.seed);
    if let Some(p) = s.position {
        put_varint(&mut out, p);
    }
    put_varint(&mut out, s.commands.len() as u64);
    for c in &s.commands {
        put_varint(&mut out, c.len() as u64);
        out.extend_from_slice(c.as_bytes());
    }
    out
}

/// Appends the v2 page state to a record.
fn encode_page(page: &[(String, String)], out: &mut Vec<u8>) {
    put_varint(out, page.len() as u64);
    for (name, value) in page {
        for text in [name, value] {
            put_varint(out, text.len() as u64);
            out.extend_from_slice(text.as_bytes());
        }
    }
}

/// A length-prefixed UTF-8 string of at most `max` bytes.
fn read_text(r: &mut Reader<'_>, max: usize, what: &'static str) -> Result<String, ScenarioError> {
    let len = r.varint(what)?;
    if len > r.remaining() as u64 {
        return Err(ScenarioError::Truncated(what));
    }
    if len > max as u64 {
        return Err(ScenarioError::TooLarge(format!(
            "{what} holds {len} bytes, at most {max} are accepted"
        )));
    }
    let bytes = r.take(len as usize, what)?;
    std::str::from_utf8(bytes)
        .map(str::to_string)
        .map_err(|_| ScenarioError::InvalidValue(format!("{what} is not valid UTF-8")))
}

fn decode_record(data: &[u8], with_page: bool) -> Result<Scenario, ScenarioError> {
    let mut r = Reader { data, pos: 0 };
    let version = match r.byte("the version")? {
        0 => VersionMode::V36,
        1 => VersionMode::V50,
        2 => VersionMode::V80,
        3 => VersionMode::V70,
        other => {
            return Err(ScenarioError::InvalidValue(format!(
                "unknown MongoDB version code {other}"
            )))
        }
    };
    let flags = r.byte("the flags")?;
    if flags & !(FLAG_CHUNK_SIZE | FLAG_POSITION) != 0 {
        return Err(ScenarioError::Corrupt("unknown flags"));
    }
    let shards = r.varint("the shard count")?;
    let shards = u32::try_from(shards).map_err(|_| {
        ScenarioError::InvalidValue(format!(
            "shards must be between 1 and {MAX_SHARDS}, got {shards}"
        ))
    })?;
    let chunk_size = if flags & FLAG_CHUNK_SIZE != 0 {
        Some(r.varint("the chunk size")?)
    } else {
        None
    };
    let seed = r.varint("the seed")?;
    let position = if flags & FLAG_POSITION != 0 {
        Some(r.varint("the position")?)
    } else {
        None
    };
    let count = r.varint("the command count")?;
    if count > MAX_COMMANDS as u64 {
        return Err(ScenarioError::TooLarge(format!(
            "{count} commands, at most {MAX_COMMANDS} are accepted"
        )));
    }
    // Each command takes at least one byte, so a count beyond the remaining bytes is a lie
    // that must not size an allocation.
    if count > r.remaining() as u64 {
        return Err(ScenarioError::Truncated("a command"));
    }
    let mut commands = Vec::with_capacity(count as usize);
    for _ in 0..count {
        let len = r.varint("a command's length")?;
        if len > r.remaining() as u64 {
            return Err(ScenarioError::Truncated("a command's text"));
        }
        let bytes = r.take(len as usize, "a command's text")?;
        let text = std::str::from_utf8(bytes)
            .map_err(|_| ScenarioError::InvalidValue("a command is not valid UTF-8".to_string()))?;
        commands.push(text.to_string());
    }
    let mut page = Vec::new();
    if with_page {
        let count = r.varint("the page settings")?;
        if count > MAX_PAGE_ENTRIES as u64 {
            return Err(ScenarioError::TooLarge(format!(
                "{count} page settings, at most {MAX_PAGE_ENTRIES} are accepted"
            )));
        }
        for _ in 0..count {
            let name = read_text(&mut r, MAX_PAGE_NAME_BYTES, "a page setting's name")?;
            let value = read_text(&mut r, MAX_PAGE_VALUE_BYTES, "a page setting's value")?;
            page.push((name, value));
        }
    }
    if r.remaining() > 0 {
        return Err(ScenarioError::TrailingBytes(r.remaining()));
    }
    Ok(Scenario {
        version,
        shards,
        chunk_size,
        seed,
        commands,
        position,
        page,
    })
}

/// A cursor over bytes whose every read is checked.
struct Reader<'a> {
    data: &'a [u8],
    pos: usize,
}

impl Reader<'_> {
    fn remaining(&self) -> usize {
        self.data.len() - self.pos
    }

    fn byte(&mut self, what: &'static str) -> Result<u8, ScenarioError> {
        let b = *self
            .data
            .get(self.pos)
            .ok_or(ScenarioError::Truncated(what))?;
        self.pos += 1;
        Ok(b)
    }

    fn take(&mut self, n: usize, what: &'static str) -> Result<&[u8], ScenarioError> {
        let end = self
            .pos
            .checked_add(n)
            .ok_or(ScenarioError::Truncated(what))?;
        let bytes = self
            .data
            .get(self.pos..end)
            .ok_or(ScenarioError::Truncated(what))?;
        self.pos = end;
        Ok(bytes)
    }

    /// An unsigned LEB128 varint of at most ten bytes that fits in a `u64`.
    fn varint(&mut self, what: &'static str) -> Result<u64, ScenarioError> {
        let mut value: u64 = 0;
        for i in 0..10u32 {
            let b = self.byte(what)?;
            let part = u64::from(b & 0x7f);
            if i == 9 && part > 1 {
                return Err(ScenarioError::Corrupt("a number overflows 64 bits"));
            }
            value |= part << (7 * i);
            if b & 0x80 == 0 {
                return Ok(value);
            }
        }
        Err(ScenarioError::Corrupt("a number overflows 64 bits"))
    }
}

fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8 & 0x7f) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

// --- LZ77 ----------------------------------------------------------------------------
//
// The compressed form is the record's length as a varint, then sequences of
//   varint literal count, the literals,
//   and, unless the output is complete, varint (match length − 3), varint (distance − 1).
// Command lists repeat themselves a lot (`db.c.insertOne({x: 1})`, ...), which a greedy
// matcher with one hash slot per three-byte prefix catches well enough, in linear time.

const MIN_MATCH: usize = 3;
const HASH_BITS: u32 = 14;

fn hash3(b: &[u8]) -> usize {
    let v = u32::from(b[0]) | (u32::from(b[1]) << 8) | (u32::from(b[2]) << 16);
    (v.wrapping_mul(2_654_435_761) >> (32 - HASH_BITS)) as usize
}

fn compress(input: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(input.len() / 2 + 16);
    put_varint(&mut out, input.len() as u64);
    let mut table = vec![usize::MAX; 1 << HASH_BITS];
    let mut literal_start = 0;
    let mut i = 0;
    while i + MIN_MATCH <= input.len() {
        let h = hash3(&input[i..]);
        let candidate = table[h];
        table[h] = i;
        if candidate != usize::MAX
            && input[candidate..candidate + MIN_MATCH] == input[i..i + MIN_MATCH]
        {
            let mut len = MIN_MATCH;
            while i + len < input.len() && input[candidate + len] == input[i + len] {
                len += 1;
            }
            put_varint(&mut out, (i - literal_start) as u64);
            out.extend_from_slice(&input[literal_start..i]);
            put_varint(&mut out, (len - MIN_MATCH) as u64);
            put_varint(&mut out, (i - candidate - 1) as u64);
            // Index a few positions inside the match so later repeats find it.
            let end = i + len;
            let mut j = i + 1;
            while j + MIN_MATCH <= input.len() && j < end {
                table[hash3(&input[j..])] = j;
                j += 1;
            }
            i = end;
            literal_start = i;
        } else {
            i += 1;
        }
    }
    if literal_start < input.len() || input.is_empty() {
        put_varint(&mut out, (input.len() - literal_start) as u64);
        out.extend_from_slice(&input[literal_start..]);
    }
    out
}

fn decompress(data: &[u8]) -> Result<Vec<u8>, ScenarioError> {
    let mut r = Reader { data, pos: 0 };
    let total = r.varint("the decompressed length")?;
    if total > MAX_DECODED_BYTES as u64 {
        return Err(too_large_record(total));
    }
    let total = total as usize;
    let mut out: Vec<u8> = Vec::with_capacity(total);
    loop {
        let lits = r.varint("a literal run")?;
        if lits > (total - out.len()) as u64 {
            return Err(ScenarioError::Corrupt("a literal run goes past the end"));
        }
        let bytes = r.take(lits as usize, "literal bytes")?;
        out.extend_from_slice(bytes);
        if out.len() == total {
            break;
        }
        let len = r
            .varint("a match length")?
            .checked_add(MIN_MATCH as u64)
            .ok_or(ScenarioError::Corrupt("a match is too long"))?;
        let dist = r
            .varint("a match distance")?
            .checked_add(1)
            .ok_or(ScenarioError::Corrupt("a match reaches too far back"))?;
        if len > (total - out.len()) as u64 {
            return Err(ScenarioError::Corrupt("a match goes past the end"));
        }
        if dist > out.len() as u64 {
            return Err(ScenarioError::Corrupt("a match reaches before the start"));
        }
        let start = out.len() - dist as usize;
        // Matches may overlap their own output (a run), so copy byte by byte.
        for k in 0..len as usize {
            let b = out[start + k];
            out.push(b);
        }
        if out.len() == total {
            break;
        }
    }
    if r.remaining() > 0 {
        return Err(ScenarioError::TrailingBytes(r.remaining()));
    }
    Ok(out)
}

// --- JSON files --------------------------------------------------------------------------

/// Writes a scenario as a JSON file (pretty, one command per line).
///
/// The file is `{"format": "shardlab-scenario", "version": 1, "mongodb": "5.0", ...}`;
/// [`from_json`] reads it back, and also reads the same fields in any order and spacing.
pub fn to_json(scenario: &Scenario) -> String {
    let mut out = String::from("{\n");
    out.push_str(&format!(
        "  \"format\": \"{JSON_FORMAT}\",\n  \"version\": 1,\n"
    ));
    out.push_str(&format!(
        "  \"mongodb\": \"{}\",\n",
        scenario.version.label()
    ));
    out.push_str(&format!("  \"shards\": {},\n", scenario.shards));
    match scenario.chunk_size {
        Some(c) => out.push_str(&format!("  \"chunkSize\": {},\n", json_u64(c))),
        None => out.push_str("  \"chunkSize\": null,\n"),
    }
    out.push_str(&format!("  \"seed\": {},\n", json_u64(scenario.seed)));
    match scenario.position {
        Some(p) => out.push_str(&format!("  \"position\": {},\n", json_u64(p))),
        None => out.push_str("  \"position\": null,\n"),
    }
    if !scenario.page.is_empty() {
        out.push_str("  \"page\": {");
        for (i, (name, value)) in scenario.page.iter().enumerate() {
            out.push_str(if i == 0 { "\n    " } else { ",\n    " });
            write_json_string(&mut out, name);
            out.push_str(": ");
            write_json_string(&mut out, value);
        }
        out.push_str("\n  },\n");
    }
    if scenario.commands.is_empty() {
        out.push_str("  \"commands\": []\n}\n");
        return out;
    }
    out.push_str("  \"commands\": [\n");
    for (i, c) in scenario.commands.iter().enumerate() {
        out.push_str("    ");
        write_json_string(&mut out, c);
        out.push_str(if i + 1 < scenario.commands.len() {
            ",\n"
        } else {
            "\n"
        });
    }
    out.push_str("  ]\n}\n");
    out
}

/// A `u64` as JSON: a number while JSON readers keep it exact (below 2^53), a string above.
fn json_u64(v: u64) -> String {
    if v < (1 << 53) {
        v.to_string()
    } else {
        format!("\"{v}\"")
    }
}

/// The longest scenario file [`from_json`] reads, in bytes (48 MiB): a session with an
/// import of the largest step (`workload::MAX_IMPORT_STEP_BYTES`, its quotes escaped)
/// and room for the rest. A link carries far less ([`MAX_DECODED_BYTES`]).
pub const MAX_JSON_BYTES: usize = 48 << 20;

/// Reads a scenario file written by [`to_json`] (any version this build knows).
pub fn from_json(text: &str) -> Result<Scenario, ScenarioError> {
    if text.len() > MAX_JSON_BYTES {
        return Err(ScenarioError::TooLarge(format!(
            "the file holds {} bytes",
            text.len()
        )));
    }
    // Past the shell's limits on one script (an import of many documents), only strict
    // JSON is read, as `to_json` writes it.
    let parsed = if text.len() > crate::shell::MAX_SCRIPT_BYTES {
        crate::shell::ejson_strict::read_strict_json(text).ok_or_else(|| {
            ScenarioError::Json(
                "a scenario file over 16 MiB must be strict JSON, as ShardLab writes it"
                    .to_string(),
            )
        })
    } else {
        parse_ejson(text).map_err(|e| ScenarioError::Json(e.to_string()))
    };
    let doc = match parsed {
        Ok(Bson::Document(d)) => d,
        Ok(_) => {
            return Err(ScenarioError::Json(
                "the file must hold one JSON object".to_string(),
            ))
        }
        Err(e) => return Err(e),
    };
    match doc.get("format") {
        Some(Bson::String(f)) if f == JSON_FORMAT => {}
        _ => {
            return Err(ScenarioError::InvalidValue(format!(
                "the file is not a ShardLab scenario (\"format\" must be \"{JSON_FORMAT}\")"
            )))
        }
    }
    match doc.get("version").and_then(json_int) {
        Some(1) => {}
        Some(v) => return Err(ScenarioError::UnknownVersion(format!("file version {v}"))),
        None => {
            return Err(ScenarioError::InvalidValue(
                "\"version\" must be a number".to_string(),
            ))
        }
    }
    let version = match doc.get("mongodb") {
        Some(Bson::String(v)) => VersionMode::parse(v)
            .ok_or_else(|| ScenarioError::InvalidValue(format!("unknown MongoDB version '{v}'")))?,
        None => ClusterConfig::default().version,
        Some(_) => {
            return Err(ScenarioError::InvalidValue(
                "\"mongodb\" must be a string".to_string(),
            ))
        }
    };
    let shards = match doc.get("shards") {
        None => u64::from(ClusterConfig::default().shards),
        Some(v) => json_int(v).ok_or_else(|| {
            ScenarioError::InvalidValue("\"shards\" must be a number".to_string())
        })?,
    };
    let shards = u32::try_from(shards).unwrap_or(u32::MAX);
    let chunk_size = optional_u64(&doc, "chunkSize")?;
    let seed = optional_u64(&doc, "seed")?.unwrap_or(ClusterConfig::default().seed);
    let position = optional_u64(&doc, "position")?;
    let commands = match doc.get("commands") {
        None => Vec::new(),
        Some(Bson::Array(items)) => items
            .iter()
            .map(|c| match c {
                Bson::String(s) => Ok(s.clone()),
                _ => Err(ScenarioError::InvalidValue(
                    "every command must be a string".to_string(),
                )),
            })
            .collect::<Result<Vec<_>, _>>()?,
        Some(_) => {
            return Err(ScenarioError::InvalidValue(
                "\"commands\" must be an array".to_string(),
            ))
        }
    };
    let page = match doc.get("page") {
        None | Some(Bson::Null) => Vec::new(),
        Some(Bson::Document(d)) => {
            if d.len() > MAX_PAGE_ENTRIES {
                return Err(ScenarioError::TooLarge(format!(
                    "{} page settings, at most {MAX_PAGE_ENTRIES} are accepted",
                    d.len()
                )));
            }
            d.iter()
                .map(|(name, value)| match value {
                    Bson::String(v) => Ok((name.clone(), v.clone())),
                    _ => Err(ScenarioError::InvalidValue(format!(
                        "the page setting '{}' must be a string",
                        name.chars().take(MAX_PAGE_NAME_BYTES).collect::<String>()
                    ))),
                })
                .collect::<Result<Vec<_>, _>>()?
        }
        Some(_) => {
            return Err(ScenarioError::InvalidValue(
                "\"page\" must be an object of strings".to_string(),
            ))
        }
    };
    let scenario = Scenario {
        version,
        shards,
        chunk_size,
        seed,
        commands,
        position,
        page,
    };
    validate(&scenario)?;
    Ok(scenario)
}

/// A non-negative whole number from JSON: an integer, an integral double, or a decimal
/// string (how [`to_json`] writes numbers past 2^53).
fn json_int(v: &Bson) -> Option<u64> {
    match v {
        Bson::Int32(n) => u64::try_from(*n).ok(),
        Bson::Int64(n) => u64::try_from(*n).ok(),
        Bson::Double(d) if d.fract() == 0.0 && *d >= 0.0 && *d < 9.0e15 => Some(*d as u64),
        Bson::String(s) => s.parse().ok(),
        _ => None,
    }
}

fn optional_u64(doc: &bson::Document, key: &str) -> Result<Option<u64>, ScenarioError> {
    match doc.get(key) {
        None | Some(Bson::Null) => Ok(None),
        Some(v) => json_int(v).map(Some).ok_or_else(|| {
            ScenarioError::InvalidValue(format!("\"{key}\" must be a non-negative whole number"))
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lz_round_trips_runs_and_empty_input() {
        for input in [
            &b""[..],
            b"a",
            b"aaaaaaaaaaaaaaaaaaaa",
            b"abcabcabcabcabc",
            b"xyz",
        ] {
            let packed = compress(input);
            assert_eq!(decompress(&packed).as_deref(), Ok(input));
        }
    }
}
