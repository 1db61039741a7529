/**
 * Auggie's session file (verified against 0.36.0): `<augment dir>/sessions/<uuid>.json`, one JSON object (pretty
 * printed, rewritten whole on every save) `{sessionId, created, modified, chatHistory, agentState {modelId, …},
 * rootTaskUuid, customTitle?, title?, parentConversationId?, …}`. Each `chatHistory` entry is
 * `{exchange: {request_message, response_text, request_id, request_nodes, response_nodes}, completed, sequenceId,
 * finishedAt, …}`: one request to Augment's backend and its answer. A prompt's exchange has the prompt in
 * `request_message` and as a text node (type 0); an exchange that carries tool results back has an empty
 * `request_message` and `tool_result_node`s (type 1). Every request holds an IDE state node (type 4) with the
 * workspace folders and the terminal's cwd: the only place the cwd is recorded. Answers are response nodes: text
 * (type 0), the main text finished (type 2, the same text again), a tool call (type 5, `tool_use {tool_use_id,
 * tool_name, input_json}`) and thinking (type 8). `customTitle` is the session's name (`/rename`, or a title Auggie
 * makes from the first prompt in its terminal UI).
 */
import { stat } from 'node:fs/promises';
import { readJsonDocument } from '../../io/clip-stream.js';
import { fingerprintOf, FINGERPRINT_BYTES, indexReads, parseJsonLine } from '../../io/lines.js';
import { isHandoffNote } from '../../handoff/note-opening.js';
import { isRecord, type JsonObject } from '../../json.js';
import type { Block, Message } from '../../model.js';
import { isoTimestamp } from '../../time.js';

/** Request node types (Auggie's `ChatRequestNodeType`). */
export const REQUEST_TEXT = 0;
export const REQUEST_TOOL_RESULT = 1;
export const REQUEST_IMAGE = 2;
export const REQUEST_IDE_STATE = 4;
/** Response node types (`ChatResultNodeType`). */
export const RESPONSE_TEXT = 0;
export const RESPONSE_MAIN_TEXT_FINISHED = 2;
export const RESPONSE_TOOL_USE = 5;
export const RESPONSE_THINKING = 8;

/** A session file read whole: its object (null when it is none), with what the catalog keys it by. */
export interface AuggieFile {
  readonly document: JsonObject | null;
  readonly size: number;
  readonly mtimeMs: number;
  readonly fingerprint: string;
}

/** Read a session file whole through the one safe open (a display read of a giant one clips its long strings). */
export async function readAuggieFile(path: string): Promise<AuggieFile> {
  const bytes = await readJsonDocument(path);
  indexReads.bytes += bytes.length;
  const stats = await stat(path);
  const value = parseJsonLine(bytes);
  return { document: isRecord(value) ? value : null, size: stats.size, mtimeMs: stats.mtimeMs, fingerprint: fingerprintOf(bytes.subarray(0, FINGERPRINT_BYTES)) };
}

export function stringOrNull(value: unknown): string | null {
  return typeof value === 'string' && value.length > 0 ? value : null;
}

/** The chat history's entries, in order. */
export function historyOf(document: JsonObject): JsonObject[] {
  return Array.isArray(document.chatHistory) ? document.chatHistory.filter(isRecord) : [];
}

export function exchangeOf(entry: JsonObject): JsonObject {
  return isRecord(entry.exchange) ? entry.exchange : {};
}

function nodes(exchange: JsonObject, key: 'request_nodes' | 'response_nodes'): JsonObject[] {
  const list = exchange[key];
  return Array.isArray(list) ? list.filter(isRecord) : [];
}

export const requestNodes = (exchange: JsonObject): JsonObject[] => nodes(exchange, 'request_nodes');
export const responseNodes = (exchange: JsonObject): JsonObject[] => nodes(exchange, 'response_nodes');

/** The text of a request's text nodes, each (the hand-off note sessions writes is one of its own). */
function textNodes(exchange: JsonObject): string[] {
  return requestNodes(exchange)
    .filter((node) => node.type === REQUEST_TEXT && isRecord(node.text_node) && typeof node.text_node.content === 'string')
    .map((node) => (node.text_node as JsonObject).content as string);
}

/** What the user typed for an exchange: its `request_message`, else its text nodes (a hand-off note left out). */
export function promptOf(exchange: JsonObject): string {
  const message = exchange.request_message;
  if (typeof message === 'string' && message.trim() !== '') return message;
  return textNodes(exchange)
    .filter((text) => !isHandoffNote(text))
    .join('\n');
}

const hasImage = (exchange: JsonObject): boolean => requestNodes(exchange).some((node) => node.type === REQUEST_IMAGE);

/**
 * A prompt the user typed: an exchange whose request has a prompt (or an image). An exchange carrying tool results
 * back, and the summary Auggie writes in place of older history, are none.
 */
export function isAuggieUserTurn(entry: JsonObject): boolean {
  if (entry.isHistorySummary === true) return false;
  const exchange = exchangeOf(entry);
  return promptOf(exchange).trim() !== '' || hasImage(exchange);
}

/** The cwd an exchange's IDE state names: the terminal's directory, else the first workspace folder. */
export function cwdOf(exchange: JsonObject): string | null {
  for (const node of requestNodes(exchange)) {
    if (node.type !== REQUEST_IDE_STATE || !isRecord(node.ide_state_node)) continue;
    const state = node.ide_state_node;
    const terminal = isRecord(state.current_terminal) ? stringOrNull(state.current_terminal.current_working_directory) : null;
    if (terminal !== null) return terminal;
    const folders = Array.isArray(state.workspace_folders) ? state.workspace_folders.filter(isRecord) : [];
    const folder = folders[0];
    if (folder !== undefined) return stringOrNull(folder.folder_root) ?? stringOrNull(folder.repository_root);
  }
  return null;
}

