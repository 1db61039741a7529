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
 * - `{$set: {...}}` updates the metadata; `$set.messages` replaces every message;
 * - `{$rewindTo: id}` drops that message and everything after it.
 * Releases before the JSONL log wrote one JSON object `{sessionId, projectHash, startTime, lastUpdated, messages}`
 * as `session-*.json`; resuming one makes a `.jsonl` copy next to it (one conversation, two files).
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { basename, dirname, join, relative, sep } from 'node:path';

import { checkForkTurn } from '../errors.js';
import { cutBeforeTurn } from '../truncate.js';
import { uuidv4 } from '../ids.js';
import { createFileAtomic } from '../io/atomic.js';
import { foldLines, indexReads, newLineStats, parseJsonLine, type FoldedFile, type LineStats } from '../io/lines.js';
import { isKind, readRegularFile } from '../io/regular.js';
import { addUsage, promptOpening, type Block, type Message, type Session, type SessionSummary, type Usage } from '../model.js';
import { isoTimestamp } from '../time.js';
import { isHandoffNote } from '../handoff/note-opening.js';
import { argsText, functionResponseBlocks, functionResponseOutput, hasFunctionResponse, imageBlocks, modelPartBlocks, partList, partsText } from './gemini-parts.js';
import { reportSkippedLines } from './problems.js';
import type { AdapterContext, FoldResume, ForkRequest, ForkResult, FormatAdapter, IndexedSession, ReportProblem, SessionFileGroup } from './types.js';
import { isRecord, type JsonObject } from '../json.js';
import { listDir } from './roots.js';


/** `session-<anything>.json` or `.jsonl`: the names Gemini CLI lists (`getAllSessionFiles`). */
const SESSION_FILE = /^session-.+\.jsonl?$/;
/** A sub-agent's chat (0.61): `chats/<parent session id>/<sub-agent session id>.jsonl`, both ids as Gemini CLI sanitizes them. */
const SUBAGENT_FOLDER = /^[A-Za-z0-9_-]+$/;
const SUBAGENT_FILE = /^[A-Za-z0-9_-]+\.jsonl$/;

/** The context Gemini CLI puts in a user message of its own before the first prompt: never the user's words. */
const INJECTED_CONTEXT = /^\s*<(?:session_context|hook_context)>/;

/** The fold of one file: what `loadConversationRecord` would load (each message as `M`), plus what a row needs. */
export interface GeminiRecord<M = JsonObject> {
  readonly sessionId: string | null;
  readonly projectHash: string | null;
  /** The first metadata record's start (a later run appending to the file writes its own). */
  readonly startTime: string | null;
  readonly lastUpdated: string | null;
  /** Gemini CLI's generated summary of the session (its title in `--list-sessions`). */
  readonly summary: string | null;
  readonly kind: string | null;
  /** Set in forks `sessions` wrote: `{sessionId, atTurn}` of the session it was cut from. */
  readonly forkedFrom: { readonly sessionId: string; readonly atTurn: number | null } | null;
  /** The messages, in order, each as its last record. */
  readonly messages: readonly M[];
}

/** What a row needs of one message: the index keeps this, never the message's content. */
export interface MessageDigest {
  readonly timestamp: string | null;
  /** The prompt's opening, when the message is a turn. */
  readonly prompt?: string;
  readonly model?: string;
  readonly usage?: Usage;
  /** The folders a session context message names (older releases' cwd is the one whose sha256 is the projectHash). */
  readonly context?: readonly string[];
}

/** The record log folded as Gemini CLI loads it, each message kept as `take` makes it (whole, or a row's digest). */
class RecordFold<M> {
  sessionId: string | null = null;
  projectHash: string | null = null;
  startTime: string | null = null;
  lastUpdated: string | null = null;
  summary: string | null = null;
  kind: string | null = null;
  forkedFrom: GeminiRecord['forkedFrom'] = null;
  readonly messages = new Map<string, M>();

  constructor(private readonly take: (message: JsonObject) => M) {}

