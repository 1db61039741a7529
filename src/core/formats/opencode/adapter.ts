/** The adapter of an agent that keeps opencode's database (opencode, its forks), made from its dialect. */
import { existsSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { requireHome } from '../../handoff/types.js';
import type { FormatAdapter } from '../types.js';
import type { OpencodeDialect } from './dialect.js';
import { forkOpencode, opencodeId } from './fork.js';
import { writeOpencodeHandoff } from './handoff.js';
import { opencodeRowsOf, putBackOpencodeSession, takeOutOpencodeSession } from './remove.js';
import { opencodeRename } from './rename.js';
import { opencodeCodeAt, opencodeTurns } from './checkpoints.js';
import { dataFolder, discoverOpencode, groupOpencodeFiles, ID_PATTERN, indexOpencode, opencodeTexts, readOpencodeRows, readOpencodeSession, readOpencodeSummary, storeOf, WAL_SUFFIX } from './store.js';

/** 'an opencode …', 'a Kilo Code CLI …'. */
const withArticle = (words: string): string => `${/^[aeiou]/i.test(words) ? 'an' : 'a'} ${words}`;

export function opencodeFamilyAdapter(dialect: OpencodeDialect): FormatAdapter {
  const { agent, label, command, dataName, dbName } = dialect;
  const flag = `--${agent}-home`;
  return {
    agent,
    label,
    locations: {
      flag: `${flag} <dir>`,
      flagHelp: `${withArticle(label)} data folder holding ${dbName} (repeatable; default $XDG_DATA_HOME/${dataName} or ~/.local/share/${dataName})`,
      homeFolder: dataFolder(dialect),
      defaultRoots: ({ home, env, homeDir, abs }) => {
        if (home !== undefined) return [join(home, dataFolder(dialect))];
        const data = env.XDG_DATA_HOME;
        return [data ? join(abs(data), dataName) : join(homeDir, dataFolder(dialect))];
      },
      readme: {
        where: `\`$XDG_DATA_HOME/${dataName}/${dbName}\`, one SQLite database for every session (default \`~/.local/share/${dataName}\`)`,
        options: `\`${flag} DIR\` (repeatable), \`--home DIR\` (= \`DIR/.local/share/${dataName}\`)`,
      },
      describeRoot: (dir) => `${dir}/${dbName} (${label})`,
    },
    // The database and its write-ahead log sit directly in the data folder; nothing below it is read.
    watch: {
      roots: 'configured',
      depth: 0,
      wanted: (parts) => parts.length === 1 && storeOf(dialect, parts[0]!) !== null,
      fileSuffixes: [dbName, dbName + WAL_SUFFIX],
    },
    // A mirror copies the database and its write-ahead log (the newest rows are only in the log until SQLite
    // checkpoints it); the -shm index is the reader's own. rsync copies them one after the other: a copy taken while
    // the agent writes can miss the last transaction, which the next sync brings.
    mirror: { variables: ['XDG_DATA_HOME'], filter: [`+ ${dbName}`, `+ ${dbName}${WAL_SUFFIX}`] },
    resume: {
      interactive: [command, '{args}', '-s', '{id}'],
      exec: [command, 'run', '{args}', '-s', '{id}', '{prompt}'],
      // The agent finds its database under $XDG_DATA_HOME/<dataName>: the root's parent, when the root is named so.
      homeEnvironment: (root): Record<string, string> => (basename(root) === dataName ? { XDG_DATA_HOME: dirname(root) } : {}),
    },
    idShape: { pattern: ID_PATTERN, description: `${withArticle(label)} session id (ses_…)` },
    forkTarget: `a new session in the same ${dbName} (new rows in one transaction; the original rows are untouched)`,
    store: {
      storeOf: (path) => storeOf(dialect, path),
      companions: (path) => [path + WAL_SUFFIX].filter((companion) => existsSync(companion)),
      readRows: (group, context) => readOpencodeRows(dialect, group, context),
      texts: (group, context) => opencodeTexts(dialect, group, context),
      rowsOf: (path, id) => opencodeRowsOf(dialect, path, id),
      takeOut: (path, id, kept) => takeOutOpencodeSession(dialect, path, id, kept),
      putBack: (path, kept) => putBackOpencodeSession(dialect, path, kept),
    },
    discover: (root, report) => discoverOpencode(dialect, root, report),
    groupFiles: (root, paths) => groupOpencodeFiles(dialect, root, paths),
    readSummary: (group, context) => readOpencodeSummary(dialect, group, context),
    indexSession: (group, context) => indexOpencode(dialect, group, context),
    readSession: (group, context) => readOpencodeSession(dialect, group, context),
    fork: (group, request, context) => forkOpencode(dialect, group, request, context),
    rename: opencodeRename(dialect),
    ...(dialect.snapshots
      ? {
          checkpoints: {
            rewind: `${label}'s revert (snapshots)`,
            codeAt: (group, atTurn, context) => opencodeCodeAt(dialect, group, atTurn, context),
            newId: (now) => opencodeId('ses', now.getTime(), 1, true),
            turns: (group, context) => opencodeTurns(dialect, group, context),
          },
        }
      : {}),
    handoff: {
      write: (conversation, write, home) => writeOpencodeHandoff(dialect, conversation, write, requireHome(home, agent)),
      where: `<${label} data dir>/${dbName}, which ${command} must have made: a new session for the cwd, on the model\n            ${command} last used there (metadata.sessionsFork names the source)`,
      newId: (now) => opencodeId('ses', now.getTime(), 1, true),
    },
  };
}
