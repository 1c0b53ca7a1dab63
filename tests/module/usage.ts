// A docs author's use of the JavaScript module, checked against its declarations
// (web/engine/js/shardlab.d.ts) with `tsc --noEmit -p tests/module`. It is compiled,
// never run: the Node tests beside it run the module.
import ShardLab, { ShardLabError, type StatementResult, type ClusterPicture, type Position, type HeatView, type Inspection, type CompareRow, type RankResult, type RankedKey, type ReadDistribution, type WriteDistribution } from '../../web/engine/js/shardlab.js';

export async function tour(): Promise<string> {
  using s = await ShardLab.session({ shards: 3, version: '8.0', seed: 1 });
  const entries: StatementResult[] = await s.run('sh.shardCollection("test.t", {x: 1})');
  let text = '';
  for (const e of entries) {
    if (e.ok) {
      text += e.printed;
      const v = e.value;
      if (v !== undefined && typeof v === 'object' && v !== null && !Array.isArray(v)) text += String(v.ok);
    } else {
      text += `${e.error.codeName} (${e.error.code}) on line ${e.error.line ?? '?'}: ${e.error.errmsg}`;
    }
  }
  const steps = await s.run('db.t.insertOne({x: 1}); db.t.insertOne({x: 2})', { each: true });
  const at: Position = await s.goto(steps[0].step);
  await s.step(-1);
  const picture: ClusterPicture = await s.cluster('test.t');
  const chunks: number = picture.shards.reduce((n, shard) => n + shard.chunks.length, 0);
  const zones: string[] = picture.shards.flatMap((shard) => shard.zones);
  const events = await s.events(0, { ns: 'test.t' });
  const last: number = events.at(-1)?.seq ?? 0;
  const report = await s.analyze('test.t', { x: 1 });
  const stop: () => void = s.on('save', ({ text: link, steps }) => console.log(link, steps));
  s.on('run', ({ statements, position }) => console.log(statements.length, position.length));
  stop();
  const heat: HeatView = await s.heat('test.t', { rows: 16, columns: 32 });
  const hot: number = heat.maxCell;
  const seen: Inspection = await s.inspect('test.t', { kind: 'shard', shard: 'shard01' });
  const rows: CompareRow[] = await s.compare({ columns: [{ key: '{x: 1}', version: '8.0' }], workload: 'uniform', batch: 10, ticks: 5, chunkSize: 32768 });
  console.log(hot, seen.example, rows[0].label);
  const link: string = await s.toLink({ site: 'https://docs.example/shardlab/' });
  try {
    await ShardLab.session({ shards: 0 });
  } catch (err) {
    if (err instanceof ShardLabError) text += err.codeName;
  }
  const hello = await ShardLab.hello();
  return `${text} ${chunks} ${zones.join()} ${last} ${report.ok} ${link} ${hello.version} ${ShardLab.protocol} ${at.length}`;
}

// @ts-expect-error: a version the engine does not know is a type error.
ShardLab.session({ version: '9.9' });
// @ts-expect-error: `run` takes the script as a string.
ShardLab.session().then((s) => s.run(42));
// @ts-expect-error: events have names the module defines.
ShardLab.session().then((s) => s.on('nonsense', () => {}));

// The wire protocol, as a host page driving an embedded frame writes it: each method's
// params and result are tied to its name.
import type { EngineRequest, EngineAnswer, EngineEvent, Fallible } from '../../web/engine/js/shardlab.js';
export const ask: EngineRequest<'frame'> = { v: 3, id: 1, method: 'frame', params: { ns: 'test.events', whole: true } };
export const open: EngineRequest<'open'> = { v: 3, id: 2, method: 'open', params: { kind: 'config', shards: 3, version: '5.0', seed: 1 } };
export function chunks(answer: EngineAnswer<'frame'>): number {
  if (answer.error) return -answer.error.code;
  return answer.result?.shards.length ?? 0;
}
export function saved(e: EngineEvent): string {
  // A session past what a link holds saves without its link form: the text is null.
  return e.event === 'save' ? (e.data.text ?? '') : '';
}
export function shown(f: Fallible<string>): string {
  return f.ok ? f.value : f.error;
}
// @ts-expect-error: a frame's params do not take a source.
export const wrong: EngineRequest<'frame'> = { v: 3, id: 3, method: 'frame', params: { source: '1' } };
// @ts-expect-error: version 2 is not this protocol.
export const old: EngineRequest<'run'> = { v: 2, id: 4, method: 'run', params: { source: '1' } };

