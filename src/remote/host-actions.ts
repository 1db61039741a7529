import { randomBytes } from 'node:crypto';
import { readdir, readFile, stat, unlink } from 'node:fs/promises';
import { dirname, join, posix } from 'node:path';
import { grepLocations } from '../catalog/grep.js';
import { groupOf, type CatalogSession } from '../catalog/scan.js';
import { ADAPTERS } from '../core/formats/index.js';
import type { ForkResult } from '../core/formats/types.js';
import { AGENTS, sessionKey, type Agent, type Session } from '../core/model.js';
import { handOff, HandoffError } from '../core/handoff/index.js';
import { handoffHomes } from '../catalog/handoff-homes.js';
import { resumeCommand, type ResumeTemplates } from '../core/resume.js';
import { assertSessionId } from '../core/session-id.js';
import { ForkRangeError } from '../core/errors.js';
import type { Snippet } from '../core/io/snippet.js';
import { safeLine } from '../core/text.js';
import { rowFromListJson } from './remote-row.js';
import { hostPath, writingIntoMirror, type HostSource } from './host-source.js';
import { remoteArgv, remoteLaunchLine, remoteQuote } from './remote-shell.js';
import { failureReason, runCommand, sshArgv, type SshSettings } from './ssh.js';

/** A host could not do what was asked (the reason is what ssh, the host's `sessions` or rsync said). */
export class HostActionError extends Error {}

export interface RemoteResume {
  /** The local ssh argv: `ssh -t … HOST '<remote line>'`. */
  readonly argv: readonly string[];
  /** What the host's shell runs. */
  readonly remoteLine: string;
}

/**
 * Resume a host's session there, in a terminal. A host with `sessions` runs its own `sessions resume ID` (its
 * config, its homes); a mirrored host gets the agent's resume command built here, in the recorded cwd, with
 * the variable that points the agent at a home it would not look in by itself, quoted once for its shell.
 */
export function remoteResume(
  session: CatalogSession,
  source: HostSource,
  settings: SshSettings,
  templates: ResumeTemplates,
  options: { readonly prompt?: string; readonly extraArgs?: readonly string[] } = {},
): RemoteResume {
  assertSessionId(session);
  const extra = options.extraArgs ?? [];
  let remoteLine: string;
  if (source.via === 'mirror' && source.mirror) {
    const { remote } = source.mirror;
    const onHost = { ...session, path: hostPath(source.mirror.dir, session.path), root: hostPath(source.mirror.dir, session.root) };
    const command = resumeCommand(onHost, templates, {
      ...(options.prompt === undefined ? {} : { prompt: options.prompt }),
      extraArgs: extra,
      // Where each agent on the host looks by itself: a session under another of its homes gets the variable.
      defaultHomes: Object.fromEntries(Object.entries(remote.roots).flatMap(([agent, roots]) => (roots[0] === undefined ? [] : [[agent, roots[0]]]))),
    });
    remoteLine = remoteLaunchLine(command);
  } else {
    remoteLine = remoteArgv(['sessions', 'resume', session.id, ...(options.prompt === undefined ? [] : ['--prompt', options.prompt]), ...(extra.length > 0 ? ['--', ...extra] : [])]);
  }
  return { argv: sshArgv(settings, source.host, remoteLine, 'terminal'), remoteLine };
}

export interface HostFork {
  /** Paths are the host's. */
  readonly result: ForkResult;
  /** How to resume the fork: the ssh command to run here. */
  readonly resume: RemoteResume;
}

export interface HostForkRequest {
  readonly atTurn: number;
  readonly branchName?: string;
  readonly now?: Date;
  /** Another agent to continue the session in (a hand-off); absent or the session's own: a fork. */
  readonly to?: Agent;
}

/**
 * Fork a host's session on the host, or hand it off to another agent there. With `sessions` there, its own
 * `sessions fork [--to AGENT]` writes it. A mirrored host's is built here from the mirror (by the agent's adapter,
 * or the hand-off writer) and each new file placed on the host under a temp name, then linked to its final name
 * (a link never replaces a file that is there) and the temp name removed.
 */
