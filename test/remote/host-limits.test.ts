// Hosts that fail the way links fail, through a fake `ssh` (the config's ssh command): one that connects and never
// answers, one that stops after its first line, one that floods a line with no newline, one that floods rows. Each
// is dropped with a reason within the documented deadlines (docs/architecture.md, "Deadlines and limits"), and this
// machine's rows are still listed.
import { spawn } from 'node:child_process';
import { chmod, cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hostLimits } from '../../src/remote/ssh.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BIN = join(ROOT, 'bin', 'sessions.js');
const FIXTURE_HOME = join(ROOT, 'test', 'fixtures', 'home');
const DAY = '.codex/sessions/2026/11/22';
const FILE = 'rollout-2026-11-22T01-58-48-01a200fa-3a58-7971-88f2-72d291066439.jsonl';
const LOCAL_ID = '01a200fa-3a58-7971-88f2-72d291066439';
const CONNECT_TIMEOUT = 1;
const LIMITS = hostLimits({ connectTimeout: CONNECT_TIMEOUT });

/** Row after row, each with its own id, as fast as the pipe takes them (a host whose stream never ends). */
const ROW_FLOOD = `let i = 0; const pad = 'x'.repeat(Number(process.argv[2]));
const next = () => { let ok = true; while (ok) { i++; ok = process.stdout.write(JSON.stringify({ id: 'flood-' + i, agent: 'codex', path: '/h/' + i + '.jsonl', cwd: '/h', title: pad, createdAt: '2026-11-22T00:00:00Z', updatedAt: '2026-11-22T00:00:00Z', userTurns: 1 }) + '\\n'); } process.stdout.once('drain', next); };
process.stdout.write('sessions-host-v1 sessions\\n'); next();`;

interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
  /** The highest resident set the process reached (from /proc; null where there is none). */
  readonly peakRssBytes: number | null;
}

let sandbox: string;

beforeAll(async () => {
  sandbox = await mkdtemp(join(tmpdir(), 'sessions-host-limits-'));
  await mkdir(join(sandbox, 'local', DAY), { recursive: true });
  await cp(join(FIXTURE_HOME, DAY, FILE), join(sandbox, 'local', DAY, FILE));
  await writeFile(join(sandbox, 'flood-rows.js'), ROW_FLOOD);
  // The fake ssh: the destination follows `--`; what each host does once "connected".
  const script = `#!/bin/sh
while [ "$1" != "--" ]; do shift; done
host=$2
case "$host" in
  silent) exec sleep 600 ;;
  stalled) echo 'sessions-host-v1 sessions'; exec sleep 600 ;;
  long-line) echo 'sessions-host-v1 sessions'; exec cat /dev/zero ;;
  small-rows) exec ${JSON.stringify(process.execPath)} ${JSON.stringify(join(sandbox, 'flood-rows.js'))} 1 ;;
  large-rows) exec ${JSON.stringify(process.execPath)} ${JSON.stringify(join(sandbox, 'flood-rows.js'))} 900 ;;
  *) echo "ssh: Could not resolve hostname $host" >&2; exit 255 ;;
esac
`;
  await writeFile(join(sandbox, 'fake-ssh'), script);
  await chmod(join(sandbox, 'fake-ssh'), 0o755);
  await writeFile(join(sandbox, 'config.json'), JSON.stringify({ ssh: [join(sandbox, 'fake-ssh')], connectTimeout: CONNECT_TIMEOUT }));
});

afterAll(async () => {
  if (sandbox) await rm(sandbox, { recursive: true, force: true });
});

function run(args: readonly string[]): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd: sandbox,
      env: { PATH: process.env.PATH, HOME: sandbox, XDG_CACHE_HOME: join(sandbox, 'cache'), SESSIONS_CONFIG: join(sandbox, 'config.json') },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    let peak: number | null = null;
    // The kernel's high-water mark of the process's resident set, read while it runs.
    const watch = setInterval(() => {
      readFile(`/proc/${child.pid}/status`, 'utf8').then(
        (status) => {
          const kb = /VmHWM:\s+(\d+) kB/.exec(status);
          if (kb) peak = Math.max(peak ?? 0, Number(kb[1]) * 1024);
        },
        () => undefined,
      );
    }, 20);
    child.on('close', (code) => {
      clearInterval(watch);
      resolve({ code: code ?? 1, stdout, stderr, peakRssBytes: peak });
    });
  });
}

