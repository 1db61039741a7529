import { ADAPTERS } from './formats/index.js';
import { AGENTS, type Agent, type SessionSummary } from './model.js';
import { assertSessionId } from './session-id.js';

export interface ResumeCommand {
  readonly argv: readonly string[];
  /** The recorded cwd the agent must run in (Claude looks sessions up by it), or null when unknown. */
  readonly cwd: string | null;
  /** Variables to set for the agent: its home, when the session's is not the one it would look in by itself. */
  readonly env: Readonly<Record<string, string>>;
}

/** The home each agent looks in when its variable is not changed (the caller knows the environment). */
export type AgentHomes = Readonly<Partial<Record<Agent, string>>>;

/**
 * argv templates per agent; placeholders `{id}`, `{path}`, `{cwd}`; an element that is exactly `{prompt}`
 * becomes the prompt (or nothing), one that is exactly `{args}` becomes the extra arguments (default: at the end).
 */
export type ResumeTemplates = Readonly<Record<Agent, readonly string[]>>;

/** Interactive resume: the agent's own TUI takes the terminal (each adapter's `resume.interactive`). */
export const DEFAULT_RESUME_TEMPLATES: ResumeTemplates = templatesOf('interactive');

/** Non-interactive resume with a prompt (scripts, tests): one turn, appended to the same session file. */
export const DEFAULT_EXEC_TEMPLATES: ResumeTemplates = templatesOf('exec');

function templatesOf(kind: 'interactive' | 'exec'): ResumeTemplates {
  return Object.fromEntries(AGENTS.map((agent) => [agent, ADAPTERS[agent].resume[kind]])) as Record<Agent, readonly string[]>;
}

const PLACEHOLDER = /\{(id|path|cwd|prompt)\}/g;

/**
 * Fill an argv template for one session; extra arguments go last. Throws UnsafeSessionIdError for an id without
 * its agent's shape. Placeholders are replaced in one pass: a value that contains `{path}` stays as it is. A
 * session found under a home that is not the agent's default (`defaultHomes`) gets the variable that points the
 * agent there, or it would not find it.
 */
export function resumeCommand(
  session: Pick<SessionSummary, 'id' | 'agent' | 'path' | 'cwd'> & { readonly root?: string },
  templates: ResumeTemplates = DEFAULT_RESUME_TEMPLATES,
  options: { readonly prompt?: string; readonly extraArgs?: readonly string[]; readonly defaultHomes?: AgentHomes } = {},
): ResumeCommand {
  assertSessionId(session);
  const template = templates[session.agent];
  const values: Readonly<Record<string, string>> = { id: session.id, path: session.path, cwd: session.cwd ?? '', prompt: options.prompt ?? '' };
  const extraArgs = options.extraArgs ?? [];
  const argv: string[] = [];
  for (const part of template) {
    if (part === '{args}') {
      argv.push(...extraArgs);
      continue;
    }
    if (part === '{prompt}') {
      if (options.prompt !== undefined) argv.push(options.prompt);
      continue;
    }
    argv.push(part.replace(PLACEHOLDER, (_, name: string) => values[name]!));
  }
  if (!template.includes('{args}')) argv.push(...extraArgs);
  const homeEnvironment = ADAPTERS[session.agent].resume.homeEnvironment;
  const home = session.root;
  const env = homeEnvironment !== undefined && home !== undefined && home !== options.defaultHomes?.[session.agent] ? homeEnvironment(home) : {};
  return { argv, cwd: session.cwd, env };
}
