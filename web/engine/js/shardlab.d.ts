// Declarations of ShardLab's JavaScript module (shardlab.js): a thin promise API over the
// engine's protocol (ARCHITECTURE.md, "The JavaScript module").

/** A JSON value: what a statement's value is, in relaxed Extended JSON. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** A statement's error, in MongoDB's or mongosh's words. */
export interface StatementError {
  /** MongoDB's error code (0 for a mongosh error such as a SyntaxError). */
  code: number;
  /** MongoDB's code name, or the error's class (`SyntaxError`, `TypeError`, ...). */
  codeName: string;
  /** The message. */
  errmsg: string;
  /** The 1-based line of the script where it happened, when known. */
  line: number | null;
}

/** A statement that ran. */
export interface StatementOk {
  ok: true;
  /**
   * Its value as plain JavaScript data; the BSON types JavaScript lacks keep their
   * Extended JSON wrappers (`{$oid}`, `{$numberDecimal}`, `{$date}`, a `{$numberLong}`
   * beyond 2^53). Absent when the statement has no value.
   */
  value?: Json;
  /** What the `shardlab` CLI prints for it, byte for byte (each line ends in "\n"). */
  printed: string;
  /** The session's step it ran in. */
  step: number;
}

/** A statement that failed: a mistake in the script is a value, not a thrown error. */
export interface StatementFailed {
  ok: false;
  error: StatementError;
  /** What the CLI prints for it, such as `MongoServerError[...]: ...\n`. */
  printed: string;
  /** The session's step it ran in. */
  step: number;
}

/** One statement's entry of `run`. */
export type StatementResult = StatementOk | StatementFailed;

/** The session's timeline cursor. */
export interface Position {
  /** Steps run up to the cursor. */
  position: number;
  /** Steps in the session. */
  length: number;
}

/** One chunk of a collection. */
export interface Chunk {
  /** Its place in the collection's key order. */
  order: number;
  /** Its lower bound as canonical Extended JSON (a lossless handle). */
  key: string;
  /** Its bounds as mongosh prints them, such as `{ x: MinKey() }`. */
  min: string;
  max: string;
  isMin: boolean;
  isMax: boolean;
  docs: number;
  bytes: number;
  /** The bytes as mongosh prints sizes (`51.76KiB`). */
  size: string;
  shortMin: string;
  shortMax: string;
  /** Its version as mongosh prints it (`Timestamp({ t: 1, i: 2 })`). */
  lastModified: string;
  jumbo: boolean;
  gained: number;
  arrivedFrom: string | null;
  fresh: boolean;
  /** Major and minor version. */
  version: [number, number];
}

/** One shard, with the collection's chunks on it. */
export interface Shard {
  name: string;
  index: number;
  draining: boolean;
  zones: string[];
  docs: number;
  bytes: number;
  size: string;
  chunks: Chunk[];
}

/** One collection's picture: its shards, their chunks and zones. */
export interface ClusterPicture {
  ns: string;
  position: number;
  sharded: boolean;
  hashed: boolean;
  /** The shard key as mongosh prints it (empty when not sharded). */
  key: string;
  docs: number;
  chunks: number;
  shards: Shard[];
  /** The key-space bar, one segment per chunk in key order. */
  bar: { min: string; key: string; lo: number; hi: number; shard: number; gained: number }[];
  ticks: { at: number; fresh: boolean; seq: number; key: string; chunk: string }[];
}

/** One entry of the cluster's event log. */
export interface ClusterEvent {
  /** Its number in the log. */
  seq: number;
  /** The changelog's name, such as `split` or `moveChunk.commit`. */
  kind: string;
  /** A sentence about it. */
  text: string;
  /** The step that caused it, when known. */
  step: number | null;
  /** The sentence as a message of the page's text catalogue (`event.*`), to word in
   * another language: its id, and each placeholder's value (a string, or a message of its own). */
  message: EventMessage | null;
}

/** A message of the text catalogue, as plain JSON. */
export interface EventMessage {
  id: string;
  args: { [name: string]: string | EventMessage | null };
}

/** The one shape of every error: MongoDB's `code` and `codeName`, and a message. */
export interface ShardLabErrorShape {
  code: number;
  codeName: string;
  message: string;
}

