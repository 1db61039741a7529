/** The normalized session model every adapter produces and every consumer (CLI, TUI, catalog) reads. */

import { AGENTS, type Agent } from './formats/agents.js';

/** The agents (formats/agents.ts: the list, in listing order, and its type). */
export { AGENTS, type Agent } from './formats/agents.js';

/** The longest agent name: the width of the agent column in list rows and the browser. */
export const AGENT_NAME_WIDTH = Math.max(...AGENTS.map((agent) => agent.length));

/**
 * The key of this machine's session `id` of `agent` (what `sessionKey` gives such a session), for a lookup that has no
 * session object: keying a throwaway object would put it in the WeakMap below (10k of them per grep).
 */
export function localSessionKey(agent: Agent, id: string): string {
  // join() makes one flat string; a template literal makes a cons string that a Map key later flattens into
  // a second copy (≈ 100 bytes a key, five maps of 100k sessions).
  return [agent, id].join(':');
}

/** Each session object's key, made once: the reducer, the watcher and the search index share one string. */
const KEYS = new WeakMap<object, string>();

/** A session's identity: ids are unique per agent only. */
export function sessionKey(session: { readonly agent: Agent; readonly id: string; readonly host?: string }): string {
  let key = KEYS.get(session);
  if (key === undefined) {
    key = unkeptSessionKey(session);
    KEYS.set(session, key);
  }
  return key;
}

/**
 * `sessionKey`, made anew and not kept by the object: for rows that live a moment (grep's, one object per match: 160k
 * entries of a WeakMap at 100k sessions, each an ephemeron the collector visits).
 */
export function unkeptSessionKey(session: { readonly agent: Agent; readonly id: string; readonly host?: string }): string {
  const local = localSessionKey(session.agent, session.id);
  // Per machine too: another host's copy of a session is another row.
  return session.host === undefined ? local : [session.host, local].join('\u0000');
}

export type Role = 'system' | 'user' | 'assistant' | 'tool';

/** Set on a block read for display only (clipped): bytes of its text left out of the read. */
interface Clipped {
  readonly clippedBytes?: number;
}

export interface TextBlock extends Clipped {
  readonly type: 'text';
  readonly text: string;
}

export interface ToolUseBlock extends Clipped {
  readonly type: 'tool_use';
  readonly id: string;
  readonly name: string;
  /** The tool's arguments as the agent recorded them (a JSON string for most agents). */
  readonly input: string;
}

export interface ToolResultBlock extends Clipped {
  readonly type: 'tool_result';
  readonly toolUseId: string;
  readonly output: string;
  readonly isError: boolean;
}

export interface ReasoningBlock extends Clipped {
  readonly type: 'reasoning';
  /** Readable summary (Codex summary_text, Claude/claw thinking text); may be empty when only encrypted content exists. */
  readonly summary: string;
  readonly encrypted: boolean;
}

/** A compaction marker: the conversation was summarised here; `summary` is the text the model saw, when recorded. */
export interface CompactionBlock extends Clipped {
  readonly type: 'compaction';
  readonly summary: string;
}

/** An image in a prompt: inline base64 data or a URL, as the agent recorded it (display shows `[image]`). */
export interface ImageBlock extends Clipped {
  readonly type: 'image';
  /** `image/png`, …; null when the agent did not record it. */
  readonly mediaType: string | null;
  /** The bytes as base64 (no `data:` prefix), or null for an image given by URL. */
  readonly data: string | null;
  /** The image's URL, when it was given by one (not a `data:` URL: those are split into mediaType and data). */
  readonly url: string | null;
}

export type Block = TextBlock | ToolUseBlock | ToolResultBlock | ReasoningBlock | CompactionBlock | ImageBlock;

export interface Usage {
  readonly input: number;
  readonly output: number;
  readonly cacheRead: number;
  readonly cacheWrite: number;
}

/** Where a message came from in the agent's own file(s): used to cut a fork at a line boundary. */
export interface MessageSource {
  readonly path: string;
  /** Byte offset of the first byte of the line that holds this message. */
  readonly offset: number;
}

export interface Message {
  readonly role: Role;
  readonly blocks: readonly Block[];
  /** True only for a real user prompt: not tool results, not injected context, not meta/command lines. */
  readonly userTurn: boolean;
  readonly timestamp?: string;
  readonly usage?: Usage;
  readonly source?: MessageSource;
}

export interface ForkOrigin {
  readonly id: string;
  /** 1-based user turn the fork was cut before, when known. */
  readonly atTurn?: number;
  readonly branchName?: string;
}

/** Where a sub-agent session came from. */
export interface SubagentOrigin {
  /** `review`, `compact`, `thread_spawn`, … as the agent recorded it. */
  readonly kind: string;
  /** The parent session's id when the sub-agent's file names it; else the catalog finds it by cwd and time. */
  readonly parentId: string | null;
}

