//! The explanations (`sim.explain`), the document inspector (`sim.chunkDocs`) and the
//! key-space heat: one scenario per case, each checked against the engine's own state
//! (and, where a round is explained, against the round the balancer then runs), with the
//! sentences as snapshots. Update with `UPDATE_EXPECT=1 cargo test --test it explain`.
#![allow(clippy::unwrap_used)]

use bson::{doc, Bson};
use expect_test::{expect, Expect};
use shardlab::engine::{Chunk, Explanation, Topic};
use shardlab::sim::{key_coordinate, HeatGrid, HeatOptions, HeatPattern, PatternKind, Timeline};
use shardlab::{ClusterConfig, KeyValue, Session};

/// A session that ran `script`, every statement succeeding.
fn session(script: &str) -> Session {
    let mut s = Session::default();
    for o in s.run(script) {
        if let Err(e) = &o.result {
            panic!("{}: {e:?}", o.source);
        }
    }
    s.cluster.check().unwrap();
    s
}

/// Runs one more statement, which must succeed, and returns its printed result.
fn run(s: &mut Session, statement: &str) -> String {
    let out = s.run(statement);
    assert_eq!(out.len(), 1);
    assert!(out[0].result.is_ok(), "{statement}: {:?}", out[0].result);
    out[0].render().unwrap_or_default()
}

/// The printed error of a statement that must fail.
fn fails(s: &mut Session, statement: &str) -> String {
    let out = s.run(statement);
    assert!(out[0].result.is_err(), "{statement} succeeded");
    out[0].render().unwrap_or_default()
}

fn chunks(s: &Session, ns: &str) -> Vec<Chunk> {
    s.cluster
        .sharding(ns)
        .unwrap()
        .table
        .iter()
        .cloned()
        .collect()
}

fn key(v: impl Into<Bson>) -> KeyValue {
    KeyValue(vec![v.into()])
}

/// The explanation of `topic` in a list.
fn topic(list: &[Explanation], t: Topic) -> &Explanation {
    list.iter()
        .find(|e| e.topic == t)
        .unwrap_or_else(|| panic!("no {t:?} in {list:#?}"))
}

/// `rule: sentence`, for snapshots.
fn said(e: &Explanation) -> String {
    format!("{}: {}", e.rule, e.sentence)
}

fn check(e: &Explanation, expected: Expect) {
    expected.assert_eq(&said(e));
}

/// `n` documents `{x: <value>, pad: <40 chars>}`, in one insertMany.
fn insert(coll: &str, values: impl IntoIterator<Item = i64>) -> String {
    let docs: Vec<String> = values
        .into_iter()
        .map(|i| format!("{{x: {i}, pad: 'pppppppppppppppppppppppppppppppppppppppp'}}"))
        .collect();
    format!("db.{coll}.insertMany([{}])", docs.join(", "))
}

#[test]
fn a_chunk_below_the_split_check_threshold_waits() {
    let mut s = session(
        "sim.reset({shards: 2, version: '5.0', chunkSize: 32768})\n\
         sh.shardCollection('test.c', {x: 1})",
    );
    run(&mut s, &insert("c", 0..20));
    let c = &chunks(&s, "test.c")[0];
    let e = s.cluster.explain_chunk("test.c", &c.min).unwrap();
    let split = topic(&e, Topic::Split);
    assert_eq!(split.rule, "split-check threshold");
    // The figures are the engine's: the chunk's write tracker and a fifth of the size.
    assert_eq!(split.number("writtenSinceCheck"), Some(c.written as i64));
    assert_eq!(split.number("splitCheckThreshold"), Some(32768 / 5));
    assert!(c.written < 32768 / 5 && c.written > 0);
    assert_eq!(split.number("docs"), Some(20));
    check(split, expect!["split-check threshold: Not split yet: 5.0's splitter looks at a chunk only after a fifth of the maximum chunk size (6KiB) has been written to it since it was created, moved or last checked; 1KiB has been written since, so the next check comes after 4KiB more. Even then autoSplitVector cuts nothing while the collection's data on shard01 (1KiB) is under the maximum chunk size (32KiB)."]);
}

