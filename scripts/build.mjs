// Build: tsc emits one module per source file into dist/ (tests and the benchmark import those), and
// esbuild bundles the CLI into dist/bundle/ so that startup loads a few files instead of hundreds
// (Ink and React alone are ~0.5 s of module loading unbundled). The TUI is a separate chunk, loaded
// only when the browser opens, so `sessions list` never pays for Ink. Both write into a staging folder
// that is moved into dist/ when the build is whole (swapIn). The commands that never open the TUI or the MCP server
// run from a CommonJS bundle of the CLI as well (cli-commands.cjs), which src/start.ts (bin/sessions.js's first
// module, bundled alone as start.cjs) compiles with V8's code cache.
import { build } from 'esbuild';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { commonJsCliBuild } from './commonjs-bundle.mjs';
import { inkFrameCaches } from './ink-frame-caches.mjs';

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

/** Every file under `dir`, as paths relative to it. */
function filesUnder(dir) {
  try {
    return readdirSync(dir, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => relative(dir, join(entry.parentPath, entry.name)));
  } catch (error) {
    if (error.code === 'ENOENT') return [];
    throw error;
  }
}

/** The bundle's files of the build in dist/ (what a process already running may still import). */
const MANIFEST = join('bundle', '.files.json');
const ENTRY_POINTS = new Set([join('bundle', 'cli.js'), join('bundle', 'cli-commands.cjs'), join('bundle', 'grep-worker.js'), join('bundle', 'summary-worker.js')]);
/** What bin/sessions.js imports, moved in last: the bundles it loads are whole when it is. */
const START = join('bundle', 'start.cjs');

/**
 * Move a finished build from `staging` into `target` one file at a time (each rename atomic), so that dist/ is never
 * empty or half-written: a `sessions` started from this checkout during a build (an `npm link` user, a second
 * terminal) runs the old build or the new one. The bundle's chunks come before the entry points that import them;
 * the chunks of the build replaced are kept until the next build, for a process that started on it and loads a
 * chunk later (the TUI, a worker); anything older is removed.
 */
function swapIn(staging, target) {
  let previous = [];
  try {
    previous = JSON.parse(readFileSync(join(target, MANIFEST), 'utf8'));
  } catch {
    // no build there yet, or one from before the manifest: nothing to keep
  }
  const built = filesUnder(staging);
  const rank = (file) => (file === START ? 2 : ENTRY_POINTS.has(file) ? 1 : 0);
  const ordered = [...built].sort((a, b) => rank(a) - rank(b));
  for (const file of ordered) {
    mkdirSync(dirname(join(target, file)), { recursive: true });
    renameSync(join(staging, file), join(target, file));
  }
  const keep = new Set([...built, ...previous]);
  for (const file of filesUnder(target)) {
    if (!keep.has(file) && file !== MANIFEST) rmSync(join(target, file), { force: true });
  }
  const manifest = join(target, `${MANIFEST}.${process.pid}`);
  writeFileSync(manifest, JSON.stringify(built.filter((file) => file.split(sep)[0] === 'bundle')));
  renameSync(manifest, join(target, MANIFEST));
}

/** Is process `pid` still running (a staging folder of a build still under way)? */
function running(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === 'EPERM';
  }
}

// A build that was killed leaves its staging folder: the next one removes it.
for (const entry of readdirSync('.')) {
  const pid = /^dist\.building-(\d+)$/.exec(entry)?.[1];
  if (pid !== undefined && !running(Number(pid))) rmSync(entry, { recursive: true, force: true });
}
const staging = `dist.building-${process.pid}`;
// SESSIONS_NO_MINIFY=1: names a CPU profile can be read by (bench/typing-profile.mjs).
const minify = process.env.SESSIONS_NO_MINIFY !== '1';
// React's production build: the development build spends seconds per search in performance.measure and GC.
const define = { 'process.env.NODE_ENV': '"production"' };
try {
  execFileSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json', '--outDir', staging], { stdio: 'inherit' });
  await build({
    // The workers (full-text search, summaries) are loaded by URL next to the chunk that starts them.
    entryPoints: { cli: 'src/cli.ts', 'grep-worker': 'src/catalog/grep-worker.ts', 'summary-worker': 'src/catalog/summary-worker.ts' },
    outdir: join(staging, 'bundle'),
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    minify,
    define,
    // Ink's optional devtools integration is only loaded when DEV=true.
    external: ['react-devtools-core'],
    // Some bundled CommonJS dependencies call require(): give the ESM bundle one.
    banner: { js: "import { createRequire as __sessionsCreateRequire } from 'node:module'; const require = __sessionsCreateRequire(import.meta.url);" },
    plugins: [yogaWithoutFetch, inkFrameCaches],
    logLevel: 'warning',
  });
  await build(commonJsCliBuild({ entryPoints: { 'cli-commands': 'src/cli.ts' }, outdir: join(staging, 'bundle'), outExtension: { '.js': '.cjs' } }, { minify }));
  // Alone (no chunk to load first): it only picks a bundle. CommonJS, as bin/sessions.js is (bin/package.json): Node
  // starts a CommonJS entry without its ES module loader (~10 ms of every start); the browser and `mcp` load that
  // loader when they import() the ES module bundle.
  await build({
    entryPoints: { start: 'src/start.ts' },
    outdir: join(staging, 'bundle'),
    outExtension: { '.js': '.cjs' },
    bundle: true,
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    minify,
    define: { 'import.meta.url': '__sessionsModuleUrl' },
    banner: { js: "const __sessionsModuleUrl = require('node:url').pathToFileURL(__filename).href;" },
    logLevel: 'warning',
  });
  swapIn(staging, 'dist');
} finally {
  rmSync(staging, { recursive: true, force: true });
}
