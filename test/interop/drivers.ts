import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { codexUserPromptText, isInjectedContext } from '../../src/core/formats/codex/index.js';
import type { InteropAgent } from './agents.js';
import { chatContentText, claudePromptText, encryptedBlob, geminiUserText, REASONING_PREFIX, withoutCopilotDatetime, type RecordedRequest } from './model-stand-in.js';

/** One item of the conversation an agent sent the model, with the agent's injected context left out. */
export type ConversationItem =
  | { readonly kind: 'user'; readonly text: string }
  | { readonly kind: 'assistant'; readonly text: string }
  /** Reasoning / thinking with its opaque blob (Codex `encrypted_content`, Claude `signature`). */
  | { readonly kind: 'reasoning'; readonly blob: string }
  | { readonly kind: 'tool_call'; readonly name: string }
  | { readonly kind: 'tool_result'; readonly text: string };

/** A temp world for one agent: its own HOME, agent homes, projects and config; nothing of the machine's. */
export interface Sandbox {
  readonly root: string;
  readonly home: string;
  readonly codexHome: string;
  readonly claudeDir: string;
  readonly copilotHome: string;
  readonly projects: string;
  readonly sessionsConfig: string;
  readonly env: NodeJS.ProcessEnv;
}

/** What differs between the agents: how to start and resume them, where their files are, how their requests look. */
export interface AgentDriver {
  readonly agent: InteropAgent;
  /** Agent-specific environment (merged into the sandbox env) and config files. */
  prepare(sandbox: Sandbox, standInOrigin: string): Promise<NodeJS.ProcessEnv>;
  /** argv (after the binary) starting a new session with one prompt; stdout must reveal the session id. */
  newSessionArgs(prompt: string): string[];
  /** argv (after the binary) for one non-interactive turn appended to an existing session. */
  resumeArgs(id: string, prompt: string): string[];
  /** argv (after the binary) for the agent's own fork of a whole session plus one new turn (a new session id), when it has one without a terminal. */
  agentForkArgs?(id: string, prompt: string): string[];
  /** argv (after the binary) running one of the agent's own slash commands (`/rename X`, `/compact`) on a session, when it can. */
  slashCommandArgs?(id: string, command: string): string[];
  /** The session id the agent reports on stdout for the args above. */
  reportedSessionId(stdout: string): string | null;
  /** The non-interactive resume template for SESSIONS_CONFIG: the product's default with an absolute binary. */
  execTemplate(bin: string): string[];
  /** Extra agent arguments passed through `sessions resume … -- ARGS` (they land in `{args}`). */
  readonly passThroughArgs: readonly string[];
  /** Every session file the agent keeps under the sandbox (to count them). */
  sessionFiles(sandbox: Sandbox): Promise<string[]>;
  /** The requests that carry the conversation (not title generation, token counting, probes). */
  turnRequests(requests: readonly RecordedRequest[]): RecordedRequest[];
  /** The conversation in one request body, injected context excluded. */
  conversation(body: unknown): ConversationItem[];
  /** Name of the tool the stand-in asks for. */
  readonly toolName: string;
  /**
   * What the agent sends back of a plain answer's reasoning when it resumes a session: the opaque blob (Codex
   * `encrypted_content`, Claude `signature`), the reasoning text (Qwen Code's `reasoning_content`), or null when it
   * sends none (Gemini CLI keeps thoughts in its file but never sends them back).
   */
  replayedReasoning(prompt: string): ConversationItem | null;
  /** The reasoning block `sessions show` gives for a plain answer's reasoning. */
  shownReasoning(prompt: string): { readonly type: 'reasoning'; readonly summary: string; readonly encrypted: boolean };
  /** Whether a session file is the one the agent named for `id` (default: its name holds the id). */
  fileIsNamedFor?(path: string, id: string): boolean;
}

async function walkJsonl(dir: string): Promise<string[]> {
  const out: string[] = [];
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return out;
    throw error;
  }
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await walkJsonl(path)));
    else if (entry.isFile() && entry.name.endsWith('.jsonl')) out.push(path);
  }
  return out.sort();
}

function partsText(content: unknown, partType: string): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .filter((part: { type?: string; text?: unknown }) => part?.type === partType && typeof part.text === 'string')
    .map((part: { text: string }) => part.text)
    .join('\n');
}

// ---------------------------------------------------------------------------------------------------------------

