/**
 * claw sessions (the claw reference implementation and its Python port), read from a workspace:
 * `<ws>/.claw/sessions/*.jsonl` and per-workspace `<ws>/.claw/sessions/<fnv-hash>/*.jsonl` (JSONL records
 * `session_meta` / `message` / `compaction` / `prompt_history`, rotated to `<stem>.rot-<ms>.jsonl`), the
 * older single-object JSON `{version, messages, …}` in `.claw/sessions/*.json` and `<ws>/.claude/sessions/*.json`,
 * and the Python port's `<ws>/.port_sessions/*.json` `{session_id, messages: [strings], …}`.
 */
import type { Dirent } from 'node:fs';
import { stat } from 'node:fs/promises';
import { walkFs } from '../io/walk-fs.js';
import { basename, dirname, join } from 'node:path';
import { checkForkTurn, describeError, errorCode } from '../errors.js';
import type { InitialHistory } from '../history.js';
import { appendLines, createFileAtomic } from '../io/atomic.js';
import {
  CLOSE_BRACE,
  CLOSE_BRACKET,
  COLON,
  COMMA,
  decodeString,
  OPEN_BRACE,
  OPEN_BRACKET,
  parseSpan,
  QUOTE,
  skipWhitespace,
  stringEnd,
  valueEnd,
  type Span,
} from '../io/json-bytes.js';
import { openRegular } from '../io/regular.js';
import { clipJsonStrings, clipRawLine, SUMMARY_CLIP_LIMITS, unmarkMessages, withPromptLines, type ClipLimits } from '../io/clip.js';
import { headFingerprint, indexReads, jsonObjects, newLineStats, readAt, readLines, splitLines, type JsonLine } from '../io/lines.js';
import {
  addUsage,
  messageText,
  promptOpening,
  type Block,
  type ForkOrigin,
  type Message,
  type ReasoningBlock,
  type Role,
  type Session,
  type SessionSummary,
  type ToolResultBlock,
  type Usage,
} from '../model.js';
import { truncateBeforeUserTurn } from '../truncate.js';
import { reportSkippedLines } from './problems.js';
import { listDir, selfAndAncestors } from './roots.js';
import type { AdapterContext, ForkRequest, ForkResult, FormatAdapter, IndexedSession, ReadSessionOptions, ReportProblem, SessionFileGroup } from './types.js';
import { isRecord, type JsonObject } from '../json.js';


const ROLES: readonly Role[] = ['system', 'user', 'assistant', 'tool'];
const ROTATED_NAME = /^(.+)\.rot-(\d+)\.jsonl$/;
/** claw ids and file names: `session-<ms>-<counter>` (older builds: `session-<ms>`). */
const SESSION_MS = /^session-(\d{10,16})(?:-\d+)?$/;
const SKIPPED_DIRS = new Set(['node_modules', '.git', 'target']);

// ---------------------------------------------------------------------------------------------------------
// Discovery

/** Find the claw session files of one workspace (or of a `.claw`, `sessions` or `.port_sessions` dir), one group per conversation. */
export async function discoverClaw(root: string, report: ReportProblem): Promise<SessionFileGroup[]> {
  const groups: SessionFileGroup[] = [];
  for (const folder of sessionFolders(root)) groups.push(...(await groupFolder(folder.dir, root, report, folder.nested)));
  return groups.sort((a, b) => compare(livePath(a), livePath(b)));
}

interface SessionFolder {
  readonly dir: string;
  /** `.claw/sessions` holds per-workspace hash subfolders one level down. */
  readonly nested: boolean;
}

function sessionFolders(root: string): SessionFolder[] {
  const name = basename(root);
  if (name === '.claw') return [{ dir: join(root, 'sessions'), nested: true }];
  if (name === 'sessions') return [{ dir: root, nested: basename(dirname(root)) !== '.claude' }];
  if (name === '.port_sessions') return [{ dir: root, nested: false }];
  return [
    { dir: join(root, '.claw', 'sessions'), nested: true },
    { dir: join(root, '.claude', 'sessions'), nested: false },
    { dir: join(root, '.port_sessions'), nested: false },
  ];
}

async function groupFolder(dir: string, root: string, report: ReportProblem, nested: boolean): Promise<SessionFileGroup[]> {
  const entries = await listDir(dir, report);
  const groups: SessionFileGroup[] = [];
  const files: string[] = [];
  for (const entry of entries) {
    // Hidden names are temp files (ours: `.name.tmp-…`); claw's own temps end in `.tmp-<ms>-<n>`.
    if (entry.name.startsWith('.')) continue;
    const path = join(dir, entry.name);
    const kind = await entryKind(entry, path);
    if (kind === 'dir') {
      if (nested && !SKIPPED_DIRS.has(entry.name)) groups.push(...(await groupFolder(path, root, report, false)));
      continue;
    }
    if (kind === 'file') files.push(path);
  }
  return [...groups, ...groupSessionFiles(files, root)];
}

/** One folder's session files, one group per conversation: rotated `<stem>.rot-<ms>.jsonl` files go with `<stem>.jsonl`. */
function groupSessionFiles(paths: readonly string[], root: string): SessionFileGroup[] {
  const groups: SessionFileGroup[] = [];
  const live = new Map<string, string>();
  const rotated = new Map<string, { path: string; ms: number }[]>();
  for (const path of paths) {
    const name = basename(path);
    const rot = ROTATED_NAME.exec(name);
    if (rot) {
      const stem = `${dirname(path)}/${rot[1]!}`;
      rotated.set(stem, [...(rotated.get(stem) ?? []), { path, ms: Number(rot[2]) }]);
    } else if (name.endsWith('.jsonl')) {
      live.set(path.slice(0, -'.jsonl'.length), path);
    } else if (name.endsWith('.json')) {
      groups.push(makeGroup([path], root));
    }
  }
  for (const stem of new Set([...live.keys(), ...rotated.keys()])) {
    const rots = (rotated.get(stem) ?? []).sort((a, b) => a.ms - b.ms || compare(a.path, b.path)).map((r) => r.path);
    const livePathOfStem = live.get(stem);
    // Rotated files with no live file (a crash between rename and rewrite): the newest one stands in for it.
    groups.push(makeGroup(livePathOfStem === undefined ? rots : [...rots, livePathOfStem], root));
  }
  return groups;
}

