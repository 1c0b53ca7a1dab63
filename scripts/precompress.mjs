// Run by the Trunk post-build hook (scripts/minify-glue.mjs) once the glue is minified, in
// release builds: writes a gzip file and a brotli file beside each text and wasm file
// of the build (`shardlab-web_bg.wasm.gz`, `.br`, ...). The gzip is zopfli's, about 4%
// smaller than `gzip -9` and opened by any gzip decoder; the brotli is Node's zlib at its
// best quality (11) and largest window, about 20% smaller than that gzip on the wasm. A
// static host serves these as they are (nginx `gzip_static on` and `brotli_static on`,
// Caddy `precompressed br gzip`, most CDNs), brotli to browsers that accept it (every
// current one, over HTTPS) and gzip otherwise, so the page downloads the smaller file.
// Without the `zopfli` tool (Debian's package, which `scripts/setup.sh` installs), zlib
// at level 9 stands in and the build says so.
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { spawnSync } from 'node:child_process';
import { gzipSync, gunzipSync, brotliCompressSync, brotliDecompressSync, constants } from 'node:zlib';
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
  const raw = await readFile(path);
  const br = brotliCompressSync(raw, {
    params: {
      [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
      [constants.BROTLI_PARAM_LGWIN]: constants.BROTLI_MAX_WINDOW_BITS,
      [constants.BROTLI_PARAM_SIZE_HINT]: raw.length,
    },
  });
  // Each copy must be the file, byte for byte: a stale or broken one would be served instead.
  if (!gunzipSync(gz).equals(raw)) throw new Error(`${name}.gz does not match ${name}`);
  if (!brotliDecompressSync(br).equals(raw)) throw new Error(`${name}.br does not match ${name}`);
  await writeFile(`${path}.gz`, gz);
  await writeFile(`${path}.br`, br);
  console.log(`precompressed ${name}: ${gz.length} bytes gzip, ${br.length} brotli`);
}
