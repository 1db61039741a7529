import type { Agent, SessionSummary } from './model.js';

export interface ResumeCommand {
  readonly argv: readonly string[];
  /** The recorded cwd the agent must run in (Claude looks sessions up by it), or null when unknown. */
  readonly cwd: string | null;
}

export type ResumeTemplates = Readonly<Record<Agent, readonly string[]>>;

export const DEFAULT_RESUME_TEMPLATES: ResumeTemplates = {
  codex: ['codex', 'resume', '{id}'],
  claude: ['claude', '--resume', '{id}'],
  claw: ['claw', '--resume', '{path}'],
};

/** Fill an argv template for one session; extra arguments (a prompt, flags) go last. */
export function resumeCommand(
  session: Pick<SessionSummary, 'id' | 'agent' | 'path' | 'cwd'>,
  templates: ResumeTemplates = DEFAULT_RESUME_TEMPLATES,
  extraArgs: readonly string[] = [],
): ResumeCommand {
  const template = templates[session.agent];
  const fill = (part: string): string =>
    part.replaceAll('{id}', session.id).replaceAll('{path}', session.path).replaceAll('{cwd}', session.cwd ?? '');
  return { argv: [...template.map(fill), ...extraArgs], cwd: session.cwd };
}
