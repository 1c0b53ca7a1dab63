// Builds ShardLab's engine (web/engine: the core behind the protocol) for the browser: the
// module the engine worker loads, and the worker script itself (ARCHITECTURE.md, "One
// engine, many views"). Run by the Trunk post-build hook (scripts/minify-glue.mjs) in every
// build:
//   cargo (profile wasm-release) -> wasm-bindgen --target web -> wasm-opt -Oz (release)
//   -> terser (release) -> engine-<hash>/ in the staging directory
// and a <meta name="shardlab-engine"> in index.html naming the worker script, which is how
// the page finds it, and a small script, first in the head, that starts the worker and
// fetches its wasm at once, so that the engine downloads first (on a first visit the page's
// wasm waits for its first answer; on any other, the two come side by side). The directory's name is a hash of
// what it holds, so a host can cache it for good.
// Beside them, `writeModule` ships the JavaScript module (`shardlab.js`, `shardlab.d.ts`)
// that finds this directory from its own address, and `writeElement` the `<shard-lab>`
// element (`shard-lab.js`, which imports the module beside it) and its examples page.
import { mkdir, readFile, writeFile, rm, copyFile, readdir } from 'node:fs/promises';
import { writeLoader } from './split-loader.mjs';
import { optimise } from './wasm-opt.mjs';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { join, resolve } from 'node:path';
import { tmpdir } from 'node:os';
import { minify } from 'terser';

const staging = process.env.TRUNK_STAGING_DIR;
if (!staging) throw new Error('build-engine: TRUNK_STAGING_DIR is not set (run it through trunk)');
const release = process.env.TRUNK_PROFILE === 'release';
const root = resolve(process.env.TRUNK_SOURCE_DIR ?? '.');
const target = resolve(root, process.env.CARGO_TARGET_DIR ?? 'target');

function run(cmd, args) {
  const r = spawnSync(cmd, args, { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] });
  if (r.error) throw new Error(`build-engine: ${cmd} could not run: ${r.error.message}`);
  if (r.status !== 0) throw new Error(`build-engine: ${cmd} ${args.join(' ')} failed (${r.status})`);
}

// The module is split in two before wasm-bindgen sees it (wasm_split_cli_support's
// `wasm-split-cli`, at the `#[wasm_split]` function of web/engine/src/rest.rs): the first
// part answers the first requests, the second (`$regex`'s matcher) loads after the first
// answer or on first use. The splitter reads the linker's relocations, which only the
// engine's own link keeps (`cargo rustc` passes the flag to the final crate alone, so the
// dependencies' builds are the same as without it).
run('cargo', ['rustc', '-p', 'shardlab-engine', '--lib', '--crate-type', 'cdylib', '--features', 'split',
  '--target', 'wasm32-unknown-unknown', '--profile', 'wasm-release', '--offline', '--',
  '-C', 'link-arg=--emit-relocs']);
const out = join(tmpdir(), `shardlab-engine-${process.pid}`);
const split = join(out, 'split');
await rm(out, { recursive: true, force: true });
run('wasm-split-cli', ['--target', 'web', '--out-name', 'engine',
  join(target, 'wasm32-unknown-unknown', 'wasm-release', 'shardlab_engine.wasm'), split]);
// `--keep-lld-exports`: the parts import the first part's function table and the linker's
// globals, which wasm-bindgen would otherwise drop from its exports.
run('wasm-bindgen', ['--target', 'web', '--no-typescript', '--keep-lld-exports', '--out-dir', out,
  '--out-name', 'engine', join(split, 'engine.wasm')]);
const parts = (await readdir(split)).filter((f) => f.endsWith('.wasm') && f !== 'engine.wasm').sort();
if (parts.length === 0) throw new Error('build-engine: wasm-split-cli made no second part');
for (const f of parts) await copyFile(join(split, f), join(out, f));
await copyFile(join(root, 'web', 'engine', 'js', 'worker.js'), join(out, 'worker.js'));
if (release) {
  await optimise(['engine_bg.wasm', ...parts].map((f) => join(out, f)), 'build-engine');
}
await writeLoader(join(split, '__wasm_split.js'), join(out, '__wasm_split.js'), out, parts);
if (release) {
  for (const f of ['engine.js', 'worker.js', '__wasm_split.js']) {
    const text = await readFile(join(out, f), 'utf8');
    const { code } = await minify(text, { module: true, compress: { passes: 2 }, mangle: true });
    await writeFile(join(out, f), code);
  }
}
const files = ['engine.js', 'engine_bg.wasm', 'worker.js', '__wasm_split.js', ...parts];
const hash = createHash('sha256');
for (const f of files) hash.update(await readFile(join(out, f)));
const dir = `engine-${hash.digest('hex').slice(0, 16)}`;
await mkdir(join(staging, dir), { recursive: true });
for (const f of files) await copyFile(join(out, f), join(staging, dir, f));
await rm(out, { recursive: true, force: true });

await writeModule(dir);
await writeElement();

