//! Importing a user's documents: mongoexport's JSON, JSON arrays, CSV typed as
//! mongoimport types it, gzip, read in slices of any size; hostile files; the import as
//! one timeline step that replays and survives a saved scenario; the CLI's `import`.

#![allow(clippy::unwrap_used)]

use bson::{doc, Bson, Document};
use shardlab::session::Session;
use shardlab::sim::{from_json, to_json, Timeline};
use shardlab::workload::{
    import_step, read_all, ImportError, ImportFormat, ImportItem, ImportOptions, Importer,
    InsertBatch, ParseGrace, Record, MAX_IMPORT_DEPTH,
};

fn options(name: &str) -> ImportOptions {
    ImportOptions {
        file_name: Some(name.to_string()),
        ..ImportOptions::default()
    }
}

/// The documents and the failures (as `line: reason` text) of a file read `slice`
/// bytes at a time.
fn read(bytes: &[u8], slice: usize, opts: ImportOptions) -> (Vec<Document>, Vec<String>) {
    let (records, error) = read_all(bytes, slice, opts);
    let mut docs = Vec::new();
    let mut failures = Vec::new();
    for r in records {
        match r {
            Record::Document(d) => docs.push(d.document),
            Record::Failure(f) => failures.push(f.to_string()),
        }
    }
    if let Some(e) = error {
        failures.push(format!("error: {e}"));
    }
    (docs, failures)
}

/// Reads with several slice sizes and checks they agree.
fn read_sliced(bytes: &[u8], opts: ImportOptions) -> (Vec<Document>, Vec<String>) {
    let whole = read(bytes, bytes.len().max(1), opts.clone());
    for slice in [1, 2, 5, 64, 4096] {
        assert_eq!(read(bytes, slice, opts.clone()), whole, "slices of {slice}");
    }
    whole
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    use std::io::Write;
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(bytes).unwrap();
    e.finish().unwrap()
}

#[test]
fn mongoexport_lines_canonical_and_relaxed() {
    let text = concat!(
        "{\"_id\":{\"$oid\":\"65a1b2c3d4e5f60718293a4b\"},\"n\":{\"$numberInt\":\"1\"},\"l\":{\"$numberLong\":\"5\"},\"d\":{\"$date\":{\"$numberLong\":\"0\"}}}\n",
        "{\"_id\":2,\"big\":3000000000,\"x\":1.5,\"when\":{\"$date\":\"2024-01-01T00:00:00Z\"}}\r\n",
        "\n",
        "{\n  \"_id\": 3,\n  \"pretty\": true\n}\n",
    );
    let (docs, failures) = read_sliced(text.as_bytes(), options("export.json"));
    assert_eq!(failures, Vec::<String>::new());
    assert_eq!(docs.len(), 3);
    assert_eq!(docs[0].get("n"), Some(&Bson::Int32(1)));
    assert_eq!(docs[0].get("l"), Some(&Bson::Int64(5)));
    assert!(matches!(docs[0].get("_id"), Some(Bson::ObjectId(_))));
    assert_eq!(docs[1].get("big"), Some(&Bson::Int64(3_000_000_000)));
    assert_eq!(docs[1].get("x"), Some(&Bson::Double(1.5)));
    assert!(matches!(docs[1].get("when"), Some(Bson::DateTime(_))));
    assert_eq!(docs[2], doc! {"_id": 3, "pretty": true});
}

