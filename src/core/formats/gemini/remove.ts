/** What a Gemini CLI session is on disk: its chat file and, when there is one, the folder of its sub-agents' chats (`chats/<session id>/`). */
import { statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { SessionFileGroup } from '../types.js';

export function geminiSessionPaths(group: SessionFileGroup, id: string): Promise<string[]> {
  const live = group.paths.find((path) => dirname(path).endsWith('/chats')) ?? group.paths[0];
  if (live === undefined) return Promise.resolve([]);
  // Gemini CLI names the folder after the session id, sanitized to these characters.
  const folder = join(dirname(live), id.replace(/[^A-Za-z0-9_-]/g, '_'));
  const hasFolder = statSync(folder, { throwIfNoEntry: false })?.isDirectory() === true;
  if (!hasFolder) return Promise.resolve([...group.paths]);
  return Promise.resolve([...group.paths.filter((path) => !path.startsWith(`${folder}/`)), folder]);
}