const indexPath = join(staging, 'index.html');
const html = await readFile(indexPath, 'utf8');
const meta = `<meta name="shardlab-engine" content="${dir}/worker.js">`;
// The engine starts while the page's own wasm downloads, not after it: a classic script
// that runs as the page's <head> is read starts the worker and keeps what it says until
// the page takes it over (web/src/platform/engine_client.rs, `adopt`). Where workers are
// forbidden it does nothing, and the page starts the engine as it would anyway. A test
// that arms the engine's trap (`?selftest=`) starts its own.
// It also fetches the engine's wasm itself, a round trip before the worker's script could
// (the worker's script and the wasm would otherwise come one after the other), and hands
// the body over to the worker, which it names so that the worker waits for it
// (web/engine/js/worker.js): a stream, or the bytes where a stream cannot be handed over,
// or null if the fetch failed, when the worker fetches the wasm itself.
// The engine's first part, which the script fetches and the preload below names.
const firstPart = `${dir}/engine_bg.wasm`;
const early = `<script data-shardlab-engine>(function(){if(/[?&]selftest=/.test(location.search))return;try{` +
  `var e={worker:new Worker(${JSON.stringify(`${dir}/worker.js`)},{type:'module',name:'shardlab-engine wasm-from-page'}),messages:[],error:null};` +
  `e.worker.onmessage=function(m){e.messages.push(m.data)};` +
  `e.worker.onerror=function(x){e.error=String(x.message||'the engine did not start')};` +
  `window.shardlabEngine=e}catch(x){return}` +
  `function hand(b,t){try{e.worker.postMessage({engineWasm:b},t);return true}catch(x){return false}}` +
  `try{fetch(${JSON.stringify(firstPart)}).then(function(r){if(!r.ok||!r.body)throw r.status;` +
  `if(!hand(r.body,[r.body]))return r.arrayBuffer().then(function(b){if(!hand(b,[b]))throw 0})})` +
  `.catch(function(){hand(null,[])})}catch(x){hand(null,[])}})()</script>`;
// The same wasm named to the browser's preload scanner, which asks for it as soon as the
// document's first bytes are read, before the script above has been compiled and has
// started the worker: on the phone profile the wasm was asked for 100 ms sooner and the
// console answered 40 ms sooner (scripts/measure-ui.mjs, three runs each). `as=fetch`
// with `crossorigin` is what the script's `fetch` asks for, so that it takes the preloaded
// response rather than downloading the wasm again. (A test page that arms the engine's
// trap, `?selftest=`, starts its own engine and downloads the wasm a second time.)
const preload = `<link rel="preload" href="${firstPart}" as="fetch" crossorigin data-shardlab-engine>`;
// Before the document's first script, and so before its stylesheet, which would hold a
// script after it until the stylesheet has come.
const cleaned = html.replace(/<meta name="shardlab-engine"[^>]*>/g, '')
  .replace(/<link rel="preload"[^>]*data-shardlab-engine>/g, '')
  .replace(/<script data-shardlab-engine>.*?<\/script>/g, '');
const at = cleaned.indexOf('<script');
if (at < 0 || !cleaned.includes('</head>') || at > cleaned.indexOf('</head>')) {
  throw new Error('build-engine: index.html has no script in its <head>');
}
await writeFile(indexPath, `${cleaned.slice(0, at)}${meta}${preload}${early}${cleaned.slice(at)}`);
console.log(`engine: ${dir}/`);

// The JavaScript module (web/engine/js/shardlab.js) and its declarations, at the site's
// root: the module names the engine's directory relative to itself (`import.meta.url`),
// so the site works from any path and the module from any page.
async function writeModule(engineDir) {
  const source = await readFile(join(root, 'web', 'engine', 'js', 'shardlab.js'), 'utf8');
  const marker = "const ENGINE_DIR = './engine/';";
  if (!source.includes(marker)) throw new Error('build-engine: shardlab.js has no ENGINE_DIR line');
  let text = source.replace(marker, `const ENGINE_DIR = './${engineDir}/';`);
  // The package's version is the workspace's (Cargo.toml's first `version`).
  const cargo = await readFile(join(root, 'Cargo.toml'), 'utf8');
  const version = cargo.match(/^version = "([^"]+)"/m)?.[1];
  if (!version) throw new Error('build-engine: Cargo.toml has no version');
  const versionMarker = "const VERSION = '0.0.0-dev';";
  if (!text.includes(versionMarker)) throw new Error('build-engine: shardlab.js has no VERSION line');
  text = text.replace(versionMarker, `const VERSION = ${JSON.stringify(version)};`);
  if (release) {
    text = (await minify(text, { module: true, compress: { passes: 2 }, mangle: true })).code;
  }
  await writeFile(join(staging, 'shardlab.js'), text);
  await copyFile(join(root, 'web', 'engine', 'js', 'shardlab.d.ts'), join(staging, 'shardlab.d.ts'));
}

// The <shard-lab> element (web/element/shard-lab.js) beside the module it imports, and the
// examples page (static/examples.html) that a docs author copies from.
async function writeElement() {
  let text = await readFile(join(root, 'web', 'element', 'shard-lab.js'), 'utf8');
  if (release) {
    text = (await minify(text, { module: true, compress: { passes: 2 }, mangle: true })).code;
  }
  await writeFile(join(staging, 'shard-lab.js'), text);
  for (const f of ['shard-lab.d.ts', 'jsx.d.ts', 'vue.d.ts']) await copyFile(join(root, 'web', 'element', f), join(staging, f));
  await copyFile(join(root, 'static', 'examples.html'), join(staging, 'examples.html'));
}