/** The watcher's grouping: known files of a workspace, grouped as `discoverClaw` would, without listing folders. */
export function groupClawFiles(root: string, paths: readonly string[]): SessionFileGroup[] {
  const folders = sessionFolders(root);
  const inSessionFolder = (path: string): boolean => {
    if (basename(path).startsWith('.')) return false;
    const dir = dirname(path);
    const sub = basename(dir);
    return folders.some((folder) => folder.dir === dir || (folder.nested && dirname(dir) === folder.dir && !sub.startsWith('.') && !SKIPPED_DIRS.has(sub)));
  };
  return groupSessionFiles([...new Set(paths)].filter(inSessionFolder), root).sort((a, b) => compare(livePath(a), livePath(b)));
}

function makeGroup(paths: readonly string[], root: string): SessionFileGroup {
  // The id lives inside the file (session_meta / session_id), not reliably in its name.
  return { agent: 'claw', paths, idHint: null, root, archived: false };
}


async function entryKind(entry: Dirent, path: string): Promise<'file' | 'dir' | 'other'> {
  if (entry.isFile()) return 'file';
  if (entry.isDirectory()) return 'dir';
  if (!entry.isSymbolicLink()) return 'other';
  try {
    const target = await walkFs.stat(path);
    // Linked directories are not followed (no cycles); linked files are sessions like any other.
    return target.isFile() ? 'file' : 'other';
  } catch {
    return 'other';
  }
}

/**
 * Walk down from `dir` (at most `maxDepth` levels; `dir` itself is depth 0) and return every workspace that holds
 * `.claw/sessions`, `.claude/sessions` or `.port_sessions`. Skips node_modules, .git, target and other dot
 * directories; does not follow symlinks. Throws when `dir` itself cannot be read.
 */
export async function findClawWorkspaces(dir: string, maxDepth: number): Promise<string[]> {
  const found: string[] = [];
  const visit = async (current: string, depth: number, entries: Dirent[]): Promise<void> => {
    const names = new Set(entries.filter((e) => e.isDirectory()).map((e) => e.name));
    if (names.has('.port_sessions') || (await hasSessionsDir(current, names))) found.push(current);
    if (depth >= maxDepth) return;
    for (const entry of entries) {
      if (!entry.isDirectory() || entry.name.startsWith('.') || SKIPPED_DIRS.has(entry.name)) continue;
      const child = join(current, entry.name);
      let childEntries: Dirent[];
      try {
        childEntries = await walkFs.readdir(child);
      } catch {
        continue; // an unreadable subdirectory is not a workspace we can list
      }
      await visit(child, depth + 1, childEntries);
    }
  };
  await visit(dir, 0, await walkFs.readdir(dir));
  return found.sort(compare);
}

/**
 * The workspace whose session folder `dir` is (`<ws>/.claw`, `<ws>/.claw/sessions`, a per-workspace hash folder
 * `<ws>/.claw/sessions/<hash>`, `<ws>/.claude/sessions`, `<ws>/.port_sessions`), or null when `dir` is not one:
 * `--claw-dir` may name any of them, and claw's files are read (and watched) from their workspace.
 */
export function clawWorkspaceOfSessionFolder(dir: string): string | null {
  const name = basename(dir);
  const parent = dirname(dir);
  const parentName = basename(parent);
  if (name === '.claw' || name === '.port_sessions') return parent;
  if (name === 'sessions' && (parentName === '.claw' || parentName === '.claude')) return dirname(parent);
  if (parentName === 'sessions' && basename(dirname(parent)) === '.claw') return dirname(dirname(parent));
  return null;
}

async function hasSessionsDir(dir: string, names: ReadonlySet<string>): Promise<boolean> {
  for (const name of ['.claw', '.claude']) {
    if (!names.has(name)) continue;
    try {
      if ((await walkFs.stat(join(dir, name, 'sessions'))).isDirectory()) return true;
    } catch {
      // no sessions folder inside
    }
  }
  return false;
}

/** claw's per-workspace folder name: 64-bit FNV-1a of the workspace path's UTF-8 bytes, 16 hex digits. */
export function clawWorkspaceFingerprint(workspaceRoot: string): string {
  let hash = 0xcbf29ce484222325n;
  for (const byte of Buffer.from(workspaceRoot, 'utf8')) {
    hash ^= BigInt(byte);
    hash = (hash * 0x100000001b3n) & 0xffffffffffffffffn;
  }
  return hash.toString(16).padStart(16, '0');
}

/** The workspace a session file belongs to, from its location; null for a `--data-dir` style store. */
function workspaceOf(path: string): string | null {
  const dir = dirname(path);
  const parent = dirname(dir);
  if (basename(dir) === '.port_sessions') return parent;
  if (basename(dir) === 'sessions' && (basename(parent) === '.claw' || basename(parent) === '.claude')) return dirname(parent);
  if (basename(parent) === 'sessions' && basename(dirname(parent)) === '.claw') return dirname(dirname(parent));
  return null;
}

// ---------------------------------------------------------------------------------------------------------
// Records → normalized messages

interface ClawFork {
  readonly parentId: string;
  readonly branchName: string | null;
}

/** What a file says about its session, accumulated record by record (later records win, as in claw's loader). */
class ClawDoc {
  sessionId: string | null = null;
  createdAtMs: number | null = null;
  updatedAtMs: number | null = null;
  latestPromptMs: number | null = null;
  fork: ClawFork | null = null;
  model: string | null = null;
  workspaceRoot: string | null = null;
  version: number | null = null;
  /** The Python port's top-level token totals. */
  portUsage: Usage | null = null;
  /** Real message records seen (compaction markers excluded): a file without any is not listed. */
  messageCount = 0;
  readonly messages: Message[] = [];
  malformed = 0;

