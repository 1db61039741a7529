import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  ANSWER_PREFIX,
  encryptedBlob,
  REASONING_PREFIX,
  startModelStandIn,
  TOOL_COMMAND,
  TOOL_FINAL_TEXT,
  TOOL_KEYWORD,
  type ModelStandIn,
} from '../interop/model-stand-in.js';

// The loopback stand-in the interop round trips drive the real agents against: its Gemini and Chat Completions
// routes, checked on their own so that a broken answer shows here and not as a hung agent.

let standIn: ModelStandIn;
beforeAll(async () => {
  standIn = await startModelStandIn();
});
afterAll(async () => {
  await standIn.close();
});

async function post(path: string, body: unknown): Promise<Response> {
  return fetch(`${standIn.origin}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
}

/** The `data:` payloads of an SSE body, `[DONE]` left as text. */
function sseData(text: string): unknown[] {
  return text
    .split(/\r?\n\r?\n/)
    .map((event) => event.split(/\r?\n/).find((line) => line.startsWith('data: '))?.slice('data: '.length))
    .filter((data): data is string => data !== undefined)
    .map((data) => (data === '[DONE]' ? data : (JSON.parse(data) as unknown)));
}

const shellDeclaration = {
  name: 'run_shell_command',
  parametersJsonSchema: {
    type: 'object',
    properties: { command: { type: 'string' }, description: { type: 'string' }, is_background: { type: 'boolean' } },
    required: ['command', 'is_background'],
  },
};

describe('Gemini generateContent', () => {
  test('streamGenerateContent?alt=sse answers a prompt with a thought and the answer, one chunk per part, the last finishing', async () => {
    const prompt = 'gq-1 Hello';
    const response = await post('/v1beta/models/gemini-x:streamGenerateContent?alt=sse', {
      contents: [{ role: 'user', parts: [{ text: '<session_context>\nsetup\n</session_context>' }, { text: prompt }] }],
      tools: [{ functionDeclarations: [shellDeclaration] }],
    });
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    const chunks = sseData(await response.text()) as { candidates: { content: { parts: unknown[] }; finishReason?: string }[]; usageMetadata?: unknown }[];
    expect(chunks.map((chunk) => chunk.candidates[0]!.content.parts)).toEqual([
      [{ text: `**Plan** ${REASONING_PREFIX}${prompt}`, thought: true }],
      [{ text: ANSWER_PREFIX + prompt, thoughtSignature: encryptedBlob(prompt) }],
    ]);
    expect(chunks.map((chunk) => chunk.candidates[0]!.finishReason)).toEqual([undefined, 'STOP']);
    expect(chunks.at(-1)!.usageMetadata).toMatchObject({ candidatesTokenCount: 8 });
    expect(standIn.requests.at(-1)).toMatchObject({ path: '/v1beta/models/gemini-x:streamGenerateContent', reply: 'text' });
  });

  test('a tool prompt gets a signed call of the offered shell tool with every required argument; its result gets the final text', async () => {
    const prompt = `gq-2 ${TOOL_KEYWORD}`;
    const call = await post('/v1beta/models/gemini-x:streamGenerateContent?alt=sse', {
      contents: [{ role: 'user', parts: [{ text: prompt }] }],
      tools: [{ functionDeclarations: [{ name: 'read_file' }, shellDeclaration] }],
    });
    const [chunk] = sseData(await call.text()) as { candidates: { content: { parts: unknown[] } }[] }[];
    expect(chunk!.candidates[0]!.content.parts).toEqual([
      {
        functionCall: { name: 'run_shell_command', args: { command: TOOL_COMMAND, is_background: false, description: 'Print a marker' } },
        thoughtSignature: encryptedBlob(`${prompt}#tool`),
      },
    ]);
    const final = await post('/v1beta/models/gemini-x:generateContent', {
      contents: [{ role: 'user', parts: [{ functionResponse: { name: 'run_shell_command', response: { output: 'x' } } }] }],
    });
    expect(await final.json()).toMatchObject({ candidates: [{ content: { role: 'model', parts: [{ text: TOOL_FINAL_TEXT }] }, finishReason: 'STOP' }] });
  });

  test('a request for JSON gets a value of its schema (a next speaker is the user, numbers stay small)', async () => {
    const response = await post('/v1beta/models/gemini-lite:generateContent', {
      contents: [{ role: 'user', parts: [{ text: 'who speaks?' }] }],
      generationConfig: {
        responseMimeType: 'application/json',
        responseJsonSchema: {
          type: 'OBJECT',
          properties: { next_speaker: { type: 'STRING', enum: ['model', 'user'] }, complexity_score: { type: 'INTEGER' }, reasoning: { type: 'STRING' } },
        },
      },
    });
    const body = (await response.json()) as { candidates: { content: { parts: { text: string }[] } }[] };
    expect(JSON.parse(body.candidates[0]!.content.parts[0]!.text)).toEqual({ next_speaker: 'user', complexity_score: 1, reasoning: 'stand-in reasoning' });
  });

  test('countTokens answers a count', async () => {
    const response = await post('/v1beta/models/gemini-x:countTokens', { contents: [] });
    expect(await response.json()).toEqual({ totalTokens: expect.any(Number) as unknown });
  });
});

