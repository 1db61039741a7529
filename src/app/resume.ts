// Resume: the plan (what runs, where, with which variables). Running it is the CLI's (launch.ts): the TUI returns
// its decision and exits first.
import type { CatalogSession } from '../catalog/scan.js';
import { resumeCommand, type AgentHomes, type ResumeCommand } from '../core/resume.js';
import { assertSessionId } from '../core/session-id.js';
import { safeLine } from '../core/text.js';
import { checkLaunch, type LaunchCheck } from '../launch.js';
import { hostPath } from '../remote/mirror-layout.js';
import { HostActionError, hostSessionsResumeLine, remoteLaunch, type RemoteLaunch } from '../remote/host-sessions.js';
import { remoteLaunchLine } from '../remote/remote-shell.js';
import { staleRefusal, type Here, type Place } from './place.js';

export type ResumePlan =
  /** The agent, run here with the terminal: its argv, recorded cwd and home variables. */
  | { readonly kind: 'local'; readonly command: ResumeCommand }
  /** ssh to the host with a terminal; the host runs the line (its own `sessions resume`, or the agent's command). */
  | { readonly kind: 'remote'; readonly host: string; readonly launch: RemoteLaunch };

export interface ResumeRequest {
  /** One non-interactive turn with this prompt (the exec templates), instead of the agent's own terminal UI. */
  readonly prompt?: string;
  /** Arguments for the agent, after its own. */
  readonly extraArgs?: readonly string[];
  /** Run in this directory instead of the session's recorded one (this machine's sessions only). */
  readonly here?: string;
}

/**
 * How `session` is resumed where it lives. A host with `sessions` runs its own `sessions resume ID` (its config, its
 * homes); a mirrored host gets the agent's command built here with the host's paths, in the recorded cwd, with the
 * variable that points the agent at a home it would not look in by itself, quoted once for its shell.
 */
export function planResume(session: CatalogSession, place: Place, here: Pick<Here, 'defaultHomes' | 'templates'>, request: ResumeRequest = {}): ResumePlan {
  assertSessionId(session);
  const templates = request.prompt === undefined ? here.templates.resume : here.templates.exec;
  const options = { ...(request.prompt === undefined ? {} : { prompt: request.prompt }), extraArgs: request.extraArgs ?? [] };
  if (session.stale !== undefined) throw new HostActionError(staleRefusal(session));
  if (place.kind !== 'local' && request.here !== undefined) {
    throw new HostActionError(`--here runs in this machine's current directory; ${safeLine(session.id)} is on ${safeLine(place.host)}`);
  }
  switch (place.kind) {
    case 'local': {
      const command = resumeCommand(session, templates, { ...options, defaultHomes: here.defaultHomes });
      return { kind: 'local', command: request.here === undefined ? command : { ...command, cwd: request.here } };
    }
    case 'mirror': {
      const { dir, remote } = place.mirror;
      const onHost = { ...session, path: hostPath(dir, session.path), root: hostPath(dir, session.root) };
      // Where each agent on the host looks by itself: a session under another of its homes gets the variable.
      const defaultHomes: AgentHomes = Object.fromEntries(Object.entries(remote.roots).flatMap(([agent, roots]) => (roots[0] === undefined ? [] : [[agent, roots[0]]])));
      return { kind: 'remote', host: place.host, launch: remoteLaunch(place.settings, place.host, remoteLaunchLine(resumeCommand(onHost, templates, { ...options, defaultHomes }))) };
    }
    case 'host':
      return { kind: 'remote', host: place.host, launch: remoteLaunch(place.settings, place.host, hostSessionsResumeLine(session.id, options)) };
  }
}

/** The plan as a command to show: argv, the directory it runs in (a host's is in its remote line) and variables. */
export function planCommand(plan: ResumePlan): ResumeCommand {
  return plan.kind === 'local' ? plan.command : { argv: plan.launch.argv, cwd: null, env: {} };
}

/**
 * Whether a plan can run as it is: the agent on PATH and the recorded cwd there (a host checks its own when the
 * command runs there: always ok).
 */
export function checkPlan(plan: ResumePlan, env: Readonly<Record<string, string | undefined>>): LaunchCheck | null {
  return plan.kind === 'local' ? checkLaunch(plan.command, env, null) : null;
}
