import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';
import { answerAugment } from './augment-backend.js';

/**
 * A tiny, deterministic model server on loopback that speaks just enough of four wire protocols for the real
 * agents to hold a conversation:
 * - OpenAI Responses (`POST /v1/responses`, SSE) for Codex;
 * - Anthropic Messages (`POST /v1/messages`, SSE or not) for Claude Code;
 * - Gemini `POST /v1beta/models/<model>:generateContent` and `:streamGenerateContent` (SSE with `?alt=sse`, else a
 *   JSON array), plus `:countTokens`, for Gemini CLI;
 * - OpenAI Chat Completions (`POST /v1/chat/completions`, SSE with `stream: true` or one JSON answer) for Qwen Code
 *   and other OpenAI-compatible clients;
 * - Augment's backend (`POST /get-models`, `/chat-stream`: newline-delimited JSON) for Auggie (augment-backend.ts).
 * Every request is recorded with its parsed body, so a test can read exactly which history an agent sent.
 *
 * Answers:
 * - a prompt containing TOOL_KEYWORD gets one tool call (Codex: `exec_command`/`shell`; Claude: `Bash`; Gemini and
 *   Chat Completions: the shell tool the request offers, see SHELL_TOOL_NAMES) running TOOL_COMMAND; once the tool's
 *   result comes back, a final text;
 * - any other prompt gets `ANSWER_PREFIX + <the prompt>`, so a prompt's marker also tags its answer and a test can
 *   tell from a request body which turns (prompts and answers) it carried; with it comes reasoning (Codex: summary
 *   and `encrypted_content`; Claude: signed thinking; Gemini: a `thought` part with a `thoughtSignature`; Chat
 *   Completions: `reasoning_content`), all starting with REASONING_PREFIX.
 */

export const TOOL_KEYWORD = 'RUN-THE-TOOL';
export const TOOL_COMMAND = 'echo interop-tool-ran';
export const TOOL_FINAL_TEXT = 'The tool ran; done.';
/** In a Gemini CLI prompt: the stand-in has the main agent hand the task to its `generalist` sub-agent. */
export const SUBAGENT_KEYWORD = 'RUN-THE-SUBAGENT';
/** Gemini CLI 0.61's tool that runs a sub-agent (`{agent_name, prompt}`); `generalist` is a local agent with every tool. */
export const GEMINI_SUBAGENT_TOOL = 'invoke_agent';
export const ANSWER_PREFIX = 'Answer to: ';
export const REASONING_PREFIX = 'Thinking about: ';
/**
 * In a prompt `CALL-MCP-TOOL <tool> <json arguments>`: the stand-in calls that MCP server tool (offered by the agent
 * as `mcp__<server>__<tool>` or the like) with those arguments; once its result comes back, a final text.
 */
export const MCP_KEYWORD = 'CALL-MCP-TOOL';

/**
 * The offered tool a prompt's MCP_KEYWORD asks for, with its arguments (and its namespace, for an agent that offers a
 * server's tools as one `namespace` tool: Codex 0.16x's `mcp__<server>`); null when the prompt asks for none.
 */
export function mcpToolCall(prompt: string, tools: readonly McpOffered[]): { name: string; namespace?: string; args: Record<string, unknown> } | null {
  const asked = new RegExp(`${MCP_KEYWORD} (\\w+) (\\{.*\\})`).exec(prompt);
  if (asked === null) return null;
  const args = JSON.parse(asked[2]!) as Record<string, unknown>;
  const wanted = (name: string | undefined): boolean => name === asked[1] || name?.endsWith(`__${asked[1]}`) === true;
  for (const tool of tools) {
    if (tool.type === 'namespace' && tool.tools?.some((inner) => wanted(inner.name))) return { name: asked[1]!, namespace: tool.name!, args };
    if (tool.name !== undefined && wanted(tool.name)) return { name: tool.name, args };
  }
  return null;
}

interface McpOffered {
  readonly name?: string;
  readonly type?: string;
  readonly tools?: readonly { readonly name?: string }[];
}

/** The opaque blob (Codex `encrypted_content`, Claude thinking `signature`) the stand-in attaches to a prompt's answer. */
export function encryptedBlob(prompt: string): string {
  return `opaque-${createHash('sha256').update(prompt).digest('base64url')}`;
}

export interface RecordedRequest {
  /** 1-based arrival order. */
  readonly seq: number;
  readonly method: string;
  /** Path without the query string. */
  readonly path: string;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  /** The parsed JSON body, or null when the body was empty or not JSON. */
  readonly body: unknown;
  /** The body as text (after content-encoding was undone). */
  readonly raw: string;
  /** What the stand-in answered: 'text', 'tool', 'tool-final', or another short tag. */
  reply: string;
}

