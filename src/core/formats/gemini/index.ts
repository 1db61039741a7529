/**
 * Gemini CLI sessions: `<gemini dir>/tmp/<project>/chats/session-<YYYY-MM-DDTHH-MM>-<first 8 of the id>.jsonl`,
 * the gemini dir being `$GEMINI_CLI_HOME/.gemini` or `~/.gemini`. `<project>` is a slug of the project folder's
 * name with a `.project_root` file naming the folder (0.3x on), or sha256(project folder) in older releases.
 *
 * A file is a log of records (verified against 0.61.0's `loadConversationRecord`):
 * - a metadata record `{sessionId, projectHash, startTime, lastUpdated, kind}` first (and again, mid-file, when a
 *   later run started in the same minute appended to it);
 * - message records `{id, timestamp, type: user|gemini|info|error|warning, content, thoughts?, toolCalls?,
 *   tokens?, model?}`; a record whose id was seen replaces that message in place (tool calls, token counts);
 * - `{$set: {...}}` updates the metadata; `$set.messages` replaces every message (a compression's keeps the
 *   history it replaced, read as the user's: records.ts);
 * - `{$rewindTo: id}` drops that message and everything after it.
 * Releases before the JSONL log wrote one JSON object `{sessionId, projectHash, startTime, lastUpdated, messages}`
 * as `session-*.json`; resuming one makes a `.jsonl` copy next to it (one conversation, two files).
 */
import { basename, dirname, join, relative, sep } from 'node:path';
import { checkForkTurn } from '../../errors.js';
import { cutBeforeTurn } from '../../truncate.js';
import { uuidv4 } from '../../ids.js';
import { createFileAtomic } from '../../io/atomic.js';
import { isKind } from '../../io/regular.js';
import { type Session, type SessionSummary } from '../../model.js';
import type { AdapterContext, ForkRequest, ForkResult, FormatAdapter, ReportProblem, SessionFileGroup } from '../types.js';
import { listDir } from '../roots.js';
import { GEMINI_NON_CONVERSATION_NEEDLES, geminiMessages, isGeminiNonConversationLine, isGeminiUserTurn } from './messages.js';
import { geminiSessionFileName, readGeminiFile, SESSION_FILE, SUBAGENT_FILE, SUBAGENT_FOLDER } from './records.js';
import { digestRecord, indexGemini, livePath, projectRootOf, sha256, subagentParentOf, summarize } from './summary.js';
import { writeGeminiHandoff } from './handoff.js';
import { requireHome } from '../../handoff/types.js';
import { geminiRename } from './rename.js';
import { geminiSessionPaths } from './remove.js';

// ---------------------------------------------------------------------------------------------------------------
// Discovery

/** `session-X.json` and `session-X.jsonl` are one conversation (a resumed legacy file): the `.jsonl` is live. */
function groupChatFiles(root: string, paths: readonly string[]): SessionFileGroup[] {
  const byStem = new Map<string, string[]>();
  for (const path of [...paths].sort()) {
    const stem = path.replace(/\.jsonl?$/, '');
    const list = byStem.get(stem) ?? [];
    list.push(path);
    byStem.set(stem, list);
  }
  return [...byStem.values()].map((list) => ({
    agent: 'gemini' as const,
    // `.json` sorts before `.jsonl`: oldest first, the live file last.
    paths: list.sort(),
    idHint: null,
    root,
    archived: false,
  }));
}

