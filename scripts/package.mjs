// Makes ShardLab's npm package from the release build in dist/ (`make package`): the
// <shard-lab> element, the JavaScript module, the engine (its worker, glue and wasm),
// their typings, the element's words in each language, and a custom-elements.json
// manifest, with a package.json whose `exports`, `types` and `files` name exactly these.
// Writes target/package/shardlab-<version>.tgz (and the unpacked directory beside it),
// which installs with `npm install ./shardlab-<version>.tgz` and serves from any path.
import { mkdir, readFile, writeFile, rm, copyFile, readdir } from 'node:fs/promises';
import { spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const root = resolve(import.meta.dirname, '..');
const dist = resolve(root, process.env.SHARDLAB_DIST ?? 'dist');
// SHARDLAB_PACKAGE_OUT puts it elsewhere (the package test writes to a directory of its own).
const out = resolve(process.env.SHARDLAB_PACKAGE_OUT ?? join(root, 'target', 'package'));
const dir = join(out, 'shardlab');

const module = await readFile(join(dist, 'shardlab.js'), 'utf8').catch(() => {
  throw new Error(`package: ${dist}/shardlab.js is missing: build the site first (trunk build --release)`);
});
const engineDir = module.match(/engine-[0-9a-f]{16}/)?.[0];
if (!engineDir) throw new Error('package: shardlab.js names no engine directory');
const cargo = await readFile(join(root, 'Cargo.toml'), 'utf8');
const version = cargo.match(/^version = "([^"]+)"/m)[1];

await rm(out, { recursive: true, force: true });
await mkdir(join(dir, engineDir), { recursive: true });
await mkdir(join(dir, 'i18n'), { recursive: true });
for (const f of ['shardlab.js', 'shard-lab.js', 'shardlab.d.ts', 'shard-lab.d.ts', 'jsx.d.ts', 'vue.d.ts']) {
  await copyFile(join(dist, f), join(dir, f));
}
for (const f of await readdir(join(dist, engineDir))) {
  if (f.endsWith('.gz') || f.endsWith('.br')) continue;
  await copyFile(join(dist, engineDir, f), join(dir, engineDir, f));
}

// The element's words: only its own keys of each language's catalogue.
const { ATTRIBUTES } = await import(pathToFileURL(join(dist, 'shard-lab.js')).href);
const english = JSON.parse(await readFile(join(root, 'static', 'i18n', 'en.json'), 'utf8'));
const ownKey = (k) => k.startsWith('element.') || k.startsWith('words.');
const languages = [];
for (const f of await readdir(join(root, 'static', 'i18n'))) {
  const m = f.match(/^([a-zA-Z-]+)\.json$/);
  if (!m || m[1] === 'en' || m[1].startsWith('lessons') || m[1].startsWith('glossary')) continue;
  const all = JSON.parse(await readFile(join(root, 'static', 'i18n', f), 'utf8'));
  const words = Object.fromEntries(Object.entries(all).filter(([k]) => ownKey(k) && k in english));
  await writeFile(join(dir, 'i18n', f), `${JSON.stringify(words, null, 1)}\n`);
  languages.push(m[1]);
}

