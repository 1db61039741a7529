// Rows a host's `sessions` need not send again: each row line is named by a digest of its bytes. The reader says
// which rows it holds (`list --watch --json --known`: one line on stdin, the digests), the host sends only the others
// and then the digests of every row it has, so the reader keeps what is unchanged and drops what is gone.
import { createHash } from 'node:crypto';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { readRegularFile } from '../core/io/regular.js';

/** A row line's digest: 16 hex characters of its SHA-256 (the line as sent, without its newline). */
export function rowDigest(line: string): string {
  return createHash('sha256').update(line).digest('hex').slice(0, 16);
}

/** The most digests a reader may name (a host holds at most this many rows: hostLimits' maxRows). */
export const MAX_KNOWN = 100_000;

/** The digests a reader named, from the line it sent (anything else: none). */
export function knownDigests(line: string): Set<string> {
  try {
    const value: unknown = JSON.parse(line);
    if (!Array.isArray(value)) return new Set();
    return new Set(value.slice(0, MAX_KNOWN).filter((one): one is string => typeof one === 'string' && /^[0-9a-f]{16}$/.test(one)));
  } catch {
    return new Set();
  }
}

/** Where the rows a host's `sessions` sent last are kept (beside its mirror folder: `<mirror>.rows.ndjson`). */
export function rowsPath(mirrorDir: string): string {
  return `${mirrorDir}.rows.ndjson`;
}

/** The row lines kept for a host, by digest (none: an empty map). Untrusted as the host's own lines are. */
export async function readKeptRows(mirrorDir: string, maxBytes: number): Promise<Map<string, string>> {
  try {
    const text = (await readRegularFile(rowsPath(mirrorDir), maxBytes)).toString('utf8');
    const out = new Map<string, string>();
    for (const line of text.split('\n')) if (line !== '' && out.size < MAX_KNOWN) out.set(rowDigest(line), line);
    return out;
  } catch {
    return new Map();
  }
}

/** Keep these row lines for the next ask (written whole: temp + rename, mode 0600). */
export async function keepRows(mirrorDir: string, lines: Iterable<string>): Promise<void> {
  const path = rowsPath(mirrorDir);
  const temp = `${path}.tmp-${process.pid}`;
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  await writeFile(temp, [...lines].map((line) => `${line}\n`).join(''), { mode: 0o600 });
  await rename(temp, path);
}