const encryptedReasoning = (prompt: string): ConversationItem => ({ kind: 'reasoning', blob: encryptedBlob(prompt) });
const encryptedSummary = (prompt: string) => ({ type: 'reasoning' as const, summary: REASONING_PREFIX + prompt, encrypted: true });

export const codexDriver: AgentDriver = {
  agent: 'codex',
  toolName: 'exec_command',
  replayedReasoning: encryptedReasoning,
  shownReasoning: encryptedSummary,
  async prepare(sandbox, origin) {
    // Loopback only: no update check, no analytics, no plugin catalog sync (they would reach out to the internet).
    const config = [
      'model = "stand-in"',
      'model_provider = "standin"',
      'check_for_update_on_startup = false',
      '',
      '[analytics]',
      'enabled = false',
      '',
      '[features]',
      'plugins = false',
      '',
      '[model_providers.standin]',
      'name = "loopback model stand-in"',
      `base_url = "${origin}/v1"`,
      'wire_api = "responses"',
      'env_key = "SESSIONS_INTEROP_KEY"',
      'request_max_retries = 1',
      'stream_max_retries = 1',
      '',
    ].join('\n');
    await writeFile(join(sandbox.codexHome, 'config.toml'), config);
    return { SESSIONS_INTEROP_KEY: 'stand-in-key' };
  },
  newSessionArgs: (prompt) => ['exec', '--json', '--skip-git-repo-check', prompt],
  resumeArgs: (id, prompt) => ['exec', '--json', '--skip-git-repo-check', 'resume', id, prompt],
  // 0.16x writes a "paginated" fork: only the new turn, plus session_meta.history_base pointing into the parent.
  agentForkArgs: (id, prompt) => ['exec', '--json', '--skip-git-repo-check', 'fork', id, prompt],
  reportedSessionId(stdout) {
    for (const line of stdout.split('\n')) {
      try {
        const event = JSON.parse(line) as { type?: string; thread_id?: string };
        if (event.type === 'thread.started' && typeof event.thread_id === 'string') return event.thread_id;
      } catch {
        // not an event line
      }
    }
    return null;
  },
  execTemplate: (bin) => [bin, 'exec', '{args}', 'resume', '{id}', '{prompt}'],
  passThroughArgs: ['--skip-git-repo-check'],
  async sessionFiles(sandbox) {
    return [...(await walkJsonl(join(sandbox.codexHome, 'sessions'))), ...(await walkJsonl(join(sandbox.codexHome, 'archived_sessions')))];
  },
  turnRequests: (requests) => requests.filter((request) => request.method === 'POST' && request.path.endsWith('/responses')),
  conversation(body) {
    const input = (body as { input?: unknown[] } | null)?.input ?? [];
    const items: ConversationItem[] = [];
    for (const raw of input) {
      const item = raw as { type?: string; role?: string; content?: unknown; name?: string; output?: unknown; encrypted_content?: unknown };
      if (item.type === 'message' && item.role === 'user') {
        const text = partsText(item.content, 'input_text');
        // The product's own rule for what is a prompt and what is injected context (environment, AGENTS.md, …).
        if (!isInjectedContext(text)) items.push({ kind: 'user', text: codexUserPromptText(text) });
      } else if (item.type === 'message' && item.role === 'assistant') {
        items.push({ kind: 'assistant', text: partsText(item.content, 'output_text') });
      } else if (item.type === 'reasoning') {
        items.push({ kind: 'reasoning', blob: String(item.encrypted_content) });
      } else if (item.type === 'function_call' || item.type === 'custom_tool_call') {
        items.push({ kind: 'tool_call', name: String(item.name) });
      } else if (item.type === 'function_call_output' || item.type === 'custom_tool_call_output') {
        items.push({ kind: 'tool_result', text: typeof item.output === 'string' ? item.output : JSON.stringify(item.output) });
      }
      // developer messages (the agent's instructions) are not part of the conversation
    }
    return items;
  },
};

// ---------------------------------------------------------------------------------------------------------------