  add(record: JsonObject): void {
    if (typeof record.$rewindTo === 'string') {
      if (!this.messages.has(record.$rewindTo)) {
        this.messages.clear();
        return;
      }
      let found = false;
      for (const id of [...this.messages.keys()]) {
        if (id === record.$rewindTo) found = true;
        if (found) this.messages.delete(id);
      }
    } else if (typeof record.id === 'string') {
      // Map.set keeps a known id where it was: an update replaces the message in place.
      this.messages.set(record.id, this.take(record));
    } else if (isRecord(record.$set)) {
      if (Array.isArray(record.$set.messages)) {
        this.messages.clear();
        this.addMessages(record.$set.messages);
      }
      this.merge(record.$set);
    } else if (typeof record.sessionId === 'string' && typeof record.projectHash === 'string') {
      this.merge(record);
      if (Array.isArray(record.messages)) this.addMessages(record.messages);
    }
  }

  private addMessages(list: readonly unknown[]): void {
    for (const message of list) if (isRecord(message) && typeof message.id === 'string') this.messages.set(message.id, this.take(message));
  }

  private merge(meta: JsonObject): void {
    if (typeof meta.sessionId === 'string') this.sessionId = meta.sessionId;
    if (typeof meta.projectHash === 'string') this.projectHash = meta.projectHash;
    const start = isoTimestamp(meta.startTime);
    if (start !== null && this.startTime === null) this.startTime = start;
    const updated = isoTimestamp(meta.lastUpdated);
    if (updated !== null && (this.lastUpdated === null || updated > this.lastUpdated)) this.lastUpdated = updated;
    if (typeof meta.summary === 'string' && meta.summary.trim() !== '') this.summary = meta.summary;
    if (typeof meta.kind === 'string') this.kind = meta.kind;
    if (isRecord(meta.forkedFrom) && typeof meta.forkedFrom.sessionId === 'string') {
      const atTurn = meta.forkedFrom.atTurn;
      this.forkedFrom = { sessionId: meta.forkedFrom.sessionId, atTurn: typeof atTurn === 'number' && Number.isInteger(atTurn) ? atTurn : null };
    }
  }

  result(): GeminiRecord<M> {
    return {
      sessionId: this.sessionId,
      projectHash: this.projectHash,
      startTime: this.startTime,
      lastUpdated: this.lastUpdated,
      summary: this.summary,
      kind: this.kind,
      forkedFrom: this.forkedFrom,
      messages: [...this.messages.values()],
    };
  }
}

/** A digest fold as plain JSON (the index saves it beside the row; `messages` as `[id, digest]` in order). */
function exportFold(fold: RecordFold<MessageDigest>): JsonObject {
  const { sessionId, projectHash, startTime, lastUpdated, summary, kind, forkedFrom } = fold;
  return { sessionId, projectHash, startTime, lastUpdated, summary, kind, forkedFrom, messages: [...fold.messages.entries()] };
}

const stringOrNull = (value: unknown): value is string | null => value === null || typeof value === 'string';

/** A saved digest fold read back from disk, checked; null when it is not one (the file is then read whole). */
function importFold(state: unknown): RecordFold<MessageDigest> | null {
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
  return fold;
}

function isDigest(value: unknown): value is MessageDigest {
  if (!isRecord(value) || !stringOrNull(value.timestamp)) return false;
  if (value.prompt !== undefined && typeof value.prompt !== 'string') return false;
  if (value.model !== undefined && typeof value.model !== 'string') return false;
  if (value.usage !== undefined && !(isRecord(value.usage) && ['input', 'output', 'cacheRead', 'cacheWrite'].every((key) => typeof (value.usage as JsonObject)[key] === 'number'))) return false;
  return value.context === undefined || (Array.isArray(value.context) && value.context.every((dir) => typeof dir === 'string'));
}

interface FoldedRecords {
  readonly file: FoldedFile;
  readonly stats: LineStats;
  readonly objects: number;
}

