import type { Dirent } from 'node:fs';
import { readdir, realpath, stat, unlink } from 'node:fs/promises';
import { basename, join, relative, sep } from 'node:path';
import { checkForkTurn, describeError, errorCode, errorMessage, isRecord, UnsupportedForkError } from '../errors.js';
import { UUID_EXACT, UUID_PATTERN, uuidv7 } from '../ids.js';
import { appendLines, checkAppendable, createFileAtomic, WriteCheckError } from '../io/atomic.js';
import { readRegularFile } from '../io/regular.js';
import { clipJsonStrings, clipRawLine, SUMMARY_CLIP_LIMITS, PARTIAL_AFTER_BYTES, PARTIAL_AFTER_LINES, unmarkMessages, withPromptLines, type ClipLimits } from '../io/clip.js';
import { codexUserPromptText, isImageTag, isReviewResult, promptTextOf, REVIEW_MODE_EVENTS, reviewModeChange, subagentSourceOf, parseTypeScriptRolloutName, type SubagentSource } from './codex-rules.js';
import { reportSkippedLines } from './problems.js';
import { foldLines, indexReads, jsonObjects, newLineStats, parseJsonLine, readLines, splitLines, type LineStats, type RawLine } from '../io/lines.js';
import { imageFromUrl, promptOpening, type Block, type Message, type Role, type Session, type SessionSummary, type Usage } from '../model.js';
import { isoTimestamp } from '../time.js';
import { truncateBeforeUserTurn } from '../truncate.js';
import { homeFolderRoots } from './roots.js';
import type { AdapterContext, FoldResume, ForkRequest, ForkResult, FormatAdapter, IndexedSession, ReadSessionOptions, ReportProblem, SessionFileGroup } from './types.js';

/*
 * OpenAI Codex CLI rollouts: `$CODEX_HOME/sessions/YYYY/MM/DD/rollout-<local ts>-<uuid>[_<segment>].jsonl`
 * and `$CODEX_HOME/archived_sessions/`. Modern lines are `{timestamp, type, payload}` (0.16x adds `ordinal`);
 * legacy files (before Sept 2025) start with `{id, timestamp, instructions}` followed by bare response items
 * and `{"record_type":"state"}` lines. Paginated forks (0.16x) hold only their own lines and point into the
 * parent's file with `session_meta.history_base`.
 */

// ---------------------------------------------------------------------------------------------------------
// Prompt text

/**
 * Openings of user-role messages that Codex injects as context rather than the user typing them (the
 * release-dependent `contextual_user_message` fragments, older `<user_instructions>`, and the compaction
 * bridge). Matched case-insensitively after leading whitespace, as Codex does.
 */
const INJECTED_OPENINGS: readonly string[] = [
  '<environment_context>',
  '<user_instructions>',
  '# agents.md instructions for',
  '<skills_instructions>',
  '<skill>',
  '<permissions instructions>',
  '<user_shell_command>',
  '<turn_aborted>',
  '<subagent_notification>',
  '<subagents>',
  '<plugins>',
  '<tool_context>',
  '<reasoning_context>',
  '<pinned_notes>',
  '<context_update>',
  '<collaboration_mode>',
  '<apps_instructions>',
  '<environments_instructions>',
  'another language model started to solve this problem',
];

/** True when a user-role text is context Codex injected (environment, AGENTS.md, skills, …), not a prompt. */
export function isInjectedContext(text: string): boolean {
  const opening = text.trimStart().slice(0, 64).toLowerCase();
  return INJECTED_OPENINGS.some((marker) => opening.startsWith(marker));
}

export { codexUserPromptText };

