#!/usr/bin/env node
// Search latency per keystroke, in-process against the product's search module (dist/catalog/search.js),
// and `fzf --filter` on the same candidate lines (one whole fzf process per keystroke, input from a file).
//
//   node bench/search-bench.mjs --home DIR [--claw-dir DIR] [--sizes 1000,10000] [--runs 5] [--fzf-runs 3]
//
// The catalog comes from the product's own scan (dist/catalog/scan.js) of DIR; a size n takes the newest n
// sessions. Each query is typed one character at a time (every prefix is one search call, as the TUI makes
// them); one warm-up pass, then --runs passes; p50/p95 are over every keystroke of every measured pass.
// Prints one JSON object on stdout.
import { performance } from 'node:perf_hooks';
import { spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { percentile, option as opt, PRODUCT_ROOT as root } from './lib.mjs';

const home = resolve(opt('--home'));
const clawDir = resolve(opt('--claw-dir', join(home, 'src')));
const runs = Number(opt('--runs', 5));
const fzfRuns = Number(opt('--fzf-runs', 3));
const workDir = resolve(opt('--work', join(dirname(fileURLToPath(import.meta.url)), '.work')));
const wantSizes = opt('--sizes', '');
// Time budget per size and per tool: fewer measured passes (never fewer than one whole pass) when slow.
const budgetMs = Number(opt('--budget-ms', 60000));

// Words match on their own, in any order (`limiter rate`), and fzf's extended syntax: 'exact, ^prefix, suffix$,
// !not, a | b (the candidate lines fzf filters hold the same fields, so it answers the same queries).
export const QUERIES = ['rate limiter', 'fix login', 'sidebar', 'billing webhook', 'api-server', 'feat/auth', 'ECONNREFUSED', 'tests flaky', 'useAuth', 'üni', 'xyzzy',
  'limiter rate', 'flaky tests api', "'webhook", '^fix', 'flow$', 'migration !database', 'sidebar | pagination'];

const out = { home, runs, fzfRuns, queries: [...QUERIES], sizes: [] };
const dist = (p) => pathToFileURL(join(root, 'dist', p)).href;
if (!existsSync(join(root, 'dist', 'catalog', 'search.js'))) {
  out.status = 'not implemented';
  out.note = 'dist/catalog/search.js does not exist';
  process.stdout.write(`${JSON.stringify(out)}\n`);
  process.exit(0);
}
const { scanCatalog } = await import(dist('catalog/scan.js'));
const { resolveLocations } = await import(dist('catalog/locations.js'));
const search = await import(dist('catalog/search.js'));

const t0 = performance.now();
const locations = { ...resolveLocations({ home, roots: { claw: [clawDir] } }, { env: {}, homeDir: home, cwd: home }), rootsFromCwds: true };
const { sessions } = await scanCatalog(locations, {});
out.scanMs = Number((performance.now() - t0).toFixed(0));
out.catalogSessions = sessions.length;
// One id prefix from the middle of the catalog: a realistic "paste part of an id" query.
const idQuery = sessions[Math.floor(sessions.length / 2)]?.id.slice(0, 8) ?? '01234567';
const queries = [...QUERIES, idQuery];
out.queries = queries;

function candidateLine(s) {
  const prompts = Array.isArray(s.prompts) ? s.prompts : [s.firstPrompt ?? ''];
  return [s.title, s.name ?? '', ...prompts, s.cwd ?? '', s.gitBranch ?? '', s.id].join(' ').replace(/\s+/g, ' ');
}

const sizes = (wantSizes ? wantSizes.split(',').map(Number) : [sessions.length]).map((n) => Math.min(n, sessions.length));
mkdirSync(workDir, { recursive: true });
const devNull = openSync('/dev/null', 'w');
for (const n of [...new Set(sizes)]) {
  const subset = sessions.slice(0, n);
  const entry = { n };
  const b0 = performance.now();
  const index = new search.SearchIndex(subset);
  entry.indexBuildMs = Number((performance.now() - b0).toFixed(1));
  // Two ways to count a keystroke: the first page (SearchIndex.begin: prefilter + fuse.js ranking of the
  // strongest candidates, what the TUI paints; the rest is ranked in slices between keystrokes) and the full
  // ranking (SearchIndex.search: every candidate scored by fuse.js). Older builds have search() only.
  const hasBegin = typeof index.begin === 'function';
  entry.mode = hasBegin ? 'first page (begin) and full ranking (search)' : 'full ranking (search)';
  const typeAll = (record, recordFull) => {
    const perQuery = {};
    for (const q of queries) {
      index.search(''); // a fresh query: nothing to narrow from
      for (let i = 1; i <= q.length; i++) {
        const prefix = q.slice(0, i);
        if (hasBegin && record) {
          const s = performance.now();
          index.begin(prefix);
          record.push(performance.now() - s);
        }
        const s = performance.now();
        const hits = index.search(prefix);
        const ms = performance.now() - s;
        if (!hasBegin && record) record.push(ms);
        if (recordFull) recordFull.push(ms);
        if (i === q.length) perQuery[q] = hits.length;
      }
    }
    return perQuery;
  };
  // warm-up (JIT, lazy fuse.js structures): the first query, typed once; it also estimates a pass
  const totalKeys = queries.reduce((a, q) => a + q.length, 0);
  const w0 = performance.now();
  index.search('');
  for (let i = 1; i <= queries[0].length; i++) index.search(queries[0].slice(0, i));
  const passEstimate = ((performance.now() - w0) / queries[0].length) * totalKeys;
  if (passEstimate < budgetMs / 4) typeAll(null, null); // cheap: a whole warm-up pass
  const passes = Math.max(1, Math.min(runs, Math.floor(budgetMs / Math.max(passEstimate, 1))));
  entry.passes = passes;
  const samples = [];
  const full = [];
  for (let r = 0; r < passes; r++) entry.hits = typeAll(samples, full);
  entry.full = { p50: round(percentile(full, 50)), p95: round(percentile(full, 95)), max: round(Math.max(...full)) };
  entry.keystrokes = samples.length;
  entry.p50 = round(percentile(samples, 50));
  entry.p95 = round(percentile(samples, 95));
  entry.max = round(Math.max(...samples));
  // the first keystroke of a query is the widest search: report it on its own
  const firsts = [];
  for (let r = 0; r < passes; r++) for (const q of queries) {
    index.search('');
    const s = performance.now();
    if (hasBegin) index.begin(q.slice(0, 1));
    else index.search(q.slice(0, 1));
    firsts.push(performance.now() - s);
  }
  entry.firstKeyP50 = round(percentile(firsts, 50));

  // fzf --filter on the same candidate lines
  const linesPath = join(workDir, `candidates-${n}.txt`);
  writeFileSync(linesPath, `${subset.map(candidateLine).join('\n')}\n`);
  entry.candidateBytes = subset.reduce((a, s) => a + candidateLine(s).length + 1, 0);
  const fzf = spawnSync('fzf', ['--version'], { encoding: 'utf8' });
  if (fzf.status !== 0) {
    entry.fzf = { status: 'missing', note: 'fzf is not installed (apt-get install fzf)' };
  } else {
    const fzfSamples = [];
    const fzfHits = {};
    let fzfPasses = fzfRuns;
    for (let r = 0; r <= fzfPasses; r++) {
      const p0 = performance.now();
      for (const q of queries) {
        for (let i = 1; i <= q.length; i++) {
          const fd = openSync(linesPath, 'r');
          const s = performance.now();
          const res = spawnSync('fzf', ['--filter', q.slice(0, i)], { stdio: [fd, i === q.length && r === 0 ? 'pipe' : devNull, 'ignore'] });
          const ms = performance.now() - s;
          closeSync(fd);
          if (r > 0) fzfSamples.push(ms); // r = 0 is the warm-up pass
          if (r === 0 && i === q.length) fzfHits[q] = res.stdout ? res.stdout.toString().split('\n').filter(Boolean).length : null;
        }
      }
      // the warm-up pass (r = 0) sets how many measured passes fit the budget
      if (r === 0) fzfPasses = Math.max(1, Math.min(fzfRuns, Math.floor(budgetMs / Math.max(performance.now() - p0, 1))));
    }
    entry.fzf = { version: fzf.stdout.trim(), passes: fzfPasses, keystrokes: fzfSamples.length, p50: round(percentile(fzfSamples, 50)), p95: round(percentile(fzfSamples, 95)), max: round(Math.max(...fzfSamples)), hits: fzfHits };
  }
  out.sizes.push(entry);
  process.stderr.write(`search n=${n}: p50 ${entry.p50} ms p95 ${entry.p95} ms; fzf p50 ${entry.fzf.p50} ms p95 ${entry.fzf.p95} ms\n`);
}
closeSync(devNull);
out.status = 'ok';
out.heapMB = Math.round(process.memoryUsage().heapUsed / 1048576);
process.stdout.write(`${JSON.stringify(out)}\n`);

function round(x) {
  return Number(x.toFixed(2));
}
