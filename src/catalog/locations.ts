import { dirname, join, resolve } from 'node:path';

/** Where sessions are looked for. Every path is absolute. */
export interface Locations {
  readonly codexHomes: readonly string[];
  readonly claudeDirs: readonly string[];
  /** Directories searched (a few levels down) for claw workspaces. */
  readonly clawDirs: readonly string[];
  /** The current directory: it and its ancestors are claw workspaces to check. */
  readonly cwd: string;
  /** Also check the cwds recorded by other agents' sessions for claw workspaces. */
  readonly clawFromKnownCwds: boolean;
}

export interface LocationOptions {
  readonly home?: string;
  readonly codexHome?: readonly string[];
  readonly claudeDir?: readonly string[];
  readonly clawDir?: readonly string[];
}

export interface LocationEnvironment {
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The user's home directory (read by the CLI, never below it). */
  readonly homeDir: string;
  readonly cwd: string;
}

/**
 * Resolve locations: explicit flags win, then `--home DIR` (DIR/.codex, DIR/.claude),
 * then CODEX_HOME / CLAUDE_CONFIG_DIR, then ~/.codex and ~/.claude.
 */
export function resolveLocations(options: LocationOptions, environment: LocationEnvironment): Locations {
  const { env, homeDir, cwd } = environment;
  const abs = (path: string): string => resolve(cwd, path);
  const home = options.home === undefined ? undefined : abs(options.home);
  const codexHomes = nonEmpty(options.codexHome)
    ? options.codexHome!.map(abs)
    : [home ? join(home, '.codex') : env.CODEX_HOME ? abs(env.CODEX_HOME) : join(homeDir, '.codex')];
  const claudeDirs = nonEmpty(options.claudeDir)
    ? options.claudeDir!.map(abs)
    : [home ? join(home, '.claude') : env.CLAUDE_CONFIG_DIR ? abs(env.CLAUDE_CONFIG_DIR) : join(homeDir, '.claude')];
  return {
    codexHomes: unique(codexHomes),
    claudeDirs: unique(claudeDirs),
    clawDirs: unique((options.clawDir ?? []).map(abs)),
    cwd: abs(cwd),
    clawFromKnownCwds: true,
  };
}

/** Where Codex and Claude Code look for sessions when run in this environment (no options given). */
export function agentDefaultHomes(environment: LocationEnvironment): { readonly codex: string; readonly claude: string } {
  const defaults = resolveLocations({}, environment);
  return { codex: defaults.codexHomes[0]!, claude: defaults.claudeDirs[0]! };
}

/** True when `dir` is `root` or below it (the "sessions of this directory" scope). */
export function isUnder(dir: string | null, root: string): boolean {
  if (dir === null) return false;
  if (root === '/') return dir.startsWith('/');
  return dir === root || dir.startsWith(`${root}/`);
}

/** A directory and all its ancestors, nearest first. */
export function selfAndAncestors(dir: string): string[] {
  const out: string[] = [];
  for (let current = resolve(dir); ; current = dirname(current)) {
    out.push(current);
    if (dirname(current) === current) break;
  }
  return out;
}

function nonEmpty(list: readonly string[] | undefined): boolean {
  return list !== undefined && list.length > 0;
}

function unique(list: readonly string[]): string[] {
  return [...new Set(list)];
}