  applyMeta(value: JsonObject): void {
    this.sessionId = stringOf(value.session_id) ?? this.sessionId;
    this.createdAtMs = msOf(value.created_at_ms) ?? this.createdAtMs;
    this.updatedAtMs = msOf(value.updated_at_ms) ?? this.updatedAtMs;
    this.model = stringOf(value.model) ?? this.model;
    this.workspaceRoot = stringOf(value.workspace_root) ?? this.workspaceRoot;
    this.version = typeof value.version === 'number' ? value.version : this.version;
    const fork = objectOf(value.fork);
    const parentId = fork ? stringOf(fork.parent_session_id) : null;
    if (fork && parentId !== null) this.fork = { parentId, branchName: stringOf(fork.branch_name) };
  }

  addPrompt(value: JsonObject): void {
    const ms = msOf(value.timestamp_ms);
    if (ms !== null && (this.latestPromptMs === null || ms > this.latestPromptMs)) this.latestPromptMs = ms;
  }

  addMessage(message: Message | null): void {
    if (message === null) {
      this.malformed++;
      return;
    }
    this.messages.push(message);
    this.messageCount++;
  }

  usage(): Usage | null {
    let total: Usage | null = this.portUsage;
    for (const message of this.messages) total = addUsage(total, message.usage);
    return total;
  }
}

/** What a JSONL record is; `userTurn` marks the records a fork counts turns over. */
type RecordKind = 'meta' | 'message' | 'compaction' | 'prompt_history' | 'legacy' | 'unknown';

function recordKind(value: JsonObject): RecordKind {
  switch (value.type) {
    case 'session_meta':
      return 'meta';
    case 'message':
      return 'message';
    case 'compaction':
      return 'compaction';
    case 'prompt_history':
      return 'prompt_history';
    default:
      // A whole legacy object saved under a .jsonl name: claw's loader accepts it, so do we.
      return value.type === undefined && Array.isArray(value.messages) ? 'legacy' : 'unknown';
  }
}

function addJsonlRecords(doc: ClawDoc, records: Iterable<JsonLine>, path: string): void {
  for (const record of records) {
    const value = record.value;
    switch (recordKind(value)) {
      case 'meta':
        doc.applyMeta(value);
        break;
      case 'message':
        doc.addMessage(normalizeMessage(value.message, { path, offset: record.offset }));
        break;
      case 'compaction':
        doc.messages.push(compactionMarker(value, { path, offset: record.offset }));
        break;
      case 'prompt_history':
        doc.addPrompt(value);
        break;
      case 'legacy':
        addLegacyObject(doc, value);
        break;
      case 'unknown':
        // Newer record types are skipped (forward compatible), never fatal.
        break;
    }
  }
}

function compactionMarker(value: JsonObject, source?: Message['source']): Message {
  return {
    role: 'system',
    blocks: [{ type: 'compaction', summary: stringOf(value.summary) ?? '' }],
    userTurn: false,
    ...(source ? { source } : {}),
  };
}

/** A claw message `{role, blocks, usage?}`, or one of the Python port's plain prompt strings; null when malformed. */
function normalizeMessage(raw: unknown, source?: Message['source']): Message | null {
  if (typeof raw === 'string') return { role: 'user', blocks: [{ type: 'text', text: raw }], userTurn: true };
  const value = objectOf(raw);
  if (!value) return null;
  const role = value.role;
  if (typeof role !== 'string' || !(ROLES as readonly string[]).includes(role) || !Array.isArray(value.blocks)) return null;
  const blocks: Block[] = [];
  for (const block of value.blocks) {
    const normalized = normalizeBlock(block);
    if (normalized) blocks.push(normalized);
  }
  const usage = usageOf(value.usage);
  return {
    role: role as Role,
    blocks,
    // A user turn is typed text: tool results travel in role `tool` (or as tool_result-only user messages).
    userTurn: role === 'user' && blocks.some((block) => block.type === 'text'),
    ...(usage ? { usage } : {}),
    ...(source ? { source } : {}),
  };
}

function normalizeBlock(raw: unknown): Block | null {
  const block = objectOf(raw);
  if (!block) return null;
  switch (block.type) {
    case 'text':
      return { type: 'text', text: stringOf(block.text) ?? '' };
    case 'thinking':
      // The signature is opaque data the API checks on replay: reported as `encrypted`, kept byte for byte by forks.
      return { type: 'reasoning', summary: stringOf(block.thinking) ?? '', encrypted: typeof block.signature === 'string' };
    case 'tool_use':
      return { type: 'tool_use', id: stringOf(block.id) ?? '', name: stringOf(block.name) ?? '', input: textOf(block.input) };
    case 'tool_result':
      return { type: 'tool_result', toolUseId: stringOf(block.tool_use_id) ?? '', output: textOf(block.output), isError: block.is_error === true };
    default:
      return null;
  }
}

function usageOf(raw: unknown): Usage | undefined {
  const usage = objectOf(raw);
  if (!usage) return undefined;
  return {
    input: numberOf(usage.input_tokens),
    output: numberOf(usage.output_tokens),
    cacheRead: numberOf(usage.cache_read_input_tokens),
    cacheWrite: numberOf(usage.cache_creation_input_tokens),
  };
}

// ---------------------------------------------------------------------------------------------------------
// Legacy single-object JSON, scanned structurally so that a head or tail slice yields whole messages

interface LegacyLayout {
  /** Complete top-level values other than `messages`. */
  readonly keys: Map<string, Span>;
  /** Complete elements of the `messages` array, in order. */
  readonly messages: Span[];
  messagesArray: boolean;
  /** The object was closed: everything in it was seen. */
  complete: boolean;
  /** Index just past the closing brace when complete (claw may have appended JSONL lines after it). */
  end: number;
}

