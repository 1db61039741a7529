// How each host is read, and what is listed when it is down, over a real OpenSSH server (test/remote/sshd.ts) reached
// through a stand-in `ssh` (the config's ssh command) that refuses a host while the test says it is down. `sessions
// hosts` says each host's mode (its own `sessions`, with its version, or a mirror), and when it was last synced; a
// `sessions` too old for the handshake (it does not know `--hello`) is read around, through a mirror; a mirrored host
// that is down lists its mirror's rows marked stale, which show and grep read, and which resume and fork refuse.
import { execFile } from 'node:child_process';
import { chmod, cp, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SESSIONS_VERSION } from '../../src/version.js';
import { LOGIN_AS, quote, sshAvailable, TestSshd } from './sshd.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BIN = join(ROOT, 'bin', 'sessions.js');
const FIXTURE_HOME = join(ROOT, 'test', 'fixtures', 'home');
const CODEX_DIR = '.codex/sessions/2026/11/22';
/** A Codex session with seven user turns ("run ls and explain the layout of this repo"). */
const CODEX_ID = '01a200ed-60a4-7f10-a53c-15a9ecf122f3';

interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

interface Row {
  readonly id: string;
  readonly host: string | null;
  readonly stale: { readonly syncedAt: string | null; readonly ageSeconds: number | null } | null;
}

interface HostLine {
  readonly host: string;
  readonly mode: string | null;
  readonly version: string | null;
  readonly syncedAt: string | null;
  readonly reachable: boolean;
  readonly sessions: number;
  readonly reason: string | null;
  readonly note: string | null;
}

const describeSsh = sshAvailable() || process.env.SESSIONS_ALLOW_NO_SSH !== '1' ? describe : describe.skip;

