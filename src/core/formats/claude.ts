/**
 * Claude Code sessions: `<config dir>/projects/<cwd with non-alphanumerics as ->/<session uuid>.jsonl`.
 *
 * A file is a tree of lines linked by `parentUuid` (rewinds leave dead branches); the transcript is the chain
 * from the active leaf back to the root, crossing `/compact` boundaries through `logicalParentUuid`.
 */
import type { Dirent } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { basename, dirname, join, relative, sep } from 'node:path';

import { checkForkTurn, errorCode, errorMessage, ForkRangeError, isRecord } from '../errors.js';
import { uuidv4 } from '../ids.js';
import { createFileAtomic } from '../io/atomic.js';
import { openRegular, readRegularFile } from '../io/regular.js';
import { clipJsonStrings, clipRawLine, PARTIAL_AFTER_BYTES, PARTIAL_AFTER_LINES, SUMMARY_CLIP_LIMITS, takeClipMarks, unmarkMessages, withPromptLines, type ClipLimits } from '../io/clip.js';
import { jsonObjects, newLineStats, readHeadTail, readLines, type JsonLine, type LineStats, type RawLine } from '../io/lines.js';
import { promptOpening, type Block, type Message, type Session, type SessionSummary, type Usage } from '../model.js';
import { isoTimestamp } from '../time.js';
import { truncateBeforeUserTurn } from '../truncate.js';
import { commandAnsweredBy, isClaudeNonConversationLine, isLocalCommandCaveat, isOnlyIdeContext, isOtherOrigin, sidecarTitle, stripIdeContext, typedSlashCommand } from './claude-rules.js';
import { reportSkippedLines } from './problems.js';
import type { AdapterContext, ForkRequest, ForkResult, FormatAdapter, ReadSessionOptions, ReportProblem, SessionFileGroup } from './types.js';

type JsonObject = Record<string, unknown>;

/** One line of the tree: every line with a `uuid` is a node (attachments and progress lines included). */
export interface ClaudeNode {
  readonly uuid: string;
  readonly parentUuid: string | null;
  /** Set on compact boundaries: the old leaf the boundary continues from. */
  readonly logicalParentUuid: string | null;
  readonly type: string;
  readonly sidechain: boolean;
  /** Byte offset and length (terminator excluded) of the line: a fork copies exactly these bytes. */
  readonly offset: number;
  readonly length: number;
  /** The parsed line for user/assistant/system lines (what messages are made of); null for the rest. */
  readonly value: JsonObject | null;
  /** A real user prompt (not a tool result, meta, command, compact summary or interruption line). */
  readonly userTurn: boolean;
  /** A meta line (`isMeta`): a slash command's expansion, a caveat, injected context. */
  readonly meta: boolean;
  /** The `<local-command-caveat>` line before a local command's lines: its child is command output. */
  readonly caveat: boolean;
  /** The slash command a user line holds, as typed (`/init`), or null. */
  readonly command: string | null;
}

/** Line types that can be the active leaf (the last one in file order is where the conversation stands). */
const LEAF_TYPES = new Set(['user', 'assistant', 'attachment', 'system']);
/** Line types whose parsed value is kept to build messages. */
const MESSAGE_TYPES = new Set(['user', 'assistant', 'system']);

