/** A chat's row: its project folder, sub-agent parent, digests of its messages, the index's fold. */
import { createHash } from 'node:crypto';
import { basename, dirname, join } from 'node:path';
import { indexReads, newLineStats } from '../../io/lines.js';
import { readRegularFile, SMALL_FILE_MAX_BYTES } from '../../io/regular.js';
import { addUsage, promptOpening, type SessionSummary, type Usage } from '../../model.js';
import { isoTimestamp } from '../../time.js';
import { reportSkippedLines } from '../problems.js';
import type { AdapterContext, FoldResume, IndexedSession, SessionFileGroup } from '../types.js';
import { isRecord, type JsonObject } from '../../json.js';
import { INJECTED_CONTEXT, isGeminiUserTurn, tokensUsage, userText } from './messages.js';
import { addPartial, foldLegacy, foldRecords, type GeminiRecord, type MessageDigest, RecordFold } from './records.js';
import { livePath } from '../group-files.js';
export { livePath };

// ---------------------------------------------------------------------------------------------------------------
// Rows

/** The gemini dir's project folder of a session file: `<root>/tmp/<project>/chats/[<parent id>/]<file>` → `<root>/tmp/<project>`. */
function projectDirOf(path: string): string {
  const folder = dirname(path);
  return dirname(basename(folder) === 'chats' ? folder : dirname(folder));
}

/** The parent session's id of a sub-agent's chat (the folder it is in, under `chats/`); null for a session of its own. */
export function subagentParentOf(path: string): string | null {
  const folder = dirname(path);
  return basename(folder) !== 'chats' && basename(dirname(folder)) === 'chats' ? basename(folder) : null;
}

export const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

/** The workspace folders Gemini CLI names in its session context (its project folder is one of them). */
function contextFolders(text: string): string[] {
  const folders = [...text.matchAll(/\*\*Workspace Directories:\*\*\n((?:\s+- .+\n?)+)/g)].flatMap((match) =>
    (match[1] ?? '').split('\n').map((line) => line.replace(/^\s+- /, '').trim()).filter(Boolean),
  );
  const working = /I'm currently working in the directory: (.+)/.exec(text);
  if (working?.[1]) folders.push(working[1].trim());
  return folders;
}

/** What the row needs of a message (the index's fold keeps only this). */
export function digestMessage(message: JsonObject): MessageDigest {
  const timestamp = isoTimestamp(message.timestamp);
  if (message.type === 'user') {
    if (isGeminiUserTurn(message)) return { timestamp, prompt: promptOpening(userText(message)) };
    const text = userText(message);
    return INJECTED_CONTEXT.test(text) ? { timestamp, context: contextFolders(text) } : { timestamp };
  }
  if (message.type !== 'gemini') return { timestamp };
  const usage = tokensUsage(message.tokens);
  return { timestamp, ...(typeof message.model === 'string' && message.model.length > 0 ? { model: message.model } : {}), ...(usage ? { usage } : {}) };
}

export function digestRecord(record: GeminiRecord): GeminiRecord<MessageDigest> {
  return { ...record, messages: record.messages.map(digestMessage) };
}

/**
 * The session's project folder (its cwd): the project folder's `.project_root` (0.3x on), else the workspace
 * folder Gemini CLI wrote into its session context, when its sha256 is the file's `projectHash` (older releases).
 */
export async function projectRootOf(path: string, record: GeminiRecord<MessageDigest>): Promise<string | null> {
  try {
    // Through the safe open: a FIFO here hung list, show and even a Codex fork (which lists to resolve its id).
    const marker = (await readRegularFile(join(projectDirOf(path), '.project_root'), SMALL_FILE_MAX_BYTES)).toString('utf8').trim();
    // The folder Gemini CLI keeps this project's sessions for (one folder per project, claimed by this marker).
    if (marker.startsWith('/')) return marker;
  } catch {
    // no marker: an older layout
  }
  for (const message of record.messages) {
    for (const candidate of message.context ?? []) if (record.projectHash !== null && sha256(candidate) === record.projectHash) return candidate;
  }
  return null;
}


function hasConversation(record: GeminiRecord<MessageDigest>): boolean {
  return record.sessionId !== null && record.messages.some((message) => message.prompt !== undefined);
}

export function summarize(group: SessionFileGroup, record: GeminiRecord<MessageDigest>, size: number, mtimeMs: number, cwd: string | null): SessionSummary {
  const path = livePath(group);
  const prompts: string[] = [];
  let model: string | null = null;
  let usage: Usage | null = null;
  let lastTimestamp: string | null = null;
  let firstTimestamp: string | null = null;
  for (const message of record.messages) {
    const { timestamp } = message;
    if (timestamp !== null) {
      firstTimestamp ??= timestamp;
      if (lastTimestamp === null || timestamp > lastTimestamp) lastTimestamp = timestamp;
    }
    if (message.prompt !== undefined) prompts.push(message.prompt);
    if (message.model !== undefined) model = message.model;
    usage = addUsage(usage, message.usage);
  }
  const mtime = new Date(mtimeMs).toISOString();
  const firstPrompt = prompts[0] ?? null;
  const updated = [record.lastUpdated, lastTimestamp].filter((value): value is string => value !== null).sort().at(-1);
  const parent = record.forkedFrom;
  return {
    id: record.sessionId!,
    agent: 'gemini',
    path,
    paths: group.paths,
    cwd,
    title: record.summary ?? firstPrompt ?? '(no prompt)',
    firstPrompt,
    lastPrompt: prompts.at(-1) ?? null,
    name: null,
    userTurns: prompts.length,
    userTurnsExact: true,
    prompts,
    createdAt: record.startTime ?? firstTimestamp ?? mtime,
    updatedAt: updated ?? mtime,
    forkedFrom: parent?.sessionId ?? null,
    fork: parent === null ? null : { id: parent.sessionId, ...(parent.atTurn === null ? {} : { atTurn: parent.atTurn }) },
    // A sub-agent's chat belongs to the session that ran it (the catalog lists it under that row).
    ...(record.kind === 'subagent' ? { subagent: { kind: 'subagent', parentId: subagentParentOf(path) } } : {}),
    gitBranch: null,
    model,
    archived: group.archived,
    usage,
    size,
    mtimeMs,
  };
}

