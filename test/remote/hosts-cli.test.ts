// `sessions` reading other machines over a real OpenSSH server (test/remote/sshd.ts): one host with `sessions`
// on its PATH (rows come from its own index), one without (its session folders are mirrored with rsync), and
// hosts that refuse the key, never answer, or drop the connection mid-sync.
import { execFile } from 'node:child_process';
import { chmod, cp, mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AGENTS } from '../../src/core/model.js';
import { sha256File } from '../helpers/files.js';
import { fillEveryAgentHome, NOT_SESSIONS } from './every-agent-home.js';
import { LOGIN_AS, quote, sshAvailable, TestSshd } from './sshd.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BIN = join(ROOT, 'bin', 'sessions.js');
const FIXTURE_HOME = join(ROOT, 'test', 'fixtures', 'home');
/** A Codex session with seven user turns. */
const CODEX_ID = '01a200ed-60a4-7f10-a53c-15a9ecf122f3';
const CODEX_FILE = '.codex/sessions/2026/11/22/rollout-2026-11-22T01-44-46-01a200ed-60a4-7f10-a53c-15a9ecf122f3.jsonl';
/** A directory name a shell would split, unquote or expand. */
const AWKWARD_DIR = `proj it's "$HOME" $(x) \`y\``;

interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

interface Row {
  id: string;
  agent: string;
  host: string | null;
  path: string;
  paths: string[];
  cwd: string | null;
  userTurns: number;
}

// Missing OpenSSH or rsync fails these tests (TestSshd.start says what to install) unless SESSIONS_ALLOW_NO_SSH=1.
const describeSsh = sshAvailable() || process.env.SESSIONS_ALLOW_NO_SSH !== '1' ? describe : describe.skip;

