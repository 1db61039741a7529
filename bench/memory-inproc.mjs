#!/usr/bin/env node --expose-gc
// In-process memory of the TUI's catalog, component by component, the way the TUI holds it:
// the persisted cache loaded (kept for refines and saves), the scanned catalog validated against it, and a
// SearchIndex over that catalog after a few searches. Heap after a full GC, and the process's RSS / peak.
//   node --expose-gc bench/memory-inproc.mjs HOME XDG_CACHE_HOME [--claw-dir DIR]
// Without a cache in XDG_CACHE_HOME it first builds one (a cold scan + save, reported as `build`).
// Prints one JSON object.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { PRODUCT_ROOT as root, loadProduct as load } from './lib.mjs';

if (typeof globalThis.gc !== 'function') throw new Error('run with node --expose-gc');
const args = process.argv.slice(2);
const clawAt = args.indexOf('--claw-dir');
const clawDir = clawAt >= 0 ? resolve(args.splice(clawAt, 2)[1]) : null;
const [home, xdg] = args.map((p) => resolve(p));
const { CatalogCache, defaultCachePath } = await load('catalog/cache.js');
const { scanCatalog } = await load('catalog/scan.js');
const { conversations } = await load('catalog/merge-rows.js');
const { resolveLocations } = await load('catalog/locations.js');
const { SearchIndex } = await load('catalog/search.js');
const { watchCatalog } = await load('catalog/watch.js');

const locations = resolveLocations({ home, roots: { claw: [clawDir ?? join(home, 'src')] } }, { env: {}, homeDir: home, cwd: home });
const cachePath = defaultCachePath({ XDG_CACHE_HOME: xdg }, home, locations);
const mb = (bytes) => Number((bytes / 2 ** 20).toFixed(1));
const status = () => {
  const text = readFileSync('/proc/self/status', 'utf8');
  const kb = (key) => Number(new RegExp(`^${key}:\\s+(\\d+)`, 'm').exec(text)[1]);
  return { rssMB: mb(kb('VmRSS') * 1024), hwmMB: mb(kb('VmHWM') * 1024) };
};
const heap = () => {
  globalThis.gc();
  globalThis.gc();
  return process.memoryUsage().heapUsed;
};
const out = { product: root, home, cachePath };

if (!existsSync(cachePath)) {
  const t = performance.now();
  const cache = await CatalogCache.load(cachePath);
  const result = await scanCatalog(locations, { cache });
  await cache.save({ sessions: result.sessions, scopeDir: home });
  out.build = { sessions: result.sessions.length, ms: Math.round(performance.now() - t), ...status() };
  // A separate process measures the warm path: this one's peak includes the cold scan.
  process.stdout.write(`${JSON.stringify(out)}\n`);
  process.exit(0);
}

const base = heap();
let t = performance.now();
const cache = await CatalogCache.load(cachePath);
const loadMs = performance.now() - t;
const afterLoad = heap();
out.cacheLoad = { ms: Math.round(loadMs), heapMB: mb(afterLoad - base), rejected: cache.rejected, ...status() };

t = performance.now();
let unvalidated = conversations(cache.sessions());
out.cachedCatalog = { sessions: unvalidated.length, ms: Math.round(performance.now() - t), heapMB: mb(heap() - afterLoad) };
unvalidated = null;

t = performance.now();
const result = await scanCatalog(locations, { cache });
const afterScan = heap();
out.scan = { sessions: result.sessions.length, ms: Math.round(performance.now() - t), heapMB: mb(afterScan - afterLoad), cacheAndCatalogMB: mb(afterScan - base), ...status() };

t = performance.now();
const index = new SearchIndex(result.sessions);
const indexMs = performance.now() - t;
const afterIndex = heap();
for (const query of ['fix', 'auth session', 'ECONNREFUSED']) {
  const run = index.begin(query);
  while (!run.step(50));
}
const afterSearch = heap();
out.searchIndex = { ms: Math.round(indexMs), heapMB: mb(afterIndex - afterScan), afterSearchesMB: mb(afterSearch - afterScan) };

t = performance.now();
await cache.save({ sessions: result.sessions, scopeDir: home });
out.headSave = { ms: Math.round(performance.now() - t) };
// A full rewrite, as after a refine or a changed file.
const first = result.sessions.find((s) => s.paths.length === 1);
const info = statSync(first.path);
cache.store([[first.path, info.size, info.mtimeMs]], first);
t = performance.now();
await cache.save();
out.fullSave = { ms: Math.round(performance.now() - t), ...status() };
// The TUI starts watching after the scan: the watcher walks every wanted folder once.
t = performance.now();
const watcher = watchCatalog(locations, result.sessions, { context: result.context, onChange: () => undefined });
await watcher.ready;
const afterWatch = heap();
out.watch = { ms: Math.round(performance.now() - t), heapMB: mb(afterWatch - afterSearch), ...status() };
await watcher.close();
out.total = { heapMB: mb(heap() - base), ...status() };
process.stdout.write(`${JSON.stringify(out)}\n`);