export interface ModelStandIn {
  readonly port: number;
  /** `http://127.0.0.1:PORT` (Claude Code wants it without `/v1`; Codex's base_url adds `/v1`). */
  readonly origin: string;
  /** Every request so far, oldest first. */
  readonly requests: readonly RecordedRequest[];
  /** Requests that arrived after the given count (`const mark = standIn.requests.length; … standIn.since(mark)`). */
  since(mark: number): RecordedRequest[];
  close(): Promise<void>;
}

const MAX_BODY_BYTES = 64 * 1024 * 1024;

/**
 * Scripted turns, for the sample home's showcase sessions (test/interop/record-showcase.ts), so that what a reader
 * sees there reads like real work: a prompt the script knows is answered with its text (after running its shell
 * command, when it has one) instead of the marker answer. Codex (Responses), Claude Code (Messages) and Chat
 * Completions clients (opencode, Qwen Code: the command through their shell tool).
 */
export interface StandInScript {
  turn(prompt: string): ScriptedTurn | undefined;
}

export interface ScriptedTurn {
  readonly answer: string;
  readonly reasoning?: string;
  /** A shell command the turn runs first (Codex `exec_command`, Claude `Bash`, a Chat Completions client's shell tool). */
  readonly command?: string;
  /** Claude Code only: a tool call the turn makes first instead of a command (`Write` {file_path, content}, `Edit`). */
  readonly tool?: { readonly name: string; readonly input: Record<string, unknown> };
}

export async function startModelStandIn(options: { readonly script?: StandInScript } = {}): Promise<ModelStandIn> {
  const requests: RecordedRequest[] = [];
  const server = createServer((req, res) => {
    handle(req, res, requests, options.script).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: String(error) } }));
    });
  });
  // Agents keep connections alive; do not let an idle socket hold close() forever.
  server.keepAliveTimeout = 1000;
  await new Promise<void>((resolvePromise, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolvePromise());
  });
  const { port } = server.address() as AddressInfo;
  return {
    port,
    origin: `http://127.0.0.1:${port}`,
    requests,
    since: (mark) => requests.slice(mark),
    close: () =>
      new Promise<void>((resolvePromise) => {
        server.closeAllConnections();
        server.close(() => resolvePromise());
      }),
  };
}

async function handle(req: IncomingMessage, res: ServerResponse, requests: RecordedRequest[], script: StandInScript | undefined): Promise<void> {
  const raw = await readBody(req);
  let body: unknown = null;
  try {
    body = raw.length > 0 ? JSON.parse(raw) : null;
  } catch {
    body = null;
  }
  const path = (req.url ?? '/').split('?')[0] ?? '/';
  const record: RecordedRequest = { seq: requests.length + 1, method: req.method ?? 'GET', path, headers: req.headers, body, raw, reply: '' };
  requests.push(record);

  if (req.method === 'POST') {
    // Auggie: Augment's own backend (augment-backend.ts).
    const augment = answerAugment(path, body, res, record.seq, { toolKeyword: TOOL_KEYWORD, toolCommand: TOOL_COMMAND, toolFinalText: TOOL_FINAL_TEXT, answerPrefix: ANSWER_PREFIX, reasoningPrefix: REASONING_PREFIX });
    if (augment !== null) {
      record.reply = augment;
      return;
    }
  }
  if (req.method === 'POST' && path.endsWith('/responses')) return answerResponses(record, res, script);
  if (req.method === 'POST' && path.endsWith('/messages/count_tokens')) {
    record.reply = 'count_tokens';
    return sendJson(res, 200, { input_tokens: Math.ceil(raw.length / 4) });
  }
  if (req.method === 'POST' && path.endsWith('/messages')) return answerMessages(record, res, script);
  if (req.method === 'POST' && path.endsWith('/chat/completions')) return answerChatCompletions(record, res, script);
  const gemini = /\/models\/([^/:]+):(generateContent|streamGenerateContent|countTokens)$/.exec(path);
  if (req.method === 'POST' && gemini) {
    if (gemini[2] === 'countTokens') {
      record.reply = 'count_tokens';
      return sendJson(res, 200, { totalTokens: Math.ceil(raw.length / 4) });
    }
    const query = new URLSearchParams((req.url ?? '').split('?')[1] ?? '');
    return answerGemini(record, res, decodeURIComponent(gemini[1]!), gemini[2] === 'streamGenerateContent', query.get('alt') === 'sse');
  }
  if (req.method === 'GET' && path.endsWith('/models')) {
    record.reply = 'models';
    return sendJson(res, 200, { object: 'list', data: [], models: [] });
  }
  if ((req.method === 'HEAD' || req.method === 'GET') && path === '/') {
    // Claude Code probes the base URL before its first request.
    record.reply = 'probe';
    res.writeHead(200, { 'content-length': 0 });
    res.end();
    return;
  }
  // Telemetry, update checks and the like: a plain, quick "nothing here" keeps agents from retrying.
  record.reply = 'not-found';
  return sendJson(res, 404, { error: { type: 'not_found_error', message: `the model stand-in does not serve ${req.method} ${path}` } });
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buffer = chunk as Buffer;
    size += buffer.length;
    if (size > MAX_BODY_BYTES) throw new Error('request body too large');
    chunks.push(buffer);
  }
  let data = Buffer.concat(chunks);
  const encoding = String(req.headers['content-encoding'] ?? '').toLowerCase();
  if (encoding === 'gzip') data = gunzipSync(data);
  else if (encoding === 'br') data = brotliDecompressSync(data);
  else if (encoding === 'deflate') data = inflateSync(data);
  else if (encoding !== '' && encoding !== 'identity') throw new Error(`unsupported content-encoding ${encoding}`);
  return data.toString('utf8');
}

