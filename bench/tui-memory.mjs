#!/usr/bin/env node
// The TUI's memory on a big home, the way a user holds it open: the built app in tmux on a warm cache
// (a first run builds it and is waited for until indexing ends), then VmRSS / VmHWM of the process
//   - 3 s after the first rows,
//   - after IDLE seconds with no key (default 40), and, when the warm scan was still running then (a loaded
//     machine), 20 s after it ended,
//   - after a search (a word typed one key at a time, its results counted, then 5 s more).
//
//   node bench/tui-memory.mjs HOME XDG_CACHE_HOME [--claw-dir DIR] [--idle S] [--query WORD] [--node-options '...'] [--node-flags '...']
// Prints one JSON object. run.mjs runs it in its `rss` section; it can also run alone after a build.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { Tmux, oneLine, procMemory, rowsShown, sleepSync, sq, BENCH_DIR as BENCH, PRODUCT_ROOT as PRODUCT } from './lib.mjs';

const CLI = join(PRODUCT, 'bin', 'sessions.js');
const args = process.argv.slice(2);
const opt = (name, fallback) => {
  const i = args.indexOf(name);
  if (i < 0) return fallback;
  const value = args[i + 1];
  args.splice(i, 2);
  return value;
};
const clawDir = opt('--claw-dir', null);
const IDLE_S = Number(opt('--idle', 40));
const QUERY = opt('--query', null);
const NODE_OPTIONS = opt('--node-options', '');
/** V8 flags on node's command line (NODE_OPTIONS takes only some). */
const NODE_FLAGS = opt('--node-flags', '').split(' ').filter(Boolean);
const [home, xdg] = args.map((p) => resolve(p));
if (!home || !xdg) throw new Error('usage: tui-memory.mjs HOME XDG_CACHE_HOME [--claw-dir DIR]');
mkdirSync(xdg, { recursive: true });
const load = () => loadavg().map((x) => Number(x.toFixed(2)));
const mb = (kb) => (kb === undefined ? null : Math.round(kb / 1024));

const cliArgs = ['--all', '--home', home, ...(clawDir ? ['--claw-dir', resolve(clawDir)] : ['--claw-dir', join(home, 'src')])];
const list = spawnSync(process.execPath, [CLI, 'list', '--json', ...cliArgs], { env: { ...process.env, XDG_CACHE_HOME: xdg, NO_COLOR: '1' }, maxBuffer: 2 ** 30, encoding: 'utf8' });
if (list.status !== 0) throw new Error(`list failed: ${list.stderr.slice(0, 400)}`);
const rows = JSON.parse(list.stdout);
const probes = [];
for (const s of rows.slice(0, 400)) for (const t of [s.title, s.name]) if (t && oneLine(t).length >= 12) probes.push(oneLine(t).slice(0, 20));
// A word of a title that is not the newest's (so the search changes the screen), or the one asked for.
const query = QUERY ?? (() => {
  for (const s of rows.slice(50)) {
    const word = oneLine(s.title).split(' ').find((w) => /^[a-z]{5,}$/i.test(w));
    if (word) return word.toLowerCase();
  }
  return 'session';
})();

const tmux = new Tmux(`mem-${process.pid}`);
tmux.start();
process.on('exit', () => tmux.kill());
const command = [
  'exec env -i',
  ...[['XDG_CACHE_HOME', xdg], ['XDG_CONFIG_HOME', join(xdg, 'config')], ['HOME', process.env.HOME ?? '/root'], ['PATH', process.env.PATH ?? '/usr/bin'], ['NODE_OPTIONS', NODE_OPTIONS]].filter(([, v]) => v).map(([k, v]) => `${k}=${sq(v)}`),
  'TERM=xterm-256color LANG=C.UTF-8',
  sq(process.execPath),
  ...NODE_FLAGS.map(sq),
  ...[CLI, ...cliArgs].map(sq),
].join(' ');
const header = (screen) => screen.split('\n').slice(0, 2).join('\n');
function start() {
  const since = tmux.launch(command, BENCH);
  const painted = tmux.waitFor((s) => rowsShown(s, probes, 3), { since, timeoutMs: 600000, pollMs: 20 });
  const settled = painted.ok ? tmux.waitFor((s) => !/scanning|indexing/i.test(header(s)), { since, timeoutMs: 600000, pollMs: 50 }) : null;
  return { painted, settled, pid: tmux.panePid() };
}
const out = { product: PRODUCT, home, sessions: rows.length, query, idleSeconds: IDLE_S, loadAtStart: load() };

