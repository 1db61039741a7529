/**
 * Qwen Code sessions: `<runtime dir>/projects/<cwd with non-alphanumerics as ->/chats/<session id>.jsonl`, the
 * runtime dir being `$QWEN_RUNTIME_DIR`, else `$QWEN_HOME`, else `~/.qwen`; archived sessions in `chats/archive/`.
 *
 * A file is a tree of records linked by `parentUuid` (verified against 0.24.4's `prepareTranscriptRecords`):
 * `{uuid, parentUuid, sessionId, timestamp, type: user|assistant|tool_result|system, subtype?, provenance, cwd,
 * version, gitBranch?, message: {role, parts}}` with Gemini API parts. The active leaf is the last conversation
 * record in the file; the transcript is the chain from it back to the root. Records sharing a uuid are fragments
 * of one message (their parts joined). Qwen Code's own fork (`--resume ID --fork-session`) copies the chain under a
 * new `sessionId` and marks each copied record `forkedFrom {sessionId, messageUuid}`.
 */
import { dirname, join, relative, sep } from 'node:path';
import { checkForkTurn } from '../../errors.js';
import { cutBeforeTurn } from '../../truncate.js';
import { uuidv4 } from '../../ids.js';
import { createFileAtomic } from '../../io/atomic.js';
import { isKind } from '../../io/regular.js';
import { type Session, type SessionSummary } from '../../model.js';
import type { AdapterContext, ForkRequest, ForkResult, FormatAdapter, ReportProblem, SessionFileGroup } from '../types.js';
import { listDir } from '../roots.js';
import { fileStem, group, indexQwen, isConversationRecord, isQwenNonConversationLine, isQwenUserTurn, livePath, QWEN_NON_CONVERSATION_NEEDLES, qwenChain, qwenMessages, type QwenRecord, QwenScan, readQwenFile, SESSION_FILE, stringOrNull, summarize } from './session.js';
import { writeQwenHandoff } from './handoff.js';
import { requireHome } from '../../handoff/types.js';
import { qwenRename } from './rename.js';

