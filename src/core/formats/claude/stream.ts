/** `show`'s transcript handed on message by message: one pass for a linear file, two for any other. */
import { foldLines, newLineStats, parseJsonLine, readLineChunks, type JsonLine, type LineStats } from '../../io/lines.js';
import { type Message, type Usage } from '../../model.js';
import { commandAnsweredBy, type CommandWalkNode } from './rules.js';
import type { AdapterContext, FoldResume, MessageStream, SessionFileGroup } from '../types.js';
import { isRecord, type JsonObject } from '../../json.js';
import { importClaudeFold, isLinear } from './fold.js';
import { addIndexLine } from './indexed.js';
import { isClaudeCommandCaveat, isClaudeUserTurn, MESSAGE_TYPES, messageOf, rawUserText, slashCommandOf, stringOrNull } from './lines.js';
import { ClaudeMessageFold } from './messages.js';
import { showLineReader } from './native-fold.js';
import { ClaudeScan } from './scan.js';
import { livePath } from './summary.js';
import { type ClipLimits, clipRawLine } from '../../io/clip.js';
import { LineAtReader } from '../../io/line-at.js';

/**
 * The active transcript's messages in order, for `show`, handed on as soon as each is folded. Memory is the nodes,
 * not the transcript. A file the index found to be one chain in file order (its saved fold says so, and what was
 * appended since goes on from its leaf) is read once, from the first byte; any other is read twice: a first pass
 * folds it as the index does (the nodes with their offsets and turns), a second parses only the chain's lines.
 */
export function streamClaudeMessages(group: SessionFileGroup, _context: AdapterContext, resume?: FoldResume): MessageStream {
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
export class FileOrderFold {
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
  const readChunk = showLineReader(stats);
  const add = (offset: number, value: JsonObject): void => reader.add(offset, value);
  // A chunk's messages go out once it is folded (a chunk is 1 MiB: ~10 ms), the first one too.
  for await (const chunk of readLineChunks(path, { reuseChunk: true })) {
    readChunk(chunk, add);
    if (ready.length > 0) yield ready.splice(0);
  }
  reader.finish();
  if (ready.length > 0) yield ready.splice(0);
}

/** Two passes: the index's fold finds the active chain, then the chain's message lines are read by offset (clipped with `clip`). */
export async function* chainMessages(path: string, stats: LineStats, clip?: ClipLimits): AsyncGenerator<readonly Message[]> {
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
