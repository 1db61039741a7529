import type { Dirent } from 'node:fs';
import { readdir, realpath, stat } from 'node:fs/promises';
import { walkFs } from '../../io/walk-fs.js';
import { basename, join, relative, sep } from 'node:path';
import { errorCode, errorMessage } from '../../errors.js';
import { UUID_PATTERN } from '../../ids.js';
import type { SessionSummary } from '../../model.js';
import type { ReportProblem, SessionFileGroup } from '../types.js';
import { parseTypeScriptRolloutName } from './rules.js';

// Discovery

const ROLLOUT_NAME =
  /^rollout-(\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2})-([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})(?:_(.+))?\.jsonl$/i;

export interface RolloutName {
  /** The local time in the name, as written (`YYYY-MM-DDTHH-MM-SS`). */
  readonly timestamp: string;
  readonly threadId: string;
  /** The `_<segment>` suffix of resume/revert segment files, or null for a thread's first file. */
  readonly segment: string | null;
}

/** Parse `rollout-<ts>-<uuid>[_<segment>].jsonl`; null for other names. */
export function parseRolloutName(name: string): RolloutName | null {
  const match = ROLLOUT_NAME.exec(name);
  if (!match) return null;
  return { timestamp: match[1]!, threadId: match[2]!.toLowerCase(), segment: match[3] ?? null };
}

interface FoundFile {
  readonly path: string;
  readonly name: string;
  readonly archived: boolean;
  readonly parsed: RolloutName | null;
}

function isRolloutFile(name: string): boolean {
  return name.startsWith('rollout-') && (name.endsWith('.jsonl') || isTypeScriptRollout(name));
}

export function isTypeScriptRollout(path: string): boolean {
  return parseTypeScriptRolloutName(basename(path)) !== null;
}

/** The thread a rollout's name says, for both the Rust CLI's names and the TypeScript CLI's `rollout-<date>-<id>.json`. */
function rolloutNameOf(name: string): RolloutName | null {
  const legacy = parseRolloutName(name) ? null : parseTypeScriptRolloutName(name);
  return legacy ? { timestamp: legacy.date, threadId: legacy.id, segment: null } : parseRolloutName(name);
}

async function walkRollouts(
  dir: string,
  archived: boolean,
  report: ReportProblem,
  out: FoundFile[],
  visited: Set<string>,
  top: boolean,
): Promise<void> {
  let entries: Dirent[];
  try {
    // Symlinked directories could loop; a real path is walked once.
    const real = await walkFs.realpath(dir);
    if (visited.has(real)) return;
    visited.add(real);
    entries = await walkFs.readdir(dir);
  } catch (error) {
    const code = errorCode(error);
    // A missing sessions/ folder is normal; a folder that vanished mid-scan is not a problem either.
    if (code === 'ENOENT' || (code === 'ENOTDIR' && !top)) return;
    report({ path: dir, message: `cannot read directory: ${errorMessage(error)}` });
    return;
  }
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const entry of entries) {
    const path = join(dir, entry.name);
    let isDirectory = entry.isDirectory();
    let isFile = entry.isFile();
    if (entry.isSymbolicLink()) {
      try {
        const target = await walkFs.stat(path);
        isDirectory = target.isDirectory();
        isFile = target.isFile();
      } catch {
        continue; // dangling link
      }
    }
    if (isDirectory) await walkRollouts(path, archived, report, out, visited, false);
    else if (isFile && isRolloutFile(entry.name)) {
      out.push({ path, name: entry.name, archived, parsed: rolloutNameOf(entry.name) });
    }
  }
}

/** Oldest first: by the name's time, a thread's first file before its segments, archived copies before live ones. */
function compareFiles(a: FoundFile, b: FoundFile): number {
  const at = a.parsed?.timestamp ?? '';
  const bt = b.parsed?.timestamp ?? '';
  if (at !== bt) return at < bt ? -1 : 1;
  const as = a.parsed?.segment ?? null;
  const bs = b.parsed?.segment ?? null;
  if (as !== bs) {
    if (as === null) return -1;
    if (bs === null) return 1;
    const bySegment = as.localeCompare(bs, 'en', { numeric: true });
    if (bySegment !== 0) return bySegment;
  }
  if (a.archived !== b.archived) return a.archived ? -1 : 1;
  return a.path < b.path ? -1 : a.path > b.path ? 1 : 0;
}