/** What the engine knows and allows (`ShardLab.catalog()`): every view's constants. */
export interface Catalog {
  /** The protocol version the engine speaks (3). */
  protocol: number;
  /** The methods it takes, as a request names them. */
  methods: string[];
  lessons: {
    id: string;
    title: string;
    lesson: string;
    setup: { shards: number; version: string; chunkSize: number; key: string; ns: string };
    workload: { spec: string; batch: number; total: number; balance: boolean };
    /** The workload as shell statements, one step each. */
    steps: string[];
  }[];
  workloads: string[];
  versions: { label: string; lacks: string[] }[];
  limits: {
    maxShards: number;
    minChunkSize: number;
    maxChunkSize: number;
    maxCompareColumns: number;
    maxCompareTicks: number;
    maxBatch: number;
    maxSourceBytes: number;
    /** Longest scenario text a session opens from (a saved session, a file), in bytes. */
    maxScenarioBytes: number;
    maxFieldBytes: number;
    maxSessions: number;
    /** Most text one `importCluster` takes, its files together, in bytes (64 MiB). */
    maxClusterImportBytes: number;
  };
  defaults: {
    version: string;
    shards: number;
    seed: number;
    compareWorkload: string;
    compareTicks: number;
    compareBatch: number;
    compareChunkSize: number;
  };
  /** Each shard's colour, by shard index. */
  palette: string[];
  /** The languages with words, as BCP 47 tags, English first. */
  languages: string[];
  compareWorkloads: string[];
}

/** A collection's key-space heatmap (`Session.heat`). */
export interface HeatView {
  ns: string;
  /** The key as mongosh prints it (empty when the collection is not sharded). */
  key: string;
  /** Whether the vertical axis is the int64 hash space. */
  hashed: boolean;
  /** Steps in the timeline. */
  steps: number;
  /** Each row's shard at the cursor (by index), bottom (MinKey side) first. */
  rowShards: number[];
  perColumn: number;
  columns: number;
  cursor: number;
  /** Inserts per cell, row by row: `cells[row * columns + column]`. */
  cells: number[];
  maxCell: number;
  /** Where each chunk starts, as fractions of the axis from the bottom. */
  boundaries: number[];
  shards: [number, string][];
  /** The pattern the engine reads in the grid (a glossary term) and its sentence. */
  pattern: [string, string] | null;
  /** Why the grid is empty, when it is. */
  empty: string | null;
  axis: string;
}

/** What `Session.inspect` is asked about. */
export type Inspecting =
  | { kind: 'nothing' }
  | { kind: 'chunk'; key: string; skip?: number | null; mark?: number | null }
  | { kind: 'at'; at: number; reach?: number | null }
  | { kind: 'shard'; shard: string }
  | { kind: 'round' };

/** One of MongoDB's rules applied, with its figures. */
export interface Explanation {
  topic: string;
  rule: string;
  sentence: string;
  facts: [string, string][];
}

/** A result that may fail, as the protocol carries one: the shape of a statement's entry. */
export type Fallible<T> = { ok: true; value: T } | { ok: false; error: string };

/** What the inspector shows (`Session.inspect`). */
export interface Inspection {
  example: string;
  landing: { seq: number; key: string; keyHandle: string; chunk: [string, string]; shard: string; why: string; hashed: [string, string, string, string] | null } | null;
  /** The chunk asked about, or MongoDB's error. */
  chunk: Fallible<Record<string, Json>> | null;
  /** The explanations asked about, or MongoDB's error. */
  explanations: Fallible<Explanation[]> | null;
}

/** A comparison to run (`Session.compare`). */
export interface CompareSpec {
  /** One row each, 1 to 3. */
  columns: { key: string; version: '3.6' | '5.0' | '7.0' | '8.0' }[];
  workload: 'monotonic' | 'decreasing' | 'uniform';
  /** Documents each workload command inserts (25 when left out). */
  batch?: number;
  /** Workload commands to run. */
  ticks: number;
  /** The chunk size in bytes (32 KiB when left out). */
  chunkSize?: number;
}