/** Scan a legacy object from its start: top-level values and message elements that are whole in `buf`. */
function scanLegacyHead(buf: Buffer, final: boolean): LegacyLayout | null {
  let i = skipWhitespace(buf, 0);
  if (buf[i] !== OPEN_BRACE) return null;
  const layout: LegacyLayout = { keys: new Map(), messages: [], messagesArray: false, complete: false, end: buf.length };
  i = skipWhitespace(buf, i + 1);
  if (buf[i] === CLOSE_BRACE) {
    layout.complete = true;
    layout.end = i + 1;
    return layout;
  }
  while (i < buf.length && buf[i] === QUOTE) {
    const keyEnd = stringEnd(buf, i);
    if (keyEnd === -1) return layout;
    const key = decodeString(buf, i, keyEnd);
    if (key === null) return layout;
    i = skipWhitespace(buf, keyEnd);
    if (buf[i] !== COLON) return layout;
    i = skipWhitespace(buf, i + 1);
    if (i >= buf.length) return layout;
    if (key === 'messages' && buf[i] === OPEN_BRACKET) {
      layout.messagesArray = true;
      i = skipWhitespace(buf, i + 1);
      if (buf[i] === CLOSE_BRACKET) {
        i++;
      } else {
        for (;;) {
          const end = valueEnd(buf, i, false);
          if (end === -1) return layout;
          layout.messages.push({ start: i, end });
          i = skipWhitespace(buf, end);
          if (buf[i] === COMMA) {
            i = skipWhitespace(buf, i + 1);
            continue;
          }
          if (buf[i] !== CLOSE_BRACKET) return layout;
          i++;
          break;
        }
      }
    } else {
      const end = valueEnd(buf, i, final);
      if (end === -1) return layout;
      layout.keys.set(key, { start: i, end });
      i = end;
    }
    i = skipWhitespace(buf, i);
    if (buf[i] === COMMA) {
      i = skipWhitespace(buf, i + 1);
      continue;
    }
    if (buf[i] === CLOSE_BRACE) {
      layout.complete = true;
      layout.end = i + 1;
    }
    return layout;
  }
  return layout;
}

/** Apply a legacy object's top-level fields: the session_meta fields, `compaction`, `prompt_history`, port totals. */
function applyLegacyTop(doc: ClawDoc, top: JsonObject): void {
  doc.applyMeta(top);
  if (Array.isArray(top.prompt_history)) for (const entry of top.prompt_history) if (objectOf(entry)) doc.addPrompt(entry as JsonObject);
  if (typeof top.input_tokens === 'number' || typeof top.output_tokens === 'number') {
    doc.portUsage = { input: numberOf(top.input_tokens), output: numberOf(top.output_tokens), cacheRead: 0, cacheWrite: 0 };
  }
}

function addLegacyObject(doc: ClawDoc, value: JsonObject): void {
  applyLegacyTop(doc, value);
  const compaction = objectOf(value.compaction);
  if (compaction) doc.messages.push(compactionMarker(compaction));
  for (const message of value.messages as unknown[]) doc.addMessage(normalizeMessage(message));
}

/** Top-level values of a scanned layout, parsed. */
function layoutTop(buf: Buffer, layout: LegacyLayout): JsonObject {
  const top: JsonObject = {};
  for (const [key, span] of layout.keys) top[key] = parseSpan(buf, span.start, span.end);
  return top;
}

function addLegacyLayout(doc: ClawDoc, buf: Buffer, layout: LegacyLayout): void {
  const top = layoutTop(buf, layout);
  applyLegacyTop(doc, top);
  const compaction = objectOf(top.compaction);
  if (compaction) doc.messages.push(compactionMarker(compaction));
  for (const span of layout.messages) doc.addMessage(normalizeMessage(parseSpan(buf, span.start, span.end)));
}

// ---------------------------------------------------------------------------------------------------------
// Reading

interface FileSizes {
  readonly size: number;
  readonly mtimeMs: number;
  /** Newest `.rot-<ms>` time among the group's rotated files. */
  readonly rotatedMs: number | null;
}

/** The row from every line of the live file; null when it holds no message at all. */
export async function readClawSummary(group: SessionFileGroup, context: AdapterContext): Promise<SessionSummary | null> {
  return (await indexClaw(group, context)).summary;
}

/**
 * The row, from a whole read of the live file with long strings clipped (claw rewrites a file past 256 KiB into
 * a snapshot and rotates it, and a legacy file is one object: a live file is small, and read whole when it changes).
 */
async function indexClaw(group: SessionFileGroup, context: AdapterContext): Promise<IndexedSession> {
  const live = livePath(group);
  const before = indexReads.bytes;
  const fingerprint = headFingerprint(live);
  const { size, mtimeMs } = await stat(live);
  const { doc } = await readLiveFile(live, false, SUMMARY_CLIP_LIMITS);
  indexReads.bytes += size;
  const listed = doc.messageCount > 0;
  if (doc.malformed > 0) reportSkippedLines(context.report, live, { malformed: doc.malformed, partial: 0 }, listed);
  if (!listed) return { summary: null, fingerprint, bytesRead: indexReads.bytes - before };
  const unmarked = unmarkMessages(doc.messages);
  for (let i = 0; i < unmarked.length; i++) doc.messages[i] = unmarked[i]!;
  const sizes = await groupSizes(group, size, mtimeMs);
  return { summary: summarize(group, doc, true, sizes), fingerprint, bytesRead: indexReads.bytes - before };
}

const USER_ROLE = Buffer.from('"role":"user"', 'latin1');

/** A user message (claw's tool results are `tool` messages): it may hold a prompt, which a display read keeps whole (clip.ts). */
function mayHoldPrompt(bytes: Buffer): boolean {
  return bytes.includes(USER_ROLE);
}

