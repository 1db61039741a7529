import type { Agent, SessionSummary } from './model.js';

export interface ResumeCommand {
  readonly argv: readonly string[];
  /** The recorded cwd the agent must run in (Claude looks sessions up by it), or null when unknown. */
  readonly cwd: string | null;
}

/**
 * argv templates per agent; placeholders `{id}`, `{path}`, `{cwd}`; an element that is exactly `{prompt}`
 * becomes the prompt (or nothing), one that is exactly `{args}` becomes the extra arguments (default: at the end).
 */
export type ResumeTemplates = Readonly<Record<Agent, readonly string[]>>;

/** Interactive resume: the agent's own TUI takes the terminal. */
export const DEFAULT_RESUME_TEMPLATES: ResumeTemplates = {
  codex: ['codex', 'resume', '{args}', '{id}', '{prompt}'],
  claude: ['claude', '{args}', '--resume', '{id}', '{prompt}'],
  claw: ['claw', '{args}', '--resume', '{path}', '{prompt}'],
};

/** Non-interactive resume with a prompt (scripts, tests): one turn, appended to the same session file. */
export const DEFAULT_EXEC_TEMPLATES: ResumeTemplates = {
  codex: ['codex', 'exec', '{args}', 'resume', '{id}', '{prompt}'],
  claude: ['claude', '-p', '{args}', '--resume', '{id}', '{prompt}'],
  claw: ['claw', '{args}', '--resume', '{path}', '{prompt}'],
};

/** Fill an argv template for one session; extra arguments go last. */
export function resumeCommand(
  session: Pick<SessionSummary, 'id' | 'agent' | 'path' | 'cwd'>,
  templates: ResumeTemplates = DEFAULT_RESUME_TEMPLATES,
  options: { readonly prompt?: string; readonly extraArgs?: readonly string[] } = {},
): ResumeCommand {
  const template = templates[session.agent];
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
    argv.push(
      part
        .replaceAll('{id}', session.id)
        .replaceAll('{path}', session.path)
        .replaceAll('{cwd}', session.cwd ?? '')
        .replaceAll('{prompt}', options.prompt ?? ''),
    );
  }
  if (!template.includes('{args}')) argv.push(...extraArgs);
  return { argv, cwd: session.cwd };
}