/** One configuration's summary after a comparison. */
export interface CompareRow {
  label: string;
  insertsPerShard: [string, number][];
  chunksPerShard: [string, number][];
  docsPerShard: [string, number][];
  hottestShardShare: number;
  hotWindow: number;
  jumboChunks: number;
  singleShardShare: number;
  multiShardShare: number;
  scatterGatherShare: number;
  errors: string[];
}

/** What a session's listeners hear, by event name. */
export interface SessionEvents {
  /** Each `run`'s entries. */
  run: { statements: StatementResult[]; position: Position };
  /** The session's link form, whenever its steps change; `null` once the session holds more than a link can (256 KiB of commands, decoded): ask `scenario` with `json` for its JSON form. */
  save: { text: string | null; steps: number };
  /** A note from the engine. */
  notice: { text: string };
  /** Progress of a long replay. */
  progress: { done: number; total: number };
  /** An import's progress after each slice, as its documents go in, and at its end, with the file's size in bytes. */
  import: ImportProgress & { total: number };
}

/** How an import stands (`Session.import`). */
export interface ImportProgress {
  /** Bytes read so far. */
  bytes: number;
  /** Documents read so far. */
  documents: number;
  /** Records that did not go in, so far. */
  failed: number;
  /** While the documents go in (`done: false` after the file was read): how many were sent so far; once ended: documents inserted. */
  inserted: number;
  /** Once ended: each record that did not go in, by line (the first 1,000). */
  failures: { line: number; column: number | null; reason: string }[];
  /** Why the import stopped short (a file it cannot read on), if it did. */
  stopped: string | null;
  /** Whether it has ended, its documents a step of the session. */
  done: boolean;
  position: Position;
  /** The answer to a `preview`: what the file's first bytes show. */
  preview?: ImportPreview;
}

/** A type chosen for a CSV column, as a typed header spells it after the dot (`int64()`). */
export interface ColumnTypeChoice {
  name: string;
  type: string;
}

/** What a file's first bytes show, importing nothing (`import`'s `preview`). */
export interface ImportPreview {
  /** `json`, `jsonArray` or `csv`, once known. */
  format: 'json' | 'jsonArray' | 'csv' | null;
  /** The CSV columns with their types' names (`auto` for an untyped header). */
  columns: ColumnTypeChoice[];
  /** The dotted fields the first documents hold, in the order first met. */
  fields: string[];
  documents: number;
  failed: number;
  /** Why the file cannot be imported, when its first bytes show it already. */
  error: string | null;
  /** The types a column can be given. */
  typeChoices: string[];
}

/** One config export as `importCluster` takes it: named for its collection (`chunks.json`, `config.chunks.json`, `chunks.bson.json`), with its text. */
export interface MetadataFile {
  name: string;
  text: string;
}

/** What `importCluster` made of the session. */
export interface ClusterImportResult {
  /** The cursor: at the end, after the last replayed change. */
  position: Position;
  /** The sharded collections loaded, in namespace order. */
  ns: string[];
  /** The version mode the session now runs: the metadata's era. */
  version: '5.0' | '7.0' | '8.0';
  /** Changelog entries replayed, one step each after the load. */
  replayed: number;
  /** Changelog entries not replayed, by name: `changes no chunk`, `unknown event`, or why the replay stopped there. */
  skipped: { what: string; count: number; reason: string }[];
  /** Steps the session now has: the load, the replayed changes, and the export's jumbo flags when changes were replayed. */
  steps: number;
}

/** How to read a file of documents (`Session.import`), as mongoimport's options say. */
export interface ImportOptions {
  /** The collection, such as "test.events". */
  ns: string;
  /** The file's name, whose extension says its format (`.json`, `.jsonl`, `.csv`, `.gz`). */
  fileName?: string;
  /** `json` or `csv`, when the name does not say it. */
  type?: 'json' | 'csv';
  /** The CSV header names each column's type (`name.string()`, `n.int64()`). */
  columnsHaveTypes?: boolean;
  /** Empty CSV fields are left out. */
  ignoreBlanks?: boolean;
  /** A field to insert the documents in order of, such as a timestamp. */
  sortBy?: string;
  /** Types for CSV columns by name, as a typed header spells them: `{zip: 'string()'}`. */
  columnTypes?: Record<string, string>;
}

