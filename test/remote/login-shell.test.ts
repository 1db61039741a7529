// Hosts whose login shell is not POSIX (fish), over a real OpenSSH server (test/remote/sshd.ts): what ssh asks runs in
// `sh -c`, so both ways of reading a host work (fish cannot run the probe's `if …; then …; fi` or `${VAR-}` itself),
// a fork is placed from the mirror, and an agent resumes in a directory whose name needs quoting.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOGIN_AS, quote, sshAvailable, TestSshd } from './sshd.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BIN = join(ROOT, 'bin', 'sessions.js');
const FIXTURE_HOME = join(ROOT, 'test', 'fixtures', 'home');
const FISH = '/usr/bin/fish';
const CODEX_DIR = '.codex/sessions/2026/11/22';
const CODEX_ID = '01a200ed-60a4-7f10-a53c-15a9ecf122f3';
const AWKWARD_ID = '01a200ed-60a4-7f10-a53c-15a9ecf1f154';
const AWKWARD_DIR = `proj it's "$HOME" $(x) \\ back`;

interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

const describeFish = (sshAvailable() || process.env.SESSIONS_ALLOW_NO_SSH !== '1') && existsSync(FISH) ? describe : describe.skip;

describeFish(`hosts whose login shell is fish, ${LOGIN_AS}`, () => {
  let dir: string;
  let sandbox: string;
  let sshd: TestSshd;

  function run(args: readonly string[]): Promise<Run> {
    return new Promise((resolve) => {
      execFile(
        process.execPath,
        [BIN, args[0]!, '--home', join(sandbox, 'local'), ...args.slice(1)],
        { cwd: sandbox, env: { PATH: process.env.PATH, HOME: sandbox, XDG_CACHE_HOME: join(sandbox, 'cache'), SESSIONS_CONFIG: join(sandbox, 'config.json') } },
        (error, stdout, stderr) => resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
      );
    });
  }

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'sessions-fish-'));
    sandbox = join(dir, 'sandbox');
    await mkdir(join(sandbox, 'local'), { recursive: true });
    sshd = await TestSshd.start(join(dir, 'sshd'), [
      { name: 'fish-sessions', withSessions: true, loginShell: FISH },
      { name: 'fish-mirror', withSessions: false, loginShell: FISH },
    ], BIN);
    for (const host of sshd.hosts) {
      await mkdir(join(host.home, CODEX_DIR), { recursive: true });
      await cp(join(FIXTURE_HOME, CODEX_DIR), join(host.home, CODEX_DIR), { recursive: true, preserveTimestamps: true });
      // A session recorded in a directory whose name needs quoting (a backslash too: fish reads it in single quotes).
      await mkdir(join(host.home, AWKWARD_DIR), { recursive: true });
      const file = `rollout-2026-11-22T01-44-46-${CODEX_ID}.jsonl`;
      const lines = (await readFile(join(host.home, CODEX_DIR, file), 'utf8')).split('\n');
      const meta = JSON.parse(lines[0]!) as { payload: { id: string; cwd: string } };
      meta.payload.id = AWKWARD_ID;
      meta.payload.cwd = join(host.home, AWKWARD_DIR);
      lines[0] = JSON.stringify(meta);
      await writeFile(join(host.home, CODEX_DIR, `rollout-2026-11-22T01-44-47-${AWKWARD_ID}.jsonl`), lines.join('\n'));
      // The agent on the host's PATH records how it was started.
      await writeFile(
        join(host.bin, 'codex'),
        `#!/bin/sh\n${quote(process.execPath)} -e 'require("fs").writeFileSync(process.argv[1], JSON.stringify({argv: process.argv.slice(2), cwd: process.cwd()}))' ${quote(join(host.home, 'codex-called.json'))} "$@"\n`,
      );
      await chmod(join(host.bin, 'codex'), 0o755);
    }
    await sshd.handOver();
    await writeFile(join(sandbox, 'config.json'), JSON.stringify({ ssh: sshd.ssh, connectTimeout: 5 }));
  }, 60_000);

  afterAll(async () => {
    await sshd?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it("lists both hosts, by the host's own sessions and by a mirror", async () => {
    const result = await run(['list', '--all', '--json', '--host', 'fish-sessions', '--host', 'fish-mirror']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toBe('');
    const rows = JSON.parse(result.stdout) as { id: string; host: string; cwd: string }[];
    for (const host of ['fish-sessions', 'fish-mirror']) {
      expect(rows.filter((row) => row.host === host).map((row) => row.id)).toContain(CODEX_ID);
      expect(rows.find((row) => row.host === host && row.id === AWKWARD_ID)?.cwd).toBe(join(sshd.host(host).home, AWKWARD_DIR));
    }
  });

  for (const host of ['fish-sessions', 'fish-mirror']) {
    it(`forks on ${host} and resumes in the recorded directory`, async () => {
      const home = sshd.host(host).home;
      const fork = await run(['fork', CODEX_ID, '--at', '3', '--json', '--host', host]);
      expect(fork.code, fork.stderr).toBe(0);
      const forked = JSON.parse(fork.stdout) as { id: string; path: string; keptUserTurns: number };
      expect(forked.keptUserTurns).toBe(2);
      expect(await readFile(forked.path, 'utf8')).toContain(forked.id);
      await rm(join(home, 'codex-called.json'), { force: true });
      const resumed = await run(['resume', AWKWARD_ID, '--host', host, '--', '--model', "a 'b'"]);
      expect(resumed.code, resumed.stderr).toBe(0);
      const called = JSON.parse(await readFile(join(home, 'codex-called.json'), 'utf8')) as { argv: string[]; cwd: string };
      expect(called).toEqual({ argv: ['resume', '--model', "a 'b'", AWKWARD_ID], cwd: join(home, AWKWARD_DIR) });
    });
  }
});
