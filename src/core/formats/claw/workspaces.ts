/** Which workspaces are looked in, and what a mirror copies of them. */
import { dirname, join } from 'node:path';
import { describeError } from '../../errors.js';
import { selfAndAncestors } from '../roots.js';
import type { ReportProblem } from '../types.js';
import { clawWorkspaceOfSessionFolder, findClawWorkspaces, SKIPPED_DIRS } from './discovery.js';
import { isDirectory } from './values.js';

/** How deep below a --claw-dir (and, without one, below the current directory) claw workspaces are looked for. */
export const CLAW_SEARCH_DEPTH = 4;

/**
 * What a mirror copies below a folder searched for workspaces: each workspace's session folders, in the folder and
 * down to CLAW_SEARCH_DEPTH levels below it, through the folders findClawWorkspaces walks (not hidden ones, not
 * SKIPPED_DIRS).
 */
export function clawMirrorFilter(): string[] {
  const sessionFolders = ['.claw/', '.claw/sessions/***', '.claude/', '.claude/sessions/***', '.port_sessions/***'];
  const skipped = ['.*/', ...[...SKIPPED_DIRS].map((name) => `${name}/`)];
  const levels = Array.from({ length: CLAW_SEARCH_DEPTH }, (_, i) => `${'*/'.repeat(i + 1)}`);
  return [
    ...sessionFolders.flatMap((pattern) => [`+ ${pattern}`, `+ **/${pattern}`]),
    ...skipped.flatMap((pattern) => [`- ${pattern}`, `- **/${pattern}`]),
    ...levels.map((pattern) => `+ ${pattern}`),
  ];
}

/** What a mirror copies of a workspace named by another session's cwd: its session folders only. */
export const CLAW_WORKSPACE_FILTER = ['+ .claw/', '+ .claw/sessions/***', '+ .claude/', '+ .claude/sessions/***', '+ .port_sessions/***'];

/** Whether findClawWorkspaces(root, CLAW_SEARCH_DEPTH) looks at `dir` (host paths: POSIX). */
export function clawSearchReaches(root: string, dir: string): boolean {
  if (dir !== root && !dir.startsWith(root === '/' ? '/' : `${root}/`)) return false;
  const parts = dir.slice(root.length).split('/').filter(Boolean);
  return parts.length <= CLAW_SEARCH_DEPTH && parts.every((part) => !part.startsWith('.') && !SKIPPED_DIRS.has(part));
}

/** True when `dir` holds claw sessions: `.claw/sessions`, `.claude/sessions` or `.port_sessions`. */
export async function isClawWorkspace(dir: string): Promise<boolean> {
  // Most cwds other sessions recorded no longer exist (or are not folders): one failed stat, not three.
  if (!(await isDirectory(dir))) return false;
  const checks = await Promise.all([join(dir, '.claw', 'sessions'), join(dir, '.claude', 'sessions'), join(dir, '.port_sessions')].map(isDirectory));
  return checks.some(Boolean);
}

/**
 * The workspaces to look in: each --claw-dir's (a session folder names its workspace; any other directory is searched
 * 4 levels down), the current directory and its ancestors, and without --claw-dir the current directory's subfolders.
 */
export async function clawCandidateRoots(configured: readonly string[], cwd: string, report: ReportProblem): Promise<string[]> {
  const roots: string[] = [];
  for (const dir of configured) {
    const workspace = clawWorkspaceOfSessionFolder(dir);
    if (workspace !== null) {
      roots.push(workspace);
      continue;
    }
    try {
      roots.push(...(await findClawWorkspaces(dir, CLAW_SEARCH_DEPTH)));
    } catch (error) {
      report({ path: dir, message: describeError(error) });
    }
  }
  roots.push(...selfAndAncestors(cwd));
  // The current directory's sessions include its subfolders' (README): by default workspaces below it count too. An
  // explicit --claw-dir says where claw sessions are instead (as every explicit location replaces a default); and
  // never below the filesystem root, where that walk would be every mounted disk (and /proc).
  if (configured.length === 0 && dirname(cwd) !== cwd) roots.push(...(await findClawWorkspaces(cwd, CLAW_SEARCH_DEPTH).catch(() => [] as string[])));
  return roots;
}

/** <workspace>/.claw/sessions[/<hash>]/…, <workspace>/.claude/sessions/…, <workspace>/.port_sessions/… */
export function clawWatched(parts: readonly string[]): boolean {
  return parts[0] === '.port_sessions' ? parts.length <= 2 : (parts[0] === '.claw' || parts[0] === '.claude') && (parts.length === 1 || parts[1] === 'sessions');
}