export const geminiAdapter: FormatAdapter = {
  agent: 'gemini',
  label: 'Gemini CLI',
  locations: {
    flag: '--gemini-dir <dir>',
    flagHelp: 'a Gemini CLI folder, the one holding tmp/ (repeatable; default $GEMINI_CLI_HOME/.gemini or ~/.gemini)',
    homeFolder: '.gemini',
    // GEMINI_CLI_HOME stands for the user's home: Gemini CLI keeps its files in its `.gemini`.
    defaultRoots: ({ home, env, homeDir, abs }) => [join(home ?? (env.GEMINI_CLI_HOME ? abs(env.GEMINI_CLI_HOME) : homeDir), '.gemini')],
    readme: {
      where: '`$GEMINI_CLI_HOME/.gemini/tmp/*/chats/session-*.jsonl` (default `~/.gemini`; older releases\' `session-*.json` too)',
      options: '`--gemini-dir DIR` (repeatable: the `.gemini` folder), `--home DIR` (= `DIR/.gemini`)',
    },
    describeRoot: (dir) => `${dir}/tmp/*/chats (Gemini CLI)`,
  },
  // <dir>/tmp/<project>/chats/session-*.jsonl and sub-agents' chats/<parent id>/*.jsonl; nothing else under tmp/ (tool outputs, memory) is watched.
  watch: {
    roots: 'configured',
    depth: 4,
    // …and chats/<parent id>/<sub-agent id>.jsonl (`parts` are a folder's or a file's).
    wanted: (parts) => parts[0] === 'tmp' && (parts.length < 3 || (parts[2] === 'chats' && parts.length <= 5)),
    fileSuffixes: ['.jsonl', '.json'],
  },
  // The chats, and the `.project_root` naming each project's folder (the sessions' cwd).
  mirror: { variables: ['GEMINI_CLI_HOME'], filter: ['+ tmp/', '+ tmp/*/', '+ tmp/*/.project_root', '+ tmp/*/chats/', '+ tmp/*/chats/session-*.json', '+ tmp/*/chats/session-*.jsonl'] },
  resume: {
    // A prompt given with --resume makes Gemini CLI answer it and exit: the interactive resume takes none.
    interactive: ['gemini', '{args}', '--resume', '{id}'],
    exec: ['gemini', '{args}', '--resume', '{id}', '-p', '{prompt}'],
    homeEnvironment: (root): Record<string, string> => {
      const home = geminiHomeOf(root);
      return home === null ? {} : { GEMINI_CLI_HOME: home };
    },
  },
  idShape: { pattern: /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i, description: 'a UUID' },
  isNonConversationLine: isGeminiNonConversationLine,
  nonConversationNeedles: GEMINI_NON_CONVERSATION_NEEDLES,
  forkTarget: 'in the same chats folder as the original, session-<minute>-<first 8 of the new id>.jsonl\n(forkedFrom in its first record names the original)',

  groupFiles(root: string, paths: readonly string[]): SessionFileGroup[] {
    return groupChatFiles(
      root,
      paths.filter((path) => {
        const rel = relative(root, path).split(sep);
        if (rel[0] !== 'tmp' || rel[2] !== 'chats') return false;
        if (rel.length === 4) return SESSION_FILE.test(rel[3] ?? '');
        return rel.length === 5 && SUBAGENT_FOLDER.test(rel[3] ?? '') && SUBAGENT_FILE.test(rel[4] ?? '');
      }),
    );
  },

  async discover(root: string, report: ReportProblem): Promise<SessionFileGroup[]> {
    const tmp = join(root, 'tmp');
    const paths: string[] = [];
    for (const project of await listDir(tmp, report)) {
      const projectDir = join(tmp, project.name);
      if (!(await isKind(projectDir, project, 'directory'))) continue;
      const chats = join(projectDir, 'chats');
      for (const entry of await listDir(chats, report)) {
        const path = join(chats, entry.name);
        if (SESSION_FILE.test(entry.name) && (await isKind(path, entry, 'file'))) paths.push(path);
        else if (SUBAGENT_FOLDER.test(entry.name) && (await isKind(path, entry, 'directory'))) {
          for (const child of await listDir(path, report)) {
            const childPath = join(path, child.name);
            if (SUBAGENT_FILE.test(child.name) && (await isKind(childPath, child, 'file'))) paths.push(childPath);
          }
        }
      }
    }
    return groupChatFiles(root, paths);
  },

  async readSummary(group: SessionFileGroup, context: AdapterContext): Promise<SessionSummary | null> {
    return (await indexGemini(group, context)).summary;
  },

  indexSession: indexGemini,

  async readSession(group: SessionFileGroup): Promise<Session> {
    const path = livePath(group);
    const file = await readGeminiFile(path);
    if (file.record.sessionId === null) throw new Error(`${path} is not a Gemini CLI session (no sessionId)`);
    const digested = digestRecord(file.record);
    const cwd = await projectRootOf(path, digested);
    return { ...summarize(group, digested, file.size, file.mtimeMs, cwd), messages: geminiMessages(file.record), malformedLines: file.stats.malformed };
  },

  /**
   * A new `session-<now>-<id8>.jsonl` in the original's chats folder (where `gemini --resume` looks, from the same
   * cwd): a metadata record with a new id, the original's `projectHash` and `forkedFrom {sessionId, atTurn}`, then
   * every message before user turn `atTurn`, each as its last record in the original.
   */
  async fork(group: SessionFileGroup, request: ForkRequest): Promise<ForkResult> {
    const path = livePath(group);
    const { record } = await readGeminiFile(path);
    if (record.sessionId === null) throw new Error(`${path} is not a Gemini CLI session (no sessionId)`);
    const turns = record.messages.filter((message) => isGeminiUserTurn(message)).length;
    checkForkTurn(request.atTurn, turns);
    // A compression's summary is this reader's (records.ts), not a record Gemini CLI loads: the fork holds the history it replaced.
    const messages = record.messages.filter((message) => message.type !== 'compression');
    const kept = messages.slice(0, cutBeforeTurn(messages, isGeminiUserTurn, request.atTurn));
    const now = request.now ?? new Date();
    const id = uuidv4();
    const projectHash = record.projectHash || sha256((await projectRootOf(path, digestRecord(record))) ?? '');
    const meta = {
      sessionId: id,
      projectHash,
      startTime: now.toISOString(),
      lastUpdated: now.toISOString(),
      kind: 'main',
      ...(request.branchName ? { summary: request.branchName } : {}),
      forkedFrom: { sessionId: record.sessionId, atTurn: request.atTurn },
    };
    const lines = [meta, ...kept].map((value) => `${JSON.stringify(value)}\n`);
    // A sub-agent's fork is a session of its own: in chats/, where `gemini --resume` finds it.
    const target = join(subagentParentOf(path) === null ? dirname(path) : dirname(dirname(path)), geminiSessionFileName(id, now));
    await createFileAtomic(target, lines.join(''));
    return { agent: 'gemini', id, path: target, parentId: record.sessionId, keptUserTurns: request.atTurn - 1 };
  },
  sessionPaths: geminiSessionPaths,
  rename: geminiRename,
  handoff: {
    write: (conversation, write, home) => writeGeminiHandoff(conversation, write, requireHome(home, 'gemini')),
    where: '<gemini dir>/tmp/<project>/chats/session-<minute>-<id8>.jsonl (forkedFrom names the source)',
    newId: () => uuidv4(),
  },
};

/** The default gemini dir for a user home: `<home>/.gemini` (Gemini CLI's GEMINI_CLI_HOME stands for the home). */
export function geminiDirOf(home: string): string {
  return join(home, '.gemini');
}

/** The home a gemini dir belongs to (what GEMINI_CLI_HOME must be for Gemini CLI to use it), or null. */
export function geminiHomeOf(root: string): string | null {
  return basename(root) === '.gemini' ? dirname(root) : null;
}

export { geminiSessionFileName, readGeminiFile, type GeminiRecord, type MessageDigest } from './records.js';
export { geminiMessages, GEMINI_NON_CONVERSATION_NEEDLES, isGeminiNonConversationLine, isGeminiUserTurn } from './messages.js';
export { digestMessage } from './summary.js';