function sendJson(res: ServerResponse, status: number, value: unknown): void {
  const text = JSON.stringify(value);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

function startSse(res: ServerResponse): (event: string, data: unknown) => void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
  return (event, data) => {
    res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  };
}

// ---------------------------------------------------------------------------------------------------------------
// OpenAI Responses (Codex)

interface ResponsesItem {
  readonly type?: string;
  readonly role?: string;
  readonly content?: unknown;
  readonly name?: string;
}

function answerResponses(record: RecordedRequest, res: ServerResponse, script: StandInScript | undefined): void {
  const body = (record.body ?? {}) as { input?: ResponsesItem[]; tools?: { name?: string; type?: string }[] };
  const input = Array.isArray(body.input) ? body.input : [];
  const last = input.at(-1);
  const n = record.seq;
  // Copilot CLI puts `<current_datetime>…</current_datetime>` before every prompt it sends; it is no part of the prompt.
  const prompt = withoutCopilotDatetime(lastCodexUserText(input));
  const scripted = script?.turn(prompt);
  let items: unknown[];
  if (last && (last.type === 'function_call_output' || last.type === 'custom_tool_call_output')) {
    record.reply = 'tool-final';
    items = [assistantMessage(n, scripted?.answer ?? TOOL_FINAL_TEXT)];
  } else if (scripted) {
    record.reply = scripted.command ? 'tool' : 'text';
    items = scripted.command
      ? [codexToolCall(n, body.tools ?? [], scripted.command)]
      : [{ ...(reasoningItem(n, prompt) as object), summary: [{ type: 'summary_text', text: scripted.reasoning ?? `${REASONING_PREFIX}${prompt}` }] }, assistantMessage(n, scripted.answer)];
  } else {
    const task = (body.tools ?? []).find((tool) => tool.name === COPILOT_SUBAGENT_TOOL);
    if (prompt.includes(SUBAGENT_KEYWORD) && task && isCopilotRequest(body.tools ?? [])) {
      // Copilot CLI's sub-agent: its own requests get the sub-task (no keyword in it: it answers in text).
      record.reply = 'subagent';
      const args = { ...(valueForSchema((task as { parameters?: JsonSchema }).parameters) as Record<string, unknown>), description: 'Look around', prompt: `Sub-task: list what the api server holds (${prompt.slice(0, 40).replace(SUBAGENT_KEYWORD, 'sub-agent')})` };
      items = [{ type: 'function_call', id: `fc_${n}`, call_id: `call_${n}`, status: 'completed', name: task.name, arguments: JSON.stringify(args) }];
    } else if (mcpToolCall(prompt, body.tools ?? []) !== null) {
      record.reply = 'mcp';
      const call = mcpToolCall(prompt, body.tools ?? [])!;
      items = [{ type: 'function_call', id: `fc_${n}`, call_id: `call_${n}`, status: 'completed', name: call.name, ...(call.namespace ? { namespace: call.namespace } : {}), arguments: JSON.stringify(call.args) }];
    } else if (prompt.includes(TOOL_KEYWORD)) {
      record.reply = 'tool';
      items = [isCopilotRequest(body.tools ?? []) ? copilotToolCall(n) : codexToolCall(n, body.tools ?? [])];
    } else {
      record.reply = 'text';
      items = [reasoningItem(n, prompt), assistantMessage(n, ANSWER_PREFIX + prompt)];
    }
  }
  const send = startSse(res);
  const id = `resp_${n}`;
  send('response.created', { type: 'response.created', sequence_number: 0, response: { id, object: 'response', status: 'in_progress', output: [] } });
  items.forEach((item, index) => {
    send('response.output_item.done', { type: 'response.output_item.done', sequence_number: index + 1, output_index: index, item });
  });
  send('response.completed', {
    type: 'response.completed',
    sequence_number: items.length + 1,
    response: {
      id,
      object: 'response',
      status: 'completed',
      output: items,
      usage: {
        input_tokens: Math.ceil(record.raw.length / 4),
        input_tokens_details: { cached_tokens: 0 },
        output_tokens: 8,
        output_tokens_details: { reasoning_tokens: 0 },
        total_tokens: Math.ceil(record.raw.length / 4) + 8,
      },
    },
  });
  res.end();
}

