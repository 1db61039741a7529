#!/usr/bin/env node
// The exact index on a home of real shapes (bench/clone-real.mjs), beside its floors, in one run:
//   - the full-read floor: a node process reading every byte of the same files in 1 MiB chunks, counting lines
//     (bench/io-floor.mjs --full);
//   - ripgrep counting `"type":"user"` lines in the same folder (`rg -c`), for scale;
//   - the cold exact index: `sessions list --all --json` with no cache (whole process);
//   - the warm index: the same with the cache it wrote;
//   - one turn appended to the 50 MB and 200 MB sessions, re-indexed from the saved fold (bench/append-inproc.mjs).
//
//   node bench/exact-index.mjs [--sessions N] [--runs R] [--out FILE]
// run.mjs runs it in its `index` section (`npm run bench -- --only index`); it can also run alone after a build.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { CLONE_VERSION, median, timeProcess, option as opt, BENCH_DIR as BENCH, PRODUCT_ROOT as PRODUCT } from './lib.mjs';

const N = Number(opt('--sessions', 10000));
const RUNS = Number(opt('--runs', 3));
const OUT = resolve(opt('--out', join(BENCH, '.work', 'exact-index.json')));
const CLI = join(PRODUCT, 'bin', 'sessions.js');
const NODE = process.execPath;
const WORK = join(BENCH, '.work');
mkdirSync(WORK, { recursive: true });
const log = (line) => process.stderr.write(`[exact-index] ${line}\n`);

// ---------------------------------------------------------------- the home
const home = join(BENCH, 'data', `real-${N}`);
const manifestPath = join(home, 'manifest.json');
// The 50/100/200 MB clones (a home made with --turn-shapes has the 20k- and 50k-turn sessions too).
const wanted = (m) => m.version === CLONE_VERSION && m.sessions === N && m.big.length >= 3;
if (!existsSync(manifestPath) || !wanted(JSON.parse(readFileSync(manifestPath, 'utf8')))) {
  log(`cloning ${N} real-shaped sessions (and 50/100/200 MB ones) into ${home}`);
  const r = spawnSync(NODE, [join(BENCH, 'clone-real.mjs'), '--sessions', String(N), '--out', home, '--big'], { stdio: 'inherit' });
  if (r.status !== 0) throw new Error('clone-real.mjs failed');
}
const manifest = JSON.parse(readFileSync(manifestPath, 'utf8'));
const clawDir = join(home, 'src');
const envFor = (xdg) => {
  const env = { ...process.env, XDG_CACHE_HOME: xdg, XDG_CONFIG_HOME: join(WORK, 'xdg-config'), NO_COLOR: '1' };
  delete env.CODEX_HOME;
  delete env.CLAUDE_CONFIG_DIR;
  return env;
};
const load = () => loadavg().map((x) => Number(x.toFixed(2)));
const results = { date: new Date().toISOString(), sessions: N, runs: RUNS, loadAtStart: load(), home: { bytes: manifest.bytes, counts: manifest.counts, big: manifest.big, templates: Object.fromEntries(Object.entries(manifest.templates).map(([agent, list]) => [agent, list.map((t) => t.version)])) } };

// ---------------------------------------------------------------- floors and peers
const floorRuns = Array.from({ length: RUNS }, () => {
  const r = timeProcess(NODE, [join(BENCH, 'io-floor.mjs'), home, '--claw-dir', clawDir, '--full'], { captureStdout: true });
  return { ms: r.ms, inner: JSON.parse(r.stdout) };
});
results.floor = { ms: median(floorRuns.map((r) => r.ms)), files: floorRuns[0].inner.files, bytes: floorRuns[0].inner.bytes, lines: floorRuns[0].inner.lines };
log(`full-read floor: ${results.floor.ms.toFixed(0)} ms for ${results.floor.files} files, ${(results.floor.bytes / 2 ** 20).toFixed(0)} MiB`);
const rg = spawnSync('sh', ['-c', 'command -v rg']).status === 0;
if (rg) {
  const rgRuns = Array.from({ length: RUNS }, () => timeProcess('rg', ['-c', '--hidden', '--no-ignore', '"type":"user"', home]).ms);
  results.ripgrep = { ms: median(rgRuns) };
  log(`rg -c --hidden --no-ignore '"type":"user"': ${results.ripgrep.ms.toFixed(0)} ms`);
}

