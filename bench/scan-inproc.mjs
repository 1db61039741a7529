#!/usr/bin/env node
// In-process cold scan: import the product's catalog scan from dist/ and list every session of a home
// folder the way the TUI does (head+tail summaries, no exact turn counts, no cache).
//   node bench/scan-inproc.mjs HOME CLAW_DIR
// Prints {sessions, importMs, ms} (ms = the scanCatalog call alone).
import { performance } from 'node:perf_hooks';
import { join, resolve } from 'node:path';
import { loadProduct } from './lib.mjs';

// the product under test: this checkout, or SESSIONS_BENCH_PRODUCT (a snapshot built by run.mjs --snapshot)
const [home, clawDir] = process.argv.slice(2).map((p) => resolve(p));
const t0 = performance.now();
const { scanCatalog } = await loadProduct('catalog/scan.js');
const { resolveLocations } = await loadProduct('catalog/locations.js');
const t1 = performance.now();
const locations = resolveLocations({ home, roots: { claw: [clawDir ?? join(home, 'src')] } }, { env: {}, homeDir: home, cwd: home });
const { sessions, problems } = await scanCatalog(locations, {});
const t2 = performance.now();
process.stdout.write(`${JSON.stringify({ sessions: sessions.length, problems: problems.length, importMs: Number((t1 - t0).toFixed(1)), ms: Number((t2 - t1).toFixed(1)) })}\n`);
