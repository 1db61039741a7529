// `sessions fork --with-code` on sessions recorded by the real Claude Code 2.1.330 (file checkpoints) and Codex 0.58.0
// (ghost commits) against the model stand-in (test/fixtures/with-code, test/interop/record-with-code.ts): turns 1-3
// rewrote notes.txt, turn 4 created added.txt. The built bin/sessions.js runs on a copy of the recording's home, its
// two repositories unpacked as the agents left them.
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { claudeProjectFolder } from '../../src/core/formats/claude/discovery.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BIN = join(ROOT, 'bin', 'sessions.js');
const FIXTURE = join(ROOT, 'test', 'fixtures', 'with-code');
const CLAUDE = '9f63fd30-7f67-41fb-8581-21e51e824769';
const CODEX = '01a2248e-9ce4-72a1-93bd-f4b9af614d20';

let sandbox: string;
let home: string;

function exec(command: string, args: readonly string[], cwd: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const env = { PATH: process.env.PATH, HOME: sandbox, GIT_CONFIG_GLOBAL: join(sandbox, '.gitconfig'), GIT_CONFIG_NOSYSTEM: '1', XDG_CACHE_HOME: join(sandbox, 'cache'), XDG_CONFIG_HOME: join(sandbox, 'config') };
  return new Promise((resolve) => {
    execFile(command, [...args], { cwd, env }, (error, stdout, stderr) => resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr }));
  });
}

const sessions = (...args: string[]) => exec(process.execPath, [BIN, ...args, '--home', home], sandbox);
const git = async (repo: string, ...args: string[]) => (await exec('git', args, repo)).stdout;

