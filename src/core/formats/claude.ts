/**
 * Claude Code sessions: `<config dir>/projects/<cwd with non-alphanumerics as ->/<session uuid>.jsonl`.
 *
 * A file is a tree of lines linked by `parentUuid` (rewinds leave dead branches); the transcript is the chain
 * from the active leaf back to the root, crossing `/compact` boundaries through `logicalParentUuid`.
 */
import { existsSync, statSync, type Dirent } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { walkFs } from '../io/walk-fs.js';
import { basename, dirname, join, relative, sep } from 'node:path';

import { checkForkTurn, errorCode, errorMessage, ForkRangeError } from '../errors.js';
import { UUID_EXACT, uuidv4 } from '../ids.js';
import { createFileAtomic } from '../io/atomic.js';
import { claudeRootInHead } from '../io/heads.js';
import { decodeScalar, decodeString, KeyNames, memberSpan, parseSpan, skipWhitespace, topLevelStringSpans, walkArray, walkObject, type Span } from '../io/json-bytes.js';
import { isKind, openRegular, readRegularFile } from '../io/regular.js';
import { clipJsonStrings, clipRawLine, PARTIAL_AFTER_BYTES, PARTIAL_AFTER_LINES, SUMMARY_CLIP_LIMITS, takeClipMarks, unmarkMessages, withPromptLines, type ClipLimits } from '../io/clip.js';
import { LineAtReader } from '../io/line-at.js';
import { foldLines, indexReads, jsonObjects, newLineStats, parseJsonLine, readLineBatches, readLines, type JsonLine, type LineStats, type RawLine } from '../io/lines.js';
import { addUsage, IMAGE_PLACEHOLDER, promptOpening, type Block, type Message, type Session, type SessionSummary, type Usage } from '../model.js';
import { isoTimestamp } from '../time.js';
import { truncateBeforeUserTurn } from '../truncate.js';
import { commandAnsweredBy, type CommandWalkNode, CLAUDE_NON_CONVERSATION_NEEDLES, isClaudeNonConversationLine, isLocalCommandCaveat, isOnlyIdeContext, isOtherOrigin, sidecarTitle, stripIdeContext, typedSlashCommand } from './claude-rules.js';
import { claudeProjectFolder } from '../handoff/claude.js';
import { reportSkippedLines } from './problems.js';
import { homeFolderRoots } from './roots.js';
import type { AdapterContext, DisplaySink, FoldResume, ForkRequest, ForkResult, FormatAdapter, IndexedSession, MessageStream, ReadSessionOptions, ReportProblem, SessionFileGroup } from './types.js';
import { isRecord, type JsonObject } from '../json.js';


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
  /** A row-only scan keeps no values: the opening of a user turn's prompt instead. */
  readonly prompt?: string;
  /**
   * Set on the nodes a saved fold brings back (no parents, no values): the chain up to and including this node
   * held the first `anchorTurns` prompts of the saved row.
   */
  readonly anchorTurns?: number;
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