export const qwenAdapter: FormatAdapter = {
  agent: 'qwen',
  label: 'Qwen Code',
  locations: {
    flag: '--qwen-dir <dir>',
    flagHelp: 'a Qwen Code folder, the one holding projects/ (repeatable; default $QWEN_RUNTIME_DIR, $QWEN_HOME or ~/.qwen)',
    homeFolder: '.qwen',
    defaultRoots: ({ home, env, homeDir, abs }) => {
      if (home !== undefined) return [join(home, '.qwen')];
      const dir = env.QWEN_RUNTIME_DIR || env.QWEN_HOME;
      return [dir ? abs(dir) : join(homeDir, '.qwen')];
    },
    readme: {
      where: '`$QWEN_RUNTIME_DIR/projects/*/chats/*.jsonl` and `chats/archive/` (default `$QWEN_HOME`, else `~/.qwen`)',
      options: '`--qwen-dir DIR` (repeatable), `--home DIR` (= `DIR/.qwen`)',
    },
    describeRoot: (dir) => `${dir}/projects/*/chats (Qwen Code)`,
  },
  // <dir>/projects/<project>/chats/<id>.jsonl and chats/archive/<id>.jsonl.
  watch: {
    roots: 'configured',
    depth: 4,
    wanted: (parts) => parts[0] === 'projects' && (parts.length < 3 || parts[2] === 'chats') && (parts.length < 5 || (parts[3] === 'archive' && parts.length === 5)),
    fileSuffixes: ['.jsonl'],
  },
  mirror: { variables: ['QWEN_RUNTIME_DIR', 'QWEN_HOME'], filter: ['+ projects/', '+ projects/*/', '+ projects/*/chats/', '+ projects/*/chats/*.jsonl', '+ projects/*/chats/archive/', '+ projects/*/chats/archive/*.jsonl'] },
  resume: {
    // A prompt given with --resume makes Qwen Code answer it and exit: the interactive resume takes none.
    interactive: ['qwen', '{args}', '--resume', '{id}'],
    exec: ['qwen', '{args}', '--resume', '{id}', '-p', '{prompt}'],
    // Where Qwen Code keeps sessions (QWEN_HOME would move its settings and login too).
    homeEnvironment: (root) => ({ QWEN_RUNTIME_DIR: root }),
  },
  idShape: { pattern: /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i, description: 'a UUID' },
  isNonConversationLine: isQwenNonConversationLine,
  nonConversationNeedles: QWEN_NON_CONVERSATION_NEEDLES,
  forkTarget: 'in the same chats folder as the original, <new id>.jsonl (each record\'s forkedFrom names the original)',

  groupFiles(root: string, paths: readonly string[]): SessionFileGroup[] {
    const out: SessionFileGroup[] = [];
    for (const path of [...paths].sort()) {
      const rel = relative(root, path).split(sep);
      if (rel[0] !== 'projects' || rel[2] !== 'chats' || !SESSION_FILE.test(rel.at(-1) ?? '')) continue;
      if (rel.length === 4) out.push(group(root, path, false));
      else if (rel.length === 5 && rel[3] === 'archive') out.push(group(root, path, true));
    }
    return out;
  },

  async discover(root: string, report: ReportProblem): Promise<SessionFileGroup[]> {
    const projects = join(root, 'projects');
    const out: SessionFileGroup[] = [];
    for (const project of await listDir(projects, report)) {
      const projectDir = join(projects, project.name);
      if (!(await isKind(projectDir, project, 'directory'))) continue;
      for (const [dir, archived] of [[join(projectDir, 'chats'), false], [join(projectDir, 'chats', 'archive'), true]] as const) {
        for (const entry of await listDir(dir, report)) {
          const path = join(dir, entry.name);
          if (SESSION_FILE.test(entry.name) && (await isKind(path, entry, 'file'))) out.push(group(root, path, archived));
        }
      }
    }
    return out;
  },

  async readSummary(fileGroup: SessionFileGroup, context: AdapterContext): Promise<SessionSummary | null> {
    return (await indexQwen(fileGroup, context)).summary;
  },

  indexSession: indexQwen,

  async readSession(fileGroup: SessionFileGroup): Promise<Session> {
    const file = await readQwenFile(livePath(fileGroup));
    const scan = new QwenScan();
    for (const record of file.records) scan.add(record.value);
    return { ...summarize(fileGroup, scan, file.size, file.mtimeMs), messages: qwenMessages(qwenChain(file.records)), malformedLines: file.stats.malformed };
  },

  /**
   * A new `<uuid>.jsonl` beside the original (where `qwen --resume` looks, from the same cwd) holding the active
   * chain before user turn `atTurn`, every fragment in file order, as Qwen Code's own `--fork-session` writes it:
   * the new `sessionId` on every record and `forkedFrom {sessionId, messageUuid}` naming the record it copies.
   */
  async fork(fileGroup: SessionFileGroup, request: ForkRequest): Promise<ForkResult> {
    const path = livePath(fileGroup);
    const file = await readQwenFile(path);
    const chain = qwenChain(file.records);
    const turns = chain.filter((record) => isQwenUserTurn(record)).length;
    checkForkTurn(request.atTurn, turns);
    const keptUuids = new Set(chain.slice(0, cutBeforeTurn(chain, isQwenUserTurn, request.atTurn)).map((record) => record.uuid));
    const parentId = stringOrNull(file.records[0]?.value.sessionId) ?? fileStem(path);
    const id = uuidv4();
    const lines: string[] = [];
    let last: QwenRecord | undefined;
    for (const record of file.records) {
      if (!keptUuids.has(record.uuid) || !isConversationRecord(record)) continue;
      lines.push(`${JSON.stringify({ ...record.value, sessionId: id, forkedFrom: { sessionId: parentId, messageUuid: record.uuid } })}\n`);
      last = record;
    }
    if (request.branchName !== undefined && request.branchName.length > 0 && last !== undefined) {
      // Qwen Code's own /rename record: the fork shows under this name in Qwen Code and here.
      lines.push(
        `${JSON.stringify({
          uuid: uuidv4(),
          parentUuid: last.uuid,
          sessionId: id,
          timestamp: (request.now ?? new Date()).toISOString(),
          type: 'system',
          subtype: 'custom_title',
          cwd: last.value.cwd,
          version: last.value.version,
          systemPayload: { customTitle: request.branchName, titleSource: 'manual' },
        })}\n`,
      );
    }
    // An archived original's fork is a live session: Qwen Code resumes from `chats/`, not `chats/archive/`.
    const target = join(fileGroup.archived ? dirname(dirname(path)) : dirname(path), `${id}.jsonl`);
    await createFileAtomic(target, lines.join(''));
    return { agent: 'qwen', id, path: target, parentId, keptUserTurns: request.atTurn - 1 };
  },
  rename: qwenRename,
  handoff: {
    write: (conversation, write, home) => writeQwenHandoff(conversation, write, requireHome(home, 'qwen')),
    where: '<qwen dir>/projects/<cwd with non-alphanumerics as ->/chats/<new id>.jsonl (forkedFrom names the source)',
    newId: () => uuidv4(),
  },
};

export { isQwenNonConversationLine, isQwenUserTurn, QWEN_NON_CONVERSATION_NEEDLES, qwenChain, qwenMessages, type QwenRecord } from './session.js';
export { qwenProjectFolder } from './handoff.js';
