/** Where Claude Code's session files are and how they group into conversations. */
import { existsSync, type Dirent } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { walkFs } from '../../io/walk-fs.js';
import { dirname, join, sep, relative } from 'node:path';
import { errorCode, errorMessage } from '../../errors.js';
import { isKind } from '../../io/regular.js';
import type { ReportProblem, SessionFileGroup } from '../types.js';
import { fileStem } from './summary.js';
import type { SessionSummary } from '../../model.js';

/** Session files of one project folder; subagent folders and `agent-*.jsonl` sidechain files belong to a parent. */
async function discoverProject(root: string, dir: string, report: ReportProblem): Promise<SessionFileGroup[]> {
  let entries: Dirent[];
  try {
    entries = await walkFs.readdir(dir);
  } catch (error) {
    report({ path: dir, message: errorMessage(error) });
    return [];
  }
  const groups: SessionFileGroup[] = [];
  for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
    const { name } = entry;
    if (!name.endsWith('.jsonl') || name.startsWith('agent-') || name.startsWith('.')) continue;
    const path = join(dir, name);
    if (!(await isKind(path, entry, 'file'))) continue;
    groups.push({ agent: 'claude', paths: [path], idHint: fileStem(path), root, archived: false });
  }
  return groups;
}

/**
 * A row is merged with the other files of its id (a copy in another project folder) and linked to the forks of its
 * lineage. Claude Code (`--fork-session`, run where the session's cwd is) and `sessions fork` write a fork in the
 * project folder of the cwd, which is the original's: the folders of the original and of its cwd, and those
 * holding a file named by its id.
 */
export async function claudeRowFolders(row: SessionSummary, root: string): Promise<string[]> {
  const projects = join(root, 'projects');
  const folders = new Set(row.paths.map((path) => dirname(path)));
  if (row.cwd !== null) folders.add(join(projects, claudeProjectFolder(row.cwd)));
  let names: string[];
  try {
    names = await readdir(projects);
  } catch {
    return [...folders];
  }
  for (const name of names) {
    const folder = join(projects, name);
    if (!folders.has(folder) && existsSync(join(folder, `${row.id}.jsonl`))) folders.add(folder);
  }
  return [...folders];
}

export function groupClaudeFiles(root: string, paths: readonly string[]): SessionFileGroup[] {
  return paths
    .filter((path) => {
      const rel = relative(root, path).split(sep);
      const name = rel[2] ?? '';
      return rel.length === 3 && rel[0] === 'projects' && name.endsWith('.jsonl') && !name.startsWith('agent-') && !name.startsWith('.');
    })
    .sort()
    .map((path) => ({ agent: 'claude', paths: [path], idHint: fileStem(path), root, archived: false }));
}

/** Every project folder's session files. */
export async function discoverClaude(root: string, report: ReportProblem): Promise<SessionFileGroup[]> {
  const projects = join(root, 'projects');
  let entries: Dirent[];
  try {
    entries = await walkFs.readdir(projects);
  } catch (error) {
    // No projects folder: Claude Code was never used with this config dir; nothing to report.
    const code = errorCode(error);
    if (code !== 'ENOENT' && code !== 'ENOTDIR') report({ path: projects, message: errorMessage(error) });
    return [];
  }
  const groups: SessionFileGroup[] = [];
  for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
    const dir = join(projects, entry.name);
    if (await isKind(dir, entry, 'directory')) groups.push(...(await discoverProject(root, dir, report)));
  }
  return groups;
}

/** Claude Code's longest project folder name before it adds a hash of the path. */
export const MAX_PROJECT_NAME = 200;

/**
 * The folder Claude Code keeps a cwd's sessions in, under `<config dir>/projects/`: every character but ASCII
 * letters and digits becomes `-`; a name longer than 200 is cut there and gets `-<hash>` (the 32-bit string hash
 * Claude Code uses, in base 36). Read from Claude Code 2.1.330's own code.
 */
export function claudeProjectFolder(cwd: string): string {
  const name = cwd.replace(/[^a-zA-Z0-9]/g, '-');
  if (name.length <= MAX_PROJECT_NAME) return name;
  let hash = 0;
  for (let i = 0; i < cwd.length; i++) hash = ((hash << 5) - hash + cwd.charCodeAt(i)) | 0;
  return `${name.slice(0, MAX_PROJECT_NAME)}-${Math.abs(hash).toString(36)}`;
}
