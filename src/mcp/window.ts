// A window of a transcript for a model: turns by number, each block's text clipped (the clip says how to ask for
// more), and the whole reply bounded, so one read_session call fits a model's context.
import type { Block, Message, Session } from '../core/model.js';
import { stripControl } from '../core/text.js';

export interface WindowRequest {
  /** 1-based first user turn. */
  readonly from: number;
  /** Last user turn (inclusive); clamped to the session's last. */
  readonly to: number;
  /** Characters kept of each block's text (a prompt, an answer, a tool's input or output). */
  readonly maxBlockChars: number;
  /** Characters of the whole window: turns past it are left for a next call. */
  readonly maxChars: number;
  /** Injected context and system messages too. */
  readonly system: boolean;
}

/** A turn out of the session's range, or a range that is empty: the caller's mistake, said as a tool error. */
export class WindowRangeError extends Error {}

/** The messages of each user turn (a user prompt and everything until the next one); [0]: what came before turn 1. */
export function splitTurns(messages: readonly Message[]): Message[][] {
  const turns: Message[][] = [[]];
  for (const message of messages) {
    if (message.userTurn) turns.push([]);
    turns.at(-1)!.push(message);
  }
  return turns;
}

function clip(text: string, max: number, where: string): string {
  const clean = stripControl(text);
  if (clean.length <= max) return clean;
  return `${clean.slice(0, max)}\n[… ${clean.length - max} more characters clipped; read this turn alone with a larger maxBlockChars to see them (${where})]`;
}

function blockText(block: Block, max: number, where: string): string | null {
  switch (block.type) {
    case 'text':
      return clip(block.text, max, where);
    case 'tool_use':
      return `[tool call ${stripControl(block.name)}] ${clip(block.input, max, where)}`;
    case 'tool_result':
      return `[tool result${block.isError ? ' (error)' : ''}] ${clip(block.output, max, where)}`;
    case 'reasoning':
      return block.summary === '' ? null : `[reasoning] ${clip(block.summary, max, where)}`;
    case 'compaction':
      return `[compacted] ${clip(block.summary, max, where)}`;
    case 'image':
      return '[image]';
  }
}

function messageLines(message: Message, max: number, turn: number): string {
  const label = message.userTurn ? 'user' : message.role;
  const parts = message.blocks.map((block) => blockText(block, max, `turn ${turn}`)).filter((text): text is string => text !== null);
  return `${label}${message.timestamp ? ` (${message.timestamp})` : ''}:\n${parts.join('\n')}`;
}

export interface TranscriptWindow {
  readonly text: string;
  /** The turns written, and the first one left for another call (null: none left in the range asked). */
  readonly from: number;
  readonly to: number;
  readonly next: number | null;
  readonly turns: number;
}

/** Turns `from`..`to` of `session` as text, each block clipped, the whole bounded by `maxChars`. */
export function transcriptWindow(session: Session, request: WindowRequest): TranscriptWindow {
  const turns = splitTurns(session.messages.filter((message) => request.system || message.role !== 'system'));
  const count = turns.length - 1;
  if (count === 0) throw new WindowRangeError(`${session.id} has no user turns`);
  if (request.from < 1 || request.from > count) throw new WindowRangeError(`turn ${request.from} is out of range: ${session.id} has turns 1 to ${count}`);
  if (request.to < request.from) throw new WindowRangeError(`the range ${request.from}..${request.to} is empty`);
  const last = Math.min(request.to, count);
  const parts: string[] = [];
  let used = 0;
  let turn = request.from;
  for (; turn <= last; turn++) {
    const text = `## turn ${turn}\n${turns[turn]!.map((message) => messageLines(message, request.maxBlockChars, turn)).join('\n\n')}\n`;
    // The first turn is always written (its blocks are clipped): a window is never empty.
    if (turn > request.from && used + text.length > request.maxChars) break;
    parts.push(text);
    used += text.length;
  }
  const next = turn <= last ? turn : null;
  return { text: parts.join('\n'), from: request.from, to: turn - 1, next, turns: count };
}