export async function forkOnHost(
  session: CatalogSession,
  source: HostSource,
  settings: SshSettings,
  templates: ResumeTemplates,
  request: HostForkRequest,
): Promise<HostFork> {
  assertSessionId(session);
  const to = request.to !== undefined && request.to !== session.agent ? request.to : null;
  if (source.via === 'mirror' && source.mirror) {
    return to === null ? forkFromMirror(session, source, settings, templates, request) : handOffFromMirror(session, source, settings, templates, { ...request, to });
  }
  const line = remoteArgv(['sessions', 'fork', session.id, '--at', String(request.atTurn), ...(request.branchName ? ['--name', request.branchName] : []), ...(to === null ? [] : ['--to', to]), '--json']);
  const run = await runCommand(sshArgv(settings, source.host, line, 'batch'));
  if (run.code !== 0) throw new HostActionError(`${source.host}: ${failureReason(run, 'sessions fork failed')}`);
  const value = parseJson(run.stdout);
  const resume = isRecord(value) && isRecord(value.resume) ? value.resume : null;
  if (!isRecord(value) || typeof value.id !== 'string' || typeof value.path !== 'string' || resume === null || !isStringArray(resume.argv)) {
    throw new HostActionError(`${source.host}: sessions fork printed no fork: ${run.stdout.slice(0, 200)}`);
  }
  const agent = typeof value.agent === 'string' && (AGENTS as readonly string[]).includes(value.agent) ? (value.agent as Agent) : null;
  if (agent !== (to ?? session.agent)) throw new HostActionError(`${source.host}: sessions fork wrote a ${String(agent)} session, not ${to ?? session.agent}`);
  const result: ForkResult = {
    agent,
    id: value.id,
    path: value.path,
    parentId: typeof value.parentId === 'string' ? value.parentId : session.id,
    keptUserTurns: typeof value.keptUserTurns === 'number' ? value.keptUserTurns : 0,
  };
  const env = isRecord(resume.env) ? Object.fromEntries(Object.entries(resume.env).filter((entry): entry is [string, string] => typeof entry[1] === 'string')) : {};
  const remoteLine = remoteLaunchLine({ argv: resume.argv, cwd: typeof resume.cwd === 'string' ? resume.cwd : null, env });
  return { result, resume: { argv: sshArgv(settings, source.host, remoteLine, 'terminal'), remoteLine } };
}

async function forkFromMirror(
  session: CatalogSession,
  source: HostSource,
  settings: SshSettings,
  templates: ResumeTemplates,
  request: { readonly atTurn: number; readonly branchName?: string; readonly now?: Date },
): Promise<HostFork> {
  const mirror = source.mirror!;
  if (mirror.context === null) throw new HostActionError(`${source.host}: the mirror is not indexed yet`);
  if (session.agent === 'codex' && request.branchName) {
    throw new HostActionError(`${source.host}: a Codex fork's name goes into the host's session_index.jsonl, which is written only by sessions on the host; fork without a name, or install sessions there`);
  }
  const context = mirror.context;
  const { local, target } = await writingIntoMirror(mirror, async () => {
    const local = await ADAPTERS[session.agent].fork(groupOf(session), { atTurn: request.atTurn, ...(request.branchName ? { branchName: request.branchName } : {}), ...(request.now ? { now: request.now } : {}) }, context);
    const target = hostPath(mirror.dir, local.path);
    try {
      await placeOnHost(source.host, settings, target, await readFile(local.path));
    } catch (error) {
      await unlink(local.path).catch(() => undefined); // not on the host: not in its mirror either
      throw error;
    }
    return { local, target };
  });
  const result = { ...local, path: target };
  const forked: CatalogSession = { ...session, id: local.id, path: local.path, paths: [local.path] };
  return { result, resume: remoteResume(forked, source, settings, templates) };
}

/**
 * A hand-off of a mirrored host's session: the transcript is read from the mirror, the other agent's session is
 * written into the mirror (in that agent's home on the host, as the mirror holds it), and each file the writer
 * made is placed on the host, the session file last (a host watching sees it whole). Files the writer adds to
 * existing ones (a Codex name in session_index.jsonl, opencode's database) or writes outside the agent's homes
 * (claw: the workspace) cannot be placed this way: those need `sessions` on the host.
 */