describeSsh(`each host's mode, version and last sync; a host down lists its mirror, stale, ${LOGIN_AS}`, () => {
  let dir: string;
  let sandbox: string;
  let sshd: TestSshd;

  function run(args: readonly string[]): Promise<Run> {
    return new Promise((resolve) => {
      execFile(
        process.execPath,
        [BIN, args[0]!, ...(args[0] === 'hosts' ? [] : ['--home', join(sandbox, 'local')]), ...args.slice(1)],
        { cwd: sandbox, env: { PATH: process.env.PATH, HOME: sandbox, XDG_CACHE_HOME: join(sandbox, 'cache'), SESSIONS_CONFIG: join(sandbox, 'config.json') } },
        (error, stdout, stderr) => resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
      );
    });
  }

  async function hosts(...names: string[]): Promise<HostLine[]> {
    const result = await run(['hosts', '--json', ...names.flatMap((name) => ['--host', name])]);
    expect(result.code, result.stderr).toBe(0);
    return JSON.parse(result.stdout) as HostLine[];
  }

  /** While the file is there, the stand-in ssh answers for that host as a closed port does. */
  async function down(name: string, isDown: boolean): Promise<void> {
    if (isDown) await writeFile(join(sandbox, `down-${name}`), '');
    else await rm(join(sandbox, `down-${name}`), { force: true });
  }

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'sessions-host-modes-'));
    sandbox = join(dir, 'sandbox');
    await mkdir(join(sandbox, 'local'), { recursive: true });
    sshd = await TestSshd.start(join(dir, 'sshd'), [
      { name: 'with-sessions', withSessions: true },
      { name: 'mirror-only', withSessions: false },
      { name: 'old-sessions', withSessions: true },
    ], BIN);
    for (const host of sshd.hosts) {
      await mkdir(join(host.home, CODEX_DIR), { recursive: true });
      await cp(join(FIXTURE_HOME, CODEX_DIR), join(host.home, CODEX_DIR), { recursive: true, preserveTimestamps: true });
    }
    // An older release of sessions on the host: it knows neither list --watch nor the handshake's --hello.
    const old = sshd.host('old-sessions');
    const current = join(old.bin, 'sessions-current');
    await cp(join(old.bin, 'sessions'), current);
    await writeFile(
      join(old.bin, 'sessions'),
      `#!/bin/sh\nfor a; do case "$a" in --watch|--hello) echo "error: unknown option '$a'" >&2; exit 1 ;; esac; done\nexec ${quote(current)} "$@"\n`,
    );
    await chmod(join(old.bin, 'sessions'), 0o755);
    await sshd.handOver();
    const script = `#!/bin/sh
for last; do :; done
for a; do case "$a" in -*) ;; *) if [ -e ${quote(sandbox)}/down-"$a" ]; then echo "ssh: connect to host 127.0.0.1 port 22: Connection refused" >&2; exit 255; fi ;; esac; done
exec ssh "$@"
`;
    await writeFile(join(sandbox, 'downable-ssh'), script);
    await chmod(join(sandbox, 'downable-ssh'), 0o755);
    await writeFile(join(sandbox, 'config.json'), JSON.stringify({ ssh: [join(sandbox, 'downable-ssh'), '-F', sshd.sshConfig], connectTimeout: 5, hosts: ['with-sessions', 'mirror-only', 'old-sessions'] }));
  }, 60_000);

  afterAll(async () => {
    await sshd?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('sessions hosts: each host read by its own sessions (with its version) or a mirror, and when', async () => {
    const lines = await hosts();
    const byHost = Object.fromEntries(lines.map((line) => [line.host, line]));
    expect(byHost['with-sessions']).toMatchObject({ mode: 'sessions', version: SESSIONS_VERSION, reachable: true, reason: null, note: null });
    expect(byHost['mirror-only']).toMatchObject({ mode: 'mirror', version: null, reachable: true, reason: null, note: null });
    // Too old for the handshake: read around, through a mirror, and said so.
    expect(byHost['old-sessions']).toMatchObject({ mode: 'mirror', reachable: true, reason: null });
    expect(byHost['old-sessions']!.note).toMatch(/too old for this one \(error: unknown option '--watch'\): read through a mirror/);
    for (const line of lines) {
      expect(line.sessions, line.host).toBeGreaterThanOrEqual(7);
      // A time, and a recent one by the clock of the command that read it (the text's "(now)" below): never this test's
      // clock, which a faked one (faketime, not passed to a child run with a clean environment) can put a year ahead.
      expect(Number.isNaN(Date.parse(line.syncedAt ?? '')), line.host).toBe(false);
    }
    const text = await run(['hosts']);
    expect(text.stdout).toMatch(new RegExp(`^with-sessions +sessions ${SESSIONS_VERSION.replaceAll('.', '\\.')} +synced \\S+ \\S+ \\(now\\) +\\d+ sessions$`, 'm'));
    expect(text.stdout).toMatch(/^mirror-only +mirror +synced .* \d+ sessions$/m);
  });

  it("a host whose sessions is too old for the handshake is listed through a mirror (an older one made the host unreachable)", async () => {
    const result = await run(['list', '--all', '--json', '--host', 'old-sessions']);
    expect(result.code, result.stderr).toBe(0);
    expect((JSON.parse(result.stdout) as Row[]).map((row) => row.id)).toContain(CODEX_ID);
  });

  it('a mirrored host that is down: its rows listed stale with their age; show and grep read them; resume and fork refuse', async () => {
    const fresh = await run(['list', '--all', '--json', '--host', 'mirror-only']);
    expect(fresh.code, fresh.stderr).toBe(0);
    const rows = JSON.parse(fresh.stdout) as Row[];
    expect(rows.every((row) => row.stale === null)).toBe(true);
    const syncedAt = (await hosts('mirror-only'))[0]!.syncedAt!;
    await down('mirror-only', true);
    try {
      const listed = await run(['list', '--all', '--json', '--host', 'mirror-only']);
      expect(listed.code, listed.stderr).toBe(0);
      expect(listed.stderr).toContain(`host mirror-only unreachable: connect to host 127.0.0.1 port 22: Connection refused; listing its ${rows.length} mirrored sessions as of ${syncedAt} (stale`);
      const stale = JSON.parse(listed.stdout) as Row[];
      expect(stale.map((row) => row.id).sort()).toEqual(rows.map((row) => row.id).sort());
      for (const row of stale) {
        expect(row.stale?.syncedAt).toBe(syncedAt);
        expect(row.stale?.ageSeconds).toBeGreaterThanOrEqual(0);
      }
      const text = await run(['list', '--all', '--host', 'mirror-only']);
      expect(text.stdout.trim().split('\n').every((line) => / mirror-only:\S.* \[stale (now|\d+s|\d+m)\]$/.test(line)), text.stdout).toBe(true);
      const show = await run(['show', CODEX_ID, '--host', 'mirror-only']);
      expect(show.code, show.stderr).toBe(0);
      expect(show.stdout).toContain('run ls and explain the layout of this repo');
      const grep = await run(['grep', 'explain the layout', '--json', '--host', 'mirror-only']);
      expect(grep.code, grep.stderr).toBe(0);
      expect(grep.stdout).toContain(CODEX_ID);
      const fork = await run(['fork', CODEX_ID, '--host', 'mirror-only']);
      expect(fork.code).toBe(1);
      expect(fork.stderr).toContain('mirror-only cannot be reached now');
      const resume = await run(['resume', CODEX_ID, '--dry-run', '--host', 'mirror-only']);
      expect(resume.code).toBe(1);
      expect(resume.stderr).toContain('resume and fork need the host');
      const status = (await hosts('mirror-only'))[0]!;
      expect(status).toMatchObject({ host: 'mirror-only', mode: 'mirror', reachable: false, syncedAt, sessions: rows.length });
      expect(status.reason).toContain('Connection refused');
    } finally {
      await down('mirror-only', false);
    }
    // Up again: fresh rows.
    const again = await run(['list', '--all', '--json', '--host', 'mirror-only']);
    expect((JSON.parse(again.stdout) as Row[]).every((row) => row.stale === null)).toBe(true);
  }, 60_000);
});
