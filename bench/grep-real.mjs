#!/usr/bin/env node
// `sessions grep WORD` against ripgrep on a home of real shapes (bench/clone-real.mjs), in one run, for three
// words chosen from the data: a rare one (in about 5 % of the session files), a common one (in the most files)
// and one in none. Peers: `rg -l -F -uu` (every file, hidden folders and ignored files too: what `sessions`
// searches) and `rg -l -F --no-ignore-vcs` (ripgrep's default walk, which skips hidden folders such as .claw,
// so it reads less). Whole processes, medians of --runs, interleaved; the machine's load is recorded with each
// word, and each process's CPU time (user + sys). `sessions grep` runs with the catalog cache `list` made (as a user's
// is) and the walk memo and trigram maps the first grep after it wrote (timed apart), and once with --no-cache (no
// cache, no memo, no maps).
// Both search engines in the same run, interleaved with the peers: the native one (native/search.c, the default when
// built) and the JS workers (SESSIONS_GREP_ENGINE=js); /proc/loadavg is recorded beside each word's figures.
// Each word's floor with its rows free, in the same run: `node -e 0`, plus the CLI's code loaded and the matching
// files found in one process (--floor-child), against the target's limit (2× rg -uu). `sessions` is run as a user
// runs it, its bin as an executable, whose `#!/bin/sh` line starts Node without NODE_EXTRA_CA_CERTS (bin/sessions.js):
// the floor's Node starts without it too.
//
//   node bench/grep-real.mjs --home DIR [--runs 3] [--out FILE]
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { performance } from 'node:perf_hooks';
import { median, timeProcess, option as opt, BENCH_DIR as BENCH, PRODUCT_ROOT as root } from './lib.mjs';

const args = process.argv.slice(2);
if (args[0] === '--floor-child') {
  // The least `sessions grep WORD` takes with its rows free, in one fresh process, in parts: the CLI's code loaded as
  // the command loads it (a CommonJS bundle of it, built as dist/bundle/cli-commands.cjs is with the few functions
  // called here exported too, compiled by dist/bundle/start.cjs's loader with the code cache an earlier run made; main
  // not called), then `grepLocations` given the options the command gives it (the walk memo, the trigram maps and
  // the catalog cache) and `onFiles`: the matching files are found and no row is made. (Node's start is timed apart,
  // as `node -e 0`.)
  const [, word, home, clawDir, bundle, codeCache] = args;
  const loading = performance.now();
  const { loadCommonJs } = createRequire(import.meta.url)(join(root, 'dist', 'bundle', 'start.cjs'));
  const cli = loadCommonJs(bundle, codeCache).exports;
  const bundleMs = performance.now() - loading;
  const { homedir } = await import('node:os');
  const locations = cli.resolveLocations({ home, roots: { claw: [clawDir] } }, { env: process.env, homeDir: homedir(), cwd: process.cwd() });
  const cachePath = cli.defaultCachePath(process.env, homedir(), locations);
  const options = {
    engine: 'native',
    walkSynchronously: true,
    walkMemo: cli.defaultWalkMemoPath(process.env, homedir(), locations),
    trigrams: cli.trigramMapsBeside(cachePath),
    cache: async () => cli.CatalogCache.lazySync(cachePath),
    onMatch: () => undefined,
  };
  let files = 0;
  const started = performance.now();
  await cli.grepLocations(locations, word, { ...options, onFiles: () => files++ });
  process.stdout.write(`${JSON.stringify({ bundleMs, searchMs: performance.now() - started, files })}\n`);
  process.exit(0);
}

const home = resolve(opt('--home'));
const clawDir = join(home, 'src');
const RUNS = Number(opt('--runs', 3));
const OUT = opt('--out', null);
const NODE = process.execPath;
const CLI = join(root, 'bin', 'sessions.js');
const WORK = join(BENCH, '.work');
mkdirSync(WORK, { recursive: true });
const load = () => loadavg().map((x) => Number(x.toFixed(2)));
const procLoad = () => (existsSync('/proc/loadavg') ? readFileSync('/proc/loadavg', 'utf8').trim() : load().join(' '));
const nativeBuilt = existsSync(join(root, 'native', 'build', 'Release', 'sessions_search.node'));
const log = (line) => process.stderr.write(`[grep-real] ${line}\n`);
const dirs = [join(home, '.codex'), join(home, '.claude'), clawDir];

const rgFiles = (word, extra) => spawnSync('rg', ['-l', '-F', ...extra, '--', word, ...dirs], { encoding: 'utf8', maxBuffer: 2 ** 28 }).stdout.split('\n').filter(Boolean);
const files = rgFiles('"type"', ['-uu']).length;