/** Wait until a catalog cache file newer than `since` (ms) is there and has stopped growing; true when it is. */
function waitForCache(since) {
  const dir = join(xdg, 'sessions');
  const deadline = Date.now() + 180000;
  let last = -1;
  while (Date.now() < deadline) {
    const files = existsSync(dir) ? readdirSync(dir).filter((name) => /^catalog-v\d+-[0-9a-f]+\.jsonl$/.test(name)) : [];
    const newest = files.map((name) => statSync(join(dir, name))).filter((info) => info.mtimeMs >= since - 1000).sort((a, b) => b.mtimeMs - a.mtimeMs)[0];
    // Already warm: the file is not rewritten when nothing changed.
    if (!newest && files.length > 0 && Date.now() > since + 5000) return true;
    if (newest && newest.size === last) return true;
    last = newest?.size ?? -1;
    sleepSync(1000);
  }
  return false;
}

// The cache-building run (a no-op when the cache exists: then it is one more warm start).
const firstStarted = Date.now();
const first = start();
if (!first.painted.ok) throw new Error(`the TUI never painted rows:\n${first.painted.screen}`);
out.firstRun = { paintMs: Math.round(first.painted.ms), settledMs: first.settled?.ok ? Math.round(first.settled.ms) : null, hwmMB: mb(procMemory(first.pid)?.hwmKB) };
// The cache is written after indexing ends (tens of MB at 100k): quitting before it is whole would make the
// "warm" start a cold one.
out.firstRun.cacheWritten = waitForCache(firstStarted);
out.firstRun.hwmMB = mb(procMemory(first.pid)?.hwmKB);
tmux.idle();

const warmStarted = Date.now();
const warm = start();
if (!warm.painted.ok) throw new Error('the TUI never painted rows on the warm start');
const t0 = Date.now();
out.warm = { paintMs: Math.round(warm.painted.ms), settledMs: warm.settled?.ok ? Math.round(warm.settled.ms) : null };
const sample = () => {
  const m = procMemory(warm.pid);
  return { atS: Number(((Date.now() - t0) / 1000).toFixed(1)), rssMB: mb(m?.rssKB), hwmMB: mb(m?.hwmKB) };
};
sleepSync(3000);
out.after3s = sample();
const series = [];
while (Date.now() - t0 < IDLE_S * 1000) {
  sleepSync(2000);
  series.push(sample());
}
out.idle = series[series.length - 1] ?? sample();
// The warm scan (validating every file against the cache) ends with the first-screen file rewritten. Under load
// it can outlast the idle period: then also sample 20 s after it ended.
const headFile = () => {
  const dir = join(xdg, 'sessions');
  const name = existsSync(dir) ? readdirSync(dir).find((n) => /^catalog-v\d+-[0-9a-f]+\.head\.json$/.test(n)) : undefined;
  return name === undefined ? null : statSync(join(dir, name)).mtimeMs;
};
const scanEnded = () => {
  const at = headFile();
  return at !== null && at >= warmStarted ? Number(((at - t0) / 1000).toFixed(1)) : null;
};
out.scanEndS = scanEnded();
if (out.scanEndS === null || out.scanEndS > IDLE_S - 20) {
  while (Date.now() - t0 < 600000 && (out.scanEndS = scanEnded()) === null) {
    sleepSync(2000);
    series.push(sample());
  }
  while (out.scanEndS !== null && Date.now() - t0 < (out.scanEndS + 20) * 1000) {
    sleepSync(2000);
    series.push(sample());
  }
  out.scanEnd20s = series[series.length - 1] ?? null;
}
out.idleSeries = series.map((s) => s.rssMB);
// A search, one key at a time, as a user types it; then the list settles.
// typing searches at once (no `/` first)
for (const ch of query) {
  tmux.sendLiteral(ch);
  sleepSync(60);
}
const searched = tmux.waitFor((s) => s.toLowerCase().includes(query.toLowerCase()) && !/ranking|searching/i.test(header(s)), { timeoutMs: 60000, pollMs: 20 });
sleepSync(5000);
out.afterSearch = { ...sample(), screenSeen: searched.ok };
out.loadAtEnd = load();
tmux.idle();
process.stdout.write(`${JSON.stringify(out)}\n`);