#[test]
fn a_chunk_of_one_key_value_has_no_split_point_then_turns_jumbo() {
    let mut s = session(
        "sim.reset({shards: 2, version: '5.0', chunkSize: 32768})\n\
         sh.shardCollection('test.c', {x: 1})",
    );
    // 100 documents of one key: about 8 KiB, checked once, no split point.
    run(&mut s, &insert("c", std::iter::repeat_n(7, 100)));
    let c = &chunks(&s, "test.c")[0];
    assert!(!c.jumbo && c.bytes < 32768);
    let e = s.cluster.explain_chunk("test.c", &key(7)).unwrap();
    let split = topic(&e, Topic::Split);
    assert_eq!(split.get("oneKeyValue"), Some(&Bson::Boolean(true)));
    assert_eq!(split.number("splitPointsNow"), Some(0));
    check(split, expect!["no split point (one key value): No split point: all 100 documents share one shard key value, and a chunk is only ever cut between different values, so autoSplitVector returns nothing."]);
    // Past the maximum size, the next check marks it jumbo.
    run(&mut s, &insert("c", std::iter::repeat_n(7, 400)));
    let c = &chunks(&s, "test.c")[0];
    assert!(c.jumbo, "{c:?}");
    let e = s.cluster.explain_chunk("test.c", &key(7)).unwrap();
    let jumbo = topic(&e, Topic::Jumbo);
    assert_eq!(jumbo.number("bytes"), Some(c.bytes as i64));
    check(jumbo, expect!["jumbo chunk: Jumbo chunk: it grew past the maximum chunk size (38KiB > 32KiB) and all of its 500 documents share one shard key value, so autoSplitVector finds no split point. The balancer does not move a jumbo chunk, not even off a draining shard, until clearJumboFlag clears the flag."]);
    check(topic(&e, Topic::Balancer), expect!["jumbo chunk: The balancer skips jumbo chunks, even on a draining shard, until clearJumboFlag clears the flag or a split divides the chunk."]);
}

#[test]
fn the_top_chunk_move_explains_a_one_document_shard() {
    let s = session(
        "sim.reset({shards: 3, version: '5.0', chunkSize: 32768})\n\
         sh.shardCollection('test.events', {x: 1})\n\
         sim.generate('test.events', 'monotonic', 1000)",
    );
    let all = chunks(&s, "test.events");
    let top = all.last().unwrap();
    // No balancer round ran, yet the top chunk left the primary shard: the splitter moved
    // it when it was new and held one document.
    assert_ne!(top.shard, s.cluster.primary_of("test.events"));
    let owner = s.cluster.shard_name(top.shard).to_string();
    let e = s.cluster.explain_shard("test.events", &owner).unwrap();
    let moves = topic(&e, Topic::TopChunk);
    // Every move into the shard of a chunk at either end, counted from the log: without
    // a balancer round or a manual move, only the splitter moves chunks.
    let logged = s
        .cluster
        .events()
        .iter()
        .filter(|ev| {
            matches!(&ev.kind, shardlab::engine::EventKind::MoveChunkCommit { min, max, to, .. }
                if *to == owner && (max.0 == vec![Bson::MaxKey] || min.0 == vec![Bson::MinKey]))
        })
        .count() as i64;
    assert!(logged > 0);
    assert_eq!(moves.number("topChunkMoves"), Some(logged));
    check(moves, expect!["top-chunk move: shard02 received 2 single-document top (or bottom) chunk(s): when 5.0 splits the chunk at either end of an ordered key, it cuts at the extreme key, so the new end chunk holds one document, and moves that chunk to the least loaded shard (the top-chunk optimisation). That is how a shard ends up holding a chunk with one document."]);
}

