// Builds the page's extras module (web/extras: the Compare tab, the inspector and the
// heatmap), which the page loads only when it needs them (ARCHITECTURE.md, "Download
// budget"). Run by the Trunk post-build hook (scripts/minify-glue.mjs) in every build:
//   cargo (profile wasm-release) -> wasm-bindgen --target web -> wasm-opt -Oz (release)
//   -> terser (release) -> extras-<hash>/ in the staging directory, with its stylesheet,
// and a <meta name="shardlab-extras"> in index.html naming the module, which is how the
// page finds it. The directory's name is a hash of what it holds, so a host can cache it
// for good.
import { mkdir, readFile, writeFile, rm, copyFile } from 'node:fs/promises';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { join, resolve } from 'node:path';
import { tmpdir } from 'node:os';
import { minify } from 'terser';

const staging = process.env.TRUNK_STAGING_DIR;
if (!staging) throw new Error('build-extras: TRUNK_STAGING_DIR is not set (run it through trunk)');
const release = process.env.TRUNK_PROFILE === 'release';
const root = resolve(process.env.TRUNK_SOURCE_DIR ?? '.');
const target = resolve(root, process.env.CARGO_TARGET_DIR ?? 'target');

function run(cmd, args) {
  const r = spawnSync(cmd, args, { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] });
  if (r.error) throw new Error(`build-extras: ${cmd} could not run: ${r.error.message}`);
  if (r.status !== 0) throw new Error(`build-extras: ${cmd} ${args.join(' ')} failed (${r.status})`);
}

run('cargo', ['build', '-p', 'shardlab-extras', '--lib', '--target', 'wasm32-unknown-unknown', '--profile', 'wasm-release', '--offline']);
const out = join(tmpdir(), `shardlab-extras-${process.pid}`);
await rm(out, { recursive: true, force: true });
run('wasm-bindgen', ['--target', 'web', '--no-typescript', '--out-dir', out, '--out-name', 'extras',
  join(target, 'wasm32-unknown-unknown', 'wasm-release', 'shardlab_extras.wasm')]);
if (release) {
  run('wasm-opt', ['-Oz', '--converge', '--strip-producers', join(out, 'extras_bg.wasm'), '-o', join(out, 'extras_bg.wasm')]);
  const glue = await readFile(join(out, 'extras.js'), 'utf8');
  const { code } = await minify(glue, { module: true, compress: { passes: 2 }, mangle: true });
  await writeFile(join(out, 'extras.js'), code);
}
const files = ['extras.js', 'extras_bg.wasm'];
await copyFile(join(root, 'static', 'extras.css'), join(out, 'extras.css'));
files.push('extras.css');
const hash = createHash('sha256');
for (const f of files) hash.update(await readFile(join(out, f)));
const dir = `extras-${hash.digest('hex').slice(0, 16)}`;
await mkdir(join(staging, dir), { recursive: true });
for (const f of files) await copyFile(join(out, f), join(staging, dir, f));
await rm(out, { recursive: true, force: true });

const indexPath = join(staging, 'index.html');
const html = await readFile(indexPath, 'utf8');
const meta = `<meta name="shardlab-extras" content="${dir}/extras.js">`;
if (!html.includes('</head>')) throw new Error('build-extras: index.html has no </head>');
await writeFile(indexPath, html.replace(/<meta name="shardlab-extras"[^>]*>/g, '').replace('</head>', `${meta}</head>`));
console.log(`extras module: ${dir}/`);