/**
 * Reasoning with a summary and an opaque `encrypted_content` (a real model would reject a history whose blob was
 * altered): a fork must copy it byte for byte, so the tests look for it in the replayed history.
 */
function reasoningItem(n: number, prompt: string): unknown {
  return {
    type: 'reasoning',
    id: `rs_${n}`,
    summary: [{ type: 'summary_text', text: `${REASONING_PREFIX}${prompt}` }],
    encrypted_content: encryptedBlob(prompt),
  };
}

function assistantMessage(n: number, text: string): unknown {
  return { type: 'message', role: 'assistant', id: `msg_${n}`, status: 'completed', content: [{ type: 'output_text', text, annotations: [] }] };
}

function codexToolCall(n: number, tools: readonly { name?: string; type?: string }[], command = TOOL_COMMAND): unknown {
  const names = new Set(tools.map((tool) => tool.name));
  // 0.16x offers `exec_command` ({cmd}); older releases `shell` ({command: argv}).
  const call = names.has('exec_command') || !names.has('shell')
    ? { name: 'exec_command', arguments: JSON.stringify({ cmd: command }) }
    : { name: 'shell', arguments: JSON.stringify({ command: ['bash', '-lc', command] }) };
  return { type: 'function_call', id: `fc_${n}`, call_id: `call_${n}`, status: 'completed', ...call };
}

/** The text of the last user-role message (whatever it is; injected context comes before the prompt). */
function lastCodexUserText(input: readonly ResponsesItem[]): string {
  for (let i = input.length - 1; i >= 0; i -= 1) {
    const item = input[i];
    if (item && (item.type === 'message' || item.type === undefined) && item.role === 'user') return contentText(item.content);
  }
  return '';
}

function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((part: { type?: string; text?: unknown }) => (typeof part?.text === 'string' && part.type !== 'tool_result' ? part.text : ''))
    .filter(Boolean)
    .join('\n');
}

// ---------------------------------------------------------------------------------------------------------------
// GitHub Copilot CLI over OpenAI Responses (`COPILOT_PROVIDER_WIRE_API=responses`): the route above, with Copilot's
// own tool and the datetime it puts before each prompt.

/** Copilot CLI's tool that runs a sub-agent (its `task` events carry `parentToolCallId`). */
export const COPILOT_SUBAGENT_TOOL = 'task';

/** Copilot offers `bash` (and `read_bash`, `apply_patch`, …); Codex offers `exec_command` or `shell`. */
function isCopilotRequest(tools: readonly { name?: string }[]): boolean {
  const names = new Set(tools.map((tool) => tool.name));
  return names.has('bash') && names.has('read_bash') && !names.has('exec_command') && !names.has('shell');
}

function copilotToolCall(n: number): unknown {
  const args = { command: TOOL_COMMAND, description: 'Print a marker', mode: 'sync', initial_wait: 30 };
  return { type: 'function_call', id: `fc_${n}`, call_id: `call_${n}`, status: 'completed', name: 'bash', arguments: JSON.stringify(args) };
}

/** Copilot 1.0.x sends each prompt as `<current_datetime>ISO</current_datetime>\n\n<prompt>`. */
export function withoutCopilotDatetime(text: string): string {
  return text.replace(/^<current_datetime>[^<]*<\/current_datetime>\s*/, '');
}

// ---------------------------------------------------------------------------------------------------------------
// Anthropic Messages (Claude Code)

interface AnthropicMessage {
  readonly role?: string;
  readonly content?: unknown;
}

type AnthropicBlock =
  | { type: 'text'; text: string }
  | { type: 'thinking'; thinking: string; signature: string }
  | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> };

