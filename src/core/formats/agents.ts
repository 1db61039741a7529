/**
 * Every agent, in the order rows of equal time and locations are listed. A new agent is added here and in the registry
 * (index.ts). A leaf module: the model's `Agent` type is made from it, and nothing outside src/core/formats/ names one.
 */
export const AGENTS = ['codex', 'claude', 'claw', 'copilot', 'gemini', 'qwen', 'opencode', 'droid', 'pi', 'kilo', 'auggie'] as const;

export type Agent = (typeof AGENTS)[number];