/** Records that hold no conversation: headers (base instructions), turn contexts, developer-role messages. */
const NOT_CONVERSATION_RECORD = /^\{[^{]*"type"\s*:\s*"(?:session_meta|turn_context)"|"role"\s*:\s*"developer"|^\{"id"\s*:\s*"[^"]*"\s*,\s*"timestamp"\s*:\s*"[^"]*"\s*,\s*"instructions"/;
/** The first text of a user-role message, as its line opens (JSON-escaped). */
const USER_TEXT_OPENING = /"role"\s*:\s*"user"\s*,\s*"content"\s*:\s*\[\s*\{\s*"type"\s*:\s*"input_text"\s*,\s*"text"\s*:\s*"((?:[^"\\]|\\.){0,80})/;

/**
 * True for a line that is never conversation text, judged by its opening: a full-text search does not count a
 * match inside it (every rollout's header carries the same instructions; AGENTS.md and environment blocks are
 * injected as user messages).
 */
export function isCodexNonConversationLine(opening: string): boolean {
  if (NOT_CONVERSATION_RECORD.test(opening)) return true;
  const text = USER_TEXT_OPENING.exec(opening)?.[1];
  return text !== undefined && isInjectedContext(text.replace(/\\n/g, '\n').replace(/\\"/g, '"'));
}

// ---------------------------------------------------------------------------------------------------------
// Names

/** Thread names from `<root>/session_index.jsonl` (`{id, thread_name, updated_at}`), newest `updated_at` wins. */
export async function readCodexNames(root: string): Promise<Map<string, string>> {
  let data: Buffer;
  try {
    data = await readRegularFile(join(root, 'session_index.jsonl'));
  } catch (error) {
    if (errorCode(error) === 'ENOENT' || errorCode(error) === 'ENOTDIR') return new Map();
    throw error;
  }
  const newest = new Map<string, { readonly at: number; readonly name: string | null }>();
  const stats = newLineStats();
  for (const { value } of jsonObjects(splitLines(data), stats)) {
    const id = stringField(value, 'id');
    if (!id) continue;
    const raw = value.thread_name;
    const name = typeof raw === 'string' && raw.trim() !== '' ? raw : null;
    const at = timeOf(value.updated_at) ?? Number.NEGATIVE_INFINITY;
    const previous = newest.get(id);
    // Equal times: the later line was written later.
    if (!previous || at >= previous.at) newest.set(id, { at, name });
  }
  const names = new Map<string, string>();
  for (const [id, entry] of newest) if (entry.name !== null) names.set(id, entry.name);
  return names;
}

// ---------------------------------------------------------------------------------------------------------
// Discovery

const ROLLOUT_NAME =
  /^rollout-(\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2})-([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})(?:_(.+))?\.jsonl$/i;

export interface RolloutName {
  /** The local time in the name, as written (`YYYY-MM-DDTHH-MM-SS`). */
  readonly timestamp: string;
  readonly threadId: string;
  /** The `_<segment>` suffix of resume/revert segment files, or null for a thread's first file. */
  readonly segment: string | null;
}

/** Parse `rollout-<ts>-<uuid>[_<segment>].jsonl`; null for other names. */
export function parseRolloutName(name: string): RolloutName | null {
  const match = ROLLOUT_NAME.exec(name);
  if (!match) return null;
  return { timestamp: match[1]!, threadId: match[2]!.toLowerCase(), segment: match[3] ?? null };
}

interface FoundFile {
  readonly path: string;
  readonly name: string;
  readonly archived: boolean;
  readonly parsed: RolloutName | null;
}

function isRolloutFile(name: string): boolean {
  return name.startsWith('rollout-') && (name.endsWith('.jsonl') || isTypeScriptRollout(name));
}

function isTypeScriptRollout(path: string): boolean {
  return parseTypeScriptRolloutName(basename(path)) !== null;
}

/** The thread a rollout's name says, for both the Rust CLI's names and the TypeScript CLI's `rollout-<date>-<id>.json`. */
function rolloutNameOf(name: string): RolloutName | null {
  const legacy = parseRolloutName(name) ? null : parseTypeScriptRolloutName(name);
  return legacy ? { timestamp: legacy.date, threadId: legacy.id, segment: null } : parseRolloutName(name);
}

async function walkRollouts(
  dir: string,
  archived: boolean,
  report: ReportProblem,
  out: FoundFile[],
  visited: Set<string>,
  top: boolean,
): Promise<void> {
  let entries: Dirent[];
  try {
    // Symlinked directories could loop; a real path is walked once.
    const real = await realpath(dir);
    if (visited.has(real)) return;
    visited.add(real);
    entries = await readdir(dir, { withFileTypes: true });
  } catch (error) {
    const code = errorCode(error);
    // A missing sessions/ folder is normal; a folder that vanished mid-scan is not a problem either.
    if (code === 'ENOENT' || (code === 'ENOTDIR' && !top)) return;
    report({ path: dir, message: `cannot read directory: ${errorMessage(error)}` });
    return;
  }
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const entry of entries) {
    const path = join(dir, entry.name);
    let isDirectory = entry.isDirectory();
    let isFile = entry.isFile();
    if (entry.isSymbolicLink()) {
      try {
        const target = await stat(path);
        isDirectory = target.isDirectory();
        isFile = target.isFile();
      } catch {
        continue; // dangling link
      }
    }
    if (isDirectory) await walkRollouts(path, archived, report, out, visited, false);
    else if (isFile && isRolloutFile(entry.name)) {
      out.push({ path, name: entry.name, archived, parsed: rolloutNameOf(entry.name) });
    }
  }
}

/** Oldest first: by the name's time, a thread's first file before its segments, archived copies before live ones. */
function compareFiles(a: FoundFile, b: FoundFile): number {
  const at = a.parsed?.timestamp ?? '';
  const bt = b.parsed?.timestamp ?? '';
  if (at !== bt) return at < bt ? -1 : 1;
  const as = a.parsed?.segment ?? null;
  const bs = b.parsed?.segment ?? null;
  if (as !== bs) {
    if (as === null) return -1;
    if (bs === null) return 1;
    const bySegment = as.localeCompare(bs, 'en', { numeric: true });
    if (bySegment !== 0) return bySegment;
  }
  if (a.archived !== b.archived) return a.archived ? -1 : 1;
  return a.path < b.path ? -1 : a.path > b.path ? 1 : 0;
}

async function discoverCodex(root: string, report: ReportProblem): Promise<SessionFileGroup[]> {
  const found: FoundFile[] = [];
  const visited = new Set<string>();
  await walkRollouts(join(root, 'sessions'), false, report, found, visited, true);
  await walkRollouts(join(root, 'archived_sessions'), true, report, found, visited, true);
  return groupFound(root, found);
}

/** Rollout files under `root` grouped by thread, without walking the folders. */
function groupCodexFiles(root: string, paths: readonly string[]): SessionFileGroup[] {
  const found: FoundFile[] = [];
  for (const path of paths) {
    const rel = relative(root, path).split(sep);
    const name = basename(path);
    if ((rel[0] !== 'sessions' && rel[0] !== 'archived_sessions') || !isRolloutFile(name)) continue;
    found.push({ path, name, archived: rel[0] === 'archived_sessions', parsed: rolloutNameOf(name) });
  }
  return groupFound(root, found);
}

function groupFound(root: string, found: readonly FoundFile[]): SessionFileGroup[] {
  const byThread = new Map<string, FoundFile[]>();
  for (const file of found) {
    const key = file.parsed ? `thread:${file.parsed.threadId}` : `path:${file.path}`;
    const list = byThread.get(key);
    if (list) list.push(file);
    else byThread.set(key, [file]);
  }
  const groups: SessionFileGroup[] = [];
  for (const files of byThread.values()) {
    files.sort(compareFiles);
    const first = files[0]!;
    const last = files[files.length - 1]!;
    const idHint = first.parsed?.threadId ?? UUID_PATTERN.exec(first.name)?.[0]?.toLowerCase() ?? null;
    groups.push({ agent: 'codex', paths: files.map((f) => f.path), idHint, root, archived: last.archived });
  }
  return groups;
}

// ---------------------------------------------------------------------------------------------------------
// Lines

const MODERN_TYPES = new Set([
  'session_meta',
  'response_item',
  'event_msg',
  'turn_context',
  'compacted',
  'world_state',
  'token_usage_record',
]);

type LineKind = 'header' | 'item' | 'event' | 'turn_context' | 'compacted' | 'world_state' | 'state' | 'other';

const MODERN_KINDS: Readonly<Record<string, LineKind>> = {
  session_meta: 'header',
  response_item: 'item',
  event_msg: 'event',
  turn_context: 'turn_context',
  compacted: 'compacted',
  world_state: 'world_state',
};

/** One parsed line of a rollout, with where it came from (forks copy `bytes` verbatim). */
interface CodexLine {
  readonly path: string;
  readonly offset: number;
  readonly bytes: Buffer;
  readonly kind: LineKind;
  /** `payload.type` for items and events. */
  readonly type: string;
  readonly payload: Record<string, unknown>;
  readonly timestamp: string | undefined;
  readonly ordinal: number | undefined;
  /** From another thread's file (a paginated fork's parent). */
  fromBase: boolean;
  /** A real user prompt that is still active (a rollback clears it). */
  userTurn: boolean;
}

function classify(path: string, offset: number, bytes: Buffer, value: Record<string, unknown>, firstInFile: boolean): CodexLine {
  let kind: LineKind = 'other';
  let payload: Record<string, unknown> = value;
  const type = value.type;
  if (typeof type === 'string' && isRecord(value.payload) && MODERN_TYPES.has(type)) {
    payload = value.payload;
    kind = MODERN_KINDS[type] ?? 'other';
  } else if ('record_type' in value) {
    kind = 'state';
  } else if (firstInFile && typeof value.id === 'string' && 'timestamp' in value && type === undefined) {
    kind = 'header'; // legacy first line {id, timestamp, instructions, git?}
  } else if (typeof type === 'string') {
    kind = 'item'; // legacy bare response item
  }
  const timestamp = typeof value.timestamp === 'string' ? value.timestamp : undefined;
  const ordinal = typeof value.ordinal === 'number' && Number.isInteger(value.ordinal) ? value.ordinal : undefined;
  const line: CodexLine = {
    path,
    offset,
    bytes,
    kind,
    type: typeof payload.type === 'string' ? payload.type : '',
    payload,
    timestamp,
    ordinal,
    fromBase: false,
    userTurn: false,
  };
  line.userTurn = isUserPromptItem(line);
  return line;
}

function isUserPromptItem(line: CodexLine): boolean {
  if (line.kind !== 'item' || line.type !== 'message' || line.payload.role !== 'user') return false;
  const parts = contentParts(line.payload.content);
  // Codex treats a message as context when any of its text parts is a context fragment; a review's result
  // (`<user_action>`) is Codex's own message too.
  return !parts.some((part) => part.kind === 'text' && (isInjectedContext(part.text) || isReviewResult(part.text)));
}

interface ContentPart {
  readonly kind: 'text' | 'image';
  readonly text: string;
  /** An image's `image_url` (a `data:` URL for pasted and attached images). */
  readonly url?: string;
}

function contentParts(content: unknown): ContentPart[] {
  if (typeof content === 'string') return [{ kind: 'text', text: content }];
  if (!Array.isArray(content)) return [];
  const parts: ContentPart[] = [];
  for (const item of content) {
    if (typeof item === 'string') parts.push({ kind: 'text', text: item });
    else if (isRecord(item)) {
      if (typeof item.text === 'string') parts.push({ kind: 'text', text: item.text });
      else if (typeof item.refusal === 'string') parts.push({ kind: 'text', text: item.refusal });
      else if (item.type === 'input_image' || item.type === 'image') parts.push({ kind: 'image', text: '[image]', ...(typeof item.image_url === 'string' ? { url: item.image_url } : {}) });
    }
  }
  return parts;
}

function messageTextOf(payload: Record<string, unknown>): string {
  const parts = contentParts(payload.content);
  const texts = parts.filter((p) => p.kind === 'text').map((p) => p.text);
  // An image-only prompt is still a prompt; give it something to show.
  return texts.length > 0 ? texts.join('\n') : parts.map((p) => p.text).join(' ');
}

interface HistoryBase {
  readonly threadId: string;
  readonly endOrdinalExclusive: number | undefined;
  readonly endByteOffset: number | undefined;
}

interface Header {
  readonly line: CodexLine;
  readonly id: string | null;
  readonly timestamp: string | undefined;
  readonly cwd: string | null;
  readonly forkedFromId: string | null;
  readonly historyBase: HistoryBase | null;
  readonly gitBranch: string | null;
  readonly subagent: SubagentSource | null;
}

function headerOf(line: CodexLine): Header {
  const p = line.payload;
  const base = isRecord(p.history_base) ? p.history_base : null;
  const baseThread = base ? stringField(base, 'thread_id') : null;
  const git = isRecord(p.git) ? p.git : null;
  return {
    line,
    id: stringField(p, 'id'),
    timestamp: stringField(p, 'timestamp') ?? line.timestamp,
    cwd: stringField(p, 'cwd'),
    forkedFromId: stringField(p, 'forked_from_id'),
    historyBase:
      base && baseThread
        ? {
            threadId: baseThread,
            endOrdinalExclusive: nonNegativeInteger(base.end_ordinal_exclusive),
            endByteOffset: nonNegativeInteger(base.end_byte_offset),
          }
        : null,
    gitBranch: git ? stringField(git, 'branch') : null,
    subagent: subagentSourceOf(p),
  };
}

// ---------------------------------------------------------------------------------------------------------
// Collecting a conversation's lines across segments and paginated parents

type ReadMode = 'full' | 'summary';

interface PathRead {
  readonly lines: CodexLine[];
  /** Every line up to `end` (or the file's end) was seen. */
  readonly exact: boolean;
  readonly size: number;
  readonly mtimeMs: number;
}

/** Called once with the lines read so far, early in a long read (a display shows them while the rest is read). */
type OnStart = (lines: readonly CodexLine[]) => void;

async function readPath(path: string, mode: ReadMode, stats: LineStats, end?: number, clip?: ClipLimits, onStart?: OnStart): Promise<PathRead> {
  if (isTypeScriptRollout(path)) return readTypeScriptRollout(path, stats);
  if (mode === 'summary') return readPathSkimmed(path, stats, end);
  if (clip !== undefined || onStart !== undefined) return readPathStreamed(path, stats, end, clip, onStart);
  const info = await stat(path);
  const raw: RawLine[] = [];
  for await (const line of readLines(path, end === undefined ? {} : { end: Math.min(end, info.size) })) raw.push(line);
  return { lines: parseLines(path, raw, stats), exact: true, size: info.size, mtimeMs: info.mtimeMs };
}

/**
 * A TypeScript-era rollout: one (pretty-printed) JSON object `{session: {id, timestamp, instructions, …}, items}`
 * whose items are Responses API items, like the legacy Rust files' bare items. Read whole (the CLI rewrote the
 * file whole on every save); the session object stands for the header line. Its lines have no offsets of
 * their own: every one is at 0, and such a file is never forked (forkCodex).
 */
async function readTypeScriptRollout(path: string, stats: LineStats): Promise<PathRead> {
  const data = await readRegularFile(path);
  const info = await stat(path);
  const lines: CodexLine[] = [];
  const value = parseJsonLine(data);
  if (!isRecord(value) || !isRecord(value.session) || !Array.isArray(value.items)) {
    stats.malformed++;
    return { lines, exact: true, size: info.size, mtimeMs: info.mtimeMs };
  }
  const { instructions: _instructions, ...session } = value.session;
  lines.push(classify(path, 0, Buffer.from(JSON.stringify(value.session)), session, true));
  for (const item of value.items) {
    if (isRecord(item)) lines.push(classify(path, 0, Buffer.from(JSON.stringify(item)), item, false));
  }
  return { lines, exact: true, size: info.size, mtimeMs: info.mtimeMs };
}

/**
 * Every line, parsed as it is read (and clipped first, for display: then the file's bytes are never held all
 * at once); `onStart` gets the first lines early.
 */
async function readPathStreamed(path: string, stats: LineStats, end: number | undefined, clip: ClipLimits | undefined, onStart: OnStart | undefined): Promise<PathRead> {
  const info = await stat(path);
  const lines: CodexLine[] = [];
  // Clipped lines are copies: the chunk buffer can be reused.
  const options = { ...(end === undefined ? {} : { end: Math.min(end, info.size) }), reuseChunk: clip !== undefined };
  for await (const line of readLines(path, options)) {
    // One line at a time: parseLines's only cross-line state (the legacy header) is the line at offset 0.
    // A user message is read whole, as a summary reads it: an IDE prompt's request is at its end.
    const clipped = clip === undefined || isUserMessageLine(line) ? line : clipRawLine(line, clip);
    for (const parsed of parseLines(path, [clipped], stats)) {
      lines.push(clip !== undefined && !digestReads(parsed) ? { ...parsed, payload: {} } : parsed);
    }
    if (onStart !== undefined && (lines.length >= PARTIAL_AFTER_LINES || line.offset >= PARTIAL_AFTER_BYTES)) {
      onStart(lines);
      onStart = undefined;
    }
  }
  return { lines, exact: true, size: info.size, mtimeMs: info.mtimeMs };
}

/** Every line, the kinds a row never reads skimmed by their opening bytes (a row of a group of several files). */
async function readPathSkimmed(path: string, stats: LineStats, end: number | undefined): Promise<PathRead> {
  const info = await stat(path);
  const lines: CodexLine[] = [];
  for await (const line of readLines(path, end === undefined ? {} : { end: Math.min(end, info.size) })) lines.push(...parseLines(path, [line], stats, true));
  return { lines, exact: true, size: info.size, mtimeMs: info.mtimeMs };
}

/**
 * Parse raw lines. `forSummary`: a listing needs neither tool outputs nor per-item events nor the instructions
 * text in session_meta, which are most of a rollout's bytes: big lines of those kinds are recognised by their
 * opening bytes and kept only as timestamps, and the header is parsed without its instructions.
 */
function parseLines(path: string, raw: readonly RawLine[], stats: LineStats, forSummary = false): CodexLine[] {
  const lines: CodexLine[] = [];
  let first = true;
  for (const rawLine of raw) {
    if (forSummary && rawLine.bytes.length > SUMMARY_SKIM_BYTES) {
      const opening = rawLine.bytes.subarray(0, 240).toString('latin1');
      const skipped = SKIPPED_IN_SUMMARY.exec(opening);
      if (skipped) {
        lines.push(timestampOnlyLine(path, rawLine, skipped[1]));
        first = false;
        continue;
      }
      if (CLIPPED_IN_SUMMARY.test(opening)) {
        const value = parseJsonLine(clipJsonStrings(rawLine.bytes, SUMMARY_CLIP_LIMITS));
        if (isRecord(value)) {
          lines.push(classify(path, rawLine.offset, rawLine.bytes, value, first && rawLine.offset === 0));
          first = false;
          continue;
        }
      }
    }
    for (const object of jsonObjects([rawLine], stats)) {
      lines.push(classify(path, object.offset, object.bytes, object.value, first && object.offset === 0));
      first = false;
    }
  }
  return lines;
}

/** A user-role message item (modern or legacy), known by its opening bytes. */
function isUserMessageLine(line: RawLine): boolean {
  return USER_MESSAGE_OPENING.test(line.bytes.subarray(0, 240).toString('latin1'));
}

const USER_MESSAGE_OPENING =
  /^\{(?:"timestamp":"[^"]*",(?:"ordinal":\d+,)?"type":"response_item","payload":\{)?(?:"id":(?:"[^"]*"|null),)?"type":"message",(?:"id":(?:"[^"]*"|null),)?"role":"user"/;

/** Lines shorter than this are parsed whole even for a summary: recognising them would not save much. */
const SUMMARY_SKIM_BYTES = 1024;

/** Kinds of line a summary never looks into (tool outputs, developer instructions, per-item events, state dumps). */
const SKIPPED_IN_SUMMARY =
  /^\{(?:"timestamp":"([^"]*)",(?:"ordinal":\d+,)?"type":"(?:response_item","payload":\{"type":"(?:function_call_output|custom_tool_call_output|local_shell_call_output|message","role":"developer)"|event_msg","payload":\{"type":"(?:item_completed|item_started|exec_command_end|exec_command_output_delta|agent_reasoning|agent_reasoning_raw_content|mcp_tool_call_end|patch_apply_end|turn_diff)"|world_state"|token_usage_record")|"type":"(?:function_call_output|custom_tool_call_output)")/;

/**
 * Kinds of line whose long strings a summary never shows (instructions in session_meta, encrypted reasoning,
 * tool arguments, answers): parsed with those strings clipped (clip.ts). User messages are parsed whole: an
 * IDE-context prompt keeps the request at its end.
 */
const CLIPPED_IN_SUMMARY =
  /^\{"timestamp":"[^"]*",(?:"ordinal":\d+,)?"type":"(?:session_meta"|response_item","payload":\{"type":"(?:reasoning"|function_call"|custom_tool_call"|local_shell_call"|message","role":"assistant"))/;

function timestampOnlyLine(path: string, raw: RawLine, timestamp: string | undefined): CodexLine {
  return { path, offset: raw.offset, bytes: raw.bytes, kind: 'other', type: '', payload: {}, timestamp, ordinal: undefined, fromBase: false, userTurn: false };
}

interface Cut {
  /** Bytes of the group's last file to keep (history_base.end_byte_offset). */
  readonly endByteOffset: number | undefined;
  readonly endOrdinalExclusive: number | undefined;
}

interface Collected {
  readonly header: Header | null;
  readonly id: string | null;
  /** The conversation's lines in order, the thread's own header (and segment headers) left out. */
  readonly lines: CodexLine[];
  readonly exact: boolean;
  /** Over the group's own files only: the catalog's cache key. */
  readonly size: number;
  readonly mtimeMs: number;
  /** Ids of later session_meta lines naming another thread (a fork that replays its parent). */
  readonly replayedIds: string[];
  /** Ordinal of the oldest ancestor's header: a materialised fork starts its ordinals there. */
  readonly rootHeaderOrdinal: number | undefined;
}

async function collect(
  group: SessionFileGroup,
  context: AdapterContext,
  mode: ReadMode,
  stats: LineStats,
  cut: Cut | undefined,
  visiting: ReadonlySet<string>,
  clip?: ClipLimits,
  onStart?: OnStart,
): Promise<Collected> {
  const paths = distinctFiles(group.paths);
  const lastIndex = paths.length - 1;
  const byteCut = cut?.endByteOffset !== undefined && cut.endByteOffset > 0 ? cut.endByteOffset : undefined;
  const reads: PathRead[] = [];
  for (let i = 0; i <= lastIndex; i++) {
    // Only a single file's start is the conversation's start (later segments continue earlier files).
    reads.push(await readPath(paths[i]!, mode, stats, i === lastIndex ? byteCut : undefined, clip, lastIndex === 0 ? onStart : undefined));
  }

  const headerLine = reads[0]?.lines.find((line) => line.kind === 'header');
  const header = headerLine ? headerOf(headerLine) : null;
  const id = header?.id ?? group.idHint;
  let lines: CodexLine[] = [];
  const replayedIds: string[] = [];
  let exact = true;
  let size = 0;
  let mtimeMs = 0;
  reads.forEach((read, index) => {
    exact &&= read.exact;
    size += read.size;
    mtimeMs = Math.max(mtimeMs, read.mtimeMs);
    let segmentHeaderSeen = false;
    // A later file that starts by replaying what came before (a fork file of some releases) adds only the rest.
    let replayAt = index > 0 ? 0 : -1;
    for (const line of read.lines) {
      if (line.kind === 'header') {
        if (line === headerLine) continue;
        const other = headerOf(line);
        if (index > 0 && !segmentHeaderSeen && other.id === id) {
          // A later segment of the same thread: its header may say where the previous history ends (revert).
          segmentHeaderSeen = true;
          if (other.historyBase && other.historyBase.threadId === id) {
            lines = cutLines(lines, paths[index - 1]!, other.historyBase);
          }
          continue;
        }
        if (other.id !== null && other.id !== id) replayedIds.push(other.id);
      }
      if (replayAt >= 0) {
        if (lines[replayAt]?.bytes.equals(line.bytes)) {
          replayAt++;
          continue;
        }
        replayAt = -1;
      }
      lines.push(line);
    }
  });
  if (cut && byteCut === undefined && cut.endOrdinalExclusive !== undefined) {
    const end = cut.endOrdinalExclusive;
    lines = lines.filter((line) => line.ordinal === undefined || line.ordinal < end);
  }

  let rootHeaderOrdinal = header?.line.ordinal;
  const base = header?.historyBase;
  if (base && id !== null && base.threadId !== id) {
    const baseGroup = context.lookup('codex', base.threadId);
    const where = group.paths[0]!;
    if (!baseGroup) {
      context.report({ path: where, message: `fork parent ${base.threadId} not found: showing only this fork's own lines` });
    } else if (visiting.has(base.threadId)) {
      context.report({ path: where, message: `fork parent chain loops at ${base.threadId}` });
    } else {
      try {
        const parent = await collect(
          baseGroup,
          context,
          mode,
          stats,
          { endByteOffset: base.endByteOffset, endOrdinalExclusive: base.endOrdinalExclusive },
          new Set([...visiting, id]),
          clip,
        );
        for (const line of parent.lines) line.fromBase = true;
        lines = [...parent.lines, ...lines];
        exact &&= parent.exact;
        rootHeaderOrdinal = parent.rootHeaderOrdinal;
      } catch (error) {
        context.report({ path: baseGroup.paths[0] ?? where, message: `cannot read fork parent: ${errorMessage(error)}` });
      }
    }
  }
  return { header, id, lines, exact, size, mtimeMs, replayedIds, rootHeaderOrdinal };
}

/**
 * The same file name in sessions/ and archived_sessions/ is one file copied (archive, unarchive): read only
 * the last of them (discovery sorts the live sessions/ copy last), or every line would appear twice.
 */
function distinctFiles(paths: readonly string[]): string[] {
  const lastByName = new Map<string, string>();
  for (const path of paths) lastByName.set(basename(path), path);
  return paths.filter((path) => lastByName.get(basename(path)) === path);
}

/** Keep what a revert segment's base keeps: by ordinal when the lines carry one, else by bytes of the previous file. */
function cutLines(lines: CodexLine[], previousPath: string, base: HistoryBase): CodexLine[] {
  const end = base.endOrdinalExclusive;
  if (end !== undefined && lines.some((line) => line.ordinal !== undefined)) {
    return lines.filter((line) => line.ordinal === undefined || line.ordinal < end);
  }
  const byteEnd = base.endByteOffset;
  if (byteEnd !== undefined && byteEnd > 0) {
    return lines.filter((line) => line.path !== previousPath || line.offset < byteEnd);
  }
  return lines;
}

// ---------------------------------------------------------------------------------------------------------
// Digest: messages, turns and metadata from collected lines

interface Turn {
  /** The line, when messages are kept (a rollback unmarks it); a row-only fold keeps no lines. */
  readonly line?: CodexLine;
  readonly messageIndex: number;
  /** What the prompt shows (promptTextOf): null when it holds neither text nor an image; in a row-only fold, already its opening (`opened`). */
  readonly text: string | null;
  readonly opened?: boolean;
}

/** The opening a row shows of a turn (null: the prompt holds neither text nor an image). */
function turnOpening(turn: Turn): string | null {
  return turn.text === null || turn.opened === true ? turn.text : promptOpening(turn.text);
}

/**
 * Messages, turns and metadata from a conversation's lines, one line at a time (`add`). A row-only digest
 * (the index's fold) keeps no messages and only the openings of prompts.
 */
class CodexDigest {
  readonly messages: Message[] = [];
  readonly turns: Turn[] = [];
  assistantSeen = false;
  usage: Usage | null = null;
  model: string | null = null;
  turnContextCwd: string | null = null;
  environmentCwd: string | null = null;
  threadName: string | null = null;
  /** Newest timestamp among the group's own lines (not a parent's). */
  newestOwn: number | null = null;
  /** Messages a row-only digest did not keep (turns' message indexes still count them, for rollbacks). */
  dropped = 0;

  /** Inside a review (between `entered_review_mode` and its end): what Codex writes there is not the user's. */
  inReview = false;

  constructor(
    public id: string | null,
    readonly rowOnly = false,
  ) {}

  private push(line: CodexLine, role: Role, blocks: Block[], userTurn = false): void {
    if (this.rowOnly) {
      this.dropped++;
      return;
    }
    const timestamp = isoOrUndefined(line.timestamp);
    this.messages.push({
      role,
      blocks,
      userTurn,
      ...(timestamp === undefined ? {} : { timestamp }),
      source: { path: line.path, offset: line.offset },
    });
  }

  private get messageCount(): number {
    return this.messages.length + this.dropped;
  }

  add(line: CodexLine): void {
    if (!line.fromBase && line.kind !== 'header') {
      const time = timeOf(line.timestamp);
      if (time !== undefined && (this.newestOwn === null || time > this.newestOwn)) this.newestOwn = time;
    }
    const p = line.payload;
    switch (line.kind) {
      case 'turn_context': {
        this.model = stringField(p, 'model') ?? this.model;
        this.turnContextCwd ??= stringField(p, 'cwd');
        break;
      }
      case 'compacted': {
        this.push(line, 'system', [{ type: 'compaction', summary: typeof p.message === 'string' ? p.message : '' }]);
        break;
      }
      case 'event': {
        const review = reviewModeChange(line.type);
        if (review !== null) this.inReview = review === 'enter';
        if (line.type === 'token_count') {
          const info = isRecord(p.info) ? p.info : null;
          const total = info && isRecord(info.total_token_usage) ? info.total_token_usage : null;
          if (total) {
            this.usage = {
              input: numberField(total, 'input_tokens'),
              output: numberField(total, 'output_tokens'),
              cacheRead: numberField(total, 'cached_input_tokens'),
              cacheWrite: numberField(total, 'cache_write_input_tokens'),
            };
          }
        } else if (line.type === 'thread_rolled_back') {
          const n = nonNegativeInteger(p.num_turns) ?? 0;
          const turns = this.turns;
          if (n > 0 && turns.length > 0) {
            const keep = Math.max(0, turns.length - n);
            const firstDropped = turns[keep]!;
            for (const turn of turns.slice(keep)) if (turn.line) turn.line.userTurn = false;
            turns.length = keep;
            if (this.rowOnly) this.dropped = firstDropped.messageIndex;
            else this.messages.length = firstDropped.messageIndex;
          }
        } else if (line.type === 'thread_name_updated' && !line.fromBase) {
          // Lines copied from a parent (older forks) carry the parent's name: not this thread's.
          const thread = stringField(p, 'thread_id');
          if (thread === null || thread === this.id) this.threadName = stringField(p, 'thread_name') ?? stringField(p, 'name') ?? this.threadName;
        }
        break;
      }
      case 'item': {
        // What Codex writes in review mode (the review's prompt, its findings) is not the user's.
        if (this.inReview && line.userTurn) line.userTurn = false;
        const item = itemMessage(line);
        if (!item) break;
        if (item.role === 'assistant') this.assistantSeen = true;
        if (line.userTurn) {
          const text = promptTextOf(contentParts(p.content));
          this.turns.push(
            this.rowOnly
              ? { messageIndex: this.messageCount, text: text === null ? null : promptOpening(text), opened: true }
              : { line, messageIndex: this.messageCount, text },
          );
        } else if (line.type === 'message' && p.role === 'user' && this.environmentCwd === null) {
          const match = /<cwd>([\s\S]*?)<\/cwd>/.exec(messageTextOf(p));
          if (match) this.environmentCwd = match[1]!.trim();
        }
        this.push(line, item.role, item.blocks, line.userTurn);
        break;
      }
      default:
        break;
    }
  }
}

type Digest = CodexDigest;

function digest(lines: readonly CodexLine[], id: string | null): Digest {
  const d = new CodexDigest(id);
  for (const line of lines) d.add(line);
  return d;
}

/** Event types whose payload `digest` reads. */
const DIGESTED_EVENTS = new Set(['token_count', 'thread_rolled_back', 'thread_name_updated', ...REVIEW_MODE_EVENTS]);

/** False for lines whose payload `digest` never looks at (a display read drops it: per-item events repeat tool outputs). */
function digestReads(line: CodexLine): boolean {
  switch (line.kind) {
    case 'header':
    case 'item':
    case 'turn_context':
    case 'compacted':
      return true;
    case 'event':
      return DIGESTED_EVENTS.has(line.type);
    default:
      return false;
  }
}

/** A response item as a normalized message; null for items with nothing to show. */
function itemMessage(line: CodexLine): { role: Role; blocks: Block[] } | null {
  const p = line.payload;
  const type = line.type;
  if (type === 'message') {
    const role = p.role;
    const parts = contentParts(p.content);
    const blocks: Block[] = parts.map((part) => ({ type: 'text', text: part.text }));
    if (role === 'assistant') return { role: 'assistant', blocks };
    if (role === 'user') return line.userTurn ? { role: 'user', blocks: promptBlocks(parts) } : { role: 'system', blocks };
    return { role: 'system', blocks }; // developer / system instructions
  }
  if (type === 'reasoning') {
    const summary = textsOf(p.summary);
    const readable = summary.length > 0 ? summary : textsOf(p.content);
    const encrypted = typeof p.encrypted_content === 'string' && p.encrypted_content.length > 0;
    return { role: 'assistant', blocks: [{ type: 'reasoning', summary: readable.join('\n\n'), encrypted }] };
  }
  if (type === 'compaction' || type === 'compaction_summary') {
    return { role: 'system', blocks: [{ type: 'compaction', summary: typeof p.summary === 'string' ? p.summary : '' }] };
  }
  if (type.endsWith('_output')) {
    const { output, isError } = toolOutput(p.output);
    return { role: 'tool', blocks: [{ type: 'tool_result', toolUseId: callId(p), output, isError }] };
  }
  if (type.endsWith('_call')) {
    return { role: 'assistant', blocks: [{ type: 'tool_use', id: callId(p), name: toolName(type, p), input: toolInput(p) }] };
  }
  return null;
}

/** A prompt as the user typed it: the request of an IDE-context prompt, images without the tags around them. */
function promptBlocks(parts: readonly ContentPart[]): Block[] {
  const blocks: Block[] = [];
  for (const part of parts) {
    if (part.kind === 'image') blocks.push(part.url !== undefined ? imageFromUrl(part.url) : { type: 'text', text: part.text });
    else if (!isImageTag(part.text)) blocks.push({ type: 'text', text: codexUserPromptText(part.text) });
  }
  return blocks;
}

function callId(p: Record<string, unknown>): string {
  return stringField(p, 'call_id') ?? stringField(p, 'id') ?? '';
}

/** `function_call` / `custom_tool_call` carry a name; `local_shell_call`, `web_search_call`, … are named by type. */
function toolName(type: string, p: Record<string, unknown>): string {
  const name = stringField(p, 'name');
  if (!name) return type.slice(0, -'_call'.length);
  const namespace = stringField(p, 'namespace');
  return namespace ? `${namespace}.${name}` : name;
}

function toolInput(p: Record<string, unknown>): string {
  if (typeof p.arguments === 'string') return p.arguments;
  if (typeof p.input === 'string') return p.input;
  if (p.arguments !== undefined) return JSON.stringify(p.arguments);
  if (p.action !== undefined) return JSON.stringify(p.action);
  // Other call kinds: show what the item carries, minus bookkeeping.
  const rest: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(p)) if (!['type', 'id', 'call_id', 'status'].includes(key)) rest[key] = value;
  return JSON.stringify(rest);
}

function toolOutput(output: unknown): { output: string; isError: boolean } {
  if (typeof output === 'string') {
    // Older shell outputs are JSON strings `{"output": …, "metadata": {"exit_code": n}}`.
    if (output.startsWith('{"output"')) {
      try {
        const parsed: unknown = JSON.parse(output);
        if (isRecord(parsed) && isRecord(parsed.metadata) && typeof parsed.metadata.exit_code === 'number') {
          return { output, isError: parsed.metadata.exit_code !== 0 };
        }
      } catch {
        // not JSON after all: plain text
      }
    }
    return { output, isError: false };
  }
  if (Array.isArray(output)) return { output: textsOf(output).join('\n'), isError: false };
  if (isRecord(output)) {
    const isError = output.success === false;
    if (typeof output.content === 'string') return { output: output.content, isError };
    if (Array.isArray(output.content)) return { output: textsOf(output.content).join('\n'), isError };
    return { output: JSON.stringify(output), isError };
  }
  return { output: output === undefined || output === null ? '' : JSON.stringify(output), isError: false };
}

function textsOf(value: unknown): string[] {
  if (!Array.isArray(value)) return [];
  const texts: string[] = [];
  for (const item of value) {
    if (typeof item === 'string') texts.push(item);
    else if (isRecord(item) && typeof item.text === 'string') texts.push(item.text);
  }
  return texts;
}

// ---------------------------------------------------------------------------------------------------------
// Summary and session

/** What a row needs of a conversation's lines besides the digest: its header, replayed ids, first time, size. */
interface RowFacts {
  readonly header: { readonly timestamp: string | undefined; readonly lineTimestamp: string | undefined; readonly cwd: string | null; readonly forkedFromId: string | null; readonly gitBranch: string | null; readonly subagent?: SubagentSource | null } | null;
  readonly replayedIds: readonly string[];
  /** The first timestamp of a line other than the header. */
  readonly firstTimestamp: string | undefined;
  readonly size: number;
  readonly mtimeMs: number;
}

function headerFacts(header: Header | null): RowFacts['header'] {
  return header === null ? null : { timestamp: header.timestamp, lineTimestamp: header.line.timestamp, cwd: header.cwd, forkedFromId: header.forkedFromId, gitBranch: header.gitBranch, subagent: header.subagent };
}

function factsOf(c: Collected): RowFacts {
  return { header: headerFacts(c.header), replayedIds: c.replayedIds, firstTimestamp: c.lines.find((l) => l.timestamp)?.timestamp, size: c.size, mtimeMs: c.mtimeMs };
}

function buildSummary(id: string, group: SessionFileGroup, context: AdapterContext, c: RowFacts, d: Digest): SessionSummary {
  const prompts = d.turns.flatMap((turn) => {
    const opening = turnOpening(turn);
    return opening === null ? [] : [opening];
  });
  const firstPrompt = prompts[0] ?? null;
  const lastPrompt = prompts[prompts.length - 1] ?? null;
  const name = context.names(group.root).get(id) ?? d.threadName;
  const forkedFrom = c.header?.forkedFromId ?? c.replayedIds[0] ?? null;
  const createdAt = isoOrUndefined(c.header?.timestamp) ?? isoOrUndefined(c.firstTimestamp);
  // The newest time the group's own lines record (legacy files only date their header); else the file time.
  const times = [d.newestOwn, timeOf(c.header?.lineTimestamp), timeOf(c.header?.timestamp)].filter(
    (t): t is number => t !== null && t !== undefined,
  );
  const updatedAt = new Date(times.length > 0 ? Math.max(...times) : c.mtimeMs).toISOString();
  return {
    id,
    agent: 'codex',
    path: group.paths[group.paths.length - 1]!,
    paths: group.paths,
    cwd: c.header?.cwd ?? d.turnContextCwd ?? d.environmentCwd ?? null,
    title: name ?? firstPrompt ?? '(no prompt)',
    firstPrompt,
    lastPrompt,
    name,
    userTurns: d.turns.length,
    userTurnsExact: true,
    prompts,
    createdAt: createdAt ?? updatedAt,
    updatedAt,
    forkedFrom,
    fork: forkedFrom ? { id: forkedFrom } : null,
    ...(c.header?.subagent ? { subagent: c.header.subagent } : {}),
    gitBranch: c.header?.gitBranch ?? null,
    model: d.model,
    archived: group.archived,
    usage: d.usage,
    size: c.size,
    mtimeMs: c.mtimeMs,
  };
}

async function readCodexSummary(group: SessionFileGroup, context: AdapterContext): Promise<SessionSummary | null> {
  return (await indexCodex(group, context)).summary;
}

/**
 * The index's fold of one rollout file, a line at a time: what `collect` and `digest` find of a single file
 * (its header, replayed ids, first time) and a row-only digest, all of it saveable as JSON.
 */
class CodexRowFold {
  headerSeen = false;
  header: RowFacts['header'] = null;
  /** The header points into another thread's file (a paginated fork): its row needs the parent. */
  paginated = false;
  readonly replayedIds: string[] = [];
  firstTimestamp: string | undefined = undefined;
  readonly digest: CodexDigest;

  constructor(
    public id: string | null,
    digest?: CodexDigest,
  ) {
    this.digest = digest ?? new CodexDigest(id, true);
  }

  add(line: CodexLine): void {
    if (line.kind === 'header') {
      const header = headerOf(line);
      if (!this.headerSeen) {
        this.headerSeen = true;
        this.header = headerFacts(header);
        this.id = header.id ?? this.id;
        this.digest.id = this.id;
        this.paginated = header.historyBase !== null && this.id !== null && header.historyBase.threadId !== this.id;
        return;
      }
      if (header.id !== null && header.id !== this.id) this.replayedIds.push(header.id);
    }
    if (this.firstTimestamp === undefined && line.timestamp !== undefined) this.firstTimestamp = line.timestamp;
    this.digest.add(line);
  }

  /** Saved with the row: everything `add` needs to go on and `buildSummary` reads. */
  save(): CodexFoldState {
    const d = this.digest;
    return {
      v: 2,
      headerSeen: this.headerSeen,
      header: this.header,
      id: this.id,
      replayedIds: this.replayedIds,
      firstTimestamp: this.firstTimestamp ?? null,
      // The prompts themselves are the row's (FoldResume.row): the saved fold stays small however long the session.
      turns: d.turns.length,
      assistantSeen: d.assistantSeen,
      usage: d.usage,
      model: d.model,
      turnContextCwd: d.turnContextCwd,
      environmentCwd: d.environmentCwd,
      threadName: d.threadName,
      newestOwn: d.newestOwn,
      inReview: d.inReview,
    };
  }

  /** A saved fold back, with the prompts of the row it made; null when it is not one (the file is then read whole). */
  static load(state: unknown, prompts: readonly string[]): CodexRowFold | null {
    if (!isRecord(state) || state.v !== 2 || typeof state.headerSeen !== 'boolean' || state.turns !== prompts.length || !Array.isArray(state.replayedIds)) return null;
    const text = (value: unknown): string | null => (typeof value === 'string' ? value : null);
    const header = state.header;
    if (!(header === null || (isRecord(header) && ['cwd', 'forkedFromId', 'gitBranch'].every((key) => header[key] === null || typeof header[key] === 'string')))) return null;
    const digest = new CodexDigest(text(state.id), true);
    // A row-only digest keeps no messages: the turns' message indexes are never read.
    for (const text of prompts) digest.turns.push({ messageIndex: 0, text, opened: true });
    if (typeof state.assistantSeen !== 'boolean') return null;
    digest.assistantSeen = state.assistantSeen;
    const usage = state.usage;
    digest.usage = isRecord(usage) && ['input', 'output', 'cacheRead', 'cacheWrite'].every((key) => typeof usage[key] === 'number') ? (usage as unknown as Usage) : null;
    digest.model = text(state.model);
    digest.turnContextCwd = text(state.turnContextCwd);
    digest.environmentCwd = text(state.environmentCwd);
    digest.threadName = text(state.threadName);
    digest.newestOwn = typeof state.newestOwn === 'number' ? state.newestOwn : null;
    digest.inReview = state.inReview === true;
    const fold = new CodexRowFold(text(state.id), digest);
    fold.headerSeen = state.headerSeen;
    fold.header = header === null ? null : {
      timestamp: text(header.timestamp) ?? undefined,
      lineTimestamp: text(header.lineTimestamp) ?? undefined,
      cwd: text(header.cwd),
      forkedFromId: text(header.forkedFromId),
      gitBranch: text(header.gitBranch),
      subagent: subagentOf(header.subagent),
    };
    fold.replayedIds.push(...state.replayedIds.filter((id): id is string => typeof id === 'string'));
    fold.firstTimestamp = text(state.firstTimestamp) ?? undefined;
    return fold;
  }
}

interface CodexFoldState {
  readonly v: 2;
  readonly headerSeen: boolean;
  readonly header: RowFacts['header'];
  readonly id: string | null;
  readonly replayedIds: readonly string[];
  readonly firstTimestamp: string | null;
  /** How many prompts the row holds (their openings are the row's `prompts`). */
  readonly turns: number;
  readonly assistantSeen: boolean;
  readonly usage: Usage | null;
  readonly model: string | null;
  readonly turnContextCwd: string | null;
  readonly environmentCwd: string | null;
  readonly threadName: string | null;
  readonly newestOwn: number | null;
  readonly inReview: boolean;
}

/** A saved header's sub-agent origin back (null when there is none or it is not one). */
function subagentOf(value: unknown): SubagentSource | null {
  if (!isRecord(value) || typeof value.kind !== 'string' || !(value.parentId === null || typeof value.parentId === 'string')) return null;
  return { kind: value.kind, parentId: value.parentId };
}

/**
 * The row from every line. A single rollout is folded as it streams (and its fold can be saved, then continued
 * over appended bytes); a thread of several files, or a paginated fork (whose history is in its parent's file),
 * is collected whole and digested.
 */
async function indexCodex(group: SessionFileGroup, context: AdapterContext, resume?: FoldResume): Promise<IndexedSession> {
  const paths = distinctFiles(group.paths);
  const live = group.paths[group.paths.length - 1]!;
  const before = indexReads.bytes;
  // A TypeScript-era rollout is one JSON object, not lines: read whole (collect), never folded.
  if (paths.length === 1 && !isTypeScriptRollout(paths[0]!)) {
    const path = paths[0]!;
    const resumed = resume !== undefined && resume.path === path && resume.row !== undefined ? CodexRowFold.load(resume.state, resume.row.prompts) : null;
    const fold = resumed ?? new CodexRowFold(group.idHint);
    const stats = newLineStats();
    const file = await foldLines(path, resumed === null ? 0 : resume!.offset, (raw) => {
      for (const line of parseLines(path, [raw], stats, true)) fold.add(line);
    });
    if (!fold.paginated) {
      const state = file.size >= (context.saveFoldFrom ?? Number.POSITIVE_INFINITY) ? fold.save() : undefined;
      if (file.partial !== null) for (const line of parseLines(path, [file.partial], stats, true)) fold.add(line);
      const d = fold.digest;
      const listed = fold.id !== null && !(d.turns.length === 0 && !d.assistantSeen);
      reportSkippedLines(context.report, live, stats, listed);
      const facts: RowFacts = { header: fold.header, replayedIds: fold.replayedIds, firstTimestamp: fold.firstTimestamp, size: file.size, mtimeMs: file.mtimeMs };
      const summary = listed && fold.id !== null ? buildSummary(fold.id, group, context, facts, d) : null;
      return { summary, fingerprint: file.fingerprint, bytesRead: indexReads.bytes - before, ...(state === undefined ? {} : { resume: { path, offset: file.end, state } }) };
    }
  }
  const stats = newLineStats();
  const collected = await collect(group, context, 'summary', stats, undefined, new Set());
  const d = digest(collected.lines, collected.id);
  // Header-only and context-only files are not conversations (yet): not listed.
  // Decided by content, not size: a file no line of which is a Codex line (head and tail of a big one) is not a
  // session, however big it is.
  const noCodexLine = collected.header === null && collected.lines.length === 0;
  const listed = collected.id !== null && !noCodexLine && !(collected.exact && d.turns.length === 0 && !d.assistantSeen);
  reportSkippedLines(context.report, group.paths[group.paths.length - 1]!, stats, listed);
  const summary = !listed || collected.id === null ? null : buildSummary(collected.id, group, context, factsOf(collected), d);
  return { summary, bytesRead: indexReads.bytes - before };
}

const PROMPT_MARKS = ['"role":"user"', '"type":"user_message"', '"type":"UserMessage"'].map((mark) => Buffer.from(mark, 'latin1'));

/** A user message, a `user_message` event or a 0.16x `UserMessage` item: a prompt, which a display read keeps whole (clip.ts). */
function mayHoldPrompt(bytes: Buffer): boolean {
  return PROMPT_MARKS.some((mark) => bytes.includes(mark));
}

/** The whole transcript; a file that would not be listed (no turns yet) still opens when asked for. */
async function readCodexSession(group: SessionFileGroup, context: AdapterContext, options: ReadSessionOptions = {}): Promise<Session> {
  const stats = newLineStats();
  const clip = withPromptLines(options.clip, mayHoldPrompt);
  const shown = (messages: Message[]): Message[] => (clip === undefined ? messages : unmarkMessages(messages));
  const onPartial = options.onPartial;
  const onStart: OnStart | undefined = onPartial
    ? (lines) => {
        const header = lines.find((line) => line.kind === 'header');
        // A paginated fork's conversation starts in its parent's file, read after this one.
        if (header === undefined || headerOf(header).historyBase !== null) return;
        onPartial(shown(digest(lines, headerOf(header).id).messages));
      }
    : undefined;
  const collected = await collect(group, context, 'full', stats, undefined, new Set(), clip, onStart);
  const d = digest(collected.lines, collected.id);
  const summary = buildSummary(collected.id ?? group.paths[0]!, group, context, factsOf(collected), d);
  return { ...summary, messages: shown(d.messages), malformedLines: stats.malformed };
}

// ---------------------------------------------------------------------------------------------------------
// Fork

/** Lines that open a turn before its user message: a fork cut moves back over them. */
function isTurnPreamble(line: CodexLine): boolean {
  switch (line.kind) {
    case 'state':
    case 'turn_context':
    case 'world_state':
      return true;
    case 'event':
      return line.type === 'task_started' || line.type === 'turn_started' || line.type === 'thread_settings_applied';
    case 'item':
      if (line.type !== 'message' || line.userTurn) return false;
      return line.payload.role === 'developer' || line.payload.role === 'system' || (line.payload.role === 'user' && !isUserPromptItem(line));
    default:
      return false;
  }
}

function pad(n: number, width = 2): string {
  return String(n).padStart(width, '0');
}

/** `sessions/YYYY/MM/DD/rollout-YYYY-MM-DDTHH-MM-SS-<id>.jsonl` in local time, as Codex names them. */
export function codexRolloutPath(root: string, id: string, now: Date): string {
  const y = pad(now.getFullYear(), 4);
  const m = pad(now.getMonth() + 1);
  const d = pad(now.getDate());
  const stamp = `${y}-${m}-${d}T${pad(now.getHours())}-${pad(now.getMinutes())}-${pad(now.getSeconds())}`;
  return join(root, 'sessions', y, m, d, `rollout-${stamp}-${id}.jsonl`);
}

async function forkCodex(group: SessionFileGroup, request: ForkRequest, context: AdapterContext): Promise<ForkResult> {
  const typescript = group.paths.find(isTypeScriptRollout);
  if (typescript !== undefined) {
    throw new UnsupportedForkError(
      `${typescript}: a rollout of the TypeScript Codex CLI (one JSON object, before the Rust rewrite) cannot be forked: no Codex release that reads it can resume it`,
    );
  }
  const stats = newLineStats();
  const collected = await collect(group, context, 'full', stats, undefined, new Set());
  const d = digest(collected.lines, collected.id);
  checkForkTurn(request.atTurn, d.turns.length);
  const header = collected.header;
  const sourceId = collected.id;
  if (!header || sourceId === null) throw new Error(`${group.paths[0] ?? 'session'}: no session_meta line, cannot fork`);

  const history = truncateBeforeUserTurn(collected.lines, request.atTurn - 1);
  let cut = history.kind === 'forked' ? history.history.length : 0;
  // Cut before the turn's context (task_started, turn_context, injected messages), not just before its prompt.
  while (cut > 0 && isTurnPreamble(collected.lines[cut - 1]!)) cut--;

  const now = request.now ?? new Date();
  const id = uuidv7(now.getTime());
  const path = codexRolloutPath(group.root, id, now);
  const name = request.branchName?.trim();
  // The name goes in session_index.jsonl: check it can be written before the fork is, so a failure writes nothing.
  if (name) await checkAppendable(codexIndexPath(group.root), { mayCreate: true });
  const chunks: Buffer[] = [Buffer.from(`${JSON.stringify(forkHeader(header, sourceId, id, now, collected.rootHeaderOrdinal))}\n`, 'utf8')];
  const newline = Buffer.from('\n');
  for (const line of collected.lines.slice(0, cut)) chunks.push(line.bytes, newline);
  await createFileAtomic(path, chunks);
  if (name) {
    try {
      await nameCodexThread(group.root, id, name, now);
    } catch (error) {
      await unlink(path).catch(() => undefined); // a fork without its name is not what was asked for
      throw error instanceof WriteCheckError ? error : new WriteCheckError(codexIndexPath(group.root), describeError(error));
    }
  }
  return { agent: 'codex', id, path, parentId: sourceId, keptUserTurns: request.atTurn - 1 };
}

/** Name a thread the way `codex` does: one more `{id, thread_name, updated_at}` line in session_index.jsonl. */
export function codexIndexPath(root: string): string {
  return join(root, 'session_index.jsonl');
}

export async function nameCodexThread(root: string, id: string, name: string, now: Date): Promise<void> {
  const index = codexIndexPath(root);
  const line = JSON.stringify({ id, thread_name: name, updated_at: now.toISOString().replace(/\.\d{3}Z$/, 'Z') });
  try {
    await appendLines(index, [line]);
  } catch (error) {
    if (errorCode(error) !== 'ENOENT') throw error;
    await createFileAtomic(index, `${line}\n`).catch(async (raced: unknown) => {
      if (errorCode(raced) !== 'EEXIST') throw raced;
      await appendLines(index, [line]);
    });
  }
}

/** The source's header with the new id, the fork parent, and no pointer into another file (history is inline). */
function forkHeader(header: Header, sourceId: string, id: string, now: Date, rootOrdinal: number | undefined): Record<string, unknown> {
  const value = JSON.parse(header.line.bytes.toString('utf8')) as Record<string, unknown>;
  const at = now.toISOString();
  if (isRecord(value.payload)) {
    const payload = value.payload;
    payload.id = id;
    if ('session_id' in payload) payload.session_id = id;
    payload.forked_from_id = sourceId;
    delete payload.history_base;
    delete payload.forked_from_ordinal_exclusive;
    payload.timestamp = at;
    value.timestamp = at;
    if (typeof value.ordinal === 'number' && rootOrdinal !== undefined) value.ordinal = rootOrdinal;
  } else {
    value.id = id;
    value.forked_from_id = sourceId;
    value.timestamp = at;
  }
  return value;
}

// ---------------------------------------------------------------------------------------------------------

/** ~/.codex/sessions/YYYY/MM/DD/rollout-….jsonl; archived_sessions/…; session_index.jsonl holds names. */
const CODEX_WATCHED = new Set(['sessions', 'archived_sessions', 'session_index.jsonl']);

export const codexAdapter: FormatAdapter = {
  agent: 'codex',
  label: 'Codex CLI',
  locations: {
    flag: '--codex-home <dir>',
    flagHelp: 'a Codex home (repeatable; default $CODEX_HOME or ~/.codex)',
    homeFolder: '.codex',
    defaultRoots: (environment) => homeFolderRoots('.codex', 'CODEX_HOME', environment),
    readme: {
      where:
        "`$CODEX_HOME/sessions/**/rollout-*.jsonl` and `archived_sessions/` (default `~/.codex`); the TypeScript CLI's `rollout-YYYY-MM-DD-<id>.json` too (listed and shown; not forkable)",
      options: '`--codex-home DIR` (repeatable), `--home DIR` (= `DIR/.codex`)',
    },
    describeRoot: (dir) => `${dir}/sessions and archived_sessions (Codex)`,
  },
  watch: { roots: 'configured', depth: 4, wanted: (parts) => CODEX_WATCHED.has(parts[0]!), fileSuffixes: ['.jsonl', '.json'] },
  names: { file: 'session_index.jsonl', read: readCodexNames },
  resume: {
    interactive: ['codex', 'resume', '{args}', '{id}', '{prompt}'],
    exec: ['codex', 'exec', '{args}', 'resume', '{id}', '{prompt}'],
    homeEnvironment: (root) => ({ CODEX_HOME: root }),
  },
  idShape: { pattern: UUID_EXACT, description: 'a UUID' },
  forkTarget:
    "under today's date, <CODEX_HOME>/sessions/YYYY/MM/DD/rollout-<time>-<new id>.jsonl\n(of the home the original is in; a name given with --name goes to its session_index.jsonl)",
  // base_instructions {text}, developer_instructions and the like, developer-role messages.
  notConversation: /instructions"\s*:\s*(\{\s*"text"\s*:\s*)?$|"role"\s*:\s*"developer"/,
  isNonConversationLine: isCodexNonConversationLine,
  discover: discoverCodex,
  groupFiles: groupCodexFiles,
  readSummary: readCodexSummary,
  indexSession: indexCodex,
  readSession: readCodexSession,
  fork: forkCodex,
};

// ---------------------------------------------------------------------------------------------------------
// Small helpers


function stringField(object: Record<string, unknown>, key: string): string | null {
  const value = object[key];
  return typeof value === 'string' && value !== '' ? value : null;
}

function numberField(object: Record<string, unknown>, key: string): number {
  const value = object[key];
  return typeof value === 'number' && Number.isFinite(value) ? value : 0;
}

function nonNegativeInteger(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : undefined;
}

function timeOf(value: unknown): number | undefined {
  if (typeof value !== 'string' && typeof value !== 'number') return undefined;
  const time = new Date(value).getTime();
  return Number.isNaN(time) ? undefined : time;
}

function isoOrUndefined(value: unknown): string | undefined {
  return isoTimestamp(value) ?? undefined;
}


