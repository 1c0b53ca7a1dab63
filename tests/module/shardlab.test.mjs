// The JavaScript module (dist/shardlab.js) in Node, in-thread: every method, mistakes as
// values, and the same text as the `shardlab` CLI for the same script, byte for byte.
// Needs the built site (trunk build) and builds the CLI if need be.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { tmpdir } from 'node:os';
import { pathToFileURL } from 'node:url';

const root = resolve(import.meta.dirname, '..', '..');
const dist = resolve(root, process.env.SHARDLAB_DIST ?? 'dist');
const target = resolve(root, process.env.CARGO_TARGET_DIR ?? 'target');
let ShardLab;
let cli;

before(async () => {
  const module = join(dist, 'shardlab.js');
  assert.ok(existsSync(module), `${module} is missing: build the site first (trunk build)`);
  ({ ShardLab } = await import(pathToFileURL(module).href));
  const built = spawnSync('cargo', ['build', '--offline', '--quiet', '--bin', 'shardlab'], { cwd: root, stdio: 'inherit' });
  assert.equal(built.status, 0, 'the CLI builds');
  cli = join(target, 'debug', 'shardlab');
});

/** What the CLI prints for `script`. */
function cliPrints(script) {
  const file = join(mkdtempSync(join(tmpdir(), 'shardlab-module-')), 'script.js');
  writeFileSync(file, script);
  const r = spawnSync(cli, [file], { encoding: 'utf8' });
  assert.equal(r.stderr, '');
  return r.stdout;
}

// The CLI's cluster: three shards, 5.0's behaviour, seed 1.
const AS_CLI = { shards: 3, version: '5.0', seed: 1 };

const SCRIPT = `sh.enableSharding("test")
sh.shardCollection("test.users", {uid: 1})
for (let i = 0; i < 3; i++) print("row " + i)
db.users.insertMany([{uid: 1, big: NumberLong("9007199254740993"), d: NumberDecimal("0.1"), at: ISODate("2024-05-06T07:08:09Z")}, {uid: 2, o: ObjectId("65a1b2c3d4e5f60718293a4b")}])
db.users.find({}, {_id: 0}).sort({uid: 1})
db.users.insertOne({uid: 1, _id: db.users.findOne({uid: 1})._id})
db.users.countDocuments()
sh.status()
nope.nothing
let = 3
"done"
`;

test('run: one entry per statement, printed as the CLI prints it, byte for byte', async () => {
  const s = await ShardLab.session(AS_CLI);
  const entries = await s.run(SCRIPT);
  assert.equal(entries.map((e) => e.printed).join(''), cliPrints(SCRIPT));
  assert.deepEqual(entries[0].value, { ok: 1 });
  assert.equal(entries[2].printed, 'row 0\nrow 1\nrow 2\n');
  const docs = entries[4].value;
  assert.deepEqual(docs[0], {
    uid: 1, big: { $numberLong: '9007199254740993' }, d: { $numberDecimal: '0.1' },
    at: { $date: '2024-05-06T07:08:09.000Z' },
  });
  assert.deepEqual(docs[1], { uid: 2, o: { $oid: '65a1b2c3d4e5f60718293a4b' } });
  assert.equal(entries.at(-1).value, 'done');
  s.dispose();
});

test('mistakes in the script are values, with MongoDB\'s code and the line', async () => {
  const s = await ShardLab.session(AS_CLI);
  const entries = await s.run(SCRIPT);
  const failed = entries.filter((e) => !e.ok);
  assert.deepEqual(failed.map((e) => [e.error.codeName, e.error.line]), [
    ['DuplicateKey', 6], ['ReferenceError', 9], ['SyntaxError', 10],
  ]);
  assert.equal(failed[0].error.code, 11000);
  assert.match(failed[0].error.errmsg, /^E11000 duplicate key error/);
  assert.equal('value' in failed[0], false);
  assert.match(failed[2].printed, /^SyntaxError: /);
  // The session goes on after them.
  const [count] = await s.run('db.users.countDocuments()');
  assert.deepEqual(count, { ok: true, value: 2, printed: '2\n', step: 2 });
  s.dispose();
});

