#!/usr/bin/env node
// grep's search engines alone, without the CLI (no start-up, no folder walk, no rows): every session file of a home
// handed to the native engine (native/search.c) and to the JS workers, as `sessions grep` hands them (Claude files
// asking for their lineage, the others for their cwd, stamps on), interleaved with `rg -l -F -uu` over the same
// folders, in one process per run. Medians of --runs; /proc/loadavg beside each word.
//
//   node bench/grep-engine.mjs --home DIR [--runs 7] [--words parsing,message,zqxvkjwy-absent]
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { BENCH_DIR as BENCH, PRODUCT_ROOT, loadProduct, median, option as opt } from './lib.mjs';

const root = PRODUCT_ROOT;
const args = process.argv.slice(2);

if (args[0] === '--child') {
  // One search in a fresh process: `--child ENGINE WORD LISTFILE`.
  const [, engine, word, list] = args;
  const grep = await loadProduct('catalog/grep.js');
  const native = await loadProduct('catalog/native-grep.js');
  const items = JSON.parse(readFileSync(list, 'utf8'));
  const data = { text: word, ignoreCase: false, count: false, context: null, notConversation: [], stamps: true };
  const start = performance.now();
  const pool = engine === 'native' ? new native.NativeGrepPool(native.nativeSearchAddon(), 2, data) : new grep.GrepPool(2, data);
  let matches = 0;
  pool.expect(Promise.resolve(items));
  await pool.run({ onMatch: () => matches++, onBatch: () => Promise.resolve([]), onProblem: () => {} });
  process.stdout.write(`${JSON.stringify({ ms: performance.now() - start, matches })}\n`);
  process.exit(0);
}

const home = resolve(opt('--home'));
const RUNS = Number(opt('--runs', 7));
const words = opt('--words', 'parsing,message,zqxvkjwy-absent').split(',');
const dirs = [join(home, '.codex'), join(home, '.claude'), join(home, 'src')];
if (!existsSync(join(root, 'native', 'build', 'Release', 'sessions_search.node'))) throw new Error('the native engine is not built (npm ci with a C compiler)');
const procLoad = () => readFileSync('/proc/loadavg', 'utf8').trim();

const files = [];
const walk = (dir) => {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) walk(path);
    else if (entry.isFile() && /\.jsonl?$/.test(entry.name)) files.push(path);
  }
};
for (const dir of dirs) if (existsSync(dir)) walk(dir);
const agentOf = (path) => (path.includes('/.claude/') ? 'claude' : path.includes('/.codex/') ? 'codex' : 'claw');
const items = files.map((path, index) => ({ index, agent: agentOf(path), paths: [path], sniffCwd: agentOf(path) !== 'claw', sniffLineage: agentOf(path) === 'claude' }));
const list = join(BENCH, '.work', `grep-engine-items-${process.pid}.json`);
mkdirSync(dirname(list), { recursive: true });
writeFileSync(list, JSON.stringify(items));

const child = (engine, word) => {
  const r = spawnSync(process.execPath, [fileURLToPath(import.meta.url), '--child', engine, word, list], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${engine} engine failed: ${r.stderr.slice(0, 400)}`);
  return JSON.parse(r.stdout);
};
const rg = (word) => {
  const start = performance.now();
  spawnSync('rg', ['-l', '-F', '-uu', '--', word, ...dirs], { encoding: 'utf8', maxBuffer: 2 ** 28 });
  return performance.now() - start;
};

const out = { home, files: files.length, runs: RUNS, words: [] };
for (const word of words) {
  const before = procLoad();
  const native = [];
  const js = [];
  const peer = [];
  let matches = null;
  for (let r = 0; r < RUNS; r++) {
    const n = child('native', word);
    const j = child('js', word);
    if (n.matches !== j.matches) throw new Error(`"${word}": the native engine found ${n.matches} sessions, the JS workers ${j.matches}`);
    matches = n.matches;
    native.push(n.ms);
    js.push(j.ms);
    peer.push(rg(word));
  }
  const entry = { word, matches, nativeMs: Math.round(median(native)), jsMs: Math.round(median(js)), rgUuMs: Math.round(median(peer)), procLoadavg: [before, procLoad()] };
  out.words.push(entry);
  process.stderr.write(`[grep-engine] "${word}" (${matches} of ${files.length} sessions): native ${entry.nativeMs} ms | JS workers ${entry.jsMs} ms | rg -l -F -uu (whole process) ${entry.rgUuMs} ms | /proc/loadavg ${before} → ${entry.procLoadavg[1]}\n`);
}
rmSync(list, { force: true });
process.stdout.write(`${JSON.stringify(out)}\n`);
