/** What a Gemini CLI message is: a user turn, injected context, or an answer with thoughts, tool calls and usage. */
import { type Block, type Message, type Usage } from '../../model.js';
import { isoTimestamp } from '../../time.js';
import { isHandoffNote } from '../../handoff/note-opening.js';
import { argsText, functionResponseBlocks, functionResponseOutput, hasFunctionResponse, imageBlocks, modelPartBlocks, partList, partsText } from './parts.js';
import { isRecord, type JsonObject } from '../../json.js';
import { type GeminiRecord } from './records.js';

// ---------------------------------------------------------------------------------------------------------------
// Messages

export function userText(message: JsonObject): string {
  return partsText(message.content);
}

/**
 * True for a user message that is a prompt: Gemini CLI's own rule for what it sends back on resume
 * (`isIgnoredUserContent`: not empty, not a `/command` or `?` help, not its injected context).
 */
export function isGeminiUserTurn(message: JsonObject): boolean {
  if (message.type !== 'user' || hasFunctionResponse(message.content)) return false;
  const text = userText(message).trim();
  // An image alone is a prompt (Gemini CLI's own string of it is `[Image: …]`).
  if (text.length === 0) return imageBlocks(message.content).length > 0;
  // The note a hand-off to Gemini CLI starts with is a user message for the model, not the user's words.
  return !text.startsWith('/') && !text.startsWith('?') && !INJECTED_CONTEXT.test(text) && !isHandoffNote(text);
}

export function tokensUsage(tokens: unknown): Usage | undefined {
  if (!isRecord(tokens)) return undefined;
  const number = (value: unknown): number => (typeof value === 'number' && Number.isFinite(value) ? value : 0);
  // `input` counts cached tokens too; `thoughts` are output the model spent thinking.
  return { input: number(tokens.input) - number(tokens.cached), output: number(tokens.output) + number(tokens.thoughts), cacheRead: number(tokens.cached), cacheWrite: 0 };
}

function thoughtSummary(thought: JsonObject): string {
  const subject = typeof thought.subject === 'string' ? thought.subject : '';
  const description = typeof thought.description === 'string' ? thought.description : '';
  // As Gemini CLI replays a recorded thought on resume.
  return subject ? `**${subject}** ${description}` : description;
}

/**
 * The transcript: prompts, answers with their thoughts, tool calls and their results; injected context left out.
 * A model message is read as Gemini CLI rebuilds it on resume (`convertSessionToClientHistory`): from its content
 * parts when they hold the calls or thoughts (what a resumed run's `$set.messages` writes), else from `thoughts`,
 * the content and `toolCalls`. A tool's result is shown once, though 0.61 records it in the call
 * (`toolCalls[].result`), as a user message after it, and after a resume as `<id>_response` too.
 */
