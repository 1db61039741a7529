// What is asked of a host's own `sessions` over ssh, and how its answers are read back: the wire, no choices. Which
// host, and whether its `sessions` or a mirror here does the work, is decided once by the app layer (src/app/).
import { randomBytes } from 'node:crypto';
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

/** The last line of a host's answer kept in a file (below): the answer before it arrived whole. */
const ANSWER_END = 'sessions-answer-end';

/**
 * The host's side of a command whose answer must not be lost with the link (`sessions fork` writes a session whatever
 * happens to the connection): its output goes to a file on the host first (`set -C`: never an existing one), then
 * to this side, and the file is removed only when this side says it read it (a line on stdin). A link cut before
 * that leaves the file, which `readKeptAnswer` fetches over a new connection.
 */
export function keptAnswerLine(command: string, token: string): string {
  return [
    'umask 077',
    `f="\${TMPDIR:-/tmp}/sessions-answer-${token}.json"`,
    `set -C`,
    `${command} > "$f.part"`,
    `s=$?`,
    `mv "$f.part" "$f"`,
    `cat "$f"`,
    `echo; echo ${ANSWER_END} $s`,
    `read ack && rm -f "$f"`,
    `exit $s`,
  ].join('; ');
}

/**
 * A kept answer fetched after the link was cut (and removed): null when there is none. It waits a little while the
 * host's command is still writing it.
 */
async function readKeptAnswer(host: string, settings: SshSettings, token: string): Promise<string | null> {
  const line = [
    `f="\${TMPDIR:-/tmp}/sessions-answer-${token}.json"`,
    `i=0; while [ -e "$f.part" ] && [ $i -lt ${Math.max(5, 3 * settings.connectTimeout)} ]; do sleep 1; i=$((i+1)); done`,
    `cat "$f" && rm -f "$f"`,
  ].join('; ');
  const run = await runCommand(sshArgv(settings, host, line, 'batch'));
  return run.code === 0 ? run.stdout : null;
}

/** What a host's `sessions fork --json` printed, as a fork of `session`; throws when it is not one. */
function forkOf(host: string, settings: SshSettings, session: Pick<CatalogSession, 'id' | 'agent'>, to: Agent | null, stdout: string): { readonly result: ForkResult; readonly resume: RemoteLaunch } {
  const value = parseJson(stdout);
  const resume = isRecord(value) && isRecord(value.resume) ? value.resume : null;
  if (!isRecord(value) || typeof value.id !== 'string' || typeof value.path !== 'string' || resume === null || !isStringArray(resume.argv)) {
    throw new HostActionError(`${host}: sessions fork printed no fork: ${safeLine(stdout.slice(0, 200))}`);
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

/**
 * `sessions fork --json` on a host: the new session (paths as the host has them) and how to resume it there. A link
 * cut after the host wrote the fork does not lose it: its answer is fetched again (`cut` says what happened).
 */
export async function forkWithHostSessions(
  host: string,
  settings: SshSettings,
  session: Pick<CatalogSession, 'id' | 'agent'>,
  request: { readonly atTurn: number | 'end'; readonly branchName?: string; readonly to: Agent | null },
): Promise<{ readonly result: ForkResult; readonly resume: RemoteLaunch; readonly cut?: string }> {
  const { to } = request;
  const command = remoteArgv(['sessions', 'fork', session.id, '--at', String(request.atTurn), ...(request.branchName ? ['--name', request.branchName] : []), ...(to === null ? [] : ['--to', to]), '--json']);
  const token = randomBytes(8).toString('hex');
  const answer: string[] = [];
  let status: number | null = null;
  const run = runCommand(sshArgv(settings, host, keptAnswerLine(command, token), 'batch'), {
    keepStdinOpen: true,
    onLine: (line) => {
      const end = new RegExp(`^${ANSWER_END} (\\d+)$`).exec(line);
      if (end === null) return void answer.push(line);
      status = Number(end[1]);
      // Read whole: the host may remove its copy.
      run.child.stdin!.end('ok\n');
    },
  });
  const done = await run;
  if (status !== null) {
    if (status !== 0) throw new HostActionError(`${host}: ${failureReason({ ...done, code: status }, 'sessions fork failed')}`);
    return forkOf(host, settings, session, to, answer.join('\n'));
  }
  const why = failureReason(done, 'ssh failed');
  const kept = await readKeptAnswer(host, settings, token);
  const forked = kept === null ? null : (() => {
    try {
      return forkOf(host, settings, session, to, kept);
    } catch {
      return null;
    }
  })();
  if (forked === null) throw new HostActionError(`${host}: ${why} (the link was cut while sessions forked there: it may have written the fork; \`sessions list --host ${host}\` shows it)`);
  return { ...forked, cut: why };
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
