import { randomBytes } from 'node:crypto';
import { constants, mkdirSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { access, link, lstat, mkdir, open, readdir, rename, rmdir, unlink, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { describeError, errorCode } from '../errors.js';
import { NotRegularFileError } from './regular.js';

/** Our temp names: `.<final name>.tmp-<pid>-<12 hex>` (only files of exactly this shape are ever cleaned up). */
const TEMP_NAME = /^\..+\.tmp-(\d+)-[0-9a-f]{12}$/;
/** A temp file younger than this may belong to a write still running on another machine sharing the folder. */
export const STALE_TEMP_MS = 60 * 60 * 1000;

/**
 * Create `path` with `data`, atomically and without ever replacing an existing file:
 * write a temp file in the same directory (mode 0600), fsync it, then hard-link it into place
 * (link fails with EEXIST where rename would overwrite), fsync the directory, remove the temp name.
 * Temp files a killed run left in the folder are removed first (see removeStaleTemps).
 */
export async function createFileAtomic(path: string, data: Buffer | string | readonly Buffer[], mode = 0o600): Promise<void> {
  const dir = dirname(path);
  const firstMade = await mkdir(dir, { recursive: true, mode: 0o700 });
  try {
    await writeInto(dir, path, data, mode);
  } catch (error) {
    // A failed write (a full disk) leaves no empty folder behind: those it made go again, if still empty.
    if (firstMade !== undefined) await removeEmptyFolders(dir, firstMade);
    throw error;
  }
}

/** `dir` and its missing parents made (mode 0700) or already there; false when they could not be. */
export function makePrivateFolder(dir: string): boolean {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    return true;
  } catch {
    return false;
  }
}

/**
 * Replace `path` with `data` where a failure costs nothing but a later read (a cache's side file: a walk memo, an
 * index): written to `<path>.tmp-<pid>` (O_EXCL, mode 0600, after removing one a killed run of this pid left), then
 * renamed over it. No fsync. False, and no temp file left, when any step failed.
 */
export function replaceCacheFileSync(path: string, data: string | Buffer): boolean {
  const temp = `${path}.tmp-${process.pid}`;
  try {
    try {
      unlinkSync(temp);
    } catch {
      // no leftover
    }
    writeFileSync(temp, data, { flag: 'wx', mode: 0o600 });
    renameSync(temp, path);
    return true;
  } catch {
    try {
      unlinkSync(temp);
    } catch {
      // nothing written
    }
    return false;
  }
}

/** A new file opened for writing (O_EXCL: never an existing file, FIFO or symlink put there), mode `mode`. */
export function openNewFile(path: string, mode = 0o600): Promise<FileHandle> {
  return open(path, 'wx', mode);
}

/** The outermost folder of `dir` and its parents that does not exist yet (what a recursive mkdir of `dir` would make first); undefined when `dir` exists. */
export async function firstMissingFolder(dir: string): Promise<string | undefined> {
  let missing: string | undefined;
  for (let folder = dir; ; folder = dirname(folder)) {
    try {
      await lstat(folder);
      return missing;
    } catch (error) {
      if (errorCode(error) !== 'ENOENT') return missing;
      missing = folder;
    }
    if (dirname(folder) === folder) return missing;
  }
}

/** Remove `dir` and the folders above it up to `top` (included), deepest first, stopping at one that is not empty. */
export async function removeEmptyFolders(dir: string, top: string): Promise<void> {
  for (let folder = dir; ; folder = dirname(folder)) {
    try {
      await rmdir(folder);
    } catch {
      return; // not empty (someone wrote there meanwhile), or gone
    }
    if (folder === top || dirname(folder) === folder) return;
  }
}

async function writeInto(dir: string, path: string, data: Buffer | string | readonly Buffer[], mode: number): Promise<void> {
  await removeStaleTemps(dir);
  const temp = join(dir, `.${basename(path)}.tmp-${process.pid}-${randomBytes(6).toString('hex')}`);
  const handle = await open(temp, 'wx', mode);
  try {
    const chunks = typeof data === 'string' ? [Buffer.from(data, 'utf8')] : Buffer.isBuffer(data) ? [data] : data;
    for (const chunk of chunks) await handle.write(chunk);
    await handle.chmod(mode); // the umask may have narrowed or the file system widened the mode
    await handle.sync();
  } catch (error) {
    await handle.close();
    await unlink(temp).catch(() => undefined);
    throw error;
  }
  await handle.close();
  try {
    await link(temp, path);
  } finally {
    await unlink(temp).catch(() => undefined);
  }
  await syncDirectory(dir);
}

/**
 * Remove the temp files a `kill -9` left behind in `dir`: only names of our exact temp shape (`pattern`, whose
 * first group is the writer's PID), regular files last modified more than an hour ago, whose writer's PID is no
 * longer running. Best effort: never throws.
 */
export async function removeStaleTemps(dir: string, now: number = Date.now(), pattern: RegExp = TEMP_NAME): Promise<string[]> {
  const removed: string[] = [];
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return removed;
  }
  for (const name of names) {
    const match = pattern.exec(name);
    if (!match) continue;
    const pid = Number(match[1]);
    if (pid === process.pid || isRunning(pid)) continue;
    const path = join(dir, name);
    try {
      const stats = await lstat(path);
      if (!stats.isFile() || now - stats.mtimeMs < STALE_TEMP_MS) continue;
      await unlink(path);
      removed.push(path);
    } catch {
      // gone already, or not ours to remove
    }
  }
  return removed;
}