/** User lines that Claude Code writes for slash commands, `!` shell mode and interruptions: not prompts. */
const NOT_A_PROMPT =
  /^(?:<(?:command-name|command-message|command-args|local-command-stdout|local-command-stderr|local-command-caveat|bash-input|bash-stdout|bash-stderr)>|\[Request interrupted by user)/;

/** The model name Claude Code records for messages it made up itself (e.g. "No response requested."). */
const SYNTHETIC_MODEL = '<synthetic>';

function stringOrNull(value: unknown): string | null {
  return typeof value === 'string' && value.length > 0 ? value : null;
}

function messageOf(value: JsonObject): JsonObject | null {
  return isRecord(value.message) ? value.message : null;
}

function contentBlocks(content: unknown): JsonObject[] {
  return Array.isArray(content) ? content.filter(isRecord) : [];
}

/** The text a user line carries as written: the string content, or its text blocks joined. */
function rawUserText(content: unknown): string {
  if (typeof content === 'string') return content;
  return contentBlocks(content)
    .filter((block) => block.type === 'text' && typeof block.text === 'string')
    .map((block) => block.text as string)
    .join('\n');
}

/** The prompt a slash command line stands for, as typed (`/init`), when the line is one. */
function slashCommandOf(text: string): string | null {
  return /^\s*<command-(?:name|message)>/.test(text) ? typedSlashCommand(text) : null;
}

/**
 * The text a user line carries as the user typed it: the string content, or its text blocks joined, without the
 * IDE context an extension put first (`<ide_selection>`, …); a slash command line as the command typed.
 */
export function claudeUserText(content: unknown): string {
  const raw = typeof content === 'string' ? content : contentBlocks(content)
    .filter((block) => block.type === 'text' && typeof block.text === 'string')
    .map((block) => stripIdeContext(block.text as string))
    .filter((text) => text.length > 0)
    .join('\n');
  return slashCommandOf(raw) ?? stripIdeContext(raw);
}

/** True for a `<local-command-caveat>` meta line: the line under it is a local command's output. */
export function isClaudeCommandCaveat(value: JsonObject): boolean {
  return value.type === 'user' && isLocalCommandCaveat(value, rawUserText(messageOf(value)?.content));
}

/**
 * True when a `user` line is a real prompt typed (or sent) by the user; `underCaveat` when its parent is a
 * `<local-command-caveat>` line (then it is a local command's output). A slash command that started model work
 * becomes a turn once its answer is seen (see `commandAnsweredBy`).
 */
export function isClaudeUserTurn(value: JsonObject, underCaveat = false): boolean {
  if (value.type !== 'user' || value.isSidechain === true || value.isMeta === true || value.isCompactSummary === true) {
    return false;
  }
  const content = messageOf(value)?.content;
  const blocks = contentBlocks(content);
  if (blocks.some((block) => block.type === 'tool_result')) return false;
  const raw = rawUserText(content);
  if (underCaveat || isOtherOrigin(value, raw)) return false;
  const text = claudeUserText(content).trim();
  if (text.length === 0) return blocks.some((block) => block.type === 'image');
  return !NOT_A_PROMPT.test(raw.trim());
}

function usageOf(message: JsonObject): Usage | null {
  const usage = message.usage;
  if (!isRecord(usage)) return null;
  const count = (value: unknown): number => (typeof value === 'number' && Number.isFinite(value) ? value : 0);
  return {
    input: count(usage.input_tokens),
    output: count(usage.output_tokens),
    cacheRead: count(usage.cache_read_input_tokens),
    cacheWrite: count(usage.cache_creation_input_tokens),
  };
}

/** What a pass over a file's lines (all of them, or head and tail) learns; messages are built from the nodes. */
class ClaudeScan {
  readonly nodes = new Map<string, ClaudeNode>();
  /** Leaf candidates (non-sidechain user/assistant/attachment/system nodes) in file order. */
  readonly candidates: ClaudeNode[] = [];
  hasConversation = false;
  sessionId: string | null = null;
  cwd: string | null = null;
  gitBranch: string | null = null;
  model: string | null = null;
  firstTimestamp: string | null = null;
  lastTimestamp: string | null = null;
  customTitle: string | null = null;
  /** When the last `custom-title` line was written (the last timestamp before it; the line has none). */
  customTitleAt: string | null = null;
  agentName: string | null = null;
  /** 2.1.330 marks lines copied by `--fork-session` with the session they came from: the last one is the parent. */
  requestSessionId: string | null = null;
  /** The latest `ai-title` or `summary` line (Claude Code's own title), with the summary's leaf when it has one. */
  agentTitles: { readonly title: string; readonly leafUuid: string | null }[] = [];
  lastPrompt: string | null = null;
  /** Usage per API message id: streamed lines share an id; the last line seen holds the final count. */
  readonly usageById = new Map<string, Usage>();
  private anonymousUsage = 0;

  add(line: JsonLine): void {
    const value = line.value;
    const type = typeof value.type === 'string' ? value.type : '';
    const sidechain = value.isSidechain === true;
    const timestamp = isoTimestamp(value.timestamp);
    if (timestamp !== null) {
      this.firstTimestamp ??= timestamp;
      this.lastTimestamp = timestamp;
    }
    switch (type) {
      case 'custom-title':
        this.customTitle = stringOrNull(value.customTitle) ?? stringOrNull(value.title) ?? this.customTitle;
        this.customTitleAt = this.lastTimestamp;
        break;
      case 'agent-name':
        this.agentName = stringOrNull(value.agentName) ?? stringOrNull(value.name) ?? this.agentName;
        break;
      case 'ai-title': {
        const title = stringOrNull(value.aiTitle) ?? stringOrNull(value.title);
        if (title !== null) this.agentTitles.push({ title, leafUuid: null });
        break;
      }
      case 'summary': {
        const title = stringOrNull(value.summary);
        if (title !== null) this.agentTitles.push({ title, leafUuid: stringOrNull(value.leafUuid) });
        break;
      }
      case 'last-prompt':
        this.lastPrompt = stringOrNull(value.lastPrompt) ?? this.lastPrompt;
        break;
    }
    if ((type === 'user' || type === 'assistant') && !sidechain) {
      this.hasConversation = true;
      this.sessionId ??= stringOrNull(value.sessionId);
      this.cwd ??= stringOrNull(value.cwd);
      this.gitBranch = stringOrNull(value.gitBranch) ?? this.gitBranch;
      this.requestSessionId = stringOrNull(value.requestSessionId) ?? this.requestSessionId;
    }
    if (type === 'assistant' && !sidechain) this.addAssistant(value);
    const uuid = stringOrNull(value.uuid);
    if (uuid === null) return;
    if (MESSAGE_TYPES.has(type)) {
      // The tool's structured result duplicates the tool_result block; do not hold it in memory.
      delete value.toolUseResult;
    }
    const parentUuid = stringOrNull(value.parentUuid);
    const node: ClaudeNode = {
      uuid,
      parentUuid,
      logicalParentUuid: stringOrNull(value.logicalParentUuid),
      type,
      sidechain,
      offset: line.offset,
      length: line.bytes.length,
      value: MESSAGE_TYPES.has(type) ? value : null,
      userTurn: type === 'user' && isClaudeUserTurn(value, parentUuid !== null && this.nodes.get(parentUuid)?.caveat === true),
      meta: value.isMeta === true,
      caveat: isClaudeCommandCaveat(value),
      command: type === 'user' ? slashCommandOf(rawUserText(messageOf(value)?.content)) : null,
    };
    this.nodes.set(uuid, node);
    if (type === 'assistant' && !sidechain) this.markAnsweredCommand(node);
    if (!sidechain && LEAF_TYPES.has(type)) this.candidates.push(node);
  }

  /** A slash command whose expansion this assistant line answers started model work: it is a turn. */
  private markAnsweredCommand(answer: ClaudeNode): void {
    const command = commandAnsweredBy(answer, (node) => (node.parentUuid === null ? undefined : this.nodes.get(node.parentUuid)));
    if (command !== null && !command.userTurn) this.nodes.set(command.uuid, { ...command, userTurn: true });
  }

  private addAssistant(value: JsonObject): void {
    const message = messageOf(value);
    if (message === null) return;
    const model = stringOrNull(message.model);
    if (model !== null && model !== SYNTHETIC_MODEL) this.model = model;
    const usage = usageOf(message);
    if (usage === null) return;
    this.usageById.set(stringOrNull(message.id) ?? `#${this.anonymousUsage++}`, usage);
  }

  /** The session's title from Claude Code itself: a summary of a leaf in this file, or an ai-title. */
  agentTitle(whole: boolean): string | null {
    for (let i = this.agentTitles.length - 1; i >= 0; i--) {
      const { title, leafUuid } = this.agentTitles[i]!;
      // Old releases put summaries of other conversations at the top of a file; those name another session.
      if (leafUuid === null || this.nodes.has(leafUuid) || !whole) return title;
    }
    return null;
  }

  totalUsage(): Usage | null {
    let total: Usage | null = null;
    for (const usage of this.usageById.values()) {
      total = total === null ? usage : {
        input: total.input + usage.input,
        output: total.output + usage.output,
        cacheRead: total.cacheRead + usage.cacheRead,
        cacheWrite: total.cacheWrite + usage.cacheWrite,
      };
    }
    return total;
  }

  /** The active chain when every line was read. */
  activeChain(): ClaudeNode[] {
    const leaf = this.candidates.at(-1);
    return leaf === undefined ? [] : this.chainFrom(leaf).chain;
  }

  /**
   * The chain as far as head and tail show it: the tail's chain back to the first missing parent, preceded by
   * the head's own chain (the conversation's start) when the two do not meet. Good enough for a listing; the
   * exact count comes from a full read.
   */
  partialChain(tailStart: number): ClaudeNode[] {
    const leaf = this.candidates.at(-1);
    if (leaf === undefined) return [];
    const { chain, complete } = this.chainFrom(leaf);
    if (complete) return chain;
    const headLeaf = this.candidates.findLast((node) => node.offset < tailStart);
    if (headLeaf === undefined) return chain;
    const known = new Set(chain.map((node) => node.uuid));
    return [...this.chainFrom(headLeaf).chain.filter((node) => !known.has(node.uuid)), ...chain];
  }

  /** Walk from `leaf` to the root, continuing through `logicalParentUuid` where a compact boundary cut the tree. */
  chainFrom(leaf: ClaudeNode): { chain: ClaudeNode[]; complete: boolean } {
    const chain: ClaudeNode[] = [];
    const seen = new Set<string>();
    let complete = true;
    for (let node: ClaudeNode | undefined = leaf; node !== undefined && !seen.has(node.uuid); ) {
      seen.add(node.uuid);
      chain.push(node);
      const next: string | null = node.parentUuid ?? node.logicalParentUuid;
      if (next === null) break;
      node = this.nodes.get(next);
      if (node === undefined) complete = false;
    }
    return { chain: chain.reverse(), complete };
  }
}

function addToScan(scan: ClaudeScan, lines: Iterable<JsonLine>): void {
  for (const line of lines) scan.add(line);
}

/**
 * Stream a whole file into a scan (lines of any size; malformed and partial lines counted, never fatal).
 * With `clip` (display only) long strings are cut before parsing and node lengths are the clipped ones: such a
 * scan must never be forked from.
 */
async function scanFile(
  path: string,
  clip?: ClipLimits,
  onStart?: (scan: ClaudeScan) => void,
): Promise<{ scan: ClaudeScan; stats: LineStats; size: number; mtimeMs: number }> {
  const info = await stat(path);
  const scan = new ClaudeScan();
  const stats = newLineStats();
  let count = 0;
  // Clipped lines are copies: the chunk buffer can be reused.
  for await (const line of readLines(path, { reuseChunk: clip !== undefined })) {
    addToScan(scan, jsonObjects([clip === undefined ? line : clipRawLine(line, clip)], stats));
    if (onStart !== undefined && (++count >= PARTIAL_AFTER_LINES || line.offset >= PARTIAL_AFTER_BYTES)) {
      onStart(scan);
      onStart = undefined;
    }
  }
  return { scan, stats, size: info.size, mtimeMs: info.mtimeMs };
}

function livePath(group: SessionFileGroup): string {
  const path = group.paths.at(-1);
  if (path === undefined) throw new Error('a Claude session group has no file');
  return path;
}

function fileStem(path: string): string {
  return basename(path).replace(/\.jsonl$/, '');
}

/** The `/rename` sidecar Claude Code 2.1.330 writes beside a session file, when there is one. */
interface TitleSidecar {
  readonly title: string;
  readonly mtimeMs: number;
}

async function readTitleSidecar(path: string): Promise<TitleSidecar | null> {
  const sidecar = join(dirname(path), fileStem(path), 'custom-title.json');
  try {
    const info = await stat(sidecar);
    if (!info.isFile() || info.size > 64 * 1024) return null;
    const title = sidecarTitle((await readRegularFile(sidecar)).toString('utf8'));
    return title === null ? null : { title, mtimeMs: info.mtimeMs };
  } catch {
    return null;
  }
}

/** The newest of the sidecar's title and the file's last `custom-title` line. */
function customTitleOf(scan: ClaudeScan, sidecar: TitleSidecar | null): string | null {
  if (sidecar === null) return scan.customTitle;
  if (scan.customTitle === null) return sidecar.title;
  const inFileAt = scan.customTitleAt === null ? Number.NEGATIVE_INFINITY : Date.parse(scan.customTitleAt);
  return sidecar.mtimeMs >= inFileAt ? sidecar.title : scan.customTitle;
}

interface SummaryInput {
  readonly group: SessionFileGroup;
  readonly sidecar: TitleSidecar | null;
  readonly scan: ClaudeScan;
  readonly chain: readonly ClaudeNode[];
  readonly exact: boolean;
  readonly size: number;
  readonly mtimeMs: number;
}

function summarize({ group, sidecar, scan, chain, exact, size, mtimeMs }: SummaryInput): SessionSummary {
  const path = livePath(group);
  const prompts = chain
    .filter((node) => node.userTurn && node.value !== null)
    .map((node) => promptOpening(userTurnText(node.value!)));
  const firstPrompt = prompts[0] || null;
  const name = customTitleOf(scan, sidecar) ?? scan.agentName;
  // The id `claude --resume` looks up is the file's name; copied lines may carry another session's id.
  const id = fileStem(path);
  const parent = scan.requestSessionId !== null && scan.requestSessionId !== id ? scan.requestSessionId : null;
  const mtime = new Date(mtimeMs).toISOString();
  const lineage = chain[0]?.uuid;
  return {
    id,
    agent: 'claude',
    path,
    paths: [path],
    cwd: scan.cwd,
    title: name ?? scan.agentTitle(exact) ?? (firstPrompt || '(no prompt)'),
    firstPrompt,
    // The chain decides: Claude Code's own `last-prompt` record is wrong in --fork-session files (it names the first prompt).
    lastPrompt: (prompts.length > 0 ? lastTurnText(chain) : null) ?? (scan.lastPrompt === null ? null : takeClipMarks(scan.lastPrompt).text),
    name,
    userTurns: prompts.length,
    userTurnsExact: exact,
    prompts,
    createdAt: scan.firstTimestamp ?? mtime,
    updatedAt: scan.lastTimestamp ?? mtime,
    forkedFrom: parent,
    fork: parent === null ? null : { id: parent },
    ...(lineage === undefined ? {} : { lineage }),
    gitBranch: scan.gitBranch,
    model: scan.model,
    archived: group.archived,
    usage: scan.totalUsage(),
    size,
    mtimeMs,
  };
}

/**
 * A summary shows 200 characters of a prompt and nothing of tool results, thinking or attachments, which are
 * most of a Claude file's bytes: long strings of big lines are clipped before parsing (a third of the parse
 * time of a cold scan). Clipped strings end with a mark (clip.ts), taken out of what a summary shows.
 */
const SUMMARY_CLIP_FROM_BYTES = 4096;

const USER_LINE = Buffer.from('"type":"user"', 'latin1');
const TOOL_RESULT = Buffer.from('"tool_result"', 'latin1');

/** A `user` line that is not a tool result: it may hold a prompt, which a display read keeps whole (clip.ts). */
function mayHoldPrompt(bytes: Buffer): boolean {
  return bytes.includes(USER_LINE) && !bytes.includes(TOOL_RESULT);
}

function clipForSummary(line: RawLine): RawLine {
  return line.bytes.length < SUMMARY_CLIP_FROM_BYTES ? line : { ...line, bytes: clipJsonStrings(line.bytes, SUMMARY_CLIP_LIMITS) };
}

function userTurnText(value: JsonObject): string {
  const content = messageOf(value)?.content;
  const text = takeClipMarks(claudeUserText(content)).text;
  return text.trim().length > 0 ? text : contentBlocks(content).some((block) => block.type === 'image') ? '[image]' : text;
}

/** A user line that holds IDE context and nothing else (its child line holds the prompt). */
function isIdeContextLine(node: ClaudeNode): boolean {
  if (node.type !== 'user' || node.value === null || node.userTurn) return false;
  const content = messageOf(node.value)?.content;
  return isOnlyIdeContext(rawUserText(content)) && !contentBlocks(content).some((block) => block.type !== 'text');
}

function lastTurnText(chain: readonly ClaudeNode[]): string | null {
  const last = chain.findLast((node) => node.userTurn && node.value !== null);
  return last === undefined ? null : promptOpening(userTurnText(last.value!));
}

function toolResultOutput(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return content === undefined || content === null ? '' : JSON.stringify(content);
  return contentBlocks(content)
    .map((block) => (block.type === 'text' && typeof block.text === 'string' ? block.text : block.type === 'image' ? '[image]' : JSON.stringify(block)))
    .join('\n');
}

/** A user line's blocks as shown: IDE context left out, a slash command as typed. */
function userBlocks(content: unknown): Block[] {
  const command = slashCommandOf(rawUserText(content));
  if (command !== null) return [{ type: 'text', text: command }];
  if (typeof content === 'string') {
    const text = stripIdeContext(content);
    return text.length > 0 || content.length === 0 ? [{ type: 'text', text }] : [];
  }
  const blocks: Block[] = [];
  for (const block of contentBlocks(content)) {
    if (block.type === 'text' && typeof block.text === 'string') {
      const text = stripIdeContext(block.text);
      if (text.length > 0 || block.text.length === 0) blocks.push({ type: 'text', text });
    }
    else if (block.type === 'image') blocks.push({ type: 'text', text: '[image]' });
    else if (block.type === 'tool_result') {
      blocks.push({
        type: 'tool_result',
        toolUseId: typeof block.tool_use_id === 'string' ? block.tool_use_id : '',
        output: toolResultOutput(block.content),
        isError: block.is_error === true,
      });
    }
  }
  return blocks;
}

function assistantBlocks(content: unknown): Block[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  const blocks: Block[] = [];
  for (const block of contentBlocks(content)) {
    switch (block.type) {
      case 'text':
        if (typeof block.text === 'string') blocks.push({ type: 'text', text: block.text });
        break;
      case 'thinking':
        blocks.push({ type: 'reasoning', summary: typeof block.thinking === 'string' ? block.thinking : '', encrypted: Boolean(block.signature) });
        break;
      case 'redacted_thinking':
        blocks.push({ type: 'reasoning', summary: '', encrypted: true });
        break;
      case 'tool_use':
      case 'server_tool_use':
        blocks.push({
          type: 'tool_use',
          id: typeof block.id === 'string' ? block.id : '',
          name: typeof block.name === 'string' ? block.name : '',
          input: JSON.stringify(block.input ?? {}),
        });
        break;
      default:
        // Server tool results (web search and the like) answer a server_tool_use in the same message.
        if (typeof block.tool_use_id === 'string') {
          blocks.push({ type: 'tool_result', toolUseId: block.tool_use_id, output: toolResultOutput(block.content), isError: false });
        }
    }
  }
  return blocks;
}

/** Normalized messages for a chain: streamed lines of one API message become one message, usage counted once. */
export function claudeMessages(chain: readonly ClaudeNode[], path: string, usageById: ReadonlyMap<string, Usage>): Message[] {
  const messages: Message[] = [];
  const usageGiven = new Set<string>();
  let lastAssistantId: string | null = null;
  for (const node of chain) {
    const value = node.value;
    if (value === null || node.sidechain) continue;
    const timestamp = isoTimestamp(value.timestamp) ?? undefined;
    const source = { path, offset: node.offset };
    const message = messageOf(value);
    let assistantId: string | null = null;
    if (node.type === 'system') {
      if (value.subtype === 'compact_boundary') {
        messages.push({ role: 'system', blocks: [{ type: 'compaction', summary: '' }], userTurn: false, timestamp, source });
      }
    } else if (node.type === 'user' && value.isCompactSummary === true) {
      // The summary the model saw after /compact: it belongs to the marker, not to the user.
      const summary = claudeUserText(message?.content);
      const previous = messages.at(-1);
      const block = previous?.blocks[0];
      if (previous !== undefined && block?.type === 'compaction' && block.summary === '') {
        messages[messages.length - 1] = { ...previous, blocks: [{ type: 'compaction', summary }] };
      } else {
        messages.push({ role: 'system', blocks: [{ type: 'compaction', summary }], userTurn: false, timestamp, source });
      }
    } else if (node.type === 'user') {
      const blocks = userBlocks(message?.content);
      const role = blocks.some((block) => block.type === 'tool_result') ? 'tool' : 'user';
      // A line that held only IDE context shows nothing: its child line holds the prompt.
      if (blocks.length > 0 || node.userTurn) messages.push({ role, blocks, userTurn: node.userTurn, timestamp, source });
    } else if (node.type === 'assistant' && message !== null) {
      assistantId = stringOrNull(message.id);
      const blocks = assistantBlocks(message.content);
      const previous = messages.at(-1);
      if (assistantId !== null && assistantId === lastAssistantId && previous !== undefined) {
        messages[messages.length - 1] = { ...previous, blocks: [...previous.blocks, ...blocks] };
      } else {
        const usage = assistantId !== null && !usageGiven.has(assistantId) ? usageById.get(assistantId) : undefined;
        if (assistantId !== null) usageGiven.add(assistantId);
        messages.push({ role: 'assistant', blocks, userTurn: false, timestamp, ...(usage ? { usage } : {}), source });
      }
    }
    lastAssistantId = assistantId;
  }
  return messages;
}

/**
 * Byte spans `[start, end)` (quotes included) of every top-level `"key": "<string>"` value in a JSON object line.
 * Works on raw bytes: multi-byte UTF-8 (and invalid bytes) never look like ASCII quotes, braces or backslashes.
 */
export function topLevelStringSpans(bytes: Buffer, key: string): [number, number][] {
  const spans: [number, number][] = [];
  let i = skipWhitespace(bytes, 0);
  if (bytes[i] !== 0x7b) return spans;
  i++;
  for (;;) {
    i = skipWhitespace(bytes, i);
    if (bytes[i] !== 0x22) return spans; // '}' (end) or not JSON
    const keyEnd = skipString(bytes, i);
    if (keyEnd < 0) return spans;
    const name = decodeString(bytes.subarray(i, keyEnd));
    i = skipWhitespace(bytes, keyEnd);
    if (bytes[i] !== 0x3a) return spans;
    const valueStart = skipWhitespace(bytes, i + 1);
    const valueEnd = skipValue(bytes, valueStart);
    if (valueEnd < 0) return spans;
    if (name === key && bytes[valueStart] === 0x22) spans.push([valueStart, valueEnd]);
    i = skipWhitespace(bytes, valueEnd);
    if (bytes[i] !== 0x2c) return spans;
    i++;
  }
}

function skipWhitespace(bytes: Buffer, i: number): number {
  while (i < bytes.length && (bytes[i] === 0x20 || bytes[i] === 0x09 || bytes[i] === 0x0a || bytes[i] === 0x0d)) i++;
  return i;
}

/** Index just past the string starting at `i` (a quote), or -1 when it does not end. */
function skipString(bytes: Buffer, i: number): number {
  for (let j = i + 1; j < bytes.length; j++) {
    if (bytes[j] === 0x5c) j++;
    else if (bytes[j] === 0x22) return j + 1;
  }
  return -1;
}

function skipValue(bytes: Buffer, i: number): number {
  const first = bytes[i];
  if (first === undefined) return -1;
  if (first === 0x22) return skipString(bytes, i);
  if (first === 0x7b || first === 0x5b) {
    let depth = 0;
    for (let j = i; j < bytes.length; j++) {
      const byte = bytes[j];
      if (byte === 0x22) {
        j = skipString(bytes, j) - 1;
        if (j < 0) return -1;
      } else if (byte === 0x7b || byte === 0x5b) depth++;
      else if (byte === 0x7d || byte === 0x5d) {
        depth--;
        if (depth === 0) return j + 1;
      }
    }
    return -1;
  }
  let j = i;
  while (j < bytes.length && bytes[j] !== 0x2c && bytes[j] !== 0x7d && bytes[j] !== 0x5d && bytes[j] !== 0x20 && bytes[j] !== 0x09) j++;
  return j;
}

function decodeString(token: Buffer): string | null {
  try {
    const value: unknown = JSON.parse(token.toString('utf8'));
    return typeof value === 'string' ? value : null;
  } catch {
    return null;
  }
}

/** The line with every top-level `sessionId` string replaced by `id`; all other bytes untouched. */
export function rewriteSessionId(line: Buffer, id: string): Buffer {
  return rewriteTopLevelString(line, 'sessionId', id);
}

/**
 * A line copied into a fork: its `sessionId` is the fork's; a `requestSessionId` (2.1.330 marks the lines its
 * --fork-session copied with the session they came from) names the session this copy came from. All other
 * bytes untouched.
 */
export function rewriteForkedLine(line: Buffer, id: string, parentId: string): Buffer {
  return rewriteTopLevelString(rewriteSessionId(line, id), 'requestSessionId', parentId);
}

function rewriteTopLevelString(line: Buffer, key: string, value: string): Buffer {
  const spans = topLevelStringSpans(line, key);
  if (spans.length === 0) return line;
  const replacement = Buffer.from(JSON.stringify(value), 'utf8');
  const parts: Buffer[] = [];
  let from = 0;
  for (const [start, end] of spans) {
    parts.push(line.subarray(from, start), replacement);
    from = end;
  }
  parts.push(line.subarray(from));
  return Buffer.concat(parts);
}

async function readSpans(path: string, nodes: readonly ClaudeNode[]): Promise<Buffer[]> {
  const handle = await openRegular(path);
  try {
    const out: Buffer[] = [];
    for (const node of nodes) {
      const buffer = Buffer.alloc(node.length);
      let filled = 0;
      while (filled < node.length) {
        const { bytesRead } = await handle.read(buffer, filled, node.length - filled, node.offset + filled);
        if (bytesRead === 0) throw new Error(`${path} changed while forking: line at byte ${node.offset} is gone`);
        filled += bytesRead;
      }
      out.push(buffer);
    }
    return out;
  } finally {
    await handle.close();
  }
}

async function isKind(path: string, entry: Dirent, kind: 'file' | 'directory'): Promise<boolean> {
  if (kind === 'file' ? entry.isFile() : entry.isDirectory()) return true;
  if (!entry.isSymbolicLink()) return false;
  try {
    const info = await stat(path);
    return kind === 'file' ? info.isFile() : info.isDirectory();
  } catch {
    return false;
  }
}

/** Session files of one project folder; subagent folders and `agent-*.jsonl` sidechain files belong to a parent. */
async function discoverProject(root: string, dir: string, report: ReportProblem): Promise<SessionFileGroup[]> {
  let entries: Dirent[];
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch (error) {
    report({ path: dir, message: errorMessage(error) });
    return [];
  }
  const groups: SessionFileGroup[] = [];
  for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
    const { name } = entry;
    if (!name.endsWith('.jsonl') || name.startsWith('agent-') || name.startsWith('.')) continue;
    const path = join(dir, name);
    if (!(await isKind(path, entry, 'file'))) continue;
    groups.push({ agent: 'claude', paths: [path], idHint: fileStem(path), root, archived: false });
  }
  return groups;
}

