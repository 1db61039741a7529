import { resolve } from 'node:path';
import { ADAPTER_LIST, ADAPTERS } from '../core/formats/index.js';
import { selfAndAncestors } from '../core/formats/roots.js';
import type { RootEnvironment } from '../core/formats/types.js';
import { AGENTS, type Agent } from '../core/model.js';

/** Where sessions are looked for. Every path is absolute. */
export interface Locations {
  /** Each agent's configured roots (a CODEX_HOME, a Claude config dir, folders searched for claw workspaces). */
  readonly roots: Readonly<Record<Agent, readonly string[]>>;
  /** The current directory (claw: it and its ancestors are workspaces to check). */
  readonly cwd: string;
  /** Roots derived from the cwds other agents' sessions recorded (claw's workspaces); default true. Tests turn it off. */
  readonly rootsFromCwds?: boolean;
  /** Every root is this folder or below it (a host's mirror: the folders around it, the cwd's ancestors, are this machine's). */
  readonly within?: string;
}

export interface LocationOptions {
  readonly home?: string;
  /** Explicit roots per agent (the repeatable location flags): they replace `--home`, the environment and the defaults. */
  readonly roots?: Readonly<Partial<Record<Agent, readonly string[]>>>;
}

export interface LocationEnvironment {
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The user's home directory (read by the CLI, never below it). */
  readonly homeDir: string;
  readonly cwd: string;
}

/** No roots for any agent (tests and callers fill in the ones they want). */
export function noRoots(): Record<Agent, string[]> {
  return Object.fromEntries(AGENTS.map((agent) => [agent, []])) as unknown as Record<Agent, string[]>;
}

/**
 * Resolve locations, one agent at a time through its adapter: explicit flags win, then `--home DIR` (DIR/.codex,
 * DIR/.claude, …), then the agent's variable (CODEX_HOME, CLAUDE_CONFIG_DIR, …), then its default under the home.
 */
export function resolveLocations(options: LocationOptions, environment: LocationEnvironment): Locations {
  const { env, homeDir, cwd } = environment;
  const abs = (path: string): string => resolve(cwd, path);
  const rootEnvironment: RootEnvironment = { home: options.home === undefined ? undefined : abs(options.home), env, homeDir, abs };
  const roots = noRoots();
  for (const adapter of ADAPTER_LIST) {
    const given = options.roots?.[adapter.agent];
    roots[adapter.agent] = unique(given !== undefined && given.length > 0 ? given.map(abs) : adapter.locations.defaultRoots(rootEnvironment));
  }
  return { roots, cwd: abs(cwd) };
}

/** Where each agent looks for sessions when run in this environment (no options given): a session found elsewhere is resumed with its home's variables. */
export function agentDefaultHomes(environment: LocationEnvironment): Readonly<Partial<Record<Agent, string>>> {
  const defaults = resolveLocations({}, environment);
  const homes: Partial<Record<Agent, string>> = {};
  for (const agent of AGENTS) {
    const first = defaults.roots[agent][0];
    if (first !== undefined && ADAPTERS[agent].resume.homeEnvironment !== undefined) homes[agent] = first;
  }
  return homes;
}

/** One agent's location flag, as the CLI declares it: the commander option and the agent it names roots of. */
export interface LocationFlag {
  readonly agent: Agent;
  /** `--codex-home <dir>` */
  readonly flags: string;
  /** `--codex-home` */
  readonly long: string;
  /** The key commander stores the values under (`codexHome`). */
  readonly attribute: string;
  readonly help: string;
}

/** Every agent's location flag, from the registry. */
export function locationFlags(): LocationFlag[] {
  return ADAPTER_LIST.map((adapter) => {
    const long = adapter.locations.flag.split(/[ =]/)[0]!;
    // commander's attribute name: `--codex-home` → `codexHome`.
    const attribute = long.replace(/^--/, '').replace(/-([a-z])/g, (_, letter: string) => letter.toUpperCase());
    return { agent: adapter.agent, flags: adapter.locations.flag, long, attribute, help: adapter.locations.flagHelp };
  });
}

/** `LocationOptions` from commander's parsed options (`{home, codexHome: [...], claudeDir: [...]}`). */
export function locationOptionsFromFlags(parsed: Readonly<Record<string, unknown>>): LocationOptions {
  const roots: Partial<Record<Agent, readonly string[]>> = {};
  for (const flag of locationFlags()) {
    const values = parsed[flag.attribute];
    if (Array.isArray(values)) roots[flag.agent] = values.filter((value): value is string => typeof value === 'string');
  }
  const home = parsed.home;
  return { ...(typeof home === 'string' ? { home } : {}), roots };
}

/** True when `dir` is `root` or below it (the "sessions of this directory" scope). */
export function isUnder(dir: string | null, root: string): boolean {
  if (dir === null) return false;
  if (root === '/') return dir.startsWith('/');
  return dir === root || dir.startsWith(`${root}/`);
}

export { selfAndAncestors };

function unique(list: readonly string[]): string[] {
  return [...new Set(list)];
}