async function handOffFromMirror(
  session: CatalogSession,
  source: HostSource,
  settings: SshSettings,
  templates: ResumeTemplates,
  request: HostForkRequest & { readonly to: Agent },
): Promise<HostFork> {
  const mirror = source.mirror!;
  if (mirror.context === null) throw new HostActionError(`${source.host}: the mirror is not indexed yet`);
  const { to } = request;
  if (!ADAPTERS[to].locations.homeFolder) {
    throw new HostActionError(`${source.host}: a ${to} hand-off is written in the session's directory on the host, which only sessions on the host writes; install sessions there, or hand it off on ${source.host}`);
  }
  if (ADAPTERS[to].store !== undefined) {
    // A file is placed on the host beside the others; a database (opencode's) is the agent's, written in place.
    throw new HostActionError(`${source.host}: a ${to} hand-off adds rows to ${to}'s database on the host, which only sessions on the host can write; install sessions there`);
  }
  if (to === 'codex' && request.branchName) {
    throw new HostActionError(`${source.host}: a Codex session's name goes into the host's session_index.jsonl, which is written only by sessions on the host; hand it off without a name, or install sessions there`);
  }
  const read = await ADAPTERS[session.agent].readSession(groupOf(session), mirror.context);
  // The session ran in the host's directory (claw's is where its files are: in the mirror, the host's path).
  const onTheHost = { ...read, cwd: read.cwd === null ? null : hostPath(mirror.dir, read.cwd) };
  const homes = handoffHomes(mirror.locations);
  const home = homes[to];
  if (home === undefined) throw new HostActionError(`${source.host}: no ${to} home on the host`);
  // Files are dated by the system clock: what the writer makes is at or after this (timestamps lag by a tick).
  const started = Date.now() - 50;
  const local = await writingIntoMirror(mirror, async () => {
    let local: ForkResult;
    try {
      local = await handOff(onTheHost, { atTurn: request.atTurn, to, ...(request.branchName ? { branchName: request.branchName } : {}), ...(request.now ? { now: request.now } : {}) }, homes);
    } catch (error) {
      if (error instanceof HandoffError || error instanceof ForkRangeError) throw new HostActionError(`${source.host}: ${error.message}`);
      throw error;
    }
    const written = await newFilesBeside(local.path, home, started);
    try {
      for (const path of [...written.filter((one) => one !== local.path), local.path]) await placeOnHost(source.host, settings, hostPath(mirror.dir, path), await readFile(path));
    } catch (error) {
      // Not on the host: not in its mirror either (what was placed already stays there, and comes back by the next sync).
      await Promise.all(written.map((path) => unlink(path).catch(() => undefined)));
      throw error;
    }
    return local;
  });
  const result = { ...local, path: hostPath(mirror.dir, local.path) };
  const handed: CatalogSession = { ...session, agent: to, id: local.id, path: local.path, paths: [local.path], root: home, cwd: onTheHost.cwd };
  return { result, resume: remoteResume(handed, source, settings, templates) };
}

/**
 * The files a hand-off writer made for the session at `path`: in its folder and each folder above it up to the
 * agent's home, those changed since `since` (the mirror's copies keep the host's times, all older).
 */
async function newFilesBeside(path: string, home: string, since: number): Promise<string[]> {
  const found: string[] = [];
  for (let dir = dirname(path); dir === home || dir.startsWith(`${home}/`); dir = dirname(dir)) {
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      if (!entry.isFile()) continue;
      const file = join(dir, entry.name);
      if ((await stat(file)).mtimeMs >= since) found.push(file);
    }
    if (dir === home) break;
  }
  if (!found.includes(path)) found.push(path);
  return found;
}

/** Write a new file on a host: a temp name in its folder, then a hard link to the final name (never replacing one), mode 0600. */
export async function placeOnHost(host: string, settings: SshSettings, path: string, bytes: Buffer): Promise<void> {
  const dir = posix.dirname(path);
  const temp = posix.join(dir, `.${posix.basename(path)}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`);
  const line = `umask 077 && mkdir -p ${remoteQuote(dir)} && cat > ${remoteQuote(temp)} && ln ${remoteQuote(temp)} ${remoteQuote(path)}; s=$?; rm -f ${remoteQuote(temp)}; exit $s`;
  const run = await runCommand(sshArgv(settings, host, line, 'batch'), { input: bytes });
  if (run.code !== 0) throw new HostActionError(`${host}: cannot write ${path}: ${failureReason(run, 'ssh failed')}`);
}