/** Fold the JSONL records of `path` from byte `start` into `fold`; the last line, when unterminated, is left to the caller. */
async function foldRecords<M>(path: string, fold: RecordFold<M>, start: number): Promise<FoldedRecords> {
  const stats = newLineStats();
  let objects = 0;
  const file = await foldLines(path, start, (line) => {
    const value = parseJsonLine(line.bytes);
    if (isRecord(value)) {
      objects++;
      fold.add(value);
    } else if (line.bytes.length > 0 && line.bytes.some((byte) => byte !== 0x20 && byte !== 0x09)) {
      stats.malformed++;
    }
  });
  return { file, stats, objects };
}

/** Fold a last line still being written (or return it as partial). */
function addPartial<M>(fold: RecordFold<M>, folded: FoldedRecords): number {
  if (folded.file.partial === null) return 0;
  const value = parseJsonLine(folded.file.partial.bytes);
  if (isRecord(value)) {
    fold.add(value);
    return 1;
  }
  if (folded.file.partial.bytes.length > 0) folded.stats.partial++;
  return 0;
}

/** A legacy `session-*.json`, one (pretty-printed) JSON object, folded whole; null when the file is not one. */
async function foldLegacy<M>(path: string, take: (message: JsonObject) => M): Promise<RecordFold<M> | null> {
  const legacy = parseJsonLine(await readRegularFile(path));
  if (!isRecord(legacy) || typeof legacy.sessionId !== 'string') return null;
  const whole = new RecordFold(take);
  whole.add({ ...legacy, projectHash: typeof legacy.projectHash === 'string' ? legacy.projectHash : '' });
  return whole;
}

interface ReadFile<M = JsonObject> {
  readonly record: GeminiRecord<M>;
  readonly stats: LineStats;
  readonly size: number;
  readonly mtimeMs: number;
  readonly fingerprint: string;
}

/** Fold one file whole (a JSONL log, or a legacy single JSON object), every message as its last record. */
export async function readGeminiFile(path: string): Promise<ReadFile> {
  const fold = new RecordFold((message) => message);
  const folded = await foldRecords(path, fold, 0);
  const objects = folded.objects + addPartial(fold, folded);
  const { file, stats } = folded;
  if (fold.sessionId === null || fold.projectHash === null) {
    const legacy = await foldLegacy(path, (message) => message);
    if (legacy !== null) return { record: legacy.result(), stats: newLineStats(), size: file.size, mtimeMs: file.mtimeMs, fingerprint: file.fingerprint };
    if (objects === 0) stats.malformed = Math.max(stats.malformed, 1);
  }
  return { record: fold.result(), stats, size: file.size, mtimeMs: file.mtimeMs, fingerprint: file.fingerprint };
}

// ---------------------------------------------------------------------------------------------------------------
// Messages

function userText(message: JsonObject): string {
  return partsText(message.content);
}

/**
 * True for a user message that is a prompt: Gemini CLI's own rule for what it sends back on resume
 * (`isIgnoredUserContent`: not empty, not a `/command` or `?` help, not its injected context).
 */
export function isGeminiUserTurn(message: JsonObject): boolean {
  if (message.type !== 'user' || hasFunctionResponse(message.content)) return false;
  const text = userText(message).trim();
  // An image alone is a prompt (Gemini CLI's own string of it is `[Image: …]`).
  if (text.length === 0) return imageBlocks(message.content).length > 0;
  // The note a hand-off to Gemini CLI starts with is a user message for the model, not the user's words.
  return !text.startsWith('/') && !text.startsWith('?') && !INJECTED_CONTEXT.test(text) && !isHandoffNote(text);
}

function tokensUsage(tokens: unknown): Usage | undefined {
  if (!isRecord(tokens)) return undefined;
  const number = (value: unknown): number => (typeof value === 'number' && Number.isFinite(value) ? value : 0);
  // `input` counts cached tokens too; `thoughts` are output the model spent thinking.
  return { input: number(tokens.input) - number(tokens.cached), output: number(tokens.output) + number(tokens.thoughts), cacheRead: number(tokens.cached), cacheWrite: 0 };
}

