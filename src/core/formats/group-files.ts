// What every file-per-session agent asks of a session's group of files.
import { basename } from 'node:path';
import type { SessionFileGroup } from './types.js';

/** The file the agent appends to: the last of the group's paths (the others are earlier copies of the same conversation). */
export function livePath(group: SessionFileGroup): string {
  const path = group.paths.at(-1);
  if (path === undefined) throw new Error(`a ${group.agent} session group has no file`);
  return path;
}

/** A `.jsonl` session file's name without the extension (Claude Code and Qwen Code name the file after the session). */
export function fileStem(path: string): string {
  return basename(path).replace(/\.jsonl$/, '');
}
