/**
 * Kilo Code CLI (verified with 7.7.9): an opencode fork that keeps opencode's database, `$XDG_DATA_HOME/kilo/kilo.db`
 * (opencode's `session`/`message`/`part` tables, plus its own), read and written by opencode's code told what
 * differs. Its sessions are titled `New session - <ISO time>` until named (its `--fork` appends ` (fork #1)` and
 * records no parent); `kilo run -s ID` and `kilo -s ID` continue one in place. Kilo appends an
 * `<environment_details>` block (time, cwd, workspace root) to each prompt it sends; 7.7.9 adds it per request
 * (a `synthetic` part, not stored), and a prompt stored with one is shown, listed and handed off without it.
 */
import { opencodeFamilyAdapter, type OpencodeDialect } from '../opencode/index.js';

export const KILO_DIALECT: OpencodeDialect = {
  agent: 'kilo',
  label: 'Kilo Code CLI',
  command: 'kilo',
  dataName: 'kilo',
  dbName: 'kilo.db',
  // Kilo's default primary agent (opencode's `build`).
  defaultAgent: 'code',
  verifiedVersion: '7.7.9',
  injectedTags: ['environment_details'],
  // Not checked against Kilo's code: `fork --with-code` refuses its sessions rather than guess.
  snapshots: false,
};

export const kiloAdapter = opencodeFamilyAdapter(KILO_DIALECT);