function thoughtSummary(thought: JsonObject): string {
  const subject = typeof thought.subject === 'string' ? thought.subject : '';
  const description = typeof thought.description === 'string' ? thought.description : '';
  // As Gemini CLI replays a recorded thought on resume.
  return subject ? `**${subject}** ${description}` : description;
}

/**
 * The transcript: prompts, answers with their thoughts, tool calls and their results; injected context left out.
 * A model message is read as Gemini CLI rebuilds it on resume (`convertSessionToClientHistory`): from its content
 * parts when they hold the calls or thoughts (what a resumed run's `$set.messages` writes), else from `thoughts`,
 * the content and `toolCalls`. A tool's result is shown once, though 0.61 records it in the call
 * (`toolCalls[].result`), as a user message after it, and after a resume as `<id>_response` too.
 */
export function geminiMessages(record: GeminiRecord): Message[] {
  const out: Message[] = [];
  const shownResults = new Set<string>();
  const newResults = (blocks: readonly Block[]): Block[] =>
    blocks.filter((block) => {
      if (block.type !== 'tool_result' || block.toolUseId === '') return true;
      if (shownResults.has(block.toolUseId)) return false;
      shownResults.add(block.toolUseId);
      return true;
    });
  for (const message of record.messages) {
    const timestamp = isoTimestamp(message.timestamp) ?? undefined;
    const stamp = timestamp === undefined ? {} : { timestamp };
    if (message.type === 'user') {
      if (hasFunctionResponse(message.content)) {
        const blocks = newResults(functionResponseBlocks(message.content));
        if (blocks.length > 0) out.push({ role: 'tool', blocks, userTurn: false, ...stamp });
        continue;
      }
      const text = userText(message);
      const images = imageBlocks(message.content);
      if ((text.trim().length === 0 && images.length === 0) || INJECTED_CONTEXT.test(text)) continue;
      out.push({ role: 'user', blocks: [...(text.length > 0 ? [{ type: 'text' as const, text }] : []), ...images], userTurn: isGeminiUserTurn(message), ...stamp });
    } else if (message.type === 'gemini') {
      const content = partList(message.content);
      const toolCalls = Array.isArray(message.toolCalls) ? message.toolCalls.filter(isRecord) : [];
      const blocks: Block[] = [];
      if (content.some((part) => isRecord(part.functionCall) || part.thought === true)) {
        blocks.push(...modelPartBlocks(content));
      } else {
        for (const thought of Array.isArray(message.thoughts) ? message.thoughts.filter(isRecord) : []) {
          blocks.push({ type: 'reasoning', summary: thoughtSummary(thought), encrypted: false });
        }
        blocks.push(...modelPartBlocks(content));
        for (const call of toolCalls) {
          blocks.push({ type: 'tool_use', id: typeof call.id === 'string' ? call.id : '', name: typeof call.name === 'string' ? call.name : '', input: argsText(call.args) });
        }
      }
      const results: Block[] = [];
      for (const call of toolCalls) {
        if (call.result === undefined || call.result === null) continue;
        const id = typeof call.id === 'string' ? call.id : '';
        const isError = call.status === 'error' || call.status === 'cancelled';
        const fromParts = typeof call.result === 'string' ? [] : functionResponseBlocks(call.result, isError);
        results.push(...(fromParts.length > 0 ? fromParts : [{ type: 'tool_result' as const, toolUseId: id, output: typeof call.result === 'string' ? call.result : functionResponseOutput(call.result), isError }]));
      }
      const usage = tokensUsage(message.tokens);
      if (blocks.length > 0) out.push({ role: 'assistant', blocks, userTurn: false, ...stamp, ...(usage ? { usage } : {}) });
      const shown = newResults(results);
      if (shown.length > 0) out.push({ role: 'tool', blocks: shown, userTurn: false, ...stamp });
    }
    // info / error / warning records are the CLI's own notices, not conversation.
  }
  return out;
}

