/** Naming a thread as Codex's own `/rename` does: one more line in the session index, which the `codex resume` picker reads. */
import type { AgentRename } from '../types.js';
import { codexIndexPath, nameCodexThread } from './fork.js';
import { checkAppendable } from '../../io/atomic.js';

export const codexRename: AgentRename = {
  where: '`$CODEX_HOME/session_index.jsonl`: one more `{id, thread_name, updated_at}` line (the newest wins), as `/rename` in Codex writes',
  async write(group, id, name, now) {
    await checkAppendable(codexIndexPath(group.root), { mayCreate: true });
    await nameCodexThread(group.root, id, name, now);
  },
};