export function geminiMessages(record: GeminiRecord): Message[] {
  const out: Message[] = [];
  const shownResults = new Set<string>();
  const newResults = (blocks: readonly Block[]): Block[] =>
    blocks.filter((block) => {
      if (block.type !== 'tool_result' || block.toolUseId === '') return true;
      if (shownResults.has(block.toolUseId)) return false;
      shownResults.add(block.toolUseId);
      return true;
    });
  for (const message of record.messages) {
    const timestamp = isoTimestamp(message.timestamp) ?? undefined;
    const stamp = timestamp === undefined ? {} : { timestamp };
    if (message.type === 'user') {
      if (hasFunctionResponse(message.content)) {
        const blocks = newResults(functionResponseBlocks(message.content));
        if (blocks.length > 0) out.push({ role: 'tool', blocks, userTurn: false, ...stamp });
        continue;
      }
      const text = userText(message);
      const images = imageBlocks(message.content);
      if ((text.trim().length === 0 && images.length === 0) || INJECTED_CONTEXT.test(text)) continue;
      out.push({ role: 'user', blocks: [...(text.length > 0 ? [{ type: 'text' as const, text }] : []), ...images], userTurn: isGeminiUserTurn(message), ...stamp });
    } else if (message.type === 'gemini') {
      const content = partList(message.content);
      const toolCalls = Array.isArray(message.toolCalls) ? message.toolCalls.filter(isRecord) : [];
      const blocks: Block[] = [];
      if (content.some((part) => isRecord(part.functionCall) || part.thought === true)) {
        blocks.push(...modelPartBlocks(content));
      } else {
        for (const thought of Array.isArray(message.thoughts) ? message.thoughts.filter(isRecord) : []) {
          blocks.push({ type: 'reasoning', summary: thoughtSummary(thought), encrypted: false });
        }
        blocks.push(...modelPartBlocks(content));
        for (const call of toolCalls) {
          blocks.push({ type: 'tool_use', id: typeof call.id === 'string' ? call.id : '', name: typeof call.name === 'string' ? call.name : '', input: argsText(call.args) });
        }
      }
      const results: Block[] = [];
      for (const call of toolCalls) {
        if (call.result === undefined || call.result === null) continue;
        const id = typeof call.id === 'string' ? call.id : '';
        const isError = call.status === 'error' || call.status === 'cancelled';
        const fromParts = typeof call.result === 'string' ? [] : functionResponseBlocks(call.result, isError);
        results.push(...(fromParts.length > 0 ? fromParts : [{ type: 'tool_result' as const, toolUseId: id, output: typeof call.result === 'string' ? call.result : functionResponseOutput(call.result), isError }]));
      }
      const usage = tokensUsage(message.tokens);
      if (blocks.length > 0) out.push({ role: 'assistant', blocks, userTurn: false, ...stamp, ...(usage ? { usage } : {}) });
      const shown = newResults(results);
      if (shown.length > 0) out.push({ role: 'tool', blocks: shown, userTurn: false, ...stamp });
    } else if (message.type === 'compression') {
      // A `/compress` summary (records.ts): what the model was told instead of the history before it.
      out.push({ role: 'system', blocks: [{ type: 'compaction', summary: userText(message) }], userTurn: false, ...stamp });
    }
    // info / error / warning records are the CLI's own notices, not conversation.
  }
  return out;
}

/** A message record's opening as Gemini CLI writes it: `{"id":…,"timestamp":…,"type":…` (the type is group 1). */
const MESSAGE_OPENING = /^\{"id":"[^"]*",(?:"timestamp":"[^"]*",)?"type":"([a-z]+)"(,"content":\[?\{?(?:"text":)?"\s*<(?:session_context|hook_context)>)?/;

/** What an opening holds when `isGeminiNonConversationLine` says true of it (the openings and types it rejects). */
export const GEMINI_NON_CONVERSATION_NEEDLES: readonly string[] = ['{"$set":', '{"$rewindTo":', '"type":"info"', '"type":"error"', '"type":"warning"', '<session_context>', '<hook_context>'];

/**
 * True for a line that is never conversation text, by its opening (`sessions grep` counts no match in it): `$set`
 * records (metadata, and `$set.messages`, which copies the history with Gemini CLI's `<session_context>`: the
 * workspace's folder listing, the date), `$rewindTo`, the CLI's own info/error/warning notices and the session
 * context message itself. Lines of a legacy pretty-printed `.json` file never match these openings: all counted.
 */
export function isGeminiNonConversationLine(opening: string): boolean {
  if (opening.startsWith('{"$set":') || opening.startsWith('{"$rewindTo":')) return true;
  const message = MESSAGE_OPENING.exec(opening);
  if (message === null) return false;
  return message[1] === 'info' || message[1] === 'error' || message[1] === 'warning' || (message[1] === 'user' && message[2] !== undefined);
}

/** The context Gemini CLI puts in a user message of its own before the first prompt: never the user's words. */
export const INJECTED_CONTEXT = /^\s*<(?:session_context|hook_context)>/;
