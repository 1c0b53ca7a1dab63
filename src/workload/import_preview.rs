//! A first look at a file before it is imported: its format, its CSV columns with their
//! types, and the fields its first documents hold, read from the file's first slice
//! without importing anything. The page shows it so that the user can choose a column's
//! type or a field to sort by before the import starts.

use super::import::{ImportOptions, ImportReader, Record};
use bson::{Bson, Document};

/// Most fields a preview names.
pub const MAX_PREVIEW_FIELDS: usize = 200;

/// How deep into embedded documents a preview names fields (`a.b.c` is 3).
const PREVIEW_DEPTH: usize = 3;

/// The types a user can choose for a CSV column, each as a typed header spells it after
/// the dot (mongoimport's `--columnsHaveTypes`).
pub const COLUMN_TYPE_CHOICES: &[&str] = &[
    "auto()",
    "string()",
    "int32()",
    "int64()",
    "double()",
    "decimal()",
    "boolean()",
    "date(2006-01-02T15:04:05Z07:00)",
    "date_ms(yyyy-MM-dd)",
    "date_ms(yyyy-MM-dd HH:mm:ss)",
];

/// What the first slice of a file shows.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ImportPreview {
    /// The format read (`json`, `jsonArray`, `csv`), once known.
    pub format: Option<String>,
    /// The CSV columns and their types' names (`auto` for an untyped header).
    pub columns: Vec<(String, String)>,
    /// The dotted fields the first documents hold, in the order first met.
    pub fields: Vec<String>,
    /// Documents read in the slice.
    pub documents: u64,
    /// Records of the slice that could not be read.
    pub failed: u64,
    /// Why the file cannot be imported, when the slice shows it already.
    pub error: Option<String>,
}

/// Reads `head`, a file's first bytes (the whole file when `complete`), as an import
/// with `options` would, and says what it shows.
pub fn preview(head: &[u8], complete: bool, options: ImportOptions) -> ImportPreview {
    let mut reader = ImportReader::new(options);
    let mut preview = ImportPreview::default();
    let mut result = reader.push(head);
    if result.is_ok() && complete {
        result = reader.finish();
    }
    while result.is_ok() {
        match reader.next_record() {
            Ok(Some(Record::Document(d))) => {
                preview.documents += 1;
                add_fields(&mut preview.fields, "", &d.document, 1);
            }
            Ok(Some(Record::Failure(_))) => preview.failed += 1,
            Ok(None) => break,
            Err(e) => result = Err(e),
        }
    }
    if let Err(e) = result {
        preview.error = Some(e.to_string());
    }
    preview.format = reader.format().map(|f| f.name().to_string());
    preview.columns = reader.columns().unwrap_or_default();
    preview
}

/// Names `doc`'s fields under `prefix`, and those of its embedded documents down to
/// [`PREVIEW_DEPTH`], while fewer than [`MAX_PREVIEW_FIELDS`] are named.
fn add_fields(fields: &mut Vec<String>, prefix: &str, doc: &Document, depth: usize) {
    for (key, value) in doc {
        if fields.len() >= MAX_PREVIEW_FIELDS {
            return;
        }
        let path = if prefix.is_empty() {
            key.clone()
        } else {
            format!("{prefix}.{key}")
        };
        if !fields.contains(&path) {
            fields.push(path.clone());
        }
        if let Bson::Document(inner) = value {
            if depth < PREVIEW_DEPTH {
                add_fields(fields, &path, inner, depth + 1);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::import::ImportFormat;

    #[test]
    fn a_csv_header_shows_its_columns_and_a_chosen_type_replaces_one() {
        // More than the bytes the reader waits for before it reads, then a cut line.
        let mut csv = b"name,n.int64(),when\n".to_vec();
        for i in 0..1000 {
            csv.extend_from_slice(format!("ann,{i},2024-01-02\n").as_bytes());
        }
        csv.extend_from_slice(b"cut,");
        let options = ImportOptions {
            format: Some(ImportFormat::Csv),
            ..ImportOptions::default()
        };
        let p = preview(&csv, false, options.clone());
        assert_eq!(p.format.as_deref(), Some("csv"));
        let names: Vec<&str> = p.columns.iter().map(|c| c.0.as_str()).collect();
        assert_eq!(names, ["name", "n.int64()", "when"]);
        assert_eq!(p.documents, 1000, "the cut last line waits for the rest");
        assert_eq!(p.fields, ["name", "n", "n.int64()", "when"]);
        let typed = ImportOptions {
            format: Some(ImportFormat::Csv),
            columns_have_types: true,
            column_types: vec![("when".into(), "date_ms(yyyy-MM-dd)".into())],
            ..ImportOptions::default()
        };
        let p = preview(
            b"name.string(),n.int64(),when.string()\nann,3,2024-01-02\n",
            true,
            typed,
        );
        let types: Vec<&str> = p.columns.iter().map(|c| c.1.as_str()).collect();
        assert_eq!(types, ["string", "int64", "date_ms"]);
        assert_eq!(p.error, None);
    }

    #[test]
    fn json_documents_show_their_dotted_fields_and_a_binary_file_its_error() {
        let json = b"{\"_id\": 1, \"user\": {\"id\": 7, \"tenant\": \"a\"}}\n{\"ts\": {\"$date\": \"2024-01-01T00:00:00Z\"}}\n";
        let p = preview(json, true, ImportOptions::default());
        assert_eq!(p.format.as_deref(), Some("json"));
        assert_eq!(p.fields, ["_id", "user", "user.id", "user.tenant", "ts"]);
        assert_eq!(p.documents, 2);
        let png = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR";
        let p = preview(png, true, ImportOptions::default());
        assert!(
            p.error.as_deref().is_some_and(|e| e.contains("not text")),
            "{p:?}"
        );
        let missing = ImportOptions {
            column_types: vec![("nope".into(), "int32()".into())],
            format: Some(ImportFormat::Csv),
            ..ImportOptions::default()
        };
        let p = preview(b"a,b\n1,2\n", true, missing);
        assert!(
            p.error.as_deref().is_some_and(|e| e.contains("`nope`")),
            "{p:?}"
        );
    }
}
