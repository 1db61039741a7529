#!/usr/bin/env node
// `sessions show ID --format html` of each big session (200 and 120 MB: issue 32's bound is ≤ 250 MB RSS for a
// 200 MB session), stdout drained through a pipe: peak RSS (/usr/bin/time's %M), wall and CPU time, the page's
// bytes, and whether it holds every user turn (its `<h2 id="turn-N">` headings against the row's count) and ends
// with `</html>`.
//
//   node bench/show-html.mjs [--home DIR] [--redact]
//
// Without --home, a small home with the big sessions is generated once (bench/generate.mjs --sessions 20 --big)
// into bench/data/home-20-big. Prints one JSON line per session.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { hasFlag, REPO_ROOT as root, option as opt } from './lib.mjs';

const BIN = join(root, 'bin', 'sessions.js');
const REDACT = hasFlag('--redact');
let HOME = opt('--home', null);
if (HOME === null) {
  HOME = join(root, 'bench', 'data', 'home-20-big');
  if (!existsSync(join(HOME, 'manifest.json'))) {
    const made = spawnSync(process.execPath, [join(root, 'bench', 'generate.mjs'), '--sessions', '20', '--big', '--out', HOME], { stdio: ['ignore', 'inherit', 'inherit'] });
    if (made.status !== 0) throw new Error('bench/generate.mjs failed');
  }
}
HOME = resolve(HOME);
const env = { ...process.env, XDG_CACHE_HOME: join(root, 'bench', '.work', 'xdg-show-html') };
const manifest = JSON.parse(readFileSync(join(HOME, 'manifest.json'), 'utf8'));
const rows = JSON.parse(spawnSync(process.execPath, [BIN, 'list', '--all', '--json', '--home', HOME, '--claw-dir', join(HOME, 'src')], { env, encoding: 'utf8', maxBuffer: 1 << 28 }).stdout);

function run(id) {
  return new Promise((done) => {
    const timeFile = join(tmpdir(), `show-html-${process.pid}-${Math.random().toString(36).slice(2)}`);
    const argv = [BIN, 'show', id, '--format', 'html', '--home', HOME, '--claw-dir', join(HOME, 'src'), ...(REDACT ? ['--redact'] : [])];
    const t0 = process.hrtime.bigint();
    const child = spawn('/usr/bin/time', ['-f', '%U %S %M', '-o', timeFile, process.execPath, ...argv], { stdio: ['ignore', 'pipe', 'ignore'], env });
    let bytes = 0;
    let turns = 0;
    let tail = '';
    child.stdout.on('data', (chunk) => {
      bytes += chunk.length;
      // A heading split across two chunks is counted once: the carried tail is shorter than a heading.
      const text = tail + chunk.toString('latin1');
      turns += (text.match(/<h2 id="turn-\d+">/g) ?? []).length;
      tail = text.slice(-24).replace(/^[\s\S]*<h2 id="turn-\d+">/, '');
    });
    child.on('close', (code) => {
      const [user, system, maxKB] = readFileSync(timeFile, 'utf8').trim().split(/\s+/).map(Number);
      rmSync(timeFile, { force: true });
      done({ code, ms: Number(process.hrtime.bigint() - t0) / 1e6, cpuMs: (user + system) * 1000, hwmMB: Math.round(maxKB / 1024), bytes, turns, ends: tail.trimEnd().endsWith('</html>') });
    });
  });
}

for (const big of manifest.bigSessions) {
  const row = rows.find((r) => r.id === big.id);
  const r = await run(big.id);
  const result = { agent: big.agent, id: big.id, mib: Math.round(big.bytes / 2 ** 20), redact: REDACT, ...r, userTurns: row?.userTurns ?? null, everyTurn: row ? r.turns === row.userTurns : null, target: '≤ 250 MB RSS', met: r.code === 0 && r.hwmMB <= 250 && r.ends && row !== undefined && r.turns === row.userTurns };
  process.stdout.write(`${JSON.stringify(result)}\n`);
}
