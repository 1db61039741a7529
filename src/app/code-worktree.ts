// `fork --with-code`: the files as they were when a turn was typed, in a new git worktree on a branch of its own. Only
// git's own commands write, and only into the new worktree, its branch and the repository's worktree list: the
// user's working tree, index, branches and stashes are never touched. Everything that can be checked is checked
// before anything is written; a step that fails takes back what the earlier ones made.
import { execFile } from 'node:child_process';
import { lstat, mkdir, mkdtemp, realpath, rm, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { errorCode, NoCodeError } from '../core/errors.js';
import type { CodeAtTurn } from '../core/formats/types.js';

/** What a worktree is made from, every part checked: the repository, the commit, the tree and files laid over it. */
export interface WorktreePlan {
  /** The repository's top folder (as git names it). */
  readonly repo: string;
  /** The session's cwd inside the repository ('' at its top). */
  readonly subdir: string;
  readonly base: string;
  readonly tree: string | null;
  /** A tree in the agent's own repository (`gitDir`) the worktree is made to match, or null. */
  readonly snapshot: { readonly tree: string; readonly gitDir: string } | null;
  /** Paths relative to the repository's top. */
  readonly files: readonly { readonly path: string; readonly content: Buffer | null }[];
  readonly notes: readonly string[];
}

export interface CodeWorktree {
  readonly dir: string;
  readonly branch: string;
  /** Where the fork runs: the worktree, or the folder in it the session ran in. */
  readonly cwd: string;
  readonly base: string;
  readonly notes: readonly string[];
}

class GitError extends Error {}

/** git with an argv array, never a shell; the caller's GIT_DIR, GIT_INDEX_FILE and the like are not inherited. */
function git(cwd: string, args: readonly string[], extra: NodeJS.ProcessEnv = {}): Promise<string> {
  const env: NodeJS.ProcessEnv = { ...process.env, GIT_TERMINAL_PROMPT: '0', LC_ALL: 'C' };
  for (const key of ['GIT_DIR', 'GIT_WORK_TREE', 'GIT_INDEX_FILE', 'GIT_OBJECT_DIRECTORY', 'GIT_COMMON_DIR', 'GIT_PREFIX']) delete env[key];
  Object.assign(env, extra);
  return new Promise((resolvePromise, reject) => {
    execFile('git', ['-C', cwd, ...args], { env, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error) reject(new GitError(`git ${args.join(' ')}: ${(stderr || error.message).trim()}`));
      else resolvePromise(stdout);
    });
  });
}

async function commitExists(repo: string, id: string): Promise<boolean> {
  return git(repo, ['cat-file', '-e', `${id}^{commit}`]).then(
    () => true,
    () => false,
  );
}

/** The commit `branch` pointed at when `at` came, from its reflog (newest first): null when the reflog does not reach back. */
async function branchAt(repo: string, branch: string, at: Date): Promise<string | null> {
  const ref = branch === 'HEAD' ? 'HEAD' : `refs/heads/${branch}`;
  if (branch !== 'HEAD') {
    // A name read from a session file: only a valid branch name reaches git as one.
    if (branch.startsWith('-') || !(await git(repo, ['check-ref-format', ref]).then(() => true, () => false))) return null;
  }
  const log = await git(repo, ['reflog', 'show', '--format=%H %gd', '--date=unix', ref, '--']).catch(() => '');
  const seconds = Math.floor(at.getTime() / 1000);
  for (const line of log.split('\n')) {
    const match = /^([0-9a-f]{40,64}) \S*@\{(\d+)\}$/.exec(line.trim());
    if (match && Number(match[2]) <= seconds) return match[1]!;
  }
  return null;
}

/** Check what the agent recorded against the repository as it is now; throws NoCodeError with the reason. */
export async function planWorktree(code: CodeAtTurn): Promise<WorktreePlan> {
  const cwd = code.cwd;
  const exists = await lstat(cwd).then((stats) => stats.isDirectory(), () => false);
  if (!exists) throw new NoCodeError(`${cwd}, where the session ran, is not a folder any more: there is no repository to take the files from`);
  const top = await git(cwd, ['rev-parse', '--show-toplevel']).catch(() => null);
  if (top === null) throw new NoCodeError(`${cwd} is not in a git repository: --with-code makes a git worktree of the repository the session ran in`);
  const repo = top.trim();
  const subdir = relative(repo, await realpath(cwd));
  let base: string | null;
  if (code.base.kind === 'commit') {
    base = (await commitExists(repo, code.base.id)) ? code.base.id : null;
    if (base === null) throw new NoCodeError(`commit ${code.base.id}, the one the snapshot was taken on, is not in ${repo} any more`);
  } else {
    base = await branchAt(repo, code.base.branch, code.base.at);
    if (base === null) {
      throw new NoCodeError(`the reflog of ${code.base.branch} in ${repo} does not reach back to ${code.base.at.toISOString()}, when the session started: the commit it started from is unknown`);
    }
    if (!(await commitExists(repo, base))) throw new NoCodeError(`commit ${base}, where ${code.base.branch} was when the session started, is not in ${repo} any more`);
  }
  if (code.tree !== undefined && !(await commitExists(repo, code.tree.commit))) {
    throw new NoCodeError(`${code.tree.what} ${code.tree.commit} is not in ${repo} any more: git gc prunes such unreferenced commits (after two weeks by default)`);
  }
  let snapshot: WorktreePlan['snapshot'] = null;
  if (code.snapshot !== undefined) {
    const { tree, gitDirs, what, gone } = code.snapshot;
    for (const gitDir of gitDirs) {
      // --work-tree: the agent's repository names its worktree in its config, and git refuses one that is gone.
      if (await git(repo, ['--git-dir', gitDir, '--work-tree', repo, 'cat-file', '-e', `${tree}^{tree}`]).then(() => true, () => false)) {
        snapshot = { tree, gitDir };
        break;
      }
    }
    if (snapshot === null) throw new NoCodeError(`${what} ${tree} is not in the agent's snapshot repository any more: ${gone}`);
  }
  const notes = [...code.notes];
  const files: { path: string; content: Buffer | null }[] = [];
  for (const file of code.files) {
    const inRepo = join(subdir, relative(cwd, resolve(cwd, file.path)));
    if (inRepo === '..' || inRepo.startsWith(`..${sep}`) || isAbsolute(inRepo)) {
      notes.push(`${file.path} is outside the repository: not restored`);
      continue;
    }
    files.push({ path: inRepo, content: file.content });
  }
  return { repo, subdir, base, tree: code.tree?.commit ?? null, snapshot, files, notes };
}

