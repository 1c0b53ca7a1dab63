// The splitter's loader (`__wasm_split.js`, which a split module's first part imports) with
// its fetch of each part replaced by one that says what went wrong: a part must come whole
// and from this build (its SHA-256 as the fetch's integrity), with a status of 200 and as
// application/wasm. The reason of the last failure is kept in `globalThis` as
// `shardlabPartError` for the host to quote; the loader itself only says "not loaded", and
// a later use tries again. Used by scripts/build-page.mjs (the page's panels) and
// scripts/build-engine.mjs (the engine's second part); under Node a part is read from the
// file beside the loader.
import { readFile, writeFile } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import { join } from 'node:path';

// `from`: the splitter's loader; `to`: where the rewritten one goes; `dir`: where the parts
// are (their bytes give the integrity); `parts`: their file names.
export async function writeLoader(from, to, dir, parts) {
  let text = await readFile(from, 'utf8');
  const integrity = {};
  for (const f of parts) {
    integrity[`./${f}`] = `sha256-${createHash('sha256').update(await readFile(join(dir, f))).digest('base64')}`;
  }
  const fetches = /fetch\(new URL\(("\.\/[\w.-]+\.wasm"), import\.meta\.url\)\)/g;
  const instantiates = /WebAssembly\.instantiateStreaming\(src, imports\)/g;
  const found = [...text.matchAll(fetches)].length;
  if (found !== parts.length || [...text.matchAll(instantiates)].length !== parts.length) {
    throw new Error(`split-loader: __wasm_split.js fetches ${found} parts, not the ${parts.length} made`);
  }
  text = text.replace(fetches, 'fetchPart($1)').replace(instantiates, 'instantiatePart(src, imports)');
  const helpers = `const PART_INTEGRITY = ${JSON.stringify(integrity)};
const PART_FAILED = new Set();
function partFailed(name, err) {
  PART_FAILED.add(name);
  const why = \`\${name}: \${err?.message ?? err}\`;
  globalThis.shardlabPartError = why;
  return new Error(why);
}
async function fetchPart(name) {
  const url = new URL(name, import.meta.url);
  try {
    if (url.protocol === 'file:') {
      // Under Node (the JavaScript module's engine in the process): the file beside it.
      const { readFile } = await import('node:fs/promises');
      return new Response(await readFile(url), { headers: { 'content-type': 'application/wasm' } });
    }
    let response;
    try {
      // After a failure, past the HTTP cache, which may hold the bad copy.
      const cache = PART_FAILED.has(name) ? 'reload' : 'default';
      response = await fetch(url, { integrity: PART_INTEGRITY[name], cache });
    } catch {
      // A failed integrity check and a lost network look alike: a second look tells.
      let again;
      try {
        again = await fetch(url, { cache: 'no-store' });
      } catch {
        throw new Error('the network is unreachable');
      }
      if (!again.ok) throw new Error(\`HTTP status \${again.status}\`);
      throw new Error('its bytes are not this build\\'s: cut short, or from another build (SHA-256 differs)');
    }
    if (!response.ok) throw new Error(\`HTTP status \${response.status}\`);
    response.partName = name;
    return response;
  } catch (err) {
    throw partFailed(name, err);
  }
}
async function instantiatePart(src, imports) {
  const response = await src;
  try {
    return await WebAssembly.instantiateStreaming(response, imports);
  } catch (err) {
    throw partFailed(response.partName, err);
  }
}
`;
  // After the import of the first part's glue, which must stay the first statement.
  const at = text.indexOf('\n', text.indexOf('import ')) + 1;
  await writeFile(to, text.slice(0, at) + helpers + text.slice(at));
}
