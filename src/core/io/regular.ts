import { closeSync, constants, fstatSync, openSync, readSync, statSync, writeSync, type Dirent, type Stats } from 'node:fs';
import { open, stat, type FileHandle } from 'node:fs/promises';
import { walkFs } from './walk-fs.js';

/*
 * Files named by something we read (a session folder, an index, a cache, a config) may be a FIFO or a device:
 * opening a FIFO for reading blocks until a writer appears, so `sessions` would hang, and opening some devices
 * has effects of its own. Every read first checks with stat that the path is a regular file (symlinks to
 * files are fine), then opens with O_NONBLOCK (a FIFO swapped in after the check still opens at once) and
 * checks again with fstat on the descriptor it reads from, so nothing swapped in between can race it.
 */

const READ_FLAGS = constants.O_RDONLY | constants.O_NONBLOCK;

/** A FIFO, device, socket or directory where a file was expected (code `EFTYPE`, as BSD names it). */
export class NotRegularFileError extends Error {
  readonly code = 'EFTYPE';
  constructor(readonly path: string, stats: Stats) {
    super(`not a regular file (${kindOf(stats)})`);
    this.name = 'NotRegularFileError';
  }
}

function kindOf(stats: Stats): string {
  if (stats.isFIFO()) return 'a FIFO';
  if (stats.isCharacterDevice() || stats.isBlockDevice()) return 'a device';
  if (stats.isSocket()) return 'a socket';
  if (stats.isDirectory()) return 'a directory';
  return 'not a file';
}

/** Open a regular file for reading without ever blocking on a FIFO; throws NotRegularFileError for anything else. */
export async function openRegular(path: string): Promise<FileHandle> {
  const before = await stat(path);
  if (!before.isFile()) throw new NotRegularFileError(path, before);
  const handle = await open(path, READ_FLAGS);
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) throw new NotRegularFileError(path, stats);
  } catch (error) {
    await handle.close();
    throw error;
  }
  return handle;
}

/** The synchronous openRegular: a file descriptor the caller closes. */
export function openRegularSync(path: string): number {
  return openRegularWithStatsSync(path).fd;
}

/** openRegularSync, with what fstat said of the descriptor (its size and mtime are the file's stamp as opened). */
export function openRegularWithStatsSync(path: string): { readonly fd: number; readonly stats: Stats } {
  const before = statSync(path);
  if (!before.isFile()) throw new NotRegularFileError(path, before);
  const fd = openSync(path, READ_FLAGS);
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) throw new NotRegularFileError(path, stats);
    return { fd, stats };
  } catch (error) {
    closeSync(fd);
    throw error;
  }
}

/** A file bigger than what its reader takes (a marker, a config or an index of many megabytes), code `EFBIG`. */
export class FileTooLargeError extends Error {
  readonly code = 'EFBIG';
  constructor(readonly path: string, maxBytes: number) {
    super(`larger than the ${maxBytes} bytes such a file can be`);
    this.name = 'FileTooLargeError';
  }
}

/** How much a small file is read at most: markers hold a path, configs and state files a few settings. */
export const SMALL_FILE_MAX_BYTES = 1 << 20;
/** Indexes other programs keep (Gemini CLI's projects.json): many entries, still never this big. */
export const INDEX_FILE_MAX_BYTES = 64 << 20;

/**
 * A whole regular file's bytes (FIFOs and devices refused, never opened blocking), at most `maxBytes`: past that
 * FileTooLargeError, without reading more (a file whose size stat does not tell, as in /proc, is bounded too).
 */
export async function readRegularFile(path: string, maxBytes = Infinity): Promise<Buffer> {
  const handle = await openRegular(path);
  try {
    if (maxBytes === Infinity) return await handle.readFile();
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const { bytesRead, buffer } = await handle.read(Buffer.allocUnsafe(Math.min(1 << 16, maxBytes + 1 - total)), 0, undefined, null);
      if (bytesRead === 0) return Buffer.concat(chunks, total);
      chunks.push(buffer.subarray(0, bytesRead));
      total += bytesRead;
      if (total > maxBytes) throw new FileTooLargeError(path, maxBytes);
    }
  } finally {
    await handle.close();
  }
}