/** How `Session.rank` replays a collection's documents. */
export interface RankOptions {
  /**
   * The candidate keys (at most 16), in the shell's syntax (`'{x: 1}'`, `"{b: 'hashed'}"`)
   * or as objects; absent or empty: the candidates the engine proposes from the fields.
   */
  keys?: (string | Record<string, 1 | -1 | 'hashed'>)[];
  /** Shards of each candidate's cluster, 1 to 64 (the session's). */
  shards?: number;
  /** Their version mode (the session's). */
  version?: '3.6' | '5.0' | '7.0' | '8.0';
  /** A dotted field to replay the documents in order of (their insertion order). */
  sortBy?: string;
  /** The chunk size in MB, 1 to 1024 (the smaller of 1 MB and the collection's own). */
  chunkSizeMB?: number;
  /**
   * A query sample, at most 16 MiB: one document a line or a JSON array, each a bare
   * filter (a `find`) or a document of `config.sampledQueries` as
   * `mongoexport -d config -c sampledQueries` writes it (a `.gz` Blob is inflated). Each
   * candidate then gets analyzeShardKey's `readDistribution` and `writeDistribution`.
   */
  queries?: string | Uint8Array | ArrayBuffer | Blob;
  /** The collection whose sampled queries are kept when the sample holds several (`app.events`). */
  queriesNs?: string;
}

/** A placeholder's values: an object from `Session.rank`, name/value pairs on the wire. */
export type RankArgs = { [name: string]: string | EventMessage | null };
/** A placeholder's values as the wire carries them. */
export type WireArgs = [string, string | { id: string; args: WireArgs }][];

/** A sentence of a ranking: its English, and its message (an id of the core's `RANK_MESSAGES`). */
export interface RankSentence<A = RankArgs> {
  message: string;
  id: string;
  args: A;
}

/** One reason a candidate wins or loses. */
export interface RankReason<A = RankArgs> extends RankSentence<A> {
  measure: 'refused' | 'cardinality' | 'frequency' | 'monotonicChange' | 'recentInserts' | 'dataSpread' | 'jumbo' | 'queryIsolation' | 'readDistribution' | 'writeDistribution';
  verdict: 'wins' | 'loses' | 'neutral';
  /** The candidate's place on the measure (1 the best, ties share it); 0 for `queryIsolation`. */
  place: number;
}

/** What one candidate's replay and analyzeShardKey measured. */
export interface RankFigures {
  /** analyzeShardKey's `numDistinctValues` (null when it could not measure the key). */
  distinct: number | null;
  /** Its `numDocsTotal`. */
  measured: number | null;
  mostCommonValue: string | null;
  mostCommonCount: number | null;
  /** The most common value's share of the documents, 0 to 1. */
  mostCommonShare: number | null;
  monotonic: 'monotonic' | 'not monotonic' | 'unknown';
  /** Its `recordIdCorrelationCoefficient`. */
  correlation: number | null;
  /** analyzeShardKey's error, when it could not measure the key. */
  unmeasured: ShardLabErrorShape | null;
  inserted: number;
  /** Documents the key refused (a key field holding an array). */
  refused: number;
  /** The first few refused: the document's place in the replay, from 1, and MongoDB's error. */
  refusals: { document: number; error: ShardLabErrorShape }[];
  /** Why the replay stopped early (a limit of the cluster), if it did. */
  stopped: ShardLabErrorShape | null;
  chunks: number;
  jumbo: number;
  chunksPerShard: [string, number][];
  /** Documents per shard after the replay: the data's spread. */
  docsPerShard: [string, number][];
  fullestShard: string;
  fullestShare: number;
  /** The shard that took the most of the latest inserts, and its share of them. */
  hottestRecentShard: string;
  hottestRecentShare: number;
  /** How many of the latest inserts those count. */
  recentWindow: number;
  /** With a query sample: analyzeShardKey's `readDistribution` of the key (null when it could not measure it). */
  readDistribution: ReadDistribution | null;
  /** With a query sample: its `writeDistribution`. */
  writeDistribution: WriteDistribution | null;
  /** With a query sample: analyzeShardKey's error when it could not measure the distributions (fewer than 99 split points). */
  distributionUnmeasured: ShardLabErrorShape | null;
}

