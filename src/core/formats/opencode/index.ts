/** opencode: every conversation in one SQLite database (store.ts says how it is read, fork.ts how it is written). */
import { opencodeFamilyAdapter } from './adapter.js';
import type { OpencodeDialect } from './dialect.js';

export const OPENCODE_DIALECT: OpencodeDialect = {
  agent: 'opencode',
  label: 'opencode',
  command: 'opencode',
  dataName: 'opencode',
  dbName: 'opencode.db',
  // opencode's default primary agent: a message names the agent that handled it.
  defaultAgent: 'build',
  verifiedVersion: '1.18.33',
  injectedTags: [],
  snapshots: true,
};

export const opencodeAdapter = opencodeFamilyAdapter(OPENCODE_DIALECT);

export { opencodeFamilyAdapter } from './adapter.js';
export type { OpencodeDialect } from './dialect.js';
export { addOpencodeSession, forkMetadata, forkTitle, opencodeDatabasePath, opencodeId, type NewOpencodeSession } from './fork.js';
