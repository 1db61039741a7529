// Links cut mid-command, over a real OpenSSH server (test/remote/sshd.ts) reached through a stand-in `ssh` (the
// config's ssh command) that passes everything to the real one but cuts what the test asks: an upload after 50 KB
// (the host's `cat` then sees its input end, as when the connection closes), or the answer (the client is killed as
// the host's answer starts to arrive, while the host goes on). A fork from a mirror whose upload is cut leaves no
// file on the host; a host's `sessions fork` whose answer is lost still reports the fork it wrote.
import { execFile } from 'node:child_process';
import { chmod, cp, mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOGIN_AS, sshAvailable, TestSshd } from './sshd.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BIN = join(ROOT, 'bin', 'sessions.js');
const FIXTURE_HOME = join(ROOT, 'test', 'fixtures', 'home');
/** A Codex session with seven user turns, 96 KB: its whole fork is larger than the 50 KB that get through. */
const CODEX_ID = '01a200ed-60a4-7f10-a53c-15a9ecf122f3';
const CODEX_DIR = '.codex/sessions/2026/11/22';
const CODEX_FILE = `${CODEX_DIR}/rollout-2026-11-22T01-44-46-01a200ed-60a4-7f10-a53c-15a9ecf122f3.jsonl`;
const CUT_AT = 50 * 1024;

interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

const describeSsh = sshAvailable() || process.env.SESSIONS_ALLOW_NO_SSH !== '1' ? describe : describe.skip;

