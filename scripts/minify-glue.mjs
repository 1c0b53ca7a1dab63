// Trunk post-build hook: builds the page's own module in parts (scripts/build-page.mjs),
// then the engine the worker runs (scripts/build-engine.mjs), writes the pre-rendered first
// screen into index.html (scripts/prerender.mjs), then, in release builds, the service
// worker and the precompressed copies of every file.
//
// The page's module is not Trunk's to build: Trunk's Rust pipeline runs wasm-bindgen
// straight after cargo, and the page is split between the two (trunk-rs/trunk#1022), so
// build-page.mjs runs cargo, wasm-split-cli, wasm-bindgen, wasm-opt and terser itself and
// writes the tags Trunk would have written.
const staging = process.env.TRUNK_STAGING_DIR;
// First the page's module, in every build; its tags go into index.html.
if (staging) await import('./build-page.mjs');
// Then the engine the worker runs, in every build (the page has no core of its own); it
// writes its <meta> into index.html.
if (staging) await import('./build-engine.mjs');
// Then the first screen, pre-rendered into index.html, in every build too.
if (staging) await import('./prerender.mjs');
if (process.env.TRUNK_PROFILE !== 'release' || !staging) process.exit(0);

// The service worker that keeps the site for offline use, listing every file, then the
// precompressed copies, of the files as they are now.
await import('./offline.mjs');
await import('./precompress.mjs');