// The manifest editors and documentation tools read (custom-elements-manifest schema 2).
const manifest = {
  schemaVersion: '2.0.0',
  readme: 'README.md',
  modules: [{
    kind: 'javascript-module',
    path: 'shard-lab.js',
    declarations: [{
      kind: 'class',
      name: 'ShardLabElement',
      tagName: 'shard-lab',
      customElement: true,
      description: 'A ShardLab figure: runs the mongosh script inside it on a simulated sharded cluster, a step per statement.',
      attributes: ATTRIBUTES.map((a) => ({
        name: a.name,
        ...(a.prop ? { fieldName: a.prop } : {}),
        type: { text: a.values ? a.values.map((v) => `'${v}'`).join(' | ') : a.type },
        default: JSON.stringify(a.default),
      })),
      members: [
        ...ATTRIBUTES.filter((a) => a.prop).map((a) => ({ kind: 'field', name: a.prop, attribute: a.name, reflects: true })),
        { kind: 'field', name: 'ready', readonly: true, type: { text: 'Promise<ShardLabElement>' } },
        { kind: 'field', name: 'loaded', readonly: true, type: { text: 'boolean' } },
        ...['load', 'run', 'play', 'pause', 'step', 'goto', 'reset', 'getState'].map((name) => ({ kind: 'method', name })),
      ],
      events: ['ready', 'step', 'split', 'migrate', 'play', 'pause', 'end', 'error'].map((e) => ({ name: `shardlab-${e}`, type: { text: 'CustomEvent' } })),
      cssParts: ['frame', 'label', 'status', 'body', 'poster', 'cluster', 'shard', 'shard-name', 'chunk', 'keybar', 'heatmap',
        'inspector', 'inspected', 'compare', 'console', 'prompt', 'input', 'controls', 'button', 'error'].map((name) => ({ name })),
      cssProperties: ['--shardlab-font', '--shardlab-mono', '--shardlab-bg', '--shardlab-fg', '--shardlab-muted', '--shardlab-border',
        '--shardlab-accent', '--shardlab-error', '--shardlab-radius', '--shardlab-shard-<n>'].map((name) => ({ name })),
    }],
    exports: [
      { kind: 'js', name: 'ShardLabElement', declaration: { name: 'ShardLabElement', module: 'shard-lab.js' } },
      { kind: 'custom-element-definition', name: 'shard-lab', declaration: { name: 'ShardLabElement', module: 'shard-lab.js' } },
    ],
  }],
};
await writeFile(join(dir, 'custom-elements.json'), `${JSON.stringify(manifest, null, 2)}\n`);
await copyFile(join(root, 'web', 'element', 'PACKAGE.md'), join(dir, 'README.md'));

const files = ['shardlab.js', 'shardlab.d.ts', 'shard-lab.js', 'shard-lab.d.ts', 'jsx.d.ts', 'vue.d.ts', 'custom-elements.json', `${engineDir}/`, 'i18n/'];
const pkg = {
  name: 'shardlab',
  version,
  description: 'A MongoDB sharding playground for documentation pages: the <shard-lab> element and the ShardLab engine (WebAssembly, in a Web Worker).',
  license: 'MIT',
  type: 'module',
  main: './shardlab.js',
  module: './shardlab.js',
  types: './shardlab.d.ts',
  exports: {
    '.': { types: './shardlab.d.ts', default: './shardlab.js' },
    './element': { types: './shard-lab.d.ts', default: './shard-lab.js' },
    './shard-lab.js': { types: './shard-lab.d.ts', default: './shard-lab.js' },
    './shardlab.js': { types: './shardlab.d.ts', default: './shardlab.js' },
    './jsx': { types: './jsx.d.ts' },
    './vue': { types: './vue.d.ts' },
    './custom-elements.json': './custom-elements.json',
    './package.json': './package.json',
    [`./${engineDir}/*`]: `./${engineDir}/*`,
    './i18n/*': './i18n/*',
  },
  files,
  customElements: 'custom-elements.json',
  sideEffects: ['./shard-lab.js'],
  keywords: ['mongodb', 'sharding', 'web-component', 'custom-element', 'playground'],
  shardlab: { engine: engineDir, languages: ['en', ...languages] },
};
await writeFile(join(dir, 'package.json'), `${JSON.stringify(pkg, null, 2)}\n`);

const packed = spawnSync('npm', ['pack', '--pack-destination', out, '--json', '--silent'], { cwd: dir, encoding: 'utf8' });
if (packed.status !== 0) throw new Error(`package: npm pack failed: ${packed.stderr}`);
const [{ filename, size, unpackedSize }] = JSON.parse(packed.stdout);
console.log(`package: ${join(out, filename)} (${size} bytes packed, ${unpackedSize} unpacked)`);
