import { watch as watchFolder, type FSWatcher } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { FS_CALLS_IN_FLIGHT, forEachLimited } from '../core/io/limited.js';
import { isKind } from '../core/io/regular.js';

/** Many small trees watched with one `fs.watch` per wanted folder: what `watchFolders` is given. */
export interface FolderWatchSpec {
  readonly roots: readonly string[];
  /** Levels of subfolders below a root that are watched (0: the root's own files only). */
  readonly depth: number;
  /** True for a subfolder (its names below the root) that may hold sessions or lead to them. */
  readonly wanted: (parts: readonly string[]) => boolean;
  readonly isFile: (path: string) => boolean;
  /** A file created, written, renamed or removed (and each file of a folder that appeared after `ready`). */
  readonly onFile: (root: string, path: string) => void;
}

export interface FolderWatch {
  readonly ready: Promise<void>;
  close(): void;
}

/**
 * Watch the wanted folders of the agents' roots with the kernel's per-folder events (`fs.watch`: inotify, FSEvents),
 * walking only the wanted folders with `readdir` (no stat per file). A folder's watch reports each write, creation,
 * rename and removal of its files by name. This replaced chokidar 5, whose walk `lstat`s every entry of every
 * watched folder whatever `ignored` says: at 100k real-shaped sessions its setup took 5 s and ~120 MB of short-lived
 * heap for 42k Codex files alone, and left ~90 MB of native memory behind (see BENCHMARKS.md); this takes 0.4 s and
 * ~0.5 KB per folder. A folder is watched before it is listed, so no file made in between is missed.
 */
export function watchFolders(spec: FolderWatchSpec): FolderWatch {
  const watchers = new Map<string, { readonly watcher: FSWatcher; readonly ino: number }>();
  let closed = false;

  /** Watch `dir`, then walk it; `known` is its inode when the caller has just looked. */
  const add = async (root: string, dir: string, parts: readonly string[], announce: boolean, known?: number): Promise<void> => {
    if (closed || watchers.has(dir)) return;
    let watcher: FSWatcher;
    let ino: number;
    try {
      ino = known ?? (await stat(dir)).ino;
      if (closed || watchers.has(dir)) return;
      watcher = watchFolder(dir, (_event, name) => {
        if (closed || typeof name !== 'string' || name === '') return;
        const path = join(dir, name);
        if (spec.isFile(path)) spec.onFile(root, path);
        else if (parts.length < spec.depth && spec.wanted([...parts, name])) void addIfFolder(root, path, [...parts, name]);
      });
    } catch {
      return; // gone, or not readable: the scan reports it
    }
    watcher.on('error', () => drop(dir, watcher));
    watchers.set(dir, { watcher, ino });
    let entries;
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      const path = join(dir, entry.name);
      const below = [...parts, entry.name];
      // A folder reached through a symlink is watched too, as discovery reads it (depth bounds any loop).
      if (parts.length < spec.depth && spec.wanted(below) && !spec.isFile(path) && (await isKind(path, entry, 'directory'))) await add(root, path, below, announce);
      else if (announce && spec.isFile(path)) spec.onFile(root, path);
    }
  };
  const drop = (dir: string, watcher: FSWatcher): void => {
    watcher.close();
    if (watchers.get(dir)?.watcher === watcher) watchers.delete(dir);
  };
  /**
   * A folder that appeared after the walk: watched, and its files reported (written before its watch was armed). A
   * watched folder that was removed (or removed and made again: its old watch sees nothing) is let go first.
   */
  const addIfFolder = async (root: string, path: string, parts: readonly string[]): Promise<void> => {
    const known = watchers.get(path);
    let ino: number | null = null;
    try {
      const info = await stat(path);
      if (info.isDirectory()) ino = info.ino;
    } catch {
      // gone
    }
    if (known !== undefined) {
      if (known.ino === ino) return;
      drop(path, known.watcher);
    }
    if (ino !== null) await add(root, path, parts, true, ino);
  };

  const ready = forEachLimited(spec.roots, FS_CALLS_IN_FLIGHT, (root) => add(root, root, [], false));
  return {
    ready,
    close() {
      closed = true;
      for (const { watcher } of watchers.values()) watcher.close();
      watchers.clear();
    },
  };
}