/** The whole live file: its transcript (rotated files hold older history the live snapshot already summarises). */
export async function readClawSession(group: SessionFileGroup, _context?: AdapterContext, options: ReadSessionOptions = {}): Promise<Session> {
  const live = livePath(group);
  const { doc } = await readLiveFile(live, false, withPromptLines(options.clip, mayHoldPrompt));
  const { size, mtimeMs } = await stat(live);
  const sizes = await groupSizes(group, size, mtimeMs);
  const messages = options.clip === undefined ? doc.messages : unmarkMessages(doc.messages);
  return { ...summarize(group, doc, true, sizes), messages, malformedLines: doc.malformed };
}

/** A full read of the live file, plus what a fork needs to copy it: its legacy object and its JSONL records. */
interface LiveFile {
  readonly doc: ClawDoc;
  /** A legacy object at the start of the file: the bytes it was scanned from and its layout. */
  readonly legacy: { readonly buf: Buffer; readonly layout: LegacyLayout } | null;
  /** JSONL records (after the legacy object, if any), with their raw bytes. */
  readonly records: readonly JsonLine[];
}

/** With `clip` (display only, never with `keepRecords`) long strings are cut before parsing. */
async function readLiveFile(path: string, keepRecords: boolean, clip?: ClipLimits): Promise<LiveFile> {
  const doc = new ClawDoc();
  const stats = newLineStats();
  if (path.endsWith('.json')) {
    const handle = await openRegular(path);
    let buf: Buffer;
    try {
      buf = await readAt(handle, 0, (await handle.stat()).size);
    } finally {
      await handle.close();
    }
    if (clip !== undefined) buf = clipJsonStrings(buf, clip);
    const legacy = readLegacyBuffer(doc, buf, path);
    if (legacy) return { doc, legacy: { buf, layout: legacy.layout }, records: legacy.records };
    // Not a legacy object: claw then reads the file as JSONL, whatever its name.
    const records = [...jsonObjects(splitLines(buf), stats)];
    addJsonlRecords(doc, records, path);
    doc.malformed += stats.malformed + stats.partial;
    return { doc, legacy: null, records };
  }
  const records: JsonLine[] = [];
  let legacy: LiveFile['legacy'] = null;
  let first = true;
  // Clipped lines are copies: the chunk buffer can be reused.
  for await (const line of readLines(path, { reuseChunk: clip !== undefined })) {
    for (const record of jsonObjects([clip === undefined ? line : clipRawLine(line, clip)], stats)) {
      if (first) {
        first = false;
        const layout = recordKind(record.value) === 'legacy' ? scanLegacyHead(record.bytes, true) : null;
        if (layout?.messagesArray) {
          addLegacyLayout(doc, record.bytes, layout);
          legacy = { buf: record.bytes, layout };
          continue;
        }
      }
      addJsonlRecords(doc, [record], path);
      // A replay of a 200 MB file must not hold every line's bytes: only a fork needs them.
      if (keepRecords) records.push(record);
    }
  }
  doc.malformed += stats.malformed + stats.partial;
  return { doc, legacy, records };
}

/**
 * A legacy object read whole, plus the JSONL lines claw appends after it when it resumes a legacy file
 * (claw itself cannot read such a file back; we can). Null when `buf` does not start with a legacy object.
 */
function readLegacyBuffer(doc: ClawDoc, buf: Buffer, path: string): { layout: LegacyLayout; records: JsonLine[] } | null {
  const layout = scanLegacyHead(buf, true);
  if (!layout?.messagesArray) return null;
  addLegacyLayout(doc, buf, layout);
  if (!layout.complete) {
    doc.malformed++;
    return { layout, records: [] };
  }
  const stats = newLineStats();
  const records = [...jsonObjects(splitLines(buf.subarray(layout.end), layout.end), stats)];
  addJsonlRecords(doc, records, path);
  doc.malformed += stats.malformed + stats.partial;
  return { layout, records };
}

async function groupSizes(group: SessionFileGroup, liveSize: number, liveMtime: number): Promise<FileSizes> {
  let size = liveSize;
  let mtimeMs = liveMtime;
  let rotatedMs: number | null = null;
  for (const path of group.paths.slice(0, -1)) {
    const info = await stat(path);
    size += info.size;
    mtimeMs = Math.max(mtimeMs, info.mtimeMs);
    const rot = ROTATED_NAME.exec(basename(path));
    if (rot) rotatedMs = Math.max(rotatedMs ?? 0, Number(rot[2]));
  }
  return { size, mtimeMs, rotatedMs };
}

function summarize(group: SessionFileGroup, doc: ClawDoc, exact: boolean, sizes: FileSizes): SessionSummary {
  const path = livePath(group);
  const stem = fileStem(path);
  const id = doc.sessionId ?? stem;
  const prompts = doc.messages.filter((message) => message.userTurn).map((message) => promptOpening(messageText(message)));
  const firstPrompt = prompts[0] ?? null;
  const name = doc.fork?.branchName ?? null;
  const fromName = msFromSessionName(id) ?? msFromSessionName(stem);
  const createdMs = doc.createdAtMs ?? fromName ?? sizes.mtimeMs;
  // Appends do not rewrite session_meta, so newer prompt_history entries and rotations also say when it was used.
  const stamps = [doc.updatedAtMs, doc.latestPromptMs, sizes.rotatedMs].filter((ms): ms is number => ms !== null);
  const updatedMs = stamps.length > 0 ? Math.max(...stamps) : (fromName ?? sizes.mtimeMs);
  const fork: ForkOrigin | null = doc.fork ? { id: doc.fork.parentId, ...(doc.fork.branchName ? { branchName: doc.fork.branchName } : {}) } : null;
  return {
    id,
    agent: 'claw',
    path,
    paths: group.paths,
    cwd: doc.workspaceRoot ?? workspaceOf(path),
    title: name ?? (firstPrompt || '(no prompt)'),
    firstPrompt,
    lastPrompt: prompts.at(-1) ?? null,
    name,
    userTurns: prompts.length,
    userTurnsExact: exact,
    prompts,
    createdAt: isoOf(createdMs),
    updatedAt: isoOf(Math.max(updatedMs, createdMs)),
    forkedFrom: doc.fork?.parentId ?? null,
    fork,
    gitBranch: null,
    model: doc.model,
    archived: false,
    usage: doc.usage(),
    size: sizes.size,
    mtimeMs: sizes.mtimeMs,
  };
}