#[test]
fn bad_lines_are_reported_by_line_and_the_rest_read() {
    let text =
        "{\"a\":1}\n{\"a\":2,\n{\"a\":3}\nnot json\n[1,2]\n{\"a\":{\"$oid\":\"zz\"}}\n{\"a\":4}";
    let (docs, failures) = read_sliced(text.as_bytes(), options("x.ndjson"));
    assert_eq!(docs, vec![doc! {"a": 1}, doc! {"a": 3}, doc! {"a": 4}]);
    expect_test::expect![[r#"
        [
            "line 2, column 8: SyntaxError: Unexpected end of input, expected a property name or '}'",
            "line 4, column 5: SyntaxError: Unexpected token 'json', expected end of input",
            "line 5, column 1: a document must be a JSON object, not an array",
            "line 6, column 6: invalid Extended JSON $oid: expected 24 hexadecimal characters",
        ]
    "#]]
    .assert_debug_eq(&failures);
}

#[test]
fn json_arrays_are_read_element_by_element() {
    let text = b"\xEF\xBB\xBF [ {\"a\": 1},\n {\"a\": [2, {\"b\": 3}]} , 5, {\"a\": \"]\"} ]  ";
    let (docs, failures) = read_sliced(text, options("arr.json"));
    assert_eq!(
        docs,
        vec![doc! {"a": 1}, doc! {"a": [2, {"b": 3}]}, doc! {"a": "]"}]
    );
    assert_eq!(
        failures,
        vec!["line 2, column 25: a document must be a JSON object, not a number or other value"]
    );
    let (_, failures) = read_sliced(b"[{\"a\":1}, {\"a\":2}", options("a.json"));
    assert_eq!(
        failures,
        vec!["line 1: bad JSON array format - found no closing bracket ']' in input source"]
    );
    let (docs, failures) = read_sliced(b"[{\"a\":1}] x", options("a.json"));
    assert_eq!(docs.len(), 1);
    assert_eq!(
        failures,
        vec!["line 1: bad JSON array format - found 'x' after ']' in input source"]
    );
}

#[test]
fn formats_are_detected_from_the_name_then_the_first_byte() {
    let detect = |name: Option<&str>, format: Option<ImportFormat>, bytes: &[u8]| {
        let mut importer = Importer::new(
            "test.c",
            ImportOptions {
                file_name: name.map(str::to_string),
                format,
                ..Default::default()
            },
            None,
        );
        importer.push(bytes).unwrap();
        importer.finish().unwrap();
        importer.format()
    };
    assert_eq!(
        detect(Some("a.CSV"), None, b"a\n1\n"),
        Some(ImportFormat::Csv)
    );
    assert_eq!(
        detect(Some("a.csv.gz"), None, &gzip(b"a\n1\n")),
        Some(ImportFormat::Csv)
    );
    assert_eq!(detect(None, None, b"  [ ]"), Some(ImportFormat::JsonArray));
    assert_eq!(detect(None, None, b"{}"), Some(ImportFormat::Json));
    assert_eq!(
        detect(Some("a.json"), None, b"\n[{}]"),
        Some(ImportFormat::JsonArray)
    );
    assert_eq!(
        detect(Some("a.json"), Some(ImportFormat::Csv), b"{}"),
        Some(ImportFormat::Csv)
    );
    // A gzip stream is known by its magic bytes whatever the name.
    assert_eq!(
        detect(Some("data"), None, &gzip(b"[{}]")),
        Some(ImportFormat::JsonArray)
    );
}

#[test]
fn csv_is_typed_as_mongoimport_types_it() {
    let text = "name,n,big,x,nested.a.b,blank\nAda,42,2147483648,1.5,7,\n\"Lee, Jr\",-1, 1e400 ,0x1p-2,x,\nshort\nExtra,1,2,3,4,5,6\n";
    let (docs, failures) = read_sliced(text.as_bytes(), options("people.csv"));
    assert_eq!(failures, Vec::<String>::new());
    assert_eq!(
        docs,
        vec![
            doc! {"name": "Ada", "n": 42, "big": 2_147_483_648i64, "x": 1.5, "nested": {"a": {"b": 7}}, "blank": ""},
            doc! {"name": "Lee, Jr", "n": -1, "big": "1e400", "x": 0.25, "nested": {"a": {"b": "x"}}, "blank": ""},
            doc! {"name": "short"},
            doc! {"name": "Extra", "n": 1, "big": 2, "x": 3, "nested": {"a": {"b": 4}}, "blank": 5, "field6": 6},
        ]
    );
    let ignore = ImportOptions {
        ignore_blanks: true,
        ..options("people.csv")
    };
    let (docs, _) = read_sliced(text.as_bytes(), ignore);
    assert_eq!(docs[0].get("blank"), None);
}

#[test]
fn typed_csv_headers_are_honoured() {
    let text = "name.string(),n.int32(),l.int64(),d.double(),b.boolean(),ts.date_ms(yyyy-MM-dd),g.date_go(2006-01-02T15:04:05Z07:00),o.date_oracle(DD-MON-YYYY),x.decimal(),h.binary(hex),a.auto()\n\
                007,7,8,9,true,2024-03-05,2024-03-05T10:00:00+01:00,05-mar-2024,1.10,00ff,12\n\
                x,notanumber,1,1,1,2024-03-05,2024-03-05T10:00:00Z,05-MAR-2024,1,00,1\n";
    let typed = ImportOptions {
        columns_have_types: true,
        ..options("t.csv")
    };
    let (docs, failures) = read_sliced(text.as_bytes(), typed.clone());
    assert_eq!(docs.len(), 1);
    let d = &docs[0];
    assert_eq!(d.get("name"), Some(&Bson::String("007".into())));
    assert_eq!(d.get("n"), Some(&Bson::Int32(7)));
    assert_eq!(d.get("l"), Some(&Bson::Int64(8)));
    assert_eq!(d.get("d"), Some(&Bson::Double(9.0)));
    assert_eq!(d.get("b"), Some(&Bson::Boolean(true)));
    let date = |ms: i64| Some(Bson::DateTime(bson::DateTime::from_millis(ms)));
    assert_eq!(d.get("ts").cloned(), date(1_709_596_800_000));
    assert_eq!(d.get("g").cloned(), date(1_709_629_200_000));
    assert_eq!(d.get("o").cloned(), date(1_709_596_800_000));
    assert!(matches!(d.get("x"), Some(Bson::Decimal128(_))));
    assert!(matches!(d.get("h"), Some(Bson::Binary(b)) if b.bytes == [0, 255]));
    assert_eq!(d.get("a"), Some(&Bson::Int32(12)));
    assert_eq!(
        failures,
        vec!["line 3: type coercion failure in document #1 for column `n`, could not parse token `notanumber` to type int32"]
    );
    // The other graces.
    let grace = |g| ImportOptions {
        parse_grace: g,
        ..typed.clone()
    };
    let (docs, _) = read(text.as_bytes(), 64, grace(ParseGrace::AutoCast));
    assert_eq!(docs[1].get("n"), Some(&Bson::String("notanumber".into())));
    let (docs, _) = read(text.as_bytes(), 64, grace(ParseGrace::SkipField));
    assert_eq!(docs[1].get("n"), None);
    let (docs, failures) = read(text.as_bytes(), 64, grace(ParseGrace::SkipRow));
    assert_eq!(docs.len(), 1);
    assert!(
        failures[0].starts_with("line 3: skipping row #1: [x notanumber"),
        "{failures:?}"
    );
}

#[test]
fn types_chosen_for_columns_read_the_header_as_if_it_spelled_them() {
    // The page's column type picker: an untyped header, with types chosen for two of its
    // columns, reads as the typed header `zip.string(),day.date_ms(yyyy-MM-dd),n` would.
    let text = "zip,day,n\n02134,2024-03-05,7\n";
    let chosen = ImportOptions {
        column_types: vec![
            ("zip".into(), "string()".into()),
            ("day".into(), "date_ms(yyyy-MM-dd)".into()),
        ],
        ..options("t.csv")
    };
    let (docs, failures) = read_sliced(text.as_bytes(), chosen);
    assert_eq!(failures, Vec::<String>::new());
    let (untyped, _) = read_sliced(text.as_bytes(), options("t.csv"));
    assert_eq!(
        untyped[0].get("zip"),
        Some(&Bson::Int32(2134)),
        "auto reads a number"
    );
    assert_eq!(docs[0].get("zip"), Some(&Bson::String("02134".into())));
    assert_eq!(
        docs[0].get("day"),
        Some(&Bson::DateTime(bson::DateTime::from_millis(
            1_709_596_800_000
        )))
    );
    assert_eq!(docs[0].get("n"), Some(&Bson::Int32(7)));
    // A type mongoimport does not know, and a column the header lacks, stop the file.
    for (column, spec, says) in [
        ("zip", "zipcode()", "invalid type `zipcode`"),
        ("city", "string()", "column `city`"),
    ] {
        let bad = ImportOptions {
            column_types: vec![(column.into(), spec.into())],
            ..options("t.csv")
        };
        let (docs, failures) = read(text.as_bytes(), 7, bad);
        assert!(docs.is_empty());
        assert!(failures.iter().any(|f| f.contains(says)), "{failures:?}");
    }
}

#[test]
fn csv_headers_mongoimport_refuses_stop_the_file() {
    let err = |text: &str, typed: bool| {
        let (_, failures) = read(
            text.as_bytes(),
            8,
            ImportOptions {
                columns_have_types: typed,
                ..options("h.csv")
            },
        );
        failures.last().cloned().unwrap_or_default()
    };
    assert_eq!(
        err("a,a\n1,2\n", false),
        "error: fields cannot be identical: `a` and `a`"
    );
    assert_eq!(
        err("a,a.b\n", false),
        "error: fields `a` and `a.b` are incompatible"
    );
    assert_eq!(
        err("$x\n", false),
        "error: field `$x` cannot start with a '$'"
    );
    assert_eq!(
        err("n.int(),m\n", true),
        "error: invalid type `int` in header `n.int()`"
    );
    assert_eq!(
        err("n\n", true),
        "error: could not parse type from header `n`"
    );
    assert_eq!(err("", false), "error: the CSV file has no header line");
    let deep = vec!["a"; MAX_IMPORT_DEPTH as usize + 1].join(".");
    assert!(err(&format!("{deep}\n1\n"), false).contains("an import takes documents of at most"));
}

#[test]
fn hostile_files_are_refused_without_harm() {
    // 100,000 levels of nesting on one line, then a good line.
    let mut deep = "{\"a\":".repeat(100_000);
    deep.push('1');
    deep.push_str(&"}".repeat(100_000));
    deep.push_str("\n{\"ok\":1}\n");
    let (docs, failures) = read(deep.as_bytes(), 65536, options("deep.json"));
    assert_eq!(docs, vec![doc! {"ok": 1}]);
    assert_eq!(failures.len(), 1);
    assert!(failures[0].contains("nested too deeply"), "{failures:?}");
    // A document just within the import's depth, with the deepest wrapper, goes in and
    // replays; one level more is refused with the reason.
    let nest = |levels: u32, leaf: &str| {
        let mut s = "{\"a\":".repeat(levels as usize - 1);
        s.push_str(leaf);
        s.push_str(&"}".repeat(levels as usize - 1));
        s
    };
    let leaf =
        "{\"p\":{\"$dbPointer\":{\"$ref\":\"c\",\"$id\":{\"$oid\":\"65a1b2c3d4e5f60718293a4b\"}}}}";
    let ok = nest(MAX_IMPORT_DEPTH, leaf);
    let too_deep = nest(MAX_IMPORT_DEPTH + 1, leaf);
    let text = format!("{ok}\n{too_deep}\n");
    let (docs, failures) = read(text.as_bytes(), 4096, options("d.json"));
    assert_eq!(docs.len(), 1);
    assert_eq!(failures.len(), 1, "{failures:?}");
    assert!(failures[0].contains("at most 58 levels"), "{failures:?}");
    let (imported, failures) = import_into(
        &mut Session::default(),
        "test.deep",
        text.as_bytes(),
        options("d.json"),
        None,
    );
    assert_eq!((imported, failures.len()), (1, 1));
    // A 20 MB line: refused by its line, memory bounded, the next line read.
    let mut huge = String::from("{\"s\":\"");
    huge.push_str(&"x".repeat(20 * 1024 * 1024));
    huge.push_str("\"}\n{\"after\":1}\n");
    let (docs, failures) = read(huge.as_bytes(), 65536, options("huge.json"));
    assert_eq!(docs, vec![doc! {"after": 1}]);
    assert_eq!(
        failures,
        vec!["line 1: the document's text is longer than 16777216 bytes, the most the shell reads at once"]
    );
    // Invalid UTF-8: a JSON record fails; CSV reads it as U+FFFD, as Go's reader does.
    let (docs, failures) = read(b"{\"a\":\"\xff\"}\n{\"b\":1}\n", 3, options("u.json"));
    assert_eq!(docs, vec![doc! {"b": 1}]);
    assert_eq!(
        failures,
        vec!["line 1, column 7: invalid UTF-8 in the document's text"]
    );
    let (docs, _) = read_sliced(b"a\nx\xffy\n\xe2\x82\n", options("u.csv"));
    assert_eq!(
        docs,
        vec![doc! {"a": "x\u{FFFD}y"}, doc! {"a": "\u{FFFD}\u{FFFD}"}]
    );
    // A binary file renamed .json.
    let png = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR";
    assert_eq!(read(png, 4, options("p.json")).1, vec!["error: the file is not text: it holds NUL bytes (a binary file, or text that is not UTF-8)"]);
    // A quoted CSV field across lines, and one left open to the end.
    let (docs, failures) = read_sliced(b"a,b\n\"one\ntwo\",2\n\"open,3\n4,5\n", options("q.csv"));
    assert_eq!(docs, vec![doc! {"a": "one\ntwo", "b": 2}]);
    // Go's reader counts the line break inside the open quote: the error is on line 6.
    assert_eq!(failures, vec!["line 6, column 0: extraneous \" in field"]);
    // Empty files and whitespace.
    assert_eq!(read_sliced(b"", options("e.json")), (vec![], vec![]));
    assert_eq!(read_sliced(b" \n\t\n", options("e.json")), (vec![], vec![]));
}

#[test]
fn a_truncated_gzip_keeps_what_came_before_it() {
    let mut text = String::new();
    for i in 0..2000 {
        text.push_str(&format!(
            "{{\"_id\":{i},\"pad\":\"{}\"}}\n",
            "p".repeat(i % 50)
        ));
    }
    let gz = gzip(text.as_bytes());
    let (docs, failures) = read_sliced(&gz, options("t.json.gz"));
    assert_eq!((docs.len(), failures.len()), (2000, 0));
    let cut = &gz[..gz.len() / 2];
    let (docs, failures) = read(cut, 4096, options("t.json.gz"));
    assert!(docs.len() > 100 && docs.len() < 2000, "{}", docs.len());
    let last = failures.last().unwrap();
    assert!(
        last.starts_with(
            "error: cannot read the gzip file: the gzip stream is truncated or corrupt"
        ),
        "{last}"
    );
    // Garbage after the magic bytes.
    let (_, failures) = read(b"\x1f\x8bnot gzip at all", 4, options("g.gz"));
    assert!(
        failures
            .last()
            .unwrap()
            .starts_with("error: cannot read the gzip file"),
        "{failures:?}"
    );
}

/// Runs a whole import in a session: documents in, and the failures.
fn import_into(
    session: &mut Session,
    ns: &str,
    bytes: &[u8],
    opts: ImportOptions,
    sort: Option<&str>,
) -> (u64, Vec<String>) {
    let batches = batches_of(ns, bytes, opts, sort);
    let mut imported = 0;
    let mut failures = batches.1;
    for b in &batches.0 {
        let r = session.run_import_batch(b);
        imported += r.inserted;
        failures.extend(r.failures.iter().map(|f| f.to_string()));
    }
    (imported, failures)
}

/// An import's batches and its reading failures.
fn batches_of(
    ns: &str,
    bytes: &[u8],
    opts: ImportOptions,
    sort: Option<&str>,
) -> (Vec<InsertBatch>, Vec<String>) {
    let mut importer = Importer::new(ns, opts, sort);
    let mut batches = Vec::new();
    let mut failures = Vec::new();
    let mut take = |importer: &mut Importer| {
        while let Some(item) = importer.next_item() {
            match item {
                ImportItem::Batch(b) => batches.push(b),
                ImportItem::Failure(f) => failures.push(f.to_string()),
            }
        }
    };
    for piece in bytes.chunks(1000) {
        importer.push(piece).unwrap();
        take(&mut importer);
    }
    importer.finish().unwrap();
    take(&mut importer);
    (batches, failures)
}

#[test]
fn documents_go_in_by_batches_and_duplicates_fail_alone() {
    let mut text = String::new();
    for i in 0..2500 {
        text.push_str(&format!("{{\"_id\":{},\"i\":{i}}}\n", i % 2400));
    }
    let (batches, failures) = batches_of("test.users", text.as_bytes(), options("u.json"), None);
    assert!(failures.is_empty());
    assert_eq!(
        batches.iter().map(|b| b.lines.len()).collect::<Vec<_>>(),
        vec![1000, 1000, 500]
    );
    assert!(batches[0].statement.starts_with("db.getSiblingDB(\"test\").getCollection(\"users\").insertMany([{\"_id\":{\"$numberInt\":\"0\"}"));
    assert!(batches[0].statement.ends_with("], {ordered: false})"));
    let mut session = Session::default();
    let (imported, failures) = import_into(
        &mut session,
        "test.users",
        text.as_bytes(),
        options("u.json"),
        None,
    );
    assert_eq!(imported, 2400);
    assert_eq!(failures.len(), 100);
    assert_eq!(failures[0], "line 2401: E11000 duplicate key error collection: test.users index: _id_ dup key: { _id: 0 }");
    let count = session.run("db.users.countDocuments()");
    assert_eq!(count[0].render().unwrap(), "2400");
}

#[test]
fn a_sort_field_orders_the_inserts_missing_first() {
    let text = "{\"k\":3,\"n\":\"c\"}\n{\"n\":\"missing\"}\n{\"k\":1,\"n\":\"a\"}\n{\"k\":null,\"n\":\"null\"}\n{\"k\":{\"$oid\":\"000000000000000000000001\"},\"n\":\"oid\"}\n{\"k\":1,\"n\":\"a2\"}\n{\"k\":[0,9],\"n\":\"array\"}\n";
    let mut session = Session::default();
    let (imported, failures) = import_into(
        &mut session,
        "test.s",
        text.as_bytes(),
        options("s.json"),
        Some("k"),
    );
    assert_eq!((imported, failures.len()), (7, 0));
    let out = session.run("db.s.find({}, {_id: 0, n: 1}).toArray()")[0]
        .render()
        .unwrap();
    let order: Vec<&str> = out.split('\'').skip(1).step_by(2).collect();
    assert_eq!(order, ["missing", "null", "array", "a", "a2", "c", "oid"]);
}

#[test]
fn an_import_is_one_timeline_step_that_replays_and_is_saved() {
    let csv = "user.string(),ts.date_ms(yyyy-MM-dd),n.int32()\nann,2024-01-02,1\nbob,2024-01-01,2\nann,bad,3\n";
    let opts = ImportOptions {
        columns_have_types: true,
        ..options("u.csv")
    };
    let (batches, failures) = batches_of("test.users", csv.as_bytes(), opts, Some("ts"));
    assert_eq!(failures.len(), 1);
    let step = import_step(&batches).unwrap();
    let mut timeline = Timeline::new(Default::default());
    timeline.push("sh.shardCollection(\"test.users\", {user: 1})");
    let (outcomes, tally) = timeline.push_tallied(&step);
    assert!(outcomes.iter().all(|o| o.result.is_ok()));
    let r = shardlab::session::batch_results(&batches, &tally);
    assert_eq!((r.inserted, r.failures.len()), (2, 0));
    timeline.push("db.users.insertOne({user: 'cy'})");
    let shown = |t: &Timeline| {
        let mut s = t.session().clone();
        s.run("db.users.find({}, {_id: 0}).toArray()")[0]
            .render()
            .unwrap()
    };
    let at_end = shown(&timeline);
    // Back before the import, and forward again: the step replays the same documents.
    timeline.jump(1).unwrap();
    assert_eq!(shown(&timeline), "[]");
    timeline.jump(3).unwrap();
    assert_eq!(shown(&timeline), at_end);
    // The saved scenario keeps the step's text once, and opens to the same cluster.
    let scenario = timeline.to_scenario();
    assert_eq!(scenario.commands[1], step);
    let reopened = Timeline::from_scenario(&from_json(&to_json(&scenario)).unwrap());
    assert_eq!(shown(&reopened), at_end);
    assert!(
        at_end.find("bob").unwrap() < at_end.find("ann").unwrap(),
        "{at_end}"
    );
}

#[test]
fn errors_that_stop_a_file_are_errors() {
    let mut importer = Importer::new("test.c", options("x.csv"), None);
    // The first 8 KiB wait to be checked for NUL bytes; the header is read after.
    assert_eq!(importer.push(b"a,a\n1,2\n"), Ok(()));
    assert_eq!(
        importer.finish(),
        Err(ImportError::Header(
            "fields cannot be identical: `a` and `a`".into()
        ))
    );
    assert_eq!(importer.next_item(), None);
}

// The command line is a native program: these run where `cli` does.
#[cfg(not(target_arch = "wasm32"))]
mod cli {
    use super::gzip;
    use crate::cli::{shardlab, ScriptFile};

    #[test]
    fn import_prints_mongoimports_summary_and_each_failed_line() {
        let csv = ScriptFile::new("name,n\nann,1\n\"bad\"x,2\ncy,3\n");
        let csv_path = format!("{}.csv", csv.path());
        std::fs::copy(csv.path(), &csv_path).unwrap();
        let run = shardlab(&["import", &csv_path, "--ns", "test.users"], "");
        std::fs::remove_file(&csv_path).unwrap();
        assert_eq!(run.stdout, "");
        assert_eq!(
            run.stderr,
            "line 3, column 4: extraneous \" in field\n2 document(s) imported successfully. 1 document(s) failed to import.\n"
        );
        assert_eq!(run.code, 1);
    }

    #[test]
    fn import_then_a_script_against_the_data() {
        let mut json = String::new();
        for i in 0..1500 {
            json.push_str(&format!("{{\"_id\":{i},\"t\":{}}}\n", 1500 - i));
        }
        let path =
            std::env::temp_dir().join(format!("shardlab-import-{}.json.gz", std::process::id()));
        std::fs::write(&path, gzip(json.as_bytes())).unwrap();
        let p = path.to_str().unwrap();
        let run = shardlab(
            &["--import", p, "--ns", "test.events", "--sort", "t", "-"],
            "db.events.countDocuments()\ndb.events.findOne({}, {_id: 1})",
        );
        assert_eq!(
            run.stderr,
            "1500 document(s) imported successfully. 0 document(s) failed to import.\n"
        );
        assert_eq!(run.stdout, "1500\n{ _id: 1499 }\n");
        assert_eq!(run.code, 0);
        // Read in small pieces, the same.
        let small = std::process::Command::new(env!("CARGO_BIN_EXE_shardlab"))
            .args(["import", p, "--ns=test.events"])
            .env("SHARDLAB_READ_BUFFER", "7")
            .output()
            .unwrap();
        assert_eq!(
            String::from_utf8(small.stderr).unwrap(),
            "1500 document(s) imported successfully. 0 document(s) failed to import.\n"
        );
        std::fs::remove_file(&path).unwrap();
    }

    #[test]
    fn import_usage_errors() {
        let run = shardlab(&["import", "x.json"], "");
        assert_eq!(run.code, 2);
        assert!(
            run.stderr
                .starts_with("shardlab: an import needs --ns DB.COLLECTION\n"),
            "{}",
            run.stderr
        );
        let run = shardlab(&["import", "x.json", "--ns", "nodot"], "");
        assert!(
            run.stderr
                .starts_with("shardlab: --ns must be DB.COLLECTION, not 'nodot'"),
            "{}",
            run.stderr
        );
        let run = shardlab(&["import", "x.json", "--ns", "a.b", "--type", "tsv"], "");
        assert!(
            run.stderr.starts_with("shardlab: unknown --type tsv"),
            "{}",
            run.stderr
        );
        let run = shardlab(&["import", "/nonexistent/x.json", "--ns", "a.b"], "");
        assert_eq!(run.code, 2);
        assert!(
            run.stderr
                .starts_with("shardlab: cannot read /nonexistent/x.json"),
            "{}",
            run.stderr
        );
        let bad = crate::cli::ScriptFile::new("a,a\n1,2\n");
        // The script is a file: the run ends before it would read standard input.
        let script = crate::cli::ScriptFile::new("print('not run')");
        let run = shardlab(
            &[
                "--import",
                bad.path(),
                "--ns",
                "t.c",
                "--type",
                "csv",
                script.path(),
            ],
            "",
        );
        assert_eq!(run.code, 1);
        assert_eq!(run.stdout, "");
        assert_eq!(
            run.stderr,
            "Failed: fields cannot be identical: `a` and `a`\n0 document(s) imported successfully. 0 document(s) failed to import.\n"
        );
    }
}

#[test]
fn positions_count_every_byte_of_long_strings_escapes_and_brackets_in_strings() {
    // Runs of plain text, escaped quotes and backslashes, and brackets inside strings:
    // a record ends at its own closing brace, and each failure's column counts every byte
    // before it, whatever the slice size.
    let pad = "x".repeat(300);
    let text = format!(
        "{{\"s\": \"{pad}\\\"}}{{[\", \"t\": \"\\\\\"}}\n   {{\"a\": \"{pad}\", \"b\": nope}}\n[\"{pad}\"]\n{{\"u\": \"{pad}\n"
    );
    let (docs, failures) = read_sliced(text.as_bytes(), options("pos.ndjson"));
    assert_eq!(docs, vec![doc! {"s": format!("{pad}\"}}{{["), "t": "\\"}]);
    expect_test::expect![[r#"
        [
            "line 2, column 319: not valid Extended JSON: nope",
            "line 3, column 1: a document must be a JSON object, not an array",
            "line 4, column 7: SyntaxError: Unterminated string constant",
        ]
    "#]]
    .assert_debug_eq(&failures);
}
