#!/usr/bin/env node
// Where the time goes: CPU profiles (node --cpu-prof) of the cold index and of a warm TUI start, summarised
// by self time per function and per module group, plus what each import costs on its own.
//   node bench/profile.mjs [--home DIR] [--out bench/.work/profile]
// Writes OUT/*.cpuprofile (open in Chrome DevTools) and OUT/summary.json; prints a summary.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Tmux, median, oneLine, rowsShown, sq, timeProcess, option as opt, PRODUCT_ROOT as root } from './lib.mjs';

// the product under test: this checkout, or SESSIONS_BENCH_PRODUCT (a snapshot built by run.mjs --snapshot)
const benchDir = dirname(fileURLToPath(import.meta.url));
const home = resolve(opt('--home', join(benchDir, 'data', 'home-10000-s1')));
const outDir = resolve(opt('--out', join(benchDir, '.work', 'profile')));
const clawDir = join(home, 'src');
const NODE = process.execPath;
const CLI = join(root, 'bin', 'sessions.js');
rmSync(outDir, { recursive: true, force: true });
mkdirSync(outDir, { recursive: true });
const env = (xdg) => ({ ...process.env, XDG_CACHE_HOME: xdg, XDG_CONFIG_HOME: join(outDir, 'config'), NO_COLOR: '1' });

