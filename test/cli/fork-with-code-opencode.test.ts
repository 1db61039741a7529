// `sessions fork --with-code` on an opencode session recorded by the real opencode 1.18.33 against the model stand-in
// (test/fixtures/with-code/opencode, test/interop/record-with-code-opencode.ts): turns 1-3 rewrote notes.txt through
// its bash tool, turn 4 created added.txt; opencode snapshotted the working tree as each answer began, into its own
// repository under its data folder. The built bin/sessions.js runs on a home holding the recorded database, that
// snapshot repository and the git repository as opencode left them.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { opencodeAdapter } from '../../src/core/formats/opencode/index.js';
import type { AdapterContext } from '../../src/core/formats/types.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BIN = join(ROOT, 'bin', 'sessions.js');
const FIXTURE = join(ROOT, 'test', 'fixtures', 'with-code');
const SESSION = 'ses_ddaea0482ffe0JY4L37Dy36r6H';
const context: AdapterContext = { report: () => undefined, lookup: () => undefined, names: () => new Map() };

let sandbox: string;
let home: string;
let data: string;
let db: string;

function exec(command: string, args: readonly string[], cwd: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const env = { PATH: process.env.PATH, HOME: sandbox, GIT_CONFIG_GLOBAL: join(sandbox, '.gitconfig'), GIT_CONFIG_NOSYSTEM: '1', XDG_CACHE_HOME: join(sandbox, 'cache'), XDG_CONFIG_HOME: join(sandbox, 'config') };
  return new Promise((resolve) => {
    execFile(command, [...args], { cwd, env }, (error, stdout, stderr) => resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr }));
  });
}

const sessions = (...args: string[]) => exec(process.execPath, [BIN, ...args, '--home', home], sandbox);
const git = async (repo: string, ...args: string[]) => (await exec('git', args, repo)).stdout;
const repo = () => join(home, 'src', 'opencode-notes');
const saved = (turn: number, file: string) => readFile(join(FIXTURE, 'saved', 'opencode', `before-turn-${turn}.${file}`));
const group = () => ({ agent: 'opencode' as const, paths: [db], idHint: SESSION, root: data, archived: false });

/** The snapshot repository opencode keeps for the project (one per worktree it ran in). */
async function snapshotRepository(): Promise<string> {
  const [project] = await readdir(join(data, 'snapshot'));
  const [worktree] = await readdir(join(data, 'snapshot', project!));
  return join(data, 'snapshot', project!, worktree!);
}

beforeEach(async () => {
  sandbox = await mkdtemp(join(tmpdir(), 'sessions-with-code-opencode-'));
  home = join(sandbox, 'home');
  data = join(home, '.local', 'share', 'opencode');
  await mkdir(join(home, 'src'), { recursive: true });
  await mkdir(data, { recursive: true });
  await writeFile(join(sandbox, '.gitconfig'), '');
  db = join(data, 'opencode.db');
  const handle = new Database(db);
  handle.pragma('journal_mode = WAL');
  // Recorded under /home/dev: this home's paths instead.
  handle.exec((await readFile(join(FIXTURE, 'opencode', 'opencode.sql'), 'utf8')).replaceAll('/home/dev', home));
  handle.close();
  for (const [archive, into] of [[join(FIXTURE, 'repos', 'opencode-notes.tar.gz'), join(home, 'src')], [join(FIXTURE, 'opencode', 'snapshot.tar.gz'), data]] as const) {
    const result = await exec('tar', ['-xzf', archive], into);
    expect(result.code, result.stderr).toBe(0);
  }
  // The snapshot repository borrows the project's objects (opencode writes this alternates file): point it at this copy.
  await writeFile(join(await snapshotRepository(), 'objects', 'info', 'alternates'), `${join(repo(), '.git', 'objects')}\n`);
  // …and it names the worktree it snapshots (recorded in another folder): this copy's, as opencode would have it.
  expect((await exec('git', ['config', '--file', join(await snapshotRepository(), 'config'), 'core.worktree', repo()], sandbox)).code).toBe(0);
});

afterEach(async () => {
  await rm(sandbox, { recursive: true, force: true });
});

/** Every file under a folder with its bytes. */
async function filesUnder(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) out[join(entry.parentPath, entry.name).slice(dir.length)] = (await readFile(join(entry.parentPath, entry.name))).toString('base64');
  }
  return out;
}

/** What the user has in the repository: status, stashes, branches (but the fork's), HEAD, the index, the files. */
async function userState(): Promise<unknown> {
  const refs = (await git(repo(), 'for-each-ref', '--format=%(refname) %(objectname)', 'refs/heads', 'refs/stash')).split('\n').filter((line) => !line.startsWith('refs/heads/sessions/'));
  const files: Record<string, string> = {};
  for (const name of (await readdir(repo())).filter((name) => name !== '.git')) files[name] = await readFile(join(repo(), name), 'utf8');
  return { status: await git(repo(), 'status', '--porcelain=v1', '--untracked-files=all'), stash: await git(repo(), 'stash', 'list'), refs, head: await git(repo(), 'rev-parse', 'HEAD'), index: await git(repo(), 'ls-files', '--stage'), files };
}