test('run with each: a step per statement, to step through', async () => {
  const s = await ShardLab.session({ seed: 2 });
  const entries = await s.run('db.c.insertOne({_id: 1})\ndb.c.insertOne({_id: 2})\ndb.c.countDocuments()', { each: true });
  assert.deepEqual(entries.map((e) => e.step), [1, 2, 3]);
  assert.deepEqual(await s.goto(1), { position: 1, length: 3 });
  assert.equal((await s.cluster('test.c')).docs, 1);
  assert.deepEqual(await s.step(1), { position: 2, length: 3 });
  assert.equal((await s.cluster('test.c')).docs, 2);
  assert.deepEqual(await s.step(-5), { position: 0, length: 3 });
  s.dispose();
});

test('cluster: shards, their chunks and zones as plain objects', async () => {
  const s = await ShardLab.session({ shards: 2, version: '5.0', seed: 1, chunkSize: 65536 });
  await s.run(`sh.shardCollection("test.events", {x: 1})
sh.addShardToZone("shard01", "hot")
sim.generate("test.events", "monotonic", 8000)`);
  const c = await s.cluster('test.events');
  assert.equal(c.ns, 'test.events');
  assert.equal(c.key, '{ x: 1 }');
  assert.equal(c.docs, 8000);
  assert.equal(c.shards.length, 2);
  assert.deepEqual(c.shards.map((sh) => sh.zones), [['hot'], []]);
  const chunks = c.shards.flatMap((sh) => sh.chunks);
  assert.equal(chunks.length, c.chunks);
  assert.ok(c.chunks > 1, 'the chunks split');
  assert.equal(chunks.reduce((n, ch) => n + ch.docs, 0), 8000);
  assert.equal('kind' in c, false);
  // The collection last touched, when none is named.
  assert.equal((await s.cluster()).ns, 'test.events');
  s.dispose();
});

test('events: the log after an event, oldest first', async () => {
  const s = await ShardLab.session({ shards: 2, version: '5.0', seed: 1, chunkSize: 65536 });
  await s.run('sh.shardCollection("test.events", {x: 1}); sim.generate("test.events", "monotonic", 8000)');
  const all = await s.events(0, { ns: 'test.events' });
  assert.ok(all.length > 1);
  assert.ok(all.some((e) => e.kind === 'split'), JSON.stringify(all.slice(0, 3)));
  assert.deepEqual(all.map((e) => e.seq), [...all.map((e) => e.seq)].sort((a, b) => a - b));
  const later = await s.events(all[0].seq, { ns: 'test.events' });
  assert.deepEqual(later, all.slice(1));
  s.dispose();
});

test('analyze: a candidate key on a copy; a bad key is a value too', async () => {
  const s = await ShardLab.session({ shards: 2, seed: 1 });
  await s.run('sh.shardCollection("test.events", {x: 1}); sim.generate("test.events", "monotonic", 8000)');
  const r = await s.analyze('test.events', { x: 1 });
  assert.equal(r.ok, true, JSON.stringify(r));
  assert.equal(r.value.keyCharacteristics.numDocsTotal, 8000);
  assert.match(r.printed, /keyCharacteristics/);
  const missing = await s.analyze('test.nowhere', '{y: 1}');
  assert.equal(missing.ok, false);
  assert.equal(typeof missing.error.codeName, 'string');
  // Not a key at all: the engine refuses the request.
  await assert.rejects(s.analyze('test.events', '{x: 1}); sim.reset(); ({'), { name: 'ShardLabError', codeName: 'BadValue' });
  assert.equal((await s.cluster('test.events')).docs, 8000, 'the session is as it was');
  s.dispose();
});

