#!/usr/bin/env node
// What one keystroke of the browser's fuzzy search costs in process, on a real-shaped catalog: for each prefix of
// each query (typed one key at a time, as the TUI narrows), the walk to the final count (SearchIndex.begin, then
// step until `count` is known) and the reducer's `searchResults` with every match (what the list then holds).
// No terminal: where bench/keystrokes.mjs says a key is slow, this says which part.
//
//   node bench/typing-inproc.mjs --home DIR [--claw-dir DIR] [--xdg DIR] [--runs 5] [--query Q]...
//
// The catalog comes from the product's scan with the cache bench/keystrokes.mjs made (--xdg: the same default).
import { performance } from 'node:perf_hooks';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { loadCachedCatalog, median, percentile, option as opt, BENCH_DIR as BENCH, PRODUCT_ROOT as root } from './lib.mjs';

const home = resolve(opt('--home'));
const clawDir = resolve(opt('--claw-dir', join(home, 'src')));
const xdg = resolve(opt('--xdg', join(BENCH, '.work', `xdg-keys-${home.split('/').pop()}`)));
const runs = Number(opt('--runs', 5));
const named = process.argv.slice(2).flatMap((arg, i, all) => (arg === '--query' && i + 1 < all.length ? [all[i + 1]] : []));
const queries = named.length > 0 ? named : ['deploy', 'websocket auth'];
const dist = (p) => pathToFileURL(join(root, 'dist', p)).href;

const { SearchIndex } = await import(dist('catalog/search.js'));
const { browserReducer } = await import(dist('ui/reducer.js'));
const { initialState } = await import(dist('ui/state.js'));

const { sessions } = await loadCachedCatalog({ home, clawDir, xdg });
globalThis.gc?.();
const heapBefore = process.memoryUsage().heapUsed;
const t0 = performance.now();
const index = new SearchIndex(sessions);
const buildMs = performance.now() - t0;
let state = browserReducer(initialState({ size: { columns: 160, rows: 48 }, cwd: home, homeDir: home, now: Date.now(), scope: 'all' }), { type: 'scanDone', sessions, problems: [] });
const catalog = state.sessions;
index.setSessions(catalog);
const r = (x) => Number(x.toFixed(1));
process.stderr.write(`${sessions.length} sessions, index built in ${r(buildMs)} ms, heap ${Math.round(process.memoryUsage().heapUsed / 2 ** 20)} MB (index: ${globalThis.gc ? (globalThis.gc(), Math.round((process.memoryUsage().heapUsed - heapBefore) / 2 ** 20)) : '? (--expose-gc)'} MB), haystack ${index.haystack?.size ?? "none"} chars\n`);

const perPrefix = new Map();
for (let run = 0; run <= runs; run++) {
  for (const q of queries) {
    index.search(''); // nothing to narrow from
    for (let i = 1; i <= q.length; i++) {
      const prefix = q.slice(0, i);
      if (prefix.endsWith(' ')) continue;
      const cpu = process.cpuUsage();
      const s = performance.now();
      const search = index.begin(prefix);
      while (search.count === null) search.step(8);
      const walked = performance.now();
      // What use-search hands the reducer (older builds: every hit in one array).
      const hits = typeof search.matches === 'function' ? search.matches() : [...search.hits(), ...search.unrankedHits()];
      const made = performance.now();
      state = browserReducer({ ...state, query: prefix }, { type: 'searchResults', query: prefix, hits, pending: search.pending, counted: true, catalog });
      const end = performance.now();
      const used = process.cpuUsage(cpu);
      if (run === 0) continue; // warm-up
      const entry = perPrefix.get(prefix) ?? { count: search.count, walk: [], rows: [], total: [] };
      entry.walk.push(walked - s);
      entry.rows.push(end - walked);
      (entry.made ??= []).push(made - walked);
      entry.total.push(end - s);
      (entry.cpu ??= []).push((used.user + used.system) / 1000);
      perPrefix.set(prefix, entry);
    }
  }
}
const all = [...perPrefix.values()].flatMap((e) => e.total);
const out = { sessions: sessions.length, buildMs: r(buildMs), runs, p50: r(percentile(all, 50)), p95: r(percentile(all, 95)), prefixes: {} };
for (const [prefix, e] of perPrefix) {
  out.prefixes[prefix] = { count: e.count, walkMs: r(median(e.walk)), rowsMs: r(median(e.rows)), totalMs: r(median(e.total)), cpuMs: r(median(e.cpu)), maxMs: r(Math.max(...e.total)) };
  process.stderr.write(`${prefix.padEnd(16)} ${String(e.count).padStart(6)}  walk ${r(median(e.walk))}  rows ${r(median(e.rows))} (hits ${r(median(e.made))})  total ${r(median(e.total))} (max ${r(Math.max(...e.total))}) ms, CPU ${r(median(e.cpu))} ms\n`);
}
process.stdout.write(`${JSON.stringify(out)}\n`);