function answerMessages(record: RecordedRequest, res: ServerResponse, script: StandInScript | undefined): void {
  const body = (record.body ?? {}) as { messages?: AnthropicMessage[]; model?: string; stream?: boolean; tools?: { name?: string }[] };
  const messages = Array.isArray(body.messages) ? body.messages : [];
  // 2.1.x may end `messages` with role-`system` notes (agent lists, …) after the user's message.
  const last = messages.findLast((message) => message.role !== 'system');
  const model = body.model ?? 'stand-in';
  const n = record.seq;
  const tools = body.tools ?? [];
  // The prompt the turn answers: after a tool's result, the user's message before it.
  const asked = messages.findLast((message) => message.role === 'user' && !hasToolResult(message.content));
  const scripted = asked ? script?.turn(claudePromptText(asked.content)) : undefined;
  let blocks: AnthropicBlock[];
  if (last && last.role === 'user' && hasToolResult(last.content)) {
    record.reply = 'tool-final';
    blocks = [{ type: 'text', text: scripted?.answer ?? TOOL_FINAL_TEXT }];
  } else if (scripted && last?.role === 'user' && tools.length > 0) {
    const prompt = claudePromptText(last.content);
    record.reply = scripted.command || scripted.tool ? 'tool' : 'text';
    blocks = scripted.tool
      ? [{ type: 'tool_use', id: `toolu_standin_${n}`, name: scripted.tool.name, input: scripted.tool.input }]
      : scripted.command
      ? [{ type: 'tool_use', id: `toolu_standin_${n}`, name: 'Bash', input: { command: scripted.command, description: 'Look at the code' } }]
      : [
          { type: 'thinking', thinking: scripted.reasoning ?? REASONING_PREFIX + prompt, signature: encryptedBlob(prompt) },
          { type: 'text', text: scripted.answer },
        ];
  } else {
    const prompt = last && last.role === 'user' ? claudePromptText(last.content) : '';
    const mcp = mcpToolCall(prompt, tools);
    if (mcp !== null) {
      record.reply = 'mcp';
      blocks = [{ type: 'tool_use', id: `toolu_standin_${n}`, name: mcp.name, input: mcp.args }];
    } else if (prompt.includes(TOOL_KEYWORD) && tools.some((tool) => tool.name === 'Bash')) {
      record.reply = 'tool';
      blocks = [{ type: 'tool_use', id: `toolu_standin_${n}`, name: 'Bash', input: { command: TOOL_COMMAND, description: 'Print a marker' } }];
    } else if (tools.length > 0) {
      // A conversation turn: signed thinking first (a fork must keep the signature intact), then the answer.
      record.reply = 'text';
      blocks = [
        { type: 'thinking', thinking: REASONING_PREFIX + prompt, signature: encryptedBlob(prompt) },
        { type: 'text', text: ANSWER_PREFIX + prompt },
      ];
    } else {
      // Side requests without tools (title generation and the like): plain text.
      record.reply = 'side';
      blocks = [{ type: 'text', text: ANSWER_PREFIX + prompt }];
    }
  }
  const stopReason = blocks.some((block) => block.type === 'tool_use') ? 'tool_use' : 'end_turn';
  const usage = { input_tokens: Math.ceil(record.raw.length / 4), output_tokens: 8, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
  const id = `msg_standin_${n}`;
  if (body.stream !== true) {
    sendJson(res, 200, { id, type: 'message', role: 'assistant', model, content: blocks, stop_reason: stopReason, stop_sequence: null, usage });
    return;
  }
  const send = startSse(res);
  send('message_start', {
    type: 'message_start',
    message: { id, type: 'message', role: 'assistant', model, content: [], stop_reason: null, stop_sequence: null, usage: { ...usage, output_tokens: 1 } },
  });
  blocks.forEach((block, index) => {
    const delta = (value: unknown): void => send('content_block_delta', { type: 'content_block_delta', index, delta: value });
    if (block.type === 'text') {
      send('content_block_start', { type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
      delta({ type: 'text_delta', text: block.text });
    } else if (block.type === 'thinking') {
      send('content_block_start', { type: 'content_block_start', index, content_block: { type: 'thinking', thinking: '', signature: '' } });
      delta({ type: 'thinking_delta', thinking: block.thinking });
      delta({ type: 'signature_delta', signature: block.signature });
    } else {
      send('content_block_start', { type: 'content_block_start', index, content_block: { type: 'tool_use', id: block.id, name: block.name, input: {} } });
      delta({ type: 'input_json_delta', partial_json: JSON.stringify(block.input) });
    }
    send('content_block_stop', { type: 'content_block_stop', index });
  });
  send('message_delta', { type: 'message_delta', delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: 8 } });
  send('message_stop', { type: 'message_stop' });
  res.end();
}

function hasToolResult(content: unknown): boolean {
  return Array.isArray(content) && content.some((part: { type?: string }) => part?.type === 'tool_result');
}

/**
 * A user message's own text: Claude Code adds `<system-reminder>` blocks to user messages, and 2.1.330 sends a
 * local command's caveat, command line and output (`/compact`) in the same message as the next prompt; they are
 * not the prompt.
 */
export function claudePromptText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .filter(
      (part: { type?: string; text?: unknown }) =>
        part?.type === 'text' && typeof part.text === 'string' && !/^\s*<(?:system-reminder|local-command-caveat|local-command-stdout|command-name)>/.test(part.text),
    )
    .map((part: { text: string }) => part.text)
    .join('\n');
}

// ---------------------------------------------------------------------------------------------------------------
// Shell tools offered as JSON-schema function declarations (Gemini, Chat Completions)

/** Names agents give their shell tool, most specific first (Gemini CLI and Qwen Code: `run_shell_command`; Factory Droid: `Execute`). */
export const SHELL_TOOL_NAMES = ['run_shell_command', 'bash', 'Bash', 'shell', 'exec_command', 'Execute'] as const;

interface JsonSchema {
  readonly type?: string | readonly string[];
  readonly properties?: Readonly<Record<string, JsonSchema>>;
  readonly required?: readonly string[];
  readonly enum?: readonly unknown[];
}

interface FunctionTool {
  readonly name: string;
  readonly parameters: JsonSchema | undefined;
}

/** The offered shell tool, or undefined when the request offers none. */
function pickShellTool(tools: readonly FunctionTool[]): FunctionTool | undefined {
  for (const name of SHELL_TOOL_NAMES) {
    const tool = tools.find((candidate) => candidate.name === name);
    if (tool) return tool;
  }
  return undefined;
}

/** Arguments running TOOL_COMMAND: `command` (a string, or an argv for an array schema), and a plain value for every other required property. */
function shellToolArgs(tool: FunctionTool, command = TOOL_COMMAND): Record<string, unknown> {
  const schema = tool.parameters ?? {};
  const properties = schema.properties ?? {};
  const commandKey = ['command', 'cmd'].find((key) => key in properties) ?? 'command';
  const commandType = typeOf(properties[commandKey]);
  const args: Record<string, unknown> = { [commandKey]: commandType === 'array' ? ['bash', '-lc', command] : command };
  for (const key of schema.required ?? []) {
    if (key in args) continue;
    const property = properties[key] ?? {};
    if (Array.isArray(property.enum) && property.enum.length > 0) args[key] = property.enum[0];
    else args[key] = plainValue(typeOf(property));
  }
  // Claude Code's and opencode's Bash tools show a description; harmless elsewhere when the schema offers it.
  if ('description' in properties && !('description' in args)) args.description = 'Print a marker';
  return args;
}

function typeOf(schema: JsonSchema | undefined): string {
  const type = schema?.type;
  const first = Array.isArray(type) ? type[0] : type;
  return typeof first === 'string' ? first.toLowerCase() : 'string';
}

function plainValue(type: string): unknown {
  switch (type) {
    case 'boolean':
      return false;
    case 'integer':
    case 'number':
      return 30000;
    case 'array':
      return [];
    case 'object':
      return {};
    default:
      return 'Print a marker';
  }
}

/**
 * A value matching a JSON schema, for requests that ask for JSON (Gemini CLI's side checks: who speaks next, loop
 * detection). Enums take their first value, except that a `next_speaker` is always the user: the agent's turn ends.
 */
function valueForSchema(schema: JsonSchema | undefined, key = ''): unknown {
  if (key === 'next_speaker') return 'user';
  if (Array.isArray(schema?.enum) && schema.enum.length > 0) return schema.enum[0];
  const type = typeOf(schema);
  if (type === 'object') {
    const out: Record<string, unknown> = {};
    for (const [name, property] of Object.entries(schema?.properties ?? {})) out[name] = valueForSchema(property, name);
    return out;
  }
  if (type === 'string') return key === '' ? 'stand-in' : `stand-in ${key}`;
  // Scores and counts: the smallest that any range Gemini CLI asks for (1-100, 0-1) accepts.
  if (type === 'integer' || type === 'number') return 1;
  return plainValue(type);
}

// ---------------------------------------------------------------------------------------------------------------
// Gemini generateContent / streamGenerateContent (Gemini CLI)

interface GeminiPart {
  readonly text?: string;
  readonly thought?: boolean;
  readonly thoughtSignature?: string;
  readonly functionCall?: { readonly id?: string; readonly name?: string; readonly args?: unknown };
  readonly functionResponse?: { readonly id?: string; readonly name?: string; readonly response?: unknown };
}

interface GeminiContent {
  readonly role?: string;
  readonly parts?: readonly GeminiPart[];
}

interface GeminiRequest {
  readonly contents?: readonly GeminiContent[];
  readonly tools?: readonly { readonly functionDeclarations?: readonly { name?: string; parameters?: JsonSchema; parametersJsonSchema?: JsonSchema }[] }[];
  readonly generationConfig?: { readonly responseMimeType?: string; readonly responseSchema?: JsonSchema; readonly responseJsonSchema?: JsonSchema };
}

/**
 * The typed text of a Gemini user content: its text parts that are not thoughts, nor the context Gemini CLI puts
 * in front of the first prompt (`<session_context>…`, `<hook_context>…`).
 */
export function geminiUserText(content: GeminiContent | undefined): string {
  return (content?.parts ?? [])
    .filter((part) => typeof part.text === 'string' && part.thought !== true && !/^\s*<(?:session_context|hook_context)>/.test(part.text))
    .map((part) => part.text as string)
    .join('');
}

function answerGemini(record: RecordedRequest, res: ServerResponse, model: string, stream: boolean, sse: boolean): void {
  const body = (record.body ?? {}) as GeminiRequest;
  const contents = Array.isArray(body.contents) ? body.contents : [];
  const last = contents.at(-1);
  const tools: FunctionTool[] = (body.tools ?? []).flatMap((tool) =>
    (tool.functionDeclarations ?? []).flatMap((declaration) =>
      typeof declaration.name === 'string' ? [{ name: declaration.name, parameters: declaration.parametersJsonSchema ?? declaration.parameters }] : [],
    ),
  );
  const n = record.seq;
  let parts: GeminiPart[];
  const config = body.generationConfig ?? {};
  const completeTask = tools.find((tool) => tool.name === 'complete_task');
  if (config.responseMimeType === 'application/json') {
    record.reply = 'json';
    parts = [{ text: JSON.stringify(valueForSchema(config.responseJsonSchema ?? config.responseSchema)) }];
  } else if (completeTask) {
    // A Gemini CLI sub-agent's loop ends only when it calls complete_task with its declared output.
    record.reply = 'subagent-done';
    parts = [{ functionCall: { name: completeTask.name, args: valueForSchema(completeTask.parameters) }, thoughtSignature: encryptedBlob(`${record.seq}#complete`) }];
  } else if (last?.role === 'user' && (last.parts ?? []).some((part: GeminiPart) => part.functionResponse !== undefined)) {
    record.reply = 'tool-final';
    parts = [{ text: TOOL_FINAL_TEXT }];
  } else {
    const prompt = last?.role === 'user' ? geminiUserText(last) : '';
    const shell = pickShellTool(tools);
    const subagent = tools.find((tool) => tool.name === GEMINI_SUBAGENT_TOOL);
    if (prompt.includes(SUBAGENT_KEYWORD) && subagent) {
      record.reply = 'subagent';
      parts = [{ functionCall: { name: subagent.name, args: { agent_name: 'generalist', prompt: `Sub-task for: ${prompt}` } }, thoughtSignature: encryptedBlob(`${prompt}#subagent`) }];
    } else if (prompt.includes(TOOL_KEYWORD) && shell) {
      record.reply = 'tool';
      // Gemini 3 models sign the first function call of a turn; the agent must send the signature back with it.
      parts = [{ functionCall: { name: shell.name, args: shellToolArgs(shell) }, thoughtSignature: encryptedBlob(`${prompt}#tool`) }];
    } else if (tools.length > 0) {
      record.reply = 'text';
      parts = [{ text: `**Plan** ${REASONING_PREFIX}${prompt}`, thought: true }, { text: ANSWER_PREFIX + prompt, thoughtSignature: encryptedBlob(prompt) }];
    } else {
      record.reply = 'side';
      parts = [{ text: ANSWER_PREFIX + prompt }];
    }
  }
  const promptTokens = Math.ceil(record.raw.length / 4);
  const usageMetadata = { promptTokenCount: promptTokens, candidatesTokenCount: 8, totalTokenCount: promptTokens + 8 };
  const chunk = (chunkParts: GeminiPart[], final: boolean): unknown => ({
    candidates: [{ content: { role: 'model', parts: chunkParts }, index: 0, ...(final ? { finishReason: 'STOP' } : {}) }],
    ...(final ? { usageMetadata } : {}),
    modelVersion: model,
    responseId: `standin_${n}`,
  });
  if (!stream) {
    sendJson(res, 200, chunk(parts, true));
    return;
  }
  // One chunk per part, the last carrying finishReason and usage (as the real API streams).
  const chunks = parts.map((part, index) => chunk([part], index === parts.length - 1));
  if (!sse) {
    sendJson(res, 200, chunks);
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
  for (const value of chunks) res.write(`data: ${JSON.stringify(value)}\r\n\r\n`);
  res.end();
}

// ---------------------------------------------------------------------------------------------------------------
// OpenAI Chat Completions (Qwen Code and other OpenAI-compatible clients)

interface ChatMessage {
  readonly role?: string;
  readonly content?: unknown;
  readonly tool_calls?: readonly { id?: string; function?: { name?: string; arguments?: string } }[];
  readonly tool_call_id?: string;
}

interface ChatRequest {
  readonly model?: string;
  readonly messages?: readonly ChatMessage[];
  readonly tools?: readonly { type?: string; function?: { name?: string; parameters?: JsonSchema } }[];
  readonly stream?: boolean;
  readonly stream_options?: { readonly include_usage?: boolean };
  readonly response_format?: { readonly type?: string; readonly json_schema?: { readonly schema?: JsonSchema } };
}

/**
 * The typed text of a Chat Completions user message's content (a string or text parts), without the
 * `<system-reminder>` parts Qwen Code puts in front of a prompt (skills, session context, the date).
 */
export function chatContentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((part: { type?: string; text?: unknown } | null) =>
      part?.type === 'text' && typeof part.text === 'string' && !/^\s*<system-reminder>/.test(part.text) ? part.text : '',
    )
    .join('');
}

function answerChatCompletions(record: RecordedRequest, res: ServerResponse, script: StandInScript | undefined): void {
  const body = (record.body ?? {}) as ChatRequest;
  const messages = Array.isArray(body.messages) ? body.messages : [];
  const last = messages.findLast((message) => message.role !== 'system');
  const tools: FunctionTool[] = (body.tools ?? []).flatMap((tool) =>
    typeof tool.function?.name === 'string' ? [{ name: tool.function.name, parameters: tool.function.parameters }] : [],
  );
  const model = body.model ?? 'stand-in';
  const n = record.seq;
  let content: string | null = null;
  let reasoning: string | null = null;
  let toolCall: { id: string; name: string; arguments: string } | null = null;
  if (body.response_format?.type === 'json_schema' || body.response_format?.type === 'json_object') {
    record.reply = 'json';
    content = JSON.stringify(valueForSchema(body.response_format.json_schema?.schema ?? { type: 'object' }));
  } else if (last?.role === 'tool') {
    record.reply = 'tool-final';
    // The prompt the tool call answered: the user's message before it.
    const asked = messages.findLast((message) => message.role === 'user');
    content = (tools.length > 0 && asked ? script?.turn(chatContentText(asked.content))?.answer : undefined) ?? TOOL_FINAL_TEXT;
  } else {
    const prompt = last?.role === 'user' ? chatContentText(last.content) : '';
    const shell = pickShellTool(tools);
    // Side requests (titles: no tools) are never scripted.
    const scripted = tools.length > 0 ? script?.turn(prompt) : undefined;
    if (scripted?.command && shell) {
      record.reply = 'tool';
      toolCall = { id: `call_standin_${n}`, name: shell.name, arguments: JSON.stringify(shellToolArgs(shell, scripted.command)) };
    } else if (scripted) {
      record.reply = 'text';
      reasoning = scripted.reasoning ?? REASONING_PREFIX + prompt;
      content = scripted.answer;
    } else if (prompt.includes(TOOL_KEYWORD) && shell) {
      record.reply = 'tool';
      toolCall = { id: `call_standin_${n}`, name: shell.name, arguments: JSON.stringify(shellToolArgs(shell)) };
    } else if (tools.length > 0) {
      record.reply = 'text';
      reasoning = REASONING_PREFIX + prompt;
      content = ANSWER_PREFIX + prompt;
    } else {
      record.reply = 'side';
      content = ANSWER_PREFIX + prompt;
    }
  }
  const finishReason = toolCall ? 'tool_calls' : 'stop';
  const promptTokens = Math.ceil(record.raw.length / 4);
  const usage = { prompt_tokens: promptTokens, completion_tokens: 8, total_tokens: promptTokens + 8 };
  const id = `chatcmpl-standin-${n}`;
  const created = 1_700_000_000 + n;
  const toolCalls = toolCall ? [{ id: toolCall.id, type: 'function', function: { name: toolCall.name, arguments: toolCall.arguments } }] : undefined;
  if (body.stream !== true) {
    sendJson(res, 200, {
      id,
      object: 'chat.completion',
      created,
      model,
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content, ...(reasoning !== null ? { reasoning_content: reasoning } : {}), ...(toolCalls ? { tool_calls: toolCalls } : {}) },
          finish_reason: finishReason,
        },
      ],
      usage,
    });
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
  const send = (choices: unknown[], extra: Record<string, unknown> = {}): void => {
    res.write(`data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices, ...extra })}\n\n`);
  };
  const delta = (value: Record<string, unknown>, finish: string | null = null): void => send([{ index: 0, delta: value, finish_reason: finish }]);
  delta({ role: 'assistant', content: '' });
  if (reasoning !== null) delta({ reasoning_content: reasoning });
  if (content !== null) delta({ content });
  if (toolCall) {
    delta({ tool_calls: [{ index: 0, id: toolCall.id, type: 'function', function: { name: toolCall.name, arguments: '' } }] });
    delta({ tool_calls: [{ index: 0, function: { arguments: toolCall.arguments } }] });
  }
  delta({}, finishReason);
  if (body.stream_options?.include_usage === true) send([], { usage });
  res.write('data: [DONE]\n\n');
  res.end();
}