export async function discoverCodex(root: string, report: ReportProblem): Promise<SessionFileGroup[]> {
  const found: FoundFile[] = [];
  const visited = new Set<string>();
  await walkRollouts(join(root, 'sessions'), false, report, found, visited, true);
  await walkRollouts(join(root, 'archived_sessions'), true, report, found, visited, true);
  return groupFound(root, found);
}

/** Rollout files under `root` grouped by thread, without walking the folders. */
export function groupCodexFiles(root: string, paths: readonly string[]): SessionFileGroup[] {
  const found: FoundFile[] = [];
  for (const path of paths) {
    const rel = relative(root, path).split(sep);
    const name = basename(path);
    if ((rel[0] !== 'sessions' && rel[0] !== 'archived_sessions') || !isRolloutFile(name)) continue;
    found.push({ path, name, archived: rel[0] === 'archived_sessions', parsed: rolloutNameOf(name) });
  }
  return groupFound(root, found);
}

function groupFound(root: string, found: readonly FoundFile[]): SessionFileGroup[] {
  const byThread = new Map<string, FoundFile[]>();
  for (const file of found) {
    const key = file.parsed ? `thread:${file.parsed.threadId}` : `path:${file.path}`;
    const list = byThread.get(key);
    if (list) list.push(file);
    else byThread.set(key, [file]);
  }
  const groups: SessionFileGroup[] = [];
  for (const files of byThread.values()) {
    files.sort(compareFiles);
    const first = files[0]!;
    const last = files[files.length - 1]!;
    const idHint = first.parsed?.threadId ?? UUID_PATTERN.exec(first.name)?.[0]?.toLowerCase() ?? null;
    groups.push({ agent: 'codex', paths: files.map((f) => f.path), idHint, root, archived: last.archived });
  }
  return groups;
}

/**
 * The folders where a rollout written after a thread started is (FormatAdapter.rowFolders): a file is put under the
 * local date it was created on, so another file of the thread (a resume segment), a fork, a review or a thread it
 * spawned, and a session of its cwd started after it (which a later review would be nested under instead), are in the
 * date folders from the day before its start (local time is within a day of UTC) on, or in archived_sessions/. Null
 * for a review naming no parent: it is nested under the session of its cwd running when it started, which any older
 * file of that cwd that grew since may become.
 */
export async function codexRowFolders(row: SessionSummary, root: string): Promise<readonly string[] | null> {
  if (row.subagent !== undefined && row.subagent.parentId === null) return null;
  const started = Date.parse(row.createdAt);
  if (Number.isNaN(started)) return null;
  const from = new Date(started - 24 * 3600 * 1000).toISOString().slice(0, 10).split('-');
  const folders: string[] = [];
  await collectFolders(join(root, 'sessions'), from, folders, new Set());
  await collectFolders(join(root, 'archived_sessions'), [], folders, new Set());
  return folders;
}

/**
 * `dir` and its folders, leaving out date folders (`YYYY`, then `MM`, then `DD`, as `from` is) before `from`: at
 * each level a folder named by a number below `from`'s is older than it; one named by the same number is looked
 * into with the next level; anything else is walked whole.
 */
async function collectFolders(dir: string, from: readonly string[], out: string[], visited: Set<string>): Promise<void> {
  let entries: Dirent[];
  try {
    const real = await realpath(dir);
    if (visited.has(real)) return;
    visited.add(real);
    entries = await readdir(dir, { withFileTypes: true });
  } catch {
    return;
  }
  out.push(dir);
  const [level, ...rest] = from;
  for (const entry of entries) {
    let isDirectory = entry.isDirectory();
    if (entry.isSymbolicLink()) isDirectory = await stat(join(dir, entry.name)).then((info) => info.isDirectory(), () => false);
    if (!isDirectory) continue;
    const dated = level !== undefined && entry.name.length === level.length && /^\d+$/.test(entry.name);
    if (dated && entry.name < level) continue;
    await collectFolders(join(dir, entry.name), dated && entry.name === level ? rest : [], out, visited);
  }
}
