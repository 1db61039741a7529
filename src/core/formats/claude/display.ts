/** The TUI's display reads: long strings clipped, nothing held but the nodes. */
import { stat } from 'node:fs/promises';
import { clipRawLine, PARTIAL_AFTER_BYTES, PARTIAL_AFTER_LINES, unmarkMessages, withPromptLines, type ClipLimits } from '../../io/clip.js';
import { LineAtReader } from '../../io/line-at.js';
import { jsonObjects, newLineStats, parseJsonLine, readLines, type JsonLine, type LineStats } from '../../io/lines.js';
import { type Message } from '../../model.js';
import type { DisplaySink } from '../types.js';
import { isRecord } from '../../json.js';
import { isLinear } from './fold.js';
import { type ClaudeNode, LEAF_TYPES, MESSAGE_TYPES, stringOrNull } from './lines.js';
import { ClaudeMessageFold, mayHoldPrompt, withFinalUsage } from './messages.js';
import { ClaudeScan } from './scan.js';
import { chainMessages, FileOrderFold } from './stream.js';

/**
 * A display read (long strings clipped) without keeping any line's parsed value: the lines are folded in file order
 * as they are read (the start is handed to `onStart` at once); when the file turns out not to be one chain in file
 * order (a rewind, a fork), the active chain's lines are read again by offset and folded instead.
 */
export async function readClipped(path: string, clip: ClipLimits, onStart?: (messages: Message[]) => void): Promise<{ scan: ClaudeScan; chain: ClaudeNode[]; messages: Message[]; stats: LineStats; size: number; mtimeMs: number }> {
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

export async function readClaudeDisplay(path: string, clip: ClipLimits, sink: DisplaySink): Promise<{ readonly malformedLines: number }> {
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