/** What a pass over every line of a file learns (a row-only scan: the index's fold); messages are built from the nodes. */
class ClaudeScan {
  /**
   * `rowOnly`: the index's fold: no parsed values kept (nodes carry their prompt's opening), nothing to fork from.
   * `windowed`: a display read of a linear file: no usage, only the last leaf candidate, and nodes no later line
   * can reach are dropped (`forgetBefore`).
   */
  constructor(
    readonly rowOnly = false,
    readonly windowed = false,
  ) {}

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
  /** Usage of API messages folded into one total when a fold was saved (their ids cannot recur after so long). */
  usageBase: Usage | null = null;
  anonymousUsage = 0;
  /** A scan going on from a saved fold: the saved row's prompts, its lineage root, and its titles count. */
  basePrompts: readonly string[] = [];
  baseRoot: string | null = null;
  savedTitles = -1;
  /** Conversation lines read (non-sidechain user/assistant/system lines with a uuid), repeated uuids counted each time. */
  messageLines = 0;
  /** A scan going on from a saved fold: whether the saved part was one chain in file order (`isLinear`), and its leaf. */
  baseLinear: boolean | null = null;
  baseLeaf: string | null = null;

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
    if (type === 'assistant' && !sidechain && !this.windowed) this.addAssistant(value);
    const uuid = stringOrNull(value.uuid);
    if (uuid === null) return;
    if (MESSAGE_TYPES.has(type)) {
      // The tool's structured result duplicates the tool_result block; do not hold it in memory.
      delete value.toolUseResult;
    }
    if (MESSAGE_TYPES.has(type) && !sidechain) this.messageLines++;
    const parentUuid = stringOrNull(value.parentUuid);
    const userTurn = type === 'user' && isClaudeUserTurn(value, parentUuid !== null && this.nodes.get(parentUuid)?.caveat === true);
    const command = type === 'user' ? slashCommandOf(rawUserText(messageOf(value)?.content)) : null;
    const node: ClaudeNode = {
      uuid,
      parentUuid,
      logicalParentUuid: stringOrNull(value.logicalParentUuid),
      type,
      sidechain,
      offset: line.offset,
      length: line.bytes.length,
      value: MESSAGE_TYPES.has(type) && !this.rowOnly ? value : null,
      userTurn,
      meta: value.isMeta === true,
      caveat: isClaudeCommandCaveat(value),
      command,
      // A slash command becomes a turn when the model answers it (markAnsweredCommand): its prompt is kept too.
      ...(this.rowOnly && (userTurn || command !== null) ? { prompt: promptOpening(userTurnText(value)) } : {}),
    };
    this.nodes.set(uuid, node);
    if (type === 'assistant' && !sidechain) this.markAnsweredCommand(node);
    if (!sidechain && LEAF_TYPES.has(type)) {
      if (this.windowed) this.candidates.length = 0;
      this.candidates.push(node);
    }
  }

  /** Drop every node read before `uuid` (windowed: no later line of a linear file can reach them). */
  forgetBefore(uuid: string): void {
    for (const key of this.nodes.keys()) {
      if (key === uuid) break;
      this.nodes.delete(key);
    }
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
  agentTitle(): string | null {
    for (let i = this.agentTitles.length - 1; i >= 0; i--) {
      const { title, leafUuid } = this.agentTitles[i]!;
      // Old releases put summaries of other conversations at the top of a file; those name another session.
      if (leafUuid === null || this.nodes.has(leafUuid)) return title;
    }
    return null;
  }

  totalUsage(): Usage | null {
    let total: Usage | null = this.usageBase;
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

  /** Walk from `leaf` to the root, continuing through `logicalParentUuid` where a compact boundary cut the tree. */
  chainFrom(leaf: ClaudeNode): { chain: ClaudeNode[]; complete: boolean } {
    // Without a set of the uuids seen (a 200 MB session's chain is 300k nodes): a chain longer than the nodes
    // there are has gone round a loop, and only then is it walked again, stopping where it first repeats.
    return this.walkChain(leaf, null) ?? this.walkChain(leaf, new Set())!;
  }

  /** The walk of chainFrom: null once it is longer than the nodes there are, unless `seen` stops it at a repeat. */
  private walkChain(leaf: ClaudeNode, seen: Set<string> | null): { chain: ClaudeNode[]; complete: boolean } | null {
    const chain: ClaudeNode[] = [];
    let complete = true;
    for (let node: ClaudeNode | undefined = leaf; node !== undefined; ) {
      if (seen === null) {
        if (chain.length > this.nodes.size) return null;
      } else {
        if (seen.has(node.uuid)) break;
        seen.add(node.uuid);
      }
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
 * scan must never be forked from. Exported for tests: a display read must show what this scan's chain holds.
 */
export async function scanFile(
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
    // Synchronous and without an exception when it is missing (almost always): a failed promise stat builds an
    // Error with its stack, ≈ 0.1 ms per session on a cold index.
    const info = statSync(sidecar, { throwIfNoEntry: false });
    if (info === undefined || !info.isFile() || info.size > 64 * 1024) return null;
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
  readonly size: number;
  readonly mtimeMs: number;
}

function summarize({ group, sidecar, scan, chain, size, mtimeMs }: SummaryInput): SessionSummary {
  const path = livePath(group);
  const prompts: string[] = [];
  for (const node of chain) {
    if (node.anchorTurns !== undefined) prompts.push(...scan.basePrompts.slice(0, node.anchorTurns));
    if (!node.userTurn) continue;
    const prompt = node.prompt ?? (node.value === null ? undefined : promptOpening(userTurnText(node.value)));
    if (prompt !== undefined) prompts.push(prompt);
  }
  const firstPrompt = prompts[0] || null;
  const name = customTitleOf(scan, sidecar) ?? scan.agentName;
  // The id `claude --resume` looks up is the file's name; copied lines may carry another session's id.
  const id = fileStem(path);
  const parent = scan.requestSessionId !== null && scan.requestSessionId !== id ? scan.requestSessionId : null;
  const mtime = new Date(mtimeMs).toISOString();
  const lineage = chain[0]?.anchorTurns !== undefined ? (scan.baseRoot ?? undefined) : chain[0]?.uuid;
  return {
    id,
    agent: 'claude',
    path,
    paths: [path],
    cwd: scan.cwd,
    title: name ?? scan.agentTitle() ?? (firstPrompt || '(no prompt)'),
    firstPrompt,
    // The chain decides: Claude Code's own `last-prompt` record is wrong in --fork-session files (it names the first prompt).
    lastPrompt: prompts.at(-1) ?? (scan.lastPrompt === null ? null : promptOpening(takeClipMarks(scan.lastPrompt).text)),
    name,
    userTurns: prompts.length,
    userTurnsExact: true,
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
export function mayHoldPrompt(bytes: Buffer): boolean {
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
    else if (block.type === 'image') blocks.push(claudeImage(block));
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

/** An image block `{source: {type: base64, media_type, data} | {type: url, url}}`; `[image]` text when it holds neither. */
function claudeImage(block: JsonObject): Block {
  const source = isRecord(block.source) ? block.source : {};
  if (source.type === 'base64' && typeof source.data === 'string') {
    return { type: 'image', mediaType: typeof source.media_type === 'string' ? source.media_type : null, data: source.data, url: null };
  }
  if (source.type === 'url' && typeof source.url === 'string') return { type: 'image', mediaType: null, data: null, url: source.url };
  return { type: 'text', text: IMAGE_PLACEHOLDER };
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
  const fold = new ClaudeMessageFold(path, usageById, (message) => messages.push(message));
  for (const node of chain) fold.add(node);
  fold.finish();
  return messages;
}

/**
 * Chain nodes to messages, one node at a time (`show` streams them): a message is handed to `emit` once the next
 * one has started (a later line of the same API message, or a compact summary, still changes the last one), the
 * last one at `finish`.
 */
export class ClaudeMessageFold {
  private last: Message | null = null;
  private lastAssistantId: string | null = null;
  private readonly usageGiven = new Set<string>();
  /** The API message id each message handed on was started by (null: not an assistant's), in order. */
  readonly startedBy: (string | null)[] = [];

  constructor(
    private readonly path: string,
    private readonly usageById: ReadonlyMap<string, Usage>,
    private readonly emit: (message: Message) => void,
  ) {}

  /** Fold the next node of the chain; `value` is its parsed line (a streaming read parses it only now). */
  add(node: ClaudeNode, value: JsonObject | null = node.value): void {
    if (value === null || node.sidechain) return;
    const timestamp = isoTimestamp(value.timestamp) ?? undefined;
    const source = { path: this.path, offset: node.offset };
    const message = messageOf(value);
    const previous = this.last;
    let assistantId: string | null = null;
    if (node.type === 'system') {
      if (value.subtype === 'compact_boundary') {
        this.push({ role: 'system', blocks: [{ type: 'compaction', summary: '' }], userTurn: false, timestamp, source });
      }
    } else if (node.type === 'user' && value.isCompactSummary === true) {
      // The summary the model saw after /compact: it belongs to the marker, not to the user.
      const summary = claudeUserText(message?.content);
      const block = previous?.blocks[0];
      if (previous !== null && block?.type === 'compaction' && block.summary === '') {
        this.last = { ...previous, blocks: [{ type: 'compaction', summary }] };
      } else {
        this.push({ role: 'system', blocks: [{ type: 'compaction', summary }], userTurn: false, timestamp, source });
      }
    } else if (node.type === 'user') {
      const blocks = userBlocks(message?.content);
      const role = blocks.some((block) => block.type === 'tool_result') ? 'tool' : 'user';
      // A line that held only IDE context shows nothing: its child line holds the prompt.
      if (blocks.length > 0 || node.userTurn) this.push({ role, blocks, userTurn: node.userTurn, timestamp, source });
    } else if (node.type === 'assistant' && message !== null) {
      assistantId = stringOrNull(message.id);
      const blocks = assistantBlocks(message.content);
      if (assistantId !== null && assistantId === this.lastAssistantId && previous !== null) {
        this.last = { ...previous, blocks: [...previous.blocks, ...blocks] };
      } else {
        const usage = assistantId !== null && !this.usageGiven.has(assistantId) ? this.usageById.get(assistantId) : undefined;
        if (assistantId !== null && this.usageById.size > 0) this.usageGiven.add(assistantId);
        this.push({ role: 'assistant', blocks, userTurn: false, timestamp, ...(usage ? { usage } : {}), source }, assistantId);
      }
    }
    this.lastAssistantId = assistantId;
  }

  finish(): void {
    if (this.last !== null) this.emit(this.last);
    this.last = null;
  }

  private push(message: Message, assistantId: string | null = null): void {
    if (this.last !== null) this.emit(this.last);
    this.last = message;
    this.startedBy.push(assistantId);
  }
}

/**
 * Messages folded while the usage counts were still coming in (a read in file order), with the usage a fold over the
 * whole file gives: each API message's final count, on the first message it started.
 */
function withFinalUsage(messages: readonly Message[], startedBy: readonly (string | null)[], usageById: ReadonlyMap<string, Usage>): Message[] {
  const given = new Set<string>();
  return messages.map((message, i) => {
    const id = startedBy[i] ?? null;
    const usage = id !== null && !given.has(id) ? usageById.get(id) : undefined;
    if (id !== null && usageById.size > 0) given.add(id);
    if (usage === message.usage) return message;
    const { usage: _old, ...rest } = message;
    return usage === undefined ? rest : { ...rest, usage };
  });
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
  for (const { start, end } of spans) {
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

/** Session files of one project folder; subagent folders and `agent-*.jsonl` sidechain files belong to a parent. */
async function discoverProject(root: string, dir: string, report: ReportProblem): Promise<SessionFileGroup[]> {
  let entries: Dirent[];
  try {
    entries = await walkFs.readdir(dir);
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

// ---------------------------------------------------------------------------------------------------------
// The index: a row folded from every line, and the fold saved so that appended lines are all a later read needs

/**
 * One line into the index's fold. A big line is read by its bytes (`indexedValue`): the fields the fold reads are
 * decoded, the rest (tool results and inputs, thinking, attachments, request shapes, `toolUseResult`) is stepped
 * over, never parsed. A small line, and a line the byte reader cannot take (cut short, not an object, a taken
 * value that is not JSON), is parsed whole with long strings clipped, which counts it as malformed or partial.
 */
function addIndexLine(scan: ClaudeScan, line: RawLine, stats: LineStats): void {
  // Small lines are parsed: JSON.parse of a line of a few hundred bytes costs no more than reading it by its bytes.
  const value = line.bytes.length < SUMMARY_CLIP_FROM_BYTES ? null : indexedValue(line.bytes);
  if (value !== null) {
    scan.add({ offset: line.offset, bytes: line.bytes, value });
    return;
  }
  addToScan(scan, jsonObjects([clipForSummary(line)], stats));
}

/** Top-level members the fold reads (ClaudeScan.add, isClaudeUserTurn, the title and name lines). */
const INDEXED_KEYS = new KeyNames([
  'type', 'uuid', 'parentUuid', 'logicalParentUuid', 'isSidechain', 'timestamp', 'sessionId', 'cwd', 'gitBranch', 'subtype', 'isMeta',
  'isCompactSummary', 'requestSessionId', 'customTitle', 'title', 'agentName', 'name', 'aiTitle', 'summary', 'leafUuid', 'lastPrompt',
  'origin', 'message',
]);

/** What the fold reads of a message: its content, and of an assistant's the model and the usage per API message id. */
const MESSAGE_KEYS = new KeyNames(['content', 'model', 'id', 'usage']);

/**
 * What the index's fold reads of a line, as the parsed line would give it, from its bytes: the scalars above,
 * `origin`, and of `message` its `model`, `id`, `usage` and `content` — a string whole, an array as its blocks
 * with text blocks whole and every other block (tool results, images, tool calls, thinking) as its `type` only.
 * Null when the line is not one whole JSON object or a value taken is not JSON.
 */
export function indexedValue(bytes: Buffer): JsonObject | null {
  const out: JsonObject = {};
  let message: Span | null = null;
  let valid = true;
  const end = walkObject(bytes, skipWhitespace(bytes, 0), (keyStart, keyEnd, start, end) => {
    const key = INDEXED_KEYS.find(bytes, keyStart, keyEnd);
    if (key === null) return true;
    const first = bytes[start];
    const nested = first === 0x7b || first === 0x5b;
    if (key === 'message') {
      message = nested ? { start, end } : null;
      if (nested) {
        delete out.message;
        return true;
      }
    }
    valid = take(out, key, nested ? parseSpan(bytes, start, end) : decodeScalar(bytes, start, end));
    return valid;
  });
  if (!valid || end <= 0 || skipWhitespace(bytes, end) !== bytes.length) return null;
  if (message !== null) {
    const value = indexedMessage(bytes, message);
    if (value === undefined) return null;
    out.message = value;
  }
  return out;
}

/** Set `out[key]`; false when the value did not parse (the line then goes the old way). */
function take(out: JsonObject, key: string, value: unknown): boolean {
  if (value === undefined) return false;
  out[key] = value;
  return true;
}

/** A line's `message` object as the fold reads it (see `indexedValue`); undefined when a value taken is not JSON. */
function indexedMessage(bytes: Buffer, span: Span): unknown {
  if (bytes[span.start] !== 0x7b) return parseSpan(bytes, span.start, span.end);
  const out: JsonObject = {};
  let valid = true;
  const end = walkObject(bytes, span.start, (keyStart, keyEnd, start, end) => {
    const key = MESSAGE_KEYS.find(bytes, keyStart, keyEnd);
    if (key === null) return true;
    const first = bytes[start];
    const value = key === 'content' && first === 0x5b ? indexedBlocks(bytes, start) : first === 0x7b || first === 0x5b ? parseSpan(bytes, start, end) : decodeScalar(bytes, start, end);
    return (valid = take(out, key, value));
  });
  return valid && end > 0 ? out : undefined;
}

/** A content array: text blocks parsed whole, any other object as `{type}`, anything else as it is. */
function indexedBlocks(bytes: Buffer, open: number): unknown[] | undefined {
  const blocks: unknown[] = [];
  let valid = true;
  const end = walkArray(bytes, open, (start, end) => {
    if (bytes[start] !== 0x7b) {
      // contentBlocks keeps objects only: what else an array holds is never read.
      blocks.push(null);
      return true;
    }
    const type = memberSpan(bytes, start, 'type');
    const name = type === null ? null : bytes[type.start] === 0x22 ? decodeString(bytes, type.start, type.end) : null;
    if (name === 'text' || (type !== null && name === null)) {
      const block = parseSpan(bytes, start, end);
      if (block === undefined) return (valid = false);
      blocks.push(block);
    } else {
      blocks.push(name === null ? {} : { type: name });
    }
    return true;
  });
  return valid && end > 0 ? blocks : undefined;
}

/** A saved fold keeps this many API messages' usage apart (streamed lines of one message can still come). */
const USAGE_KEPT_APART = 16;

/**
 * Nodes of the active chain a saved fold keeps, from its end: an appended line continues from the leaf or from
 * one of these (a tool result answering an earlier line of the same answer). A rewind starts from the node
 * before one of the last REWIND_POINTS user turns. A line whose parent is none of them makes the file be read
 * again whole: rare, and always right.
 */
const CHAIN_TAIL_KEPT = 64;
const REWIND_POINTS = 64;

/**
 * The fold as plain JSON, small whatever the file's size: the nodes an appended line can attach to, each with
 * how many of the row's prompts the chain holds up to it (the prompts themselves are the saved row's), the
 * lineage root, the leaf, and the row's scalars.
 */
interface ClaudeFoldState {
  readonly v: 2;
  readonly root: string | null;
  /** [uuid, prompts on the chain up to and including it] */
  readonly points: readonly (readonly [string, number])[];
  readonly leaf: string | null;
  /** Every conversation line up to the fold is on the chain, once, in file order (`isLinear`); absent in older folds. */
  readonly linear?: boolean;
  readonly scalars: {
    readonly hasConversation: boolean;
    readonly sessionId: string | null;
    readonly cwd: string | null;
    readonly gitBranch: string | null;
    readonly model: string | null;
    readonly firstTimestamp: string | null;
    readonly lastTimestamp: string | null;
    readonly customTitle: string | null;
    readonly customTitleAt: string | null;
    readonly agentName: string | null;
    readonly requestSessionId: string | null;
    /** leafUuid null: a title of this file (resolved when the fold was saved). */
    readonly agentTitles: readonly { readonly title: string; readonly leafUuid: string | null }[];
    readonly lastPrompt: string | null;
    readonly usageBase: Usage | null;
    readonly usage: readonly (readonly [string, Usage])[];
    readonly anonymousUsage: number;
  };
}

function exportClaudeFold(scan: ClaudeScan, chain: readonly ClaudeNode[] = scan.activeChain()): ClaudeFoldState | undefined {
  // A slash command not answered yet, or a command caveat, decides what a later line is: the fold keeps neither,
  // so it is not saved (the next read is whole, and saves once the exchange is over).
  for (let i = chain.length - 1; i >= 0 && !chain[i]!.userTurn; i--) {
    if (chain[i]!.caveat || chain[i]!.command !== null) return undefined;
  }
  const upTo: number[] = [];
  let turns = 0;
  for (const node of chain) {
    if (node.anchorTurns !== undefined) turns = node.anchorTurns;
    if (node.userTurn) turns++;
    upTo.push(turns);
  }
  const points = new Map<string, number>();
  let rewinds = 0;
  for (let i = chain.length - 1; i >= 0; i--) {
    const node = chain[i]!;
    if (chain.length - i <= CHAIN_TAIL_KEPT) points.set(node.uuid, upTo[i]!);
    if (node.userTurn && i > 0 && rewinds < REWIND_POINTS) {
      points.set(chain[i - 1]!.uuid, upTo[i - 1]!);
      rewinds++;
    }
    if (chain.length - i > CHAIN_TAIL_KEPT && rewinds >= REWIND_POINTS) break;
  }
  const usage = [...scan.usageById.entries()];
  let usageBase = scan.usageBase;
  for (const [, older] of usage.slice(0, Math.max(0, usage.length - USAGE_KEPT_APART))) usageBase = addUsage(usageBase, older);
  const first = chain[0];
  return {
    v: 2,
    root: first === undefined ? null : first.anchorTurns !== undefined ? scan.baseRoot : first.uuid,
    points: [...points.entries()].reverse(),
    leaf: chain.at(-1)?.uuid ?? null,
    linear: isLinear(scan, chain),
    scalars: {
      hasConversation: scan.hasConversation,
      sessionId: scan.sessionId,
      cwd: scan.cwd,
      gitBranch: scan.gitBranch,
      model: scan.model,
      firstTimestamp: scan.firstTimestamp,
      lastTimestamp: scan.lastTimestamp,
      customTitle: scan.customTitle,
      customTitleAt: scan.customTitleAt,
      agentName: scan.agentName,
      requestSessionId: scan.requestSessionId,
      // Titles naming a leaf of this file are resolved now, while every node is known.
      agentTitles: scan.agentTitles.map(({ title, leafUuid }) => ({ title, leafUuid: leafUuid !== null && scan.nodes.has(leafUuid) ? null : leafUuid })),
      lastPrompt: scan.lastPrompt,
      usageBase,
      usage: usage.slice(-USAGE_KEPT_APART),
      anonymousUsage: scan.anonymousUsage,
    },
  };
}

/**
 * Whether the file read so far is one chain in file order: every conversation line (non-sidechain user, assistant
 * and system lines) is on the active chain, once, and the chain's lines come in file order. `show` then prints
 * the file in one pass from its first byte; a rewind or a fork leaves lines off the chain (two passes). A scan gone
 * on from a saved fold: the saved part was linear and the chain goes on from its leaf.
 */
function isLinear(scan: ClaudeScan, chain: readonly ClaudeNode[]): boolean {
  let onChain = 0;
  let last = -1;
  for (let i = 0; i < chain.length; i++) {
    const node = chain[i]!;
    if (node.anchorTurns !== undefined) {
      if (i !== 0 || node.uuid !== scan.baseLeaf) return false;
      continue;
    }
    if (node.offset <= last) return false;
    last = node.offset;
    if (!node.sidechain && MESSAGE_TYPES.has(node.type)) onChain++;
  }
  if (scan.baseLinear !== null) {
    // Gone on from a saved fold: that part must have been linear, and a chain that does not start at its leaf left it.
    if (!scan.baseLinear) return false;
    if (scan.baseLeaf !== null && chain.length > 0 && chain[0]!.anchorTurns === undefined) return false;
  }
  return onChain === scan.messageLines;
}

/** A saved fold back as a row-only scan whose chain ends in anchor nodes; null when it is not one (read whole). */
function importClaudeFold(state: unknown, prompts: readonly string[]): ClaudeScan | null {
  try {
    const { points, leaf, root, scalars: sc } = state as ClaudeFoldState;
    if ((state as ClaudeFoldState).v !== 2 || !Array.isArray(points) || !isRecord(sc)) return null;
    const scan = new ClaudeScan(true);
    for (const point of points) {
      if (!Array.isArray(point) || typeof point[0] !== 'string' || typeof point[1] !== 'number' || point[1] > prompts.length) return null;
      scan.nodes.set(point[0], { uuid: point[0], parentUuid: null, logicalParentUuid: null, type: '', sidechain: false, offset: 0, length: 0, value: null, userTurn: false, meta: false, caveat: false, command: null, anchorTurns: point[1] });
    }
    if (leaf !== null) {
      const leafNode = typeof leaf === 'string' ? scan.nodes.get(leaf) : undefined;
      if (leafNode === undefined) return null;
      scan.candidates.push(leafNode);
    }
    const text = (value: unknown): string | null => (typeof value === 'string' ? value : null);
    scan.basePrompts = prompts;
    scan.baseRoot = text(root);
    scan.baseLinear = (state as ClaudeFoldState).linear === true;
    scan.baseLeaf = text(leaf);
    scan.hasConversation = sc.hasConversation === true;
    scan.sessionId = text(sc.sessionId);
    scan.cwd = text(sc.cwd);
    scan.gitBranch = text(sc.gitBranch);
    scan.model = text(sc.model);
    scan.firstTimestamp = text(sc.firstTimestamp);
    scan.lastTimestamp = text(sc.lastTimestamp);
    scan.customTitle = text(sc.customTitle);
    scan.customTitleAt = text(sc.customTitleAt);
    scan.agentName = text(sc.agentName);
    scan.requestSessionId = text(sc.requestSessionId);
    scan.lastPrompt = text(sc.lastPrompt);
    if (!Array.isArray(sc.agentTitles) || !Array.isArray(sc.usage) || typeof sc.anonymousUsage !== 'number') return null;
    // Resolved titles come back as titles of this file; unresolved ones keep naming a leaf no line here has.
    scan.agentTitles = sc.agentTitles.filter((t) => isRecord(t) && typeof t.title === 'string').map((t) => ({ title: t.title, leafUuid: text(t.leafUuid) }));
    scan.savedTitles = scan.agentTitles.length;
    scan.usageBase = isUsage(sc.usageBase) ? sc.usageBase : null;
    for (const entry of sc.usage) if (Array.isArray(entry) && typeof entry[0] === 'string' && isUsage(entry[1])) scan.usageById.set(entry[0], entry[1]);
    scan.anonymousUsage = sc.anonymousUsage;
    return scan;
  } catch {
    return null;
  }
}

/**
 * Whether a scan that went on from a saved fold saw everything it needed: its chain reaches a saved node, and
 * every title added since names a leaf it knows. Otherwise the file is read again whole.
 */
function resumedScanIsWhole(scan: ClaudeScan): boolean {
  const leaf = scan.candidates.at(-1);
  if (leaf !== undefined) {
    const { chain, complete } = scan.chainFrom(leaf);
    if (!complete || (chain[0]?.anchorTurns === undefined && chain[0]?.parentUuid !== null)) return false;
  }
  return scan.agentTitles.slice(scan.savedTitles).every(({ leafUuid }) => leafUuid === null || scan.nodes.has(leafUuid));
}

function isUsage(value: unknown): value is Usage {
  return isRecord(value) && ['input', 'output', 'cacheRead', 'cacheWrite'].every((key) => typeof value[key] === 'number');
}

/** The row from every line of the file, or from a saved fold plus the lines appended since. */
async function indexClaude(group: SessionFileGroup, context: AdapterContext, resume?: FoldResume): Promise<IndexedSession> {
  const path = livePath(group);
  const resumed = resume !== undefined && resume.path === path && resume.row !== undefined ? importClaudeFold(resume.state, resume.row.prompts) : null;
  const scan = resumed ?? new ClaudeScan(true);
  const start = resumed === null ? 0 : resume!.offset;
  const stats = newLineStats();
  const before = indexReads.bytes;
  const file = await foldLines(path, start, (line) => addIndexLine(scan, line, stats));
  if (resumed !== null && !resumedScanIsWhole(scan)) return indexClaude(group, context);
  // Saved before the unterminated last line (still being written) is folded: a later read starts at that line.
  // The active chain (300k nodes in a 200 MB session) is walked once when no such line changes it.
  let chain = file.size >= (context.saveFoldFrom ?? Number.POSITIVE_INFINITY) ? scan.activeChain() : null;
  const state = chain === null ? undefined : exportClaudeFold(scan, chain);
  if (file.partial !== null) {
    addIndexLine(scan, file.partial, stats);
    chain = null;
  }
  const bytesRead = indexReads.bytes - before;
  const fold = state === undefined ? {} : { resume: { path, offset: file.end, state } };
  reportSkippedLines(context.report, path, stats, scan.hasConversation);
  if (file.size === 0 || !scan.hasConversation) return { summary: null, fingerprint: file.fingerprint, bytesRead, ...fold };
  const sidecar = await readTitleSidecar(path);
  const summary = summarize({ group, sidecar, scan, chain: chain ?? scan.activeChain(), size: file.size, mtimeMs: file.mtimeMs });
  return { summary, fingerprint: file.fingerprint, bytesRead, ...fold };
}

/**
 * The active transcript's messages in order, for `show`, handed on as soon as each is folded. Memory is the nodes,
 * not the transcript. A file the index found to be one chain in file order (its saved fold says so, and what was
 * appended since goes on from its leaf) is read once, from the first byte; any other is read twice: a first pass
 * folds it as the index does (the nodes with their offsets and turns), a second parses only the chain's lines.
 */
function streamClaudeMessages(group: SessionFileGroup, _context: AdapterContext, resume?: FoldResume): MessageStream {
  const path = livePath(group);
  const stats = newLineStats();
  let passes: 1 | 2 | null = null;
  async function* messages(): AsyncGenerator<readonly Message[]> {
    const linear = resume !== undefined && resume.path === path && (await linearSinceFold(path, resume));
    passes = linear ? 1 : 2;
    yield* linear ? linearMessages(path, stats) : chainMessages(path, stats);
  }
  return { messages: messages(), malformedLines: () => stats.malformed, passes: () => passes };
}

/** Whether the file is still one chain in file order: its saved fold says it was, and the lines appended since go on from its leaf. */
async function linearSinceFold(path: string, resume: FoldResume): Promise<boolean> {
  const scan = importClaudeFold(resume.state, resume.row?.prompts ?? []);
  if (scan === null || scan.baseLinear !== true) return false;
  try {
    const file = await foldLines(path, resume.offset, (line) => addIndexLine(scan, line, newLineStats()));
    if (file.partial !== null) addIndexLine(scan, file.partial, newLineStats());
  } catch {
    return false; // shrank below the fold: rewritten
  }
  const leaf = scan.candidates.at(-1);
  return leaf === undefined || isLinear(scan, scan.chainFrom(leaf).chain);
}

/**
 * Lines folded in file order, as if each conversation line were on the active chain (true of a linear file; for
 * another the result is thrown away). A slash command becomes a turn only when the model answers it (through its
 * expansion): lines wait while one is open.
 */
class FileOrderFold {
  readonly scan: ClaudeScan;
  readonly fold: ClaudeMessageFold;
  private readonly held: { readonly uuid: string; readonly value: JsonObject }[] = [];
  private commandOpen = false;

  /** `windowed`: nodes no later line can reach are dropped as it goes (the file is known to be linear as it is read). */
  constructor(
    path: string,
    usageById: ReadonlyMap<string, Usage>,
    emit: (message: Message) => void,
    private readonly windowed = false,
  ) {
    this.scan = new ClaudeScan(true, windowed);
    this.fold = new ClaudeMessageFold(path, usageById, emit);
  }

  add(line: JsonLine): void {
    const value = line.value;
    this.scan.add(line);
    const uuid = stringOrNull(value.uuid);
    const type = typeof value.type === 'string' ? value.type : '';
    if (uuid === null || value.isSidechain === true || !MESSAGE_TYPES.has(type)) return;
    this.held.push({ uuid, value });
    const node = this.scan.nodes.get(uuid)!;
    // Meta lines (a command's expansion) keep it open; any other conversation line decides it (the scan has marked it).
    if (!(type === 'user' && node.meta)) this.commandOpen = type === 'user' && node.command !== null && !node.userTurn;
    if (!this.commandOpen) this.release();
    if (!this.windowed) return;
    // A command's answer walks back through attachments and meta lines only, to the line before them: older nodes are done with.
    if (!(type === 'user' && node.meta) && this.held.length === 0) this.scan.forgetBefore(uuid);
    else if (this.held.length > 0) this.scan.forgetBefore(this.held[0]!.uuid);
  }

  finish(): void {
    this.release();
    this.fold.finish();
  }

  private release(): void {
    for (const { uuid, value } of this.held) this.fold.add(this.scan.nodes.get(uuid)!, value);
    this.held.length = 0;
  }
}

/**
 * What `show`'s one pass keeps of a line with a uuid: what a later line's rules ask of it (a caveat above a command's
 * output, the command line a model's answer starts from) and what the message fold reads. The row's fields (titles,
 * timestamps, usage: the header comes from the catalog's row) are not folded, nor is any value kept.
 */
interface LinearNode extends CommandWalkNode {
  readonly uuid: string;
  readonly parentUuid: string | null;
  readonly caveat: boolean;
  /** Set when the model answers the slash command this line holds (`commandAnsweredBy`). */
  userTurn: boolean;
}

const UUID_BUCKET_BITS = 20;

/** A uuid's bucket: FNV-1a of its first 12 characters, to UUID_BUCKET_BITS bits. */
function uuidBucket(uuid: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < uuid.length && i < 12; i++) hash = Math.imul(hash ^ uuid.charCodeAt(i), 0x01000193);
  return hash >>> (32 - UUID_BUCKET_BITS);
}

/**
 * Lines of a linear file folded in file order into messages, with the rules of `ClaudeScan.add` and
 * `FileOrderFold` that decide a message (a user turn, a slash command answered by the model) and nothing else.
 *
 * The rules look a line's parent up by uuid only to find a caveat (a meta user line) or, walking up from a model's
 * answer, attachments and meta lines up to a slash command line; any other line found there decides exactly as a
 * line not found does (not under a caveat; no command answered). So only attachments, meta user lines and command
 * lines are kept by uuid (~12k of the 275k lines of the 50k-turn shape, where a node per line was most of the fold's
 * time): a later line of the same uuid takes its place, as in the scan's map, or removes it when it is of no use.
 */
class LinearFold {
  readonly fold: ClaudeMessageFold;
  private readonly nodes = new Map<string, LinearNode>();
  /** Buckets of the uuids ever kept: a line whose bucket is empty has no node to take the place of (no map probe). */
  private readonly kept = new Uint8Array(1 << UUID_BUCKET_BITS);
  /** Conversation lines waiting while a slash command is open, each with the node its uuid names now. */
  private readonly held: { readonly uuid: string; node: LinearNode; readonly value: JsonObject; readonly offset: number }[] = [];
  private commandOpen = false;

  constructor(path: string, emit: (message: Message) => void) {
    this.fold = new ClaudeMessageFold(path, new Map(), emit);
  }

  add(offset: number, value: JsonObject): void {
    const uuid = stringOrNull(value.uuid);
    if (uuid === null) return;
    const type = typeof value.type === 'string' ? value.type : '';
    const sidechain = value.isSidechain === true;
    const parentUuid = stringOrNull(value.parentUuid);
    const user = type === 'user';
    const userTurn = user && isClaudeUserTurn(value, parentUuid !== null && this.nodes.get(parentUuid)?.caveat === true);
    const command = user ? slashCommandOf(rawUserText(messageOf(value)?.content)) : null;
    const meta = value.isMeta === true;
    // A caveat is a meta line (isLocalCommandCaveat): its text is read only then.
    const node: LinearNode = { uuid, type, parentUuid, meta, caveat: meta && isClaudeCommandCaveat(value), command, userTurn };
    if (type === 'attachment' || (user && (meta || command !== null))) {
      this.nodes.set(uuid, node);
      this.kept[uuidBucket(uuid)] = 1;
    } else if (this.kept[uuidBucket(uuid)] === 1) {
      this.nodes.delete(uuid);
    }
    // A held line is folded with the node its uuid names when it is released (the scan's map: the latest line).
    for (const held of this.held) if (held.uuid === uuid) held.node = node;
    if (type === 'assistant' && !sidechain) {
      const answered = commandAnsweredBy(node, (at) => (at.parentUuid === null ? undefined : this.nodes.get(at.parentUuid)));
      if (answered !== null && !answered.userTurn) answered.userTurn = true;
    }
    if (sidechain || !MESSAGE_TYPES.has(type)) return;
    this.held.push({ uuid, node, value, offset });
    // Meta lines (a command's expansion) keep it open; any other conversation line decides it (marked above).
    if (!(user && node.meta)) this.commandOpen = user && node.command !== null && !node.userTurn;
    if (!this.commandOpen) this.release();
  }

  finish(): void {
    this.release();
    this.fold.finish();
  }

  private release(): void {
    for (const { uuid, node, value, offset } of this.held) {
      const type = typeof value.type === 'string' ? value.type : '';
      this.fold.add(
        { uuid, parentUuid: node.parentUuid, logicalParentUuid: null, type, sidechain: false, offset, length: 0, value: null, userTurn: node.userTurn, meta: node.meta, caveat: node.caveat, command: node.command },
        value,
      );
    }
    this.held.length = 0;
  }
}

/** One pass: every conversation line is on the chain, in file order, so each is folded as it is read. */
async function* linearMessages(path: string, stats: LineStats): AsyncGenerator<readonly Message[]> {
  const ready: Message[] = [];
  const reader = new LinearFold(path, (message) => ready.push(message));
  let first = true;
  for await (const lines of readLineBatches(path, { reuseChunk: true })) {
    for (const line of jsonObjects(lines, stats)) {
      reader.add(line.offset, line.value);
      // The first message goes out as soon as it is folded, not after its chunk (a batch's bytes stay valid meanwhile).
      if (first && ready.length > 0) {
        first = false;
        yield ready.splice(0);
      }
    }
    if (ready.length > 0) yield ready.splice(0);
  }
  reader.finish();
  if (ready.length > 0) yield ready.splice(0);
}

/**
 * A display read (long strings clipped) without keeping any line's parsed value: the lines are folded in file order
 * as they are read (the start is handed to `onStart` at once); when the file turns out not to be one chain in file
 * order (a rewind, a fork), the active chain's lines are read again by offset and folded instead.
 */
async function readClipped(path: string, clip: ClipLimits, onStart?: (messages: Message[]) => void): Promise<{ scan: ClaudeScan; chain: ClaudeNode[]; messages: Message[]; stats: LineStats; size: number; mtimeMs: number }> {
  const info = await stat(path);
  const stats = newLineStats();
  let messages: Message[] = [];
  const reader = new FileOrderFold(path, new Map(), (message) => messages.push(message));
  let count = 0;
  for await (const raw of readLines(path, { reuseChunk: true })) {
    for (const line of jsonObjects([clipRawLine(raw, clip)], stats)) reader.add(line);
    if (onStart !== undefined && (++count >= PARTIAL_AFTER_LINES || raw.offset >= PARTIAL_AFTER_BYTES)) {
      onStart([...messages]);
      onStart = undefined;
    }
  }
  reader.finish();
  const { scan } = reader;
  const chain = scan.activeChain();
  if (isLinear(scan, chain)) {
    messages = withFinalUsage(messages, reader.fold.startedBy, scan.usageById);
  } else {
    messages = [];
    const fold = new ClaudeMessageFold(path, scan.usageById, (message) => messages.push(message));
    const lines = await LineAtReader.open(path);
    try {
      for (const node of chain) {
        if (node.sidechain || !MESSAGE_TYPES.has(node.type)) continue;
        const value = parseJsonLine(clipRawLine({ offset: node.offset, bytes: await lines.lineAt(node.offset), terminated: true }, clip).bytes);
        if (isRecord(value)) fold.add(node, value);
      }
    } finally {
      await lines.close();
    }
    fold.finish();
  }
  return { scan, chain, messages, stats, size: info.size, mtimeMs: info.mtimeMs };
}

/**
 * A 64-bit hash of every uuid read (two 32-bit FNV-1a with different seeds, open addressing in typed arrays): a
 * repeated uuid makes a file not linear, and 300k uuids kept as strings would cost more than the rest of the read.
 * A collision only sends the file to the two-pass read.
 */
class UuidHashes {
  private table = new Uint32Array(1 << 12);
  private count = 0;

  /** False when `uuid` (or one of the same hash) was added before. */
  add(uuid: string): boolean {
    let a = 0x811c9dc5;
    let b = 0x01000193 ^ 0x5bd1e995;
    for (let i = 0; i < uuid.length; i++) {
      const c = uuid.charCodeAt(i);
      a = Math.imul(a ^ c, 0x01000193);
      b = Math.imul(b ^ c, 0x5bd1e995) ^ (b >>> 13);
    }
    // 0 marks an empty slot: a hash of 0 is stored as 1.
    a = a >>> 0 || 1;
    b >>>= 0;
    if (!this.insert(a, b)) return false;
    if (++this.count * 2 > this.table.length / 2) this.grow();
    return true;
  }

  private insert(a: number, b: number): boolean {
    const slots = this.table.length / 2;
    for (let slot = a & (slots - 1); ; slot = (slot + 1) & (slots - 1)) {
      const at = slot * 2;
      if (this.table[at] === 0) {
        this.table[at] = a;
        this.table[at + 1] = b;
        return true;
      }
      if (this.table[at] === a && this.table[at + 1] === b) return false;
    }
  }

  private grow(): void {
    const old = this.table;
    this.table = new Uint32Array(old.length * 2);
    for (let at = 0; at < old.length; at += 2) if (old[at] !== 0) this.insert(old[at]!, old[at + 1]!);
  }
}

/**
 * The display fold of a file read in file order that checks, line by line, that the file is one chain in file
 * order (each leaf candidate's parent is the one before it, no uuid repeats, the first one's parent comes from no
 * later line): then the chain is the lines read, and nodes no later line can reach are dropped as it goes. Stops
 * being linear at the first line that breaks it (`add` returns false; what was folded is then wrong).
 */
class LinearDisplayFold {
  private readonly order: FileOrderFold;
  private readonly seen = new UuidHashes();
  /** The last leaf candidate's uuid: the next one's parent in a linear file. */
  private tip: string | null = null;
  /** The first candidate's parent when it is not in the file (yet): a later line with that uuid breaks the order. */
  private rootParent: string | null = null;

  constructor(path: string, emit: (message: Message) => void) {
    this.order = new FileOrderFold(path, new Map(), emit, true);
  }

  add(line: JsonLine): boolean {
    const value = line.value;
    const uuid = stringOrNull(value.uuid);
    const type = typeof value.type === 'string' ? value.type : '';
    if (uuid !== null) {
      if (uuid === this.rootParent || !this.seen.add(uuid)) return false;
      if (value.isSidechain !== true && LEAF_TYPES.has(type)) {
        const parent = stringOrNull(value.parentUuid) ?? stringOrNull(value.logicalParentUuid);
        if (this.tip === null && parent !== null) {
          // A file that goes on from lines it does not hold (the chain stops there): linear if no later line is that parent.
          if (!this.seen.add(parent)) return false;
          this.rootParent = parent;
        } else if (parent !== this.tip) return false;
        this.tip = uuid;
      }
    }
    this.order.add(line);
    return true;
  }

  finish(): void {
    this.order.finish();
  }
}

/**
 * The transcript for a screen (long strings clipped), handed to `sink` message by message and never held: a
 * linear file (most) is folded in one pass in file order; at the first line that shows it is not (a rewind, a
 * fork) what was handed on is dropped and the active chain is read by the index's fold and then by offset.
 */
/** What a display read reads first: a screen's worth of lines in most files (a big first prompt, more reads). */
const FIRST_SCREEN_BYTES = 64 * 1024;
/** Bytes of lines a display read folds before the event loop gets a turn (a millisecond or two of work). */
const LOOP_TURN_BYTES = 32 * 1024;

async function readClaudeDisplay(path: string, clip: ClipLimits, sink: DisplaySink): Promise<{ readonly malformedLines: number }> {
  const limits = withPromptLines(clip, mayHoldPrompt)!;
  const emit = (message: Message): void => sink.message(unmarkMessages([message])[0]!);
  let stats = newLineStats();
  const reader = new LinearDisplayFold(path, emit);
  let linear = true;
  let lines = 0;
  let started = false;
  // The first read is small: the lines that fill a screen are handed on before a whole chunk is parsed.
  // A chunk's lines are folded without leaving the event loop a turn: every so many bytes it gets one, so that the
  // screen paints the start handed on (a render takes several turns) and keys are read while the rest is read.
  let nextTurn = LOOP_TURN_BYTES;
  read: for await (const raw of readLines(path, { reuseChunk: true, firstChunkSize: FIRST_SCREEN_BYTES })) {
    if (raw.offset >= nextTurn) {
      nextTurn = raw.offset + LOOP_TURN_BYTES;
      await new Promise((resolve) => setImmediate(resolve));
    }
    for (const line of jsonObjects([clipRawLine(raw, limits)], stats)) {
      if (!reader.add(line)) {
        linear = false;
        break read;
      }
    }
    if (!started && (++lines >= PARTIAL_AFTER_LINES || raw.offset >= PARTIAL_AFTER_BYTES)) {
      started = true;
      sink.start?.();
    }
  }
  if (linear) {
    reader.finish();
    return { malformedLines: stats.malformed };
  }
  sink.restart();
  stats = newLineStats();
  for await (const batch of chainMessages(path, stats, limits)) for (const message of batch) emit(message);
  return { malformedLines: stats.malformed };
}

/** Two passes: the index's fold finds the active chain, then the chain's message lines are read by offset (clipped with `clip`). */
async function* chainMessages(path: string, stats: LineStats, clip?: ClipLimits): AsyncGenerator<readonly Message[]> {
  const scan = new ClaudeScan(true);
  const file = await foldLines(path, 0, (line) => addIndexLine(scan, line, stats));
  if (file.partial !== null) addIndexLine(scan, file.partial, stats);
  const ready: Message[] = [];
  const fold = new ClaudeMessageFold(path, new Map(), (message) => ready.push(message));
  const reader = await LineAtReader.open(path);
  try {
    for (const node of scan.activeChain()) {
      if (node.sidechain || !MESSAGE_TYPES.has(node.type)) continue;
      const bytes = await reader.lineAt(node.offset);
      const value = parseJsonLine(clip === undefined ? bytes : clipRawLine({ offset: node.offset, bytes, terminated: true }, clip).bytes);
      if (!isRecord(value)) {
        // Skimmed by the first pass (a big line of no message type), or changed since: skipped, as a whole read skips it.
        stats.malformed++;
        continue;
      }
      fold.add(node, value);
      if (ready.length > 0) yield ready.splice(0);
    }
  } finally {
    await reader.close();
  }
  fold.finish();
  if (ready.length > 0) yield ready.splice(0);
}

export const claudeAdapter: FormatAdapter = {
  agent: 'claude',
  label: 'Claude Code',
  locations: {
    flag: '--claude-dir <dir>',
    flagHelp: 'a Claude Code config dir (repeatable; default $CLAUDE_CONFIG_DIR or ~/.claude)',
    homeFolder: '.claude',
    defaultRoots: (environment) => homeFolderRoots('.claude', 'CLAUDE_CONFIG_DIR', environment),
    readme: {
      where: '`$CLAUDE_CONFIG_DIR/projects/*/*.jsonl` (default `~/.claude`)',
      options: '`--claude-dir DIR` (repeatable), `--home DIR` (= `DIR/.claude`)',
    },
    describeRoot: (dir) => `${dir}/projects (Claude Code)`,
  },
  // ~/.claude/projects/<project>/<uuid>.jsonl (subagent transcripts deeper down belong to their parent).
  watch: { roots: 'configured', depth: 2, wanted: (parts) => parts[0] === 'projects', fileSuffixes: ['.jsonl', '.json'] },
  mirror: { variables: ['CLAUDE_CONFIG_DIR'], filter: ['+ projects/', '+ projects/*/', '+ projects/*/*.jsonl'] },
  resume: {
    interactive: ['claude', '{args}', '--resume', '{id}', '{prompt}'],
    exec: ['claude', '-p', '{args}', '--resume', '{id}', '{prompt}'],
    homeEnvironment: (root) => ({ CLAUDE_CONFIG_DIR: root }),
  },
  idShape: { pattern: UUID_EXACT, description: 'a UUID' },
  forkTarget: 'in the same project folder as the original, <new id>.jsonl',
  lineageInHead: claudeRootInHead,
  lineageLineKey: '"parentUuid":null',

  /**
   * A row is merged with the other files of its id (a copy in another project folder) and linked to the forks of its
   * lineage. Claude Code (`--fork-session`, run where the session's cwd is) and `sessions fork` write a fork in the
   * project folder of the cwd, which is the original's: the folders of the original and of its cwd, and those
   * holding a file named by its id.
   */
  async rowFolders(row, root) {
    const projects = join(root, 'projects');
    const folders = new Set(row.paths.map((path) => dirname(path)));
    if (row.cwd !== null) folders.add(join(projects, claudeProjectFolder(row.cwd)));
    let names: string[];
    try {
      names = await readdir(projects);
    } catch {
      return [...folders];
    }
    for (const name of names) {
      const folder = join(projects, name);
      if (!folders.has(folder) && existsSync(join(folder, `${row.id}.jsonl`))) folders.add(folder);
    }
    return [...folders];
  },
  isNonConversationLine: isClaudeNonConversationLine,
  nonConversationNeedles: CLAUDE_NON_CONVERSATION_NEEDLES,
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
      entries = await walkFs.readdir(projects);
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
    return (await indexClaude(group, context)).summary;
  },

  indexSession: indexClaude,

  async readSession(group: SessionFileGroup, _context: AdapterContext, options: ReadSessionOptions = {}): Promise<Session> {
    const path = livePath(group);
    const shown = (messages: Message[]): Message[] => (options.clip === undefined ? messages : unmarkMessages(messages));
    const onPartial = options.onPartial;
    if (options.clip !== undefined) {
      // What the TUI shows: no line's parsed value is kept while the file is read (a 200 MB session is ~300k lines).
      const read = await readClipped(path, withPromptLines(options.clip, mayHoldPrompt)!, onPartial && ((start) => onPartial(shown(start))));
      return {
        ...summarize({ group, sidecar: await readTitleSidecar(path), scan: read.scan, chain: read.chain, size: read.size, mtimeMs: read.mtimeMs }),
        messages: shown(read.messages),
        malformedLines: read.stats.malformed,
      };
    }
    // The start's chain ends at the last leaf read so far: the conversation's opening, unless a later rewind moves it.
    const onStart = onPartial && ((start: ClaudeScan) => onPartial(shown(claudeMessages(start.activeChain(), path, start.usageById))));
    const { scan, stats, size, mtimeMs } = await scanFile(path, withPromptLines(options.clip, mayHoldPrompt), onStart);
    const chain = scan.activeChain();
    const sidecar = await readTitleSidecar(path);
    return {
      ...summarize({ group, sidecar, scan, chain, size, mtimeMs }),
      messages: shown(claudeMessages(chain, path, scan.usageById)),
      malformedLines: stats.malformed,
    };
  },

  streamMessages: streamClaudeMessages,
  readDisplay: (group, _context, { clip, sink }) => readClaudeDisplay(livePath(group), clip, sink),
  readsAlone: true,

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
