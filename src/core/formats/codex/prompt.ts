import { codexUserPromptText } from './rules.js';

// Prompt text

/**
 * Openings of user-role messages that Codex injects as context rather than the user typing them (the
 * release-dependent `contextual_user_message` fragments, older `<user_instructions>`, and the compaction
 * bridge). Matched case-insensitively after leading whitespace, as Codex does.
 */
const INJECTED_OPENINGS: readonly string[] = [
  '<environment_context>',
  '<user_instructions>',
  '# agents.md instructions for',
  '<skills_instructions>',
  '<skill>',
  '<permissions instructions>',
  '<user_shell_command>',
  '<turn_aborted>',
  '<subagent_notification>',
  '<subagents>',
  '<plugins>',
  '<tool_context>',
  '<reasoning_context>',
  '<pinned_notes>',
  '<context_update>',
  '<collaboration_mode>',
  '<apps_instructions>',
  '<environments_instructions>',
  'another language model started to solve this problem',
];

/** True when a user-role text is context Codex injected (environment, AGENTS.md, skills, …), not a prompt. */
export function isInjectedContext(text: string): boolean {
  const opening = text.trimStart().slice(0, 64).toLowerCase();
  return INJECTED_OPENINGS.some((marker) => opening.startsWith(marker));
}

export { codexUserPromptText };

/** Records that hold no conversation: headers (base instructions), turn contexts, developer-role messages. */
const NOT_CONVERSATION_RECORD = /^\{[^{]*"type"\s*:\s*"(?:session_meta|turn_context)"|"role"\s*:\s*"developer"|^\{"id"\s*:\s*"[^"]*"\s*,\s*"timestamp"\s*:\s*"[^"]*"\s*,\s*"instructions"/;
/** The first text of a user-role message, as its line opens (JSON-escaped). */
const USER_TEXT_OPENING = /"role"\s*:\s*"user"\s*,\s*"content"\s*:\s*\[\s*\{\s*"type"\s*:\s*"input_text"\s*,\s*"text"\s*:\s*"((?:[^"\\]|\\.){0,80})/;

/** What an opening holds when `isCodexNonConversationLine` says true of it: a literal each of its patterns needs. */
export const CODEX_NON_CONVERSATION_NEEDLES: readonly string[] = ['"session_meta"', '"turn_context"', '"developer"', '"instructions"', '"input_text"'];

/**
 * True for a line that is never conversation text, judged by its opening: a full-text search does not count a
 * match inside it (every rollout's header carries the same instructions; AGENTS.md and environment blocks are
 * injected as user messages).
 */
export function isCodexNonConversationLine(opening: string): boolean {
  if (NOT_CONVERSATION_RECORD.test(opening)) return true;
  const text = USER_TEXT_OPENING.exec(opening)?.[1];
  return text !== undefined && isInjectedContext(text.replace(/\\n/g, '\n').replace(/\\"/g, '"'));
}
