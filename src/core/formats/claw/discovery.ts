/** Where claw's session files are: a workspace's session folders, one group per conversation (rotated files with their live one). */
import type { Dirent } from 'node:fs';
import { walkFs } from '../../io/walk-fs.js';
import { basename, dirname, join } from 'node:path';
import { listDir } from '../roots.js';
import type { ReportProblem, SessionFileGroup } from '../types.js';
import { compare, livePath } from './values.js';

export const ROTATED_NAME = /^(.+)\.rot-(\d+)\.jsonl$/;
export const SKIPPED_DIRS = new Set(['node_modules', '.git', 'target']);

// ---------------------------------------------------------------------------------------------------------
// Discovery

/** Find the claw session files of one workspace (or of a `.claw`, `sessions` or `.port_sessions` dir), one group per conversation. */
export async function discoverClaw(root: string, report: ReportProblem): Promise<SessionFileGroup[]> {
  const groups: SessionFileGroup[] = [];
  for (const folder of sessionFolders(root)) groups.push(...(await groupFolder(folder.dir, root, report, folder.nested)));
  return groups.sort((a, b) => compare(livePath(a), livePath(b)));
}

interface SessionFolder {
  readonly dir: string;
  /** `.claw/sessions` holds per-workspace hash subfolders one level down. */
  readonly nested: boolean;
}

function sessionFolders(root: string): SessionFolder[] {
  const name = basename(root);
  if (name === '.claw') return [{ dir: join(root, 'sessions'), nested: true }];
  if (name === 'sessions') return [{ dir: root, nested: basename(dirname(root)) !== '.claude' }];
  if (name === '.port_sessions') return [{ dir: root, nested: false }];
  return [
    { dir: join(root, '.claw', 'sessions'), nested: true },
    { dir: join(root, '.claude', 'sessions'), nested: false },
    { dir: join(root, '.port_sessions'), nested: false },
  ];
}

async function groupFolder(dir: string, root: string, report: ReportProblem, nested: boolean): Promise<SessionFileGroup[]> {
  const entries = await listDir(dir, report);
  const groups: SessionFileGroup[] = [];
  const files: string[] = [];
  for (const entry of entries) {
    // Hidden names are temp files (ours: `.name.tmp-…`); claw's own temps end in `.tmp-<ms>-<n>`.
    if (entry.name.startsWith('.')) continue;
    const path = join(dir, entry.name);
    const kind = await entryKind(entry, path);
    if (kind === 'dir') {
      if (nested && !SKIPPED_DIRS.has(entry.name)) groups.push(...(await groupFolder(path, root, report, false)));
      continue;
    }
    if (kind === 'file') files.push(path);
  }
  return [...groups, ...groupSessionFiles(files, root)];
}

/** One folder's session files, one group per conversation: rotated `<stem>.rot-<ms>.jsonl` files go with `<stem>.jsonl`. */
function groupSessionFiles(paths: readonly string[], root: string): SessionFileGroup[] {
  const groups: SessionFileGroup[] = [];
  const live = new Map<string, string>();
  const rotated = new Map<string, { path: string; ms: number }[]>();
  for (const path of paths) {
    const name = basename(path);
    const rot = ROTATED_NAME.exec(name);
    if (rot) {
      const stem = `${dirname(path)}/${rot[1]!}`;
      rotated.set(stem, [...(rotated.get(stem) ?? []), { path, ms: Number(rot[2]) }]);
    } else if (name.endsWith('.jsonl')) {
      live.set(path.slice(0, -'.jsonl'.length), path);
    } else if (name.endsWith('.json')) {
      groups.push(makeGroup([path], root));
    }
  }
  for (const stem of new Set([...live.keys(), ...rotated.keys()])) {
    const rots = (rotated.get(stem) ?? []).sort((a, b) => a.ms - b.ms || compare(a.path, b.path)).map((r) => r.path);
    const livePathOfStem = live.get(stem);
    // Rotated files with no live file (a crash between rename and rewrite): the newest one stands in for it.
    groups.push(makeGroup(livePathOfStem === undefined ? rots : [...rots, livePathOfStem], root));
  }
  return groups;
}

/** The watcher's grouping: known files of a workspace, grouped as `discoverClaw` would, without listing folders. */
export function groupClawFiles(root: string, paths: readonly string[]): SessionFileGroup[] {
  const folders = sessionFolders(root);
  const inSessionFolder = (path: string): boolean => {
    if (basename(path).startsWith('.')) return false;
    const dir = dirname(path);
    const sub = basename(dir);
    return folders.some((folder) => folder.dir === dir || (folder.nested && dirname(dir) === folder.dir && !sub.startsWith('.') && !SKIPPED_DIRS.has(sub)));
  };
  return groupSessionFiles([...new Set(paths)].filter(inSessionFolder), root).sort((a, b) => compare(livePath(a), livePath(b)));
}

