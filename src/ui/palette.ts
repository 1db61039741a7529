/** The TUI's colors by role, without React: the first screen is painted before Ink and React load. */
import type { Agent } from '../core/model.js';

/** Colors by role; under NO_COLOR every color is undefined and the views lean on bold/inverse/underline. */
export interface Theme {
  readonly color: boolean;
  readonly accent: string | undefined;
  readonly dim: string | undefined;
  readonly match: string | undefined;
  readonly error: string | undefined;
  readonly success: string | undefined;
  readonly live: string | undefined;
  readonly user: string | undefined;
  readonly tool: string | undefined;
  readonly reasoning: string | undefined;
  readonly agents: Readonly<Record<Agent, string | undefined>>;
}

export const COLOR_THEME: Theme = {
  color: true,
  accent: 'cyan',
  dim: 'gray',
  match: 'yellow',
  error: 'red',
  success: 'green',
  live: 'green',
  user: 'cyan',
  tool: 'magenta',
  reasoning: 'gray',
  agents: { codex: 'blue', claude: 'yellow', claw: 'magenta', copilot: 'green', gemini: 'blueBright', qwen: 'cyanBright', opencode: 'whiteBright', droid: 'redBright', pi: 'magentaBright', kilo: 'yellowBright', auggie: 'greenBright' },
};

const MONO_THEME: Theme = {
  color: false,
  accent: undefined,
  dim: undefined,
  match: undefined,
  error: undefined,
  success: undefined,
  live: undefined,
  user: undefined,
  tool: undefined,
  reasoning: undefined,
  agents: { codex: undefined, claude: undefined, claw: undefined, copilot: undefined, gemini: undefined, qwen: undefined, opencode: undefined, droid: undefined, pi: undefined, kilo: undefined, auggie: undefined },
};

/** https://no-color.org: a non-empty NO_COLOR turns colors off. */
export function themeFor(env: Readonly<Record<string, string | undefined>>): Theme {
  return env.NO_COLOR ? MONO_THEME : COLOR_THEME;
}