/** A message record's opening as Gemini CLI writes it: `{"id":…,"timestamp":…,"type":…` (the type is group 1). */
const MESSAGE_OPENING = /^\{"id":"[^"]*",(?:"timestamp":"[^"]*",)?"type":"([a-z]+)"(,"content":\[?\{?(?:"text":)?"\s*<(?:session_context|hook_context)>)?/;

/** What an opening holds when `isGeminiNonConversationLine` says true of it (the openings and types it rejects). */
export const GEMINI_NON_CONVERSATION_NEEDLES: readonly string[] = ['{"$set":', '{"$rewindTo":', '"type":"info"', '"type":"error"', '"type":"warning"', '<session_context>', '<hook_context>'];

/**
 * True for a line that is never conversation text, by its opening (`sessions grep` counts no match in it): `$set`
 * records (metadata, and `$set.messages`, which copies the history with Gemini CLI's `<session_context>`: the
 * workspace's folder listing, the date), `$rewindTo`, the CLI's own info/error/warning notices and the session
 * context message itself. Lines of a legacy pretty-printed `.json` file never match these openings: all counted.
 */
export function isGeminiNonConversationLine(opening: string): boolean {
  if (opening.startsWith('{"$set":') || opening.startsWith('{"$rewindTo":')) return true;
  const message = MESSAGE_OPENING.exec(opening);
  if (message === null) return false;
  return message[1] === 'info' || message[1] === 'error' || message[1] === 'warning' || (message[1] === 'user' && message[2] !== undefined);
}

// ---------------------------------------------------------------------------------------------------------------
// Rows

/** The gemini dir's project folder of a session file: `<root>/tmp/<project>/chats/[<parent id>/]<file>` → `<root>/tmp/<project>`. */
function projectDirOf(path: string): string {
  const folder = dirname(path);
  return dirname(basename(folder) === 'chats' ? folder : dirname(folder));
}

/** The parent session's id of a sub-agent's chat (the folder it is in, under `chats/`); null for a session of its own. */
function subagentParentOf(path: string): string | null {
  const folder = dirname(path);
  return basename(folder) !== 'chats' && basename(dirname(folder)) === 'chats' ? basename(folder) : null;
}

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

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

function digestRecord(record: GeminiRecord): GeminiRecord<MessageDigest> {
  return { ...record, messages: record.messages.map(digestMessage) };
}

/**
 * The session's project folder (its cwd): the project folder's `.project_root` (0.3x on), else the workspace
 * folder Gemini CLI wrote into its session context, when its sha256 is the file's `projectHash` (older releases).
 */
async function projectRootOf(path: string, record: GeminiRecord<MessageDigest>): Promise<string | null> {
  try {
    const marker = (await readFile(join(projectDirOf(path), '.project_root'), 'utf8')).trim();
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

function livePath(group: SessionFileGroup): string {
  const path = group.paths.at(-1);
  if (path === undefined) throw new Error('a Gemini CLI session group has no file');
  return path;
}

function hasConversation(record: GeminiRecord<MessageDigest>): boolean {
  return record.sessionId !== null && record.messages.some((message) => message.prompt !== undefined);
}

function summarize(group: SessionFileGroup, record: GeminiRecord<MessageDigest>, size: number, mtimeMs: number, cwd: string | null): SessionSummary {
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
async function indexGemini(group: SessionFileGroup, context: AdapterContext, resume?: FoldResume): Promise<IndexedSession> {
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


/** The name a fork is written under, as Gemini CLI names a new session: `session-<minute, UTC>-<id8>.jsonl`. */
export function geminiSessionFileName(id: string, now: Date): string {
  return `session-${now.toISOString().slice(0, 16).replace(/:/g, '-')}-${id.slice(0, 8)}.jsonl`;
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
    const kept = record.messages.slice(0, cutBeforeTurn(record.messages, isGeminiUserTurn, request.atTurn));
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
};

/** The default gemini dir for a user home: `<home>/.gemini` (Gemini CLI's GEMINI_CLI_HOME stands for the home). */
export function geminiDirOf(home: string): string {
  return join(home, '.gemini');
}

/** The home a gemini dir belongs to (what GEMINI_CLI_HOME must be for Gemini CLI to use it), or null. */
export function geminiHomeOf(root: string): string | null {
  return basename(root) === '.gemini' ? dirname(root) : null;
}