describe('OpenAI Chat Completions', () => {
  const tools = [{ type: 'function', function: { name: 'run_shell_command', parameters: shellDeclaration.parametersJsonSchema } }];

  test('streaming: reasoning_content, the answer, a stop, the usage chunk, [DONE]; system reminders are not the prompt', async () => {
    const prompt = 'gq-3 Hi';
    const response = await post('/v1/chat/completions', {
      model: 'm',
      stream: true,
      stream_options: { include_usage: true },
      tools,
      messages: [
        { role: 'system', content: 'sys' },
        { role: 'user', content: [{ type: 'text', text: '<system-reminder>\ndate\n</system-reminder>' }, { type: 'text', text: prompt }] },
      ],
    });
    const events = sseData(await response.text());
    expect(events.at(-1)).toBe('[DONE]');
    const chunks = events.slice(0, -1) as { choices: { delta: Record<string, unknown>; finish_reason: string | null }[]; usage?: unknown }[];
    const deltas = chunks.flatMap((chunk) => chunk.choices.map((choice) => choice.delta));
    expect(deltas).toEqual([{ role: 'assistant', content: '' }, { reasoning_content: REASONING_PREFIX + prompt }, { content: ANSWER_PREFIX + prompt }, {}]);
    expect(chunks.flatMap((chunk) => chunk.choices.map((choice) => choice.finish_reason))).toEqual([null, null, null, 'stop']);
    expect(chunks.at(-1)).toMatchObject({ choices: [], usage: { completion_tokens: 8 } });
  });

  test('streaming: a tool prompt gets one tool call, its arguments streamed; non-streaming: the tool result gets the final text', async () => {
    const response = await post('/v1/chat/completions', { model: 'm', stream: true, tools, messages: [{ role: 'user', content: `gq-4 ${TOOL_KEYWORD}` }] });
    const chunks = sseData(await response.text()).slice(0, -1) as { choices: { delta: { tool_calls?: { function?: { name?: string; arguments?: string } }[] }; finish_reason: string | null }[] }[];
    const calls = chunks.flatMap((chunk) => chunk.choices.flatMap((choice) => choice.delta.tool_calls ?? []));
    expect(calls[0]!.function!.name).toBe('run_shell_command');
    expect(JSON.parse(calls.map((call) => call.function?.arguments ?? '').join(''))).toEqual({ command: TOOL_COMMAND, is_background: false, description: 'Print a marker' });
    expect(chunks.at(-1)!.choices[0]!.finish_reason).toBe('tool_calls');

    const final = await post('/v1/chat/completions', {
      model: 'm',
      tools,
      messages: [
        { role: 'user', content: `gq-4 ${TOOL_KEYWORD}` },
        { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'run_shell_command', arguments: '{}' } }] },
        { role: 'tool', tool_call_id: 'c1', content: 'interop-tool-ran' },
      ],
    });
    expect(await final.json()).toMatchObject({ object: 'chat.completion', choices: [{ message: { role: 'assistant', content: TOOL_FINAL_TEXT }, finish_reason: 'stop' }] });
  });

  test('without tools a request is a side request: a plain answer, no reasoning', async () => {
    const response = await post('/v1/chat/completions', { model: 'm', messages: [{ role: 'user', content: 'Title this' }] });
    const body = (await response.json()) as { choices: { message: Record<string, unknown> }[] };
    expect(body.choices[0]!.message).toEqual({ role: 'assistant', content: `${ANSWER_PREFIX}Title this` });
    expect(standIn.requests.at(-1)!.reply).toBe('side');
  });
});

describe('OpenAI Responses as GitHub Copilot CLI speaks it (COPILOT_PROVIDER_WIRE_API=responses)', () => {
  const copilotTools = ['bash', 'read_bash', 'stop_bash', 'apply_patch', 'view'].map((name) => ({ type: 'function', name }));
  const userMessage = (text: string): unknown => ({ role: 'user', type: 'message', content: [{ type: 'input_text', text }] });

  /** The items of the `response.completed` event. */
  async function outputOf(response: Response): Promise<Record<string, unknown>[]> {
    const events = sseData(await response.text()) as { type: string; response?: { output: Record<string, unknown>[] } }[];
    return events.find((event) => event.type === 'response.completed')!.response!.output;
  }

  test('answers the prompt without the <current_datetime> Copilot puts before it', async () => {
    const prompt = 'co-1 Hello';
    const output = await outputOf(await post('/v1/responses', { input: [userMessage(`<current_datetime>2026-11-25T01:54:07.620+00:00</current_datetime>\n\n${prompt}`)], tools: copilotTools }));
    expect(output).toEqual([
      { type: 'reasoning', id: expect.any(String), summary: [{ type: 'summary_text', text: REASONING_PREFIX + prompt }], encrypted_content: encryptedBlob(prompt) },
      expect.objectContaining({ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: ANSWER_PREFIX + prompt, annotations: [] }] }),
    ]);
  });

  test("calls Copilot's own bash tool (sync) for the tool keyword, then answers the tool's result", async () => {
    const input = [userMessage(`<current_datetime>x</current_datetime>\n\nco-2 ${TOOL_KEYWORD}`)];
    const [call] = await outputOf(await post('/v1/responses', { input, tools: copilotTools }));
    expect(call).toMatchObject({ type: 'function_call', name: 'bash' });
    expect(JSON.parse(call!.arguments as string)).toEqual({ command: TOOL_COMMAND, description: 'Print a marker', mode: 'sync', initial_wait: 30 });
    const final = await outputOf(await post('/v1/responses', { input: [...input, call, { type: 'function_call_output', call_id: call!.call_id, output: 'interop-tool-ran' }], tools: copilotTools }));
    expect(final).toEqual([expect.objectContaining({ type: 'message', content: [{ type: 'output_text', text: TOOL_FINAL_TEXT, annotations: [] }] })]);
  });
});
