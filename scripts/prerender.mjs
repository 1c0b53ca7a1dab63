// Writes the playground's first screen into the staged index.html (ARCHITECTURE.md, "The
// first screen"): web/prerender runs the engine natively for the default scenario and
// renders the page's components from its answer with Yew's server renderer, so that a
// first visit shows the cluster before any wasm has loaded. Run by the Trunk post-build
// hook (scripts/minify-glue.mjs) in every build, after the engine's build.
import { spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';

const staging = process.env.TRUNK_STAGING_DIR;
if (!staging) throw new Error('prerender: TRUNK_STAGING_DIR is not set (run it through trunk)');
const root = resolve(process.env.TRUNK_SOURCE_DIR ?? '.');
const args = ['run', '--quiet', '-p', 'shardlab-prerender', '--', join(staging, 'index.html')];
const r = spawnSync('cargo', args, { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] });
if (r.error) throw new Error(`prerender: cargo could not run: ${r.error.message}`);
if (r.status !== 0) throw new Error(`prerender: cargo ${args.join(' ')} failed (${r.status})`);
