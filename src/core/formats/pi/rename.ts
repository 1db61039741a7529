/** Naming a session as pi's `/name` does: a `session_info` entry appended after the last entry (pi's title is the newest). */
import { appendLines } from '../../io/atomic.js';
import type { AgentRename } from '../types.js';
import { livePath, readPiFile } from './entries.js';
import { piEntryId } from './fork.js';

export const piRename: AgentRename = {
  where: 'a `{"type":"session_info","name":NAME}` entry appended to the session file, as `/name` writes',
  async write(group, _id, name, now) {
    const path = livePath(group);
    const file = await readPiFile(path);
    // A child of the last entry, as pi appends every entry: it stays on the branch pi resumes.
    await appendLines(path, [JSON.stringify({ type: 'session_info', id: piEntryId(), parentId: file.entries.at(-1)?.id ?? null, timestamp: now.toISOString(), name })]);
  },
};