// ---------------------------------------------------------------------------------------------------------
// Fork

let sessionCounter = 0;

/** A fresh id the way claw's generate_session_id makes them: `session-<ms>-<counter>`. */
export function nextSessionId(nowMs: number): string {
  return `session-${nowMs}-${sessionCounter++}`;
}

/** A record a fork may keep, marked for truncateBeforeUserTurn. */
interface KeptLine {
  readonly userTurn: boolean;
  readonly promptHistory: boolean;
  readonly line: Buffer;
}

/**
 * Write a new JSONL session in the source's folder holding user turns 1..atTurn-1 and everything answering them:
 * a fresh session_meta with fork metadata, then the kept compaction / prompt_history / message lines byte for byte.
 */
export async function forkClaw(group: SessionFileGroup, request: ForkRequest, _context?: AdapterContext): Promise<ForkResult> {
  const live = livePath(group);
  const { doc, records, legacy } = await readLiveFile(live, true);
  const userTurns = doc.messages.filter((message) => message.userTurn).length;
  checkForkTurn(request.atTurn, userTurns);

  const lines: KeptLine[] = [...(legacy ? keptLegacyLines(legacy.buf, legacy.layout) : []), ...keptJsonlLines(records)];
  const history = truncateBeforeUserTurn(lines, request.atTurn - 1);
  const kept = history.kind === 'forked' ? history.history.slice() : [];
  // claw records a prompt_history entry just before the prompt's message: it goes with the dropped turn.
  while (kept.length > 0 && kept[kept.length - 1]!.promptHistory) kept.pop();
  const parentId = doc.sessionId ?? fileStem(live);
  const nowMs = (request.now ?? new Date()).getTime();
  const branchName = request.branchName?.trim() || null;

  for (;;) {
    const id = nextSessionId(nowMs);
    const path = join(dirname(live), `${id}.jsonl`);
    const meta = forkMetaLine(doc, id, parentId, branchName, nowMs);
    const chunks: Buffer[] = [Buffer.from(`${meta}\n`, 'utf8')];
    for (const line of kept) chunks.push(line.line, NEWLINE);
    try {
      await createFileAtomic(path, chunks);
    } catch (error) {
      if (errorCode(error) === 'EEXIST') continue; // another session took this name: take the next counter
      throw error;
    }
    return { agent: 'claw', id, path, parentId, keptUserTurns: request.atTurn - 1 };
  }
}

const NEWLINE = Buffer.from('\n');

function keptJsonlLines(records: readonly JsonLine[]): KeptLine[] {
  const lines: KeptLine[] = [];
  for (const record of records) {
    const kind = recordKind(record.value);
    // The fork writes its own session_meta; unknown record types would make claw's loader refuse the file.
    if (kind !== 'message' && kind !== 'compaction' && kind !== 'prompt_history') continue;
    const message = kind === 'message' ? normalizeMessage(record.value.message) : null;
    if (kind === 'message' && message === null) continue;
    lines.push({ userTurn: message?.userTurn ?? false, promptHistory: kind === 'prompt_history', line: record.bytes });
  }
  return lines;
}

/** Legacy messages become JSONL message records around their original bytes (re-serialised only if multi-line). */
function keptLegacyLines(buf: Buffer, layout: LegacyLayout): KeptLine[] {
  const lines: KeptLine[] = [];
  const top = layoutTop(buf, layout);
  const compaction = objectOf(top.compaction);
  if (compaction) {
    const record = { count: compaction.count, removed_message_count: compaction.removed_message_count, summary: compaction.summary, type: 'compaction' };
    lines.push({ userTurn: false, promptHistory: false, line: Buffer.from(JSON.stringify(record), 'utf8') });
  }
  for (const span of layout.messages) {
    const raw = buf.subarray(span.start, span.end);
    const value = parseSpan(buf, span.start, span.end);
    const message = normalizeMessage(value);
    if (message === null) continue;
    let body: Buffer;
    if (typeof value === 'string') {
      body = Buffer.from(JSON.stringify(clawMessageJson({ role: 'user', blocks: message.blocks })), 'utf8');
    } else if (raw.includes(0x0a) || raw.includes(0x0d)) {
      body = Buffer.from(JSON.stringify(sortKeys(value)), 'utf8');
    } else {
      body = raw;
    }
    lines.push({ userTurn: message.userTurn, promptHistory: false, line: Buffer.concat([MESSAGE_PREFIX, body, MESSAGE_SUFFIX]) });
  }
  return lines;
}

const MESSAGE_PREFIX = Buffer.from('{"message":');
const MESSAGE_SUFFIX = Buffer.from(',"type":"message"}');

/** claw's session_meta with its keys in claw's (alphabetical) order. */
function forkMetaLine(doc: ClawDoc, id: string, parentId: string, branchName: string | null, nowMs: number): string {
  return JSON.stringify({
    created_at_ms: nowMs,
    fork: branchName === null ? { parent_session_id: parentId } : { branch_name: branchName, parent_session_id: parentId },
    ...(doc.model !== null ? { model: doc.model } : {}),
    session_id: id,
    type: 'session_meta',
    updated_at_ms: nowMs,
    version: doc.version ?? 1,
    ...(doc.workspaceRoot !== null ? { workspace_root: doc.workspaceRoot } : {}),
  });
}

// ---------------------------------------------------------------------------------------------------------
// Resume in place