/** analyzeShardKey's `readDistribution`; the percentages (0 to 100) are null when no read was sampled. */
export interface ReadDistribution {
  sampleSize: { total: number; find: number; aggregate: number; count: number; distinct: number };
  percentageOfSingleShardReads: number | null;
  percentageOfMultiShardReads: number | null;
  percentageOfScatterGatherReads: number | null;
  /** For each of the key's 100 ranges, MinKey to MaxKey, the reads that reach it. */
  numReadsByRange: number[];
}

/** analyzeShardKey's `writeDistribution`; the percentages (0 to 100) are null when no write was sampled. */
export interface WriteDistribution {
  sampleSize: { total: number; update: number; delete: number; findAndModify: number };
  percentageOfSingleShardWrites: number | null;
  percentageOfMultiShardWrites: number | null;
  percentageOfScatterGatherWrites: number | null;
  numWritesByRange: number[];
  percentageOfShardKeyUpdates: number | null;
  percentageOfSingleWritesWithoutShardKey: number | null;
  percentageOfMultiWritesWithoutShardKey: number | null;
}

/** What a ranking read of its query sample. */
export interface RankQueries {
  records: number;
  reads: number;
  writes: number;
  /** Records that could not be read or that MongoDB would refuse, and the first of them by line. */
  failed: number;
  failures: { line: number; reason: string }[];
  /** Records read and not counted (an `insert`, another collection's query), and the first of them. */
  leftOut: number;
  notes: { line: number; reason: string }[];
}

/** One candidate's place in a ranking. */
export interface RankedKey<A = RankArgs> {
  /** The key as the server prints it (`{ x: "hashed" }`). */
  key: string;
  /** Its place overall, 1 the best. */
  place: number;
  /** The measures it loses on. */
  losses: number;
  /** Why it was tried: proposed from the fields, or given. */
  why: RankSentence<A>;
  figures: RankFigures;
  reasons: RankReason<A>[];
}

/** Candidate shard keys ranked (`Session.rank`). */
export interface RankResult<A = RankArgs> {
  ns: string;
  /** The session's cursor the documents were read at. */
  position: number;
  /** Documents read, in insertion order (at most 200,000). */
  documents: number;
  unreadable: number;
  shards: number;
  version: string;
  chunkSizeBytes: number;
  /** Best first. */
  candidates: RankedKey<A>[];
  /** For each measure, the candidates' keys from best to worst. */
  orders: { measure: RankReason['measure']; keys: string[] }[];
  /** What was read of the query sample, when one was given. */
  queries: RankQueries | null;
}

/** How a session starts: a new cluster, or a link's scenario. */
export interface SessionOptions {
  /** Shards, 1 to 64 (3). */
  shards?: number;
  /** The behaviour era: "3.6", "5.0", "7.0" or "8.0" ("5.0", the catalogue's `defaults.version`). */
  version?: '3.6' | '5.0' | '7.0' | '8.0';
  /** The seed of every random choice (1). */
  seed?: number;
  /** The chunk size in bytes (the era's default when absent). */
  chunkSize?: number;
  /** A scenario as a link carries it (`v2.…`) or its JSON form, instead of a new cluster. */
  scenario?: string;
  /** A lesson's cluster, by id (such as `monotonic`), instead of a new cluster. */
  lesson?: string;
}

