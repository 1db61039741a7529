// A paginated fork (0.16x) holds only its own lines: the turns before the fork point are the parent's file up to
// `session_meta.history_base.end_byte_offset`. grep searches those bytes for the fork (catalog/grep-inherited.ts).
import { closeSync, readSync } from 'node:fs';
import { isRecord } from '../../json.js';
import { openRegularSync } from '../../io/regular.js';
import type { InheritedBase, InheritedHistory, SessionFileGroup } from '../types.js';
import { classify, headerOf } from './lines.js';

/** 0.16x writes `forked_from_id` in a fork header's first few hundred bytes (before its instructions). */
const FORKED_FROM = Buffer.from('"forked_from_id"');
/** A header line longer than this (instructions of megabytes) is not read for its base. */
const HEADER_MAX_BYTES = 4 << 20;
const CHUNK_BYTES = 64 * 1024;

/** The first line of a file, read through the one safe open; null when it has none within HEADER_MAX_BYTES. */
function firstLine(path: string): Buffer | null {
  const fd = openRegularSync(path);
  try {
    const chunks: Buffer[] = [];
    let total = 0;
    while (total < HEADER_MAX_BYTES) {
      const chunk = Buffer.allocUnsafe(CHUNK_BYTES);
      const read = readSync(fd, chunk, 0, CHUNK_BYTES, total);
      if (read === 0) break;
      const newline = chunk.subarray(0, read).indexOf(0x0a);
      chunks.push(chunk.subarray(0, newline === -1 ? read : newline));
      total += read;
      if (newline !== -1) return Buffer.concat(chunks);
    }
    return null;
  } finally {
    closeSync(fd);
  }
}

function baseOf(group: SessionFileGroup): InheritedBase | null {
  const path = group.paths[0];
  if (path === undefined) return null;
  const bytes = firstLine(path);
  if (bytes === null) return null;
  let value: unknown;
  try {
    value = JSON.parse(bytes.toString('utf8'));
  } catch {
    return null;
  }
  if (!isRecord(value)) return null;
  const line = classify(path, 0, bytes, value, true);
  if (line.kind !== 'header') return null;
  const header = headerOf(line);
  const base = header.historyBase;
  // A revert's base is the thread's own earlier history (not a parent's); a base without an offset is read by ordinal.
  if (base === null || header.id === null || base.threadId === header.id || base.endByteOffset === undefined) return null;
  return { parentId: base.threadId, endByteOffset: base.endByteOffset };
}

export const codexInheritedHistory: InheritedHistory = {
  mayInherit: (head) => head.includes(FORKED_FROM),
  base: baseOf,
};
