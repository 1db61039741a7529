#!/usr/bin/env node
// A CPU profile of the browser's content search (node --cpu-prof; worker threads write their own profiles): the
// built app in tmux on a real-shaped home, WORD typed as a query, Ctrl-G RUNS times (each to its end, then Ctrl-G
// back), then Ctrl-C. Self time per function, per thread, inside the searches only: the first search apart from the
// others. Build unminified first for readable names: SESSIONS_NO_MINIFY=1 npm run build.
//
//   node bench/content-profile.mjs --home DIR [--xdg DIR] [--out DIR] [--content explain] [--runs 3] [--top 30]
import { mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Tmux, sleepSync, sq, option as opt, BENCH_DIR as BENCH, PRODUCT_ROOT as root } from './lib.mjs';

const home = resolve(opt('--home'));
const xdg = resolve(opt('--xdg', join(BENCH, '.work', `xdg-keys-${home.split('/').pop()}`)));
const outDir = resolve(opt('--out', join(BENCH, '.work', 'content-profile')));
const word = opt('--content', 'explain');
const RUNS = Number(opt('--runs', 3));
const TOP = Number(opt('--top', 30));
rmSync(outDir, { recursive: true, force: true });
mkdirSync(outDir, { recursive: true });
const tmux = new Tmux(`content-profile-${process.pid}`, { width: 160, height: 48 });
tmux.start();
process.on('exit', () => tmux.kill());
const cli = join(root, 'bin', 'sessions.js');
tmux.launch(`exec env XDG_CACHE_HOME=${sq(xdg)} XDG_CONFIG_HOME=${sq(join(outDir, 'config'))} NO_COLOR=1 TERM=xterm-256color LANG=C.UTF-8 ${sq(process.execPath)} ${process.env.NODE_FLAGS ?? ''} --cpu-prof --cpu-prof-dir ${sq(outDir)} ${sq(cli)} --all --home ${sq(home)} --claw-dir ${sq(join(home, 'src'))}`, outDir);
const header = (s) => s.split('\n')[0] ?? '';
const ready = tmux.waitFor((s) => / in all directories/.test(header(s)) && !/scanning|indexing/i.test(header(s)), { timeoutMs: 600000, pollMs: 20 });
if (!ready.ok) throw new Error(`never settled:\n${ready.screen}`);
sleepSync(3000);
tmux.sendLiteral(word);
tmux.waitFor((s) => new RegExp(`\\d+ matching "${word}"|Nothing matches`).test(s), { timeoutMs: 20000 });
/** Wall-clock spans of the searches (ms since the epoch). */
const spans = [];
for (let r = 0; r < RUNS; r++) {
  sleepSync(500);
  const from = Date.now();
  tmux.sendKeys('C-g');
  const done = tmux.waitFor((s) => /in transcripts/.test(header(s)) && !/searching/.test(header(s)), { timeoutMs: 120000, pollMs: 2 });
  spans.push([from, Date.now()]);
  process.stdout.write(`search ${r + 1}: ${Date.now() - from} ms ${done.ok ? '' : '(timed out)'} ${header(done.screen).trim()}\n`);
  tmux.sendKeys('C-g');
  tmux.waitFor((s) => !/in transcripts/.test(header(s)), { timeoutMs: 20000 });
}
tmux.sendKeys('C-c');
tmux.waitFor(() => tmux.paneDead(), { timeoutMs: 20000 });
sleepSync(500);

// A profile's clock is monotonic (µs); its endTime is taken when the thread stops: map by the file's last sample
// being ~now. Close enough for spans of seconds: each profile's offset is estimated from its end and the exit.
const exitAt = Date.now();
for (const file of readdirSync(outDir).filter((f) => f.endsWith('.cpuprofile')).sort()) {
  const prof = JSON.parse(readFileSync(join(outDir, file), 'utf8'));
  const stamps = [];
  let t = prof.startTime;
  for (const delta of prof.timeDeltas) stamps.push((t += delta));
  // the main thread's profile ends at the exit; a worker's ends when it stops (both before exitAt)
  const toWall = (us) => exitAt - 500 - (prof.endTime - us) / 1000;
  const byNode = new Map(prof.nodes.map((n) => [n.id, n]));
  for (const [label, pick] of [['first search', [0]], ['later searches', spans.map((_, i) => i).slice(1)]]) {
    const self = new Map();
    let total = 0;
    for (let i = 0; i < prof.samples.length; i++) {
      const wall = toWall(stamps[i]);
      if (!pick.some((k) => spans[k] && wall >= spans[k][0] && wall <= spans[k][1])) continue;
      const us = prof.timeDeltas[i + 1] ?? 0;
      const n = byNode.get(prof.samples[i]);
      if (n.callFrame.functionName === '(idle)') continue;
      total += us;
      const cf = n.callFrame;
      const key = `${cf.functionName || '(anonymous)'} ${cf.url.split('/').slice(-2).join('/')}:${cf.lineNumber + 1}`;
      self.set(key, (self.get(key) ?? 0) + us);
    }
    if (total === 0) continue;
    process.stdout.write(`\n${file} — ${label}: ${Math.round(total / 1000)} ms busy\n`);
    for (const [k, us] of [...self].sort((a, b) => b[1] - a[1]).slice(0, TOP)) process.stdout.write(`${(us / 1000).toFixed(0).padStart(7)} ms  ${k}\n`);
  }
}
