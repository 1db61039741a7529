import { readdirSync, realpathSync, statSync, type Dirent, type Stats } from 'node:fs';

/*
 * Folder walks (discovery) make synchronous calls: a promise-based readdir, stat or realpath costs 3-10× the CPU of
 * the call itself (a failed stat builds an Error and its stack: 13× a synchronous stat that returns nothing), and a
 * discovery is thousands of them. Each call first awaits `breathe()`, which lets timers, keys and worker messages in
 * once the synchronous calls have run for a slice: the event loop is never held longer than that.
 */

/** The longest a walk runs synchronous calls before it yields (half a 60 fps frame). */
const SLICE_MS = 8;
let sliceStart = performance.now();

/** Yield to the event loop when synchronous work has run for a slice since the last yield; else return at once. */
export async function breathe(): Promise<void> {
  if (performance.now() - sliceStart < SLICE_MS) return;
  await new Promise<void>((resolve) => setImmediate(resolve));
  sliceStart = performance.now();
}

/** A folder's entries (throws as readdir does: ENOENT, ENOTDIR, EACCES…). */
export async function readDirEntries(dir: string): Promise<Dirent[]> {
  await breathe();
  return readdirSync(dir, { withFileTypes: true });
}

/** What stat says of a path (symlinks followed), or null when there is nothing there or it cannot be stat'ed. */
export async function statOrNull(path: string): Promise<Stats | null> {
  await breathe();
  try {
    return statSync(path, { throwIfNoEntry: false }) ?? null;
  } catch {
    return null;
  }
}

/** Whether a path is a directory (symlinks followed). */
export async function isDirectoryPath(path: string): Promise<boolean> {
  return (await statOrNull(path))?.isDirectory() ?? false;
}

/** A path's real path, in one system call (realpathSync walks each component in JS); throws as realpath does. */
export async function realPath(path: string): Promise<string> {
  await breathe();
  return realpathSync.native(path);
}
