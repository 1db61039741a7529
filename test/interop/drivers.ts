import { existsSync } from 'node:fs';
import { readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { codexUserPromptText, isInjectedContext } from '../../src/core/formats/codex.js';
import type { InteropAgent } from './agents.js';
import { claudePromptText, withoutCopilotDatetime, type RecordedRequest } from './model-stand-in.js';

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
  /** Whether the agent sends earlier turns' reasoning back to the model (Copilot 1.0.x does not). */
  readonly replaysReasoning: boolean;
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

export const codexDriver: AgentDriver = {
  agent: 'codex',
  toolName: 'exec_command',
  replaysReasoning: true,
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
  replaysReasoning: true,
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

export const copilotDriver: AgentDriver = {
  agent: 'copilot',
  toolName: 'bash',
  replaysReasoning: false,
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

export const DRIVERS: Readonly<Record<InteropAgent, AgentDriver>> = { codex: codexDriver, claude: claudeDriver, copilot: copilotDriver };
