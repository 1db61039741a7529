import type { Block, Message } from '../model.js';
import { backslashesBefore, unescapedQuoteFrom } from './json-bytes.js';
import type { RawLine } from './lines.js';

/*
 * Reading a session for display need not hold every byte: a 200 MB rollout is mostly tool outputs that the
 * screen shows a few lines of. The clipper shortens long JSON string values in a line's bytes before the line
 * is decoded and parsed, and leaves a mark in the string saying how many bytes it left out. The clipped line is
 * still valid JSON (cuts fall on UTF-8 character and escape boundaries), so the adapters parse it as usual.
 * Forks and exports never read clipped lines.
 */

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const LOWER_U = 0x75;

/**
 * The mark ending a clipped string value: NUL, the count of bytes left out (of the line's encoded JSON), NUL.
 * Written as JSON escapes, so the parsed string holds `\0<digits>\0`; JSON.stringify writes it back escaped.
 */
// eslint-disable-next-line no-control-regex -- the mark is NUL-delimited on purpose: NUL does not occur in prose
const MARK_IN_STRING = /\u0000(\d+)\u0000/g;
const MARK_IN_JSON_TEXT = /\\u0000(\d+)\\u0000/g;

/**
 * Move a cut point (the first byte left out) of a string's content starting at `start` back so that the kept
 * bytes end on a whole UTF-8 character and a whole escape sequence (and not between two surrogate escapes).
 */
function safeCut(bytes: Buffer, start: number, cut: number): number {
  // Continuation bytes (10xxxxxx) never start a character.
  while (cut > start && (bytes[cut]! & 0xc0) === 0x80) cut--;
  // A backslash with an odd run before the cut is an escape whose next byte would be left out.
  if (backslashesBefore(bytes, cut, start) % 2 === 1) cut--;
  // An unfinished `\uXXXX`: its `u` is at most 4 bytes back.
  for (let back = 1; back <= 4 && cut - back - 1 >= start; back++) {
    const u = cut - back;
    if (bytes[u] === LOWER_U && backslashesBefore(bytes, u, start) % 2 === 1) {
      cut = u - 1;
      break;
    }
  }
  // A high surrogate escape at the end has lost its low half: leave it out too.
  if (cut - 6 >= start && bytes[cut - 6] === BACKSLASH && bytes[cut - 5] === LOWER_U && backslashesBefore(bytes, cut - 6, start) % 2 === 0) {
    const code = Number.parseInt(bytes.toString('latin1', cut - 4, cut), 16);
    if (code >= 0xd800 && code <= 0xdbff) cut -= 6;
  }
  return cut;
}

/** How long a string value may be (encoded bytes) in a line read for display. */
export interface ClipLimits {
  /** Values of `"text"` keys: the prose of prompts and answers (all three agents name it so), worth reading whole. */
  readonly text: number;
  /** Every other string: tool outputs and inputs, events' copies of them, encrypted content, instructions. */
  readonly other: number;
  /**
   * A line that holds a user's prompt (the adapter knows its agent's lines: see `withPromptLines`): its prose
   * values (`"text"`, `"content"`, `"message"`) are never cut, whatever their length. Clipping is for tool outputs
   * and reasoning; a prompt is the user's own words, shown, found and expanded whole.
   */
  readonly promptLine?: (bytes: Buffer) => boolean;
}

/** The limits, with the lines `promptLine` recognises as holding a prompt read whole (their prose values). */
export function withPromptLines(limits: ClipLimits | undefined, promptLine: (bytes: Buffer) => boolean): ClipLimits | undefined {
  return limits === undefined ? undefined : { ...limits, promptLine };
}

/**
 * A read that reports its start early (ReadSessionOptions.onPartial) does so after this many lines or bytes,
 * whichever comes first: more than a screen of messages, read in a few milliseconds.
 */
export const PARTIAL_AFTER_LINES = 200;
export const PARTIAL_AFTER_BYTES = 1024 * 1024;

/** What the TUI reads: answers of a few pages whole, a few KiB of each tool output. */
export const DISPLAY_CLIP_LIMITS: ClipLimits = { text: 32 * 1024, other: 4 * 1024 };

/**
 * What counting user turns reads: which lines are prompts is decided by their openings (injected context,
 * commands, tool results), so every long string can be cut short. Less to allocate than a display read: the
 * TUI counts big sessions in the background while the user browses.
 */
export const COUNT_CLIP_LIMITS: ClipLimits = { text: 1024, other: 256 };

/**
 * What a summary reads of a big line: it shows 200 characters of a prompt and nothing of tool results,
 * thinking, reasoning or instructions, which are most of a session file's bytes.
 */
export const SUMMARY_CLIP_LIMITS: ClipLimits = { text: 1024, other: 1024 };

const TEXT_KEY = Buffer.from('"text":', 'latin1');
/** Where the agents put a prompt's words: `text` blocks (all), Claude's string `content`, Codex's `user_message` `message`. */
const PROSE_KEYS = [TEXT_KEY, Buffer.from('"content":', 'latin1'), Buffer.from('"message":', 'latin1')];

function isKeyValue(bytes: Buffer, open: number, key: Buffer): boolean {
  return open >= key.length && bytes.compare(key, 0, key.length, open - key.length, open) === 0;
}