test('heat, inspect and compare: the panels\' answers, read from the session', async () => {
  const s = await ShardLab.session({ shards: 2, seed: 1, version: '5.0', chunkSize: 65536 });
  await s.run('sh.shardCollection("test.events", {x: 1})\nsim.generate("test.events", "monotonic", 3000)\nsim.generate("test.events", "monotonic", 3000)', { each: true });
  const heat = await s.heat('test.events', { rows: 8, columns: 4 });
  assert.equal(heat.rowShards.length, 8);
  assert.equal(heat.cells.length, 8 * heat.columns);
  assert.equal(Math.round(heat.cells.reduce((a, b) => a + b, 0)), 6000, 'every insert is in a cell');
  assert.equal(heat.maxCell, Math.max(...heat.cells));
  const picture = await s.cluster('test.events');
  const top = picture.shards.flatMap((x) => x.chunks).find((c) => c.isMax);
  const seen = await s.inspect('test.events', { kind: 'chunk', key: top.key });
  assert.equal(seen.chunk.ok, true);
  assert.equal(seen.chunk.value.max, top.max);
  assert.equal(seen.chunk.value.total, top.docs);
  const shard = await s.inspect('test.events', { kind: 'shard', shard: 'shard01' });
  assert.ok(shard.explanations.value.length > 0);
  assert.match(shard.explanations.value[0].sentence, /shard01/);
  await assert.rejects(s.inspect('test.events', { kind: 'everything' }), { name: 'ShardLabError', codeName: 'BadValue' });
  const spec = { columns: [{ key: '{x: 1}', version: '8.0' }, { key: '{x: "hashed"}', version: '8.0' }], workload: 'monotonic', batch: 25, ticks: 20, chunkSize: 32768 };
  const rows = await s.compare(spec);
  assert.deepEqual(rows.map((r) => r.insertsPerShard.reduce((a, [, n]) => a + n, 0)), [500, 500]);
  assert.ok(rows[0].hottestShardShare > rows[1].hottestShardShare);
  await assert.rejects(s.compare({ ...spec, columns: [{ key: '{x: "hashed", y: "hashed"}', version: '8.0' }] }),
    { name: 'ShardLabError', message: /can contain at most one 'hashed' field/ });
  // Left out, the batch and the chunk size are the engine's defaults: the same rows.
  const { batch: _batch, chunkSize: _chunkSize, ...defaults } = spec;
  assert.deepEqual(await s.compare(defaults), rows, 'batch 25 and 32 KiB chunks by default');
  assert.equal((await s.cluster('test.events')).docs, 6000, 'comparing leaves the session as it was');
  s.dispose();
});

test('toLink: the site beside the module, opening this session', async () => {
  const s = await ShardLab.session({ shards: 2, seed: 4 });
  await s.run('sh.shardCollection("test.t", {a: "hashed"})');
  const link = new URL(await s.toLink({ site: 'https://docs.example/shardlab/' }));
  assert.equal(link.origin + link.pathname, 'https://docs.example/shardlab/');
  const text = new URLSearchParams(link.hash.slice(1)).get('s');
  assert.match(text, /^v\d+\./);
  // The link opens the same cluster.
  const again = await ShardLab.session({ scenario: text });
  assert.deepEqual(await again.cluster('test.t'), await s.cluster('test.t'));
  // By default, the site the module was loaded from.
  assert.ok((await s.toLink()).startsWith(`${pathToFileURL(dist).href}/#s=v`));
  s.dispose();
  again.dispose();
});

test('on: listeners hear runs and saves until they unsubscribe', async () => {
  const s = await ShardLab.session();
  const runs = [];
  const saves = [];
  const stop = s.on('run', (d) => runs.push(d));
  s.on('save', (d) => saves.push(d));
  await s.run('1; 2');
  stop();
  await s.run('3');
  assert.equal(runs.length, 1);
  assert.deepEqual(runs[0].statements.map((e) => e.value), [1, 2]);
  assert.equal(saves.length, 2);
  assert.match(saves[1].text, /^v\d+\./);
  assert.throws(() => s.on('run', 'not a function'), TypeError);
  s.dispose();
});

