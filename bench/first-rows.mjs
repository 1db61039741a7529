#!/usr/bin/env node
// First rows on a cold start: the built TUI (`sessions --all`) in a 160×48 tmux pane on a home of real shapes
// (bench/clone-real.mjs) with an empty cache, the pane captured every 5 ms until three session rows show (titles
// of the home's rows, as run.mjs's startup section probes them). Also when the header stops saying it is indexing.
//
//   node bench/first-rows.mjs [--sessions N] [--runs R]
// Prints one JSON line: {runs: [{firstRowsMs, indexedMs}], median, load}. The home must exist (npm run bench:data).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { Tmux, median, oneLine, rowsShown, sleepSync, sq, option as opt, BENCH_DIR as BENCH, PRODUCT_ROOT as PRODUCT } from './lib.mjs';

const N = Number(opt('--sessions', 10000));
const RUNS = Number(opt('--runs', 3));
const CLI = join(PRODUCT, 'bin', 'sessions.js');
const NODE = process.execPath;
const WORK = join(BENCH, '.work');
mkdirSync(WORK, { recursive: true });
const home = join(BENCH, 'data', `real-${N}`);
if (!existsSync(join(home, 'manifest.json'))) throw new Error(`no home at ${home}: npm run bench:data -- --sessions ${N}`);
const clawDir = join(home, 'src');
const cli = (extra) => [CLI, ...extra, '--home', home, '--claw-dir', clawDir];
const envFor = (xdg) => ({ XDG_CACHE_HOME: xdg, XDG_CONFIG_HOME: join(WORK, 'xdg-config'), HOME: process.env.HOME, PATH: process.env.PATH });
const load = () => loadavg().map((x) => Number(x.toFixed(2)));

// Probes: the titles of the newest rows (what the first screen shows), from a list with a cache of its own.
const xdgList = mkdtempSync(join(WORK, 'xdg-first-rows-list-'));
const listed = spawnSync(NODE, cli(['list', '--all', '--json']), { env: { ...process.env, ...envFor(xdgList) }, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024, cwd: WORK });
rmSync(xdgList, { recursive: true, force: true });
if (listed.status !== 0) throw new Error(`list failed: ${listed.stderr.slice(0, 400)}`);
const probes = [];
for (const s of JSON.parse(listed.stdout).slice(0, 400)) for (const t of [s.title, s.name]) if (t && oneLine(t).length >= 12) probes.push(oneLine(t).slice(0, 20));

const tmux = new Tmux('first-rows');
tmux.start();
process.on('exit', () => tmux.kill());
const loadAtStart = load();
const runs = [];
for (let r = 0; r < RUNS; r++) {
  const xdg = mkdtempSync(join(WORK, 'xdg-first-rows-'));
  const env = envFor(xdg);
  const vars = Object.entries(env).map(([k, v]) => `${k}=${sq(v)}`);
  const since = tmux.launch(`exec env -i ${vars.join(' ')} NO_COLOR=1 TERM=xterm-256color LANG=C.UTF-8 ${sq(NODE)} ${cli(['--all']).map(sq).join(' ')}`, WORK);
  const first = tmux.waitFor((s) => rowsShown(s, probes, 3), { since, timeoutMs: 120000, pollMs: 5 });
  const indexed = first.ok ? tmux.waitFor((s) => !/scanning|indexing/i.test(s.split('\n').slice(0, 2).join('\n')), { since, timeoutMs: 300000, pollMs: 20 }) : null;
  runs.push({ firstRowsMs: first.ok ? Math.round(first.ms) : null, indexedMs: indexed?.ok ? Math.round(indexed.ms) : null, load: load()[0] });
  process.stderr.write(`[first-rows] run ${r + 1}: first rows ${runs.at(-1).firstRowsMs} ms, indexed ${runs.at(-1).indexedMs} ms (load ${runs.at(-1).load})\n`);
  if (!first.ok) process.stderr.write(first.screen);
  tmux.idle();
  sleepSync(300);
  rmSync(xdg, { recursive: true, force: true });
}
const ok = runs.filter((r) => r.firstRowsMs !== null).map((r) => r.firstRowsMs);
process.stdout.write(`${JSON.stringify({ sessions: N, runs, median: ok.length > 0 ? median(ok) : null, loadAtStart, loadAtEnd: load() })}\n`);
