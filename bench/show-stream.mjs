#!/usr/bin/env node
// `sessions show` of a big session against `cat` of its file, in the same run (issue 15): each command's stdout
// goes to a pipe this script drains; timed from spawn to the first byte, to the first user turn's line, and to
// the end; peak memory is the child's maximum RSS (/usr/bin/time's %M); CPU time (user + system) beside the wall
// clock, which a loaded machine stretches.
//
//   node bench/show-stream.mjs --home DIR --session PATH [--runs N] [--format text|md] [--before BIN]
//
// --before: another build's bin/sessions.js (e.g. the commit before a change), measured in the same run.
//
// The floor, in the same run: a `node` process that reads the file and parses each of its lines (JSON.parse of the
// decoded line, as `show` must to tell a malformed line from a good one), prints nothing and loads none of the CLI's
// code; against the target's limit (3× cat).
//
// Node's own start in the same run: a `node -e` that writes one byte, with this environment as it is and without
// NODE_EXTRA_CA_CERTS (Node 20 parses that bundle and its own root certificates before any script runs: ~75 ms at
// load 5 on the stop-44 machine, where it is set): `show`'s first byte is that start plus its own work.
//
// `sessions` is run as a user runs it: its bin as an executable (its `#!/bin/sh` line starts Node without
// NODE_EXTRA_CA_CERTS: see bin/sessions.js), with the environment as it is.
//
// Prints one JSON line: per command the runs and their medians, the load average before and after.
import { spawn } from 'node:child_process';
import { readFileSync, rmSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { REPO_ROOT as root, option as opt } from './lib.mjs';

const HOME = resolve(opt('--home', join(root, 'bench', 'data', 'real-10000')));
const SESSION = resolve(opt('--session', ''));
const RUNS = Number(opt('--runs', 3));
const FORMAT = opt('--format', 'text');
const BIN = join(root, 'bin', 'sessions.js');
const BEFORE = opt('--before', null);
const ID = basename(SESSION).replace(/\.jsonl$/, '').replace(/^rollout-.*?-([0-9a-f]{8}-[0-9a-f-]{27})$/, '$1');
const env = { ...process.env, XDG_CACHE_HOME: process.env.XDG_CACHE_HOME ?? join(root, 'bench', '.work', 'xdg-show') };
const FIRST_TURN = FORMAT === 'md' ? '## Turn 1' : '── user · turn 1 ';

function timed(cmd, argv, childEnv = env) {
  return new Promise((done) => {
    const t0 = process.hrtime.bigint();
    const ms = () => Number(process.hrtime.bigint() - t0) / 1e6;
    // CPU time (user + system) from /usr/bin/time: on a loaded machine it moves far less than the wall clock.
    const timeFile = join(tmpdir(), `show-stream-${process.pid}-${Math.random().toString(36).slice(2)}`);
    const child = spawn('/usr/bin/time', ['-f', '%U %S %M', '-o', timeFile, cmd, ...argv], { stdio: ['ignore', 'pipe', 'ignore'], env: childEnv });
    let first = null;
    let firstTurn = null;
    let bytes = 0;
    let tail = '';
    child.stdout.on('data', (chunk) => {
      first ??= ms();
      bytes += chunk.length;
      if (firstTurn === null) {
        const text = tail + chunk.toString('latin1');
        if (text.includes(Buffer.from(FIRST_TURN).toString('latin1'))) firstTurn = ms();
        tail = text.slice(-64);
      }
    });
    child.on('close', (code) => {
      const [user, system, maxKB] = readFileSync(timeFile, 'utf8').trim().split('\n').pop().split(' ').map(Number);
      rmSync(timeFile, { force: true });
      done({ code, firstMs: first ?? ms(), firstTurnMs: firstTurn, totalMs: ms(), cpuMs: Math.round((user + system) * 1000), bytes, hwmMB: Math.round(maxKB / 1024) });
    });
  });
}

const median = (values) => {
  const sorted = values.filter((v) => v !== null).sort((a, b) => a - b);
  return sorted.length === 0 ? null : sorted[Math.floor(sorted.length / 2)];
};

const load = [loadavg()[0]];
const ours = [];
const cat = [];
const before = [];
// Warm the catalog cache and the page cache once (not measured).
await timed(BIN, ['list', '--all', '--json', '--home', HOME]);
if (BEFORE) await timed(BEFORE, ['list', '--all', '--json', '--home', HOME]);
await timed('cat', [SESSION]);
// The floor's process: 1 MiB reads, each line found by its newline, decoded from its bytes and given to JSON.parse;
// it prints the line count.
const PARSE_EVERY_LINE = `
const { openSync, readSync } = require('node:fs');
const fd = openSync(process.argv[1], 'r');
const chunk = Buffer.allocUnsafe(1 << 20);
let pending = [];
let lines = 0;
let malformed = 0;
const parse = (line) => {
  if (line.trim() === '') return;
  lines++;
  try { JSON.parse(line); } catch { malformed++; }
};
for (let n; (n = readSync(fd, chunk, 0, chunk.length, null)) > 0; ) {
  const bytes = chunk.subarray(0, n);
  let start = 0;
  for (let newline; (newline = bytes.indexOf(10, start)) !== -1; start = newline + 1) {
    if (pending.length === 0) parse(bytes.toString('utf8', start, newline));
    else {
      pending.push(bytes.subarray(start, newline));
      parse(Buffer.concat(pending).toString('utf8'));
      pending = [];
    }
  }
  if (start < n) pending.push(Buffer.from(bytes.subarray(start)));
}
parse(Buffer.concat(pending).toString('utf8'));
process.stdout.write(lines + ' lines, ' + malformed + ' malformed');
`;
const floor = [];
const nodeStart = [];
const nodeStartBare = [];
const { NODE_EXTRA_CA_CERTS: _extraCerts, ...bareEnv } = env;
const WRITE_A_BYTE = 'process.stdout.write("x")';
for (let i = 0; i < RUNS; i++) {
  nodeStart.push(await timed(process.execPath, ['-e', WRITE_A_BYTE]));
  nodeStartBare.push(await timed(process.execPath, ['-e', WRITE_A_BYTE], bareEnv));
  floor.push(await timed(process.execPath, ['-e', PARSE_EVERY_LINE, SESSION]));
  cat.push(await timed('cat', [SESSION]));
  ours.push(await timed(BIN, ['show', ID, '--format', FORMAT, '--home', HOME]));
  if (BEFORE) before.push(await timed(BEFORE, ['show', ID, '--format', FORMAT, '--home', HOME]));
}
load.push(loadavg()[0]);
const summary = (runs) => ({
  runs,
  firstMs: median(runs.map((r) => r.firstMs)),
  firstTurnMs: median(runs.map((r) => r.firstTurnMs)),
  totalMs: median(runs.map((r) => r.totalMs)),
  cpuMs: median(runs.map((r) => r.cpuMs)),
  hwmMB: Math.max(...runs.map((r) => r.hwmMB)),
  bytes: runs[0]?.bytes,
});
const result = { session: SESSION, bytes: statSync(SESSION).size, format: FORMAT, ours: summary(ours), cat: summary(cat), floor: summary(floor), nodeStart: summary(nodeStart), nodeStartWithoutExtraCerts: summary(nodeStartBare), extraCerts: _extraCerts !== undefined, load };
if (BEFORE) result.before = { bin: BEFORE, ...summary(before) };
result.ratio = result.ours.totalMs / result.cat.totalMs;
process.stdout.write(`${JSON.stringify(result)}\n`);