test('sessions do not share state; dispose ends one; only misuse throws', async () => {
  const a = await ShardLab.session({ seed: 1 });
  const b = await ShardLab.session({ seed: 1 });
  await a.run('db.c.insertOne({x: 1})');
  assert.deepEqual((await b.run('db.c.countDocuments()'))[0].value, 0);
  assert.deepEqual((await a.run('db.c.countDocuments()'))[0].value, 1);
  await assert.rejects(a.run(42), TypeError);
  a.dispose();
  a.dispose();
  assert.equal(a.disposed, true);
  await assert.rejects(a.run('1'), { name: 'ShardLabError', codeName: 'NoSuchSession', code: 206 });
  await assert.rejects(a.cluster(), { codeName: 'NoSuchSession', code: 206 });
  b[Symbol.dispose ?? Symbol.for('Symbol.dispose')]();
  await assert.rejects(b.run('1'), { codeName: 'NoSuchSession', code: 206 });
  // Options the engine refuses reject the session, in MongoDB's words.
  await assert.rejects(ShardLab.session({ shards: 0 }), { codeName: 'BadValue', message: /1 to 64 shards/ });
  await assert.rejects(ShardLab.session({ version: '9.9' }), { codeName: 'BadValue' });
  await assert.rejects(ShardLab.session({ shards: 'three' }), { codeName: 'BadValue' });
  const hello = await ShardLab.hello();
  assert.equal(hello.version, ShardLab.protocol);
  assert.ok(['run', 'frame', 'analyze', 'open', 'close'].every((m) => hello.methods.includes(m)));
  assert.ok(!['evaluate', 'cluster', 'hello', 'link'].some((m) => hello.methods.includes(m)), "version 2's overlapping methods are gone");
  // The engine names sessions: two sessions, two handles, neither chosen by the caller.
  const c = await ShardLab.session();
  const d = await ShardLab.session();
  assert.match(c.name, /^s\d+$/);
  assert.notEqual(c.name, d.name);
  c.dispose();
  d.dispose();
});

test('the element is safe to import where there is no DOM (static-site rendering)', async () => {
  assert.equal(typeof globalThis.HTMLElement, 'undefined');
  const element = await import(pathToFileURL(join(dist, 'shard-lab.js')).href);
  assert.equal(typeof element.ShardLabElement, 'function');
  assert.equal(typeof globalThis.customElements, 'undefined', 'nothing was defined');
});

