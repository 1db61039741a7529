#!/usr/bin/env node
// Replay of a big session in the TUI, in a real terminal (tmux), on a real-shaped home (issue 15): the browser with
// the catalog cache warm, `/` and the session's id typed, Enter; timed from Enter to the transcript's first screen
// (its first-turn header), then `G` and the wait until the whole file is read (no `reading…`); the process's peak
// memory (VmHWM) then, and before Enter (the list alone: what the transcript adds is the difference).
//
//   node bench/replay-real.mjs --home DIR --session PATH [--runs N]      prints one JSON line
import { spawnSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { oneLine, procMemory, sleepSync, sq, Tmux, option as opt, REPO_ROOT as root } from './lib.mjs';

const HOME = resolve(opt('--home', join(root, 'bench', 'data', 'real-10000')));
const SESSION = resolve(opt('--session', ''));
const RUNS = Number(opt('--runs', 2));
const BIN = join(root, 'bin', 'sessions.js');
const XDG = resolve(opt('--xdg', join(root, 'bench', '.work', 'xdg-replay-real')));
const env = { ...process.env, XDG_CACHE_HOME: XDG, XDG_CONFIG_HOME: join(XDG, 'config') };

const listed = JSON.parse(spawnSync(process.execPath, [BIN, 'list', '--all', '--json', '--home', HOME], { encoding: 'utf8', env, maxBuffer: 1 << 28 }).stdout);
const row = listed.find((s) => s.path === SESSION);
if (!row) throw new Error(`${SESSION} is not a row of ${HOME}`);
const title = oneLine(row.title).slice(0, 16);

const tmux = new Tmux('replay-real');
tmux.start();
const command = `exec env XDG_CACHE_HOME=${sq(XDG)} XDG_CONFIG_HOME=${sq(join(XDG, 'config'))} TERM=xterm-256color LANG=C.UTF-8 ${sq(process.execPath)} ${sq(BIN)} --all --home ${sq(HOME)}`;
const runs = [];
const load = [loadavg()[0]];
try {
  for (let i = 0; i < RUNS; i++) {
    const since = tmux.launch(command, root);
    const painted = tmux.waitFor((s) => /^sessions · /m.test(s) && s.split('\n').length > 5, { since, timeoutMs: 60000 });
    if (!painted.ok) throw new Error(`the list never painted:\n${painted.screen}`);
    sleepSync(1000);
    // typing searches at once (no `/` first); → opens the row read (Enter would resume it)
    tmux.sendLiteral(row.id.slice(0, 13));
    const filtered = tmux.waitFor((s) => s.includes(title), { timeoutMs: 20000 });
    sleepSync(500);
    const before = tmux.capture();
    // The list alone (catalog, search index): what the transcript adds is the difference.
    const listOnly = procMemory(tmux.panePid());
    const enter = process.hrtime.bigint();
    tmux.sendKeys('Right');
    const shown = tmux.waitFor((s) => s !== before && /\bturn 1\b/.test(s), { since: enter, timeoutMs: 60000, pollMs: 10 });
    const pid = tmux.panePid();
    tmux.sendKeys('G');
    const whole = tmux.waitFor((s) => !s.includes('reading…') && s !== shown.screen, { since: enter, timeoutMs: 180000, pollMs: 20 });
    sleepSync(500);
    const memory = procMemory(pid);
    runs.push({ ok: filtered.ok && shown.ok && whole.ok, firstScreenMs: shown.ms, wholeMs: whole.ms, hwmMB: Math.round((memory?.hwmKB ?? 0) / 1024), rssMB: Math.round((memory?.rssKB ?? 0) / 1024), listOnlyHwmMB: Math.round((listOnly?.hwmKB ?? 0) / 1024), listOnlyRssMB: Math.round((listOnly?.rssKB ?? 0) / 1024) });
    tmux.idle();
  }
} finally {
  tmux.kill();
}
load.push(loadavg()[0]);
process.stdout.write(`${JSON.stringify({ session: basename(SESSION), bytes: row.size, userTurns: row.userTurns, runs, load })}\n`);
