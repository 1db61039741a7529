/** What a Claude Code session is on disk: its file and, when there is one, the folder of its name (sub-agents, tool results, the title sidecar). */
import { statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { SessionFileGroup } from '../types.js';
import { fileStem, livePath } from './summary.js';

export function claudeSessionPaths(group: SessionFileGroup): Promise<string[]> {
  const path = livePath(group);
  const folder = join(dirname(path), fileStem(path));
  const inFolder = (one: string): boolean => one.startsWith(`${folder}/`);
  const hasFolder = statSync(folder, { throwIfNoEntry: false })?.isDirectory() === true;
  return Promise.resolve(hasFolder ? [...group.paths.filter((one) => !inFolder(one)), folder] : [...group.paths]);
}