export const claudeDriver: AgentDriver = {
  agent: 'claude',
  toolName: 'Bash',
  replayedReasoning: encryptedReasoning,
  shownReasoning: encryptedSummary,
  async prepare(_sandbox, origin) {
    return {
      ANTHROPIC_BASE_URL: origin,
      ANTHROPIC_API_KEY: 'stand-in-key',
      // Loopback only: no telemetry, error reports, update checks or other calls home.
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      DISABLE_TELEMETRY: '1',
      DISABLE_ERROR_REPORTING: '1',
      DISABLE_AUTOUPDATER: '1',
      // Root refuses --dangerously-skip-permissions; the tool turn is allowed with --allowedTools=Bash instead.
    };
  },
  newSessionArgs: (prompt) => ['-p', '--output-format', 'json', '--allowedTools=Bash', prompt],
  resumeArgs: (id, prompt) => ['-p', '--output-format', 'json', '--allowedTools=Bash', '--resume', id, prompt],
  // A new file with a new sessionId holding a copy of the parent's messages (same uuids) and the new turn.
  agentForkArgs: (id, prompt) => ['-p', '--output-format', 'json', '--allowedTools=Bash', '--resume', id, '--fork-session', prompt],
  slashCommandArgs: (id, command) => ['-p', '--output-format', 'json', '--resume', id, command],
  reportedSessionId(stdout) {
    try {
      const result = JSON.parse(stdout.trim()) as { session_id?: unknown };
      return typeof result.session_id === 'string' ? result.session_id : null;
    } catch {
      return null;
    }
  },
  execTemplate: (bin) => [bin, '-p', '{args}', '--resume', '{id}', '{prompt}'],
  passThroughArgs: ['--allowedTools=Bash'],
  sessionFiles: (sandbox) => walkJsonl(join(sandbox.claudeDir, 'projects')),
  // The conversation goes out with the tool list; title generation and the like go without tools.
  turnRequests: (requests) =>
    requests.filter(
      (request) =>
        request.method === 'POST' &&
        request.path.endsWith('/messages') &&
        Array.isArray((request.body as { tools?: unknown[] } | null)?.tools) &&
        ((request.body as { tools: unknown[] }).tools.length > 0),
    ),
  conversation(body) {
    const messages = (body as { messages?: unknown[] } | null)?.messages ?? [];
    const items: ConversationItem[] = [];
    for (const raw of messages) {
      const message = raw as { role?: string; content?: unknown };
      const content = typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : Array.isArray(message.content) ? message.content : [];
      if (message.role === 'user') {
        for (const part of content as { type?: string; content?: unknown }[]) {
          if (part.type === 'tool_result') items.push({ kind: 'tool_result', text: typeof part.content === 'string' ? part.content : JSON.stringify(part.content) });
        }
        // Claude Code adds <system-reminder> blocks to user messages at request time; they are not the prompt.
        const text = claudePromptText(content);
        if (text.trim() !== '') items.push({ kind: 'user', text });
      } else if (message.role === 'assistant') {
        for (const part of content as { type?: string; text?: unknown; name?: unknown; signature?: unknown }[]) {
          if (part.type === 'thinking') items.push({ kind: 'reasoning', blob: String(part.signature) });
          else if (part.type === 'text' && typeof part.text === 'string') items.push({ kind: 'assistant', text: part.text });
          else if (part.type === 'tool_use') items.push({ kind: 'tool_call', name: String(part.name) });
        }
      }
      // role "system" entries (agent listings added mid-conversation) are the agent's, not the conversation's
    }
    return items;
  },
};

// ---------------------------------------------------------------------------------------------------------------

/**
 * GitHub Copilot CLI with its bring-your-own-model provider pointed at the stand-in over OpenAI Responses, offline:
 * no GitHub sign-in, telemetry, update check or MCP server reaches out.
 */
export function copilotEnvironment(origin: string): NodeJS.ProcessEnv {
  return {
    COPILOT_OFFLINE: 'true',
    COPILOT_PROVIDER_BASE_URL: `${origin}/v1`,
    COPILOT_PROVIDER_TYPE: 'openai',
    COPILOT_PROVIDER_WIRE_API: 'responses',
    // Copilot redacts the key's value from everything it prints: a long one that appears nowhere else.
    COPILOT_PROVIDER_API_KEY: 'stand-in-provider-key',
    COPILOT_MODEL: 'gpt-5.4',
    COPILOT_AUTO_UPDATE: 'false',
  };
}

/** The session id in `--output-format json` output: the closing `{"type":"result","sessionId":…}` line. */
export function copilotSessionId(stdout: string): string | null {
  for (const line of stdout.split('\n').reverse()) {
    try {
      const event = JSON.parse(line) as { type?: string; sessionId?: unknown };
      if (event.type === 'result' && typeof event.sessionId === 'string') return event.sessionId;
    } catch {
      // not an event line
    }
  }
  return null;
}

