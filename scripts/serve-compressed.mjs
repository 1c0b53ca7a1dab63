// The static host the measure scripts load the build from (scripts/measure-ui.mjs,
// scripts/measure-element.mjs): every file served with the precompressed copy beside it
// (scripts/precompress.mjs: `.br` brotli, `.gz` gzip), as static hosts serve them, and
// every response logged. ENCODING=gzip serves gzip only (a host without brotli).
import { createServer } from 'node:http';
import { readdir, readFile } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { gzipSync } from 'node:zlib';

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.wasm': 'application/wasm',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.json': 'application/json',
};
// Already compressed: sent as they are.
const STORED = new Set(['.png', '.jpg', '.gif', '.webp', '.woff2']);

export const ENCODINGS = process.env.ENCODING === 'gzip' ? ['gzip'] : ['br', 'gzip'];

/** Serves `dir` on 127.0.0.1, compressed for clients that accept it (the first of
 * `ENCODINGS` the request accepts and the build has), and logs every response:
 * `{ path, bytes, encoding, gzipBytes }`. Resolves to `{ url, log, close }`. */
export async function serveCompressed(dir, extra = {}) {
  const files = new Map();
  for (const name of await readdir(dir, { recursive: true })) {
    let raw;
    try {
      raw = await readFile(join(dir, name));
    } catch {
      continue; // a directory
    }
    const ext = extname(name);
    if (ext === '.gz' || ext === '.br') continue;
    // A precompressed file beside it (scripts/precompress.mjs) is served as it is, as
    // static hosts do (nginx gzip_static/brotli_static); otherwise zlib's gzip at level 9.
    let gzip = null;
    let br = null;
    if (!STORED.has(ext)) {
      try {
        gzip = await readFile(join(dir, `${name}.gz`));
      } catch {
        gzip = gzipSync(raw, { level: 9 });
      }
      br = await readFile(join(dir, `${name}.br`)).catch(() => null);
    }
    files.set(`/${name.split('\\').join('/')}`, {
      raw,
      encoded: { gzip, br },
      type: TYPES[ext] ?? 'application/octet-stream',
    });
  }
  for (const [path, { body, type }] of Object.entries(extra)) {
    const raw = Buffer.from(body);
    files.set(path, { raw, encoded: { gzip: gzipSync(raw, { level: 9 }), br: null }, type });
  }
  const log = [];
  const server = createServer((req, res) => {
    let path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    if (path.endsWith('/')) path += 'index.html';
    const file = files.get(path);
    if (!file) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    const accepted = (req.headers['accept-encoding'] ?? '').split(',').map((e) => e.trim().split(';')[0]);
    const encoding = ENCODINGS.find((e) => file.encoded[e] && accepted.includes(e)) ?? 'identity';
    const body = encoding === 'identity' ? file.raw : file.encoded[encoding];
    res.writeHead(200, {
      'content-type': file.type,
      'content-length': body.length,
      'cache-control': 'no-cache',
      vary: 'accept-encoding',
      ...(encoding === 'identity' ? {} : { 'content-encoding': encoding }),
    });
    res.end(body);
    log.push({ path, bytes: body.length, encoding, gzipBytes: file.encoded.gzip?.length ?? body.length });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  return { url: `http://127.0.0.1:${port}/`, log, close: () => new Promise((r) => server.close(r)) };
}