/** When an exchange ended: `finishedAt`, else its newest response node's `timestamp_ms`. */
export function exchangeTime(entry: JsonObject): string | null {
  const finished = isoTimestamp(entry.finishedAt);
  if (finished !== null) return finished;
  const times = responseNodes(exchangeOf(entry)).flatMap((node) => (typeof node.timestamp_ms === 'number' ? [node.timestamp_ms] : []));
  return times.length === 0 ? null : new Date(Math.max(...times)).toISOString();
}

function imageBlock(node: JsonObject): Block | null {
  const image = isRecord(node.image_node) ? node.image_node : null;
  if (image === null || typeof image.image_data !== 'string') return null;
  // Auggie's image format enum: 1 PNG, 2 JPEG, 3 GIF, 4 WEBP.
  const types: Record<number, string> = { 1: 'image/png', 2: 'image/jpeg', 3: 'image/gif', 4: 'image/webp' };
  return { type: 'image', mediaType: typeof image.format === 'number' ? (types[image.format] ?? null) : null, data: image.image_data, url: null };
}

/** One chat history entry as transcript messages: tool results, the prompt (and any hand-off note), the answer. */
export function auggieMessages(entry: JsonObject): Message[] {
  const exchange = exchangeOf(entry);
  const timestamp = exchangeTime(entry) ?? undefined;
  const stamp = timestamp === undefined ? {} : { timestamp };
  const out: Message[] = [];
  const results: Block[] = requestNodes(exchange)
    .filter((node) => node.type === REQUEST_TOOL_RESULT && isRecord(node.tool_result_node))
    .map((node) => {
      const result = node.tool_result_node as JsonObject;
      return { type: 'tool_result', toolUseId: typeof result.tool_use_id === 'string' ? result.tool_use_id : '', output: typeof result.content === 'string' ? result.content : '', isError: result.is_error === true };
    });
  if (results.length > 0) out.push({ role: 'tool', blocks: results, userTurn: false, ...stamp });
  for (const text of textNodes(exchange)) if (isHandoffNote(text)) out.push({ role: 'system', blocks: [{ type: 'text', text }], userTurn: false, ...stamp });
  if (entry.isHistorySummary === true) {
    const summary = promptOf(exchange);
    if (summary !== '') out.push({ role: 'system', blocks: [{ type: 'compaction', summary }], userTurn: false, ...stamp });
  } else if (isAuggieUserTurn(entry)) {
    const said: Block[] = [];
    const prompt = promptOf(exchange);
    if (prompt.trim() !== '') said.push({ type: 'text', text: prompt });
    for (const node of requestNodes(exchange)) {
      if (node.type !== REQUEST_IMAGE) continue;
      const image = imageBlock(node);
      if (image !== null) said.push(image);
    }
    out.push({ role: 'user', blocks: said, userTurn: true, ...stamp });
  }
  const answer = answerBlocks(exchange);
  if (answer.length > 0) out.push({ role: 'assistant', blocks: answer, userTurn: false, ...stamp });
  return out;
}

/** The answer's blocks: text (the streamed text nodes, else the finished text, else `response_text`), thinking, tool calls. */
function answerBlocks(exchange: JsonObject): Block[] {
  const blocks: Block[] = [];
  const nodesOf = responseNodes(exchange);
  const streamed = nodesOf.some((node) => node.type === RESPONSE_TEXT);
  let text = '';
  const flush = (): void => {
    if (text !== '') blocks.push({ type: 'text', text });
    text = '';
  };
  for (const node of nodesOf) {
    if (node.type === RESPONSE_TEXT && typeof node.content === 'string') text += node.content;
    else if (node.type === RESPONSE_MAIN_TEXT_FINISHED && !streamed && typeof node.content === 'string') text += node.content;
    else if (node.type === RESPONSE_THINKING && isRecord(node.thinking)) {
      flush();
      const thinking = node.thinking;
      blocks.push({ type: 'reasoning', summary: typeof thinking.content === 'string' ? thinking.content : '', encrypted: typeof thinking.encrypted_content === 'string' && thinking.encrypted_content !== '' });
    } else if (node.type === RESPONSE_TOOL_USE && isRecord(node.tool_use)) {
      flush();
      const call = node.tool_use;
      blocks.push({ type: 'tool_use', id: typeof call.tool_use_id === 'string' ? call.tool_use_id : '', name: typeof call.tool_name === 'string' ? call.tool_name : 'tool', input: typeof call.input_json === 'string' ? call.input_json : '{}' });
    }
  }
  flush();
  if (nodesOf.length === 0 && typeof exchange.response_text === 'string' && exchange.response_text !== '') blocks.push({ type: 'text', text: exchange.response_text });
  return blocks;
}

/** The model the session ran with (`agentState.modelId`), or null. */
export function modelOf(document: JsonObject): string | null {
  return isRecord(document.agentState) ? stringOrNull(document.agentState.modelId) : null;
}

/** The lineage a session shares with its forks: the first exchange's request id (a fork keeps its exchanges). */
export function lineageOf(document: JsonObject): string | null {
  const first = historyOf(document)[0];
  return first === undefined ? null : stringOrNull(exchangeOf(first).request_id);
}