/** A message to append: normalized, optionally with the claw fields the normalized model does not carry. */
export interface ClawAppendMessage {
  readonly role: Role;
  readonly blocks: readonly (Block | (ToolResultBlock & { readonly toolName?: string }) | (ReasoningBlock & { readonly signature?: string }))[];
  readonly usage?: Usage;
}

/**
 * Append one `{"message":{…},"type":"message"}` line per message to an existing JSONL session (claw's own
 * append-in-place). Never creates or rewrites a file; refuses a legacy single-object file (a line appended to it
 * would make it unreadable).
 */
export async function appendClawMessages(path: string, messages: readonly ClawAppendMessage[]): Promise<void> {
  await assertJsonlSession(path);
  if (messages.length === 0) return;
  const toolNames = new Map<string, string>();
  for (const message of messages) for (const block of message.blocks) if (block.type === 'tool_use') toolNames.set(block.id, block.name);
  await appendLines(
    path,
    messages.map((message) => JSON.stringify({ message: clawMessageJson(message, toolNames), type: 'message' })),
  );
}

async function assertJsonlSession(path: string): Promise<void> {
  let first: JsonObject | null = null;
  for await (const line of readLines(path)) {
    if (line.bytes.toString('utf8').trim() === '') continue;
    first = [...jsonObjects([line], newLineStats())][0]?.value ?? null;
    break;
  }
  const kind = first ? recordKind(first) : 'unknown';
  if (first === null || kind === 'legacy' || kind === 'unknown') {
    throw new Error(`${path} is not a claw JSONL session (legacy or unknown content): fork it to get a JSONL copy to resume`);
  }
}

/** A message as claw serialises it: keys in alphabetical order (claw renders BTreeMaps). */
export function clawMessageJson(message: ClawAppendMessage, toolNames: ReadonlyMap<string, string> = new Map()): JsonObject {
  const usage = message.usage;
  return {
    blocks: message.blocks.map((block) => clawBlockJson(block, toolNames)),
    role: message.role,
    ...(usage
      ? {
          usage: {
            cache_creation_input_tokens: usage.cacheWrite,
            cache_read_input_tokens: usage.cacheRead,
            input_tokens: usage.input,
            output_tokens: usage.output,
          },
        }
      : {}),
  };
}

function clawBlockJson(block: ClawAppendMessage['blocks'][number], toolNames: ReadonlyMap<string, string>): JsonObject {
  switch (block.type) {
    case 'text':
      return { text: block.text, type: 'text' };
    case 'reasoning': {
      const signature = 'signature' in block ? block.signature : undefined;
      return signature === undefined ? { thinking: block.summary, type: 'thinking' } : { signature, thinking: block.summary, type: 'thinking' };
    }
    case 'tool_use':
      return { id: block.id, input: block.input, name: block.name, type: 'tool_use' };
    case 'tool_result': {
      // claw requires tool_name: take it from the block, else from the tool_use it answers.
      const toolName = ('toolName' in block ? block.toolName : undefined) ?? toolNames.get(block.toolUseId) ?? '';
      return { is_error: block.isError, output: block.output, tool_name: toolName, tool_use_id: block.toolUseId, type: 'tool_result' };
    }
    case 'compaction':
      throw new TypeError('a compaction marker is not a message block claw can store');
    case 'image':
      throw new TypeError('claw sessions have no image block');
  }
}

/** The Resumed history for a claw session: claw appends to the live file in place, so it names that file. */
export async function resumeClawInPlace(group: SessionFileGroup, context?: AdapterContext): Promise<InitialHistory> {
  const session = await readClawSession(group, context);
  return { kind: 'resumed', id: session.id, history: session.messages, path: session.path };
}

/** How deep below a --claw-dir (and, without one, below the current directory) claw workspaces are looked for. */
export const CLAW_SEARCH_DEPTH = 4;

/**
 * What a mirror copies below a folder searched for workspaces: each workspace's session folders, in the folder and
 * down to CLAW_SEARCH_DEPTH levels below it, through the folders findClawWorkspaces walks (not hidden ones, not
 * SKIPPED_DIRS).
 */
function clawMirrorFilter(): string[] {
  const sessionFolders = ['.claw/', '.claw/sessions/***', '.claude/', '.claude/sessions/***', '.port_sessions/***'];
  const skipped = ['.*/', ...[...SKIPPED_DIRS].map((name) => `${name}/`)];
  const levels = Array.from({ length: CLAW_SEARCH_DEPTH }, (_, i) => `${'*/'.repeat(i + 1)}`);
  return [
    ...sessionFolders.flatMap((pattern) => [`+ ${pattern}`, `+ **/${pattern}`]),
    ...skipped.flatMap((pattern) => [`- ${pattern}`, `- **/${pattern}`]),
    ...levels.map((pattern) => `+ ${pattern}`),
  ];
}

/** What a mirror copies of a workspace named by another session's cwd: its session folders only. */
const CLAW_WORKSPACE_FILTER = ['+ .claw/', '+ .claw/sessions/***', '+ .claude/', '+ .claude/sessions/***', '+ .port_sessions/***'];

/** Whether findClawWorkspaces(root, CLAW_SEARCH_DEPTH) looks at `dir` (host paths: POSIX). */
function clawSearchReaches(root: string, dir: string): boolean {
  if (dir !== root && !dir.startsWith(root === '/' ? '/' : `${root}/`)) return false;
  const parts = dir.slice(root.length).split('/').filter(Boolean);
  return parts.length <= CLAW_SEARCH_DEPTH && parts.every((part) => !part.startsWith('.') && !SKIPPED_DIRS.has(part));
}

/** True when `dir` holds claw sessions: `.claw/sessions`, `.claude/sessions` or `.port_sessions`. */
export async function isClawWorkspace(dir: string): Promise<boolean> {
  // Most cwds other sessions recorded no longer exist (or are not folders): one failed stat, not three.
  if (!(await isDirectory(dir))) return false;
  const checks = await Promise.all([join(dir, '.claw', 'sessions'), join(dir, '.claude', 'sessions'), join(dir, '.port_sessions')].map(isDirectory));
  return checks.some(Boolean);
}

