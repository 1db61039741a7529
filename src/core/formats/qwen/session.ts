/** A Qwen Code chat file: its records folded into a row, read as a transcript, forked. */
import { foldJsonLines, indexReads, type LineStats } from '../../io/lines.js';
import { addUsage, promptOpening, type Block, type Message, type SessionSummary, type Usage } from '../../model.js';
import { isoTimestamp } from '../../time.js';
import { functionResponseBlocks, hasFunctionResponse, imageBlocks, modelPartBlocks, partList } from '../gemini/parts.js';
import { reportSkippedLines } from '../problems.js';
import type { AdapterContext, FoldResume, IndexedSession, SessionFileGroup } from '../types.js';
import { isRecord, type JsonObject } from '../../json.js';
import { livePath, fileStem } from '../group-files.js';
export { livePath, fileStem };

/** The session file names Qwen Code lists (`SESSION_FILE_PATTERN`): `<uuid>.jsonl`. */
export const SESSION_FILE = /^[0-9a-fA-F-]{32,36}\.jsonl$/;

const RECORD_TYPES = new Set(['user', 'assistant', 'tool_result', 'system']);
/** System records that are never part of the conversation chain (Qwen Code's artifact and bookkeeping records). */
const NOT_CONVERSATION = new Set([
  'session_artifact_event',
  'session_artifact_snapshot',
  'session_sources_snapshot',
  'managed_session_header_v1',
  'managed_session_event_v1',
  'managed_session_commit_v1',
]);
/** System records whose text is the conversation's: the compaction summary, a /rename, a slash command as typed. */
const CONVERSATION_SYSTEM = new Set(['chat_compression', 'custom_title', 'slash_command']);

/** What an opening holds when `isQwenNonConversationLine` says true of it: only system records are rejected. */
export const QWEN_NON_CONVERSATION_NEEDLES: readonly string[] = ['"type":"system"'];

/**
 * True for a line that is never conversation text, by its opening (`sessions grep` counts no match in it): `system`
 * records other than the few that hold the conversation's words: `ui_telemetry` (copies of each response, tool
 * arguments, the memory agent's answers), attribution snapshots, artifact bookkeeping. The first `"type"` of a
 * record is its own (Qwen Code writes it before the message); a system record whose subtype is past the opening
 * (a very long cwd) is counted.
 */
export function isQwenNonConversationLine(opening: string): boolean {
  if (/"type":"([a-z_]+)"/.exec(opening)?.[1] !== 'system') return false;
  const subtype = /"subtype":"([A-Za-z0-9_]+)"/.exec(opening)?.[1];
  return subtype !== undefined && !CONVERSATION_SYSTEM.has(subtype);
}

/** The hook context Qwen Code appends to a prompt's parts: not the user's words. */
const HOOK_CONTEXT = /^\s*<qwen:user-prompt-submit-context>/;
/**
 * Reminders Qwen Code 0.24 puts in the typed prompt's own record, as a part before the typed one (a `--worktree`
 * start, a resume: "[Resumed] Active worktree…", "background agent was restored…"): what the model was told, not what
 * the user typed. A run of them at either end of a text part goes; text between two of them was typed and stays.
 */
const LEADING_REMINDERS = /^\s*(?:<system-reminder>[\s\S]*?<\/system-reminder>\s*)+/;
const TRAILING_REMINDERS = /(?:\s*<system-reminder>(?:(?!<system-reminder>)[\s\S])*?<\/system-reminder>)+\s*$/;

function withoutReminders(text: string): string {
  if (!text.includes('<system-reminder>')) return text;
  return text.replace(LEADING_REMINDERS, '').replace(TRAILING_REMINDERS, '');
}

export interface QwenRecord {
  readonly uuid: string;
  readonly parentUuid: string | null;
  readonly type: string;
  readonly subtype: string | undefined;
  /** The record's parsed line (the first fragment's, with every fragment's parts joined once aggregated). */
  readonly value: JsonObject;
  /** Byte offset of the line (the first fragment's). */
  readonly offset: number;
}

interface QwenFile {
  /** Every valid record, in file order (fragments included). */
  readonly records: readonly QwenRecord[];
  readonly stats: LineStats;
  readonly size: number;
  readonly mtimeMs: number;
  readonly fingerprint: string;
}