/** What the catalog lists: a row folded from every line of the files. */
export interface SessionSummary {
  readonly id: string;
  readonly agent: Agent;
  /** The file a resume appends to (for Codex segments: the newest segment). */
  readonly path: string;
  /** Every file that belongs to this conversation (segments, rotated claw files), oldest first. */
  readonly paths: readonly string[];
  readonly cwd: string | null;
  /** Display title: name, else agent title/summary, else first prompt. */
  readonly title: string;
  readonly firstPrompt: string | null;
  readonly lastPrompt: string | null;
  readonly name: string | null;
  readonly userTurns: number;
  /** Always true: rows are folded from every line (kept in the JSON contract of `list --json`). */
  readonly userTurnsExact: boolean;
  /** Opening text of every user prompt seen (for search). */
  readonly prompts: readonly string[];
  readonly createdAt: string;
  readonly updatedAt: string;
  readonly forkedFrom: string | null;
  readonly fork: ForkOrigin | null;
  /**
   * A key shared by sessions that branch from one another (Claude: the root message uuid), for agents whose
   * forks record no parent; the catalog links them (the earliest-created other session with it is the parent).
   */
  readonly lineage?: string;
  /**
   * Set on a sub-agent's own session (a Codex review or spawned thread): what started it and the parent thread
   * when its file names one. The catalog lists it under its parent, not as a row.
   */
  readonly subagent?: SubagentOrigin;
  /** Ids of the sub-agent sessions the catalog found under this one, oldest first. */
  readonly subagents?: readonly string[];
  readonly gitBranch: string | null;
  readonly model: string | null;
  readonly archived: boolean;
  readonly usage: Usage | null;
  /** Total bytes over all paths and the newest mtime: the cache key. */
  readonly size: number;
  readonly mtimeMs: number;
}

/** A fully read conversation: the summary plus the active transcript. */
export interface Session extends SessionSummary {
  readonly messages: readonly Message[];
  /** Lines that could not be parsed (skipped, never fatal). */
  readonly malformedLines: number;
}

/** An image given by URL (Codex `input_image.image_url`): a `data:<type>;base64,<bytes>` URL is split into its parts. */
export function imageFromUrl(url: string): ImageBlock {
  const data = /^data:([^;,]*)(?:;[^;,]*)*;base64,/i.exec(url);
  if (data) return { type: 'image', mediaType: data[1] || null, data: url.slice(data[0].length), url: null };
  return { type: 'image', mediaType: null, data: null, url };
}

/** What an image block shows wherever text is shown. */
export const IMAGE_PLACEHOLDER = '[image]';

/** Text of a message's text blocks (an image as `[image]`), joined. */
export function messageText(message: Pick<Message, 'blocks'>): string {
  return message.blocks
    .filter((block): block is TextBlock | ImageBlock => block.type === 'text' || block.type === 'image')
    .map((block) => (block.type === 'text' ? block.text : IMAGE_PLACEHOLDER))
    .join('\n');
}

/** How long a prompt's opening (a row's first and last prompt, a title made from a prompt) is at most, in UTF-16 units. */
export const PROMPT_OPENING_MAX = 200;

const ELLIPSIS = '…';
/** Made on first use: a segmenter costs ~13 ms to make, at the start of every command that imports this module. */
let graphemes: Intl.Segmenter | null = null;

/**
 * The opening of a prompt as one line: whitespace collapsed, and when longer than `max` UTF-16 units, cut between
 * two characters (grapheme clusters: never half an emoji, a surrogate pair or a letter and its accent) with `…` at
 * the end, the whole at most `max` units. Half a surrogate pair is not Unicode: strict JSON readers reject it.
 */
export function promptOpening(text: string, max = PROMPT_OPENING_MAX): string {
  // A pasted log can be megabytes: collapse only as much as the opening can need, unless that is all blanks.
  const head = text.length > max * 8 ? text.slice(0, max * 8) : text;
  let line = head.replace(/\s+/g, ' ').trim();
  if (line.length <= max && head !== text) line = text.replace(/\s+/g, ' ').trim();
  return line.length <= max ? line : `${openingOf(line, max - ELLIPSIS.length).trimEnd()}${ELLIPSIS}`;
}

/** The longest start of `line` of at most `room` UTF-16 units that ends between two grapheme clusters. */
function openingOf(line: string, room: number): string {
  // Printable ASCII up to the first unit left out: every place between two of them is a cluster boundary.
  if (/^[\x20-\x7e]*$/.test(line.slice(0, room + 1))) return line.slice(0, room);
  let end = 0;
  for (const { index, segment } of (graphemes ??= new Intl.Segmenter(undefined, { granularity: 'grapheme' })).segment(line)) {
    if (index + segment.length > room) break;
    end = index + segment.length;
  }
  return line.slice(0, end);
}

export function countUserTurns(messages: readonly Pick<Message, 'userTurn'>[]): number {
  let count = 0;
  for (const message of messages) if (message.userTurn) count++;
  return count;
}

export function addUsage(a: Usage | null, b: Usage | undefined | null): Usage | null {
  if (!b) return a;
  if (!a) return b;
  return {
    input: a.input + b.input,
    output: a.output + b.output,
    cacheRead: a.cacheRead + b.cacheRead,
    cacheWrite: a.cacheWrite + b.cacheWrite,
  };
}
