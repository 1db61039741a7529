// What is asked of a host's own `sessions` over ssh, and how its answers are read back: the wire, no choices. Which
// host, and whether its `sessions` or a mirror here does the work, is decided once by the app layer (src/app/).
import type { CatalogSession } from '../catalog/scan.js';
import type { ForkResult } from '../core/formats/types.js';
import { AGENTS, type Agent, type Session } from '../core/model.js';
import type { Snippet } from '../core/io/snippet.js';
import { safeLine } from '../core/text.js';
import { rowFromListJson } from './remote-row.js';
import { remoteArgv, remoteLaunchLine } from './remote-shell.js';
import { failureReason, runCommand, sshArgv, type SshSettings } from './ssh.js';

/** A host could not do what was asked (the reason is what ssh, the host's `sessions` or rsync said). */
export class HostActionError extends Error {}

/** A command that runs on a host in a terminal: the local ssh argv, and the line the host's shell runs. */
export interface RemoteLaunch {
  /** The local ssh argv: `ssh -t … HOST '<remote line>'`. */
  readonly argv: readonly string[];
  /** What the host's shell runs. */
  readonly remoteLine: string;
}

/** Run `remoteLine` on `host` with the terminal handed over (`ssh -t`). */
export function remoteLaunch(settings: SshSettings, host: string, remoteLine: string): RemoteLaunch {
  return { argv: sshArgv(settings, host, remoteLine, 'terminal'), remoteLine };
}

/** The host's own `sessions resume ID` (its config, its homes), with a prompt and the agent's extra arguments. */
export function hostSessionsResumeLine(id: string, options: { readonly prompt?: string; readonly extraArgs?: readonly string[] }): string {
  const extra = options.extraArgs ?? [];
  return remoteArgv(['sessions', 'resume', id, ...(options.prompt === undefined ? [] : ['--prompt', options.prompt]), ...(extra.length > 0 ? ['--', ...extra] : [])]);
}

/** `sessions fork --json` on a host: the new session (paths as the host has them) and how to resume it there. */
export async function forkWithHostSessions(
  host: string,
  settings: SshSettings,
  session: Pick<CatalogSession, 'id' | 'agent'>,
  request: { readonly atTurn: number | 'end'; readonly branchName?: string; readonly to: Agent | null },
): Promise<{ readonly result: ForkResult; readonly resume: RemoteLaunch }> {
  const { to } = request;
  const line = remoteArgv(['sessions', 'fork', session.id, '--at', String(request.atTurn), ...(request.branchName ? ['--name', request.branchName] : []), ...(to === null ? [] : ['--to', to]), '--json']);
  const run = await runCommand(sshArgv(settings, host, line, 'batch'));
  if (run.code !== 0) throw new HostActionError(`${host}: ${failureReason(run, 'sessions fork failed')}`);
  const value = parseJson(run.stdout);
  const resume = isRecord(value) && isRecord(value.resume) ? value.resume : null;
  if (!isRecord(value) || typeof value.id !== 'string' || typeof value.path !== 'string' || resume === null || !isStringArray(resume.argv)) {
    throw new HostActionError(`${host}: sessions fork printed no fork: ${run.stdout.slice(0, 200)}`);
  }
  const agent = typeof value.agent === 'string' && (AGENTS as readonly string[]).includes(value.agent) ? (value.agent as Agent) : null;
  if (agent !== (to ?? session.agent)) throw new HostActionError(`${host}: sessions fork wrote a ${String(agent)} session, not ${to ?? session.agent}`);
  const result: ForkResult = {
    agent,
    id: value.id,
    path: value.path,
    parentId: typeof value.parentId === 'string' ? value.parentId : session.id,
    keptUserTurns: typeof value.keptUserTurns === 'number' ? value.keptUserTurns : 0,
  };
  const env = isRecord(resume.env) ? Object.fromEntries(Object.entries(resume.env).filter((entry): entry is [string, string] => typeof entry[1] === 'string')) : {};
  const remoteLine = remoteLaunchLine({ argv: resume.argv, cwd: typeof resume.cwd === 'string' ? resume.cwd : null, env });
  return { result, resume: remoteLaunch(settings, host, remoteLine) };
}

/** `sessions show ID --format F` on a host, as it printed it (untrusted: the caller sanitises what it shows). */
export async function showWithHostSessions(host: string, settings: SshSettings, id: string, format: string, system: boolean): Promise<string> {
  const line = remoteArgv(['sessions', 'show', id, '--format', format, ...(system ? ['--system'] : [])]);
  const run = await runCommand(sshArgv(settings, host, line, 'batch'));
  if (run.code !== 0) throw new HostActionError(`${host}: ${failureReason(run, 'sessions show failed')}`);
  return run.stdout;
}

/** A host's transcript, from its `sessions show --format json`. */
export async function readWithHostSessions(host: string, settings: SshSettings, id: string): Promise<Session> {
  const value = parseJson(await showWithHostSessions(host, settings, id, 'json', false));
  if (!isRecord(value) || !Array.isArray(value.messages)) throw new HostActionError(`${host}: sessions show printed no transcript`);
  return value as unknown as Session;
}

/** One row a host's `sessions grep --json` printed: the row (the host's paths), its match count and snippet. */
export interface HostGrepRow {
  readonly row: CatalogSession;
  readonly matches: number;
  readonly snippet: Snippet | null;
}

/**
 * `sessions grep --json` on a host: each matching row as it streams in. Resolves to null, or why the host could not
 * be searched (grep's exit 1, nothing matched, is not a failure).
 */
export async function grepWithHostSessions(
  host: string,
  settings: SshSettings,
  text: string,
  options: { readonly ignoreCase: boolean; readonly context?: number; readonly signal?: AbortSignal; readonly onRow: (found: HostGrepRow) => void },
): Promise<string | null> {
  // `--` last: a search text that starts with a dash is text on the host too.
  const line = remoteArgv(['sessions', 'grep', '--json', ...(options.ignoreCase ? ['-i'] : []), ...(options.context === undefined ? [] : ['--context', String(options.context)]), '--', text]);
  const run = await runCommand(sshArgv(settings, host, line, 'batch'), {
    ...(options.signal ? { signal: options.signal } : {}),
    onLine: (json) => {
      const value = parseJson(json);
      const row = rowFromListJson(value, host);
      if (row === null || !isRecord(value)) return;
      options.onRow({ row, matches: typeof value.matches === 'number' ? value.matches : 0, snippet: snippetOf(value.snippet) });
    },
  });
  if (options.signal?.aborted || run.code === 0 || run.code === 1) return null;
  return `${host}: ${failureReason(run, 'sessions grep failed')}`;
}

/** A snippet another machine printed: three strings, made safe to show on one line, or none. */
function snippetOf(value: unknown): Snippet | null {
  if (!isRecord(value) || typeof value.before !== 'string' || typeof value.match !== 'string' || typeof value.after !== 'string') return null;
  return { before: safeLine(value.before), match: safeLine(value.match), after: safeLine(value.after) };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((one) => typeof one === 'string');
}
