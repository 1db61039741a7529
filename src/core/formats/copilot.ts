import type { Dirent } from 'node:fs';
import { mkdir, rm, stat } from 'node:fs/promises';
import { walkFs } from '../io/walk-fs.js';
import { basename, dirname, join } from 'node:path';
import { checkForkTurn, errorCode } from '../errors.js';
import { UUID_PATTERN, uuidv4 } from '../ids.js';
import { createFileAtomic } from '../io/atomic.js';
import { clipRawLine, SUMMARY_CLIP_LIMITS, unmarkMessages, withPromptLines, type ClipLimits } from '../io/clip.js';
import { foldLines, indexReads, jsonObjects, newLineStats, readLines, type LineStats, type RawLine } from '../io/lines.js';
import { readRegularFile } from '../io/regular.js';
import { addUsage, promptOpening, type Block, type Message, type Session, type SessionSummary, type Usage } from '../model.js';
import { isoTimestamp } from '../time.js';
import { truncateBeforeUserTurn } from '../truncate.js';
import { reportSkippedLines } from './problems.js';
import { homeFolderRoots } from './roots.js';
import type { AdapterContext, FoldResume, ForkRequest, ForkResult, FormatAdapter, IndexedSession, ReadSessionOptions, ReportProblem, SessionFileGroup } from './types.js';
import { isRecord, type JsonObject } from '../json.js';

/*
 * GitHub Copilot CLI (verified with 1.0.102): one folder per session, `$COPILOT_HOME/session-state/<uuid>/`
 * (COPILOT_HOME defaults to ~/.copilot), holding
 * - `events.jsonl`: one event per line, `{"type", "data", "id", "timestamp", "parentId"}`, each event's parentId
 *   the id of the one before. `session.start` opens the file (data.sessionId, startTime, selectedModel,
 *   context.cwd/branch); every later run that resumes it appends `session.resume` (context.cwd) and its events, and
 *   `session.shutdown` when it exits. A prompt is `user.message` (data.content as typed; transformedContent is what
 *   the model got: `<current_datetime>…</current_datetime>` first); an answer `assistant.message` (content,
 *   toolRequests[], reasoningText, encryptedContent); a tool's end `tool.execution_complete` (toolCallId, success,
 *   result.content). `/compact` writes `session.compaction_complete` with the summary the model sees afterwards.
 * - `workspace.yaml`: id, cwd, name (Copilot names a session after its first prompt; user_named: true once the user
 *   renamed it), summary_count, fork_count, created_at, updated_at.
 * Copilot's own `/fork` writes a new folder: a new session.start (new sessionId), the parent's events, and a
 * `session.info` event (infoType "fork") saying `Forked from "<name>" (<parent id>) as "<name>" (<id>).`; it also
 * appends a note to the parent and counts the fork in the parent's workspace.yaml. Our fork does the same to the
 * new folder only: the original is never touched. `copilot --resume=<id>` appends to the same events.jsonl.
 */

const SESSION_STATE = 'session-state';
const EVENTS = 'events.jsonl';
const WORKSPACE = 'workspace.yaml';
const SESSION_FOLDER = new RegExp(`^${UUID_PATTERN.source}$`, 'i');

// ---------------------------------------------------------------------------------------------------------
// Files

/** Every session folder under `<root>/session-state/` that holds an events.jsonl, one group each. */
export async function discoverCopilot(root: string, report: ReportProblem): Promise<SessionFileGroup[]> {
  const state = join(root, SESSION_STATE);
  let entries: Dirent[];
  try {
    entries = await walkFs.readdir(state);
  } catch (error) {
    const code = errorCode(error);
    if (code === 'ENOENT' || code === 'ENOTDIR') return [];
    report({ path: state, message: `cannot read: ${code ?? String(error)}` });
    return [];
  }
  const groups: SessionFileGroup[] = [];
  for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    if (!entry.isDirectory() || !SESSION_FOLDER.test(entry.name)) continue;
    const folder = join(state, entry.name);
    const events = join(folder, EVENTS);
    if (!(await isFile(events))) continue;
    groups.push(makeGroup(root, folder, (await isFile(join(folder, WORKSPACE))) ? [join(folder, WORKSPACE), events] : [events]));
  }
  return groups;
}