#[test]
fn the_50_count_balancer_explains_its_move_and_makes_it() {
    let mut s = session(
        "sim.reset({shards: 3, version: '5.0'})\n\
         sh.shardCollection('test.c', {x: 1})\n\
         sh.splitAt('test.c', {x: 10})\n\
         sh.splitAt('test.c', {x: 20})\n\
         sh.splitAt('test.c', {x: 30})\n\
         sh.splitAt('test.c', {x: 40})\n\
         sh.splitAt('test.c', {x: 50})",
    );
    let e = s.cluster.explain_round(Some("test.c")).unwrap();
    let first = &e[0];
    assert_eq!(first.rule, "5.0 chunk-count balancing");
    // Six chunks on shard01: the ideal is round(6 / 3) = 2.
    assert_eq!(chunks(&s, "test.c").len(), 6);
    assert_eq!(first.number("ideal"), Some(2));
    let loads = first.get("loads").unwrap().as_document().unwrap().clone();
    assert_eq!(loads, doc! {"shard01": 6, "shard02": 0, "shard03": 0});
    check(first, expect!["5.0 chunk-count balancing: The 5.0 balancer compares chunk counts of the chunks in no zone: the ideal is round(6 chunks / 3 shards) = 2; the most loaded shard, shard01 (6 chunks), is above it and the least loaded, shard02 (0 chunks), below, so a chunk moves."]);
    // The round does what the explanation said.
    let moves = first.get("moves").cloned().unwrap();
    let to = first.get("recipient").cloned().unwrap();
    let out = run(&mut s, "sim.balance('test.c')");
    let migrated = s
        .cluster
        .sharding("test.c")
        .unwrap()
        .table
        .iter()
        .find(|c| Bson::Document(doc! {"x": c.min.0[0].clone()}) == moves)
        .map(|c| s.cluster.shard_name(c.shard).to_string());
    assert_eq!(migrated.map(Bson::String), Some(to), "{out}");
    // Balanced after enough rounds: the explanation says so.
    for _ in 0..5 {
        run(&mut s, "sim.balance('test.c')");
    }
    let e = s.cluster.explain_round(Some("test.c")).unwrap();
    check(&e[0], expect!["5.0 chunk-count balancing: The 5.0 balancer compares chunk counts of the chunks in no zone: the ideal is round(6 chunks / 3 shards) = 2, and the most loaded shard, shard01 (2 chunks), is not above it, so the collection counts as balanced."]);
}

#[test]
fn the_80_data_size_balancer_leaves_everything_on_one_shard() {
    let mut s = session(
        "sim.reset({shards: 4, version: '8.0'})\n\
         sh.shardCollection('test.events', {x: 1})\n\
         sim.generate('test.events', 'monotonic', 3000)",
    );
    let all = chunks(&s, "test.events");
    assert_eq!(all.len(), 1, "8.0 does not split on insert");
    let bytes = all[0].bytes as i64;
    let e = s.cluster.explain_shard("test.events", "shard01").unwrap();
    let holding = topic(&e, Topic::Holding);
    assert_eq!(holding.rule, "8.0 data-size balancing");
    assert_eq!(holding.number("bytes"), Some(bytes));
    assert_eq!(
        holding.number("threshold"),
        Some(3 * s.cluster.chunk_size() as i64)
    );
    check(holding, expect!["8.0 data-size balancing: shard01 holds 1 of 1 chunk (3000 documents, 454KiB). The 8.0 balancer compares data size, not chunk counts: shard01 (454KiB) and shard02 (0B) differ by 454KiB, under 3 × the range size (384MiB), so nothing moves. In 6.0.3+ chunks never split on insert, and one range may grow to 128MiB before the balancer cuts it: a sharded collection can sit whole on one shard."]);
    let split = topic(
        &s.cluster.explain_chunk("test.events", &key(5)).unwrap(),
        Topic::Split,
    )
    .clone();
    check(&split, expect!["no auto-split (6.0.3+): MongoDB 6.0.3 and later never split a chunk as it grows: this one holds 454KiB against a range size of 128MiB, and stays whole until the balancer cuts about one range size off it to move it."]);
    // And the balancer indeed moves nothing.
    let out = run(&mut s, "sim.balance()");
    assert!(out.contains("migrations: []"), "{out}");
    assert_eq!(chunks(&s, "test.events").len(), 1);
}

