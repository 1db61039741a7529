// What the full-text search picks out of each file's head for the catalog, without parsing the file.
import { decodeString, stringEnd, topLevelSpan } from './json-bytes.js';

/**
 * The head grep looks at for a cwd and a Claude lineage root (a row folds every line; a file whose root is not in
 * this head has an unknown lineage, and grep then reads the rows of such files to find a fork's family).
 */
export const SUMMARY_HEAD_BYTES = 64 * 1024;

const CWD_KEY = Buffer.from('"cwd":"');
const CWD_TAG = Buffer.from('<cwd>');
const CWD_TAG_END = Buffer.from('</cwd>');
const QUOTE = Buffer.from('"');

/**
 * The first cwd a file's head records: a `"cwd":"…"` field (Codex session_meta / turn_context, Claude lines), or
 * else a `<cwd>…</cwd>` tag (legacy Codex environment context). The catalog reads the same fields when it summarises.
 */
export function cwdInHead(head: Buffer): string | null {
  const key = head.indexOf(CWD_KEY);
  if (key !== -1) {
    const open = key + CWD_KEY.length - 1;
    const end = stringEnd(head, open);
    const value = end === -1 ? null : decodeString(head, open, end);
    return value !== null && value.length > 0 ? value : null;
  }
  const tag = head.indexOf(CWD_TAG);
  if (tag === -1) return null;
  const end = head.indexOf(CWD_TAG_END, tag);
  // Inside a JSON string: unescape it the way the adapter does after parsing the line.
  if (end === -1) return null;
  const quoted = Buffer.concat([QUOTE, head.subarray(tag + CWD_TAG.length, end), QUOTE]);
  const value = decodeString(quoted, 0, quoted.length);
  return value !== null && value.trim().length > 0 ? value.trim() : null;
}

const ROOT_KEY = Buffer.from('"parentUuid":null');
const LOGICAL_PARENT_KEY = Buffer.from('"logicalParentUuid":"');

/**
 * The uuid of a Claude file's first root message (`parentUuid` null and no `logicalParentUuid`): the session's
 * lineage, which forks made by Claude's --fork-session share with their parent. Null when the head does not show it.
 */
export function claudeRootInHead(head: Buffer): string | null {
  for (let at = head.indexOf(ROOT_KEY); at !== -1; at = head.indexOf(ROOT_KEY, at + 1)) {
    const end = head.indexOf(0x0a, at);
    if (end === -1) return null;
    const line = head.subarray(head.lastIndexOf(0x0a, at) + 1, end);
    if (line.indexOf(LOGICAL_PARENT_KEY) !== -1) continue;
    // The line's own uuid: its top-level one (a message may hold uuids of its own).
    const uuid = topLevelSpan(line, 'uuid');
    if (uuid === null) continue;
    return decodeString(line, uuid.start, uuid.end) || null;
  }
  return null;
}
