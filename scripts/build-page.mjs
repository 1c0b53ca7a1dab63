// Builds the page's own module (crate shardlab-web, web/src) in parts: the first part, and a
// part for each panel that needs a click (web/src/components/lazy.rs). Run first by the
// Trunk post-build hook (scripts/minify-glue.mjs) in every build, since Trunk's own Rust
// pipeline runs wasm-bindgen straight after cargo and has no place for the split between
// them (trunk-rs/trunk#1022):
//   cargo rustc (feature split, profile wasm-release, --emit-relocs) -> wasm-split-cli
//   -> wasm-bindgen --target web --keep-lld-exports -> wasm-opt -Oz (release, each part)
//   -> terser (release) -> page-<hash>/ in the staging directory
// and, in index.html, where Trunk's own build put its tags: a loader that makes the
// preloads of the first part and its glue and the module script that starts it, at once
// or, on a first visit, once the engine has answered the early console (see below). The
// directory's name is a hash of what it holds, so a host can cache it for good.
import { mkdir, readFile, writeFile, rm, copyFile, readdir, cp } from 'node:fs/promises';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { join, resolve, relative, sep } from 'node:path';
import { tmpdir } from 'node:os';
import { minify } from 'terser';
import { writeLoader } from './split-loader.mjs';
import { optimise } from './wasm-opt.mjs';

const staging = process.env.TRUNK_STAGING_DIR;
if (!staging) throw new Error('build-page: TRUNK_STAGING_DIR is not set (run it through trunk)');
const release = process.env.TRUNK_PROFILE === 'release';
const root = resolve(process.env.TRUNK_SOURCE_DIR ?? '.');
const target = resolve(root, process.env.CARGO_TARGET_DIR ?? 'target');

function run(cmd, args) {
  const r = spawnSync(cmd, args, { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] });
  if (r.error) throw new Error(`build-page: ${cmd} could not run: ${r.error.message}`);
  if (r.status !== 0) throw new Error(`build-page: ${cmd} ${args.join(' ')} failed (${r.status})`);
}

// The splitter reads the linker's relocations, which only the binary's own link keeps
// (`cargo rustc` passes the flag to the final crate alone).
run('cargo', ['rustc', '-p', 'shardlab-web', '--bin', 'shardlab-web', '--features', 'split',
  '--target', 'wasm32-unknown-unknown', '--profile', 'wasm-release', '--offline', '--',
  '-C', 'link-arg=--emit-relocs']);
const out = join(tmpdir(), `shardlab-page-${process.pid}`);
const split = join(out, 'split');
await rm(out, { recursive: true, force: true });
run('wasm-split-cli', ['--target', 'web', '--out-name', 'shardlab-web',
  join(target, 'wasm32-unknown-unknown', 'wasm-release', 'shardlab-web.wasm'), split]);
const bindgen = join(out, 'page');
// `--keep-lld-exports`: the parts import the first part's function table and the linker's
// globals, which wasm-bindgen would otherwise drop from its exports.
run('wasm-bindgen', ['--target', 'web', '--no-typescript', '--keep-lld-exports', '--out-dir', bindgen,
  '--out-name', 'shardlab-web', join(split, 'shardlab-web.wasm')]);
const parts = (await readdir(split)).filter((f) => f.endsWith('.wasm') && f !== 'shardlab-web.wasm').sort();
if (parts.length === 0) throw new Error('build-page: wasm-split-cli made no part for the panels');
for (const f of parts) await copyFile(join(split, f), join(bindgen, f));
if (release) {
  await optimise(['shardlab-web_bg.wasm', ...parts].map((f) => join(bindgen, f)), 'build-page');
}
await writeLoader(join(split, '__wasm_split.js'), join(bindgen, '__wasm_split.js'), bindgen, parts);
const files = (await readdir(bindgen, { recursive: true, withFileTypes: true }))
  .filter((e) => e.isFile())
  .map((e) => relative(bindgen, join(e.parentPath ?? e.path, e.name)).split(sep).join('/'))
  .sort();
if (release) {
  for (const f of files.filter((f) => f.endsWith('.js'))) {
    const text = await readFile(join(bindgen, f), 'utf8');
    const { code } = await minify(text, { module: true, compress: { passes: 2 }, mangle: true });
    await writeFile(join(bindgen, f), code);
  }
}
const hash = createHash('sha256');
for (const f of files) hash.update(f).update(await readFile(join(bindgen, f)));
const dir = `page-${hash.digest('hex').slice(0, 16)}`;
await cp(bindgen, join(staging, dir), { recursive: true });
await rm(out, { recursive: true, force: true });

// What Trunk's Rust pipeline would have written: the glue and the modules it imports
// preloaded, the first part fetched, and the module that starts the page. They are made by
// a small script rather than written as tags, so that a first visit can put them off until
// the engine has answered the early console (index.html, `whenPageMayLoad`): what
// downloads before the console's first answer is then the engine alone. Any other visit
// makes them at once.
const sri = async (f) => `sha384-${createHash('sha384').update(await readFile(join(staging, dir, f))).digest('base64')}`;
const preloads = [];
for (const f of files.filter((f) => f.endsWith('.js'))) {
  preloads.push({ rel: 'modulepreload', href: `./${dir}/${f}`, integrity: await sri(f) });
}
preloads.push({ rel: 'preload', as: 'fetch', type: 'application/wasm', href: `./${dir}/shardlab-web_bg.wasm`, integrity: await sri('shardlab-web_bg.wasm') });
const start = `import init from './${dir}/shardlab-web.js';await init({ module_or_path: './${dir}/shardlab-web_bg.wasm' });`;
const tags = `<script data-shardlab-page>(function(){var links=${JSON.stringify(preloads)};function load(){` +
  `links.forEach(function(l){var e=document.createElement('link');e.rel=l.rel;if(l.as)e.as=l.as;if(l.type)e.type=l.type;` +
  `e.crossOrigin='anonymous';e.integrity=l.integrity;e.href=l.href;document.head.appendChild(e)});` +
  `var s=document.createElement('script');s.type='module';s.textContent=${JSON.stringify(start)};document.head.appendChild(s)}` +
  `var f=window.shardlabFirstScreen;if(f&&f.whenPageMayLoad)f.whenPageMayLoad(load);else load()})()</script>`;
const indexPath = join(staging, 'index.html');
const html = await readFile(indexPath, 'utf8');
// In the place of index.html's skipped rust link, if Trunk left it, else at the head's end.
const skipped = /<link[^>]*data-trunk-skip[^>]*>/;
if (skipped.test(html)) {
  await writeFile(indexPath, html.replace(skipped, () => tags));
} else {
  if (!html.includes('</head>')) throw new Error('build-page: index.html has no </head>');
  await writeFile(indexPath, html.replace('</head>', `${tags}</head>`));
}
const sizes = [];
for (const f of ['shardlab-web_bg.wasm', ...parts]) {
  sizes.push(`${f} ${(await readFile(join(staging, dir, f))).length}`);
}
console.log(`page: ${dir}/ (${sizes.join(', ')})`);