function toRecord(value: unknown, offset: number): QwenRecord | null {
  if (!isRecord(value)) return null;
  const { uuid, parentUuid, sessionId, type, subtype } = value;
  if (typeof uuid !== 'string' || uuid.length === 0 || (typeof parentUuid !== 'string' && parentUuid !== null)) return null;
  if (typeof sessionId !== 'string' || sessionId.length === 0 || typeof type !== 'string' || !RECORD_TYPES.has(type)) return null;
  return { uuid, parentUuid, type, subtype: typeof subtype === 'string' ? subtype : undefined, value, offset };
}

export async function readQwenFile(path: string): Promise<QwenFile> {
  const records: QwenRecord[] = [];
  const { file, stats, takePartial } = await foldJsonLines(path, 0, (value, offset) => {
    const record = toRecord(value, offset);
    if (record !== null) records.push(record);
    return record !== null;
  });
  takePartial();
  return { records, stats, size: file.size, mtimeMs: file.mtimeMs, fingerprint: file.fingerprint };
}

export function isConversationRecord(record: QwenRecord): boolean {
  return !(record.type === 'system' && record.subtype !== undefined && NOT_CONVERSATION.has(record.subtype));
}

/** The active chain (root first), each record aggregated from its fragments: what Qwen Code resumes. */
export function qwenChain(records: readonly QwenRecord[]): QwenRecord[] {
  const fragments = new Map<string, QwenRecord[]>();
  let leaf: string | undefined;
  for (const record of records) {
    if (!isConversationRecord(record)) continue;
    const list = fragments.get(record.uuid);
    if (list) list.push(record);
    else fragments.set(record.uuid, [record]);
    leaf = record.uuid;
  }
  const chain: QwenRecord[] = [];
  const visited = new Set<string>();
  for (let current = leaf; current !== undefined && !visited.has(current); ) {
    visited.add(current);
    const list = fragments.get(current);
    if (!list) break;
    chain.push(aggregate(list));
    current = list[0]!.parentUuid ?? undefined;
  }
  return chain.reverse();
}

function aggregate(list: readonly QwenRecord[]): QwenRecord {
  const first = list[0]!;
  if (list.length === 1) return first;
  const value: JsonObject = { ...first.value };
  const parts: unknown[] = [];
  for (const fragment of list) {
    const message = fragment.value.message;
    if (isRecord(message)) parts.push(...partList(message.parts));
    if (fragment !== first && fragment.value.usageMetadata !== undefined) value.usageMetadata = fragment.value.usageMetadata;
    if (value.toolCallResult === undefined && fragment.value.toolCallResult !== undefined) value.toolCallResult = fragment.value.toolCallResult;
  }
  const message = isRecord(first.value.message) ? first.value.message : {};
  value.message = { ...message, parts };
  return { ...first, value };
}

/** A record's parts; a single part written as an object (not a list) is read as that one part. */
function parts(record: QwenRecord): unknown[] {
  const message = record.value.message;
  return isRecord(message) ? partList(message.parts) : [];
}

/** The prompt as typed: the text parts, without the hook context and the reminders Qwen Code adds. */
function promptText(record: QwenRecord): string {
  return partList(parts(record))
    .filter((part) => typeof part.text === 'string' && part.thought !== true && !HOOK_CONTEXT.test(part.text))
    .map((part) => withoutReminders(part.text as string))
    .join('');
}

/** A prompt the user typed (Qwen Code's `real_user` provenance on a user record without a subtype or a mid-turn one). */
export function isQwenUserTurn(record: QwenRecord): boolean {
  if (record.type !== 'user') return false;
  if (record.subtype !== undefined && record.subtype !== 'mid_turn_user_message') return false;
  const provenance = record.value.provenance;
  if (provenance !== undefined && provenance !== 'real_user') return false;
  if (hasFunctionResponse(parts(record))) return false;
  return promptText(record).trim().length > 0 || imageBlocks(parts(record)).length > 0;
}

