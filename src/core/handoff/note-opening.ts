/**
 * How every hand-off note begins. A leaf module: the Gemini CLI and Qwen Code readers import it to tell the note
 * (a user message in formats without a field that says "not the user's words") from a prompt.
 */
export const HANDOFF_NOTE_OPENING = '[sessions] This conversation was handed off to ';

/** True for the text of a note `sessions` wrote at the start of a handed-off session. */
export function isHandoffNote(text: string): boolean {
  return text.startsWith(HANDOFF_NOTE_OPENING);
}
