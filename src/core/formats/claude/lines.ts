/** What a Claude Code line is: a node of the `parentUuid` tree, a user turn, a prompt's text, a message's usage. */
import { type Usage } from '../../model.js';
import { isLocalCommandCaveat, isOtherOrigin, stripIdeContext, typedSlashCommand } from './rules.js';
import { isRecord, type JsonObject } from '../../json.js';

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
export const LEAF_TYPES = new Set(['user', 'assistant', 'attachment', 'system']);
/** Line types whose parsed value is kept to build messages. */
export const MESSAGE_TYPES = new Set(['user', 'assistant', 'system']);

/** User lines that Claude Code writes for slash commands, `!` shell mode and interruptions: not prompts. */
const NOT_A_PROMPT =
  /^(?:<(?:command-name|command-message|command-args|local-command-stdout|local-command-stderr|local-command-caveat|bash-input|bash-stdout|bash-stderr)>|\[Request interrupted by user)/;

/** The model name Claude Code records for messages it made up itself (e.g. "No response requested."). */
export const SYNTHETIC_MODEL = '<synthetic>';

export function stringOrNull(value: unknown): string | null {
  return typeof value === 'string' && value.length > 0 ? value : null;
}

export function messageOf(value: JsonObject): JsonObject | null {
  return isRecord(value.message) ? value.message : null;
}

export function contentBlocks(content: unknown): JsonObject[] {
  return Array.isArray(content) ? content.filter(isRecord) : [];
}

/** The text a user line carries as written: the string content, or its text blocks joined. */
export function rawUserText(content: unknown): string {
  if (typeof content === 'string') return content;
  return contentBlocks(content)
    .filter((block) => block.type === 'text' && typeof block.text === 'string')
    .map((block) => block.text as string)
    .join('\n');
}

/** The prompt a slash command line stands for, as typed (`/init`), when the line is one. */
export function slashCommandOf(text: string): string | null {
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

export function usageOf(message: JsonObject): Usage | null {
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