/** Where a fork's worktree goes by default: beside the repository, named after it and the fork. */
export function defaultWorktreeDir(plan: WorktreePlan, forkId: string): string {
  return join(dirname(plan.repo), `${basename(plan.repo)}-${forkId}`);
}

/** Make the worktree on a new branch `sessions/<fork id>`; on any failure nothing of it is left. */
export async function makeWorktree(plan: WorktreePlan, forkId: string, dir: string): Promise<CodeWorktree> {
  const branch = `sessions/${forkId}`;
  const target = resolve(dir);
  if (await lstat(target).then(() => true, (error: unknown) => errorCode(error) !== 'ENOENT')) throw new NoCodeError(`${target} already exists: give --with-code a folder that does not`);
  await git(plan.repo, ['worktree', 'add', '--quiet', '-b', branch, target, plan.base]);
  try {
    if (plan.tree !== null) {
      // As the agent's own undo restores it, then the index back at the branch: what changed shows as changes.
      await git(target, ['restore', `--source=${plan.tree}`, '--worktree', '--staged', '--', '.']);
      await git(target, ['reset', '--quiet']);
    }
    if (plan.snapshot !== null) await matchSnapshot(target, plan.snapshot);
    for (const file of plan.files) {
      const path = join(target, file.path);
      if (file.content === null) await unlink(path).catch((error: unknown) => (errorCode(error) === 'ENOENT' ? undefined : Promise.reject(error)));
      else {
        await mkdir(dirname(path), { recursive: true });
        await writeFile(path, file.content);
      }
    }
  } catch (error) {
    await removeWorktree({ dir: target, branch }, plan.repo);
    throw error;
  }
  return { dir: target, branch, cwd: plan.subdir === '' ? target : join(target, plan.subdir), base: plan.base, notes: plan.notes };
}

/**
 * Make the new worktree's files those of a tree in the agent's own repository, as its restore does (`read-tree`, then
 * `checkout-index -a -f`), through an index of our own in a temporary folder: the agent's repository is only read,
 * the worktree's index stays at its branch (what changed shows as changes). Files of the branch the tree lacks (deleted
 * then) are removed.
 */
async function matchSnapshot(target: string, snapshot: { readonly tree: string; readonly gitDir: string }): Promise<void> {
  const scratch = await mkdtemp(join(tmpdir(), 'sessions-snapshot-'));
  try {
    const env = { GIT_INDEX_FILE: join(scratch, 'index') };
    const args = ['--git-dir', snapshot.gitDir, '--work-tree', target];
    await git(target, [...args, 'read-tree', snapshot.tree], env);
    await git(target, [...args, 'checkout-index', '--all', '--force'], env);
    const kept = new Set((await git(target, [...args, 'ls-files', '-z'], env)).split('\0'));
    for (const path of (await git(target, ['ls-files', '-z'])).split('\0')) {
      if (path !== '' && !kept.has(path)) await unlink(join(target, path)).catch((error: unknown) => (errorCode(error) === 'ENOENT' ? undefined : Promise.reject(error)));
    }
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

/** Take a worktree made here back: the folder, git's record of it, its branch. */
export async function removeWorktree(worktree: { readonly dir: string; readonly branch: string }, repo: string): Promise<void> {
  await git(repo, ['worktree', 'remove', '--force', worktree.dir]).catch(() => undefined);
  await rm(worktree.dir, { recursive: true, force: true });
  await git(repo, ['branch', '-D', '--quiet', worktree.branch]).catch(() => undefined);
}

/**
 * For each pair of commits of the repository `cwd` is in, the files that differ between them, named relative to `cwd`
 * (`show --files`): null for a pair with a commit that is not there (pruned), every one null when `cwd` is no
 * repository now. One git at a time: a long session has hundreds of pairs.
 */
export async function changedBetween(cwd: string, pairs: readonly (readonly [string, string])[]): Promise<(string[] | null)[]> {
  const top = await git(cwd, ['rev-parse', '--show-toplevel']).then((out) => out.trim(), () => null);
  const here = top === null ? null : await realpath(cwd).catch(() => null);
  const out: (string[] | null)[] = [];
  for (const [from, to] of pairs) {
    const names = top === null || here === null ? null : await git(cwd, ['diff', '--name-only', '--no-renames', '-z', from, to, '--']).catch(() => null);
    out.push(names === null ? null : names.split('\0').filter((name) => name !== '').map((name) => relative(here!, join(top!, name))).sort());
  }
  return out;
}