/** One session a host's content search found: its files as the host's rows name them, and where the text is. */
export interface HostGrepHit {
  readonly paths: readonly string[];
  /** A store's conversation (opencode's database holds many): its row's key, host included. */
  readonly key?: string;
  readonly matches: number;
  readonly snippet: Snippet | null;
}

/**
 * Search inside a host's transcripts: a mirror is searched here (its rows' paths are the mirror's), a host with
 * `sessions` runs its own `sessions grep --json` (rows stream back as they are found; their paths are the
 * host's, as its rows name them). Resolves to null, or why the host could not be searched.
 */
export async function grepOnHost(
  source: HostSource,
  settings: SshSettings,
  text: string,
  options: { readonly ignoreCase: boolean; readonly context: number; readonly signal: AbortSignal; readonly onHit: (hit: HostGrepHit) => void },
): Promise<string | null> {
  if (source.via === 'mirror' && source.mirror) {
    await grepLocations(source.mirror.locations, text, {
      ignoreCase: options.ignoreCase,
      count: true,
      context: options.context,
      signal: options.signal,
      onMatch: () => undefined,
      onFiles: (group, found) =>
        options.onHit({
          paths: group.paths,
          // One conversation of a store (a file of many): the paths alone would name all of them.
          ...(ADAPTERS[group.agent].store !== undefined && group.idHint !== null ? { key: sessionKey({ agent: group.agent, id: group.idHint, host: source.host }) } : {}),
          matches: found.matches,
          snippet: found.snippet,
        }),
    });
    return null;
  }
  if (source.via !== 'sessions') return null; // not read (yet): it has no rows to find
  // `--` first: a search text that starts with a dash is text, not an option.
  const line = remoteArgv(['sessions', 'grep', '--json', ...(options.ignoreCase ? ['-i'] : []), '--context', String(options.context), '--', text]);
  const run = await runCommand(sshArgv(settings, source.host, line, 'batch'), {
    signal: options.signal,
    onLine: (json) => {
      const value = parseJson(json);
      const row = rowFromListJson(value, source.host);
      if (row === null || !isRecord(value)) return;
      // The row's key names it exactly (a store's conversations share their file).
      options.onHit({ paths: row.paths, key: sessionKey(row), matches: typeof value.matches === 'number' ? value.matches : 0, snippet: snippetOf(value.snippet) });
    },
  });
  // grep exits 1 when nothing matched: not a failure of the host.
  if (options.signal.aborted || run.code === 0 || run.code === 1) return null;
  return `${source.host}: ${failureReason(run, 'sessions grep failed')}`;
}

/** A snippet another machine printed: three strings, made safe to show on one line, or none. */
function snippetOf(value: unknown): Snippet | null {
  if (!isRecord(value) || typeof value.before !== 'string' || typeof value.match !== 'string' || typeof value.after !== 'string') return null;
  return { before: safeLine(value.before), match: safeLine(value.match), after: safeLine(value.after) };
}

/** A host's transcript: read from the mirror, or `sessions show --format json` on the host. */
export async function readOnHost(session: CatalogSession, source: HostSource, settings: SshSettings, options: { readonly clip?: Parameters<(typeof ADAPTERS)['codex']['readSession']>[2] } = {}): Promise<Session> {
  if (source.via === 'mirror' && source.mirror?.context) {
    return ADAPTERS[session.agent].readSession(groupOf(session), source.mirror.context, options.clip);
  }
  assertSessionId(session);
  const run = await runCommand(sshArgv(settings, source.host, remoteArgv(['sessions', 'show', session.id, '--format', 'json']), 'batch'));
  if (run.code !== 0) throw new HostActionError(`${source.host}: ${failureReason(run, 'sessions show failed')}`);
  const value = parseJson(run.stdout);
  if (!isRecord(value) || !Array.isArray(value.messages)) throw new HostActionError(`${source.host}: sessions show printed no transcript`);
  return value as unknown as Session;
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