async function copilotEventFiles(copilotHome: string): Promise<string[]> {
  const state = join(copilotHome, 'session-state');
  let entries;
  try {
    entries = await readdir(state, { withFileTypes: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const out: string[] = [];
  for (const entry of entries) {
    if (!entry.isDirectory()) continue;
    const events = join(state, entry.name, 'events.jsonl');
    if (existsSync(events)) out.push(events);
  }
  return out.sort();
}

async function walkFiles(dir: string, keep: (name: string) => boolean, depth: number): Promise<string[]> {
  const out: string[] = [];
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return out;
    throw error;
  }
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (entry.isDirectory() && depth > 0) out.push(...(await walkFiles(path, keep, depth - 1)));
    else if (entry.isFile() && keep(entry.name)) out.push(path);
  }
  return out.sort();
}

export const copilotDriver: AgentDriver = {
  agent: 'copilot',
  toolName: 'bash',
  // Copilot 1.0.x records reasoning but sends none of earlier turns back to the model.
  replayedReasoning: () => null,
  shownReasoning: encryptedSummary,
  async prepare(_sandbox, origin) {
    return copilotEnvironment(origin);
  },
  newSessionArgs: (prompt) => ['--allow-all-tools', '--output-format', 'json', '-p', prompt],
  resumeArgs: (id, prompt) => ['--allow-all-tools', '--output-format', 'json', `--resume=${id}`, '-p', prompt],
  // Copilot forks only inside its terminal UI (`/fork`), which also writes to the parent: no agentForkArgs.
  reportedSessionId: copilotSessionId,
  execTemplate: (bin) => [bin, '{args}', '--resume={id}', '-p', '{prompt}'],
  passThroughArgs: ['--allow-all-tools'],
  sessionFiles: (sandbox) => copilotEventFiles(sandbox.copilotHome),
  turnRequests: (requests) => requests.filter((request) => request.method === 'POST' && request.path.endsWith('/responses')),
  conversation(body) {
    const input = (body as { input?: unknown[] } | null)?.input ?? [];
    const items: ConversationItem[] = [];
    for (const raw of input) {
      const item = raw as { type?: string; role?: string; content?: unknown; name?: string; output?: unknown; encrypted_content?: unknown };
      if ((item.type === 'message' || item.type === undefined) && item.role === 'user') {
        items.push({ kind: 'user', text: withoutCopilotDatetime(partsText(item.content, 'input_text')) });
      } else if (item.type === 'message' && item.role === 'assistant') {
        items.push({ kind: 'assistant', text: partsText(item.content, 'output_text') });
      } else if (item.type === 'reasoning') {
        items.push({ kind: 'reasoning', blob: String(item.encrypted_content) });
      } else if (item.type === 'function_call') {
        items.push({ kind: 'tool_call', name: String(item.name) });
      } else if (item.type === 'function_call_output') {
        items.push({ kind: 'tool_result', text: typeof item.output === 'string' ? item.output : JSON.stringify(item.output) });
      }
    }
    return items;
  },
};

/** The Gemini CLI home of a sandbox (GEMINI_CLI_HOME stands for the user's home: sessions are under its `.gemini`). */
export const geminiDir = (sandbox: Pick<Sandbox, 'home'>): string => join(sandbox.home, '.gemini');

export const geminiDriver: AgentDriver = {
  agent: 'gemini',
  toolName: 'run_shell_command',
  // Gemini CLI records thoughts (subject and description) but sends none back on resume, signatures neither.
  replayedReasoning: () => null,
  shownReasoning: (prompt) => ({ type: 'reasoning', summary: `**Plan** ${REASONING_PREFIX}${prompt}`, encrypted: false }),
  async prepare(sandbox, origin) {
    // With GOOGLE_GEMINI_BASE_URL alone Gemini CLI picks its "gateway" auth, which it then refuses in -p mode:
    // the API-key auth, chosen in the settings, sends the key to the base URL. No update checks, no statistics.
    // Session clean-up off: 0.61's `--resume` in a later minute than the session's file name leaves a start-up-only
    // file under the same short id, and the next run of any other session in the project then deletes both files,
    // the resumed session included (docs/compatibility.md). Left on, Gemini CLI itself deletes the original this
    // suite checks is untouched, the moment the fork is resumed.
    const settings = {
      security: { auth: { selectedType: 'gemini-api-key' } },
      general: { disableAutoUpdate: true, disableUpdateNag: true, sessionRetention: { enabled: false } },
      privacy: { usageStatisticsEnabled: false },
      telemetry: { enabled: false },
    };
    await mkdir(geminiDir(sandbox), { recursive: true });
    await writeFile(join(geminiDir(sandbox), 'settings.json'), `${JSON.stringify(settings, null, 2)}\n`);
    return {
      GEMINI_CLI_HOME: sandbox.home,
      GOOGLE_GEMINI_BASE_URL: origin,
      GEMINI_API_KEY: 'stand-in-key',
      // -p refuses to run in a folder it was not told to trust.
      GEMINI_CLI_TRUST_WORKSPACE: 'true',
    };
  },
  // -y: run the shell tool without asking (-p cannot ask; without it the shell tool is not even offered).
  newSessionArgs: (prompt) => ['-y', '-o', 'json', '-p', prompt],
  resumeArgs: (id, prompt) => ['-y', '-o', 'json', '--resume', id, '-p', prompt],
  reportedSessionId(stdout) {
    try {
      const result = JSON.parse(stdout.trim()) as { session_id?: unknown };
      return typeof result.session_id === 'string' ? result.session_id : null;
    } catch {
      return null;
    }
  },
  execTemplate: (bin) => [bin, '{args}', '--resume', '{id}', '-p', '{prompt}'],
  passThroughArgs: ['-y'],
  // Names carry the id's first 8 characters: session-<minute>-<id8>.jsonl.
  fileIsNamedFor: (path, id) => basename(path).endsWith(`-${id.slice(0, 8)}.jsonl`),
  /**
   * The session files that hold a conversation (a model answer). A `--resume` in another minute than the session's
   * file name also leaves `session-<that minute>-<id8>.jsonl` holding only its start-up records (metadata and
   * the session context): Gemini CLI's own list skips it, `sessions` lists no row for it; it is not a session.
   */
  async sessionFiles(sandbox) {
    const files = await walkFiles(join(geminiDir(sandbox), 'tmp'), (name) => /^session-.+\.jsonl?$/.test(name), 2);
    const out: string[] = [];
    for (const path of files) if ((await readFile(path, 'utf8')).includes('"type":"gemini"')) out.push(path);
    return out;
  },
  // The conversation streams with the tool list; the model router's side requests (generateContent, JSON) do not.
  turnRequests: (requests) =>
    requests.filter(
      (request) =>
        request.method === 'POST' &&
        request.path.endsWith(':streamGenerateContent') &&
        ((request.body as { tools?: unknown[] } | null)?.tools ?? []).length > 0,
    ),
  conversation(body) {
    const contents = (body as { contents?: unknown[] } | null)?.contents ?? [];
    const items: ConversationItem[] = [];
    for (const raw of contents) {
      const content = raw as { role?: string; parts?: { text?: string; thought?: boolean; thoughtSignature?: string; functionCall?: { name?: string }; functionResponse?: { id?: string; response?: { output?: unknown } } }[] };
      const parts = content.parts ?? [];
      if (content.role === 'user') {
        // After a resume, 0.61 sends a tool's result twice in one content (its file holds it as `<id>_response` and as
        // the user message the tool run wrote); it does so for its own sessions too: one result.
        const seen = new Set<string>();
        for (const part of parts) {
          if (part.functionResponse) {
            const key = JSON.stringify(part.functionResponse);
            if (seen.has(key)) continue;
            seen.add(key);
            const output = part.functionResponse.response?.output;
            items.push({ kind: 'tool_result', text: typeof output === 'string' ? output : JSON.stringify(part.functionResponse.response) });
          }
        }
        // Gemini CLI's <session_context> part before the first prompt is not the prompt.
        const text = geminiUserText(content);
        if (text.trim() !== '') items.push({ kind: 'user', text });
      } else if (content.role === 'model') {
        for (const part of parts) {
          if (part.thought === true) items.push({ kind: 'reasoning', blob: part.thoughtSignature ?? String(part.text) });
          else if (typeof part.text === 'string' && part.text !== '') items.push({ kind: 'assistant', text: part.text });
          else if (part.functionCall) items.push({ kind: 'tool_call', name: String(part.functionCall.name) });
        }
      }
    }
    return items;
  },
};

/** Qwen Code's runtime dir in a sandbox (`~/.qwen`). */
export const qwenDir = (sandbox: Pick<Sandbox, 'home'>): string => join(sandbox.home, '.qwen');

export const qwenDriver: AgentDriver = {
  agent: 'qwen',
  toolName: 'run_shell_command',
  // Qwen Code keeps reasoning as thought parts and sends it back as `reasoning_content`.
  replayedReasoning: (prompt) => ({ kind: 'reasoning', blob: REASONING_PREFIX + prompt }),
  shownReasoning: (prompt) => ({ type: 'reasoning', summary: REASONING_PREFIX + prompt, encrypted: false }),
  async prepare(sandbox, origin) {
    // The OpenAI-compatible auth, chosen in the settings (not a flag: `sessions resume` runs the plain template).
    const settings = { security: { auth: { selectedType: 'openai' } }, privacy: { usageStatisticsEnabled: false }, telemetry: { enabled: false } };
    await mkdir(qwenDir(sandbox), { recursive: true });
    await writeFile(join(qwenDir(sandbox), 'settings.json'), `${JSON.stringify(settings, null, 2)}\n`);
    return {
      QWEN_HOME: qwenDir(sandbox),
      OPENAI_BASE_URL: `${origin}/v1`,
      OPENAI_API_KEY: 'stand-in-key',
      OPENAI_MODEL: 'stand-in',
      QWEN_CODE_SUPPRESS_YOLO_WARNING: '1',
    };
  },
  newSessionArgs: (prompt) => ['--yolo', '-o', 'json', '-p', prompt],
  resumeArgs: (id, prompt) => ['--yolo', '-o', 'json', '--resume', id, '-p', prompt],
  agentForkArgs: (id, prompt) => ['--yolo', '-o', 'json', '--resume', id, '--fork-session', '-p', prompt],
  reportedSessionId(stdout) {
    try {
      const events = JSON.parse(stdout.trim()) as { type?: string; session_id?: unknown }[];
      const init = Array.isArray(events) ? events.find((event) => typeof event?.session_id === 'string') : undefined;
      return typeof init?.session_id === 'string' ? init.session_id : null;
    } catch {
      return null;
    }
  },
  execTemplate: (bin) => [bin, '{args}', '--resume', '{id}', '-p', '{prompt}'],
  passThroughArgs: ['--yolo'],
  sessionFiles: (sandbox) => walkFiles(join(qwenDir(sandbox), 'projects'), (name) => /^[0-9a-fA-F-]{32,36}\.jsonl$/.test(name), 3),
  // The main agent's requests (its system prompt says so); the memory-extraction sub-agent's are not the conversation.
  turnRequests: (requests) =>
    requests.filter((request) => {
      if (request.method !== 'POST' || !request.path.endsWith('/chat/completions')) return false;
      const messages = (request.body as { messages?: { role?: string; content?: unknown }[] } | null)?.messages ?? [];
      const system = messages[0]?.role === 'system' ? chatContentText(messages[0].content) : '';
      return system.startsWith('You are Qwen Code');
    }),
  conversation(body) {
    const messages = (body as { messages?: unknown[] } | null)?.messages ?? [];
    const items: ConversationItem[] = [];
    for (const raw of messages) {
      const message = raw as { role?: string; content?: unknown; reasoning_content?: unknown; tool_calls?: { function?: { name?: string } }[] };
      if (message.role === 'user') {
        // Qwen Code's <system-reminder> parts (skills, date, session context) are not the prompt.
        const text = chatContentText(message.content);
        if (text.trim() !== '') items.push({ kind: 'user', text });
      } else if (message.role === 'tool') {
        items.push({ kind: 'tool_result', text: typeof message.content === 'string' ? message.content : JSON.stringify(message.content) });
      } else if (message.role === 'assistant') {
        if (typeof message.reasoning_content === 'string' && message.reasoning_content !== '') items.push({ kind: 'reasoning', blob: message.reasoning_content });
        const text = chatContentText(message.content);
        if (text !== '') items.push({ kind: 'assistant', text });
        for (const call of message.tool_calls ?? []) items.push({ kind: 'tool_call', name: String(call.function?.name) });
      }
    }
    return items;
  },
};

/** pi's agent dir in a sandbox (`~/.pi/agent`: settings, models, sessions). */
export const piAgentDir = (sandbox: Pick<Sandbox, 'home'>): string => join(sandbox.home, '.pi', 'agent');

/** pi's model settings: a provider in models.json over Chat Completions at the stand-in, made the default. */
export async function preparePi(agentDir: string, origin: string): Promise<NodeJS.ProcessEnv> {
  const models = { providers: { standin: { baseUrl: `${origin}/v1`, api: 'openai-completions', apiKey: 'stand-in-key', models: [{ id: 'stand-in', reasoning: true }] } } };
  await mkdir(agentDir, { recursive: true });
  await writeFile(join(agentDir, 'models.json'), `${JSON.stringify(models, null, 2)}\n`);
  // The default model: a session sessions wrote (a hand-off) names none, and `pi --session ID -p …` needs one.
  await writeFile(join(agentDir, 'settings.json'), `${JSON.stringify({ defaultProvider: 'standin', defaultModel: 'stand-in' }, null, 2)}\n`);
  // Offline: no version check, no install telemetry, no start-up network calls.
  return { PI_OFFLINE: '1', PI_TELEMETRY: '0', PI_SKIP_VERSION_CHECK: '1' };
}

/** The session header pi prints first in `--mode json`: `{"type":"session","id":…}`. */
export function piSessionId(stdout: string): string | null {
  for (const line of stdout.split('\n')) {
    try {
      const event = JSON.parse(line) as { type?: string; id?: unknown };
      if (event.type === 'session' && typeof event.id === 'string') return event.id;
    } catch {
      // not an event line
    }
  }
  return null;
}

export const piDriver: AgentDriver = {
  agent: 'pi',
  toolName: 'bash',
  // pi keeps the stand-in's `reasoning_content` as a thinking block and sends it back under the same name.
  replayedReasoning: (prompt) => ({ kind: 'reasoning', blob: REASONING_PREFIX + prompt }),
  shownReasoning: (prompt) => ({ type: 'reasoning', summary: REASONING_PREFIX + prompt, encrypted: false }),
  prepare: (sandbox, origin) => preparePi(piAgentDir(sandbox), origin),
  newSessionArgs: (prompt) => ['--mode', 'json', '-p', prompt],
  resumeArgs: (id, prompt) => ['--mode', 'json', '--session', id, '-p', prompt],
  // `pi --fork ID`: a new file holding every entry of the original, its header's parentSession the original's path.
  agentForkArgs: (id, prompt) => ['--mode', 'json', '--fork', id, '-p', prompt],
  reportedSessionId: piSessionId,
  execTemplate: (bin) => [bin, '{args}', '--session', '{id}', '-p', '{prompt}'],
  passThroughArgs: [],
  // Names: <ISO time>_<uuid v7>.jsonl.
  sessionFiles: (sandbox) => walkFiles(join(piAgentDir(sandbox), 'sessions'), (name) => name.endsWith('.jsonl'), 1),
  // The conversation goes out with the tool list; compaction and branch summaries go without tools.
  turnRequests: (requests) =>
    requests.filter(
      (request) => request.method === 'POST' && request.path.endsWith('/chat/completions') && ((request.body as { tools?: unknown[] } | null)?.tools ?? []).length > 0,
    ),
  conversation(body) {
    const messages = (body as { messages?: unknown[] } | null)?.messages ?? [];
    const items: ConversationItem[] = [];
    for (const raw of messages) {
      const message = raw as { role?: string; content?: unknown; reasoning_content?: unknown; tool_calls?: { function?: { name?: string } }[] };
      if (message.role === 'user') {
        const text = chatContentText(message.content);
        if (text.trim() !== '') items.push({ kind: 'user', text });
      } else if (message.role === 'tool') {
        items.push({ kind: 'tool_result', text: typeof message.content === 'string' ? message.content : JSON.stringify(message.content) });
      } else if (message.role === 'assistant') {
        if (typeof message.reasoning_content === 'string' && message.reasoning_content !== '') items.push({ kind: 'reasoning', blob: message.reasoning_content });
        const text = chatContentText(message.content);
        if (text !== '') items.push({ kind: 'assistant', text });
        for (const call of message.tool_calls ?? []) items.push({ kind: 'tool_call', name: String(call.function?.name) });
      }
      // system / developer: pi's system prompt
    }
    return items;
  },
};

/** Factory Droid's folder in a sandbox (`~/.factory`: settings, sessions, logs). */
export const droidDir = (sandbox: Pick<Sandbox, 'home'>): string => join(sandbox.home, '.factory');

/**
 * Factory Droid with a custom model (`generic-chat-completion-api`) pointed at the stand-in's Chat Completions, and
 * Factory's own API (feature flags, session sync, billing) at the stand-in too: it answers 404, and Droid goes on
 * from its local files (a resume asks `/api/sessions/<id>` first). No Factory login: a custom model needs none.
 */
export async function prepareDroid(home: string, origin: string): Promise<NodeJS.ProcessEnv> {
  const settings = {
    customModels: [{ model: 'stand-in', displayName: 'Stand-in', baseUrl: `${origin}/v1`, apiKey: 'stand-in-key', provider: 'generic-chat-completion-api', maxOutputTokens: 4096 }],
    // The default model of new sessions (a resume takes the session's own): the custom model, whose id Droid makes from its name.
    sessionDefaultSettings: { model: 'custom:Stand-in-0' },
  };
  await mkdir(join(home, '.factory'), { recursive: true });
  await writeFile(join(home, '.factory', 'settings.json'), `${JSON.stringify(settings, null, 2)}\n`);
  return { FACTORY_API_BASE_URL: origin, FACTORY_HOME_OVERRIDE: home };
}

export const droidDriver: AgentDriver = {
  agent: 'droid',
  toolName: 'Execute',
  // Droid keeps the reasoning (`thinking` with `chatCompletionReasoningContent`) but sends none of it back.
  replayedReasoning: () => null,
  shownReasoning: (prompt) => ({ type: 'reasoning', summary: REASONING_PREFIX + prompt, encrypted: false }),
  prepare: (sandbox, origin) => prepareDroid(sandbox.home, origin),
  // `--auto low`: the shell tool runs `echo` without asking (exec cannot ask).
  newSessionArgs: (prompt) => ['exec', '--auto', 'low', '-o', 'json', prompt],
  resumeArgs: (id, prompt) => ['exec', '--auto', 'low', '-o', 'json', '-s', id, prompt],
  // A new file: the parent's lines copied, its session_start naming the parent.
  agentForkArgs: (id, prompt) => ['exec', '--auto', 'low', '-o', 'json', '--fork', id, prompt],
  reportedSessionId(stdout) {
    try {
      const result = JSON.parse(stdout.trim()) as { session_id?: unknown };
      return typeof result.session_id === 'string' ? result.session_id : null;
    } catch {
      return null;
    }
  },
  execTemplate: (bin) => [bin, 'exec', '{args}', '-s', '{id}', '{prompt}'],
  passThroughArgs: ['--auto', 'low'],
  // `<uuid>.jsonl` in a folder per cwd (`<uuid>.settings.json` beside it is the session's settings, not a session).
  sessionFiles: (sandbox) => walkFiles(join(droidDir(sandbox), 'sessions'), (name) => /^[0-9a-fA-F-]{36}\.jsonl$/.test(name), 2),
  turnRequests: (requests) =>
    requests.filter((request) => {
      if (request.method !== 'POST' || !request.path.endsWith('/chat/completions')) return false;
      const messages = (request.body as { messages?: { role?: string; content?: unknown }[] } | null)?.messages ?? [];
      const system = messages[0]?.role === 'system' ? chatContentText(messages[0].content) : '';
      return system.startsWith('You are Droid');
    }),
  conversation(body) {
    const messages = (body as { messages?: unknown[] } | null)?.messages ?? [];
    const items: ConversationItem[] = [];
    for (const raw of messages) {
      const message = raw as { role?: string; content?: unknown; reasoning_content?: unknown; tool_calls?: { function?: { name?: string } }[] };
      if (message.role === 'user') {
        // Droid's hidden context message (tools, connectors, environment) is all <system-reminder> parts.
        const text = chatContentText(message.content);
        if (text.trim() !== '') items.push({ kind: 'user', text });
      } else if (message.role === 'tool') {
        items.push({ kind: 'tool_result', text: typeof message.content === 'string' ? message.content : JSON.stringify(message.content) });
      } else if (message.role === 'assistant') {
        if (typeof message.reasoning_content === 'string' && message.reasoning_content !== '') items.push({ kind: 'reasoning', blob: message.reasoning_content });
        const text = chatContentText(message.content);
        if (text !== '') items.push({ kind: 'assistant', text });
        for (const call of message.tool_calls ?? []) items.push({ kind: 'tool_call', name: String(call.function?.name) });
      }
    }
    return items;
  },
};

export const DRIVERS: Readonly<Record<InteropAgent, AgentDriver>> = { codex: codexDriver, claude: claudeDriver, copilot: copilotDriver, gemini: geminiDriver, qwen: qwenDriver, pi: piDriver, droid: droidDriver };
