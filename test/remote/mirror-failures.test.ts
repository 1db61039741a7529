// A mirror's rsync that does not simply succeed, over a real OpenSSH server (test/remote/sshd.ts): a folder the host's
// user cannot read (rsync's exit 23: partial) keeps what arrived, names what did not and saves the sync's state; a
// disk that fills up here (a small tmpfs over the cache, in a mount namespace of the command's own) says so and where;
// an rsync that cannot protect the host's paths from its shell (openrsync) is refused before it runs.
import { execFile, execFileSync } from 'node:child_process';
import { chmod, cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mirrorDir } from '../../src/remote/mirror-layout.js';
import { statePath } from '../../src/remote/mirror-state.js';
import { rsyncOutcome } from '../../src/remote/rsync.js';
import { LOGIN_AS, sshAvailable, TestSshd } from './sshd.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BIN = join(ROOT, 'bin', 'sessions.js');
const FIXTURE_HOME = join(ROOT, 'test', 'fixtures', 'home');
const DAY = '.codex/sessions/2026/11/22';
const HIDDEN_DAY = '.codex/sessions/2026/11/23';
const CODEX_ID = '01a200ed-60a4-7f10-a53c-15a9ecf122f3';
const HIDDEN_FILE = 'rollout-2026-11-23T01-44-46-01a200ed-60a4-7f10-a53c-15a9ecf1b10c.jsonl';

interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Can this process run a command in a mount namespace of its own with a tmpfs mounted (root, unshare)? */
function canMountTmpfs(): boolean {
  if (process.getuid?.() !== 0 || !existsSync('/usr/bin/unshare')) return false;
  try {
    execFileSync('unshare', ['-m', 'sh', '-c', 'd=$(mktemp -d) && mount -t tmpfs -o size=64k tmpfs "$d" && umount "$d" && rmdir "$d"'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

describe('what a mirror rsync said', () => {
  it("a partial transfer names what was not copied, as the host's paths", () => {
    const stderr = [
      'rsync: [sender] opendir "/home/u/.codex/sessions/2026/11/23" failed: Permission denied (13)',
      'file has vanished: "/home/u/.claude/projects/-x/5a.jsonl"',
      'rsync error: some files/attrs were not transferred (see previous errors) (code 23) at main.c(1338) [generator=3.2.7]',
    ].join('\n');
    expect(rsyncOutcome({ code: 23, signal: null, stdout: '', stderr }, '/cache/m')).toEqual({
      kind: 'done',
      notCopied: [
        { path: '/home/u/.codex/sessions/2026/11/23', why: 'Permission denied' },
        { path: '/home/u/.claude/projects/-x/5a.jsonl', why: 'deleted on the host while it was copied' },
      ],
    });
  });

  it('a full disk here is said as such, with the file, whatever rsync says last', () => {
    const stderr = [
      'rsync: [receiver] write failed on "/cache/m/home/u/.codex/sessions/a.jsonl": No space left on device (28)',
      'rsync error: error in file IO (code 11) at receiver.c(381) [receiver=3.2.7]',
      'rsync: [sender] write error: Broken pipe (32)',
    ].join('\n');
    expect(rsyncOutcome({ code: 11, signal: null, stdout: '', stderr }, '/cache/m')).toEqual({ kind: 'failed', reason: "this machine's disk is full: no space left writing /cache/m/home/u/.codex/sessions/a.jsonl" });
    expect(rsyncOutcome({ code: 12, signal: null, stdout: '', stderr: 'rsync: connection unexpectedly closed\n' }, '/m')).toEqual({ kind: 'failed', reason: 'rsync: connection unexpectedly closed' });
  });
});

const describeSsh = sshAvailable() || process.env.SESSIONS_ALLOW_NO_SSH !== '1' ? describe : describe.skip;

describeSsh(`a mirror's rsync that fails in part or here, ${LOGIN_AS}`, () => {
  let dir: string;
  let sandbox: string;
  let sshd: TestSshd;

  function run(args: readonly string[], options: { readonly cache?: string; readonly path?: string; readonly wrap?: readonly string[] } = {}): Promise<Run> {
    const cache = options.cache ?? join(sandbox, 'cache');
    return new Promise((resolve) => {
      const argv = [...(options.wrap ?? []), process.execPath, BIN, ...args, '--home', join(sandbox, 'local')];
      execFile(
        argv[0]!,
        argv.slice(1),
        { cwd: sandbox, env: { PATH: options.path ?? process.env.PATH, HOME: sandbox, XDG_CACHE_HOME: cache, SESSIONS_CONFIG: join(sandbox, 'config.json') } },
        (error, stdout, stderr) => resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
      );
    });
  }

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'sessions-mirror-failures-'));
    sandbox = join(dir, 'sandbox');
    await mkdir(join(sandbox, 'local'), { recursive: true });
    sshd = await TestSshd.start(join(dir, 'sshd'), [{ name: 'mirror-only', withSessions: false }], BIN);
    const home = sshd.host('mirror-only').home;
    await cp(join(FIXTURE_HOME, '.codex'), join(home, '.codex'), { recursive: true, preserveTimestamps: true });
    // A day folder the host's own user cannot read, holding a session.
    await mkdir(join(home, HIDDEN_DAY), { recursive: true });
    await cp(join(FIXTURE_HOME, DAY, `rollout-2026-11-22T01-44-46-${CODEX_ID}.jsonl`), join(home, HIDDEN_DAY, HIDDEN_FILE));
    await sshd.handOver();
    await chmod(join(home, HIDDEN_DAY), 0o000);
    await writeFile(join(sandbox, 'config.json'), JSON.stringify({ ssh: sshd.ssh, connectTimeout: 5 }));
  }, 60_000);

  afterAll(async () => {
    if (sshd) await chmod(join(sshd.host('mirror-only').home, HIDDEN_DAY), 0o755).catch(() => undefined);
    await sshd?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('a folder the host cannot read: what arrived is listed, what did not is named, the state is saved', async () => {
    const home = sshd.host('mirror-only').home;
    const result = await run(['list', '--all', '--json', '--host', 'mirror-only']);
    expect(result.code, result.stderr).toBe(0);
    const rows = JSON.parse(result.stdout) as { id: string; host: string }[];
    expect(rows.map((row) => row.id)).toContain(CODEX_ID);
    expect(rows.every((row) => row.host === 'mirror-only')).toBe(true);
    expect(result.stderr).not.toContain('unreachable');
    expect(result.stderr).toContain(`sessions: warning: mirror-only:${join(home, HIDDEN_DAY)}: not copied to the mirror: Permission denied`);
    // The sync's state is saved: the next sync reads only what rsync copies.
    expect(existsSync(statePath(mirrorDir(join(sandbox, 'cache', 'sessions'), 'mirror-only')))).toBe(true);
  }, 60_000);

  it.skipIf(!canMountTmpfs())('a full disk here says so and where, not "Broken pipe"', async () => {
    const cache = join(sandbox, 'small-cache');
    await mkdir(cache, { recursive: true });
    // The command alone sees a 128 KiB tmpfs over its cache (its own mount namespace, gone when it exits).
    const wrap = ['unshare', '-m', 'sh', '-c', 'mount -t tmpfs -o size=128k tmpfs "$0" && exec "$@"', cache];
    const result = await run(['list', '--all', '--json', '--host', 'mirror-only'], { cache, wrap });
    expect(result.code).toBe(1);
    const mirror = mirrorDir(join(cache, 'sessions'), 'mirror-only');
    expect(result.stderr).toMatch(new RegExp(`host mirror-only unreachable: this machine's disk is full: no space left writing ${mirror.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/`));
    expect(result.stderr).not.toContain('Broken pipe');
  }, 60_000);

  it('an rsync that cannot protect arguments (openrsync) is refused before it runs, and says why', async () => {
    const bin = join(sandbox, 'openrsync-bin');
    await mkdir(bin, { recursive: true });
    const log = join(sandbox, 'openrsync.log');
    await writeFile(join(bin, 'rsync'), `#!/bin/sh\necho "$*" >> ${JSON.stringify(log)}\nif [ "$1" = --version ]; then echo 'openrsync: protocol version 29'; echo 'rsync version 2.6.9 compatible'; exit 0; fi\nexit 1\n`);
    await chmod(join(bin, 'rsync'), 0o755);
    const result = await run(['list', '--all', '--json', '--host', 'mirror-only'], { cache: join(sandbox, 'cache-openrsync'), path: `${bin}:${process.env.PATH ?? ''}` });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("host mirror-only unreachable: the rsync here (openrsync: protocol version 29) cannot keep the host's paths from its shell (no --protect-args)");
    // Asked its version, never run to copy.
    expect((await readFile(log, 'utf8')).trim().split('\n')).toEqual(['--version']);
  }, 60_000);
});
