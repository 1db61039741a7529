/** The row-only pass over a file's lines (the index's fold): the tree's nodes, the active chain, titles, usage. */
import { stat } from 'node:fs/promises';
import { clipRawLine, PARTIAL_AFTER_BYTES, PARTIAL_AFTER_LINES, type ClipLimits } from '../../io/clip.js';
import { jsonObjects, newLineStats, readLines, type JsonLine, type LineStats } from '../../io/lines.js';
import { promptOpening, type Usage } from '../../model.js';
import { isoTimestamp } from '../../time.js';
import { commandAnsweredBy } from './rules.js';
import { type JsonObject } from '../../json.js';
import { type ClaudeNode, isClaudeCommandCaveat, isClaudeUserTurn, LEAF_TYPES, MESSAGE_TYPES, messageOf, rawUserText, slashCommandOf, stringOrNull, SYNTHETIC_MODEL, usageOf } from './lines.js';
import { userTurnText } from './messages.js';

/** What a pass over every line of a file learns (a row-only scan: the index's fold); messages are built from the nodes. */
export class ClaudeScan {
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
    // The line's length in the file (a giant line an index read clipped is shorter in memory).
    this.addValue(line.value, line.offset, line.fileLength ?? line.bytes.length);
  }

  /** A line's parsed value (or the members of it the fold reads), its offset and its length in the file. */
  addValue(value: JsonObject, offset: number, length: number): void {
    const type = typeof value.type === 'string' ? value.type : '';
    const sidechain = value.isSidechain === true;
    this.addLine(value, type, sidechain);
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
      offset,
      length,
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

  /** What a line tells of the session whether or not it is a node: times, titles, ids, the model and usage. */
  protected addLine(value: JsonObject, type: string, sidechain: boolean): void {
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
  }

  /** Whether a line read has this uuid. */
  hasNode(uuid: string): boolean {
    return this.nodes.has(uuid);
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
      if (leafUuid === null || this.hasNode(leafUuid)) return title;
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

export function addToScan(scan: ClaudeScan, lines: Iterable<JsonLine>): void {
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
