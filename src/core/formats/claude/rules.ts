import { isRecord, type JsonObject } from '../../json.js';
/**
 * What in a Claude Code file is the user's own words, learned from real files (VS Code/JetBrains extensions,
 * background tasks, slash commands, Claude Code 2.1.330). Pure functions over parsed lines and raw openings,
 * called by the row fold and by the transcript alike, so `list`, `show`, the TUI and exports agree.
 */


/** Context the IDE extensions put before (or instead of) the prompt: never the user's words. */
const IDE_CONTEXT_TAGS = ['ide_selection', 'ide_opened_file', 'ide_diagnostics'] as const;
const LEADING_IDE_CONTEXT = new RegExp(`^\\s*<(${IDE_CONTEXT_TAGS.join('|')})>[\\s\\S]*?</\\1>`);
const OPENS_IDE_CONTEXT = new RegExp(`^\\s*<(?:${IDE_CONTEXT_TAGS.join('|')})>`);

/**
 * `text` without the IDE context blocks it opens with (any number of them), leading blanks trimmed. A block
 * whose closing tag is gone (a long selection clipped by a summary read) is context to the end.
 */
export function stripIdeContext(text: string): string {
  let rest = text;
  for (let match = LEADING_IDE_CONTEXT.exec(rest); match !== null; match = LEADING_IDE_CONTEXT.exec(rest)) {
    rest = rest.slice(match[0].length);
  }
  if (OPENS_IDE_CONTEXT.test(rest)) return '';
  return rest === text ? text : rest.replace(/^\s+/, '');
}

/** True when a text holds IDE context and nothing else. */
export function isOnlyIdeContext(text: string): boolean {
  return text !== stripIdeContext(text) && stripIdeContext(text).trim().length === 0;
}

/**
 * True when a user line was not written by the user: `origin.kind` names another source (2.1.330 writes `human`
 * for typed prompts; background tasks write `task-notification`), or the text is a task notification.
 */
export function isOtherOrigin(value: JsonObject, text: string): boolean {
  const origin = value.origin;
  if (isRecord(origin) && typeof origin.kind === 'string' && origin.kind !== 'human') return true;
  return /^\s*<task-notification>/.test(text);
}

/** True for the meta line Claude Code writes before a local command's lines (`<local-command-caveat>`). */
export function isLocalCommandCaveat(value: JsonObject, text: string): boolean {
  return value.isMeta === true && /^\s*<local-command-caveat>/.test(text);
}

/** A slash command line as the user typed it (`/orchestrator create TODO app`), or null when it is not one. */
export function typedSlashCommand(text: string): string | null {
  const name = /<command-name>([\s\S]*?)<\/command-name>/.exec(text)?.[1]?.trim();
  if (name === undefined || name.length === 0) return null;
  // A display read may have clipped the line inside the arguments: their closing tag is then gone.
  const args = /<command-args>([\s\S]*?)(?:<\/command-args>|$)/.exec(text)?.[1]?.trim() ?? '';
  const command = name.startsWith('/') ? name : `/${name}`;
  return args.length > 0 ? `${command} ${args}` : command;
}

/**
 * What the chain rules need to know of a line, kept on its node (a fold that keeps no parsed lines still has
 * them): its type, whether it is a meta line, and the slash command it holds as typed.
 */
export interface CommandWalkNode {
  readonly type: string;
  readonly meta: boolean;
  readonly command: string | null;
}

/**
 * The slash command line an assistant line answers, when the model's turn began with one (`/init`: the command
 * line, its meta expansion, attachments, then the answer), else null. Local commands (`/compact`, `/rename`)
 * never reach the model: their next assistant line answers the next prompt.
 */
export function commandAnsweredBy<T extends CommandWalkNode>(assistant: T, parentOf: (node: T) => T | undefined): T | null {
  return commandAnsweredAt(assistant, parentOf, (node) => node);
}

/** commandAnsweredBy over nodes of any kind (a node table's indexes), `fields` telling what each is. */
export function commandAnsweredAt<T>(assistant: T, parentOf: (node: T) => T | undefined, fields: (node: T) => CommandWalkNode): T | null {
  let sawExpansion = false;
  const seen = new Set<T>();
  for (let node = parentOf(assistant); node !== undefined && !seen.has(node); node = parentOf(node)) {
    seen.add(node);
    const { type, meta, command } = fields(node);
    if (type === 'attachment') continue;
    if (type !== 'user') return null;
    if (meta) {
      sawExpansion = true;
      continue;
    }
    return sawExpansion && command !== null ? node : null;
  }
  return null;
}

/** Records Claude Code 2.1.330 writes for itself (request shapes, system prompts, costs): never conversation. */
const NOT_CONVERSATION_RECORDS = /^\{\s*"type"\s*:\s*"(?:api-request(?:-shape|-blob)?|cost-state|atis-latch|tools-used|permission-mode)"/;

/** Attachments that carry Claude Code's own context (environment, tool and skill listings, prompt snapshots). */
const INJECTED_ATTACHMENTS =
  /"attachment"\s*:\s*\{\s*"type"\s*:\s*"(?:environment|model|deferred_tools_delta|agent_listing_delta|skill_listing|session_context|date|remote_session_change|prompt_snapshot|command_permissions)"/;

/**
 * True when a line, judged by its opening bytes (the first few hundred), is never conversation text: a search
 * must not match inside it. Structural quotes cannot come from string content (which escapes them).
 */
export function isClaudeNonConversationLine(opening: string): boolean {
  return NOT_CONVERSATION_RECORDS.test(opening) || INJECTED_ATTACHMENTS.test(opening);
}

/** What an opening holds when `isClaudeNonConversationLine` says true of it: the record names and the attachment key of its patterns. */
export const CLAUDE_NON_CONVERSATION_NEEDLES: readonly string[] = ['"api-request', '"cost-state"', '"atis-latch"', '"tools-used"', '"permission-mode"', '"attachment"'];

/** The title in a `/rename` sidecar (`<project>/<id>/custom-title.json`), or null. */
export function sidecarTitle(json: string): string | null {
  try {
    const value: unknown = JSON.parse(json);
    if (!isRecord(value)) return null;
    const title = value.customTitle ?? value.title;
    return typeof title === 'string' && title.trim().length > 0 ? title : null;
  } catch {
    return null;
  }
}