/** The groups these paths belong to (events.jsonl or workspace.yaml of a session folder under `root`). */
export function groupCopilotFiles(root: string, paths: readonly string[]): SessionFileGroup[] {
  const folders = new Map<string, Set<string>>();
  const state = join(root, SESSION_STATE);
  for (const path of paths) {
    const name = basename(path);
    const folder = dirname(path);
    if ((name !== EVENTS && name !== WORKSPACE) || dirname(folder) !== state || !SESSION_FOLDER.test(basename(folder))) continue;
    const names = folders.get(folder) ?? new Set<string>();
    names.add(name);
    folders.set(folder, names);
  }
  const groups: SessionFileGroup[] = [];
  for (const [folder, names] of folders) {
    // A session is its events file: a workspace.yaml alone (being written first) is not one yet.
    if (!names.has(EVENTS)) continue;
    groups.push(makeGroup(root, folder, names.has(WORKSPACE) ? [join(folder, WORKSPACE), join(folder, EVENTS)] : [join(folder, EVENTS)]));
  }
  return groups;
}

function makeGroup(root: string, folder: string, paths: readonly string[]): SessionFileGroup {
  return { agent: 'copilot', paths, idHint: basename(folder).toLowerCase(), root, archived: false };
}

async function isFile(path: string): Promise<boolean> {
  try {
    return (await walkFs.stat(path)).isFile();
  } catch {
    return false;
  }
}

function eventsPath(group: SessionFileGroup): string {
  const path = group.paths.at(-1);
  if (path === undefined || basename(path) !== EVENTS) throw new Error('a Copilot session group has no events.jsonl');
  return path;
}

function workspacePath(group: SessionFileGroup): string | null {
  const path = group.paths.length > 1 ? group.paths[0]! : null;
  return path !== null && basename(path) === WORKSPACE ? path : null;
}

// ---------------------------------------------------------------------------------------------------------
// workspace.yaml (flat `key: value` lines; values plain, 'single' or "double" quoted)

export type Workspace = Readonly<Record<string, string>>;

export function parseWorkspaceYaml(text: string): Workspace {
  const out: Record<string, string> = {};
  for (const line of text.split(/\r?\n/)) {
    const match = /^([A-Za-z_][A-Za-z0-9_]*):(?:\s+(.*))?$/.exec(line);
    if (!match) continue;
    const raw = (match[2] ?? '').trim();
    out[match[1]!] = yamlScalar(raw);
  }
  return out;
}