function isRunning(pid: number): boolean {
  if (!Number.isSafeInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return errorCode(error) === 'EPERM'; // alive, someone else's
  }
}

async function syncDirectory(dir: string): Promise<void> {
  try {
    const handle = await open(dir, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch {
    // Some file systems refuse fsync on a directory; the file itself is already durable.
  }
}

/**
 * Append complete lines to an existing regular file that other programs may be appending to at the same time
 * (Codex's session_index.jsonl, a session being resumed). Opened with O_APPEND, so each write lands at the
 * file's end as it is at that moment, never at an offset read earlier; one write(2) per whole line, so lines
 * are never interleaved or overwritten. Never creates the file; refuses FIFOs and devices (EFTYPE).
 */
export async function appendLines(path: string, lines: readonly string[]): Promise<void> {
  for (const line of lines) if (line.includes('\n')) throw new Error('appendLines: a line must not contain a newline');
  const handle = await open(path, constants.O_RDWR | constants.O_APPEND | constants.O_NONBLOCK);
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) throw new NotRegularFileError(path, stats);
    let prefix = '';
    if (stats.size > 0) {
      const last = Buffer.alloc(1);
      await handle.read(last, 0, 1, stats.size - 1);
      // A file whose last line has no newline (interrupted writer) must not get our line glued to it. If another
      // writer ends that line first, the cost is one blank line, which every reader skips.
      if (last[0] !== 0x0a) prefix = '\n';
    }
    for (const [i, line] of lines.entries()) {
      const bytes = Buffer.from(`${i === 0 ? prefix : ''}${line}\n`, 'utf8');
      const { bytesWritten } = await handle.write(bytes, 0, bytes.length, null);
      if (bytesWritten !== bytes.length) throw new Error(`${path}: short write (${bytesWritten} of ${bytes.length} bytes)`);
    }
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** A write that cannot happen, with the path it concerns (checked before a command writes anything). */
export class WriteCheckError extends Error {
  constructor(
    readonly path: string,
    reason: string,
  ) {
    super(`cannot write ${path}: ${reason}`);
    this.name = 'WriteCheckError';
  }
}

/**
 * Check, without writing, that appendLines(path) can succeed: the file is a regular file open for writing, or
 * (`mayCreate`) it does not exist and its folder is writable. Throws WriteCheckError naming the path.
 */
export async function checkAppendable(path: string, options: { readonly mayCreate: boolean }): Promise<void> {
  let handle;
  try {
    handle = await open(path, constants.O_WRONLY | constants.O_APPEND | constants.O_NONBLOCK);
  } catch (error) {
    const code = errorCode(error);
    if (code === 'ENOENT' && options.mayCreate) {
      try {
        await access(dirname(path), constants.W_OK);
        return;
      } catch (dirError) {
        throw new WriteCheckError(dirname(path), describeError(dirError));
      }
    }
    // ENXIO: a FIFO nobody reads.
    throw new WriteCheckError(path, code === 'ENXIO' ? 'not a regular file (a FIFO)' : describeError(error));
  }
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) throw new WriteCheckError(path, new NotRegularFileError(path, stats).message);
  } finally {
    await handle.close();
  }
}

/**
 * Replace a small file the agent rewrites whole itself (Copilot's workspace.yaml, Claude Code's title sidecar) the way
 * it does: a temp file beside it, fsynced, renamed over it, so a reader sees the old bytes or the new ones, never a
 * part. The file keeps its mode; a FIFO or device at `path` is refused (never opened blocking).
 */
export async function replaceFileAtomic(path: string, data: string | Buffer): Promise<void> {
  let mode = 0o600;
  try {
    const existing = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
    try {
      const stats = await existing.stat();
      if (!stats.isFile()) throw new NotRegularFileError(path, stats);
      mode = stats.mode & 0o777;
    } finally {
      await existing.close();
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const temp = join(dirname(path), `.${basename(path)}.tmp-${process.pid}-${randomBytes(6).toString('hex')}`);
  const handle = await open(temp, 'wx', mode);
  try {
    await handle.write(typeof data === 'string' ? Buffer.from(data, 'utf8') : data);
    await handle.chmod(mode);
    await handle.sync();
  } catch (error) {
    await handle.close();
    await unlink(temp).catch(() => undefined);
    throw error;
  }
  await handle.close();
  try {
    await rename(temp, path);
  } catch (error) {
    await unlink(temp).catch(() => undefined);
    throw error;
  }
}
