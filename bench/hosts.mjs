#!/usr/bin/env node
// Hosts over ssh (issue 14's targets), on this machine through a real sshd on 127.0.0.1 (its own config, host key
// and client key in a temp dir; stopped at the end). The "host" is the benchmark home itself: its sshd sets
// HOME to it, so nothing is copied.
//   node bench/hosts.mjs --home DIR [--runs R]   → one JSON line
// Figures: `ssh HOST true`; the host's own warm `sessions list --json --all` (run as the host would);
// `sessions list --json --host HOST` through the host's `sessions` (rows appear = the command returns them);
// and for a host without `sessions`: the first mirror sync + index, a second one with nothing changed (a new
// process: probe, rsync, the rows from the mirror's cache, printed), the same re-sync in a process that keeps the
// mirror (the browser's timer: rsync, and the files it copied read), and one no-op `rsync` round trip of the same
// files (the product's own sources and filter).
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync, chmodSync, copyFileSync } from 'node:fs';
import { createServer, connect } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { median, timeProcess, option as opt, PRODUCT_ROOT as PRODUCT } from './lib.mjs';

const HOME = resolve(opt('--home'));
const RUNS = Number(opt('--runs', 3));
const CLI = join(PRODUCT, 'bin', 'sessions.js');
const NODE = process.execPath;

