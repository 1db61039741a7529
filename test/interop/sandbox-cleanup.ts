// An agent's sandbox removed after its suite. A real agent can still be writing into it for a moment after its
// terminal stopped (Claude Code 2.1.330's background work in its config folder): removing a folder that just gained a
// file fails with ENOTEMPTY, which failed a suite whose tests had all passed. Node's rm tries again meanwhile.
import { rm } from 'node:fs/promises';

export function removeSandbox(path: string): Promise<void> {
  return rm(path, { recursive: true, force: true, maxRetries: 20, retryDelay: 100 });
}