describe('hosts that stall or flood', () => {
  it('a host that connects and then never answers is dropped past the idle deadline; this machine is listed', async () => {
    const started = Date.now();
    const result = await run(['list', '--all', '--json', '--home', join(sandbox, 'local'), '--host', 'local', '--host', 'stalled']);
    const elapsed = Date.now() - started;
    expect(result.code, result.stderr).toBe(0);
    expect((JSON.parse(result.stdout) as { id: string }[]).map((row) => row.id)).toEqual([LOCAL_ID]);
    expect(result.stderr).toContain(`host stalled unreachable: sent nothing for ${LIMITS.idleMs / 1000} s`);
    // Within the documented deadline of a whole answer (it ran forever before).
    expect(elapsed).toBeLessThan(LIMITS.completeMs);
  }, 30_000);

  it('a host that sends nothing at all is dropped past the first-byte deadline', async () => {
    const result = await run(['list', '--all', '--json', '--home', join(sandbox, 'local'), '--host', 'local', '--host', 'silent']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain(`host silent unreachable: no answer within ${LIMITS.firstByteMs / 1000} s of connecting`);
  }, 30_000);

  it('a host sending a line with no end is dropped at the line cap', async () => {
    const result = await run(['list', '--all', '--json', '--home', join(sandbox, 'local'), '--host', 'local', '--host', 'long-line']);
    expect(result.code, result.stderr).toBe(0);
    expect((JSON.parse(result.stdout) as { id: string }[]).map((row) => row.id)).toEqual([LOCAL_ID]);
    expect(result.stderr).toContain('host long-line unreachable: sent a line over 1 MiB');
    if (result.peakRssBytes !== null) if (result.peakRssBytes !== null) expect(result.peakRssBytes).toBeLessThan(300 * 1024 * 1024);
  }, 30_000);

  for (const [host, reason] of [
    ['small-rows', `sent over ${LIMITS.maxRows} rows`],
    ['large-rows', 'sent over 64 MiB before its answer was complete'],
  ] as const) {
    it(`a host flooding rows (${host}) is dropped at a cap (${reason}), never taking the process over 300 MB`, async () => {
      const result = await run(['list', '--all', '--json', '--home', join(sandbox, 'local'), '--host', 'local', '--host', host]);
      expect(result.code, result.stderr).toBe(0);
      expect((JSON.parse(result.stdout) as { id: string }[]).map((row) => row.id)).toEqual([LOCAL_ID]);
      expect(result.stderr).toContain(`host ${host} unreachable: ${reason}`);
      if (result.peakRssBytes !== null) expect(result.peakRssBytes).toBeLessThan(300 * 1024 * 1024);
    }, 60_000);
  }
});

describe('when no chosen host can be read', () => {
  it('list --host exits non-zero and names the hosts it tried, not this machine\'s folders it did not read', async () => {
    const result = await run(['list', '--all', '--home', join(sandbox, 'local'), '--host', 'nowhere', '--host', 'silent']);
    expect(result.code).not.toBe(0);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('host nowhere unreachable: Could not resolve hostname nowhere');
    expect(result.stderr).toContain('no host could be read (tried nowhere, silent)');
    expect(result.stderr).not.toContain(join(sandbox, 'local'));
    // With this machine asked for too, its rows are the list: exit 0.
    const mixed = await run(['list', '--all', '--json', '--home', join(sandbox, 'local'), '--host', 'local', '--host', 'nowhere']);
    expect(mixed.code, mixed.stderr).toBe(0);
    expect((JSON.parse(mixed.stdout) as { id: string }[]).map((row) => row.id)).toEqual([LOCAL_ID]);
  }, 30_000);
});