/** One session of the engine. Every session on a page shares one engine. */
export declare class Session {
  private constructor();
  /** The session's handle, as the engine named it when it opened it (`s1`, `s2`, ...). */
  readonly name: string;
  /** Whether `dispose` was called. */
  readonly disposed: boolean;
  /** Runs a script as the session's next step (with `each`, a step per statement): one entry per statement. */
  run(script: string, options?: { each?: boolean }): Promise<StatementResult[]>;
  /** Moves the cursor `by` steps (back when negative); rejects (`BadValue`) unless `by` is a whole number. */
  step(by?: number): Promise<Position>;
  /** Moves the cursor to step `to` (0: before any step); rejects (`BadValue`) unless `to` is a whole number, 0 or more. */
  goto(to: number): Promise<Position>;
  /** A collection's chunks, shards and zones (the collection last touched when absent). */
  cluster(ns?: string): Promise<ClusterPicture>;
  /** The event log after event `since`, oldest first (the latest 100 at most). */
  events(since?: number, options?: { ns?: string }): Promise<ClusterEvent[]>;
  /** analyzeShardKey of a candidate key on a copy of the session (no step is added). */
  analyze(ns: string, key: string | Record<string, 1 | -1 | 'hashed'>): Promise<StatementResult>;
  /**
   * Candidate shard keys ranked on a collection's documents at the cursor, each replayed
   * into a cluster of its own (the session is only read). Rejects with MongoDB's error
   * for a key it refuses, `NamespaceNotFound` for a collection that is not there and
   * `IllegalOperation` for one over 200,000 documents or 64 MiB.
   */
  rank(ns: string, options?: RankOptions): Promise<RankResult>;
  /** The key-space heatmap of a collection. */
  heat(ns: string, options?: { rows?: number; columns?: number }): Promise<HeatView>;
  /** What the inspector shows about a chunk, a shard, the next round or the latest insert. */
  inspect(ns: string, subject?: Inspecting): Promise<Inspection>;
  /** One workload on several shard keys in lockstep, a row per key. */
  compare(spec: CompareSpec): Promise<CompareRow[]>;
  /** Imports the user's documents (a string, bytes or a File) as one step; nothing leaves the page. */
  import(data: string | Uint8Array | ArrayBuffer | Blob, options: ImportOptions): Promise<ImportProgress>;
  /** What a file's first bytes show (format, CSV columns, fields), importing nothing. */
  previewImport(data: string | Uint8Array | ArrayBuffer | Blob, options?: Omit<ImportOptions, 'ns' | 'sortBy' | 'ignoreBlanks'>): Promise<ImportPreview>;
  /**
   * Makes the session a real cluster's, from its config exports (mongoexport's or
   * bsondump's JSON; a `.gz` Blob is inflated): a new session of the metadata's version,
   * its first step the cluster before its changelog, then a step per replayed change.
   * Rejects (`BadValue`, naming the file and line) and leaves the session as it was when
   * the metadata is refused.
   */
  importCluster(files: Iterable<Blob | MetadataFile>): Promise<ClusterImportResult>;
  /** A link to the ShardLab site beside the module (or `site`) that opens this session. */
  toLink(options?: { site?: string | URL }): Promise<string>;
  /**
   * The session's commands up to the cursor as a mongosh script that builds the same
   * scenario on a real sharded cluster (its header says what cluster and how to start one);
   * rejects with `IllegalOperation` (20) when there is nothing to export.
   */
  toMongosh(): Promise<string>;
  /** Calls `callback` with each event's data; returns the function that stops it. */
  on<E extends keyof SessionEvents>(event: E, callback: (data: SessionEvents[E]) => void): () => void;
  /** Ends the session; later calls on it reject with `NoSuchSession` (206). */
  dispose(): void;
  [Symbol.dispose](): void;
}

/** An answer the engine refused (bad options, a disposed session), or a stopped engine. */
export declare class ShardLabError extends Error implements ShardLabErrorShape {
  constructor(codeName: string, message: string, code?: number);
  readonly code: number;
  readonly codeName: string;
}

export interface ShardLabModule {
  /** Opens a session. */
  session(options?: SessionOptions): Promise<Session>;
  /** The engine's protocol version and methods (the catalogue's `protocol` and `methods`). */
  hello(): Promise<{ version: number; methods: string[] }>;
  /** The engine's catalogue: lessons, versions, limits, defaults, palette, languages. */
  catalog(): Promise<Catalog>;
  /** Where the engine runs (`page` where the page forbids workers), and why. */
  engine(): { mode: 'worker' | 'page' | null; note: string | null };
  Session: typeof Session;
  ShardLabError: typeof ShardLabError;
  /** The protocol version this module speaks. */
  protocol: number;
  /** This package's version. */
  version: string;
}

