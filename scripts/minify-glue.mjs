// Trunk post-build hook: builds the engine the worker runs (scripts/build-engine.mjs),
// writes the pre-rendered first screen into index.html (scripts/prerender.mjs), then
// minifies wasm-bindgen's JS glue in release builds.
//
// Trunk 0.21's own JS minifier stops at the glue's `export default`, so release builds
// ship it unminified. This hook runs terser over it in the staging directory and
// rewrites the glue's subresource-integrity hash in index.html to match.
import { readFile, writeFile, readdir } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { minify } from 'terser';

const staging = process.env.TRUNK_STAGING_DIR;
// First the engine the worker runs, in every build (the page has no core of its own); it
// writes its <meta> into index.html.
if (staging) await import('./build-engine.mjs');
// Then the first screen, pre-rendered into index.html, in every build too.
if (staging) await import('./prerender.mjs');
if (process.env.TRUNK_PROFILE !== 'release' || !staging) process.exit(0);

const glue = (await readdir(staging)).filter((f) => /^shardlab-web-[0-9a-f]+\.js$/.test(f));
if (glue.length !== 1) throw new Error(`expected one glue file in ${staging}, found ${glue.length}`);
const path = join(staging, glue[0]);
const before = await readFile(path, 'utf8');
const { code } = await minify(before, { module: true, compress: { passes: 2 }, mangle: true });
await writeFile(path, code);

const sri = (text) => `sha384-${createHash('sha384').update(text).digest('base64')}`;
const indexPath = join(staging, 'index.html');
const html = await readFile(indexPath, 'utf8');
const old = sri(before);
if (!html.includes(old)) throw new Error(`index.html does not carry the glue's integrity hash ${old}`);
await writeFile(indexPath, html.replaceAll(old, sri(code)));
console.log(`minified ${glue[0]}: ${before.length} -> ${code.length} bytes`);

// The service worker that keeps the site for offline use, listing every file, then the
// precompressed copies, of the files as they are now.
await import('./offline.mjs');
await import('./precompress.mjs');