function group(url) {
  if (!url) return '(native / gc / idle)';
  if (url.startsWith('node:')) return 'node internals';
  const m = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (m) return `npm:${m[1]}`;
  const d = /\/dist\/(.*)$/.exec(url);
  if (d) return `dist/${d[1].split('/').slice(0, d[1].startsWith('core/formats') ? 3 : 2).join('/')}`;
  return url.replace(/^file:\/\//, '').replace(root, '.');
}

function summarize(file) {
  const prof = JSON.parse(readFileSync(file, 'utf8'));
  const self = new Map(prof.nodes.map((n) => [n.id, 0]));
  const dt = prof.timeDeltas;
  for (let i = 0; i < prof.samples.length; i++) self.set(prof.samples[i], (self.get(prof.samples[i]) ?? 0) + (dt[i] ?? 0));
  const total = dt.reduce((a, b) => a + b, 0) / 1000;
  const byFn = new Map();
  const byGroup = new Map();
  for (const n of prof.nodes) {
    const us = self.get(n.id) ?? 0;
    if (!us) continue;
    const cf = n.callFrame;
    const name = cf.functionName || '(anonymous)';
    const where = cf.url ? `${group(cf.url)}:${cf.lineNumber + 1}` : '';
    const key = ['(idle)', '(program)', '(garbage collector)'].includes(name) ? name : `${name} ${where}`;
    byFn.set(key, (byFn.get(key) ?? 0) + us);
    const g = ['(idle)', '(program)', '(garbage collector)'].includes(name) ? name : group(cf.url);
    byGroup.set(g, (byGroup.get(g) ?? 0) + us);
  }
  const top = (m, n) => [...m].sort((a, b) => b[1] - a[1]).slice(0, n).map(([k, us]) => ({ name: k, ms: Number((us / 1000).toFixed(1)), pct: Number(((us / 1000 / total) * 100).toFixed(1)) }));
  return { totalMs: Number(total.toFixed(0)), byGroup: top(byGroup, 15), byFunction: top(byFn, 25) };
}

function profileRun(name, argv, xdg) {
  const dir = join(outDir, name);
  mkdirSync(dir, { recursive: true });
  const r = spawnSync(NODE, ['--cpu-prof', '--cpu-prof-dir', dir, ...argv], { env: env(xdg), stdio: ['ignore', 'ignore', 'pipe'], maxBuffer: 1 << 30 });
  if (r.status !== 0) throw new Error(`${name} failed: ${r.stderr}`);
  const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'));
  return summarize(join(dir, file));
}

const summary = { home, imports: {}, profiles: {} };

// 1. what imports cost, each in a fresh process (median of 5, minus bare node)
const importMs = (code) => median(Array.from({ length: 5 }, () => timeProcess(NODE, ['--input-type=module', '-e', code], { cwd: root }).ms));
const bare = importMs('');
summary.imports.bareNodeMs = Number(bare.toFixed(0));
for (const [label, spec] of [
  ['ink', 'ink'],
  ['react', 'react'],
  ['fuse.js', 'fuse.js'],
  ['commander', 'commander'],
  ['dist/catalog/scan.js', './dist/catalog/scan.js'],
  ['dist/cli.js (the CLI module graph, no UI)', './dist/cli.js'],
  ['dist/ui/run.js (the whole TUI module graph)', './dist/ui/run.js'],
]) {
  summary.imports[label] = Number((importMs(`await import(${JSON.stringify(spec)})`) - bare).toFixed(0));
}
summary.imports.versionMs = Number((median(Array.from({ length: 5 }, () => timeProcess(NODE, [CLI, '--version']).ms)) - bare).toFixed(0));

// 2. cold index: `list --all --json` (exact turn counts: full reads) and the TUI's head+tail scan
// The CLI bundle is minified: profile the cold list through tsc's per-module dist/cli.js so functions keep their names.
const unbundled = join(outDir, 'cli-unbundled.mjs');
writeFileSync(unbundled, `const { main } = await import(${JSON.stringify(pathToFileURL(join(root, 'dist', 'cli.js')).href)});\nawait main(process.argv);\n`);
const xdgCold = join(outDir, 'xdg-cold');
summary.profiles.coldList = profileRun('cold-list', [existsSync(join(root, 'dist', 'cli.js')) ? unbundled : CLI, 'list', '--all', '--json', '--home', home, '--claw-dir', clawDir], xdgCold);
rmSync(xdgCold, { recursive: true, force: true });
summary.profiles.coldScan = profileRun('cold-scan', [join(benchDir, 'scan-inproc.mjs'), home, clawDir], join(outDir, 'xdg-none'));
// 3. warm list (cache built by the run above is gone: build it, then profile the warm run)
const xdgWarm = join(outDir, 'xdg-warm');
spawnSync(NODE, [CLI, 'list', '--all', '--json', '--home', home, '--claw-dir', clawDir], { env: env(xdgWarm), stdio: 'ignore' });
summary.profiles.warmList = profileRun('warm-list', [CLI, 'list', '--all', '--json', '--home', home, '--claw-dir', clawDir], xdgWarm);

// 4. warm TUI start: profile from launch until rows are painted, then quit with q
if (existsSync(join(root, 'dist', 'ui', 'run.js'))) {
  const listed = JSON.parse(spawnSync(NODE, [CLI, 'list', '--all', '--json', '--home', home, '--claw-dir', clawDir], { env: env(xdgWarm), encoding: 'utf8', maxBuffer: 1 << 30 }).stdout);
  const probes = listed.slice(0, 400).flatMap((s) => [s.title, s.name]).filter((t) => t && oneLine(t).length >= 12).map((t) => oneLine(t).slice(0, 20));
  const tmux = new Tmux('profile');
  tmux.start();
  const dir = join(outDir, 'tui-warm');
  mkdirSync(dir, { recursive: true });
  const e = env(xdgWarm);
  const cmd = `exec env XDG_CACHE_HOME=${sq(e.XDG_CACHE_HOME)} XDG_CONFIG_HOME=${sq(e.XDG_CONFIG_HOME)} TERM=xterm-256color ${sq(NODE)} --cpu-prof --cpu-prof-dir ${sq(dir)} ${sq(CLI)} --all --home ${sq(home)} --claw-dir ${sq(clawDir)}`;
  tmux.launch(cmd, outDir); // first run: the TUI's own cache state
  tmux.waitFor((s) => rowsShown(s, probes), { timeoutMs: 120000 });
  tmux.sendKeys('C-c'); // q is typed into the search
  tmux.waitFor(() => tmux.paneDead(), { timeoutMs: 20000 });
  for (const f of readdirSync(dir)) rmSync(join(dir, f));
  const since = tmux.launch(cmd, outDir);
  const painted = tmux.waitFor((s) => rowsShown(s, probes), { since, timeoutMs: 120000 });
  tmux.sendKeys('C-c'); // q is typed into the search
  tmux.waitFor(() => tmux.paneDead(), { timeoutMs: 20000 });
  tmux.kill();
  const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'));
  if (file) summary.profiles.tuiWarm = { paintedMs: Math.round(painted.ms), note: 'profile covers launch → rows painted → q', ...summarize(join(dir, file)) };
}

writeFileSync(join(outDir, 'summary.json'), `${JSON.stringify(summary, null, 2)}\n`);
const p = (s) => process.stdout.write(`${s}\n`);
p(`imports (ms over bare node ${summary.imports.bareNodeMs} ms): ${Object.entries(summary.imports).filter(([k]) => k !== 'bareNodeMs').map(([k, v]) => `${k} ${v}`).join(', ')}`);
for (const [name, prof] of Object.entries(summary.profiles)) {
  p(`\n== ${name}: ${prof.totalMs} ms profiled${prof.paintedMs ? ` (rows painted at ${prof.paintedMs} ms)` : ''}`);
  p('  by module group:');
  for (const g of prof.byGroup.slice(0, 10)) p(`    ${String(g.ms).padStart(8)} ms ${String(g.pct).padStart(5)}%  ${g.name}`);
  p('  by function (self time):');
  for (const f of prof.byFunction.slice(0, 15)) p(`    ${String(f.ms).padStart(8)} ms ${String(f.pct).padStart(5)}%  ${f.name}`);
}
