#!/usr/bin/env node
// The browser's content search, its two ways side by side in one process, on a bench home: the folder walk
// (`grepLocations` reporting files, each mapped to the catalog's row by path, as the reducer maps them) and the
// catalog's own files (`grepCatalog`, plus the stores' walk), each timed with its CPU and RSS; the sessions each finds
// must be the same. Prints the counts, the differences (none expected) and the times.
//
// --keys FILE: the sorted keys of the sessions the last run of each way found, one a line (FILE.walk, FILE.catalog), to
// compare two builds' findings whole.
//
//   node bench/content-rows.mjs --home DIR [--claw-dir DIR] [--xdg DIR] [--word explain] [--only walk|catalog] [--runs 1]
//                               [--keys FILE]
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { BENCH_DIR, loadCachedCatalog, option as opt, PRODUCT_ROOT as root } from './lib.mjs';

const home = resolve(opt('--home'));
const clawDir = resolve(opt('--claw-dir', join(home, 'src')));
const xdg = resolve(opt('--xdg', join(BENCH_DIR, '.work', `xdg-keys-${home.split('/').pop()}`)));
const word = opt('--word', 'explain');
const only = opt('--only', null);
const runs = Number(opt('--runs', 1));
const keysOut = opt('--keys', null);
const dist = (p) => pathToFileURL(join(root, 'dist', p)).href;
const { grepPlace } = await import(dist('app/grep.js'));
const { grepCatalog } = await import(dist('catalog/grep-catalog.js'));
const { ADAPTER_LIST } = await import(dist('core/formats/index.js'));
const { sessionKey } = await import(dist('core/model.js'));

const { sessions, locations } = await loadCachedCatalog({ home, clawDir, xdg });
const byPath = new Map();
for (const s of sessions) for (const p of s.paths) byPath.set(p, s);
const byKey = new Map(sessions.map((s) => [sessionKey(s), s]));
const rss = () => Math.round(process.memoryUsage().rss / 2 ** 20);
const cpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
process.stderr.write(`${sessions.length} rows, RSS ${rss()} MB after the scan\n`);

const stores = ADAPTER_LIST.filter((a) => a.store !== undefined).map((a) => a.agent);
/** The rows a search finds, as the reducer keeps them (a key wins; else the first path the catalog knows). */
async function measure(name, search) {
  const found = new Set();
  let first = null;
  let peak = rss();
  const timer = setInterval(() => (peak = Math.max(peak, rss())), 20);
  const t0 = performance.now();
  const c0 = cpu();
  await search((hit) => {
    first ??= performance.now() - t0;
    const row = hit.key !== undefined ? byKey.get(hit.key) : hit.paths.map((p) => byPath.get(p)).find((s) => s !== undefined);
    if (row) found.add(sessionKey(row));
  });
  const ms = performance.now() - t0;
  clearInterval(timer);
  peak = Math.max(peak, rss());
  const result = { name, rows: found.size, firstMs: Math.round(first ?? ms), doneMs: Math.round(ms), cpuMs: Math.round(cpu() - c0), peakRssMB: peak };
  process.stderr.write(`${JSON.stringify(result)}\n`);
  return found;
}
// What the browser's services ask (ui/services.ts).
const walked = (onHit, agents) =>
  grepPlace({ kind: 'local' }, word, { engine: 'native', ignoreCase: true, count: false, context: 80, readSnippets: false, ...(agents ? { agents } : {}), local: { locations }, onFiles: onHit });
const walk = (onHit) => walked(onHit);
const catalog = async (onHit) => {
  const search = grepCatalog(sessions, word, { ignoreCase: true, onFound: (s) => onHit({ key: sessionKey(s) }) });
  await Promise.all([search.done, walked(onHit, stores)]);
};
let a = null;
let b = null;
for (let r = 0; r < runs; r++) {
  if (only !== 'catalog') a = await measure('walk', walk);
  if (only !== 'walk') b = await measure('catalog', catalog);
}
if (keysOut !== null) {
  for (const [name, set] of [['walk', a], ['catalog', b]]) if (set) writeFileSync(`${keysOut}.${name}`, `${[...set].sort().join('\n')}\n`);
}
if (a && b) {
  const missing = [...a].filter((k) => !b.has(k));
  const extra = [...b].filter((k) => !a.has(k));
  process.stdout.write(`${JSON.stringify({ word, walk: a.size, catalog: b.size, missing: missing.slice(0, 20), missingCount: missing.length, extra: extra.slice(0, 20), extraCount: extra.length })}\n`);
}