/** Every session row, every file of the data folder, every branch and worktree, the folders beside the repository. */
async function everything(): Promise<unknown> {
  const handle = new Database(db, { readonly: true });
  const rows = handle.prepare('SELECT id, directory FROM session ORDER BY id').all();
  handle.close();
  return { rows, data: (await readdir(data, { recursive: true })).filter((name) => !name.startsWith('opencode.db')).sort(), user: await userState(), branches: await git(repo(), 'branch', '--list'), worktrees: await git(repo(), 'worktree', 'list', '--porcelain'), src: (await readdir(join(home, 'src'))).sort() };
}

async function refused(args: string[], reason: RegExp): Promise<void> {
  const before = await everything();
  const result = await sessions('fork', ...args);
  expect(result.stderr).toMatch(reason);
  expect(result.code).toBe(1);
  expect(result.stdout).toBe('');
  expect(await everything()).toEqual(before);
}

interface Forked {
  readonly id: string;
  readonly path: string;
  readonly keptUserTurns: number;
  readonly worktree: { readonly dir: string; readonly branch: string; readonly base: string; readonly cwd: string };
  readonly resume: { readonly cwd: string; readonly argv: readonly string[] };
}

async function forkWithCode(at: number, ...more: string[]): Promise<Forked> {
  const before = await userState();
  const result = await sessions('fork', SESSION, '--at', String(at), '--with-code', ...more, '--json');
  expect(result.code, result.stderr).toBe(0);
  expect(await userState()).toEqual(before);
  return JSON.parse(result.stdout) as Forked;
}