#[test]
fn zones_explain_the_move_into_the_zone() {
    let mut s = session(
        "sim.reset({shards: 3, version: '5.0'})\n\
         sh.shardCollection('test.c', {x: 1})\n\
         sh.splitAt('test.c', {x: 100})\n\
         sh.addShardToZone('shard03', 'hot')\n\
         sh.updateZoneKeyRange('test.c', {x: 100}, {x: MaxKey()}, 'hot')",
    );
    let e = s.cluster.explain_round(Some("test.c")).unwrap();
    let zone = e.iter().find(|x| x.rule == "zones").unwrap();
    assert_eq!(zone.get("to"), Some(&Bson::String("shard03".into())));
    check(zone, expect!["zones: [{ x: 100 }, { x: MaxKey() }) lies in zone hot's range but sits on shard01, which is not in the zone: the balancer moves it to shard03, a shard of the zone, before any other balancing."]);
    let shard = s.cluster.explain_shard("test.c", "shard03").unwrap();
    check(topic(&shard, Topic::Zones), expect!["zones: shard03 is in zone(s) hot: chunks inside those zones' ranges may live only on their shards, and each zone is balanced over its own shards; 0 of its chunks lie in a zone range."]);
    run(&mut s, "sim.balance('test.c')");
    let c = s
        .cluster
        .sharding("test.c")
        .unwrap()
        .table
        .chunk_for(&key(100))
        .cloned()
        .unwrap();
    assert_eq!(s.cluster.shard_name(c.shard), "shard03");
}

#[test]
fn a_draining_shard_is_explained_and_emptied_as_said() {
    let mut s = session(
        "sim.reset({shards: 3, version: '5.0'})\n\
         sh.shardCollection('test.c', {x: 1})\n\
         sh.splitAt('test.c', {x: 10})\n\
         sh.splitAt('test.c', {x: 20})\n\
         sh.moveChunk('test.c', {x: 10}, 'shard02')\n\
         sh.moveChunk('test.c', {x: 20}, 'shard02')\n\
         db.adminCommand({removeShard: 'shard02'})",
    );
    let on_02 = chunks(&s, "test.c")
        .iter()
        .filter(|c| s.cluster.shard_name(c.shard) == "shard02")
        .count() as i64;
    assert_eq!(on_02, 2);
    let e = s.cluster.explain_shard("test.c", "shard02").unwrap();
    let draining = topic(&e, Topic::Draining);
    assert_eq!(draining.number("chunks"), Some(on_02));
    check(draining, expect!["draining: removeShard started draining shard02: each round the balancer first moves one of its chunks to the least loaded shard that may take it, skipping jumbo chunks; 2 chunk(s) remain, 0 of them jumbo (they stay until clearJumboFlag clears the flag), and it leaves the cluster once it holds none."]);
    let round = s.cluster.explain_round(Some("test.c")).unwrap();
    assert_eq!(round[0].rule, "draining");
    check(&round[0], expect!["draining: shard02 is draining (removeShard): the balancer empties it first, one chunk per round, skipping jumbo chunks, to the least loaded shard; [{ x: 10 }, { x: 20 }) goes to shard03 (2 chunk(s) were left on it)."]);
    let to = round[0].get("to").cloned().unwrap();
    let moves = round[0].get("moves").cloned().unwrap();
    run(&mut s, "sim.balance('test.c')");
    let c = chunks(&s, "test.c")
        .into_iter()
        .find(|c| Bson::Document(doc! {"x": c.min.0[0].clone()}) == moves)
        .unwrap();
    assert_eq!(Bson::String(s.cluster.shard_name(c.shard).into()), to);
}

#[test]
fn a_hashed_document_lands_where_its_hash_says() {
    let mut s = session(
        "sim.reset({shards: 4, version: '8.0'})\n\
         sh.shardCollection('test.h', {_id: 'hashed'})",
    );
    let landing = s
        .cluster
        .explain_document("test.h", &doc! {"_id": 42, "a": 1})
        .unwrap();
    let hash = shardlab::convert_shard_key_to_hashed(&Bson::Int32(42));
    assert_eq!(
        landing.hashed,
        Some(("_id".to_string(), Bson::Int32(42), hash))
    );
    // The shell's convertShardKeyToHashed agrees.
    assert_eq!(
        run(&mut s, "convertShardKeyToHashed(42)"),
        format!("Long('{hash}')")
    );
    assert!(landing.chunk_min <= key(hash) && key(hash) < landing.chunk_max);
    // The document then goes exactly there.
    run(&mut s, "db.h.insertOne({_id: 42, a: 1})");
    let c = s
        .cluster
        .sharding("test.h")
        .unwrap()
        .table
        .chunk_for(&key(hash))
        .cloned()
        .unwrap();
    assert_eq!((c.shard, c.docs), (landing.shard, 1));
    check(&landing.explanation, expect!["hashed routing: Its _id 42 hashes to Long('-944302157085130861') (convertShardKeyToHashed: the first 8 bytes of an MD5 of the value, read as a signed 64-bit integer). A hashed key's chunks are ranges of hashes, and [{ _id: Long('-4611686018427387902') }, { _id: Long('0') }) (min included, max excluded) holds that hash, on shard02, so mongos routes the document to shard02."]);
    let shown = run(&mut s, "sim.explain({ns: 'test.h', doc: {_id: 42}})");
    assert!(shown.contains(&format!("hash: Long('{hash}')")), "{shown}");
}

