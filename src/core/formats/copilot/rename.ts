/**
 * Naming a session as Copilot CLI's `/rename` does: `name` and `user_named: true` in the session's workspace.yaml (the
 * name its `--resume` picker shows), the file replaced whole as Copilot rewrites it. Other keys keep their lines.
 */
import { dirname, join } from 'node:path';
import { readRegularFile, SMALL_FILE_MAX_BYTES } from '../../io/regular.js';
import { replaceFileAtomic } from '../../io/atomic.js';
import { errorCode } from '../../errors.js';
import type { AgentRename } from '../types.js';
import { eventsPath, WORKSPACE, yamlValue } from './files.js';

/** The workspace.yaml text with `key: value` lines set (replaced where they are, else added at the end). */
export function setWorkspaceKeys(text: string, values: Readonly<Record<string, string>>): string {
  const lines = text === '' ? [] : text.replace(/\n$/, '').split('\n');
  for (const [key, value] of Object.entries(values)) {
    const line = `${key}: ${value}`;
    const at = lines.findIndex((one) => one.startsWith(`${key}:`));
    if (at >= 0) lines[at] = line;
    else lines.push(line);
  }
  return `${lines.join('\n')}\n`;
}

export const copilotRename: AgentRename = {
  where: '`name: NAME` and `user_named: true` in the session folder\'s `workspace.yaml`, as `/rename` writes',
  async write(group, id, name) {
    const path = join(dirname(eventsPath(group)), WORKSPACE);
    let text = '';
    try {
      text = (await readRegularFile(path, SMALL_FILE_MAX_BYTES)).toString('utf8');
    } catch (error) {
      if (errorCode(error) !== 'ENOENT') throw error;
      text = `id: ${id}\n`;
    }
    await replaceFileAtomic(path, setWorkspaceKeys(text, { name: yamlValue(name), user_named: 'true' }));
  },
};
