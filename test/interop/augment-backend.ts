import type { ServerResponse } from 'node:http';

/**
 * The part of Augment's backend Auggie 0.36.0 needs to hold a conversation, worked out from the requests the CLI sends
 * and from its bundled code (`augment.mjs`: `callApi`, `callApiStream`, `toGetModelsResult`):
 * - `POST /get-models` → `{default_model, models: [{name, …}], languages, feature_flags}`. Without it the CLI runs on
 *   default feature flags, and its prompt component (which waits for the flags) hands the agent loop no prompt.
 * - `POST /chat-stream` (body: `{message, chat_history: [exchange…], nodes, tool_definitions, conversation_id, silent,
 *   …}`, the prompt as a text node, type 0; tool results as `tool_result_node`s, type 1) → newline-delimited JSON
 *   chunks `{text, nodes, stop_reason?}`: response nodes of type 0 (text), 2 (the main text finished), 5 (`tool_use
 *   {tool_use_id, tool_name, input_json}`) and 8 (`thinking {content}`); `stop_reason` 1 ends a turn, 3 asks for the
 *   tool call.
 * - Its MCP and remote-tool listings (`/settings/get-mcp-*-configs`, `/agents/list-remote-tools`): nothing configured.
 */
export const AUGMENT_MODEL = 'stand-in';

/** The tool Auggie offers for shell commands (`launch-process {command, wait, max_wait_seconds, cwd}`). */
export const AUGGIE_SHELL_TOOL = 'launch-process';

/** Request node types of Auggie's chat requests. */
const TEXT_NODE = 0;
const TOOL_RESULT_NODE = 1;

export interface AugmentAnswers {
  readonly toolKeyword: string;
  readonly toolCommand: string;
  readonly toolFinalText: string;
  readonly answerPrefix: string;
  readonly reasoningPrefix: string;
}

interface AugmentNode {
  readonly type?: number;
  readonly text_node?: { readonly content?: string };
}

/** The prompt of a `/chat-stream` request: its text nodes (the history is in `chat_history`). */
export function augmentPromptText(body: unknown): string {
  const nodes = ((body as { nodes?: AugmentNode[] } | null)?.nodes ?? []).filter((node) => node.type === TEXT_NODE);
  const text = nodes.map((node) => node.text_node?.content ?? '').join('\n');
  return text || String((body as { message?: unknown } | null)?.message ?? '');
}

/** Whether a path is one of Augment's backend endpoints the stand-in serves; the tag it answered with, or null. */
export function answerAugment(path: string, body: unknown, res: ServerResponse, n: number, answers: AugmentAnswers): string | null {
  if (path === '/get-models') {
    sendJson(res, { default_model: AUGMENT_MODEL, models: [{ name: AUGMENT_MODEL, suggested_prefix_char_count: 0, suggested_suffix_char_count: 0 }], languages: [], feature_flags: {} });
    return 'models';
  }
  if (path === '/settings/get-mcp-tenant-configs' || path === '/settings/get-mcp-user-configs') {
    sendJson(res, { configs: [] });
    return 'mcp-configs';
  }
  if (path === '/agents/list-remote-tools') {
    sendJson(res, { tools: [] });
    return 'remote-tools';
  }
  if (path !== '/chat-stream') return null;
  const nodes = (body as { nodes?: AugmentNode[] } | null)?.nodes ?? [];
  const prompt = augmentPromptText(body);
  res.writeHead(200, { 'content-type': 'application/json' });
  const chunk = (value: unknown): void => {
    res.write(`${JSON.stringify(value)}\n`);
  };
  let reply: string;
  if (nodes.some((node) => node.type === TOOL_RESULT_NODE)) {
    reply = 'tool-final';
    chunk({ text: answers.toolFinalText, nodes: [{ id: 1, type: 0, content: answers.toolFinalText }] });
    chunk({ text: '', nodes: [{ id: 2, type: 2, content: answers.toolFinalText }], stop_reason: 1 });
  } else if (prompt.includes(answers.toolKeyword)) {
    reply = 'tool';
    const input = { command: answers.toolCommand, wait: true, max_wait_seconds: 30, cwd: '.' };
    chunk({ text: '', nodes: [{ id: 1, type: 5, content: '', tool_use: { tool_use_id: `toolu_standin_${n}`, tool_name: AUGGIE_SHELL_TOOL, input_json: JSON.stringify(input) } }], stop_reason: 3 });
  } else {
    reply = 'text';
    const text = answers.answerPrefix + prompt;
    chunk({ text: '', nodes: [{ id: 1, type: 8, content: '', thinking: { content: answers.reasoningPrefix + prompt } }] });
    chunk({ text, nodes: [{ id: 2, type: 0, content: text }] });
    chunk({ text: '', nodes: [{ id: 3, type: 2, content: text }], stop_reason: 1 });
  }
  res.end();
  return reply;
}

function sendJson(res: ServerResponse, value: unknown): void {
  const text = JSON.stringify(value);
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}
