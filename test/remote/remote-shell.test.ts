// Quoting for the remote shell: each argument survives one pass through a real POSIX shell exactly as given.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { remoteArgv, remoteLaunchLine, remoteQuote, viaPosixShell } from '../../src/remote/remote-shell.js';
import { failureReason, sshArgv } from '../../src/remote/ssh.js';
import { chosenHosts } from '../../src/remote/hosts.js';
import { rowFromListJson } from '../../src/remote/remote-row.js';

const exec = promisify(execFile);

const AWKWARD = ['plain', 'two words', "it's", '"double"', '$HOME', '$(touch pwned)', '`id`', 'back\\slash', 'new\nline', 'tab\there', '*', '-n', '', 'ünï 项目', "'", "''"];

describe('remote shell quoting', () => {
  it('every argument reaches the program as it was, through sh and dash', async () => {
    const shells = ['/bin/sh', '/bin/bash', '/bin/dash'].filter((path) => existsSync(path));
    expect(shells).toContain('/bin/sh');
    for (const shell of shells) {
      const line = remoteArgv([process.execPath, '-e', 'process.stdout.write(JSON.stringify(process.argv.slice(1)))', ...AWKWARD]);
      const { stdout } = await exec(shell, ['-c', line]);
      expect(JSON.parse(stdout)).toEqual(AWKWARD);
    }
  });

  it('a POSIX line reaches sh whole from any login shell: sh, bash, dash, zsh, fish', async () => {
    const shells = ['/bin/sh', '/bin/bash', '/bin/dash', '/usr/bin/zsh', '/bin/zsh', '/usr/bin/fish'].filter((path) => existsSync(path));
    // POSIX syntax a fish login shell cannot run by itself: if/then, ${VAR-}, and arguments quoted for sh.
    const line = `if true; then x=\${NOPE-}; ${remoteArgv([process.execPath, '-e', 'process.stdout.write(JSON.stringify(process.argv.slice(1)))', ...AWKWARD, 'a\\\\b'])}; fi`;
    for (const shell of shells) {
      const { stdout } = await exec(shell, ['-c', viaPosixShell(line)]);
      expect(JSON.parse(stdout), shell).toEqual([...AWKWARD, 'a\\\\b']);
    }
  });

  it('a line every shell reads as sh does is sent as it is (the resume command printed stays readable)', () => {
    expect(viaPosixShell("cd '/srv/my app' && exec codex resume ID")).toBe("cd '/srv/my app' && exec codex resume ID");
    expect(viaPosixShell("cd '/a\\b' && exec x")).toBe("sh -c 'cd '\\''/a'\\\\'b'\\'' && exec x'");
    expect(viaPosixShell('x; y')).toBe("sh -c 'x; y'");
    expect(viaPosixShell(`${'a'.repeat(5000)}$`)).toBe(`sh -c '${'a'.repeat(5000)}$'`);
  });

  it('plain words stay plain; the rest is single-quoted once', () => {
    expect(remoteQuote('codex')).toBe('codex');
    expect(remoteQuote('/home/me/src')).toBe('/home/me/src');
    expect(remoteQuote('a b')).toBe("'a b'");
    expect(remoteQuote("it's")).toBe("'it'\\''s'");
    expect(remoteQuote('')).toBe("''");
  });

  it('runs the agent in the recorded directory with its variables', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sessions-quote-'));
    try {
      const cwd = join(dir, `proj it's "$HOME" $(x) \`y\``);
      await mkdir(cwd);
      const line = remoteLaunchLine({ argv: [process.execPath, '-e', 'process.stdout.write(JSON.stringify([process.cwd(), process.env.CODEX_HOME, process.argv[1]]))', 'a $b'], cwd, env: { CODEX_HOME: '/x y/$z' } });
      const { stdout } = await exec('/bin/sh', ['-c', line]);
      expect(JSON.parse(stdout)).toEqual([cwd, '/x y/$z', 'a $b']);
      expect(remoteLaunchLine({ argv: ['codex', 'resume', 'ID'], cwd: null })).toBe('exec codex resume ID');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('ssh argv', () => {
  it('batch calls never prompt; a destination is never read as an option', () => {
    const settings = { ssh: ['ssh', '-F', '/cfg'], connectTimeout: 7 };
    const argv = sshArgv(settings, '-oProxyCommand=evil', 'true', 'batch');
    expect(argv.slice(0, 3)).toEqual(['ssh', '-F', '/cfg']);
    expect(argv).toContain('BatchMode=yes');
    expect(argv).toContain('ConnectTimeout=7');
    expect(argv.slice(-3)).toEqual(['--', '-oProxyCommand=evil', 'true']);
    expect(sshArgv(settings, 'devbox', 'x', 'terminal')).toContain('-t');
    expect(sshArgv(settings, 'devbox', 'x', 'terminal')).not.toContain('BatchMode=yes');
  });

  it('a failure is said in the line that says why', () => {
    expect(failureReason({ code: 255, signal: null, stdout: '', stderr: "Warning: Permanently added 'x' (ED25519) to the list of known hosts.\r\nme@h: Permission denied (publickey).\r\n" }, 'ssh failed')).toBe('me@h: Permission denied (publickey).');
    expect(failureReason({ code: 12, signal: null, stdout: '', stderr: 'rsync: connection unexpectedly closed (0 bytes received so far) [Receiver]\nrsync error: error in rsync protocol data stream (code 12) at io.c(232) [Receiver=3.2.7]\n' }, 'rsync failed')).toBe('rsync: connection unexpectedly closed (0 bytes received so far) [Receiver]');
    expect(failureReason({ code: 3, signal: null, stdout: '', stderr: '' }, 'ssh failed')).toBe('ssh failed (exit code 3)');
    expect(failureReason({ code: 1, signal: null, stdout: '', stderr: 'evil \u001b]0;title\u0007text\n' }, 'x')).toBe('evil text');
  });
});

describe('which machines', () => {
  it('--host names them (local is this one); without it, this one and the config\'s hosts', () => {
    expect(chosenHosts(undefined, { hosts: ['a', 'b', 'a'] })).toEqual({ local: true, hosts: ['a', 'b'] });
    expect(chosenHosts(['c'], { hosts: ['a'] })).toEqual({ local: false, hosts: ['c'] });
    expect(chosenHosts(['local', 'c'], { hosts: ['a'] })).toEqual({ local: true, hosts: ['c'] });
  });

  it('a destination rsync would read as an option is refused, named on the command line or in the config', () => {
    expect(() => chosenHosts(['-oProxyCommand=touch x'], { hosts: [] })).toThrow('not an ssh destination: "-oProxyCommand=touch x"');
    expect(() => chosenHosts(undefined, { hosts: ['ok', '-F/tmp/x'] })).toThrow('begin with "-"');
    expect(() => chosenHosts(['a\nb'], { hosts: [] })).toThrow('control characters');
  });
});

describe('a host\'s rows', () => {
  const row = {
    id: 'abc',
    agent: 'codex',
    host: null,
    path: '/h/.codex/sessions/x.jsonl',
    paths: ['/h/.codex/sessions/x.jsonl'],
    cwd: '/h/src',
    title: 't',
    name: null,
    firstPrompt: 'first',
    lastPrompt: 'last',
    userTurns: 3,
    userTurnsExact: true,
    createdAt: '2026-11-22T01:00:00.000Z',
    updatedAt: '2026-11-22T02:00:00.000Z',
    forkedFrom: 'parent',
    branchName: 'b',
    gitBranch: 'main',
    model: 'gpt',
    archived: false,
    usage: { input: 1, output: 2, cacheRead: 3, cacheWrite: 4 },
    subagents: [],
    subagent: null,
  };

  it('become rows of that host, searchable by their prompts', () => {
    const session = rowFromListJson(row, 'devbox')!;
    expect(session).toMatchObject({ id: 'abc', agent: 'codex', host: 'devbox', cwd: '/h/src', userTurns: 3, prompts: ['first', 'last'], fork: { id: 'parent', branchName: 'b' }, usage: row.usage });
  });

  it('a value of the wrong type drops the row', () => {
    expect(rowFromListJson({ ...row, agent: 'rm -rf' }, 'h')).toBe(null);
    expect(rowFromListJson({ ...row, userTurns: '3' }, 'h')).toBe(null);
    expect(rowFromListJson({ ...row, id: 5 }, 'h')).toBe(null);
    expect(rowFromListJson('x', 'h')).toBe(null);
    expect(rowFromListJson({ ...row, paths: [1] }, 'h')?.paths).toEqual([row.path]);
  });
});
