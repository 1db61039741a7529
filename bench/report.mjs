#!/usr/bin/env node
// Markdown table of a benchmark run, for BENCHMARKS.md:  node bench/report.mjs [bench/results.json]
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { BENCH_DIR as here } from './lib.mjs';

const r = JSON.parse(readFileSync(resolve(process.argv[2] ?? join(here, 'results.json')), 'utf8'));
const f = (v, unit = '') => (v === null || v === undefined || Number.isNaN(v) ? '—' : `${Math.abs(v) >= 100 ? v.toFixed(0) : Math.abs(v) >= 10 ? v.toFixed(1) : v.toFixed(2)}${unit}`);
const by = Object.fromEntries(r.figures.map((x) => [x.id, x]));
const rows = [];
const row = (measure, ours, peer, ratio, target, met, runs) => rows.push(`| ${measure} | ${ours} | ${peer} | ${ratio} | ${target} | ${met === true ? '**met**' : met === false ? '**not met**' : met ?? ''} | ${runs ?? ''} |`);
const x = (a, b) => (Number.isFinite(a) && Number.isFinite(b) && b > 0 ? `${(a / b).toFixed(2)}×` : '—');

const ci = by['cold-index-list'];
if (ci) row(`Cold index, ${r.datasets.main.sessions} sessions: \`sessions list --all --json\`, no cache (whole process)`, f(ci.value, ' ms'), `I/O floor ${f(ci.peerValue, ' ms')} (${r.ioFloor?.files} files, ${((r.ioFloor?.bytes ?? 0) / 2 ** 20).toFixed(0)} MiB of heads+tails)`, x(ci.value, ci.peerValue), '≤ 1.5× floor', ci.met, ci.runs);
const cs = by['cold-index-scan'];
if (cs) row('Cold index, same sessions: `scanCatalog()` head+tail only (what the TUI runs), whole process', f(cs.value, ' ms'), `I/O floor ${f(cs.peerValue, ' ms')}`, x(cs.value, cs.peerValue), '≤ 1.5× floor', cs.met, cs.runs);
const wl = by['warm-index-list'];
if (wl) row('Warm index: `list --all --json` with the catalog cache', f(wl.value, ' ms'), `I/O floor ${f(wl.peerValue, ' ms')}`, x(wl.value, wl.peerValue), '—', null, wl.runs);
const ws = by['warm-start'];
const sp = r.startupPeers ?? {};
const cp = by['codex-picker'];
if (ws) {
  row(`Warm start → first rows painted, ${r.datasets.main.sessions} sessions (tmux)`, ws.value === null ? ws.status : f(ws.value, ' ms'), cp ? `Codex ${r.machine.codex?.split(' ').pop() ?? ''} picker ${f(cp.value, ' ms')} (${r.datasets.main.byAgent.codex} rollouts)` : 'Codex picker —', x(ws.value, cp?.value), '≤ 0.6× Codex', ws.met, ws.runs);
  row('… same start vs bare `node -e ""` (whole process)', f(ws.value, ' ms'), f(sp.nodeBareMs, ' ms'), x(ws.value, sp.nodeBareMs), '—', null, ws.runs);
  row('… same start vs hello-world Ink app painted (tmux)', f(ws.value, ' ms'), f(sp.helloInkPaintMs, ' ms'), x(ws.value, sp.helloInkPaintMs), '—', null, ws.runs);
}
for (const s of r.figures.filter((y) => y.id.startsWith('search-'))) {
  row(`Search per keystroke, ${s.label.match(/(\d+) sessions/)?.[1] ?? '?'} sessions${/lite/.test(s.label) ? ' (lite set)' : ''}: p50 / p95 first page${s.fullP95 !== undefined ? ' (full ranking p50 / p95)' : ''}`, s.value === null ? s.status : `${f(s.p50)} / ${f(s.value, ' ms')}${s.fullP95 !== undefined ? ` (${f(s.fullP50)} / ${f(s.fullP95, ' ms')})` : ''}`, `fzf --filter ${f(s.peerP50)} / ${f(s.peerValue, ' ms')}`, x(s.value, s.peerValue), s.target.replace(' and ', ', '), s.met, s.runs ? `${s.keystrokes} keys` : '');
}
const ft = by.fulltext;
if (ft) row('Full-text search over all transcripts', ft.value === null ? ft.status : f(ft.value, ' ms'), `${ft.peer} ${f(ft.peerValue, ' ms')}`, x(ft.value, ft.peerValue), '≤ 2× rg', ft.met, ft.runs ?? ft.peerRuns);
const rt = by['replay-tui'];
if (rt) row(`Replay the largest session (${((r.datasets.main.largest?.bytes ?? 0) / 2 ** 20).toFixed(0)} MiB) in the TUI: first screen; peak RSS`, rt.value === null ? rt.status : `${f(rt.value, ' ms')}; ${rt.peakRssMB} MB`, '—', '—', '≤ 200 ms; ≤ 250 MB', rt.met, rt.runs);
for (const rr of r.figures.filter((y) => y.id.startsWith('replay-real'))) {
  row(`… a 200 MiB Claude session (${rr.label.match(/\(([^;]+);/)?.[1] ?? '?'}), real-shaped home: first screen; VmHWM`, rr.value === null ? 'not measured' : `${f(rr.value, ' ms')}; ${rr.hwmMB} MB`, '—', '—', '≤ 200 ms; ≤ 250 MB', rr.met, rr.runs);
}
const rs = by['replay-show'];
if (rs) row('… `sessions show` of it (CLI): first line / whole run; peak RSS', `${f(rs.value, ' ms')} / ${f(rs.totalMs, ' ms')}; ${rs.peakRssMB} MB`, '—', '—', '—', null, rs.runs);
const w = by.watch;
if (w) row('Watch: new session file → its row painted', w.value === null ? w.status : f(w.value, ' ms'), '—', '—', '≤ 1 s', w.met, w.runs);
for (const t of r.figures.filter((y) => y.id.startsWith('tui-rss-'))) {
  const search = t.afterSearchMB !== undefined ? `; ${t.afterSearchMB} MB after a search` : '';
  row(`TUI memory, ${t.id.slice(8)} sessions${/lite/.test(t.label) ? ' (lite set)' : /real-shaped/.test(t.label) ? ' (real-shaped)' : ''}: RSS idle${search ? ', after a search' : ''} (peak)`, t.value === null ? t.status : `${t.value} MB${search} (${t.hwmMB} MB)`, '—', '—', t.target, t.met, t.runs);
}
process.stdout.write(`| Measure | sessions | Peer (same run) | Ratio | Target | | Runs |\n|---|---|---|---|---|---|---|\n${rows.join('\n')}\n`);