const dir = mkdtempSync(join(tmpdir(), 'sessions-bench-hosts-'));
const servers = [];
try {
  const keygen = (name) => spawnSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', join(dir, name)]);
  keygen('host_key');
  keygen('client_key');
  copyFileSync(join(dir, 'client_key.pub'), join(dir, 'authorized_keys'));
  chmodSync(join(dir, 'authorized_keys'), 0o600);
  if (process.getuid?.() === 0) mkdirSync('/run/sshd', { recursive: true, mode: 0o755 });
  const withBin = join(dir, 'bin-with');
  mkdirSync(withBin);
  writeFileSync(join(withBin, 'sessions'), `#!/bin/sh\nexec '${NODE}' '${CLI}' "$@"\n`);
  chmodSync(join(withBin, 'sessions'), 0o755);
  const hostCache = join(dir, 'host-cache');
  const client = [];
  for (const [name, bin] of [['with-sessions', withBin], ['mirror-only', join(dir, 'bin-without')]]) {
    mkdirSync(bin, { recursive: true });
    const port = await freePort();
    const config = join(dir, `${name}.sshd_config`);
    writeFileSync(config, [
      'ListenAddress 127.0.0.1', `Port ${port}`, `HostKey ${join(dir, 'host_key')}`, `PidFile ${join(dir, `${name}.pid`)}`,
      `AuthorizedKeysFile ${join(dir, 'authorized_keys')}`, 'StrictModes no', 'UsePAM no', 'PasswordAuthentication no',
      'KbdInteractiveAuthentication no', 'PermitRootLogin prohibit-password', 'PrintMotd no', 'UseDNS no',
      `SetEnv HOME=${HOME} XDG_CACHE_HOME=${hostCache} PATH=${bin}:${dirname(NODE)}:/usr/bin:/bin`, 'LogLevel ERROR', '',
    ].join('\n'));
    servers.push(spawn('/usr/sbin/sshd', ['-D', '-e', '-f', config], { stdio: 'ignore' }));
    await waitForPort(port);
    client.push(`Host ${name}`, '  HostName 127.0.0.1', `  Port ${port}`, `  User ${userInfo().username}`, `  IdentityFile ${join(dir, 'client_key')}`,
      '  IdentitiesOnly yes', '  IdentityAgent none', `  UserKnownHostsFile ${join(dir, 'known_hosts')}`, '  StrictHostKeyChecking no', '  LogLevel ERROR');
  }
  const sshConfig = join(dir, 'ssh_config');
  writeFileSync(sshConfig, `${client.join('\n')}\n`);
  const configFile = join(dir, 'config.json');
  writeFileSync(configFile, JSON.stringify({ ssh: ['ssh', '-F', sshConfig] }));
  const localEnv = (xdg) => ({ PATH: process.env.PATH, HOME: join(dir, 'local-home'), XDG_CACHE_HOME: xdg, SESSIONS_CONFIG: configFile });
  const hostEnv = { PATH: `${withBin}:${process.env.PATH}`, HOME, XDG_CACHE_HOME: hostCache };
  const times = (fn) => { const out = []; for (let i = 0; i < RUNS; i++) out.push(fn(i)); return out; };
  const ok = (r, what) => { if (r.status !== 0) throw new Error(`${what} failed (${r.status}): ${r.stderr.slice(0, 400)}`); return r; };

  const sshTrue = times(() => ok(timeProcess('ssh', ['-F', sshConfig, 'with-sessions', 'true']), 'ssh true').ms);
  ok(timeProcess(NODE, [CLI, 'list', '--json', '--all'], { env: hostEnv, cwd: dir }), 'host cold list'); // warm the host's cache
  const hostList = times(() => ok(timeProcess(NODE, [CLI, 'list', '--json', '--all'], { env: hostEnv, cwd: dir, captureStdout: true }), 'host list'));
  const hostRows = JSON.parse(hostList[0].stdout).length;
  const viaSessions = times(() => ok(timeProcess(NODE, [CLI, 'list', '--json', '--all', '--host', 'with-sessions'], { env: localEnv(join(dir, 'xdg-local')), cwd: dir, captureStdout: true }), 'list --host with-sessions'));
  const viaRows = JSON.parse(viaSessions[0].stdout).length;

  const xdgMirror = join(dir, 'xdg-mirror');
  const mirrorFirst = ok(timeProcess(NODE, [CLI, 'list', '--json', '--all', '--host', 'mirror-only'], { env: localEnv(xdgMirror), cwd: dir, captureStdout: true }), 'first mirror');
  const mirrorRows = JSON.parse(mirrorFirst.stdout).length;
  const mirrorSecond = times(() => ok(timeProcess(NODE, [CLI, 'list', '--json', '--all', '--host', 'mirror-only'], { env: localEnv(xdgMirror), cwd: dir }), 'second mirror').ms);
  // The re-sync alone, as the browser runs it every `hostRefresh` seconds (and on R): one source kept in this process,
  // loaded once, then synced again with nothing changed on the host. Files read are counted (the index's bytes).
  // Its peer, run in turn with it: the same rsync alone (the product's argv: sources, filter, options, the mirror as
  // its target), one round trip that copies nothing.
  const { HostSource } = await import(pathToFileURL(join(PRODUCT, 'dist', 'remote', 'host-source.js')).href);
  const { mirrorRsyncArgv, mirrorTransfer } = await import(pathToFileURL(join(PRODUCT, 'dist', 'remote', 'mirror-layout.js')).href);
  const { defaultCachePath } = await import(pathToFileURL(join(PRODUCT, 'dist', 'catalog', 'cache.js')).href);
  const { indexReads } = await import(pathToFileURL(join(PRODUCT, 'dist', 'core', 'io', 'lines.js')).href);
  const settings = { ssh: ['ssh', '-F', sshConfig], connectTimeout: 10 };
  const hostContext = {
    settings,
    cacheDir: join(xdgMirror, 'sessions'),
    cachePathFor: (locations) => defaultCachePath({ XDG_CACHE_HOME: xdgMirror }, join(dir, 'local-home'), locations),
  };
  const source = new HostSource('mirror-only', hostContext);
  await source.load(false);
  if (source.status.kind !== 'ready') throw new Error(`in-process mirror: ${JSON.stringify(source.status)}`);
  const [rsync, ...rsyncArgs] = mirrorRsyncArgv('mirror-only', settings, mirrorTransfer(source.mirror.remote, source.mirror.workspaces), source.mirror.dir);
  const refreshMs = [];
  const rsyncNoop = [];
  let refreshBytesRead = 0;
  let rsyncCopied = 0;
  for (let i = 0; i < RUNS; i++) {
    const before = indexReads.bytes;
    const started = process.hrtime.bigint();
    await source.refresh();
    refreshMs.push(Number(process.hrtime.bigint() - started) / 1e6);
    refreshBytesRead += indexReads.bytes - before;
    if (source.status.kind !== 'ready') throw new Error(`in-process re-sync: ${JSON.stringify(source.status)}`);
    const alone = ok(timeProcess(rsync, rsyncArgs, { captureStdout: true }), 'rsync no-op');
    rsyncNoop.push(alone.ms);
    rsyncCopied += alone.stdout.split('\n').filter((line) => line.startsWith('>f')).length;
  }
  const refreshRows = source.sessions().length;
  source.close();

  process.stdout.write(`${JSON.stringify({
    runs: RUNS,
    hostRows, viaRows, mirrorRows,
    sshTrueMs: median(sshTrue), hostWarmListMs: median(hostList.map((r) => r.ms)), viaSessionsMs: median(viaSessions.map((r) => r.ms)),
    mirrorFirstMs: mirrorFirst.ms, mirrorSecondMs: median(mirrorSecond), rsyncNoopMs: median(rsyncNoop),
    refreshMs: median(refreshMs), refreshRows, refreshBytesRead, rsyncCopied,
  })}\n`);
} finally {
  for (const child of servers) child.kill('SIGTERM');
  rmSync(dir, { recursive: true, force: true });
}

function freePort() {
  return new Promise((res, rej) => {
    const server = createServer();
    server.once('error', rej);
    server.listen(0, '127.0.0.1', () => { const { port } = server.address(); server.close(() => res(port)); });
  });
}

async function waitForPort(port) {
  for (const deadline = Date.now() + 15000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 50))) {
    const up = await new Promise((res) => { const s = connect(port, '127.0.0.1'); s.once('connect', () => { s.destroy(); res(true); }); s.once('error', () => res(false)); });
    if (up) return;
  }
  throw new Error(`sshd did not start on ${port}`);
}