/**
 * The row from every record of the live file, kept as digests; or from a saved fold plus the records appended
 * since (a JSONL log only grows: updates, `$set` and `$rewindTo` are appended records). The fold is saved before
 * a last line still being written.
 */
export async function indexGemini(group: SessionFileGroup, context: AdapterContext, resume?: FoldResume): Promise<IndexedSession> {
  const path = livePath(group);
  const resumed = resume !== undefined && resume.path === path ? importFold(resume.state) : null;
  let fold = resumed ?? new RecordFold(digestMessage);
  const before = indexReads.bytes;
  const folded = await foldRecords(path, fold, resumed === null ? 0 : resume!.offset);
  const { file } = folded;
  let { stats } = folded;
  const saveable = path.endsWith('.jsonl') && file.size >= (context.saveFoldFrom ?? Number.POSITIVE_INFINITY);
  let state = saveable && fold.sessionId !== null && fold.projectHash !== null ? exportFold(fold) : undefined;
  const objects = folded.objects + addPartial(fold, folded);
  if (resumed === null && (fold.sessionId === null || fold.projectHash === null)) {
    const legacy = await foldLegacy(path, digestMessage);
    if (legacy !== null) {
      fold = legacy;
      stats = newLineStats();
      state = undefined;
    } else if (objects === 0) {
      stats.malformed = Math.max(stats.malformed, 1);
    }
  }
  const bytesRead = indexReads.bytes - before;
  const saved = state === undefined ? {} : { resume: { path, offset: file.end, state } };
  const record = fold.result();
  reportSkippedLines(context.report, path, stats, hasConversation(record));
  if (!hasConversation(record)) return { summary: null, fingerprint: file.fingerprint, bytesRead, ...saved };
  const cwd = await projectRootOf(path, record);
  return { summary: summarize(group, record, file.size, file.mtimeMs, cwd), fingerprint: file.fingerprint, bytesRead, ...saved };
}

/** A digest fold as plain JSON (the index saves it beside the row; `messages` as `[id, digest]` in order). */
export function exportFold(fold: RecordFold<MessageDigest>): JsonObject {
  const { sessionId, projectHash, startTime, lastUpdated, summary, kind, forkedFrom } = fold;
  return { sessionId, projectHash, startTime, lastUpdated, summary, kind, forkedFrom, messages: [...fold.messages.entries()], compressed: fold.compressed, hidden: [...fold.hidden] };
}

export const stringOrNull = (value: unknown): value is string | null => value === null || typeof value === 'string';

/** A saved digest fold read back from disk, checked; null when it is not one (the file is then read whole). */
export function importFold(state: unknown): RecordFold<MessageDigest> | null {
  if (!isRecord(state) || !Array.isArray(state.messages)) return null;
  const { sessionId, projectHash, startTime, lastUpdated, summary, kind, forkedFrom } = state;
  if (![sessionId, projectHash, startTime, lastUpdated, summary, kind].every(stringOrNull)) return null;
  if (forkedFrom !== null && !(isRecord(forkedFrom) && typeof forkedFrom.sessionId === 'string' && (forkedFrom.atTurn === null || Number.isInteger(forkedFrom.atTurn)))) return null;
  const fold = new RecordFold(digestMessage);
  Object.assign(fold, { sessionId, projectHash, startTime, lastUpdated, summary, kind, forkedFrom });
  for (const entry of state.messages as unknown[]) {
    if (!Array.isArray(entry) || typeof entry[0] !== 'string' || !isDigest(entry[1])) return null;
    fold.messages.set(entry[0], entry[1]);
  }
  // Folds saved before compressions were read have neither list: none happened then.
  for (const entry of Array.isArray(state.compressed) ? (state.compressed as unknown[]) : []) {
    if (!Array.isArray(entry) || typeof entry[0] !== 'string' || !isDigest(entry[1])) return null;
    fold.compressed.push([entry[0], entry[1]]);
  }
  for (const id of Array.isArray(state.hidden) ? (state.hidden as unknown[]) : []) {
    if (typeof id !== 'string') return null;
    fold.hidden.add(id);
  }
  return fold;
}

export function isDigest(value: unknown): value is MessageDigest {
  if (!isRecord(value) || !stringOrNull(value.timestamp)) return false;
  if (value.prompt !== undefined && typeof value.prompt !== 'string') return false;
  if (value.model !== undefined && typeof value.model !== 'string') return false;
  if (value.usage !== undefined && !(isRecord(value.usage) && ['input', 'output', 'cacheRead', 'cacheWrite'].every((key) => typeof (value.usage as JsonObject)[key] === 'number'))) return false;
  return value.context === undefined || (Array.isArray(value.context) && value.context.every((dir) => typeof dir === 'string'));
}