/** A record's `usageMetadata` as usage (cached input counted apart). */
function usageOf(value: JsonObject): Usage | undefined {
  const usage = value.usageMetadata;
  if (!isRecord(usage)) return undefined;
  const number = (value: unknown): number => (typeof value === 'number' && Number.isFinite(value) ? value : 0);
  const cached = number(usage.cachedContentTokenCount);
  return { input: number(usage.promptTokenCount) - cached, output: number(usage.candidatesTokenCount) + number(usage.thoughtsTokenCount), cacheRead: cached, cacheWrite: 0 };
}

function compactionSummary(payload: unknown): string {
  if (!isRecord(payload)) return '';
  const history = payload.compressedHistory;
  if (!Array.isArray(history)) return '';
  // The summary the model got is the compressed history's first user content.
  const first = history.find((content) => isRecord(content) && content.role === 'user');
  return isRecord(first) ? partList(first.parts).filter((part) => typeof part.text === 'string').map((part) => part.text as string).join('\n') : '';
}

/** The transcript: prompts, answers with their thoughts, tool calls and results, compaction markers. */
export function qwenMessages(chain: readonly QwenRecord[]): Message[] {
  const out: Message[] = [];
  for (const record of chain) {
    const timestamp = isoTimestamp(record.value.timestamp) ?? undefined;
    const stamp = timestamp === undefined ? {} : { timestamp };
    if (record.type === 'user') {
      if (hasFunctionResponse(parts(record))) {
        out.push({ role: 'tool', blocks: functionResponseBlocks(parts(record)), userTurn: false, ...stamp });
        continue;
      }
      const text = promptText(record);
      const images = imageBlocks(parts(record));
      if (text.trim().length > 0 || images.length > 0) {
        out.push({ role: 'user', blocks: [...(text.length > 0 ? [{ type: 'text' as const, text }] : []), ...images], userTurn: isQwenUserTurn(record), ...stamp });
      }
    } else if (record.type === 'assistant') {
      const blocks = modelPartBlocks(parts(record));
      const usage = usageOf(record.value);
      if (blocks.length > 0) out.push({ role: 'assistant', blocks, userTurn: false, ...stamp, ...(usage ? { usage } : {}) });
    } else if (record.type === 'tool_result') {
      const result = record.value.toolCallResult;
      const isError = isRecord(result) && (result.status === 'error' || result.status === 'cancelled');
      const blocks: Block[] = functionResponseBlocks(parts(record), isError);
      if (blocks.length > 0) out.push({ role: 'tool', blocks, userTurn: false, ...stamp });
    } else if (record.subtype === 'chat_compression') {
      out.push({ role: 'system', blocks: [{ type: 'compaction', summary: compactionSummary(record.value.systemPayload) }], userTurn: false, ...stamp });
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------------
// Rows



export function stringOrNull(value: unknown): string | null {
  return typeof value === 'string' && value.length > 0 ? value : null;
}

/** What the row needs of one message (a uuid's fragments joined): the index keeps this, never the parts. */
interface QwenNode {
  readonly parentUuid: string | null;
  readonly type: string;
  readonly subtype: string | null;
  readonly provenance: string | null;
  /** A user message's prompt text (its fragments' joined), whole up to PROMPT_KEEP characters. */
  text: string;
  /** The text was longer than PROMPT_KEEP: `opening` is its opening, and another fragment cannot be joined to it. */
  cut: boolean;
  opening: string;
  functionResponse: boolean;
  image: boolean;
  readonly model: string | null;
  usage: Usage | null;
  readonly gitBranch: string | null;
}

/** Prompts longer than this keep only their opening in the fold (a pasted log can be megabytes). */
const PROMPT_KEEP = 16 * 1024;

/**
 * The row's fold over a session file's records, in file order: one node per conversation uuid (fragments joined
 * as Qwen Code joins them), the last conversation record (the active leaf), and the file-wide facts a row reads
 * (the first record's id, cwd and fork origin, the last /rename, the first and last times). Plain JSON: the index
 * saves it, and a file that only grew is folded on from where it stopped.
 */
export class QwenScan {
  first: { sessionId: string | null; cwd: string | null; forkedFrom: string | null } | null = null;
  name: string | null = null;
  firstTimestamp: string | null = null;
  lastTimestamp: string | null = null;
  leaf: string | null = null;
  readonly nodes = new Map<string, QwenNode>();
  /** A fragment came for a prompt whose text the fold had cut: only a whole read can join them. */
  needsWholeRead = false;

  add(value: unknown): boolean {
    const record = toRecord(value, 0);
    if (record === null) return false;
    const v = record.value;
    if (this.first === null) {
      this.first = { sessionId: stringOrNull(v.sessionId), cwd: stringOrNull(v.cwd), forkedFrom: isRecord(v.forkedFrom) ? stringOrNull(v.forkedFrom.sessionId) : null };
    }
    const timestamp = isoTimestamp(v.timestamp);
    if (timestamp !== null) {
      this.firstTimestamp ??= timestamp;
      if (this.lastTimestamp === null || timestamp > this.lastTimestamp) this.lastTimestamp = timestamp;
    }
    if (record.subtype === 'custom_title' && isRecord(v.systemPayload)) this.name = stringOrNull(v.systemPayload.customTitle) ?? this.name;
    if (!isConversationRecord(record)) return true;
    this.leaf = record.uuid;
    const recordParts = parts(record);
    const text = record.type === 'user' ? promptText(record) : '';
    const known = this.nodes.get(record.uuid);
    if (known === undefined) {
      this.nodes.set(record.uuid, {
        parentUuid: record.parentUuid,
        type: record.type,
        subtype: record.subtype ?? null,
        provenance: stringOrNull(v.provenance),
        text: text.length > PROMPT_KEEP ? '' : text,
        cut: text.length > PROMPT_KEEP,
        opening: text.length > PROMPT_KEEP ? promptOpening(text) : '',
        functionResponse: hasFunctionResponse(recordParts),
        image: imageBlocks(recordParts).length > 0,
        model: stringOrNull(v.model),
        usage: usageOf(v) ?? null,
        gitBranch: stringOrNull(v.gitBranch),
      });
      return true;
    }
    if (text !== '') {
      if (known.cut) this.needsWholeRead = true;
      known.text += text;
      if (known.text.length > PROMPT_KEEP) {
        known.opening = promptOpening(known.text);
        known.text = '';
        known.cut = true;
      }
    }
    known.functionResponse ||= hasFunctionResponse(recordParts);
    known.image ||= imageBlocks(recordParts).length > 0;
    const usage = usageOf(v) ?? null;
    if (usage !== null) known.usage = usage;
    return true;
  }

  /** The active chain, root first. */
  chain(): QwenNode[] {
    const chain: QwenNode[] = [];
    const visited = new Set<string>();
    for (let current = this.leaf; current !== null && !visited.has(current); ) {
      visited.add(current);
      const node = this.nodes.get(current);
      if (node === undefined) break;
      chain.push(node);
      current = node.parentUuid;
    }
    return chain.reverse();
  }

  exportState(): JsonObject {
    return { first: this.first, name: this.name, firstTimestamp: this.firstTimestamp, lastTimestamp: this.lastTimestamp, leaf: this.leaf, nodes: [...this.nodes.entries()] };
  }

  static import(state: unknown): QwenScan | null {
    if (!isRecord(state) || !Array.isArray(state.nodes)) return null;
    const { first, name, firstTimestamp, lastTimestamp, leaf } = state;
    if (![name, firstTimestamp, lastTimestamp, leaf].every((value) => value === null || typeof value === 'string')) return null;
    if (first !== null && !(isRecord(first) && [first.sessionId, first.cwd, first.forkedFrom].every((value) => value === null || typeof value === 'string'))) return null;
    const scan = new QwenScan();
    Object.assign(scan, { first, name, firstTimestamp, lastTimestamp, leaf });
    for (const entry of state.nodes as unknown[]) {
      if (!Array.isArray(entry) || typeof entry[0] !== 'string' || !isNode(entry[1])) return null;
      scan.nodes.set(entry[0], entry[1]);
    }
    return scan;
  }
}

function isNode(value: unknown): value is QwenNode {
  if (!isRecord(value)) return false;
  const strings = [value.parentUuid, value.subtype, value.provenance, value.model, value.gitBranch].every((field) => field === null || typeof field === 'string');
  const usage = value.usage === null || (isRecord(value.usage) && ['input', 'output', 'cacheRead', 'cacheWrite'].every((key) => typeof (value.usage as JsonObject)[key] === 'number'));
  return strings && usage && typeof value.type === 'string' && typeof value.text === 'string' && typeof value.opening === 'string' && [value.cut, value.functionResponse, value.image].every((flag) => typeof flag === 'boolean');
}

/** The rule of isQwenUserTurn, on a fold's node. */
function isTurnNode(node: QwenNode): boolean {
  if (node.type !== 'user') return false;
  if (node.subtype !== null && node.subtype !== 'mid_turn_user_message') return false;
  if (node.provenance !== null && node.provenance !== 'real_user') return false;
  if (node.functionResponse) return false;
  return (node.cut ? node.opening !== '' : node.text.trim().length > 0) || node.image;
}

export function summarize(group: SessionFileGroup, scan: QwenScan, size: number, mtimeMs: number): SessionSummary {
  const path = livePath(group);
  const first = scan.first;
  const id = first?.sessionId ?? fileStem(path);
  const prompts: string[] = [];
  let model: string | null = null;
  let usage: Usage | null = null;
  let gitBranch: string | null = null;
  for (const node of scan.chain()) {
    if (isTurnNode(node)) prompts.push(node.cut ? node.opening : promptOpening(node.text));
    if (node.type === 'assistant') {
      model = node.model ?? model;
      usage = addUsage(usage, node.usage);
    }
    gitBranch = node.gitBranch ?? gitBranch;
  }
  const forkedFrom = first?.forkedFrom ?? null;
  const parent = forkedFrom !== null && forkedFrom !== id ? forkedFrom : null;
  const mtime = new Date(mtimeMs).toISOString();
  const firstPrompt = prompts[0] ?? null;
  return {
    id,
    agent: 'qwen',
    path,
    paths: [path],
    cwd: first?.cwd ?? null,
    title: scan.name ?? firstPrompt ?? '(no prompt)',
    firstPrompt,
    lastPrompt: prompts.at(-1) ?? null,
    name: scan.name,
    userTurns: prompts.length,
    userTurnsExact: true,
    prompts,
    createdAt: scan.firstTimestamp ?? mtime,
    updatedAt: scan.lastTimestamp ?? mtime,
    forkedFrom: parent,
    fork: parent === null ? null : { id: parent },
    gitBranch,
    model,
    archived: group.archived,
    usage,
    size,
    mtimeMs,
  };
}

/**
 * The row from every record of the file, or from a saved fold plus the records appended since (Qwen Code only
 * appends: a rewind is a new branch from an older parent, a fragment repeats its uuid). The fold is saved before a
 * last line still being written.
 */
export async function indexQwen(group: SessionFileGroup, context: AdapterContext, resume?: FoldResume): Promise<IndexedSession> {
  const path = livePath(group);
  const resumed = resume !== undefined && resume.path === path ? QwenScan.import(resume.state) : null;
  const scan = resumed ?? new QwenScan();
  const before = indexReads.bytes;
  const { file, stats, takePartial } = await foldJsonLines(path, resumed === null ? 0 : resume!.offset, (value) => scan.add(value));
  if (resumed !== null && scan.needsWholeRead) return indexQwen(group, context);
  const state = file.size >= (context.saveFoldFrom ?? Number.POSITIVE_INFINITY) ? scan.exportState() : undefined;
  takePartial();
  const bytesRead = indexReads.bytes - before;
  const saved = state === undefined ? {} : { resume: { path, offset: file.end, state } };
  const conversation = scan.chain().some(isTurnNode);
  reportSkippedLines(context.report, path, stats, conversation);
  if (!conversation && [...scan.nodes.values()].some(isTurnNode)) {
    // Qwen Code resumes the chain of parents from the last record: here it reaches none of the file's prompts.
    context.report({ path, message: 'not listed: the chain of parents from its last record reaches none of its prompts (a record that is its own parent, or a parent that is missing)' });
  }
  if (!conversation) return { summary: null, fingerprint: file.fingerprint, bytesRead, ...saved };
  return { summary: summarize(group, scan, file.size, file.mtimeMs), fingerprint: file.fingerprint, bytesRead, ...saved };
}

// ---------------------------------------------------------------------------------------------------------------
// Discovery

export function group(root: string, path: string, archived: boolean): SessionFileGroup {
  return { agent: 'qwen', paths: [path], idHint: fileStem(path), root, archived };
}