/**
 * readRegularFile, synchronous, decoded as UTF-8. Read into one buffer of the size fstat gave, grown when the file
 * is longer (it grew, or stat does not tell, as in /proc): 64 KiB chunks, each copied and then concatenated, were
 * ~0.3 s of CPU and most of the garbage of reading grep's 23.6 MB walk memo at 100k sessions.
 */
export function readRegularFileSync(path: string, maxBytes = Infinity): string {
  const { bytes, length } = readRegularBytesIntoSync(path, maxBytes);
  return bytes.toString('utf8', 0, length);
}

/** readRegularFileSync's bytes, undecoded. */
export function readRegularBytesSync(path: string, maxBytes = Infinity): Buffer {
  const { bytes, length } = readRegularBytesIntoSync(path, maxBytes);
  return bytes.subarray(0, length);
}

function readRegularBytesIntoSync(path: string, maxBytes: number): { readonly bytes: Buffer; readonly length: number } {
  const { fd, stats } = openRegularWithStatsSync(path);
  try {
    return readOpenBytesIntoSync(fd, stats.size, maxBytes, path);
  } finally {
    closeSync(fd);
  }
}

/**
 * The bytes of the file open at `fd`, from its current position (a fresh descriptor's start: positional reads do not
 * move it) to its end, into one buffer of `size` (fstat's), grown when the file is longer; `path` names it in the
 * error past `maxBytes`. For a descriptor the caller keeps (the catalog cache read line by line, then whole).
 */
export function readOpenBytesSync(fd: number, size: number, maxBytes = Infinity, path = `fd ${fd}`): Buffer {
  const { bytes, length } = readOpenBytesIntoSync(fd, size, maxBytes, path);
  return bytes.subarray(0, length);
}

function readOpenBytesIntoSync(fd: number, size: number, maxBytes: number, path: string): { readonly bytes: Buffer; readonly length: number } {
  // One byte past the size: a read that fills it says the file is longer than stat said.
  let buffer = Buffer.allocUnsafe(Math.max(1, Math.min(size, maxBytes) + 1));
  let total = 0;
  for (;;) {
    if (total === buffer.length) {
      const grown = Buffer.allocUnsafe(Math.min(2 * buffer.length, maxBytes + 1));
      buffer.copy(grown, 0, 0, total);
      buffer = grown;
    }
    const n = readSync(fd, buffer, total, Math.min(buffer.length, maxBytes + 1) - total, null);
    if (n === 0) break;
    total += n;
    if (total > maxBytes) throw new FileTooLargeError(path, maxBytes);
  }
  return { bytes: buffer, length: total };
}

/** Copy a regular file (FIFOs and devices refused, never opened blocking) to a new file `to`, mode 0600. */
export function copyRegularFileSync(from: string, to: string): void {
  const fd = openRegularSync(from);
  try {
    const out = openSync(to, 'wx', 0o600);
    try {
      const buffer = Buffer.allocUnsafe(1 << 20);
      for (let n = readSync(fd, buffer, 0, buffer.length, null); n > 0; n = readSync(fd, buffer, 0, buffer.length, null)) writeSync(out, buffer, 0, n);
    } finally {
      closeSync(out);
    }
  } finally {
    closeSync(fd);
  }
}

/** Whether a directory entry is a file (or a directory), a symlink followed to what it names. */
export async function isKind(path: string, entry: Dirent, kind: 'file' | 'directory'): Promise<boolean> {
  if (kind === 'file' ? entry.isFile() : entry.isDirectory()) return true;
  if (!entry.isSymbolicLink()) return false;
  try {
    const info = await walkFs.stat(path);
    return kind === 'file' ? info.isFile() : info.isDirectory();
  } catch {
    return false;
  }
}