describeSsh(`links cut mid-command, ${LOGIN_AS}`, () => {
  let dir: string;
  let sandbox: string;
  let sshd: TestSshd;

  /** What the stand-in ssh cuts in the next calls: `upload`, `answer`, or nothing. */
  async function cut(mode: 'upload' | 'answer' | 'none'): Promise<void> {
    await writeFile(join(sandbox, 'cut-mode'), mode);
  }

  function run(args: readonly string[]): Promise<Run> {
    return new Promise((resolve) => {
      execFile(
        process.execPath,
        [BIN, ...args, '--home', join(sandbox, 'local')],
        { cwd: sandbox, env: { PATH: process.env.PATH, HOME: sandbox, XDG_CACHE_HOME: join(sandbox, 'cache'), SESSIONS_CONFIG: join(sandbox, 'config.json') } },
        (error, stdout, stderr) => resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
      );
    });
  }

  /** Every file under the host's Codex sessions, hidden ones too, with its size. */
  async function codexFiles(name: string): Promise<string[]> {
    const base = join(sshd.host(name).home, '.codex', 'sessions');
    const found = (await readdir(base, { recursive: true, withFileTypes: true })).filter((entry) => entry.isFile());
    return Promise.all(found.map(async (entry) => `${join(entry.parentPath, entry.name)} ${(await stat(join(entry.parentPath, entry.name))).size}`)).then((list) => list.sort());
  }

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'sessions-cut-'));
    sandbox = join(dir, 'sandbox');
    await mkdir(join(sandbox, 'local'), { recursive: true });
    sshd = await TestSshd.start(join(dir, 'sshd'), [
      { name: 'with-sessions', withSessions: true },
      { name: 'mirror-only', withSessions: false },
    ], BIN);
    for (const host of sshd.hosts) {
      await mkdir(join(host.home, CODEX_DIR), { recursive: true });
      // Dated an hour back: not a session in use.
      await cp(join(FIXTURE_HOME, CODEX_FILE), join(host.home, CODEX_FILE), { preserveTimestamps: true });
    }
    await sshd.handOver();
    const script = `#!/bin/sh
mode=$(cat ${JSON.stringify(join(sandbox, 'cut-mode'))} 2>/dev/null)
for last; do :; done
case "$mode:$last" in
  upload:*'cat > "$t"'*) head -c ${CUT_AT} | ssh "$@"; exit $? ;;
  answer:*'sessions fork'*)
    out=$(mktemp); ssh "$@" > "$out" & pid=$!
    while [ ! -s "$out" ] && kill -0 $pid 2>/dev/null; do sleep 0.05; done
    kill -9 $pid 2>/dev/null; rm -f "$out"; echo 'client_loop: send disconnect: Broken pipe' >&2; exit 255 ;;
esac
exec ssh "$@"
`;
    await writeFile(join(sandbox, 'cutting-ssh'), script);
    await chmod(join(sandbox, 'cutting-ssh'), 0o755);
    await writeFile(join(sandbox, 'config.json'), JSON.stringify({ ssh: [join(sandbox, 'cutting-ssh'), '-F', sshd.sshConfig], connectTimeout: 5 }));
  }, 60_000);

  afterAll(async () => {
    await sshd?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('a fork from a mirror whose upload is cut at 50 KB leaves no file on the host (nor in the mirror) and says so', async () => {
    const size = (await stat(join(sshd.host('mirror-only').home, CODEX_FILE))).size;
    expect(size).toBeGreaterThan(CUT_AT);
    // Read once: the mirror is synced (rsync's own ssh calls are not cut).
    await cut('none');
    const listed = await run(['list', '--all', '--json', '--host', 'mirror-only']);
    expect(listed.code, listed.stderr).toBe(0);
    const before = await codexFiles('mirror-only');
    const mirrorBefore = (await readdir(join(sandbox, 'cache'), { recursive: true })).sort();
    await cut('upload');
    const result = await run(['fork', CODEX_ID, '--json', '--host', 'mirror-only']);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(new RegExp(`the upload was cut: ${CUT_AT} of \\d+ bytes arrived, nothing was written`));
    // Nothing the host's Codex could list: no file at a final name, no temp file left.
    expect(await codexFiles('mirror-only')).toEqual(before);
    expect((await readdir(join(sandbox, 'cache'), { recursive: true })).filter((path) => path.endsWith('.jsonl')).sort()).toEqual(mirrorBefore.filter((path) => path.endsWith('.jsonl')));
    // Through the same stand-in without the cut, the same fork is placed whole.
    await cut('none');
    const whole = await run(['fork', CODEX_ID, '--json', '--host', 'mirror-only']);
    expect(whole.code, whole.stderr).toBe(0);
    const fork = JSON.parse(whole.stdout) as { id: string; path: string; keptUserTurns: number };
    expect(fork.keptUserTurns).toBe(7);
    expect((await stat(fork.path)).size).toBeGreaterThan(CUT_AT);
    expect((await readFile(fork.path, 'utf8')).endsWith('\n')).toBe(true);
  }, 60_000);

  it("a link cut after the host's sessions wrote a fork reports the fork it wrote, and leaves no answer file there", async () => {
    const home = sshd.host('with-sessions').home;
    const before = await codexFiles('with-sessions');
    await cut('answer');
    const result = await run(['fork', CODEX_ID, '--at', '3', '--json', '--host', 'with-sessions']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/warning: the link to with-sessions was cut \(.*Broken pipe\) after sessions there wrote the new session/);
    const fork = JSON.parse(result.stdout) as { id: string; path: string; host: string; keptUserTurns: number };
    expect(fork).toMatchObject({ host: 'with-sessions', keptUserTurns: 2 });
    expect(fork.path.startsWith(`${home}/.codex/sessions/`)).toBe(true);
    expect(await readFile(fork.path, 'utf8')).toContain(fork.id);
    expect((await codexFiles('with-sessions')).length).toBe(before.length + 1);
    // The answer kept on the host for this case was fetched and removed.
    const left = (await readdir('/tmp')).filter((name) => name.startsWith('sessions-answer-'));
    for (const name of left) expect(await readFile(join('/tmp', name), 'utf8').catch(() => '')).not.toContain(fork.id);
    // Uncut, the same call leaves no answer file either.
    await cut('none');
    const plain = await run(['fork', CODEX_ID, '--at', '2', '--json', '--host', 'with-sessions']);
    expect(plain.code, plain.stderr).toBe(0);
    expect(plain.stderr).not.toContain('warning');
    const second = JSON.parse(plain.stdout) as { id: string };
    for (const name of (await readdir('/tmp')).filter((one) => one.startsWith('sessions-answer-'))) {
      expect(await readFile(join('/tmp', name), 'utf8').catch(() => '')).not.toContain(second.id);
    }
  }, 60_000);
});
