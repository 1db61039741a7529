import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';

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
