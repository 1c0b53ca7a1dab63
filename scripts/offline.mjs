// Run by the Trunk post-build hook (scripts/minify-glue.mjs) in release builds, after
// everything else is in the staging directory: writes `sw.js`, the service worker that
// keeps the whole site for offline use (web/js/sw.js), with the list of the build's files,
// their bytes and a version (a hash of the list and the files) above its code.
import { readdir, readFile, writeFile, stat } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import { join, relative, resolve, sep } from 'node:path';

const staging = process.env.TRUNK_STAGING_DIR;
if (process.env.TRUNK_PROFILE !== 'release' || !staging) process.exit(0);
const root = resolve(process.env.TRUNK_SOURCE_DIR ?? '.');

// Every file the playground can ask for; not the precompressed copies (a host serves
// them in place of the originals), nor what only other pages use: the demo and examples
// pages, and the module and the element for documentation pages (with their types), nor
// English's catalogue, which the page and the element have compiled in (it is the source
// the other catalogues are checked against, shipped for translators).
const OTHERS = new Set(['sw.js', 'embed-demo.html', 'examples.html', 'shardlab.js', 'shard-lab.js', 'i18n/en.json']);
const files = (await readdir(staging, { recursive: true, withFileTypes: true }))
  .filter((e) => e.isFile())
  .map((e) => relative(staging, join(e.parentPath ?? e.path, e.name)).split(sep).join('/'))
  .filter((f) => !f.endsWith('.gz') && !f.endsWith('.br') && !f.endsWith('.d.ts') && !OTHERS.has(f))
  .sort();
const hash = createHash('sha256');
let bytes = 0;
for (const f of files) {
  const body = await readFile(join(staging, f));
  hash.update(f).update(body);
  bytes += (await stat(join(staging, f))).size;
}
const list = files;
const head = `const FILES = ${JSON.stringify(list)};\nconst BYTES = ${bytes};\nconst VERSION = '${hash.digest('hex').slice(0, 16)}';\n`;
const code = await readFile(join(root, 'web', 'js', 'sw.js'), 'utf8');
await writeFile(join(staging, 'sw.js'), head + code);
console.log(`offline: sw.js keeps ${files.length} files, ${bytes} bytes`);