// An import of the reader's own file, with its progress.
export async function importFile(file: File): Promise<number> {
  const s = await ShardLab.session();
  s.on('import', (p) => console.log(`${p.bytes} of ${p.total} bytes`));
  const preview = await s.previewImport(file);
  const sortBy = preview.fields.includes('ts') ? 'ts' : undefined;
  const columnTypes = preview.format === 'csv' ? { zip: 'string()' } : undefined;
  const done = await s.import(file, { ns: 'test.events', sortBy, columnTypes });
  return done.inserted - done.failures.length;
}

// A real cluster's metadata: the files a reader picked (config.chunks.json, ...) and one
// typed in; the session becomes that cluster, its changelog replayed a step a change.
import type { ClusterImportResult, MetadataFile } from '../../web/engine/js/shardlab.js';
export async function importCluster(picked: FileList): Promise<string> {
  const s = await ShardLab.session();
  const tags: MetadataFile = { name: 'tags.json', text: '' };
  try {
    const r: ClusterImportResult = await s.importCluster([...Array.from(picked), tags]);
    const skipped = r.skipped.map((x) => `${x.what} x${x.count}: ${x.reason}`);
    await s.goto(r.position.position - r.replayed);
    return `${r.ns.join()} ${r.version} ${r.steps} ${skipped.join('; ')}`;
  } catch (err) {
    return err instanceof ShardLabError ? err.message : String(err);
  }
}
export const importing: EngineRequest<'importCluster'> = { v: 3, id: 5, session: 's1', method: 'importCluster', params: { files: [{ name: 'chunks.json', text: '' }] } };
// @ts-expect-error: a file is a File or {name, text}.
ShardLab.session().then((s) => s.importCluster(['chunks.json']));
// Candidate shard keys ranked on a collection's documents at the cursor.
export async function rankKeys(): Promise<string> {
  using s = await ShardLab.session({ shards: 3, version: '5.0' });
  await s.run('sim.generate("test.events", "monotonic", 3000)');
  const ranking: RankResult = await s.rank('test.events', { keys: ['{x: 1}', { x: 'hashed' }], chunkSizeMB: 1 });
  const best: RankedKey = ranking.candidates[0];
  const lost = best.reasons.filter((r) => r.verdict === 'loses').map((r) => `${r.measure}: ${r.message} (${r.id} ${String(r.args.share ?? '')})`);
  const monotonic: 'monotonic' | 'not monotonic' | 'unknown' = best.figures.monotonic;
  const spread: number = best.figures.docsPerShard.reduce((n, [, docs]) => n + docs, 0);
  const proposed = await s.rank('test.events');
  return `${best.key} ${best.place} ${monotonic} ${spread} ${lost.join('; ')} ${proposed.candidates.map((c) => c.why.id).join()}`;
}
// @ts-expect-error: a chunk size is a number of MB.
ShardLab.session().then((s) => s.rank('test.events', { chunkSizeMB: '1' }));
// A query sample gives each candidate analyzeShardKey's read and write distribution.
export async function rankWithQueries(sample: Blob): Promise<string> {
  using s = await ShardLab.session();
  const ranking: RankResult = await s.rank('test.events', { keys: ['{x: 1}'], queries: sample, queriesNs: 'app.events' });
  const read: ReadDistribution | null = ranking.candidates[0].figures.readDistribution;
  const write: WriteDistribution | null = ranking.candidates[0].figures.writeDistribution;
  const bad = ranking.queries?.failures.map((f) => `line ${f.line}: ${f.reason}`) ?? [];
  return `${read?.percentageOfScatterGatherReads ?? '-'} ${write?.percentageOfShardKeyUpdates ?? '-'} ${bad.join('; ')}`;
}
// @ts-expect-error: a query sample is text, bytes or a Blob.
ShardLab.session().then((s) => s.rank('test.events', { queries: 42 }));
export const rankRequest: EngineRequest<'rank'> = { v: 3, id: 5, session: 's1', method: 'rank', params: { ns: 'test.events', keys: ['{ts: 1}'] } };
export function firstArg(answer: EngineAnswer<'rank'>): string {
  if (answer.error) return answer.error.codeName;
  const pair = answer.result?.candidates[0]?.reasons[0]?.args[0];
  return pair ? `${pair[0]}=${typeof pair[1] === 'string' ? pair[1] : pair[1].id}` : '';
}
