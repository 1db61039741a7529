import { createHash } from 'node:crypto';
import { readdir, readFile, utimes } from 'node:fs/promises';
import { join } from 'node:path';

/** A file's SHA-256 (to prove an original was not touched). */
export async function sha256File(path: string): Promise<string> {
  return createHash('sha256').update(await readFile(path)).digest('hex');
}

/** A file's lines as raw bytes, terminators excluded (to compare kept lines byte for byte). */
export async function rawLines(path: string): Promise<Buffer[]> {
  const data = await readFile(path);
  const lines: Buffer[] = [];
  let from = 0;
  for (let nl = data.indexOf(0x0a); nl !== -1; nl = data.indexOf(0x0a, from)) {
    lines.push(data.subarray(from, nl));
    from = nl + 1;
  }
  if (from < data.length) lines.push(data.subarray(from));
  return lines;
}
/**
 * Date every file under `dir` an hour back: a session written in the last minute looks open in an agent and its
 * resume asks first (issue 27), so a test of something else resumes files that are not fresh copies.
 */
export async function writtenAnHourAgo(dir: string, now = Date.now()): Promise<void> {
  const hourAgo = new Date(now - 3600_000);
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) await utimes(join(entry.parentPath, entry.name), hourAgo, hourAgo);
  }
}
