// What the full-text search picks out of each file's head for the catalog, without parsing the file.

/**
 * The head grep looks at for a cwd and a Claude lineage root (a row folds every line; a file whose root is not in
 * this head has an unknown lineage, and grep then reads the rows of such files to find a fork's family).
 */
export const SUMMARY_HEAD_BYTES = 64 * 1024;

const CWD_KEY = Buffer.from('"cwd":"');
const CWD_TAG = Buffer.from('<cwd>');
const CWD_TAG_END = Buffer.from('</cwd>');

/**
 * The first cwd a file's head records: a `"cwd":"…"` field (Codex session_meta / turn_context, Claude lines), or
 * else a `<cwd>…</cwd>` tag (legacy Codex environment context). The catalog reads the same fields when it summarises.
 */
export function cwdInHead(head: Buffer): string | null {
  const key = head.indexOf(CWD_KEY);
  if (key !== -1) {
    const start = key + CWD_KEY.length;
    for (let end = head.indexOf(0x22, start); end !== -1; end = head.indexOf(0x22, end + 1)) {
      let backslashes = 0;
      while (head[end - 1 - backslashes] === 0x5c) backslashes++;
      if (backslashes % 2 === 1) continue;
      try {
        const value: unknown = JSON.parse(head.toString('utf8', start - 1, end + 1));
        return typeof value === 'string' && value.length > 0 ? value : null;
      } catch {
        return null;
      }
    }
    return null;
  }
  const tag = head.indexOf(CWD_TAG);
  if (tag === -1) return null;
  const end = head.indexOf(CWD_TAG_END, tag);
  // Inside a JSON string: unescape it the way the adapter does after parsing the line.
  if (end === -1) return null;
  try {
    const value: unknown = JSON.parse(`"${head.toString('utf8', tag + CWD_TAG.length, end)}"`);
    return typeof value === 'string' && value.trim().length > 0 ? value.trim() : null;
  } catch {
    return null;
  }
}

const ROOT_KEY = Buffer.from('"parentUuid":null');
const LOGICAL_PARENT_KEY = Buffer.from('"logicalParentUuid":"');
const UUID_KEY = Buffer.from('"uuid":"');

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
    // The line's own uuid follows its message (key order of Claude Code's lines): the last one in the line.
    const key = line.lastIndexOf(UUID_KEY);
    if (key === -1) continue;
    const close = line.indexOf(0x22, key + UUID_KEY.length);
    return close === -1 ? null : line.toString('utf8', key + UUID_KEY.length, close) || null;
  }
  return null;
}