/** Copy the fixture's files for `agent`, its paths (recorded under /home/dev) made this home's. */
async function copyDepersonalised(from: string, to: string): Promise<void> {
  for (const entry of await readdir(from, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    const source = join(entry.parentPath, entry.name);
    let target = join(to, source.slice(from.length + 1));
    target = target.replace('-home-dev-src-claude-notes', claudeProjectFolder(join(home, 'src', 'claude-notes')));
    await mkdir(join(target, '..'), { recursive: true });
    const bytes = await readFile(source);
    await writeFile(target, source.endsWith('.jsonl') ? bytes.toString('utf8').replaceAll('/home/dev', home) : bytes);
  }
}

beforeEach(async () => {
  sandbox = await mkdtemp(join(tmpdir(), 'sessions-with-code-'));
  home = join(sandbox, 'home');
  await writeFile(join(sandbox, '.gitconfig'), '');
  await copyDepersonalised(join(FIXTURE, 'claude'), join(home, '.claude'));
  await copyDepersonalised(join(FIXTURE, 'codex'), join(home, '.codex'));
  await mkdir(join(home, 'src'), { recursive: true });
  for (const repo of ['claude-notes', 'codex-notes']) {
    const result = await exec('tar', ['-xzf', join(FIXTURE, 'repos', `${repo}.tar.gz`)], join(home, 'src'));
    expect(result.code, result.stderr).toBe(0);
  }
});

afterEach(async () => {
  await rm(sandbox, { recursive: true, force: true });
});

/** What the user has in a repository: status, stashes, branches (but the fork's), HEAD, the working tree's files. */
async function userState(repo: string): Promise<unknown> {
  const refs = (await git(repo, 'for-each-ref', '--format=%(refname) %(objectname)', 'refs/heads', 'refs/stash')).split('\n').filter((line) => !line.startsWith('refs/heads/sessions/'));
  const files: Record<string, string> = {};
  for (const name of (await readdir(repo)).filter((name) => name !== '.git')) files[name] = await readFile(join(repo, name), 'utf8');
  return { status: await git(repo, 'status', '--porcelain=v1', '--untracked-files=all'), stash: await git(repo, 'stash', 'list'), refs, head: await git(repo, 'rev-parse', 'HEAD'), symbolic: await git(repo, 'symbolic-ref', 'HEAD'), index: await git(repo, 'ls-files', '--stage'), files };
}

interface Forked {
  readonly id: string;
  readonly path: string;
  readonly worktree: { readonly dir: string; readonly branch: string; readonly base: string; readonly cwd: string };
  readonly resume: { readonly cwd: string };
}

async function forkWithCode(id: string, repo: string, at: number, ...more: string[]): Promise<Forked> {
  const before = await userState(repo);
  const result = await sessions('fork', id, '--at', String(at), '--with-code', ...more, '--json');
  expect(result.code, result.stderr).toBe(0);
  expect(await userState(repo)).toEqual(before);
  return JSON.parse(result.stdout) as Forked;
}

const saved = (agent: string, turn: number, file: string) => readFile(join(FIXTURE, 'saved', agent, `before-turn-${turn}.${file}`));

/** Every session file of both agents and every branch and worktree of both repositories: what a refusal must leave as it was. */
async function everything(): Promise<unknown> {
  const out: Record<string, unknown> = {};
  for (const agent of ['.claude', '.codex']) out[agent] = (await readdir(join(home, agent), { recursive: true })).sort();
  for (const repo of ['claude-notes', 'codex-notes']) {
    const dir = join(home, 'src', repo);
    out[repo] = [await userState(dir), await git(dir, 'branch', '--list'), await git(dir, 'worktree', 'list', '--porcelain')];
  }
  out.src = (await readdir(join(home, 'src'))).sort();
  return out;
}

async function refused(args: string[], reason: RegExp): Promise<void> {
  const before = await everything();
  const result = await sessions('fork', ...args);
  expect(result.code).toBe(1);
  expect(result.stderr).toMatch(reason);
  expect(result.stdout).toBe('');
  expect(await everything()).toEqual(before);
}

describe('fork --with-code: Claude Code (file-history backups on the commit the session started from)', () => {
  const repo = () => join(home, 'src', 'claude-notes');

  it('gives the files as they were when turn 3 was typed, in a new worktree on sessions/<fork id>, where the fork runs', async () => {
    const forked = await forkWithCode(CLAUDE, repo(), 3);
    const dir = join(home, 'src', `claude-notes-${forked.id}`);
    expect(forked.worktree).toMatchObject({ dir, branch: `sessions/${forked.id}`, cwd: dir });
    expect(await readFile(join(dir, 'notes.txt'))).toEqual(await saved('claude', 3, 'notes.txt'));
    expect(existsSync(join(dir, 'added.txt'))).toBe(false);
    // The branch starts at the commit main was on when the session started (its reflog), the edits uncommitted.
    expect(forked.worktree.base).toBe((await git(repo(), 'rev-parse', 'main')).trim());
    expect((await git(dir, 'rev-parse', 'HEAD')).trim()).toBe(forked.worktree.base);
    expect(await git(dir, 'status', '--porcelain=v1')).toBe(' M notes.txt\n');
    // Claude Code finds the fork in the worktree's project folder, and every line says it ran there.
    expect(forked.path).toBe(join(home, '.claude', 'projects', claudeProjectFolder(dir), `${forked.id}.jsonl`));
    const cwds = new Set([...(await readFile(forked.path, 'utf8')).matchAll(/"cwd":"([^"]*)"/g)].map((match) => match[1]));
    expect([...cwds]).toEqual([dir]);
    expect(forked.resume.cwd).toBe(dir);
  });

  it('restores a file created at turn 4 for a fork before turn 5, and DIR is where the worktree goes', async () => {
    const dir = join(sandbox, 'elsewhere', 'at-5');
    const forked = await forkWithCode(CLAUDE, repo(), 5, dir);
    expect(forked.worktree.dir).toBe(dir);
    expect(await readFile(join(dir, 'notes.txt'))).toEqual(await saved('claude', 5, 'notes.txt'));
    expect(await readFile(join(dir, 'added.txt'))).toEqual(await saved('claude', 5, 'added.txt'));
    expect(await git(dir, 'status', '--porcelain=v1')).toBe(' M notes.txt\n?? added.txt\n');
  });

  it('refuses a turn with no snapshot (checkpointing off) and writes nothing', async () => {
    const path = join(home, '.claude', 'projects', claudeProjectFolder(repo()), `${CLAUDE}.jsonl`);
    const lines = (await readFile(path, 'utf8')).split('\n');
    await writeFile(path, lines.filter((line) => !line.includes('"type":"file-history-')).join('\n'));
    await refused([CLAUDE, '--at', '3', '--with-code'], /turn 3 has no file-history snapshot: .*CLAUDE_CODE_ENABLE_SDK_FILE_CHECKPOINTING=1/);
  });

  it('refuses when the backups are gone, and when the folder asked for exists', async () => {
    await mkdir(join(sandbox, 'taken'));
    await refused([CLAUDE, '--at', '3', '--with-code', join(sandbox, 'taken')], /taken already exists/);
    await rm(join(home, '.claude', 'file-history'), { recursive: true });
    await refused([CLAUDE, '--at', '3', '--with-code'], /the backup of notes\.txt for turn 3 .* is gone/);
  });

  it('hands off to another agent (--to) that runs in the worktree, named after the new session', async () => {
    const forked = await forkWithCode(CLAUDE, repo(), 3, '--to', 'codex');
    const dir = join(home, 'src', `claude-notes-${forked.id}`);
    expect(forked.path).toContain(join(home, '.codex', 'sessions'));
    expect(forked.worktree).toMatchObject({ dir, branch: `sessions/${forked.id}`, cwd: dir });
    expect(await readFile(join(dir, 'notes.txt'))).toEqual(await saved('claude', 3, 'notes.txt'));
    const first = JSON.parse((await readFile(forked.path, 'utf8')).split('\n')[0]!) as { payload: { id: string; cwd: string } };
    expect(first.payload).toMatchObject({ id: forked.id, cwd: dir });
    expect(forked.resume.cwd).toBe(dir);
  });

  it('refuses after the last turn, a hand-off that fails, and outside git', async () => {
    await refused([CLAUDE, '--with-code'], /--with-code forks before a turn/);
    // A hand-off that fails after the worktree was made takes it back (opencode has made no database here).
    await refused([CLAUDE, '--at', '3', '--with-code', '--to', 'opencode'], /opencode\.db does not exist: run opencode once/);
    await rename(join(repo(), '.git'), join(sandbox, 'moved.git'));
    const before = await readdir(join(home, '.claude'), { recursive: true });
    const result = await sessions('fork', CLAUDE, '--at', '3', '--with-code');
    expect(result.stderr).toMatch(/is not in a git repository/);
    expect(result.code).toBe(1);
    expect(await readdir(join(home, '.claude'), { recursive: true })).toEqual(before);
  });
});

describe('fork --with-code: Codex (the turn\'s ghost commit)', () => {
  const repo = () => join(home, 'src', 'codex-notes');

  it('gives the files of turn 3\'s ghost commit in a new worktree, where the fork runs', async () => {
    const forked = await forkWithCode(CODEX, repo(), 3);
    const dir = join(home, 'src', `codex-notes-${forked.id}`);
    expect(forked.worktree).toMatchObject({ dir, branch: `sessions/${forked.id}`, cwd: dir });
    expect(await readFile(join(dir, 'notes.txt'))).toEqual(await saved('codex', 3, 'notes.txt'));
    expect(existsSync(join(dir, 'added.txt'))).toBe(false);
    expect((await git(dir, 'rev-parse', 'HEAD')).trim()).toBe((await git(repo(), 'rev-parse', 'main')).trim());
    const lines = (await readFile(forked.path, 'utf8')).trim().split('\n').map((line) => JSON.parse(line) as { type: string; payload: { cwd?: string } });
    expect(lines[0]!.payload.cwd).toBe(dir);
    const contexts = lines.filter((line) => line.type === 'turn_context').map((line) => line.payload.cwd);
    expect(contexts.length).toBeGreaterThan(0);
    expect(new Set(contexts)).toEqual(new Set([dir]));
    expect(forked.resume.cwd).toBe(dir);
  });

  it('brings back the untracked file the ghost commit of turn 5 holds', async () => {
    const forked = await forkWithCode(CODEX, repo(), 5);
    expect(await readFile(join(forked.worktree.dir, 'added.txt'))).toEqual(await saved('codex', 5, 'added.txt'));
    expect(await readFile(join(forked.worktree.dir, 'notes.txt'))).toEqual(await saved('codex', 5, 'notes.txt'));
    expect(await git(forked.worktree.dir, 'status', '--porcelain=v1')).toBe(' M notes.txt\n?? added.txt\n');
  });

  it('refuses a garbage-collected ghost commit and writes nothing', async () => {
    const ghost = /"ghost_commit":\{"id":"([0-9a-f]{40})"/.exec(await readFile(join(FIXTURE, 'codex', 'sessions', '2026', '11', '28', 'rollout-2026-11-28T23-47-35-01a2248e-9ce4-72a1-93bd-f4b9af614d20.jsonl'), 'utf8'))![1]!;
    expect((await exec('git', ['cat-file', '-e', ghost], repo())).code).toBe(0);
    await git(repo(), 'reflog', 'expire', '--expire=now', '--all');
    await git(repo(), 'gc', '--prune=now', '--quiet');
    expect((await exec('git', ['cat-file', '-e', ghost], repo())).code).not.toBe(0);
    await refused([CODEX, '--at', '3', '--with-code'], /turn 3's ghost commit [0-9a-f]{40} is not in .* any more: git gc prunes/);
  });

  it('refuses a turn with no ghost snapshot and writes nothing', async () => {
    const [path] = (await readdir(join(home, '.codex', 'sessions'), { recursive: true })).filter((name) => name.endsWith('.jsonl')).map((name) => join(home, '.codex', 'sessions', name));
    const lines = (await readFile(path!, 'utf8')).split('\n');
    await writeFile(path!, lines.filter((line) => !line.includes('"type":"ghost_snapshot"')).join('\n'));
    await refused([CODEX, '--at', '3', '--with-code'], /turn 3 has no ghost snapshot: Codex records one per turn only with its undo feature on/);
  });
});

describe('show --files: per turn, its files recorded and the files it changed', () => {
  async function shown(id: string): Promise<{ turn: number; recorded: boolean; files: string[] | null }[]> {
    const result = await sessions('show', id, '--files', '--json');
    expect(result.code, result.stderr).toBe(0);
    return (JSON.parse(result.stdout) as { turns: { turn: number; recorded: boolean; files: string[] | null }[] }).turns;
  }

  it('Claude Code: from its file tools and its backups; a turn without a snapshot is not marked', async () => {
    expect(await shown(CLAUDE)).toEqual([
      { turn: 1, recorded: true, files: ['notes.txt'] },
      { turn: 2, recorded: true, files: ['notes.txt'] },
      { turn: 3, recorded: true, files: ['notes.txt'] },
      { turn: 4, recorded: true, files: ['added.txt'] },
      { turn: 5, recorded: true, files: [] },
    ]);
    const text = await sessions('show', CLAUDE, '--files');
    expect(text.stdout.split('\n').slice(0, 3)).toEqual(['turn  code  changed', '   1  ✓     notes.txt', '   2  ✓     notes.txt']);
    expect(text.stdout).toContain(`sessions fork ${CLAUDE} --at N --with-code`);
    const path = join(home, '.claude', 'projects', claudeProjectFolder(join(home, 'src', 'claude-notes')), `${CLAUDE}.jsonl`);
    const lines = (await readFile(path, 'utf8')).split('\n');
    await writeFile(path, lines.filter((line) => !line.includes('"type":"file-history-')).join('\n'));
    // No backups: the file tools still name what each turn edited.
    expect((await shown(CLAUDE)).map(({ recorded, files }) => [recorded, files])).toEqual([
      [false, ['notes.txt']],
      [false, ['notes.txt']],
      [false, ['notes.txt']],
      [false, ['added.txt']],
      [false, []],
    ]);
  });

  it('Codex: the changes between one turn\'s ghost commit and the next; unknown after the last, and once they are pruned', async () => {
    expect(await shown(CODEX)).toEqual([
      { turn: 1, recorded: true, files: ['notes.txt'] },
      { turn: 2, recorded: true, files: ['notes.txt'] },
      { turn: 3, recorded: true, files: ['notes.txt'] },
      { turn: 4, recorded: true, files: ['added.txt'] },
      { turn: 5, recorded: true, files: null },
    ]);
    const repo = join(home, 'src', 'codex-notes');
    await git(repo, 'reflog', 'expire', '--expire=now', '--all');
    await git(repo, 'gc', '--prune=now', '--quiet');
    expect((await shown(CODEX)).map(({ files }) => files)).toEqual([null, null, null, null, null]);
    expect((await sessions('show', CODEX, '--files')).stdout).toContain('   5  ✓     (not recorded)');
  });

  it('refuses a transcript format with it', async () => {
    const result = await sessions('show', CLAUDE, '--files', '--format', 'md');
    expect(result.stderr).toMatch(/--files lists files per turn/);
    expect(result.code).not.toBe(0);
  });
});