// Words from the titles the clones share; their file counts from rg itself.
const manifest = JSON.parse(readFileSync(join(home, 'manifest.json'), 'utf8'));
const titles = spawnSync('rg', ['-o', '-N', '-I', '-uu', '--max-count', '1', '"(?:title|thread_name|summary|message)":"[^"]{4,80}"', ...dirs], { encoding: 'utf8', maxBuffer: 2 ** 28 }).stdout;
const words = [...new Set(titles.toLowerCase().match(/\b[a-z]{6,12}\b/g) ?? [])].slice(0, 60);
const counted = words.map((word) => ({ word, files: rgFiles(word, ['-uu']).length })).filter((w) => w.files > 0);
counted.sort((a, b) => a.files - b.files);
const rare = counted.reduce((best, w) => (Math.abs(w.files - files * 0.05) < Math.abs(best.files - files * 0.05) ? w : best), counted[0]);
const common = counted[counted.length - 1];
const chosen = [
  { kind: 'rare', ...rare },
  { kind: 'common', ...common },
  { kind: 'absent', word: 'zqxvkjwy-absent', files: 0 },
];
log(`${files} files; words: ${chosen.map((w) => `${w.kind} "${w.word}" (${w.files} files)`).join(', ')}`);

const out = { home, sessions: manifest.sessions, files, runs: RUNS, nativeBuilt, words: [] };
if (!nativeBuilt) log('the native search engine is not built (npm ci without a C compiler?): both columns are the JS engine');
// The catalog cache a user has (`list` or the browser made it): grep takes unchanged sessions' rows from it.
const xdg = mkdtempSync(join(WORK, 'xdg-grep-'));
const env = { ...process.env, XDG_CACHE_HOME: xdg, XDG_CONFIG_HOME: join(WORK, 'xdg-config'), NO_COLOR: '1', SESSIONS_GREP_ENGINE: 'native' };
/** The environment of the Node that bin/sessions.js starts (see there). */
const { NODE_EXTRA_CA_CERTS: _extraCerts, ...nodeEnv } = env;
const listed = timeProcess(CLI, ['list', '--all', '--json', '--home', home, '--claw-dir', clawDir], { env, cwd: WORK });
if (listed.status !== 0) throw new Error(`list failed: ${listed.stderr.slice(0, 400)}`);
// The first grep after `list` walks the folders and keeps what it found (the walk memo), and maps the big files it reads
// to their end (trigram maps: a later search for text such a file cannot hold reads only what was appended); the timed
// runs use both. Another absent word than the timed one: the maps hold the files' trigrams, not any word's answer.
const FIRST_WORD = 'qvzzkx-first-grep';
const firstGrep = timeProcess(CLI, ['grep', FIRST_WORD, '--home', home, '--claw-dir', clawDir], { env, cwd: WORK });
out.firstGrep = { word: FIRST_WORD, ms: Number(firstGrep.ms.toFixed(1)), cpuMs: firstGrep.cpuMs, load: load() };
log(`first grep after list (walks, writes the walk memo and the trigram maps): ${out.firstGrep.ms} ms, CPU ${firstGrep.cpuMs} ms`);
// The floor's code: the CLI's CommonJS bundle as scripts/build.mjs makes it, with what the floor calls exported too. Its
// first run (untimed) writes the code cache the timed ones use, as the first grep did for the command.
const floorBundle = join(xdg, 'grep-floor.cjs');
const floorCodeCache = join(xdg, 'grep-floor.code-cache');
const { build } = await import('esbuild');
const { commonJsCliBuild } = await import(pathToFileURL(join(root, 'scripts', 'commonjs-bundle.mjs')).href);
const floorEntry = [
  "export * from './src/cli.ts';",
  "export { grepLocations } from './src/catalog/grep.ts';",
  "export { resolveLocations } from './src/catalog/locations.ts';",
  "export { CatalogCache, defaultCachePath } from './src/catalog/cache.ts';",
  "export { defaultWalkMemoPath } from './src/catalog/walk-memo.ts';",
  "export { trigramMapsBeside } from './src/catalog/trigram-maps.ts';",
].join('\n');
const moduleUrl = pathToFileURL(join(root, 'dist', 'bundle', 'cli-commands.cjs')).href;
await build(commonJsCliBuild({ stdin: { contents: floorEntry, resolveDir: root, loader: 'ts', sourcefile: 'grep-floor.ts' }, outfile: floorBundle }, { minify: true, moduleUrl }));
const floorArgs = (word) => [fileURLToPath(import.meta.url), '--floor-child', word, home, clawDir, floorBundle, floorCodeCache];
timeProcess(NODE, floorArgs(FIRST_WORD), { env: nodeEnv, cwd: WORK });
for (const w of chosen) {
  const loadBefore = load();
  const procBefore = procLoad();
  const ours = [];
  const oursJs = [];
  const uu = [];
  const plain = [];
  /** `node -e 0` (Node's start and exit, nothing loaded) and the parts of the floor (see --floor-child). */
  const bare = [];
  const floors = [];
  let matched = null;
  for (let r = 0; r < RUNS; r++) {
    // interleaved, so that a change of load hits all three alike
    const o = timeProcess(CLI, ['grep', w.word, '--home', home, '--claw-dir', clawDir], { env, captureStdout: true, cwd: WORK });
    if (o.status !== 0 && o.status !== 1) throw new Error(`sessions grep failed (${o.status}): ${o.stderr.slice(0, 400)}`);
    matched = o.stdout.split('\n').filter(Boolean).length;
    ours.push(o);
    const j = timeProcess(CLI, ['grep', w.word, '--home', home, '--claw-dir', clawDir], { env: { ...env, SESSIONS_GREP_ENGINE: 'js' }, captureStdout: true, cwd: WORK });
    if (j.stdout.split('\n').filter(Boolean).length !== matched) throw new Error(`the JS engine found ${j.stdout.split('\n').filter(Boolean).length} rows, the native one ${matched}`);
    oursJs.push(j);
    uu.push(timeProcess('rg', ['-l', '-F', '-uu', '--', w.word, ...dirs], { captureStdout: true }));
    plain.push(timeProcess('rg', ['-l', '-F', '--no-ignore-vcs', '--', w.word, ...dirs], { captureStdout: true }));
    bare.push(timeProcess(NODE, ['-e', '0'], { env: nodeEnv, cwd: WORK }));
    const f = timeProcess(NODE, floorArgs(w.word), { env: nodeEnv, captureStdout: true, cwd: WORK });
    if (f.status !== 0) throw new Error(`the floor's process failed (${f.status}): ${f.stderr.slice(0, 400)}`);
    floors.push(JSON.parse(f.stdout.trim()));
  }
  // once without the cache: every matching session indexed from its files
  const cold = timeProcess(CLI, ['grep', w.word, '--no-cache', '--home', home, '--claw-dir', clawDir], { env, captureStdout: true, cwd: WORK });
  const ms = (list) => Number(median(list.map((x) => x.ms)).toFixed(1));
  const entry = {
    ...w,
    oursMs: ms(ours),
    oursMaxRssMB: Math.round(median(ours.map((x) => x.maxRssKB)) / 1024),
    // The same command on the JS engine (SESSIONS_GREP_ENGINE=js), in the same run.
    oursJsMs: ms(oursJs),
    oursJsCpuMs: median(oursJs.map((x) => x.cpuMs)),
    // CPU time (user + sys), medians: at 2 shared cores the wall time follows it, and ripgrep suffers more from load.
    oursCpuMs: median(ours.map((x) => x.cpuMs)),
    rgUuCpuMs: median(uu.map((x) => x.cpuMs)),
    rows: matched,
    rgUuMs: ms(uu),
    rgUuFiles: uu[0].stdout.split('\n').filter(Boolean).length,
    rgMs: ms(plain),
    rgFiles: plain[0].stdout.split('\n').filter(Boolean).length,
    noCacheMs: Number(cold.ms.toFixed(1)),
    load: [loadBefore, load()],
    procLoadavg: [procBefore, procLoad()],
  };
  // The floor with rows free: Node's start and exit, the CLI's code loaded, the files found (no row made). Against
  // the target's limit, 2× rg -uu: what is left for the rows (negative: the target is out of reach before one row).
  const part = (key) => Number(median(floors.map((x) => x[key])).toFixed(1));
  entry.floor = { bareNodeMs: ms(bare), bundleMs: part('bundleMs'), searchMs: part('searchMs'), files: floors[0].files };
  entry.floor.ms = Number((entry.floor.bareNodeMs + entry.floor.bundleMs + entry.floor.searchMs).toFixed(1));
  entry.floor.limitMs = Number((2 * entry.rgUuMs).toFixed(1));
  entry.floor.leftForRowsMs = Number((entry.floor.limitMs - entry.floor.ms).toFixed(1));
  entry.ratioUuJs = Number((entry.oursJsMs / entry.rgUuMs).toFixed(2));
  entry.ratioUu = Number((entry.oursMs / entry.rgUuMs).toFixed(2));
  entry.ratio = Number((entry.oursMs / entry.rgMs).toFixed(2));
  out.words.push(entry);
  log(`${w.kind} "${w.word}": sessions grep ${entry.oursMs} ms (${matched} rows; --no-cache ${entry.noCacheMs} ms; JS engine ${entry.oursJsMs} ms, ${entry.ratioUuJs}×, CPU ${entry.oursJsCpuMs} ms) | rg -uu ${entry.rgUuMs} ms (${entry.rgUuFiles} files) ${entry.ratioUu}× | CPU ${entry.oursCpuMs} vs ${entry.rgUuCpuMs} ms | rg ${entry.rgMs} ms (${entry.rgFiles} files) ${entry.ratio}× | /proc/loadavg ${procBefore} → ${entry.procLoadavg[1]}`);
  log(`  floor with rows free: node -e 0 ${entry.floor.bareNodeMs} + CLI code ${entry.floor.bundleMs} + files found ${entry.floor.searchMs} (${entry.floor.files} sessions) = ${entry.floor.ms} ms; 2× rg -uu = ${entry.floor.limitMs} ms; left for ${matched} rows: ${entry.floor.leftForRowsMs} ms`);
}
rmSync(xdg, { recursive: true, force: true });
if (OUT) writeFileSync(resolve(OUT), `${JSON.stringify(out, null, 2)}\n`);
process.stdout.write(`${JSON.stringify(out)}\n`);