/**
 * The engine's wire protocol, version 3 (ARCHITECTURE.md, "The engine's API"): what the
 * module sends its worker, and what a host page sends an embedded frame over its port.
 * Each method's `params` (left out where it is `undefined`; `{}` where every field is
 * optional) and the `result` its answer carries. The page's own methods
 * (`page.act`, `page.summary`, ...) serve the playground's panels and are not listed.
 */
export interface EngineMethods {
  catalog: { params?: undefined; result: Catalog };
  open: { params: Start; result: Opened };
  close: { params?: undefined; result?: undefined };
  run: {
    params: { source: string; each?: boolean } | { workload: { ns: string; name: string; count: number; balance?: boolean } };
    result: { statements: StatementResult[]; position: Position };
  };
  step: { params: { by: number }; result: Position };
  jump: { params: { to: number }; result: Position };
  fork: { params?: undefined; result: Position };
  scenario: { params: { page?: [string, string][]; json?: boolean }; result: { text: string } };
  export: { params?: undefined; result: { text: string } };
  frame: { params: { ns?: string; whole?: boolean }; result: ClusterPicture };
  inspect: { params: { ns: string; subject: Inspecting }; result: Inspection };
  explain: {
    params: { kind: 'chunk'; ns: string; chunk: number } | { kind: 'shard'; ns: string; shard: string } | { kind: 'round'; ns?: string | null };
    result: { sentences: string[] };
  };
  analyze: { params: { ns: string; key: string }; result: StatementResult };
  rank: {
    params: { ns: string; keys?: string[]; shards?: number; version?: '3.6' | '5.0' | '7.0' | '8.0'; sortBy?: string; chunkSizeMB?: number; queries?: string; queriesNs?: string };
    result: RankResult<WireArgs>;
  };
  target: { params: { ns: string; filter: string }; result: { stage: string; broadcast: boolean; shards: string[] } };
  compare: { params: CompareSpec; result: { rows: CompareRow[] } };
  import: {
    params:
      | { kind: 'begin'; ns: string; fileName?: string; format?: 'json' | 'csv'; columnsHaveTypes?: boolean; ignoreBlanks?: boolean; sortBy?: string; columnTypes?: ColumnTypeChoice[] }
      | { kind: 'preview'; bytes: Uint8Array | number[]; complete?: boolean; fileName?: string; format?: 'json' | 'csv'; columnsHaveTypes?: boolean; columnTypes?: ColumnTypeChoice[] }
      | { kind: 'slice'; bytes: Uint8Array | number[] }
      | { kind: 'end' }
      | { kind: 'cancel' };
    result: ImportProgress;
  };
  importCluster: { params: { files: MetadataFile[] }; result: ClusterImportResult };
  events: { params: { ns: string }; result: { rows: Json[] } };
  heat: { params: { ns: string; rows: number; columns: number }; result: HeatView };
}

/** How `open` starts a session; every union of the protocol names its case in `kind`. */
export type Start =
  | { kind: 'config'; shards: number; version: string; chunkSize?: number | null; seed: number }
  | { kind: 'scenario'; text: string }
  | { kind: 'lesson'; id: string };

/** `open`'s result: the handle the engine gave the session, which every later request names. */
export interface Opened {
  session: string;
  position: Position;
  /** MongoDB's messages from the setup (a key it refuses), in order. */
  errors: string[];
}

/** A request: `session` names the handle `open` answered with (absent for `catalog`, `open`, `compare`). */
export interface EngineRequest<M extends keyof EngineMethods = keyof EngineMethods> {
  v: 3;
  id: number;
  session?: string;
  method: M;
  params?: EngineMethods[M]['params'];
}

/** An answer: the request's `id` and `method`, with its `result` or the one error shape. */
export type EngineAnswer<M extends keyof EngineMethods = keyof EngineMethods> =
  | { v: 3; id: number; method: M; result?: EngineMethods[M]['result']; error?: undefined }
  | { v: 3; id: number; method?: M; error: ShardLabErrorShape };

/** An event the engine pushes about a session. */
export type EngineEvent = {
  [E in 'save' | 'notice' | 'progress']: { v: 3; session: string; event: E; data: SessionEvents[E] };
}['save' | 'notice' | 'progress'];

export declare const ShardLab: ShardLabModule;
export default ShardLab;
