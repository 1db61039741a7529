#!/usr/bin/env node
// A CPU profile of the browser while a query is typed (node --cpu-prof): the built app in tmux on a real-shaped
// home, each key sent once the previous key's final count is on screen, then Ctrl-C. Summarised by self time.
// Build unminified first for readable names: SESSIONS_NO_MINIFY=1 npm run build.
//
//   node bench/typing-profile.mjs --home DIR [--xdg DIR] [--out DIR] [--query Q]...
import { mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Tmux, sleepSync, sq, option as opt, BENCH_DIR as BENCH, PRODUCT_ROOT as root } from './lib.mjs';

const home = resolve(opt('--home'));
const xdg = resolve(opt('--xdg', join(BENCH, '.work', `xdg-keys-${home.split('/').pop()}`)));
const outDir = resolve(opt('--out', join(BENCH, '.work', 'typing-profile')));
const named = process.argv.slice(2).flatMap((arg, i, all) => (arg === '--query' && i + 1 < all.length ? [all[i + 1]] : []));
const queries = named.length > 0 ? named : ['deploy', 'websocket auth'];
rmSync(outDir, { recursive: true, force: true });
mkdirSync(outDir, { recursive: true });
const escapeRe = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const tmux = new Tmux(`typing-profile-${process.pid}`);
tmux.start();
process.on('exit', () => tmux.kill());
const cli = join(root, 'bin', 'sessions.js');
tmux.launch(`exec env XDG_CACHE_HOME=${sq(xdg)} XDG_CONFIG_HOME=${sq(join(outDir, 'config'))} NO_COLOR=1 TERM=xterm-256color LANG=C.UTF-8 ${process.env.NODE_EXTRA ?? ''} ${sq(process.execPath)} ${process.env.NODE_FLAGS ?? ''} --cpu-prof --cpu-prof-dir ${sq(outDir)} ${sq(cli)} --all --home ${sq(home)} --claw-dir ${sq(join(home, 'src'))}`, outDir);
const ready = tmux.waitFor((s) => / in all directories/.test(s.split('\n')[0] ?? '') && !/scanning|indexing/i.test(s.split('\n')[0] ?? ''), { timeoutMs: 600000, pollMs: 20 });
if (!ready.ok) throw new Error(`never settled:\n${ready.screen}`);
sleepSync(3000);
const times = [];
const typingStart = Date.now();
for (const q of queries) {
  for (let i = 1; i <= q.length; i++) {
    const prefix = q.slice(0, i);
    tmux.sendLiteral(q[i - 1]);
    if (q[i - 1] === ' ') {
      sleepSync(150);
      continue;
    }
    const r = tmux.waitFor((s) => new RegExp(`\\b\\d+ matching "${escapeRe(prefix.trim())}"`).test(s.split('\n')[0] ?? '') || s.includes(`Nothing matches "${prefix.trim()}"`), { timeoutMs: 20000, pollMs: 2 });
    times.push(`${prefix}: ${Math.round(r.ms)} ms`);
    sleepSync(20);
  }
  tmux.sendKeys('C-u');
  sleepSync(300);
}
const typingMs = Date.now() - typingStart;
tmux.sendKeys('C-c');
tmux.waitFor(() => tmux.paneDead(), { timeoutMs: 20000 });
const file = readdirSync(outDir).find((f) => f.endsWith('.cpuprofile'));
const prof = JSON.parse(readFileSync(join(outDir, file), 'utf8'));
// Only the typing: the samples of the last typingMs before the profile's end (start-up and the scan left out).
const stamps = [];
let t = prof.startTime;
for (const delta of prof.timeDeltas) stamps.push((t += delta));
const from = prof.endTime - typingMs * 1000 - 200000;
const self = new Map();
let total = 0;
for (let i = 0; i < prof.samples.length; i++) {
  if (stamps[i] < from) continue;
  const us = prof.timeDeltas[i + 1] ?? 0;
  total += us;
  self.set(prof.samples[i], (self.get(prof.samples[i]) ?? 0) + us);
}
const byFn = new Map();
for (const n of prof.nodes) {
  const us = self.get(n.id) ?? 0;
  if (!us) continue;
  const cf = n.callFrame;
  const key = `${cf.functionName || '(anonymous)'} ${cf.url.split('/').slice(-2).join('/')}:${cf.lineNumber + 1}`;
  byFn.set(key, (byFn.get(key) ?? 0) + us);
}
process.stdout.write(`${times.join(', ')}\n${file}: typing ${typingMs} ms, profiled ${Math.round(total / 1000)} ms\n`);
for (const [k, us] of [...byFn].sort((a, b) => b[1] - a[1]).slice(0, 40)) process.stdout.write(`${(us / 1000).toFixed(0).padStart(7)} ms  ${k}\n`);