function makeGroup(paths: readonly string[], root: string): SessionFileGroup {
  // The id lives inside the file (session_meta / session_id), not reliably in its name.
  return { agent: 'claw', paths, idHint: null, root, archived: false };
}

async function entryKind(entry: Dirent, path: string): Promise<'file' | 'dir' | 'other'> {
  if (entry.isFile()) return 'file';
  if (entry.isDirectory()) return 'dir';
  if (!entry.isSymbolicLink()) return 'other';
  try {
    const target = await walkFs.stat(path);
    // Linked directories are not followed (no cycles); linked files are sessions like any other.
    return target.isFile() ? 'file' : 'other';
  } catch {
    return 'other';
  }
}

/**
 * Walk down from `dir` (at most `maxDepth` levels; `dir` itself is depth 0) and return every workspace that holds
 * `.claw/sessions`, `.claude/sessions` or `.port_sessions`. Skips node_modules, .git, target and other dot
 * directories; does not follow symlinks. Throws when `dir` itself cannot be read.
 */
export async function findClawWorkspaces(dir: string, maxDepth: number): Promise<string[]> {
  const found: string[] = [];
  const visit = async (current: string, depth: number, entries: Dirent[]): Promise<void> => {
    const names = new Set(entries.filter((e) => e.isDirectory()).map((e) => e.name));
    if (names.has('.port_sessions') || (await hasSessionsDir(current, names))) found.push(current);
    if (depth >= maxDepth) return;
    for (const entry of entries) {
      if (!entry.isDirectory() || entry.name.startsWith('.') || SKIPPED_DIRS.has(entry.name)) continue;
      const child = join(current, entry.name);
      let childEntries: Dirent[];
      try {
        childEntries = await walkFs.readdir(child);
      } catch {
        continue; // an unreadable subdirectory is not a workspace we can list
      }
      await visit(child, depth + 1, childEntries);
    }
  };
  await visit(dir, 0, await walkFs.readdir(dir));
  return found.sort(compare);
}

/**
 * The workspace whose session folder `dir` is (`<ws>/.claw`, `<ws>/.claw/sessions`, a per-workspace hash folder
 * `<ws>/.claw/sessions/<hash>`, `<ws>/.claude/sessions`, `<ws>/.port_sessions`), or null when `dir` is not one:
 * `--claw-dir` may name any of them, and claw's files are read (and watched) from their workspace.
 */
export function clawWorkspaceOfSessionFolder(dir: string): string | null {
  const name = basename(dir);
  const parent = dirname(dir);
  const parentName = basename(parent);
  if (name === '.claw' || name === '.port_sessions') return parent;
  if (name === 'sessions' && (parentName === '.claw' || parentName === '.claude')) return dirname(parent);
  if (parentName === 'sessions' && basename(dirname(parent)) === '.claw') return dirname(dirname(parent));
  return null;
}

async function hasSessionsDir(dir: string, names: ReadonlySet<string>): Promise<boolean> {
  for (const name of ['.claw', '.claude']) {
    if (!names.has(name)) continue;
    try {
      if ((await walkFs.stat(join(dir, name, 'sessions'))).isDirectory()) return true;
    } catch {
      // no sessions folder inside
    }
  }
  return false;
}

/** claw's per-workspace folder name: 64-bit FNV-1a of the workspace path's UTF-8 bytes, 16 hex digits. */
export function clawWorkspaceFingerprint(workspaceRoot: string): string {
  let hash = 0xcbf29ce484222325n;
  for (const byte of Buffer.from(workspaceRoot, 'utf8')) {
    hash ^= BigInt(byte);
    hash = (hash * 0x100000001b3n) & 0xffffffffffffffffn;
  }
  return hash.toString(16).padStart(16, '0');
}

/** The workspace a session file belongs to, from its location; null for a `--data-dir` style store. */
export function workspaceOf(path: string): string | null {
  const dir = dirname(path);
  const parent = dirname(dir);
  if (basename(dir) === '.port_sessions') return parent;
  if (basename(dir) === 'sessions' && (basename(parent) === '.claw' || basename(parent) === '.claude')) return dirname(parent);
  if (basename(parent) === 'sessions' && basename(dirname(parent)) === '.claw') return dirname(dirname(parent));
  return null;
}