function isTextValue(bytes: Buffer, open: number): boolean {
  return isKeyValue(bytes, open, TEXT_KEY);
}

function isProseValue(bytes: Buffer, open: number): boolean {
  return PROSE_KEYS.some((key) => isKeyValue(bytes, open, key));
}

/**
 * The line with every JSON string value longer than its limit (encoded bytes) cut to about that length and
 * ended with a mark of how many bytes were left out; the same buffer when nothing was long. A line whose
 * strings do not close (not JSON, or a partial line) is returned untouched, so the parse reports it as before.
 */
export function clipJsonStrings(bytes: Buffer, limits: ClipLimits): Buffer {
  if (bytes.length <= Math.min(limits.text, limits.other) + 2) return bytes;
  const prompt = limits.promptLine?.(bytes) ?? false;
  const parts: Buffer[] = [];
  let copied = 0;
  for (let from = 0; ; ) {
    const open = bytes.indexOf(QUOTE, from);
    if (open === -1) break;
    const close = unescapedQuoteFrom(bytes, open + 1);
    if (close === -1) return bytes;
    const start = open + 1;
    const long = close - start > limits.other;
    const maxBytes = long && prompt && isProseValue(bytes, open) ? Number.POSITIVE_INFINITY : long && isTextValue(bytes, open) ? limits.text : limits.other;
    if (close - start > maxBytes) {
      const cut = safeCut(bytes, start, start + maxBytes);
      parts.push(bytes.subarray(copied, cut), Buffer.from(`\\u0000${leftOut(bytes, cut, close)}\\u0000`, 'latin1'));
      copied = close;
    }
    from = close + 1;
  }
  if (parts.length === 0) return bytes;
  parts.push(bytes.subarray(copied));
  return Buffer.concat(parts);
}

/** A string already clipped as it was read (a giant line: clip-stream.ts) ends with its mark: the bytes it counts are left out too. */
const MARK_AT_END = /\\u0000(\d+)\\u0000$/;

/** The bytes of the file a cut from `cut` to `close` leaves out (those of a mark it cuts counted as the mark says). */
function leftOut(bytes: Buffer, cut: number, close: number): number {
  const end = MARK_AT_END.exec(bytes.toString('latin1', Math.max(cut, close - 40), close));
  return end === null ? close - cut : close - cut - end[0].length + Number(end[1]);
}

/**
 * A raw line clipped for display, in memory of its own: a line read in chunks is a view into a chunk, and
 * keeping the view would keep the whole chunk.
 */
export function clipRawLine(line: RawLine, limits: ClipLimits): RawLine {
  const clipped = clipJsonStrings(line.bytes, limits);
  return { offset: line.offset, bytes: clipped === line.bytes ? Buffer.from(line.bytes) : clipped, terminated: line.terminated };
}

/** Bytes left out of `text` by clipping (summed over its marks, parsed or still JSON-escaped), and the text with each mark shown as `…`. */
export function takeClipMarks(text: string): { readonly text: string; readonly clippedBytes: number } {
  if (!text.includes('\u0000') && !text.includes('\\u0000')) return { text, clippedBytes: 0 };
  let clippedBytes = 0;
  const count = (_: string, digits: string): string => {
    clippedBytes += Number(digits);
    return '…';
  };
  const out = text.replace(MARK_IN_STRING, count).replace(MARK_IN_JSON_TEXT, count);
  return { text: out, clippedBytes };
}

/** A block with its clip marks taken out of its text and counted in `clippedBytes`. */
export function unmarkBlock(block: Block): Block {
  switch (block.type) {
    case 'text': {
      const { text, clippedBytes } = takeClipMarks(block.text);
      return clippedBytes === 0 ? block : { ...block, text, clippedBytes };
    }
    case 'tool_use': {
      const { text, clippedBytes } = takeClipMarks(block.input);
      return clippedBytes === 0 ? block : { ...block, input: text, clippedBytes };
    }
    case 'tool_result': {
      const { text, clippedBytes } = takeClipMarks(block.output);
      return clippedBytes === 0 ? block : { ...block, output: text, clippedBytes };
    }
    case 'reasoning':
    case 'compaction': {
      const { text, clippedBytes } = takeClipMarks(block.summary);
      return clippedBytes === 0 ? block : { ...block, summary: text, clippedBytes };
    }
    case 'image':
      return block;
  }
}

/** Messages read from clipped lines, with every block's clip marks counted instead of shown. */
export function unmarkMessages(messages: readonly Message[]): Message[] {
  return messages.map(unmarkMessage);
}

/** A message with its blocks unmarked: the same message when none held a mark (no array made: show unmarks ~200k). */
function unmarkMessage(message: Message): Message {
  const blocks = message.blocks;
  for (let i = 0; i < blocks.length; i++) {
    const block = unmarkBlock(blocks[i]!);
    if (block === blocks[i]) continue;
    const unmarked = blocks.slice(0, i);
    unmarked.push(block);
    for (let j = i + 1; j < blocks.length; j++) unmarked.push(unmarkBlock(blocks[j]!));
    return { ...message, blocks: unmarked };
  }
  return message;
}
