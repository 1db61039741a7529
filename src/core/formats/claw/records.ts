/** claw's records as normalized messages: `session_meta`, `message`, `compaction`, `prompt_history`. */
import { type JsonLine } from '../../io/lines.js';
import { addUsage, type Block, type Message, type Role, type Usage } from '../../model.js';
import { type JsonObject } from '../../json.js';
import { msOf, numberOf, objectOf, stringOf, textOf } from './values.js';

const ROLES: readonly Role[] = ['system', 'user', 'assistant', 'tool'];

// ---------------------------------------------------------------------------------------------------------
// Records → normalized messages

interface ClawFork {
  readonly parentId: string;
  readonly branchName: string | null;
}

/** What a file says about its session, accumulated record by record (later records win, as in claw's loader). */
export class ClawDoc {
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

export function recordKind(value: JsonObject): RecordKind {
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

export function addJsonlRecords(doc: ClawDoc, records: Iterable<JsonLine>, path: string): void {
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

export function compactionMarker(value: JsonObject, source?: Message['source']): Message {
  return {
    role: 'system',
    blocks: [{ type: 'compaction', summary: stringOf(value.summary) ?? '' }],
    userTurn: false,
    ...(source ? { source } : {}),
  };
}

/** A claw message `{role, blocks, usage?}`, or one of the Python port's plain prompt strings; null when malformed. */
export function normalizeMessage(raw: unknown, source?: Message['source']): Message | null {
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

/** Apply a legacy object's top-level fields: the session_meta fields, `compaction`, `prompt_history`, port totals. */
export function applyLegacyTop(doc: ClawDoc, top: JsonObject): void {
  doc.applyMeta(top);
  if (Array.isArray(top.prompt_history)) for (const entry of top.prompt_history) if (objectOf(entry)) doc.addPrompt(entry as JsonObject);
  if (typeof top.input_tokens === 'number' || typeof top.output_tokens === 'number') {
    doc.portUsage = { input: numberOf(top.input_tokens), output: numberOf(top.output_tokens), cacheRead: 0, cacheWrite: 0 };
  }
}

export function addLegacyObject(doc: ClawDoc, value: JsonObject): void {
  applyLegacyTop(doc, value);
  const compaction = objectOf(value.compaction);
  if (compaction) doc.messages.push(compactionMarker(compaction));
  for (const message of value.messages as unknown[]) doc.addMessage(normalizeMessage(message));
}
