import { AGENTS, type Agent } from './agents.js';
import { auggieAdapter } from './auggie/index.js';
import { claudeAdapter } from './claude/index.js';
import { clawAdapter } from './claw/index.js';
import { codexAdapter } from './codex/index.js';
import { copilotAdapter } from './copilot/index.js';
import { droidAdapter } from './droid/index.js';
import { geminiAdapter } from './gemini/index.js';
import { kiloAdapter } from './kilo/index.js';
import { opencodeAdapter } from './opencode/index.js';
import { piAdapter } from './pi/index.js';
import { qwenAdapter } from './qwen/index.js';
import type { FormatAdapter } from './types.js';

/**
 * The registry: one adapter per agent. A new agent is one line here (and its name in agents.ts's AGENTS); the
 * catalog, watcher, grep and CLI loop over this and never name an agent (docs/dev/adding-an-agent.md).
 */
export const ADAPTERS: Readonly<Record<Agent, FormatAdapter>> = {
  codex: codexAdapter,
  claude: claudeAdapter,
  claw: clawAdapter,
  copilot: copilotAdapter,
  gemini: geminiAdapter,
  qwen: qwenAdapter,
  opencode: opencodeAdapter,
  droid: droidAdapter,
  pi: piAdapter,
  kilo: kiloAdapter,
  auggie: auggieAdapter,
};

/** The adapters in AGENTS order. */
export const ADAPTER_LIST: readonly FormatAdapter[] = AGENTS.map((agent) => ADAPTERS[agent]);

/** The adapters' `notConversation` patterns, as sources (what a grep worker is handed: see `notConversationPattern`). */
export function notConversationSources(): string[] {
  return ADAPTER_LIST.flatMap((adapter) => (adapter.notConversation ? [adapter.notConversation.source] : []));
}

export function adapterFor(agent: Agent): FormatAdapter {
  return ADAPTERS[agent];
}
