import { randomBytes } from 'node:crypto';
import { link, mkdir, open, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/**
 * Create `path` with `data`, atomically and without ever replacing an existing file:
 * write a temp file in the same directory (mode 0600), fsync it, then hard-link it into place
 * (link fails with EEXIST where rename would overwrite), fsync the directory, remove the temp name.
 */
export async function createFileAtomic(path: string, data: Buffer | string | readonly Buffer[], mode = 0o600): Promise<void> {
  const dir = dirname(path);
  await mkdir(dir, { recursive: true, mode: 0o700 });
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

/** Append one or more complete lines to an existing file (resume in place); never creates the file. */
export async function appendLines(path: string, lines: readonly string[]): Promise<void> {
  const handle = await open(path, 'r+');
  try {
    const { size } = await handle.stat();
    let prefix = '';
    if (size > 0) {
      const last = Buffer.alloc(1);
      await handle.read(last, 0, 1, size - 1);
      // A file whose last line has no newline (interrupted writer) must not get our line glued to it.
      if (last[0] !== 0x0a) prefix = '\n';
    }
    await handle.write(prefix + lines.map((line) => `${line}\n`).join(''), size);
    await handle.sync();
  } finally {
    await handle.close();
  }
}