#[test]
fn the_inspector_pages_a_chunk_in_key_order() {
    let mut s = session(
        "sim.reset({shards: 2, version: '8.0'})\n\
         sh.shardCollection('test.h', {k: 'hashed'})",
    );
    let docs: Vec<String> = (0..300)
        .map(|i| format!("{{_id: {i}, k: {}}}", i % 150))
        .collect();
    run(&mut s, &format!("db.h.insertMany([{}])", docs.join(", ")));
    let first = chunks(&s, "test.h")[0].clone();
    let page = s
        .cluster
        .chunk_documents("test.h", &first.min, 10, 25)
        .unwrap();
    assert_eq!(page.total, first.docs);
    assert_eq!(page.rows.len(), 25);
    // Key order, each hash the hash of the value shown beside it.
    for w in page.rows.windows(2) {
        assert!(w[0].key <= w[1].key);
    }
    for r in &page.rows {
        let v = r.hashed_value.clone().unwrap();
        assert_eq!(
            r.key.0[0],
            Bson::Int64(shardlab::convert_shard_key_to_hashed(&v))
        );
    }
    // Pages join up: the whole chunk, a page at a time, is every document once.
    let mut seen = Vec::new();
    let mut skip = 0;
    loop {
        let p = s
            .cluster
            .chunk_documents("test.h", &first.min, skip, 40)
            .unwrap();
        if p.rows.is_empty() {
            break;
        }
        skip += p.rows.len() as u64;
        seen.extend(p.rows.into_iter().map(|r| r.id));
    }
    assert_eq!(seen.len() as u64, first.docs);
    let shown = run(
        &mut s,
        "sim.chunkDocs('test.h', {k: MinKey()}, {skip: 0, limit: 2})",
    );
    assert!(shown.contains("hash: Long("), "{shown}");
    // Hostile input answers in MongoDB's words.
    let errors = [
        "sim.chunkDocs('test.h', {k: MinKey()}, {limit: 100000})",
        "sim.chunkDocs('test.h', {k: MinKey()}, {skip: -5})",
        "sim.chunkDocs('test.h', {k: MinKey()}, {skip: 'x'})",
        "sim.chunkDocs('test.h', {k: MinKey()}, {bogus: 1})",
        "sim.chunkDocs('test.h', {zz: 1})",
        "sim.chunkDocs('test.nope', {k: 1})",
        "sim.explain({ns: 'test.h'})",
        "sim.explain({ns: 'test.h', chunk: {k: 1}, shard: 'shard01'})",
        "sim.explain({ns: 'test.h', shard: 'shard99'})",
        "sim.explain({ns: 'test.h', doc: {k: [1, 2]}})",
        "sim.explain({balancer: 1})",
        "sim.explain(5)",
    ];
    let printed: Vec<String> = errors.iter().map(|e| fails(&mut s, e)).collect();
    expect![[r#"
        MongoServerError[BadValue]: limit must be between 0 and 1000, got 100000
        MongoServerError[BadValue]: skip must not be negative, got -5
        MongoServerError[BadValue]: skip must be a whole number, got 'x'
        MongoServerError[InvalidOptions]: unknown option 'bogus': sim.chunkDocs takes {skip, limit}
        MongoServerError[BadValue]: Bound { zz: 1 } is not valid for shard key pattern { k: "hashed" }
        MongoServerError[NamespaceNotSharded]: Collection test.nope is not sharded.
        MongoServerError[InvalidOptions]: give exactly one subject: sim.explain takes {ns, chunk: <key>}, {ns, shard: <name>}, {ns, doc: <document>} or {balancer: true, ns?}
        MongoServerError[InvalidOptions]: give exactly one subject: sim.explain takes {ns, chunk: <key>}, {ns, shard: <name>}, {ns, doc: <document>} or {balancer: true, ns?}
        MongoServerError[ShardNotFound]: shard shard99 does not exist
        MongoServerError[ShardKeyNotFound]: Shard key cannot contain array values or array descendants.
        MongoServerError[InvalidOptions]: balancer must be true: sim.explain takes {ns, chunk: <key>}, {ns, shard: <name>}, {ns, doc: <document>} or {balancer: true, ns?}
        TypeError: explain spec must be an object, got 5"#]].assert_eq(&printed.join("\n"));
    let far = s
        .cluster
        .chunk_documents("test.h", &first.min, u64::MAX, 1000)
        .unwrap();
    assert!(far.rows.is_empty());
}

#[test]
fn the_latest_insert_lands_and_is_found_in_its_chunk() {
    let mut s = session(
        "sim.reset({shards: 3, version: '5.0'})\n\
         sh.shardCollection('test.r', {x: 1})",
    );
    assert!(s.cluster.latest_landing("test.r").is_none());
    run(&mut s, &insert("r", 0..200));
    // Several documents share a key value: the newest one is found, not its elders.
    run(&mut s, "db.r.insertOne({_id: 'newest', x: 7})");
    let (seq, landing) = s.cluster.latest_landing("test.r").unwrap();
    let landing = landing.unwrap();
    assert_eq!(landing.key, key(7));
    assert_eq!(seq, 200);
    let explained = s
        .cluster
        .explain_document("test.r", &doc! {"_id": "newest", "x": 7})
        .unwrap();
    assert_eq!(landing, explained);
    // Its position in its chunk is where the inspector shows it, with its insertion number.
    let (min, at) = s.cluster.document_position("test.r", &key(7), seq).unwrap();
    assert_eq!(min, landing.chunk_min);
    let page = s.cluster.chunk_documents("test.r", &min, at, 1).unwrap();
    assert_eq!(page.rows[0].id, Bson::String("newest".into()));
    assert_eq!(page.rows[0].seq, seq);
    // The document with the same key inserted before it sits just before it.
    let before = s
        .cluster
        .chunk_documents("test.r", &min, at - 1, 1)
        .unwrap();
    assert_eq!(before.rows[0].key, key(7));
    assert!(matches!(before.rows[0].id, Bson::ObjectId(_)));
    assert!(before.rows[0].seq < seq);
    // A number that was never stored, or a key it was not stored under, is not found.
    assert!(s
        .cluster
        .document_position("test.r", &key(7), 999)
        .is_none());
    assert!(s
        .cluster
        .document_position("test.r", &key(8), seq)
        .is_none());
    // Once the newest document is deleted there is nothing to show.
    run(&mut s, "db.r.deleteOne({_id: 'newest'})");
    assert!(s.cluster.latest_landing("test.r").is_none());
    assert!(s.cluster.latest_landing("test.nope").is_none());
}

#[test]
fn the_page_builds_its_insert_from_the_key() {
    use shardlab::workload::presets::{example_document, insert_one_command};
    let mut s = session(
        "sim.reset({shards: 2})\n\
         sh.shardCollection('test.c', {customer: 1, 'a.b': 'hashed'})",
    );
    let pattern = s.cluster.sharding("test.c").unwrap().pattern.clone();
    let doc = example_document(&pattern, |_| None);
    assert_eq!(doc, "{customer: 42, a: {b: 42}}");
    // With documents, the values are theirs, of each field's own type.
    let typed = example_document(&pattern, |f| {
        (f == "customer").then(|| bson::Bson::String("acme".into()))
    });
    assert_eq!(typed, "{customer: 'acme', a: {b: 42}}");
    // The command inserts exactly that document, wherever the shell's database is.
    run(&mut s, "use other");
    run(&mut s, &insert_one_command("test.c", &doc));
    let (_, landing) = s.cluster.latest_landing("test.c").unwrap();
    let landing = landing.unwrap();
    assert_eq!(landing.key.0[0], Bson::Int32(42));
    assert_eq!(
        landing.hashed.map(|(f, v, _)| (f, v)),
        Some(("a.b".to_string(), Bson::Int32(42)))
    );
    // A namespace with quotes stays one string literal.
    let odd = insert_one_command("we\"ird.c\"); db.x.drop(", "{a: 1}");
    assert_eq!(
        odd,
        r#"db.getSiblingDB("we\"ird").getCollection("c\"); db.x.drop(").insertOne({a: 1})"#
    );
}

/// A timeline of `batches` steps of `sim.generate(ns, workload, per)` after `setup`.
fn heat_timeline(setup: &[&str], ns: &str, workload: &str, batches: usize, per: u32) -> Timeline {
    let mut t = Timeline::new(ClusterConfig::default());
    for s in setup {
        let out = t.push(s);
        assert!(out.iter().all(|o| o.result.is_ok()), "{s}: {out:?}");
    }
    for _ in 0..batches {
        t.push(&format!("sim.generate('{ns}', '{workload}', {per})"));
    }
    t
}

/// The stored documents of `ns` counted per row of `grid`, from their keys: what the
/// grid's rows must add up to when nothing was deleted.
fn docs_per_row(t: &Timeline, ns: &str, grid: &HeatGrid) -> Vec<u64> {
    let cluster = &t.session().cluster;
    let pattern = &cluster.sharding(ns).unwrap().pattern;
    let span = (grid.axis.1 - grid.axis.0) as f64 + 1.0;
    let mut rows = vec![0u64; grid.rows.len()];
    for (k, _, _) in cluster.collection(ns).unwrap().entries() {
        let p = key_coordinate(pattern, &k).clamp(grid.axis.0, grid.axis.1);
        let f = (p - grid.axis.0) as f64 / span;
        let n = rows.len();
        rows[((f * n as f64) as usize).min(n - 1)] += 1;
    }
    rows
}

fn figures(p: &HeatPattern) -> String {
    let mut out = format!("{}: {}\n", p.name, p.sentence);
    for (name, v) in &p.figures {
        out.push_str(&format!("{name} = {v:.3}\n"));
    }
    out
}

#[test]
fn the_heat_of_a_monotonic_key_is_a_hot_edge() {
    let t = heat_timeline(
        &[
            "sim.reset({shards: 3, version: '5.0', chunkSize: 32768})",
            "sh.shardCollection('test.events', {x: 1})",
        ],
        "test.events",
        "monotonic",
        40,
        25,
    );
    let grid = t
        .heat_grid(
            "test.events",
            HeatOptions {
                rows: 32,
                columns: 64,
                ..HeatOptions::default()
            },
        )
        .unwrap();
    assert_eq!(grid.columns as u64, t.len());
    // Every insert is in the grid, in the row its key is in.
    let rows: Vec<u64> = grid.rows.iter().map(|r| r.inserts.round() as u64).collect();
    assert_eq!(rows, docs_per_row(&t, "test.events", &grid));
    assert_eq!(rows.iter().sum::<u64>(), 1000);
    // Each step's heat sits at the top of what was there: the last step's in the top row.
    let last = grid.columns as usize - 1;
    assert!(
        grid.cell(31, last) >= 25.0 - 0.01,
        "{}",
        grid.cell(31, last)
    );
    let p = t.heat_pattern("test.events");
    assert_eq!(p.kind, PatternKind::HotEdge { max_side: true });
    expect![[r#"
        hot edge: Hot edge: 100% of the inserts after the first step went above every earlier key, so they all hit the chunk at the MaxKey end of the key space: the sign of a monotonic shard key, whose writes one shard takes at a time.
        inserts = 1000.000
        steps = 40.000
        maxSideShare = 1.000
        minSideShare = 0.000
        hottestShare = 0.500
        hottestWidth = 0.500
        persistence = 0.500
        evenness = 1.000
    "#]].assert_eq(&figures(&p));
}

#[test]
fn the_heat_of_a_hashed_key_is_even() {
    let t = heat_timeline(
        &[
            "sim.reset({shards: 4, version: '5.0'})",
            "sh.shardCollection('test.h', {_id: 'hashed'})",
        ],
        "test.h",
        "hashedId",
        40,
        50,
    );
    let grid = t
        .heat_grid(
            "test.h",
            HeatOptions {
                rows: 32,
                columns: 40,
                ..HeatOptions::default()
            },
        )
        .unwrap();
    assert!(grid.hashed);
    assert_eq!(grid.axis, (0, u64::MAX));
    let rows: Vec<u64> = grid.rows.iter().map(|r| r.inserts.round() as u64).collect();
    assert_eq!(rows, docs_per_row(&t, "test.h", &grid));
    // The strip of shards follows the chunks: each row's shard owns its middle.
    let s = t.session().cluster.sharding("test.h").unwrap();
    for row in &grid.rows {
        let mid = (row.lo / 2 + row.hi / 2) as i64 ^ i64::MIN;
        let owner = s
            .table
            .chunk_for(&KeyValue(vec![Bson::Int64(mid)]))
            .unwrap()
            .shard;
        assert_eq!(row.shard, owner);
    }
    let p = t.heat_pattern("test.h");
    assert_eq!(p.kind, PatternKind::Even);
    expect![[r#"
        even: Even: inserts spread over the whole key space (evenness 1.00 of 1), as a hashed key or random values spread them, so every chunk's shard shares the writes.
        inserts = 2000.000
        steps = 40.000
        maxSideShare = 0.003
        minSideShare = 0.001
        hottestShare = 0.507
        hottestWidth = 0.500
        persistence = 0.525
        evenness = 0.998
    "#]].assert_eq(&figures(&p));
}

#[test]
fn the_heat_of_a_zipf_key_is_a_band() {
    let t = heat_timeline(
        &[
            "sim.reset({shards: 3, version: '5.0', chunkSize: 65536})",
            "sh.shardCollection('test.z', {x: 1})",
        ],
        "test.z",
        "zipf",
        40,
        50,
    );
    let grid = t
        .heat_grid(
            "test.z",
            HeatOptions {
                rows: 32,
                columns: 40,
                ..HeatOptions::default()
            },
        )
        .unwrap();
    let rows: Vec<u64> = grid.rows.iter().map(|r| r.inserts.round() as u64).collect();
    assert_eq!(rows, docs_per_row(&t, "test.z", &grid));
    let p = t.heat_pattern("test.z");
    assert_eq!(p.kind, PatternKind::Band);
    expect![[r#"
        band: Band: 3% of the key space takes 65% of the inserts, in 100% of the steps: a hot value (or tenant) whose documents share a range, and whose chunk's shard takes most writes.
        inserts = 2000.000
        steps = 40.000
        maxSideShare = 0.002
        minSideShare = 0.000
        hottestShare = 0.649
        hottestWidth = 0.031
        persistence = 1.000
        evenness = 0.471
    "#]].assert_eq(&figures(&p));
}

#[test]
fn large_steps_count_every_insert_and_forks_forget_theirs() {
    let mut t = heat_timeline(
        &[
            "sim.reset({shards: 3, version: '5.0', chunkSize: 32768})",
            "sh.shardCollection('test.events', {x: 1})",
        ],
        "test.events",
        "monotonic",
        6,
        2000,
    );
    let grid = t
        .heat_grid(
            "test.events",
            HeatOptions {
                rows: 16,
                columns: 8,
                ..HeatOptions::default()
            },
        )
        .unwrap();
    let total: f64 = grid.rows.iter().map(|r| r.inserts).sum();
    assert_eq!(total.round() as u64, 12_000);
    assert_eq!(
        t.heat_pattern("test.events").kind,
        PatternKind::HotEdge { max_side: true }
    );
    // Back two steps and a new branch: the dropped steps' heat goes with them.
    t.jump(t.len() - 2).unwrap();
    t.push("db.events.insertOne({x: -5})");
    let grid = t
        .heat_grid(
            "test.events",
            HeatOptions {
                rows: 16,
                columns: 8,
                ..HeatOptions::default()
            },
        )
        .unwrap();
    let total: f64 = grid.rows.iter().map(|r| r.inserts).sum();
    assert_eq!(total.round() as u64, 8_001);
    assert!(t.heat_grid("test.nope", HeatOptions::default()).is_none());
}