export const claudeAdapter: FormatAdapter = {
  agent: 'claude',
  isNonConversationLine: isClaudeNonConversationLine,
  // Attachments (skill listings, environment), system prompts and request shapes.
  notConversation: /"attachment"\s*:\s*\{[^{}]*$|"system"\s*:\s*(\[\s*\{[^{}]*)?$|"type"\s*:\s*"(api-request-shape|api-request|system)"[^{}]*$/,

  groupFiles(root: string, paths: readonly string[]): SessionFileGroup[] {
    return paths
      .filter((path) => {
        const rel = relative(root, path).split(sep);
        const name = rel[2] ?? '';
        return rel.length === 3 && rel[0] === 'projects' && name.endsWith('.jsonl') && !name.startsWith('agent-') && !name.startsWith('.');
      })
      .sort()
      .map((path) => ({ agent: 'claude', paths: [path], idHint: fileStem(path), root, archived: false }));
  },

  async discover(root: string, report: ReportProblem): Promise<SessionFileGroup[]> {
    const projects = join(root, 'projects');
    let entries: Dirent[];
    try {
      entries = await readdir(projects, { withFileTypes: true });
    } catch (error) {
      // No projects folder: Claude Code was never used with this config dir; nothing to report.
      const code = errorCode(error);
      if (code !== 'ENOENT' && code !== 'ENOTDIR') report({ path: projects, message: errorMessage(error) });
      return [];
    }
    const groups: SessionFileGroup[] = [];
    for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
      const dir = join(projects, entry.name);
      if (await isKind(dir, entry, 'directory')) groups.push(...(await discoverProject(root, dir, report)));
    }
    return groups;
  },

  async readSummary(group: SessionFileGroup, context: AdapterContext): Promise<SessionSummary | null> {
    const path = livePath(group);
    const headTail = await readHeadTail(path, context.headBytes, context.tailBytes);
    if (headTail.size === 0) return null;
    const scan = new ClaudeScan();
    const stats = newLineStats();
    addToScan(scan, jsonObjects(headTail.head.map(clipForSummary), stats));
    addToScan(scan, jsonObjects(headTail.tail.map(clipForSummary), stats));
    if (headTail.whole || !scan.hasConversation) {
      // A big file whose head and tail hold no message could still hold one in between: read it all to be sure.
      const full = headTail.whole ? { scan, stats, size: headTail.size, mtimeMs: headTail.mtimeMs } : await scanFile(path);
      reportSkippedLines(context.report, path, full.stats, full.scan.hasConversation);
      if (!full.scan.hasConversation) return null;
      const sidecar = await readTitleSidecar(path);
      return summarize({ group, sidecar, scan: full.scan, chain: full.scan.activeChain(), exact: true, size: full.size, mtimeMs: full.mtimeMs });
    }
    reportSkippedLines(context.report, path, stats, true);
    const tailStart = headTail.tail[0]?.offset ?? headTail.size;
    const sidecar = await readTitleSidecar(path);
    return summarize({ group, sidecar, scan, chain: scan.partialChain(tailStart), exact: false, size: headTail.size, mtimeMs: headTail.mtimeMs });
  },

  async readSession(group: SessionFileGroup, _context: AdapterContext, options: ReadSessionOptions = {}): Promise<Session> {
    const path = livePath(group);
    const shown = (messages: Message[]): Message[] => (options.clip === undefined ? messages : unmarkMessages(messages));
    const onPartial = options.onPartial;
    // The start's chain ends at the last leaf read so far: the conversation's opening, unless a later rewind moves it.
    const onStart = onPartial && ((start: ClaudeScan) => onPartial(shown(claudeMessages(start.activeChain(), path, start.usageById))));
    const { scan, stats, size, mtimeMs } = await scanFile(path, withPromptLines(options.clip, mayHoldPrompt), onStart);
    const chain = scan.activeChain();
    const sidecar = await readTitleSidecar(path);
    return {
      ...summarize({ group, sidecar, scan, chain, exact: true, size, mtimeMs }),
      messages: shown(claudeMessages(chain, path, scan.usageById)),
      malformedLines: stats.malformed,
    };
  },

  /**
   * A new `<uuid>.jsonl` in the same project folder holding the active chain before user turn `atTurn`, in file
   * order, each line byte for byte apart from its `sessionId` value; the last kept line is the leaf.
   */
  async fork(group: SessionFileGroup, request: ForkRequest): Promise<ForkResult> {
    const path = livePath(group);
    const { scan } = await scanFile(path);
    const chain = scan.activeChain();
    const userTurns = chain.filter((node) => node.userTurn).length;
    checkForkTurn(request.atTurn, userTurns);
    const history = truncateBeforeUserTurn(chain, request.atTurn - 1);
    if (history.kind !== 'forked') throw new ForkRangeError(request.atTurn, 2, userTurns);
    // IDE context on a line of its own belongs to the prompt under it: it goes with the turn that was cut.
    const before = [...history.history];
    while (before.length > 1 && isIdeContextLine(before.at(-1)!)) before.pop();
    const kept = before.sort((a, b) => a.offset - b.offset);
    const id = uuidv4();
    const chunks: Buffer[] = [];
    for (const line of await readSpans(path, kept)) chunks.push(rewriteForkedLine(line, id, fileStem(path)), Buffer.from('\n'));
    if (request.branchName !== undefined && request.branchName.length > 0) {
      // Claude Code's own /rename line: the fork shows under this name in Claude Code and here.
      chunks.push(Buffer.from(`${JSON.stringify({ type: 'custom-title', customTitle: request.branchName, sessionId: id })}\n`));
    }
    const target = join(dirname(path), `${id}.jsonl`);
    await createFileAtomic(target, chunks);
    return { agent: 'claude', id, path: target, parentId: fileStem(path), keptUserTurns: request.atTurn - 1 };
  },
};
