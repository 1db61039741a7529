/**
 * Naming a session as Claude Code's `/rename` does: a `custom-title` line appended to the session file (what its
 * `--resume` picker shows), and the title sidecar 2.1.330 keeps beside it rewritten when there is one (the newer of
 * the two wins, here and in Claude Code).
 */
import { statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { appendLines, replaceFileAtomic } from '../../io/atomic.js';
import { readRegularFile } from '../../io/regular.js';
import { isRecord } from '../../json.js';
import type { AgentRename } from '../types.js';
import { fileStem, livePath } from './summary.js';

export const claudeRename: AgentRename = {
  where: 'a `{"type":"custom-title","customTitle":NAME,"sessionId":ID}` line appended to the session file (and `<project>/<id>/custom-title.json` when Claude Code made one), as `/rename` writes',
  async write(group, id, name) {
    const path = livePath(group);
    await appendLines(path, [JSON.stringify({ type: 'custom-title', customTitle: name, sessionId: id })]);
    const sidecar = join(dirname(path), fileStem(path), 'custom-title.json');
    if (!statSync(sidecar, { throwIfNoEntry: false })?.isFile()) return;
    let value: unknown = {};
    try {
      value = JSON.parse((await readRegularFile(sidecar, 64 * 1024)).toString('utf8'));
    } catch {
      value = {};
    }
    const kept = isRecord(value) ? value : {};
    await replaceFileAtomic(sidecar, `${JSON.stringify({ ...kept, customTitle: name, ...('title' in kept ? { title: name } : {}) })}\n`);
  },
};