/**
 * The workspaces to look in: each --claw-dir's (a session folder names its workspace; any other directory is searched
 * 4 levels down), the current directory and its ancestors, and without --claw-dir the current directory's subfolders.
 */
async function clawCandidateRoots(configured: readonly string[], cwd: string, report: ReportProblem): Promise<string[]> {
  const roots: string[] = [];
  for (const dir of configured) {
    const workspace = clawWorkspaceOfSessionFolder(dir);
    if (workspace !== null) {
      roots.push(workspace);
      continue;
    }
    try {
      roots.push(...(await findClawWorkspaces(dir, CLAW_SEARCH_DEPTH)));
    } catch (error) {
      report({ path: dir, message: describeError(error) });
    }
  }
  roots.push(...selfAndAncestors(cwd));
  // The current directory's sessions include its subfolders' (README): by default workspaces below it count too. An
  // explicit --claw-dir says where claw sessions are instead (as every explicit location replaces a default); and
  // never below the filesystem root, where that walk would be every mounted disk (and /proc).
  if (configured.length === 0 && dirname(cwd) !== cwd) roots.push(...(await findClawWorkspaces(cwd, CLAW_SEARCH_DEPTH).catch(() => [] as string[])));
  return roots;
}

/** <workspace>/.claw/sessions[/<hash>]/…, <workspace>/.claude/sessions/…, <workspace>/.port_sessions/… */
function clawWatched(parts: readonly string[]): boolean {
  return parts[0] === '.port_sessions' ? parts.length <= 2 : (parts[0] === '.claw' || parts[0] === '.claude') && (parts.length === 1 || parts[1] === 'sessions');
}

export const clawAdapter: FormatAdapter = {
  agent: 'claw',
  label: 'claw',
  locations: {
    flag: '--claw-dir <dir>',
    flagHelp: 'a folder to search for claw workspaces (repeatable)',
    homeFolder: null,
    defaultRoots: () => [],
    readme: {
      where:
        "`<workspace>/.claw/sessions/` (and its per-workspace hash folders, the legacy `.claude/sessions/*.json`, `.port_sessions/`) in the current directory and its ancestors, in every directory other agents' sessions ran in, and under each `--claw-dir DIR` (4 levels deep); without `--claw-dir`, in the current directory's subfolders too (4 levels deep)",
      options:
        '`--claw-dir DIR` (repeatable): a directory holding workspaces, a workspace, or one of its session folders (`.claw`, `.claw/sessions`, `.claw/sessions/<hash>`, `.claude/sessions`, `.port_sessions`: the whole workspace is read)',
    },
    describeRoot: (dir) => `claw workspaces under ${dir}`,
    describeAlso: (cwd) => `claw workspaces at ${cwd} and its parents, and at the directories other sessions ran in`,
  },
  discovery: { candidateRoots: clawCandidateRoots, isRoot: isClawWorkspace, rootsFromCwds: true },
  watch: { roots: 'found', depth: 3, wanted: clawWatched, fileSuffixes: ['.jsonl', '.json'] },
  // On a host: the workspaces in its login directory and below, as `sessions` run there finds them.
  // …and the workspaces other sessions on the host ran in, that search does not reach (as `sessions` there finds them).
  mirror: { variables: [], hostRoots: ({ homeDir }) => [homeDir], filter: clawMirrorFilter(), workspaces: { filter: CLAW_WORKSPACE_FILTER, reached: clawSearchReaches } },
  resume: {
    interactive: ['claw', '{args}', '--resume', '{path}', '{prompt}'],
    exec: ['claw', '{args}', '--resume', '{path}', '{prompt}'],
  },
  // claw's generate_session_id: `session-<ms>[-<counter>]`; the Python port's sessions: uuid4().hex.
  idShape: { pattern: /^(?:session-\d{1,20}(?:-\d{1,10})?|[0-9a-f]{32})$/, description: 'session-<digits>[-<n>] (or 32 hex digits)' },
  forkTarget: 'in the same sessions folder as the original, <new id>.jsonl',
  discover: discoverClaw,
  groupFiles: groupClawFiles,
  nameIdHint: (group) => basename(livePath(group)).replace(/(\.rot-\d+)?\.jsonl?$/, ''),
  readSummary: readClawSummary,
  indexSession: indexClaw,
  readSession: readClawSession,
  fork: forkClaw,
};

// ---------------------------------------------------------------------------------------------------------
// Small helpers

function livePath(group: SessionFileGroup): string {
  const path = group.paths.at(-1);
  if (path === undefined) throw new Error('a claw session group has no file');
  return path;
}

function fileStem(path: string): string {
  return basename(path).replace(/\.jsonl?$/, '');
}

function msFromSessionName(name: string): number | null {
  const match = SESSION_MS.exec(name);
  return match ? Number(match[1]) : null;
}

function isoOf(ms: number): string {
  const date = new Date(ms);
  return Number.isNaN(date.getTime()) ? new Date(0).toISOString() : date.toISOString();
}

function objectOf(value: unknown): JsonObject | null {
  return isRecord(value) ? value : null;
}

function stringOf(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}

function msOf(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : null;
}

function numberOf(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : 0;
}

function textOf(value: unknown): string {
  return typeof value === 'string' ? value : value === undefined ? '' : JSON.stringify(value);
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  const object = objectOf(value);
  if (!object) return value;
  return Object.fromEntries(
    Object.keys(object)
      .sort()
      .map((key) => [key, sortKeys(object[key])]),
  );
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}



async function isDirectory(path: string): Promise<boolean> {
  try {
    return (await walkFs.stat(path)).isDirectory();
  } catch {
    return false;
  }
}
