//! The cluster's databases as a mongos lists them: `listDatabases` and `show dbs`.
//!
//! mongos's `listDatabases` (src/mongo/s/commands/cluster_list_databases_cmd.cpp) asks
//! every shard and the config server, keeps `admin` and `config` from the config server
//! only and the other databases from the shards only, leaves out `local`, and answers in
//! name order (a `std::map`): each database's `name`, `sizeOnDisk` (summed over the
//! shards), `empty` (`sizeOnDisk == 1`) and `shards` (each shard's size, the config
//! server's under `config`), then `totalSize` and `totalSizeMb`. mongosh's `show dbs`
//! (packages/shell-api/src/mongo.ts) prints that list's names and sizes as a table
//! (packages/cli-repl/src/format-output.ts, `formatDatabases`).
//!
//! ShardLab keeps no files, so a size is the data's: the documents' BSON bytes on each
//! shard; `config`'s are the documents of the config collections ShardLab publishes, and
//! `admin`'s its one document ShardLab models, `admin.system.version`'s
//! `featureCompatibilityVersion`.

use crate::engine::cluster::{Cluster, VersionMode};
use crate::engine::config_catalog::{config_documents, CONFIG_COLLECTIONS};
use crate::query::filter::Filter;
use bson::{doc, Bson, Document};

/// One database of the list: its name and its size on each shard that has it.
struct Listed {
    name: String,
    shards: Vec<(String, u64)>,
}

impl Listed {
    fn size(&self) -> u64 {
        self.shards.iter().map(|(_, b)| b).sum()
    }
}

/// The BSON size of `doc`.
fn bson_size(doc: &Document) -> u64 {
    doc.to_vec().map_or(0, |v| v.len() as u64)
}

/// The databases, in name order.
fn listed(cluster: &Cluster) -> Vec<Listed> {
    let mut out: Vec<Listed> = Vec::new();
    for (db, info) in cluster.databases() {
        // The primary shard holds the database; shards with chunks of its collections too.
        let mut sizes = vec![0u64; cluster.all_shards().len()];
        let mut holds = vec![false; sizes.len()];
        holds[info.primary as usize] = true;
        // The database's collections as one range of names, so listing many databases
        // stays linear (a filter over every collection per database was quadratic).
        for (ns, _) in cluster.collections_in(db) {
            for (i, st) in cluster.shard_stats(ns).iter().enumerate() {
                sizes[i] += st.bytes;
                holds[i] |= st.chunks > 0 || st.bytes > 0;
            }
        }
        let shards = cluster
            .shards()
            .filter(|(i, _)| holds[*i as usize])
            .map(|(i, s)| (s.name.clone(), sizes[i as usize]))
            .collect();
        out.push(Listed {
            name: db.clone(),
            shards,
        });
    }
    let config: u64 = CONFIG_COLLECTIONS
        .iter()
        .filter_map(|c| config_documents(cluster, c))
        .flatten()
        .map(|d| bson_size(&d))
        .sum();
    let fcv = doc! { "_id": "featureCompatibilityVersion", "version": cluster.version().label() };
    for (name, size) in [("admin", bson_size(&fcv)), ("config", config)] {
        out.push(Listed {
            name: name.to_string(),
            shards: vec![("config".to_string(), size)],
        });
    }
    out.sort_by(|a, b| a.name.cmp(&b.name));
    out
}

/// A size as the mongos writes it: a long from 5.0 (the reply's IDL), and in 3.6
/// `appendNumber`'s choice, an int when it fits.
fn size_value(version: VersionMode, n: u64) -> Bson {
    let n = i64::try_from(n).unwrap_or(i64::MAX);
    match i32::try_from(n) {
        Ok(small) if version == VersionMode::V36 => Bson::Int32(small),
        _ => Bson::Int64(n),
    }
}

