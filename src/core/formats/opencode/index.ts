/** opencode: every conversation in one SQLite database (store.ts says how it is read and written). */
import { existsSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { FormatAdapter } from '../types.js';
import { DATA_FOLDER, DB_NAME, discoverOpencode, forkOpencode, groupOpencodeFiles, ID_PATTERN, indexOpencode, opencodeTexts, readOpencodeRows, readOpencodeSession, readOpencodeSummary, storeOf, WAL_SUFFIX } from './store.js';
import { writeOpencodeHandoff } from './handoff.js';
import { requireHome } from '../../handoff/types.js';
import { opencodeRename } from './rename.js';
import { opencodeRowsOf, putBackOpencodeSession, takeOutOpencodeSession } from './remove.js';

// ---------------------------------------------------------------------------------------------------------
// The adapter

export const opencodeAdapter: FormatAdapter = {
  agent: 'opencode',
  label: 'opencode',
  locations: {
    flag: '--opencode-home <dir>',
    flagHelp: 'an opencode data folder holding opencode.db (repeatable; default $XDG_DATA_HOME/opencode or ~/.local/share/opencode)',
    homeFolder: DATA_FOLDER,
    defaultRoots: ({ home, env, homeDir, abs }) => {
      if (home !== undefined) return [join(home, DATA_FOLDER)];
      const data = env.XDG_DATA_HOME;
      return [data ? join(abs(data), 'opencode') : join(homeDir, DATA_FOLDER)];
    },
    readme: {
      where: '`$XDG_DATA_HOME/opencode/opencode.db`, one SQLite database for every session (default `~/.local/share/opencode`)',
      options: '`--opencode-home DIR` (repeatable), `--home DIR` (= `DIR/.local/share/opencode`)',
    },
    describeRoot: (dir) => `${dir}/${DB_NAME} (opencode)`,
  },
  // The database and its write-ahead log sit directly in the data folder; nothing below it is read.
  watch: {
    roots: 'configured',
    depth: 0,
    wanted: (parts) => parts.length === 1 && storeOf(parts[0]!) !== null,
    fileSuffixes: [DB_NAME, DB_NAME + WAL_SUFFIX],
  },
  // A mirror copies the database and its write-ahead log (the newest rows are only in the log until SQLite
  // checkpoints it); the -shm index is the reader's own. rsync copies them one after the other: a copy taken while
  // opencode writes can miss the last transaction, which the next sync brings.
  mirror: { variables: ['XDG_DATA_HOME'], filter: [`+ ${DB_NAME}`, `+ ${DB_NAME}${WAL_SUFFIX}`] },
  resume: {
    interactive: ['opencode', '{args}', '-s', '{id}'],
    exec: ['opencode', 'run', '{args}', '-s', '{id}', '{prompt}'],
    // opencode finds its database under $XDG_DATA_HOME/opencode: the root's parent, when the root is named so.
    homeEnvironment: (root): Record<string, string> => (basename(root) === 'opencode' ? { XDG_DATA_HOME: dirname(root) } : {}),
  },
  idShape: { pattern: ID_PATTERN, description: 'an opencode session id (ses_…)' },
  forkTarget: 'a new session in the same opencode.db (new rows in one transaction; the original rows are untouched)',
  store: {
    storeOf,
    companions: (path) => [path + WAL_SUFFIX].filter((companion) => existsSync(companion)),
    readRows: readOpencodeRows,
    texts: opencodeTexts,
    rowsOf: opencodeRowsOf,
    takeOut: takeOutOpencodeSession,
    putBack: putBackOpencodeSession,
  },
  discover: discoverOpencode,
  groupFiles: groupOpencodeFiles,
  readSummary: readOpencodeSummary,
  indexSession: indexOpencode,
  readSession: readOpencodeSession,
  fork: forkOpencode,
  rename: opencodeRename,
  handoff: {
    write: (conversation, write, home) => writeOpencodeHandoff(conversation, write, requireHome(home, 'opencode')),
    where: '<opencode data dir>/opencode.db, which opencode must have made: a new session for the cwd, on the model\n            opencode last used there (metadata.sessionsFork names the source)',
  },
};

export {
  addOpencodeSession,
  discoverOpencode,
  forkMetadata,
  forkOpencode,
  forkTitle,
  groupOpencodeFiles,
  opencodeDatabasePath,
  opencodeId,
  opencodeTexts,
  readOpencodeRows,
  readOpencodeSession,
  readOpencodeSummary,
  type NewOpencodeSession,
} from './store.js';