function yamlScalar(raw: string): string {
  if (raw.startsWith('"') && raw.endsWith('"') && raw.length >= 2) {
    try {
      return String(JSON.parse(raw));
    } catch {
      return raw.slice(1, -1);
    }
  }
  if (raw.startsWith("'") && raw.endsWith("'") && raw.length >= 2) return raw.slice(1, -1).replace(/''/g, "'");
  // A plain scalar ends before a comment.
  return raw.replace(/\s+#.*$/, '');
}

/** A value as YAML: plain when that reads back the same, else double-quoted (JSON strings are valid YAML). */
function yamlValue(value: string): string {
  const plain = /^[^\s'"{}[\],&*#?|<>=!%@`-][^#]*$/.test(value) && !/:\s|:$|\s$/.test(value) && !/^(?:true|false|null|~|yes|no|on|off|[-+.\d][\d._:eE+-]*)$/i.test(value);
  return plain ? value : JSON.stringify(value);
}

async function readWorkspace(group: SessionFileGroup): Promise<Workspace | null> {
  const path = workspacePath(group);
  if (path === null) return null;
  try {
    return parseWorkspaceYaml((await readRegularFile(path)).toString('utf8'));
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return null;
    throw error;
  }
}

// ---------------------------------------------------------------------------------------------------------
// Events


/** The event types that make the transcript or the row; every other line is skipped by its opening bytes. */
const READ_TYPES = new Set([
  'session.start',
  'session.resume',
  'session.context_changed',
  'session.model_change',
  'session.info',
  'session.compaction_complete',
  'session.usage_record',
  'user.message',
  'assistant.message',
  'tool.execution_complete',
]);

/** Events that hold conversation text (a full-text search matches only in these). */
const CONVERSATION_TYPES = new Set(['user.message', 'assistant.message', 'tool.execution_start', 'tool.execution_complete', 'session.compaction_complete']);

const TYPE_OPENING = /^\{"type":"([a-z_.]+)"/;

function typeOf(bytes: Buffer): string | null {
  return TYPE_OPENING.exec(bytes.toString('latin1', 0, Math.min(bytes.length, 64)))?.[1] ?? null;
}

/** True for a line that is never conversation text: a search does not count a match in it (see FormatAdapter). */
export function isCopilotNonConversationLine(opening: string): boolean {
  const type = TYPE_OPENING.exec(opening)?.[1];
  if (type !== undefined) return !CONVERSATION_TYPES.has(type);
  // workspace.yaml: only the session's name is the user's words.
  return !opening.startsWith('{') && !opening.startsWith('name:');
}

/** A `user.message` the user typed: not one a skill, another agent or autopilot's continuation put there. */
function isTypedPrompt(data: JsonObject): boolean {
  if (data.isAutopilotContinuation === true) return false;
  const source = data.source;
  return source === undefined || source === null || source === 'user';
}

const FORKED_FROM = /^Forked from .* \(([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\) as .* \(([0-9a-f-]{36})\)\.$/is;

/** What the fold keeps: everything the row needs (plain data). */
interface Fold {
  sessionId: string | null;
  startTime: string | null;
  lastTime: string | null;
  cwd: string | null;
  branch: string | null;
  model: string | null;
  /** [parent, child] of every "Forked from" note, in file order. */
  forkNotes: [string, string][];
  prompts: string[];
  usage: Usage | null;
}

function newFold(): Fold {
  return { sessionId: null, startTime: null, lastTime: null, cwd: null, branch: null, model: null, forkNotes: [], prompts: [], usage: null };
}

function foldEvent(fold: Fold, type: string, event: JsonObject, messages: Message[] | null, source?: Message['source']): void {
  const data = isRecord(event.data) ? event.data : {};
  const time = isoTimestamp(event.timestamp);
  if (time !== null && (fold.lastTime === null || time > fold.lastTime)) fold.lastTime = time;
  switch (type) {
    case 'session.start': {
      if (fold.sessionId === null && typeof data.sessionId === 'string') fold.sessionId = data.sessionId;
      fold.startTime ??= isoTimestamp(data.startTime) ?? time;
      takeContext(fold, data.context, true);
      if (typeof data.selectedModel === 'string') fold.model = data.selectedModel;
      return;
    }
    case 'session.resume':
    case 'session.context_changed':
      // A resume records where it ran; the session's own folder is workspace.yaml's cwd (read after the fold).
      takeContext(fold, type === 'session.resume' ? data.context : data, false);
      if (typeof data.selectedModel === 'string') fold.model = data.selectedModel;
      return;
    case 'session.model_change':
      if (typeof data.newModel === 'string') fold.model = data.newModel;
      return;
    case 'session.info': {
      if (data.infoType !== 'fork' || typeof data.message !== 'string') return;
      const match = FORKED_FROM.exec(data.message);
      // "Forked from … (parent) as … (child)"; a fork of a fork holds its parent's note too: the one naming this
      // session wins (see summarize). The parent's own note ("Forked this session into …") names a child: skipped.
      if (match) fold.forkNotes.push([match[1]!.toLowerCase(), match[2]!.toLowerCase()]);
      return;
    }
    case 'session.usage_record': {
      const usage = isRecord(data.usage) ? data.usage : null;
      if (usage === null) return;
      fold.usage = addUsage(fold.usage, {
        input: numberOf(usage.inputTokens),
        output: numberOf(usage.outputTokens),
        cacheRead: numberOf(usage.cacheReadTokens),
        cacheWrite: numberOf(usage.cacheWriteTokens),
      });
      return;
    }
    case 'user.message': {
      const text = typeof data.content === 'string' ? data.content : '';
      const userTurn = isTypedPrompt(data);
      if (userTurn) fold.prompts.push(promptOpening(text));
      messages?.push({ role: 'user', blocks: [{ type: 'text', text }], userTurn, ...stamp(time), ...(source ? { source } : {}) });
      return;
    }
    case 'assistant.message': {
      if (typeof data.model === 'string') fold.model = data.model;
      if (messages === null) return;
      const blocks: Block[] = [];
      const reasoning = typeof data.reasoningText === 'string' ? data.reasoningText : '';
      const encrypted = typeof data.encryptedContent === 'string' && data.encryptedContent !== '';
      if (reasoning !== '' || encrypted) blocks.push({ type: 'reasoning', summary: reasoning, encrypted });
      if (typeof data.content === 'string' && data.content !== '') blocks.push({ type: 'text', text: data.content });
      for (const request of Array.isArray(data.toolRequests) ? data.toolRequests : []) {
        if (!isRecord(request)) continue;
        const input = typeof request.arguments === 'string' ? request.arguments : JSON.stringify(request.arguments ?? {});
        blocks.push({ type: 'tool_use', id: String(request.toolCallId ?? ''), name: String(request.name ?? ''), input });
      }
      if (blocks.length > 0) messages.push({ role: 'assistant', blocks, userTurn: false, ...stamp(time), ...(source ? { source } : {}) });
      return;
    }
    case 'tool.execution_complete': {
      if (messages === null) return;
      const result = isRecord(data.result) ? data.result : {};
      const error = isRecord(data.error) ? data.error : {};
      const output =
        typeof result.content === 'string' ? result.content : typeof error.message === 'string' ? error.message : typeof data.error === 'string' ? data.error : '';
      const block: Block = { type: 'tool_result', toolUseId: String(data.toolCallId ?? ''), output, isError: data.success === false };
      messages.push({ role: 'tool', blocks: [block], userTurn: false, ...stamp(time), ...(source ? { source } : {}) });
      return;
    }
    case 'session.compaction_complete': {
      if (messages === null || data.success === false) return;
      const summary = typeof data.summaryContent === 'string' ? data.summaryContent : '';
      messages.push({ role: 'system', blocks: [{ type: 'compaction', summary }], userTurn: false, ...stamp(time), ...(source ? { source } : {}) });
      return;
    }
    default:
      return;
  }
}

function takeContext(fold: Fold, context: unknown, first: boolean): void {
  if (!isRecord(context)) return;
  if (typeof context.cwd === 'string' && (first || fold.cwd === null)) fold.cwd = context.cwd;
  if (typeof context.branch === 'string') fold.branch = context.branch;
}

function stamp(time: string | null): { timestamp?: string } {
  return time === null ? {} : { timestamp: time };
}

function numberOf(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : 0;
}

interface EventsRead {
  readonly fold: Fold;
  readonly messages: Message[];
  readonly stats: LineStats;
  readonly size: number;
  readonly mtimeMs: number;
  /** Fingerprint of the file's first bytes (lines.ts headFingerprint). */
  readonly fingerprint: string;
  /** Offset just past the last complete line (where a later read of appended events starts). */
  readonly end: number;
  /** The fold as it was before the unterminated last line (if any) was read: what may be saved and gone on from. */
  readonly saved: Fold;
}

/**
 * One pass over events.jsonl from `start` (0, or where a saved `fold` stopped): the fold, and the messages when
 * asked for (with `clip`, long strings cut first).
 */
async function readEvents(path: string, withMessages: boolean, clip?: ClipLimits, start = 0, initial: Fold = newFold()): Promise<EventsRead> {
  const fold = initial;
  const messages: Message[] = [];
  const stats = newLineStats();
  const add = (line: RawLine): void => {
    // Every event ends with its timestamp and parentId: the last one is when the session was last written to.
    const time = tailTimestamp(line.bytes);
    if (time !== null && (fold.lastTime === null || time > fold.lastTime)) fold.lastTime = time;
    const type = typeOf(line.bytes);
    if (type === null) {
      // Not an event's opening: count it when it is not JSON at all.
      countMalformed(line, stats);
      return;
    }
    if (!READ_TYPES.has(type)) return;
    const read = clip === undefined ? line : clipRawLine(line, clip);
    for (const object of jsonObjects([read], stats)) foldEvent(fold, type, object.value, withMessages ? messages : null, { path, offset: line.offset });
  };
  const folded = await foldLines(path, start, add);
  const saved = structuredClone(fold);
  // An unterminated last line may be being written: it counts only when it is complete JSON already.
  if (folded.partial !== null && typeOf(folded.partial.bytes) !== null) {
    const parsed = [...jsonObjects([folded.partial], newLineStats())];
    if (parsed.length > 0) add(folded.partial);
  }
  return { fold, messages, stats, size: folded.size, mtimeMs: folded.mtimeMs, fingerprint: folded.fingerprint, end: folded.end, saved };
}

/** A saved fold read back from the cache (plain JSON): checked field by field, else null (the file is read whole). */
function importFold(state: unknown): Fold | null {
  if (!isRecord(state)) return null;
  const text = (value: unknown): value is string | null => value === null || typeof value === 'string';
  const { sessionId, startTime, lastTime, cwd, branch, model, forkNotes, prompts, usage } = state;
  if (![sessionId, startTime, lastTime, cwd, branch, model].every(text)) return null;
  if (!Array.isArray(prompts) || !prompts.every((p) => typeof p === 'string')) return null;
  if (!Array.isArray(forkNotes) || !forkNotes.every((n) => Array.isArray(n) && n.length === 2 && n.every((v) => typeof v === 'string'))) return null;
  const usageOk = usage === null || (isRecord(usage) && ['input', 'output', 'cacheRead', 'cacheWrite'].every((k) => typeof usage[k] === 'number'));
  if (!usageOk) return null;
  return structuredClone(state) as unknown as Fold;
}

const TIMESTAMP_KEY = Buffer.from('"timestamp":"', 'latin1');

/** The `timestamp` near the end of an event's line (its own; a nested one comes before it), read without parsing. */
function tailTimestamp(bytes: Buffer): string | null {
  const from = Math.max(0, bytes.length - 160);
  const at = bytes.subarray(from).lastIndexOf(TIMESTAMP_KEY);
  if (at === -1) return null;
  const start = from + at + TIMESTAMP_KEY.length;
  const end = bytes.indexOf(0x22, start);
  return end === -1 || end - start > 40 ? null : isoTimestamp(bytes.toString('latin1', start, end));
}

function countMalformed(line: RawLine, stats: LineStats): void {
  for (const object of jsonObjects([line], stats)) void object;
}

const USER_MESSAGE = Buffer.from('{"type":"user.message"', 'latin1');

function isPromptLine(bytes: Buffer): boolean {
  return bytes.subarray(0, USER_MESSAGE.length).equals(USER_MESSAGE);
}

async function summarize(group: SessionFileGroup, fold: Fold, size: number, mtimeMs: number, workspace: Workspace | null): Promise<SessionSummary> {
  const events = eventsPath(group);
  let totalSize = size;
  let newest = mtimeMs;
  const yaml = workspacePath(group);
  if (yaml !== null) {
    try {
      const info = await stat(yaml);
      totalSize += info.size;
      newest = Math.max(newest, info.mtimeMs);
    } catch {
      // removed meanwhile: the row is the events'
    }
  }
  const id = (fold.sessionId ?? workspace?.id ?? group.idHint ?? basename(dirname(events))).toLowerCase();
  const forkParent = (fold.forkNotes.find(([, child]) => child === id) ?? fold.forkNotes.at(-1))?.[0] ?? null;
  const userNamed = workspace?.user_named === 'true';
  const agentName = workspace?.name?.trim() || null;
  const name = userNamed ? agentName : null;
  const firstPrompt = fold.prompts[0] ?? null;
  const createdAt = isoTimestamp(workspace?.created_at) ?? fold.startTime ?? new Date(newest).toISOString();
  const updated = [fold.lastTime, isoTimestamp(workspace?.updated_at)].filter((t): t is string => t !== null).sort().at(-1) ?? createdAt;
  return {
    id,
    agent: 'copilot',
    path: events,
    paths: group.paths,
    cwd: workspace?.cwd || fold.cwd,
    title: name ?? agentName ?? (firstPrompt || '(no prompt)'),
    firstPrompt,
    lastPrompt: fold.prompts.at(-1) ?? null,
    name,
    userTurns: fold.prompts.length,
    userTurnsExact: true,
    prompts: fold.prompts,
    createdAt,
    updatedAt: updated > createdAt ? updated : createdAt,
    forkedFrom: forkParent,
    fork: forkParent === null ? null : { id: forkParent },
    gitBranch: workspace?.branch || fold.branch,
    model: fold.model,
    archived: false,
    usage: fold.usage,
    size: totalSize,
    mtimeMs: newest,
  };
}

/**
 * The row, from one pass over every event (long strings clipped: the row needs openings only); with `resume` (a
 * fold of the same events file saved earlier, which only grew), only the appended events are read.
 */
async function indexCopilot(group: SessionFileGroup, context: AdapterContext, resume?: FoldResume): Promise<IndexedSession> {
  const events = eventsPath(group);
  const before = indexReads.bytes;
  const resumed = resume !== undefined && resume.path === events ? importFold(resume.state) : null;
  const start = resumed === null ? 0 : resume!.offset;
  const read = await readEvents(events, false, withPromptLines(SUMMARY_CLIP_LIMITS, isPromptLine), start, resumed ?? newFold());
  const { fold, stats, size, mtimeMs, fingerprint } = read;
  const saved = size >= (context.saveFoldFrom ?? Number.POSITIVE_INFINITY) ? { resume: { path: events, offset: read.end, state: read.saved } } : {};
  const listed = fold.sessionId !== null || fold.prompts.length > 0;
  reportSkippedLines(context.report, events, stats, listed);
  if (!listed) return { summary: null, fingerprint, bytesRead: indexReads.bytes - before, ...saved };
  const summary = await summarize(group, fold, size, mtimeMs, await readWorkspace(group));
  return { summary, fingerprint, bytesRead: indexReads.bytes - before, ...saved };
}

export async function readCopilotSummary(group: SessionFileGroup, context: AdapterContext): Promise<SessionSummary | null> {
  return (await indexCopilot(group, context)).summary;
}

/** The whole transcript: prompts, answers (with reasoning), tool calls and results, compaction markers. */
export async function readCopilotSession(group: SessionFileGroup, _context?: AdapterContext, options: ReadSessionOptions = {}): Promise<Session> {
  const events = eventsPath(group);
  const { fold, messages, stats, size, mtimeMs } = await readEvents(events, true, withPromptLines(options.clip, isPromptLine));
  const summary = await summarize(group, fold, size, mtimeMs, await readWorkspace(group));
  return { ...summary, messages: options.clip === undefined ? messages : unmarkMessages(messages), malformedLines: stats.malformed };
}

// ---------------------------------------------------------------------------------------------------------
// Fork

interface KeptEvent {
  readonly userTurn: boolean;
  readonly bytes: Buffer;
  readonly id: string | null;
}

/**
 * A new session folder `<root>/session-state/<new uuid>/` holding user turns 1..atTurn-1: Copilot's own fork
 * layout (a new session.start with the new id, the parent's events byte for byte up to the cut, a `session.info`
 * fork note naming the parent) and a workspace.yaml. The parent's folder is not touched.
 */
export async function forkCopilot(group: SessionFileGroup, request: ForkRequest, _context?: AdapterContext): Promise<ForkResult> {
  const events = eventsPath(group);
  const workspace = await readWorkspace(group);
  const stats = newLineStats();
  const kept: KeptEvent[] = [];
  let start: JsonObject | null = null;
  let parentId: string | null = null;
  let userTurns = 0;
  for await (const line of readLines(events)) {
    if (!line.terminated) continue; // being written: not part of the conversation yet
    const type = typeOf(line.bytes);
    for (const object of jsonObjects([line], stats)) {
      if (type === 'session.start' && start === null) {
        start = object.value;
        const data = isRecord(start.data) ? start.data : {};
        parentId = typeof data.sessionId === 'string' ? data.sessionId.toLowerCase() : null;
        continue;
      }
      const userTurn = type === 'user.message' && isRecord(object.value.data) && isTypedPrompt(object.value.data);
      if (userTurn) userTurns++;
      kept.push({ userTurn, bytes: Buffer.from(line.bytes), id: typeof object.value.id === 'string' ? object.value.id : null });
    }
  }
  if (start === null || parentId === null) throw new Error(`${events}: no session.start event, so it cannot be forked`);
  checkForkTurn(request.atTurn, userTurns);
  const history = truncateBeforeUserTurn(kept, request.atTurn - 1);
  const keep = history.kind === 'forked' ? history.history : [];

  const now = (request.now ?? new Date()).toISOString();
  const id = uuidv4();
  const state = dirname(dirname(events));
  const folder = join(state, id);
  const parentName = workspace?.name?.trim() || promptOpening(firstPromptOf(kept) ?? '', 80) || parentId;
  const branchName = request.branchName?.trim() || null;
  const name = branchName ?? `${parentName} (fork)`;

  const startData = isRecord(start.data) ? { ...start.data } : {};
  startData.sessionId = id;
  startData.startTime = now;
  delete startData.remoteSteerable;
  const header = { ...start, data: startData, timestamp: now };
  const lastId = keep.at(-1)?.id ?? (typeof start.id === 'string' ? start.id : null);
  const note = {
    type: 'session.info',
    data: { infoType: 'fork', message: `Forked from ${JSON.stringify(parentName)} (${parentId}) as ${JSON.stringify(name)} (${id}).` },
    id: uuidv4(),
    timestamp: now,
    parentId: lastId,
  };
  const chunks: Buffer[] = [Buffer.from(`${JSON.stringify(header)}\n`, 'utf8')];
  for (const event of keep) chunks.push(event.bytes, NEWLINE);
  chunks.push(Buffer.from(`${JSON.stringify(note)}\n`, 'utf8'));

  const cwd = workspace?.cwd || cwdOf(start);
  const path = await writeCopilotSession(folder, chunks, { id, cwd, name, userNamed: branchName !== null, clientName: workspace?.client_name ?? null, createdAt: now });
  return { agent: 'copilot', id, path, parentId, keptUserTurns: request.atTurn - 1 };
}

/** The folder of session `id` under a Copilot home. */
export function copilotSessionFolder(root: string, id: string): string {
  return join(root, SESSION_STATE, id);
}

export interface CopilotWorkspace {
  readonly id: string;
  readonly cwd: string | null;
  /** The session's name (null: none, Copilot then names it after its first prompt). */
  readonly name: string | null;
  /** A name the user chose (`user_named: true`), not one Copilot made. */
  readonly userNamed?: boolean;
  readonly clientName?: string | null;
  readonly createdAt: string;
}

/**
 * Write a new session folder: `events.jsonl` (buffers as they are, or records one per line) and `workspace.yaml`.
 * The folder must not exist (a new id is never someone else's session); nothing is left behind on failure.
 */
export async function writeCopilotSession(folder: string, events: readonly Buffer[] | readonly Record<string, unknown>[], workspace: CopilotWorkspace): Promise<string> {
  const chunks = events.map((event) => (Buffer.isBuffer(event) ? event : Buffer.from(`${JSON.stringify(event)}\n`, 'utf8')));
  const yaml = [
    `id: ${workspace.id}`,
    ...(workspace.cwd ? [`cwd: ${yamlValue(workspace.cwd)}`] : []),
    ...(workspace.clientName ? [`client_name: ${yamlValue(workspace.clientName)}`] : []),
    ...(workspace.name !== null ? [`name: ${yamlValue(workspace.name)}`] : []),
    `user_named: ${workspace.userNamed === true}`,
    'summary_count: 0',
    'fork_count: 0',
    `created_at: ${workspace.createdAt}`,
    `updated_at: ${workspace.createdAt}`,
    '',
  ].join('\n');
  await mkdir(dirname(folder), { recursive: true, mode: 0o700 });
  // mkdir without `recursive` fails when the folder exists.
  await mkdir(folder, { mode: 0o700 });
  try {
    await createFileAtomic(join(folder, EVENTS), chunks);
    await createFileAtomic(join(folder, WORKSPACE), yaml);
  } catch (error) {
    await rm(folder, { recursive: true, force: true });
    throw error;
  }
  return join(folder, EVENTS);
}

const NEWLINE = Buffer.from('\n');

function firstPromptOf(kept: readonly KeptEvent[]): string | null {
  for (const event of kept) {
    if (!event.userTurn) continue;
    try {
      const data = (JSON.parse(event.bytes.toString('utf8')) as { data?: { content?: unknown } }).data;
      if (typeof data?.content === 'string') return data.content;
    } catch {
      return null;
    }
  }
  return null;
}

function cwdOf(start: JsonObject): string | null {
  const data = isRecord(start.data) ? start.data : {};
  return isRecord(data.context) && typeof data.context.cwd === 'string' ? data.context.cwd : null;
}

export const copilotAdapter: FormatAdapter = {
  agent: 'copilot',
  label: 'GitHub Copilot CLI',
  locations: {
    flag: '--copilot-home <dir>',
    flagHelp: 'a GitHub Copilot CLI home (repeatable; default $COPILOT_HOME or ~/.copilot)',
    homeFolder: '.copilot',
    defaultRoots: (environment) => homeFolderRoots('.copilot', 'COPILOT_HOME', environment),
    readme: {
      where: '`$COPILOT_HOME/session-state/<id>/events.jsonl` and `workspace.yaml` (default `~/.copilot`)',
      options: '`--copilot-home DIR` (repeatable), `--home DIR` (= `DIR/.copilot`)',
    },
    describeRoot: (dir) => `${dir}/session-state (GitHub Copilot CLI)`,
  },
  // ~/.copilot/session-state/<uuid>/{events.jsonl,workspace.yaml}: a session's name changes in workspace.yaml.
  watch: {
    roots: 'configured',
    depth: 2,
    wanted: (parts) => parts[0] === SESSION_STATE && (parts.length < 2 || SESSION_FOLDER.test(parts[1]!)),
    fileSuffixes: [EVENTS, WORKSPACE],
  },
  mirror: {
    variables: ['COPILOT_HOME'],
    filter: [`+ ${SESSION_STATE}/`, `+ ${SESSION_STATE}/*/`, `+ ${SESSION_STATE}/*/${EVENTS}`, `+ ${SESSION_STATE}/*/${WORKSPACE}`],
  },
  resume: {
    // `--resume=<id>`: the `=` keeps an id from ever being read as an option. Interactive Copilot takes no prompt
    // beside --resume (its `-i PROMPT` starts a new session).
    interactive: ['copilot', '{args}', '--resume={id}'],
    exec: ['copilot', '{args}', '--resume={id}', '-p', '{prompt}'],
    homeEnvironment: (root) => ({ COPILOT_HOME: root }),
  },
  idShape: { pattern: new RegExp(`^${UUID_PATTERN.source}$`, 'i'), description: 'a UUID' },
  forkTarget: 'a new session folder beside the original: session-state/<new id>/events.jsonl and workspace.yaml',
  discover: discoverCopilot,
  groupFiles: groupCopilotFiles,
  readSummary: readCopilotSummary,
  indexSession: indexCopilot,
  readSession: readCopilotSession,
  fork: forkCopilot,
  isNonConversationLine: isCopilotNonConversationLine,
};
