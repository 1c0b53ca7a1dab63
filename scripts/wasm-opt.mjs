// binaryen's wasm-opt over every part of a split module, for the page's and the engine's
// release builds (scripts/build-page.mjs, scripts/build-engine.mjs).
//
// `-Oz` runs once, not to convergence: on the engine's first part `--converge` took four
// times as long (134 s against 32 s, npm's wasm-opt runs as wasm in Node, on one core)
// for 508 bytes of brotli out of 584,644. The parts are optimised side by side, one per
// core, since each wasm-opt is single-threaded.
import { spawn } from 'node:child_process';
import { availableParallelism } from 'node:os';

/** Runs `wasm-opt -Oz` in place on each of `files`, at most one per core at a time. */
export async function optimise(files, who) {
  const queue = [...files];
  const one = async () => {
    for (let f = queue.shift(); f !== undefined; f = queue.shift()) {
      const args = ['-Oz', '--strip-producers', f, '-o', f];
      const code = await new Promise((resolve, reject) => {
        const child = spawn('wasm-opt', args, { stdio: ['ignore', 'inherit', 'inherit'] });
        child.on('error', (e) => reject(new Error(`${who}: wasm-opt could not run: ${e.message}`)));
        child.on('close', resolve);
      });
      if (code !== 0) throw new Error(`${who}: wasm-opt ${args.join(' ')} failed (${code})`);
    }
  };
  const workers = Math.max(1, Math.min(availableParallelism(), queue.length));
  await Promise.all(Array.from({ length: workers }, one));
}