describe("fork --with-code: opencode (the tree its snapshot repository took as the turn's answer began)", () => {
  it('gives the files as they were when turn 3 was typed, in a new worktree on sessions/<fork id>, where the fork runs', async () => {
    const snapshotBefore = await filesUnder(await snapshotRepository());
    const forked = await forkWithCode(3);
    // opencode's snapshot repository is only read (its index included).
    expect(await filesUnder(await snapshotRepository())).toEqual(snapshotBefore);
    const dir = join(home, 'src', `opencode-notes-${forked.id}`);
    expect(forked.id).toMatch(/^ses_/);
    expect(forked.keptUserTurns).toBe(2);
    expect(forked.worktree).toMatchObject({ dir, branch: `sessions/${forked.id}`, cwd: dir });
    expect(await readFile(join(dir, 'notes.txt'))).toEqual(await saved(3, 'notes.txt'));
    expect(existsSync(join(dir, 'added.txt'))).toBe(false);
    // The branch starts where HEAD was when turn 3 was typed (its reflog), the edits uncommitted.
    expect(forked.worktree.base).toBe((await git(repo(), 'rev-parse', 'HEAD')).trim());
    expect(await git(dir, 'status', '--porcelain=v1')).toBe(' M notes.txt\n');
    // opencode resumes the fork there: its session row names the worktree as its directory.
    const handle = new Database(db, { readonly: true });
    const row = handle.prepare('SELECT directory, project_id FROM session WHERE id = ?').get(forked.id) as { directory: string; project_id: string };
    const parent = handle.prepare('SELECT project_id FROM session WHERE id = ?').get(SESSION) as { project_id: string };
    handle.close();
    expect(row).toEqual({ directory: dir, project_id: parent.project_id });
    expect(forked.resume.cwd).toBe(dir);
    expect(forked.resume.argv).toContain(forked.id);
  });

  it('restores the file turn 4 created for a fork before turn 5, and DIR is where the worktree goes', async () => {
    const dir = join(sandbox, 'elsewhere', 'at-5');
    const forked = await forkWithCode(5, dir);
    expect(forked.worktree.dir).toBe(dir);
    expect(await readFile(join(dir, 'notes.txt'))).toEqual(await saved(5, 'notes.txt'));
    expect(await readFile(join(dir, 'added.txt'))).toEqual(await saved(5, 'added.txt'));
    expect(await git(dir, 'status', '--porcelain=v1')).toBe(' M notes.txt\n?? added.txt\n');
  });

  it('hands off to another agent (--to) that runs in the worktree, named after the new session', async () => {
    const forked = await forkWithCode(3, '--to', 'codex');
    const dir = join(home, 'src', `opencode-notes-${forked.id}`);
    expect(forked.worktree).toMatchObject({ dir, branch: `sessions/${forked.id}`, cwd: dir });
    expect(await readFile(join(dir, 'notes.txt'))).toEqual(await saved(3, 'notes.txt'));
    const path = forked.path;
    expect(path).toContain(join(home, '.codex', 'sessions'));
    const first = JSON.parse((await readFile(path, 'utf8')).split('\n')[0]!) as { payload: { id: string; cwd: string } };
    expect(first.payload).toMatchObject({ id: forked.id, cwd: dir });
    expect(forked.resume.cwd).toBe(dir);
  });

  it('removes a file of the branch the snapshot does not hold (deleted when the turn was typed)', async () => {
    // A tree like turn 3's without README.md (which the commit holds), as opencode takes it after the file was deleted.
    const snapshots = await snapshotRepository();
    const handle = new Database(db);
    const part = handle.prepare("SELECT id, data FROM part WHERE session_id = ? AND data LIKE '%step-start%' ORDER BY id").all(SESSION)[4] as { id: string; data: string };
    const third = (JSON.parse(part.data) as { snapshot: string }).snapshot;
    const listing = await git(repo(), '--git-dir', snapshots, 'ls-tree', third);
    expect(listing).toMatch(/\tREADME\.md\n/);
    const without = await new Promise<string>((resolve, reject) => {
      const child = execFile('git', ['--git-dir', snapshots, 'mktree'], { cwd: sandbox }, (error, stdout) => (error ? reject(error) : resolve(stdout.trim())));
      child.stdin!.end(listing.split('\n').filter((line) => line !== '' && !line.endsWith('\tREADME.md')).join('\n') + '\n');
    });
    handle.prepare('UPDATE part SET data = ? WHERE id = ?').run(JSON.stringify({ ...(JSON.parse(part.data) as object), snapshot: without }), part.id);
    handle.close();
    const forked = await forkWithCode(3);
    expect(existsSync(join(forked.worktree.dir, 'README.md'))).toBe(false);
    expect(await readFile(join(forked.worktree.dir, 'notes.txt'))).toEqual(await saved(3, 'notes.txt'));
    expect(await git(forked.worktree.dir, 'status', '--porcelain=v1')).toBe(' D README.md\n M notes.txt\n');
  });

  it('refuses a turn with no snapshot (snapshots off) and writes nothing', async () => {
    const handle = new Database(db);
    handle.exec("UPDATE part SET data = json_remove(data, '$.snapshot') WHERE data LIKE '%\"step-start\"%'");
    handle.close();
    await refused([SESSION, '--at', '3', '--with-code'], /turn 3 has no snapshot: opencode takes one as each answer begins only in a git repository and with "snapshot" not set to false in its config/);
  });

  it('refuses a snapshot opencode pruned from its repository and writes nothing', async () => {
    const snapshots = await snapshotRepository();
    expect((await exec('git', ['--git-dir', snapshots, 'count-objects'], sandbox)).stdout).not.toMatch(/^0 objects/);
    expect((await exec('git', ['--git-dir', snapshots, 'gc', '--prune=now', '--quiet'], sandbox)).code).toBe(0);
    await refused([SESSION, '--at', '3', '--with-code'], /turn 3's snapshot [0-9a-f]{40} is not in the agent's snapshot repository any more: opencode prunes snapshots older than 7 days/);
  });

  it('refuses the folder asked for when it exists, and outside git', async () => {
    await mkdir(join(sandbox, 'taken'));
    await refused([SESSION, '--at', '3', '--with-code', join(sandbox, 'taken')], /taken already exists/);
    await rm(join(repo(), '.git'), { recursive: true });
    const result = await sessions('fork', SESSION, '--at', '3', '--with-code');
    expect(result.stderr).toMatch(/is not in a git repository/);
    expect(result.code).toBe(1);
  });
});

describe('opencode checkpoints.turns (show --files)', () => {
  it("names each turn's changed files from its patch parts and marks every turn recorded", async () => {
    const recorded = await opencodeAdapter.checkpoints!.turns(group(), context);
    expect(recorded.cwd).toBe(repo());
    expect(recorded.turns).toEqual([
      { recorded: true, changed: ['notes.txt'] },
      { recorded: true, changed: ['notes.txt'] },
      { recorded: true, changed: ['notes.txt'] },
      { recorded: true, changed: ['added.txt'] },
      { recorded: true, changed: [] },
    ]);
  });

  it('with snapshots off, no turn is recorded', async () => {
    const handle = new Database(db);
    handle.exec("UPDATE part SET data = json_remove(data, '$.snapshot') WHERE data LIKE '%\"step-start\"%'");
    handle.close();
    const recorded = await opencodeAdapter.checkpoints!.turns(group(), context);
    expect(recorded.turns.map((turn) => turn.recorded)).toEqual([false, false, false, false, false]);
  });
});