// ---------------------------------------------------------------- the exact index, cold and warm
const cold = Array.from({ length: RUNS }, () => {
  const xdg = mkdtempSync(join(WORK, 'xdg-exact-cold-'));
  const r = timeProcess(NODE, [CLI, 'list', '--all', '--json', '--home', home, '--claw-dir', clawDir], { env: envFor(xdg), captureStdout: true, cwd: WORK });
  rmSync(xdg, { recursive: true, force: true });
  if (r.status !== 0) throw new Error(`list failed: ${r.stderr.slice(0, 400)}`);
  return r;
});
const rows = JSON.parse(cold[0].stdout);
results.cold = { ms: median(cold.map((r) => r.ms)), maxRssMB: Math.round(median(cold.map((r) => r.maxRssKB)) / 1024), rows: rows.length, inexactRows: rows.filter((row) => row.userTurnsExact !== true).length };
results.cold.ratioToFloor = results.cold.ms / results.floor.ms;
if (results.ripgrep) results.cold.ratioToRipgrep = results.cold.ms / results.ripgrep.ms;
log(`cold exact index: ${results.cold.ms.toFixed(0)} ms (${results.cold.ratioToFloor.toFixed(2)}× the floor), ${rows.length} rows, ${results.cold.inexactRows} inexact`);

const xdgWarm = mkdtempSync(join(WORK, 'xdg-exact-warm-'));
timeProcess(NODE, [CLI, 'list', '--all', '--json', '--home', home, '--claw-dir', clawDir], { env: envFor(xdgWarm), cwd: WORK });
const warm = Array.from({ length: RUNS }, () => timeProcess(NODE, [CLI, 'list', '--all', '--json', '--home', home, '--claw-dir', clawDir], { env: envFor(xdgWarm), cwd: WORK }).ms);
rmSync(xdgWarm, { recursive: true, force: true });
results.warm = { ms: median(warm) };
log(`warm index (cache, nothing changed): ${results.warm.ms.toFixed(0)} ms`);

// ---------------------------------------------------------------- one turn appended to a big session
results.append = manifest.big.map((big) => {
  const runs = Array.from({ length: RUNS }, () => {
    const r = timeProcess(NODE, [join(BENCH, 'append-inproc.mjs'), home, big.agent, join(home, big.path)], { captureStdout: true, env: { ...process.env, SESSIONS_BENCH_PRODUCT: PRODUCT } });
    if (r.status !== 0) throw new Error(`append-inproc failed: ${r.stderr.slice(0, 400)}`);
    return JSON.parse(r.stdout);
  });
  const out = { agent: big.agent, bytes: big.bytes, appendedBytes: runs[0].appendedBytes, bytesRead: runs[0].bytesRead, coldMs: median(runs.map((r) => r.coldMs)), appendMs: median(runs.map((r) => r.appendMs)), userTurns: [runs[0].userTurnsBefore, runs[0].userTurnsAfter] };
  log(`${big.agent} ${(big.bytes / 2 ** 20).toFixed(0)} MiB: one turn (${out.appendedBytes} B) re-indexed in ${out.appendMs} ms reading ${out.bytesRead} B (whole file: ${out.coldMs.toFixed(0)} ms)`);
  return out;
});
results.loadAtEnd = load();
mkdirSync(dirname(OUT), { recursive: true });
writeFileSync(OUT, `${JSON.stringify(results, null, 2)}\n`);
process.stdout.write(`${JSON.stringify(results)}\n`);
