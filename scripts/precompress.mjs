// Run by the Trunk post-build hook (scripts/minify-glue.mjs) once the glue is minified, in
// release builds: writes a gzip file beside each text and wasm file
// of the build (`shardlab-web_bg.wasm.gz`, ...), compressed with zopfli, whose gzip output
// is about 4% smaller than `gzip -9` and opens with any gzip decoder. A static host serves
// these as they are (nginx `gzip_static on`, Caddy `precompressed gzip`, most CDNs), so the
// page downloads the smaller file. Without the `zopfli` tool (Debian's package, which
// `scripts/setup.sh` installs), zlib at level 9 stands in and the build says so.
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { spawnSync } from 'node:child_process';
import { gzipSync, gunzipSync } from 'node:zlib';
import { join, extname, relative } from 'node:path';

const staging = process.env.TRUNK_STAGING_DIR;
if (process.env.TRUNK_PROFILE !== 'release' || !staging) process.exit(0);

const COMPRESSED = new Set(['.wasm', '.js', '.css', '.html', '.json', '.svg']);
const zopfli = spawnSync('zopfli', ['-h'], { stdio: 'ignore' }).error === undefined;
if (!zopfli) console.warn('precompress: zopfli is not installed; using zlib level 9 instead');

// Every file of the staging directory, in its folders too (the engine's, wasm-bindgen's
// snippets).
const names = (await readdir(staging, { recursive: true, withFileTypes: true }))
  .filter((entry) => entry.isFile())
  .map((entry) => relative(staging, join(entry.parentPath ?? entry.path, entry.name)));
for (const name of names) {
  if (!COMPRESSED.has(extname(name))) continue;
  const path = join(staging, name);
  let gz;
  if (zopfli) {
    const run = spawnSync('zopfli', ['-c', path], { maxBuffer: 64 << 20 });
    if (run.status !== 0) throw new Error(`zopfli failed on ${name}: ${run.stderr}`);
    gz = run.stdout;
  } else {
    gz = gzipSync(await readFile(path), { level: 9 });
  }
  // The copy must be the file, byte for byte: a stale or broken one would be served instead.
  if (!gunzipSync(gz).equals(await readFile(path))) throw new Error(`${name}.gz does not match ${name}`);
  await writeFile(`${path}.gz`, gz);
  console.log(`precompressed ${name}: ${gz.length} bytes`);
}
