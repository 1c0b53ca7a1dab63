//! `shardlab import-cluster DIR`: finds a cluster's config exports in DIR, reads them in
//! pieces through `workload::MetadataReader` and makes the session whose cluster they
//! describe (`workload::assemble`'s steps: `sim.loadCluster`, then the changelog's
//! `sim.replayChange`s).
//!
//! `shardlab import-cluster FILE`, or a DIR that holds one `.txt` file and no exports,
//! reads a `sh.status({verbose: true})` printout instead (`workload::read_status_printout`,
//! which knows it by its text, not its name).

use shardlab::workload::{
    assemble, is_status_printout, read_status_printout, ClusterImport, MetadataCollection,
    MetadataError, MetadataReader, PrintoutShell, MAX_PRINTOUT_BYTES, METADATA_COLLECTIONS,
};
use shardlab::{ClusterConfig, Session};
use std::io::{IsTerminal, Read};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// The files of DIR that hold config collections: in `DIR/config/` (mongoexport's or
/// mongodump's layout) or in DIR itself, named `chunks.json`, `config.chunks.json` or
/// `chunks.bson.json` (bsondump's output), maybe gzipped. Two files for one collection
/// are refused, naming both.
fn find_files(dir: &Path) -> Result<Vec<(MetadataCollection, PathBuf)>, String> {
    if !dir.is_dir() {
        return Err(format!("{} is not a directory", dir.display()));
    }
    let mut found: Vec<(MetadataCollection, PathBuf)> = Vec::new();
    for place in [dir.join("config"), dir.to_path_buf()] {
        let Ok(entries) = std::fs::read_dir(&place) else {
            continue;
        };
        let mut names: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
        names.sort();
        for path in names {
            let name = path
                .file_name()
                .and_then(|n| n.to_str())
                .unwrap_or_default();
            if let Some(c) = MetadataCollection::from_file_name(name) {
                if let Some((_, other)) = found.iter().find(|(f, _)| *f == c) {
                    return Err(format!(
                        "{} and {} both hold config.{}: keep one",
                        other.display(),
                        path.display(),
                        c.name()
                    ));
                }
                found.push((c, path));
            } else if name.ends_with(".bson")
                && MetadataCollection::parse(name.trim_end_matches(".bson")).is_some()
            {
                return Err(format!("{} is mongodump's BSON: run `bsondump --outFile {}.json {}` and import the directory again", path.display(), path.display(), path.display()));
            }
        }
    }
    found.sort_by_key(|(c, _)| *c);
    Ok(found)
}

/// The `.txt` files of DIR (not of `DIR/config/`) whose text is a `sh.status()` printout.
fn find_printouts(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut found: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_file() && p.extension().is_some_and(|x| x == "txt"))
        .filter(|p| {
            let mut head = [0u8; 4096];
            std::fs::File::open(p)
                .and_then(|mut f| f.read(&mut head))
                .is_ok_and(|n| is_status_printout(&head[..n]))
        })
        .collect();
    found.sort();
    found
}

/// Reads a `sh.status()` printout and says on standard error what it took it for.
fn printout_import(path: &Path, shown: &str) -> Result<ClusterImport, ExitCode> {
    let fail = |message: String| {
        crate::report(&format!("shardlab import-cluster: {message}"));
        ExitCode::FAILURE
    };
    let too_big = std::fs::metadata(path).is_ok_and(|m| m.len() > MAX_PRINTOUT_BYTES as u64);
    if too_big {
        return Err(fail(format!("{shown}: larger than the {MAX_PRINTOUT_BYTES} bytes a printout may be: import the cluster from its config exports instead")));
    }
    let bytes = std::fs::read(path).map_err(|e| {
        crate::report(&format!(
            "shardlab import-cluster: cannot read {}: {e}",
            path.display()
        ));
        ExitCode::from(2)
    })?;
    let printout = read_status_printout(shown, &bytes).map_err(|e| fail(e.to_string()))?;
    let import = printout.assemble().map_err(|e| fail(e.to_string()))?;
    let shell = match printout.shell {
        PrintoutShell::Mongosh => "mongosh",
        PrintoutShell::Legacy => "the mongo shell",
    };
    crate::report(&format!(
        "{shown}: sh.status() as {shell} prints it; the cluster takes version {} ({})",
        printout.version.label(),
        printout.version_reason
    ));
    Ok(import)
}

