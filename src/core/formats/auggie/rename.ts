/**
 * Naming an Auggie session in its own field: `customTitle` in the session file, which its `/rename` sets and
 * `auggie session list` shows. Auggie rewrites the whole file on every save, so the name is written the same way:
 * the object with `customTitle` set, replacing the file atomically (every other field as it was).
 */
import { replaceFileAtomic } from '../../io/atomic.js';
import { livePath } from '../group-files.js';
import type { AgentRename } from '../types.js';
import { auggieDocumentText } from './fork.js';
import { readAuggieFile } from './records.js';

export const auggieRename: AgentRename = {
  where: "the session file's `customTitle` (what Auggie's /rename sets and `auggie session list` shows), the file rewritten whole as Auggie saves it",
  async write(group, _id, name) {
    const path = livePath(group);
    const { document } = await readAuggieFile(path);
    if (document === null) throw new Error(`${path} is not an Auggie session (not one JSON object)`);
    await replaceFileAtomic(path, auggieDocumentText({ ...document, customTitle: name }));
  },
};
