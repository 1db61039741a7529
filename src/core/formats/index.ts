import type { Agent } from '../model.js';
import { claudeAdapter } from './claude.js';
import { clawAdapter } from './claw.js';
import { codexAdapter } from './codex.js';
import { geminiAdapter } from './gemini.js';
import { qwenAdapter } from './qwen.js';
import type { FormatAdapter } from './types.js';

export const ADAPTERS: Readonly<Record<Agent, FormatAdapter>> = {
  codex: codexAdapter,
  claude: claudeAdapter,
  claw: clawAdapter,
  gemini: geminiAdapter,
  qwen: qwenAdapter,
};

export function adapterFor(agent: Agent): FormatAdapter {
  return ADAPTERS[agent];
}
