// Build: tsc emits one module per source file into dist/ (tests and the benchmark import those), and
// esbuild bundles the CLI into dist/bundle/ so that startup loads a few files instead of hundreds
// (Ink and React alone are ~0.5 s of module loading unbundled). The TUI is a separate chunk, loaded
// only when the browser opens, so `sessions list` never pays for Ink.
import { build } from 'esbuild';
import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';

/**
 * yoga-layout (Ink's layout engine) loads its WebAssembly from a base64 data: URL, through `fetch` when
 * there is one: on Node that loads undici (the whole fetch stack, ~50 ms of a ~300 ms start) to decode a
 * string it could decode itself. Its own fallback for runtimes without fetch does exactly that: take it.
 */
const YOGA_FETCH = '"function"!=typeof fetch?Promise.resolve().then(function(){return wa()})';
const yogaWithoutFetch = {
  name: 'yoga-without-fetch',
  setup(esbuild) {
    esbuild.onLoad({ filter: /yoga-layout[\\/]dist[\\/]binaries[\\/]yoga-wasm-base64-esm\.js$/ }, (args) => {
      const source = readFileSync(args.path, 'utf8');
      if (!source.includes(YOGA_FETCH)) {
        return { contents: source, loader: 'js', warnings: [{ text: 'yoga-layout changed: its wasm is loaded through fetch again (slower start)' }] };
      }
      return { contents: source.replace(YOGA_FETCH, 'true?Promise.resolve().then(function(){return wa()})'), loader: 'js' };
    });
  },
};

/**
 * Ink measures and tokenizes every text of every frame again: `renderNodeToOutput` asks `widestLine` for each
 * text node's width (string-width: a regular expression per grapheme), and each frame's `Output` starts with
 * empty caches of the lines it tokenizes and the widths it measures. A keystroke changes a line or two of a
 * 48-line screen, so most of a frame's time went to measuring the same strings again; and each line inside a
 * box that clips is cut again with slice-ansi. These become caches that live across frames (bounded: emptied
 * when they hold too many strings).
 */
const FRAME_CACHE_LIMIT = 20000;
const inkFrameCaches = {
  name: 'ink-frame-caches',
  setup(esbuild) {
    const patch = (file, edits) => (args) => {
      let source = readFileSync(args.path, 'utf8');
      for (const [from, to] of edits) {
        if (!source.includes(from)) return { contents: source, loader: 'js', warnings: [{ text: `ink changed (${file}): frame caches not applied` }] };
        source = source.replace(from, to);
      }
      return { contents: source, loader: 'js' };
    };
    esbuild.onLoad(
      { filter: /ink[\\/]build[\\/]render-node-to-output\.js$/ },
      patch('render-node-to-output.js', [
        [
          'const renderNodeToOutput = (node, output, options) => {',
          `const textWidths = new Map();
const cachedWidestLine = (text) => {
    let width = textWidths.get(text);
    if (width === undefined) {
        if (textWidths.size >= ${FRAME_CACHE_LIMIT}) textWidths.clear();
        width = widestLine(text);
        textWidths.set(text, width);
    }
    return width;
};
const renderNodeToOutput = (node, output, options) => {`,
        ],
        ['const currentWidth = widestLine(text);', 'const currentWidth = cachedWidestLine(text);'],
      ]),
    );
    esbuild.onLoad(
      { filter: /ink[\\/]build[\\/]output\.js$/ },
      patch('output.js', [
        [
          'export default class Output {',
          `let sharedCaches = null;
const frameCaches = () => {
    if (sharedCaches === null || sharedCaches.styledChars.size + sharedCaches.widths.size + sharedCaches.blockWidths.size + sharedCaches.slices.size >= ${FRAME_CACHE_LIMIT}) sharedCaches = new OutputCaches();
    return sharedCaches;
};
export default class Output {`,
        ],
        ['caches = new OutputCaches();', 'caches = frameCaches();'],
        // a line inside a box that clips (overflow hidden) is cut with slice-ansi, which tokenizes it: once
        ['return sliceAnsi(line, from, to);', 'return this.caches.slice(line, from, to);'],
        [
          'getStringWidth(text) {',
          `slices = new Map();
    slice(line, from, to) {
        const key = from + ':' + to + ':' + line;
        let cached = this.slices.get(key);
        if (cached === undefined) {
            cached = sliceAnsi(line, from, to);
            this.slices.set(key, cached);
        }
        return cached;
    }
    getStringWidth(text) {`,
        ],
      ]),
    );
  },
};

rmSync('dist', { recursive: true, force: true });
execFileSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json'], { stdio: 'inherit' });
await build({
  // The workers (full-text search, summaries) are loaded by URL next to the chunk that starts them.
  entryPoints: { cli: 'src/cli.ts', 'grep-worker': 'src/catalog/grep-worker.ts', 'summary-worker': 'src/catalog/summary-worker.ts' },
  outdir: 'dist/bundle',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  minify: true,
  // React's production build: the development build spends seconds per search in performance.measure and GC.
  define: { 'process.env.NODE_ENV': '"production"' },
  // Ink's optional devtools integration is only loaded when DEV=true.
  external: ['react-devtools-core'],
  // Some bundled CommonJS dependencies call require(): give the ESM bundle one.
  banner: { js: "import { createRequire as __sessionsCreateRequire } from 'node:module'; const require = __sessionsCreateRequire(import.meta.url);" },
  plugins: [yogaWithoutFetch, inkFrameCaches],
  logLevel: 'warning',
});