/// Reads the files (or the printout) and makes the session, or reports why not (exit
/// status 1; 2 when a file cannot be read at all).
pub fn import_cluster(dir: &Path, buffer: usize) -> Result<Session, ExitCode> {
    let fail = |message: String| {
        crate::report(&format!("shardlab import-cluster: {message}"));
        ExitCode::FAILURE
    };
    if dir.is_file() {
        let shown = dir.display().to_string();
        let mut head = [0u8; 4096];
        let n = std::fs::File::open(dir)
            .and_then(|mut f| f.read(&mut head))
            .map_err(|e| {
                crate::report(&format!(
                    "shardlab import-cluster: cannot read {shown}: {e}"
                ));
                ExitCode::from(2)
            })?;
        if n > 0 && !is_status_printout(&head[..n]) {
            return Err(fail(format!("{shown} is not a sh.status() printout (it has no 'shardingVersion' or '--- Sharding Status ---' line): give the output of sh.status({{verbose: true}}) or a directory of config exports")));
        }
        return session_of(printout_import(dir, &shown)?);
    }
    let files = find_files(dir).map_err(fail)?;
    let printouts = find_printouts(dir);
    if let Some(p) = printouts.first() {
        if let Some((_, export)) = files.first() {
            return Err(fail(format!("{} holds both config exports ({}) and a sh.status() printout ({}): the two cannot be mixed, import one of them", dir.display(), export.display(), p.display())));
        }
        if let Some(q) = printouts.get(1) {
            return Err(fail(format!(
                "{} and {} are both sh.status() printouts: keep one",
                p.display(),
                q.display()
            )));
        }
        let shown = p.strip_prefix(dir).unwrap_or(p).display().to_string();
        return session_of(printout_import(p, &shown)?);
    }
    let chatty = std::io::stderr().is_terminal();
    let mut reader = MetadataReader::new();
    for (collection, path) in &files {
        if chatty {
            crate::report(&format!(
                "reading config.{} from {}",
                collection.name(),
                path.display()
            ));
        }
        let shown = path.strip_prefix(dir).unwrap_or(path).display().to_string();
        read_file(&mut reader, *collection, path, &shown, buffer).map_err(|e| match e {
            Failed::Io(message) => {
                crate::report(&format!("shardlab import-cluster: {message}"));
                ExitCode::from(2)
            }
            Failed::Metadata(e) => fail(e.to_string()),
        })?;
    }
    if files.is_empty() {
        let listed: Vec<&str> = METADATA_COLLECTIONS.iter().map(|c| c.name()).collect();
        return Err(fail(format!(
            "{} holds no config exports (config/{{{}}}.json) and no sh.status() printout (a .txt file)",
            dir.display(),
            listed.join(",")
        )));
    }
    let docs = reader.finish().map_err(|e| fail(e.to_string()))?;
    let import = assemble(&docs).map_err(|e| fail(e.to_string()))?;
    session_of(import)
}

/// The session that ran an import's steps, with the changelog's account on standard error.
fn session_of(import: ClusterImport) -> Result<Session, ExitCode> {
    let fail = |message: String| {
        crate::report(&format!("shardlab import-cluster: {message}"));
        ExitCode::FAILURE
    };
    let mut session = Session::new(ClusterConfig {
        version: import.version,
        ..ClusterConfig::default()
    });
    for step in &import.steps {
        if let Some(Err(e)) = session
            .run(step)
            .into_iter()
            .map(|o| o.result)
            .find(Result::is_err)
        {
            return Err(fail(format!("{}: {e}", e.name())));
        }
    }
    let replayed = import.replayed;
    if replayed > 0 || !import.skipped.is_empty() {
        crate::report(&format!("config.changelog: {replayed} change(s) replayed"));
    }
    for s in &import.skipped {
        crate::report(&format!(
            "config.changelog: skipped {} x{}: {}",
            s.what, s.count, s.reason
        ));
    }
    Ok(session)
}

enum Failed {
    Io(String),
    Metadata(MetadataError),
}

fn read_file(
    reader: &mut MetadataReader,
    collection: MetadataCollection,
    path: &Path,
    shown: &str,
    buffer: usize,
) -> Result<(), Failed> {
    let mut file = std::fs::File::open(path)
        .map_err(|e| Failed::Io(format!("cannot read {}: {e}", path.display())))?;
    reader.begin(collection, shown).map_err(Failed::Metadata)?;
    let mut buf = vec![0u8; buffer];
    loop {
        let n = match file.read(&mut buf) {
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(Failed::Io(format!("cannot read {}: {e}", path.display()))),
        };
        if n == 0 {
            return reader.end().map_err(Failed::Metadata);
        }
        reader.push(&buf[..n]).map_err(Failed::Metadata)?;
    }
}
