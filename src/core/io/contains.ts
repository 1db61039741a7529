import { closeSync, openSync, readSync } from 'node:fs';

const CHUNK = 1 << 20;

/**
 * The byte patterns to look for so that `text` is found in JSONL written by any of the agents: as is
 * (raw UTF-8), JSON-escaped (quotes, backslashes, newlines), and with non-ASCII as \uXXXX escapes.
 */
export function jsonNeedles(text: string): Buffer[] {
  const escaped = JSON.stringify(text).slice(1, -1);
  const asciiEscaped = escaped.replace(/[\u0080-\uffff]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return [...new Set([text, escaped, asciiEscaped])].filter((needle) => needle.length > 0).map((needle) => Buffer.from(needle, 'utf8'));
}

/** Lower-case ASCII letters in place (for case-insensitive search of ASCII needles). */
function lowerAscii(buffer: Buffer, length: number): void {
  for (let i = 0; i < length; i++) {
    const byte = buffer[i]!;
    if (byte >= 0x41 && byte <= 0x5a) buffer[i] = byte | 0x20;
  }
}

export interface ContainsOptions {
  /** ASCII case-insensitive (needles must already be lower case). */
  readonly ignoreCase?: boolean;
}

/**
 * True when the file contains any of the needles. Reads the file in 1 MiB chunks (any size), keeping an
 * overlap so a match across two chunks is found; stops at the first match. Synchronous on purpose: for
 * thousands of files, promise-based reads cost more than the reading (callers yield between files).
 */
export function fileContainsSync(path: string, needles: readonly Buffer[], options: ContainsOptions = {}): boolean {
  if (needles.length === 0) return false;
  const overlap = Math.max(...needles.map((needle) => needle.length)) - 1;
  const buffer = Buffer.allocUnsafe(CHUNK + overlap);
  const fd = openSync(path, 'r');
  try {
    let carried = 0;
    let position = 0;
    for (;;) {
      const bytesRead = readSync(fd, buffer, carried, CHUNK, position);
      if (bytesRead === 0) return false;
      const length = carried + bytesRead;
      if (options.ignoreCase) lowerAscii(buffer.subarray(carried), bytesRead);
      const view = buffer.subarray(0, length);
      for (const needle of needles) if (view.indexOf(needle) !== -1) return true;
      position += bytesRead;
      carried = Math.min(overlap, length);
      buffer.copy(buffer, 0, length - carried, length);
    }
  } finally {
    closeSync(fd);
  }
}