describeSsh(`hosts over ssh, ${LOGIN_AS}`, () => {
  let dir: string;
  let sandbox: string;
  let sshd: TestSshd;

  function run(args: readonly string[], config: Record<string, unknown> = {}): Promise<Run> {
    return new Promise((resolve) => {
      void writeFile(join(sandbox, 'config.json'), JSON.stringify({ ssh: sshd.ssh, connectTimeout: 5, ...config })).then(() =>
        execFile(
          process.execPath,
          [BIN, ...args],
          {
            cwd: sandbox,
            maxBuffer: 64 * 1024 * 1024,
            env: { PATH: process.env.PATH, HOME: sandbox, XDG_CACHE_HOME: join(sandbox, 'cache'), SESSIONS_CONFIG: join(sandbox, 'config.json') },
          },
          (error, stdout, stderr) => resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
        ),
      );
    });
  }

  async function list(...args: string[]): Promise<Row[]> {
    const result = await run(['list', '--all', '--json', '--home', join(sandbox, 'local'), ...args]);
    expect(result.code, result.stderr).toBe(0);
    return JSON.parse(result.stdout) as Row[];
  }

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'sessions-hosts-'));
    sandbox = join(dir, 'sandbox');
    await mkdir(join(sandbox, 'local', '.codex', 'sessions', '2026', '11', '22'), { recursive: true });
    // This machine holds one session of its own.
    await cp(join(FIXTURE_HOME, '.codex/sessions/2026/11/22/rollout-2026-11-22T01-58-48-01a200fa-3a58-7971-88f2-72d291066439.jsonl'), join(sandbox, 'local', '.codex/sessions/2026/11/22/rollout-2026-11-22T01-58-48-01a200fa-3a58-7971-88f2-72d291066439.jsonl'));
    sshd = await TestSshd.start(join(dir, 'sshd'), [
      { name: 'with-sessions', withSessions: true },
      { name: 'mirror-only', withSessions: false },
      { name: 'dropping', withSessions: false },
    ], BIN);
    for (const host of sshd.hosts) {
      // Sessions of every agent (and files that are not sessions: credentials, settings).
      await fillEveryAgentHome(host.home);
      // A session recorded in a directory whose name needs quoting.
      await mkdir(join(host.home, AWKWARD_DIR), { recursive: true });
      const original = await readFile(join(host.home, CODEX_FILE), 'utf8');
      const lines = original.split('\n');
      const meta = JSON.parse(lines[0]!) as { payload: { id: string; cwd: string } };
      meta.payload.id = '01a200ed-60a4-7f10-a53c-15a9ecf1aaaa';
      meta.payload.cwd = join(host.home, AWKWARD_DIR);
      lines[0] = JSON.stringify(meta);
      await writeFile(join(host.home, '.codex/sessions/2026/11/22/rollout-2026-11-22T01-44-47-01a200ed-60a4-7f10-a53c-15a9ecf1aaaa.jsonl'), lines.join('\n'));
    }
    // This host's rsync kills its own ssh session as soon as it starts: the connection drops mid-sync.
    await writeFile(join(sshd.host('dropping').bin, 'rsync'), '#!/bin/sh\nkill -9 $PPID\n');
    await chmod(join(sshd.host('dropping').bin, 'rsync'), 0o755);
    await sshd.handOver();
  }, 60_000);

  afterAll(async () => {
    await sshd?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('lists this machine and each host, every row saying where it lives, paths as the host has them', async () => {
    const rows = await list('--host', 'local', '--host', 'with-sessions', '--host', 'mirror-only');
    const byHost = (host: string | null): Row[] => rows.filter((row) => row.host === host);
    expect(byHost(null).map((row) => row.id)).toEqual(['01a200fa-3a58-7971-88f2-72d291066439']);
    for (const name of ['with-sessions', 'mirror-only']) {
      const home = sshd.host(name).home;
      const hostRows = byHost(name);
      expect(hostRows.length).toBeGreaterThanOrEqual(8);
      const codex = hostRows.find((row) => row.id === CODEX_ID)!;
      expect(codex.path).toBe(join(home, CODEX_FILE));
      expect(codex.userTurns).toBe(7);
      for (const row of hostRows) for (const path of row.paths) expect(path.startsWith(`${home}/`), path).toBe(true);
    }
    // Both ways of reading a host give the same rows.
    const strip = (row: Row, home: string) => ({ ...row, host: null, path: row.path.slice(home.length), paths: row.paths.map((p) => p.slice(home.length)), cwd: row.cwd?.startsWith(`${home}/`) ? row.cwd.slice(home.length) : row.cwd });
    const viaSessions = byHost('with-sessions').map((row) => strip(row, sshd.host('with-sessions').home)).filter((row) => row.id !== '01a200ed-60a4-7f10-a53c-15a9ecf1aaaa');
    const viaMirror = byHost('mirror-only').map((row) => strip(row, sshd.host('mirror-only').home)).filter((row) => row.id !== '01a200ed-60a4-7f10-a53c-15a9ecf1aaaa');
    expect(viaMirror).toEqual(viaSessions);    // Sessions of every agent, from a mirror that copied nothing but the files they are read from.
    expect(new Set(viaMirror.map((row) => row.agent))).toEqual(new Set(AGENTS));
    const mirrored = await walk(join(sandbox, 'cache'));
    // (SQLite makes its own -shm beside the mirrored database when it reads it: test/remote/mirror.test.ts shows rsync copies none.)
    for (const path of NOT_SESSIONS.filter((one) => !one.endsWith('-shm'))) expect(mirrored.some((one) => one.endsWith(`${sshd.host('mirror-only').home}/${path}`)), path).toBe(false);
  });

  it('reads the hosts named in config.json beside this machine; --host picks among them', async () => {
    const rows = await run(['list', '--all', '--json', '--home', join(sandbox, 'local')], { hosts: ['mirror-only'] });
    expect(rows.code, rows.stderr).toBe(0);
    const hosts = new Set((JSON.parse(rows.stdout) as Row[]).map((row) => row.host));
    expect(hosts).toEqual(new Set([null, 'mirror-only']));
    const text = await run(['list', '--all', '--home', join(sandbox, 'local'), '--host', 'mirror-only'], { hosts: ['mirror-only'] });
    expect(text.stdout).toContain(`mirror-only:${sshd.host('mirror-only').home}/${AWKWARD_DIR}`);
    // Only that host's rows: this machine's are not named.
    expect(text.stdout.trim().split('\n').every((line) => line.includes('  mirror-only:'))).toBe(true);
  });

  it('a host that refuses the key, one that never answers and one that drops mid-sync say why; this machine is still listed', async () => {
    const result = await run(['list', '--all', '--json', '--home', join(sandbox, 'local'), '--host', 'local', '--host', 'refused', '--host', 'silent', '--host', 'dropping'], { connectTimeout: 2 });
    expect(result.code, result.stderr).toBe(0);
    const rows = JSON.parse(result.stdout) as Row[];
    expect(rows.map((row) => row.host)).toEqual([null]);
    expect(result.stderr).toMatch(/host refused unreachable: .*Permission denied \(publickey/);
    expect(result.stderr).toMatch(/host silent unreachable: .*timed out/i);
    expect(result.stderr).toMatch(/host dropping unreachable: rsync: connection unexpectedly closed/);
  });

  for (const name of ['with-sessions', 'mirror-only']) {
    it(`forks a session on ${name} at turn 3: the fork is written on the host, the original is untouched`, async () => {
      const home = sshd.host(name).home;
      const original = join(home, CODEX_FILE);
      const before = await sha256File(original);
      const dayDirs = async (): Promise<string[]> => (await readdir(join(home, '.codex', 'sessions'), { recursive: true })).filter((f) => f.endsWith('.jsonl')).sort();
      const filesBefore = await dayDirs();
      const result = await run(['fork', CODEX_ID, '--at', '3', '--json', '--home', join(sandbox, 'local'), '--host', name]);
      expect(result.code, result.stderr).toBe(0);
      const fork = JSON.parse(result.stdout) as { id: string; path: string; host: string; keptUserTurns: number; resume: { argv: string[] } };
      expect(fork.host).toBe(name);
      expect(fork.keptUserTurns).toBe(2);
      expect(fork.path.startsWith(`${home}/.codex/sessions/`)).toBe(true);
      expect((await stat(fork.path)).mode & 0o777).toBe(0o600);
      // Written by the host's user (another account than this one's, when the tests can make one).
      expect((await stat(fork.path)).uid).toBe((await stat(home)).uid);
      if (sshd.secondUser) expect((await stat(home)).uid).not.toBe(process.getuid?.());
      expect(await readFile(fork.path, 'utf8')).toContain(fork.id);
      expect(await sha256File(original)).toBe(before);
      const filesAfter = await dayDirs();
      expect(filesAfter.length).toBe(filesBefore.length + 1);
      // No temp file left beside it.
      expect((await readdir(join(fork.path, '..'))).filter((f) => f.includes('.tmp-'))).toEqual([]);
      expect(fork.resume.argv).toContain(name);
      // The host lists the fork, with its two turns.
      const rows = await list('--host', name);
      expect(rows.find((row) => row.id === fork.id)?.userTurns).toBe(2);
    });

    for (const to of ['claude', 'copilot', 'gemini', 'qwen']) {
      it(`hands a session on ${name} off to ${to} (fork --to): the new session is written on the host, listed there, the original untouched`, async () => {
        const home = sshd.host(name).home;
        const original = join(home, CODEX_FILE);
        const before = await sha256File(original);
        const result = await run(['fork', CODEX_ID, '--at', '3', '--to', to, '--json', '--home', join(sandbox, 'local'), '--host', name]);
        expect(result.code, result.stderr).toBe(0);
        const handed = JSON.parse(result.stdout) as { agent: string; id: string; path: string; host: string; parentAgent: string; keptUserTurns: number; resume: { argv: string[] } };
        expect(handed).toMatchObject({ agent: to, host: name, parentAgent: 'codex', keptUserTurns: 2 });
        expect(handed.path.startsWith(`${home}/.${to}/`), handed.path).toBe(true);
        expect((await stat(handed.path)).uid).toBe((await stat(home)).uid);
        expect(await sha256File(original)).toBe(before);
        // No temp file left beside it.
        expect((await readdir(join(handed.path, '..'))).filter((f) => f.includes('.tmp-'))).toEqual([]);
        expect(handed.resume.argv.join(' ')).toContain(handed.id);
        // The host lists it, as a session of that agent with the two turns kept.
        const rows = await list('--host', name);
        // In the session's directory (Gemini's comes from the .project_root placed beside the chats).
        const cwd = rows.find((row) => row.id === CODEX_ID)!.cwd;
        expect(rows.find((row) => row.id === handed.id)).toMatchObject({ agent: to, userTurns: 2, host: name, cwd });
        // Every file the writer made is on the host (Copilot's workspace.yaml beside its events).
        if (to === 'copilot') expect((await stat(join(handed.path, '..', 'workspace.yaml'))).isFile()).toBe(true);
      });
    }

    it(`resumes a session on ${name} in its recorded directory (spaces, quotes, $ and backquotes in it) with the agent on the host's PATH`, async () => {
      const host = sshd.host(name);
      const record = join(host.home, 'codex-called.json');
      await writeFile(
        join(host.bin, 'codex'),
        `#!/bin/sh\n${quote(process.execPath)} -e 'require("fs").writeFileSync(process.argv[1], JSON.stringify({argv: process.argv.slice(2), cwd: process.cwd(), codexHome: process.env.CODEX_HOME ?? null}))' ${quote(record)} "$@"\n`,
      );
      await chmod(join(host.bin, 'codex'), 0o755);
      await rm(record, { force: true });
      const dry = await run(['resume', '01a200ed-60a4-7f10-a53c-15a9ecf1aaaa', '--dry-run', '--json', '--home', join(sandbox, 'local'), '--host', name]);
      expect(dry.code, dry.stderr).toBe(0);
      expect((JSON.parse(dry.stdout) as { host: string }).host).toBe(name);
      const result = await run(['resume', '01a200ed-60a4-7f10-a53c-15a9ecf1aaaa', '--home', join(sandbox, 'local'), '--host', name, '--', '--model', 'a b']);
      expect(result.code, result.stderr).toBe(0);
      const called = JSON.parse(await readFile(record, 'utf8')) as { argv: string[]; cwd: string; codexHome: string | null };
      expect(called.argv).toEqual(['resume', '--model', 'a b', '01a200ed-60a4-7f10-a53c-15a9ecf1aaaa']);
      expect(called.cwd).toBe(join(host.home, AWKWARD_DIR));
      expect(called.codexHome).toBe(null);
    });
  }

  it('a mirrored host cannot take a claw or opencode hand-off (claw writes in the workspace, opencode in its database): it says why, nothing is written', async () => {
    const result = await run(['fork', CODEX_ID, '--at', '3', '--to', 'claw', '--home', join(sandbox, 'local'), '--host', 'mirror-only']);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('install sessions there');
    // Nor an opencode one: it adds rows to opencode's database on the host, which a mirror's copy cannot place there.
    const opencode = await run(['fork', CODEX_ID, '--at', '3', '--to', 'opencode', '--home', join(sandbox, 'local'), '--host', 'mirror-only']);
    expect(opencode.code).not.toBe(0);
    expect(opencode.stderr).toContain("adds rows to opencode's database on the host");
  });

  it('shows and greps a host\'s transcript, as that host\'s own sessions does', async () => {
    const outputs: string[] = [];
    const found: string[][] = [];
    for (const name of ['with-sessions', 'mirror-only']) {
      const home = sshd.host(name).home;
      const show = await run(['show', CODEX_ID, '--home', join(sandbox, 'local'), '--host', name]);
      expect(show.code, show.stderr).toBe(0);
      expect(show.stdout).toContain(`path: ${join(home, CODEX_FILE)}`);
      expect(show.stdout).toContain('run ls and explain the layout of this repo');
      outputs.push(show.stdout.replaceAll(home, '<home>'));
      const grep = await run(['grep', 'explain the layout', '-i', '--json', '--home', join(sandbox, 'local'), '--host', name]);
      expect(grep.code, grep.stderr).toBe(0);
      const rows = grep.stdout.trim().split('\n').map((line) => JSON.parse(line) as Row & { matches: number });
      expect(rows.every((row) => row.host === name && row.path.startsWith(home))).toBe(true);
      // (Forks made by the tests above match too; their ids differ per host.)
      found.push(rows.filter((row) => row.id.startsWith('01a200ed-60a4')).map((row) => `${row.id} ${row.matches}`).sort());
      // A text that starts with a dash is text on the host too (`ls -la` ran in that session).
      const dash = await run(['grep', '--json', '--home', join(sandbox, 'local'), '--host', name, '--', '-la']);
      expect(dash.code, dash.stderr).toBe(0);
      expect(dash.stdout).toContain(CODEX_ID);
    }
    expect(outputs[1]).toBe(outputs[0]);
    expect(found[0]!.some((row) => row.startsWith(`${CODEX_ID} `))).toBe(true);
    expect(found[1]).toEqual(found[0]);
  }, 60_000);
});

async function walk(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await walk(path)));
    else out.push(path);
  }
  return out;
}