test('import: a gzipped CSV in slices goes in as one step, typed as mongoimport types it, bad lines named', async () => {
  const { gzipSync } = await import('node:zlib');
  const s = await ShardLab.session({ version: '8.0' });
  await s.run('sh.shardCollection("test.people", {name: 1})');
  const rows = ['name,age,city'];
  for (let i = 0; i < 3000; i++) rows.push(`user${i},${20 + (i % 50)},"City ${i % 7}"`);
  rows.splice(1500, 0, '"broken"x,1,2');
  const file = gzipSync(Buffer.from(`${rows.join('\n')}\n`));
  const heard = [];
  s.on('import', (p) => heard.push(p));
  const done = await s.import(new Uint8Array(file), { ns: 'test.people', fileName: 'people.csv.gz' });
  assert.equal(done.done, true);
  assert.equal(done.inserted, 3000);
  assert.equal(done.failed, 1);
  assert.equal(done.failures[0].line, 1501, 'the line in the file, header counted');
  assert.match(done.failures[0].reason, /extraneous " in field/);
  assert.ok(heard.length >= 2 && heard.at(-1).done, 'progress, then the end');
  const [found] = await s.run('db.people.findOne({name: "user7"}, {_id: 0})');
  assert.deepEqual(found.value, { name: 'user7', age: 27, city: 'City 0' });
  // One step: going back before it leaves the collection empty.
  const at = done.position.position;
  await s.goto(at - 1);
  const picture = await s.cluster('test.people');
  assert.equal(picture.shards.reduce((n, sh) => n + sh.docs, 0), 0);
  await s.goto(at);
  assert.equal((await s.cluster('test.people')).shards.reduce((n, sh) => n + sh.docs, 0), 3000);
  // Misuse rejects in the engine's words.
  await assert.rejects(s.import('{}', {}), { codeName: 'BadValue' });
  await assert.rejects(s.import(42, { ns: 'test.t' }), { codeName: 'BadValue' });
  const text = await s.import('{"_id": 1}\n{"_id": 1}\nnope\n', { ns: 'test.t', type: 'json' });
  assert.deepEqual([text.inserted, text.failed, text.failures.map((f) => f.line)], [1, 2, [2, 3]]);
  s.dispose();
});

test('previewImport shows the columns and fields, importing nothing; columnTypes types a column', async () => {
  const s = await ShardLab.session({ version: '8.0' });
  const csv = 'zip,when,n\n02134,2024-03-05,1\n';
  const preview = await s.previewImport(csv, { type: 'csv' });
  assert.equal(preview.format, 'csv');
  assert.deepEqual(preview.columns.map((c) => c.name), ['zip', 'when', 'n']);
  assert.deepEqual(preview.fields, ['zip', 'when', 'n']);
  assert.ok(preview.typeChoices.includes('int64()'));
  const [none] = await s.run('db.z.countDocuments({})');
  assert.equal(none.value, 0);
  const done = await s.import(csv, { ns: 'test.z', type: 'csv', columnTypes: { zip: 'string()', when: 'date_ms(yyyy-MM-dd)' } });
  assert.equal(done.inserted, 1);
  const [typed] = await s.run('db.z.countDocuments({zip: "02134", when: ISODate("2024-03-05")})');
  assert.equal(typed.value, 1);
  await assert.rejects(s.previewImport(42), { codeName: 'BadValue' });
  await assert.rejects(s.import(csv, { ns: 'test.z', columnTypes: 'zip' }), { codeName: 'BadValue' });
  const wrong = await s.previewImport(csv, { type: 'csv', columnTypes: { city: 'string()' } });
  assert.match(wrong.error, /`city`/);
  s.dispose();
});

/** The config exports of one era's fixture (tests/fixtures/cluster/v44|v60|v80), as `{name, text}`. */
function clusterFixture(era) {
  const dir = join(root, 'tests', 'fixtures', 'cluster', era);
  const place = existsSync(join(dir, 'config')) ? join(dir, 'config') : dir;
  return readdirSync(place).sort().map((name) => ({ name, text: readFileSync(join(place, name), 'utf8') }));
}

test('importCluster: a real cluster\'s config exports become the session, its changelog a step a change', async () => {
  const { gzipSync } = await import('node:zlib');
  const s = await ShardLab.session({ version: '3.6', shards: 2 });
  await s.run('sh.shardCollection("test.mine", {x: 1})');
  const saved = [];
  s.on('save', (e) => saved.push(e));
  // Files as Blobs named as a File is (a gzipped one inflated), and as {name, text}.
  const files = clusterFixture('v80').map((f) => f.name === 'config.chunks.json'
    ? new File([gzipSync(Buffer.from(f.text))], 'config.chunks.json.gz')
    : f.name === 'config.shards.json' ? new File([f.text], f.name) : f);
  const r = await s.importCluster(files);
  assert.deepEqual(r, {
    position: { position: 4, length: 4 },
    ns: ['shop.orders', 'shop.users'],
    version: '8.0',
    replayed: 2,
    skipped: [
      { what: 'moveChunk.start', count: 1, reason: 'changes no chunk' },
      { what: 'moveChunk.to', count: 1, reason: 'changes no chunk' },
      { what: 'moveChunk.from', count: 1, reason: 'changes no chunk' },
    ],
    steps: 4,
  });
  assert.equal(saved.at(-1)?.steps, 4, 'the new session is saved');
  const owners = async () => (await s.cluster('shop.orders')).bar.map((b) => b.shard);
  assert.deepEqual(await owners(), [0, 1, 2]);
  const [status] = await s.run('sh.status()');
  assert.match(status.printed, /'shop\.orders': \{/);
  assert.match(status.printed, /active mongoses\n\[ \{ '8\.0\./);
  assert.doesNotMatch(status.printed, /test\.mine/);
  // Back over the replay: before the migration, then before the split.
  await s.goto(r.position.position - 2);
  assert.deepEqual(await owners(), [0, 1, 1]);
  await s.goto(1);
  assert.deepEqual(await owners(), [0, 1]);
  // Every era's fixture loads; 4.4's and 6.0's run as 5.0.
  for (const era of ['v44', 'v60']) {
    const other = await ShardLab.session();
    const got = await other.importCluster(clusterFixture(era));
    assert.equal(got.version, '5.0', era);
    assert.deepEqual(got.ns, ['shop.orders', 'shop.users'], era);
    other.dispose();
  }
  s.dispose();
});

test('importCluster refuses what it cannot read, naming the file, and leaves the session as it was', async () => {
  const s = await ShardLab.session({ version: '8.0' });
  await s.run('sh.shardCollection("test.mine", {x: 1})');
  const at = await s.step(0);
  const v44 = clusterFixture('v44');
  await assert.rejects(s.importCluster(v44.filter((f) => f.name !== 'chunks.json')),
    { codeName: 'BadValue', message: /^chunks\.json: the export has no config\.chunks/ });
  const overlap = v44.map((f) => f.name === 'chunks.json'
    ? { name: f.name, text: f.text.replace('"max":{"customerId":"c100"', '"max":{"customerId":"c200"') }
    : f);
  await assert.rejects(s.importCluster(overlap),
    { codeName: 'BadValue', message: /^chunks\.json: lines 1 and 2: .*overlap$/ });
  await assert.rejects(s.importCluster([...v44, { name: 'notes.txt', text: 'hi' }]),
    { codeName: 'BadValue', message: /^notes\.txt: not a config collection's export/ });
  // Misuse is refused before anything is sent; a file past the limit before it is read.
  await assert.rejects(s.importCluster('chunks.json'), { codeName: 'BadValue' });
  await assert.rejects(s.importCluster([{ name: 'chunks.json' }]), { codeName: 'BadValue' });
  const { limits } = await ShardLab.catalog();
  assert.equal(limits.maxClusterImportBytes, 64 * 1024 * 1024);
  const huge = new File([new Uint8Array(limits.maxClusterImportBytes + 1)], 'changelog.json');
  await assert.rejects(s.importCluster([...v44.filter((f) => f.name !== 'changelog.json'), huge]),
    { codeName: 'BadValue', message: /over importCluster's limit of 64 MiB/ });
  const text = 'x'.repeat(limits.maxClusterImportBytes + 1);
  await assert.rejects(s.importCluster([{ name: 'chunks.json', text }]),
    { codeName: 'BadValue', message: /over importCluster's limit of 64 MiB/ });
  assert.deepEqual(await s.step(0), at, 'the session was left as it was');
  s.dispose();
});

test('rank: a monotonic key ranks below its hash, the reasons say why, and the session is only read', async () => {
  const s = await ShardLab.session({ shards: 3, version: '5.0', chunkSize: 65536, seed: 7 });
  await s.run('sim.generate("test.events", "monotonic", 3000)');
  const before = await s.cluster('test.events');
  const ranking = await s.rank('test.events', { keys: ['{x: 1}', { x: 'hashed' }] });
  assert.equal(ranking.documents, 3000);
  assert.equal(ranking.chunkSizeBytes, 65536, 'the smaller of 1 MB and the session\'s chunk size');
  assert.deepEqual(ranking.candidates.map((c) => c.key), ['{ x: "hashed" }', '{ x: 1 }']);
  const ranged = ranking.candidates[1];
  assert.equal(ranged.figures.monotonic, 'monotonic');
  const monotonic = ranged.reasons.find((r) => r.measure === 'monotonicChange');
  assert.equal(monotonic.verdict, 'loses');
  assert.equal(monotonic.id, 'rank.monotonic');
  assert.equal(typeof monotonic.args.r, 'string', 'the arguments as an object');
  assert.match(monotonic.message, /^Monotonic change: /);
  // Proposed candidates when no keys are given.
  const proposed = await s.rank('test.events');
  assert.ok(proposed.candidates.length > 0);
  assert.ok(proposed.candidates.every((c) => c.why.id.startsWith('rank.proposed.')));
  // Only read: the same cluster, no step added.
  assert.deepEqual(await s.cluster('test.events'), before);
  assert.deepEqual(await s.step(0), { position: 1, length: 1 });
  // A key MongoDB refuses rejects with its code name; misuse is BadValue.
  await assert.rejects(s.rank('test.events', { keys: ["{x: 'hashed', y: 'hashed'}"] }), { codeName: 'BadValue', code: 2 });
  await assert.rejects(s.rank('test.nothing'), { codeName: 'NamespaceNotFound' });
  await assert.rejects(s.rank(42), { codeName: 'BadValue' });
  await assert.rejects(s.rank('test.events', { keys: '{x: 1}' }), { codeName: 'BadValue' });
  s.dispose();
});

test('rank with a query sample: each candidate gets analyzeShardKey\'s read and write distribution', async () => {
  const s = await ShardLab.session({ shards: 3, version: '5.0', chunkSize: 65536, seed: 7 });
  await s.run('sim.generate("test.events", "monotonic", 3000)');
  // Two bare filters, a line cut short, and a config.sampledQueries document as mongoexport writes it.
  const queries = [
    '{"x": 5}',
    '{"x": {"$gte": 100, "$lt": 200}}',
    '{"x":',
    '{"ns": "app.events", "cmdName": "delete", "cmd": {"delete": "events", "deletes": [{"q": {"ts": {"$exists": true}}, "limit": 1}], "$db": "app"}}',
  ].join('\n');
  const ranking = await s.rank('test.events', { keys: ['{x: 1}', { x: 'hashed' }], queries: new TextEncoder().encode(queries) });
  assert.deepEqual(
    [ranking.queries.records, ranking.queries.reads, ranking.queries.writes, ranking.queries.failed],
    [4, 2, 1, 1],
  );
  assert.equal(ranking.queries.failures[0].line, 3);
  const ranged = ranking.candidates.find((c) => c.key === '{ x: 1 }');
  const read = ranged.figures.readDistribution;
  assert.deepEqual(read.sampleSize, { total: 2, find: 2, aggregate: 0, count: 0, distinct: 0 });
  assert.equal(read.percentageOfSingleShardReads, 50);
  assert.equal(read.percentageOfMultiShardReads, 50);
  assert.equal(read.numReadsByRange.length, 100);
  const write = ranged.figures.writeDistribution;
  assert.equal(write.percentageOfScatterGatherWrites, 100);
  assert.equal(write.percentageOfSingleWritesWithoutShardKey, 100);
  const reads = ranged.reasons.find((r) => r.measure === 'readDistribution');
  assert.equal(reads.id, 'rank.reads.targeted');
  assert.equal(reads.args.single, '50.0%', 'the arguments as an object');
  assert.deepEqual(ranking.orders.find((o) => o.measure === 'readDistribution').keys, ['{ x: 1 }', '{ x: "hashed" }']);
  // Without a sample, nothing of it.
  const plain = await s.rank('test.events', { keys: ['{x: 1}'] });
  assert.equal(plain.queries, null);
  assert.equal(plain.candidates[0].figures.readDistribution, null);
  await assert.rejects(s.rank('test.events', { queries: 42 }), { codeName: 'BadValue' });
  s.dispose();
});
