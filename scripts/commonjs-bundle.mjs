// The esbuild options of the CommonJS bundle of the CLI (dist/bundle/cli-commands.cjs: the commands without the TUI,
// run by src/start.ts with V8's code cache), shared by scripts/build.mjs and bench/grep-real.mjs's floor (the same
// code, built the same way, with the few functions the floor calls exported beside the CLI's).
import { dirname, join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/** This checkout's src/: its dynamic import()s are the ones the CommonJS bundle leaves out. */
const SRC = join(dirname(fileURLToPath(import.meta.url)), '..', 'src') + sep;

/**
 * The CommonJS bundle holds no browser and no MCP server: src/start.ts sends those commands to the ES module bundle,
 * and the dynamic import()s of src/ (which load them: src/cli/browse.ts, src/cli/mcp.ts) become a module that says
 * so, instead of inlining Ink, React and yoga (whose top-level await CommonJS cannot hold).
 */
const withoutDynamicImports = {
  name: 'without-dynamic-imports',
  setup(esbuild) {
    esbuild.onResolve({ filter: /.*/ }, (args) => (args.kind === 'dynamic-import' && args.importer.startsWith(SRC) ? { path: args.path, namespace: 'esm-only' } : undefined));
    esbuild.onLoad({ filter: /.*/, namespace: 'esm-only' }, (args) => ({
      contents: `throw new Error(${JSON.stringify(`${args.path} is in the ES module bundle only (dist/bundle/cli.js; see src/start.ts)`)});`,
      loader: 'js',
    }));
  },
};

/**
 * Node's builtins that a command of the CommonJS bundle needs only on some paths (spawning an agent or ssh, the JS
 * search engine's and the summaries' workers, a prompt, a digest), required when first used instead of at the bundle's
 * top (esbuild keeps every import as a require() where its module starts): ~20 ms of each start that never uses them.
 * A module importing one gets an object whose prototype's prototype requires the builtin on the first property asked
 * for, then becomes the builtin (later lookups are plain prototype lookups). Two levels, because esbuild's __toESM
 * copies a module's own properties (none here) onto an object made with the module's prototype.
 */
const LAZY_BUILTINS = ['child_process', 'worker_threads', 'crypto', 'perf_hooks', 'readline/promises'];
const lazyBuiltins = {
  name: 'lazy-builtins',
  setup(esbuild) {
    const filter = new RegExp(`^(node:)?(${LAZY_BUILTINS.join('|')})$`);
    esbuild.onResolve({ filter }, (args) =>
      args.namespace === 'lazy-builtin' ? { path: args.path, external: true } : { path: args.path.replace(/^node:/, ''), namespace: 'lazy-builtin' },
    );
    esbuild.onLoad({ filter: /.*/, namespace: 'lazy-builtin' }, (args) => ({
      contents: `const middle = Object.create(new Proxy(Object.create(null), {
  get(_, name) {
    if (name === '__esModule') return undefined;
    const builtin = require(${JSON.stringify(`node:${args.path}`)});
    Object.setPrototypeOf(middle, builtin);
    return builtin[name];
  },
}));
module.exports = Object.create(middle);
`,
      loader: 'js',
    }));
  },
};

/**
 * esbuild's options for a CommonJS bundle of the CLI: `output` names the entry points and where they go (entryPoints
 * or stdin, outdir or outfile); `moduleUrl` is the URL its import.meta.url stands for (default: the bundle's own),
 * next to which the workers and the native engine are found.
 */
export function commonJsCliBuild(output, { minify, moduleUrl = null }) {
  const url = moduleUrl === null ? "require('node:url').pathToFileURL(__filename).href" : JSON.stringify(moduleUrl);
  return {
    ...output,
    bundle: true,
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    minify,
    // The workers and the native engine are found next to the bundle, as from the ES module chunks beside it.
    // React's production build (see scripts/build.mjs).
    define: { 'process.env.NODE_ENV': '"production"', 'import.meta.url': '__sessionsModuleUrl' },
    banner: { js: `const __sessionsModuleUrl = ${url};` },
    external: ['react-devtools-core'],
    plugins: [withoutDynamicImports, lazyBuiltins],
    logLevel: 'warning',
  };
}
