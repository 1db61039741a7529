// The trash a delete moves a session to: the freedesktop one ($XDG_DATA_HOME/Trash: each file or folder in files/,
// with info/<name>.trashinfo saying where it came from and when, so a desktop's trash lists and restores it too), and
// beside it `sessions`' own record of which items make up one session (trash.jsonl), and the rows taken out of a
// database (trash/<key>.json), which no file manager could put back.
import { randomBytes } from 'node:crypto';
import { cp, lstat, mkdir, rename, rm, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { errorCode } from '../core/errors.js';
import { appendLines, createFileAtomic } from '../core/io/atomic.js';
import { jsonObjects, newLineStats, splitLines } from '../core/io/lines.js';
import { readRegularFile } from '../core/io/regular.js';
import type { Agent } from '../core/model.js';

export interface Trash {
  /** `$XDG_DATA_HOME` (default `~/.local/share`): the freedesktop trash is its `Trash/`, ours its `sessions/`. */
  readonly dataHome: string;
}

/** One file or folder in the trash, and where it was. */
export interface TrashedItem {
  readonly original: string;
  readonly trashed: string;
  readonly info: string;
}

/** One deleted session: its files and folders (or its rows), as `sessions restore` puts them back. */
export interface TrashEntry {
  readonly key: string;
  readonly deletedAt: string;
  readonly agent: Agent;
  readonly id: string;
  readonly title: string;
  /** The root it was listed under (what a restore's row is read from). */
  readonly root: string;
  readonly items: readonly TrashedItem[];
  /** A store's rows taken out (opencode): the store and the file keeping them. */
  readonly rows?: { readonly store: string; readonly kept: string };
}

export const trashFiles = (trash: Trash): string => join(trash.dataHome, 'Trash', 'files');
export const trashInfo = (trash: Trash): string => join(trash.dataHome, 'Trash', 'info');
export const trashLog = (trash: Trash): string => join(trash.dataHome, 'sessions', 'trash.jsonl');
export const keptRowsDir = (trash: Trash): string => join(trash.dataHome, 'sessions', 'trash');

/** A new key for an entry (the name of its kept rows). */
export function newTrashKey(now: Date): string {
  return `${now.toISOString().replace(/[:.]/g, '-')}-${randomBytes(4).toString('hex')}`;
}

/** The .trashinfo text (the spec's local time, no zone; the path percent-encoded but for `/`). */
function trashInfoText(original: string, now: Date): string {
  const pad = (n: number): string => String(n).padStart(2, '0');
  const date = `${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}T${pad(now.getHours())}:${pad(now.getMinutes())}:${pad(now.getSeconds())}`;
  const path = original.split('/').map(encodeURIComponent).join('/');
  return `[Trash Info]\nPath=${path}\nDeletionDate=${date}\n`;
}

/** Move `from` to `to` (a file or a folder, whole), copying across file systems (the copy keeps modes and times). */
async function move(from: string, to: string): Promise<void> {
  try {
    await rename(from, to);
  } catch (error) {
    if (errorCode(error) !== 'EXDEV') throw error;
    await cp(from, to, { recursive: true, preserveTimestamps: true, errorOnExist: true, force: false, verbatimSymlinks: true });
    await rm(from, { recursive: true, force: true });
  }
}

/**
 * Move one file or folder into the freedesktop trash: a name is reserved by creating its .trashinfo (never replacing
 * one: `name`, `name.2`, …), then the item is moved; a failed move removes the .trashinfo again.
 */
export async function moveToTrash(path: string, trash: Trash, now: Date): Promise<TrashedItem> {
  await mkdir(trashFiles(trash), { recursive: true, mode: 0o700 });
  await mkdir(trashInfo(trash), { recursive: true, mode: 0o700 });
  const base = basename(path);
  for (let n = 1; ; n++) {
    const name = n === 1 ? base : `${base}.${n}`;
    const info = join(trashInfo(trash), `${name}.trashinfo`);
    const trashed = join(trashFiles(trash), name);
    try {
      await createFileAtomic(info, trashInfoText(path, now));
    } catch (error) {
      if (errorCode(error) === 'EEXIST') continue;
      throw error;
    }
    if (await exists(trashed)) {
      await unlink(info);
      continue;
    }
    try {
      await move(path, trashed);
    } catch (error) {
      await unlink(info).catch(() => undefined);
      throw error;
    }
    return { original: path, trashed, info };
  }
}

/** Put an item back where it was; refused (nothing moved) when something is there now. */
export async function restoreItem(item: TrashedItem): Promise<void> {
  if (await exists(item.original)) throw new TrashError(`${item.original} exists: not replaced (its trashed copy stays in ${item.trashed})`);
  await mkdir(dirname(item.original), { recursive: true, mode: 0o700 });
  await move(item.trashed, item.original);
  await unlink(item.info).catch(() => undefined);
}

export async function exists(path: string): Promise<boolean> {
  try {
    await lstat(path);
    return true;
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return false;
    throw error;
  }
}

/** A delete or restore refused, in the user's terms. */
export class TrashError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TrashError';
  }
}

/** Record a deleted session (one line, appended). */
export async function recordEntry(trash: Trash, entry: TrashEntry): Promise<void> {
  const path = trashLog(trash);
  const line = JSON.stringify(entry);
  try {
    await appendLines(path, [line]);
  } catch (error) {
    if (errorCode(error) !== 'ENOENT') throw error;
    await mkdir(dirname(path), { recursive: true, mode: 0o700 });
    await createFileAtomic(path, `${line}\n`).catch(async (raced: unknown) => {
      if (errorCode(raced) !== 'EEXIST') throw raced;
      await appendLines(path, [line]);
    });
  }
}

/** Every recorded entry still in the trash (all its items there, its kept rows there), oldest first. */
export async function trashEntries(trash: Trash): Promise<TrashEntry[]> {
  let data: Buffer;
  try {
    data = await readRegularFile(trashLog(trash));
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return [];
    throw error;
  }
  const out: TrashEntry[] = [];
  for (const { value } of jsonObjects(splitLines(data), newLineStats())) {
    const entry = value as unknown as TrashEntry;
    if (typeof entry.key !== 'string' || typeof entry.id !== 'string' || !Array.isArray(entry.items)) continue;
    const there = await Promise.all([...entry.items.map((item) => exists(item.trashed)), ...(entry.rows ? [exists(entry.rows.kept)] : [])]);
    if (there.every(Boolean)) out.push(entry);
  }
  return out;
}