/// The `listDatabases` reply; `nameOnly` leaves the sizes out, and only the entries
/// `filter` matches are listed and summed.
pub(super) fn list_databases(
    cluster: &Cluster,
    name_only: bool,
    filter: Option<&Filter>,
) -> Result<Document, crate::values::error::ClusterError> {
    let v = cluster.version();
    let mut all = Vec::new();
    for db in listed(cluster) {
        // A filter that cannot be answered (a regex past its budget) fails the command.
        if filter.map_or(Ok(true), |f| f.matches(&entry(v, &db)))? {
            all.push(db);
        }
    }
    let mut total = 0;
    let databases: Vec<Bson> = all
        .iter()
        .map(|db| {
            if name_only {
                return Bson::Document(doc! { "name": db.name.clone() });
            }
            total += db.size();
            Bson::Document(entry(v, db))
        })
        .collect();
    let mut reply = doc! { "databases": databases };
    if !name_only {
        reply.insert("totalSize", size_value(v, total));
        reply.insert("totalSizeMb", size_value(v, total / (1024 * 1024)));
    }
    reply.insert("ok", 1);
    Ok(reply)
}

/// A database's entry with its sizes, which a filter reads.
fn entry(v: VersionMode, db: &Listed) -> Document {
    let size = db.size();
    let mut shards = Document::new();
    for (s, b) in &db.shards {
        shards.insert(s.clone(), size_value(v, *b));
    }
    doc! {
        "name": db.name.clone(),
        "sizeOnDisk": size_value(v, size),
        "empty": size == 1,
        "shards": shards,
    }
}

/// `show dbs`: each database's name and size, as mongosh's `formatDatabases` lays them
/// out with `text-table` (names left-aligned, sizes right-aligned, two spaces apart).
pub(super) fn show_dbs(cluster: &Cluster) -> String {
    let rows: Vec<(String, String)> = listed(cluster)
        .iter()
        .map(|db| (db.name.clone(), format_bytes(db.size())))
        .collect();
    let name_width = rows
        .iter()
        .map(|(n, _)| n.chars().count())
        .max()
        .unwrap_or(0);
    let size_width = rows
        .iter()
        .map(|(_, s)| s.chars().count())
        .max()
        .unwrap_or(0);
    rows.iter()
        .map(|(n, s)| format!("{n:<name_width$}  {s:>size_width$}"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// mongosh's `formatBytes`: numeral's binary units (`0 ib` up to 1,000 bytes, `0.00 ib`
/// above), so `26 B`, `1.21 KiB`, `44.00 KiB`.
pub fn format_bytes(n: u64) -> String {
    const UNITS: [&str; 9] = ["B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB", "ZiB", "YiB"];
    let mut value = n as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit < UNITS.len() - 1 {
        value /= 1024.0;
        unit += 1;
    }
    if n <= 1000 {
        format!("{n} {}", UNITS[unit])
    } else {
        // numeral's `toFixed` rounds `Math.round(value + 'e+2') / 100`: half up on the
        // number's shortest decimal text, so 1.125 KiB is `1.13 KiB` (Rust's `{:.2}`
        // would round the binary value to even, `1.12`).
        let hundredths: f64 = format!("{value}e2").parse().unwrap_or(value * 100.0);
        format!("{:.2} {}", (hundredths + 0.5).floor() / 100.0, UNITS[unit])
    }
}

/// The primary order of ASCII characters in ICU's root collation (what Node's
/// `String.prototype.localeCompare` uses): punctuation, then symbols, then digits, then
/// letters whatever their case.
const ROOT_ORDER: &str = " _-,;:!?.'\"()[]{}@*/\\&#%`^+<=>|~$0123456789abcdefghijklmnopqrstuvwxyz";

/// `a.localeCompare(b)` for the names a collection may have, as ICU's root collation
/// orders them: characters by [`ROOT_ORDER`] (others after, by code point), and between
/// names that differ only in case, lowercase first at the first difference.
pub(crate) fn locale_compare(a: &str, b: &str) -> std::cmp::Ordering {
    let primary = |c: char| -> u32 {
        let folded = c.to_ascii_lowercase();
        match ROOT_ORDER.find(folded) {
            Some(i) if c.is_ascii() => i as u32,
            _ => 0x100 + c as u32,
        }
    };
    let pa = a.chars().map(primary);
    let pb = b.chars().map(primary);
    pa.cmp(pb).then_with(|| {
        let case = |c: char| u8::from(c.is_ascii_uppercase());
        a.chars().map(case).cmp(b.chars().map(case))
    })
}
