// Fork and hand-off: a new native session holding a session's turns before one, of the same agent (a fork) or of
// another (a hand-off), written where the session lives: here, by a host's own `sessions`, or into a host's mirror
// and placed on the host.
import { lstat, realpath, unlink } from 'node:fs/promises';
import { dirname, sep } from 'node:path';
import { handoffHomes } from '../catalog/handoff-homes.js';
import { groupOf, toRow, type CatalogSession } from '../catalog/scan.js';
import { asLineageFork } from '../catalog/lineage.js';
import { ForkRangeError, NoCodeError, UnsupportedForkError } from '../core/errors.js';
import { ADAPTERS } from '../core/formats/index.js';
import type { ForkResult } from '../core/formats/types.js';
import { handOff, HandoffError } from '../core/handoff/index.js';
import { readRegularFile } from '../core/io/regular.js';
import { countUserTurns, type Agent, type Session } from '../core/model.js';
import { redactMessage, redactSecrets } from '../core/redact.js';
import { assertSessionId } from '../core/session-id.js';
import { writingIntoMirror } from '../remote/host-source.js';
import { hostPath } from '../remote/mirror-layout.js';
import { forkWithHostSessions, HostActionError } from '../remote/host-sessions.js';
import { newFilesBeside, placeOnHost } from '../remote/mirror-place.js';
import { defaultWorktreeDir, makeWorktree, planWorktree, removeWorktree, type CodeWorktree } from './code-worktree.js';
import { staleRefusal, type Here, type Place } from './place.js';
import { planResume, type ResumePlan } from './resume.js';

export interface ForkRequest {
  /**
   * 1-based user turn to cut before: the new session keeps turns 1..atTurn-1 and what answered them; `end` (or the
   * number of turns + 1) keeps every turn, the whole conversation.
   */
  readonly atTurn: number | 'end';
  /** A name for the new session, in the agent's own name field. */
  readonly branchName?: string;
  /** Another agent to continue in (a hand-off); absent or the session's own agent: a fork. */
  readonly to?: Agent;
  /** The clock the new session is dated by (Codex files it under the day's folder). */
  readonly now?: Date;
  /** A hand-off's prompts, answers and tool output with keys and tokens masked (core/redact.ts). */
  readonly redact?: boolean;
  /**
   * The files as they were when turn `atTurn` was typed, in a new git worktree (at `dir`, else beside the repository)
   * on a branch `sessions/<fork id>`, where the fork runs.
   */
  readonly withCode?: { readonly dir?: string };
  /** A session file holding a tree of branches (pi's `/tree`): fork the branch ending at this entry, not the active one. */
  readonly leaf?: string;
}

export interface Forked {
  /** The new session; its paths are where it lives (a host's own paths for a host's session). */
  readonly result: ForkResult;
  /** The host it was written on, or null: this machine. */
  readonly host: string | null;
  /** The new session as a row, as the list will show it (a host's next read brings the row it indexed). */
  readonly row: CatalogSession;
  /** How to resume it. */
  readonly resume: ResumePlan;
  /** Something the user should hear though the fork was written (the link was cut after the host wrote it). */
  readonly warning?: string;
  /** With the code: the worktree the fork runs in. */
  readonly worktree?: CodeWorktree;
}

/**
 * Fork `session` before `request.atTurn`, or hand it off to `request.to`, where the session lives. The original is
 * never touched. Throws ForkRangeError (a turn out of range), HandoffError (a session another agent cannot take) and
 * HostActionError (a host that could not do it).
 */
export async function forkSession(session: CatalogSession, place: Place, here: Here, request: ForkRequest): Promise<Forked> {
  assertSessionId(session);
  if (session.stale !== undefined) throw new HostActionError(staleRefusal(session));
  const to = request.to !== undefined && request.to !== session.agent ? request.to : null;
  const branchName = request.branchName ? request.branchName : undefined;
  // The end is the turn after the row's last (rows are exact: the adapter counts the same turns).
  const atTurn = request.atTurn === 'end' ? session.userTurns + 1 : request.atTurn;
  // A fork copies the agent's own lines (signed reasoning included) byte for byte: only a hand-off writes them anew.
  if (request.redact && to === null) throw new HandoffError('--redact masks what a hand-off writes: give --to another agent (a fork copies the session as it is)');
  if (request.redact && place.kind === 'host') throw new HostActionError(`${place.host}: a redacted hand-off is written by sessions here: it reads the host's files in its mirror (set the host to mirror mode), not through the host's own sessions`);
  const leaf = request.leaf === undefined ? {} : { leaf: { id: checkLeaf(session, request, to, place), whole: request.atTurn === 'end' } };
  const wanted = { atTurn, ...(branchName ? { branchName } : {}), ...(request.now ? { now: request.now } : {}), ...(request.redact ? { redact: true } : {}), ...leaf };
  if (request.withCode !== undefined) {
    if (place.kind !== 'local') throw new HostActionError(`${place.host}: --with-code makes a worktree of the repository the session ran in, which is on ${place.host}: run sessions fork --with-code there`);
    if (request.atTurn === 'end') throw new NoCodeError(`--with-code forks before a turn, with the files as they were when it was typed: give --at 2..${session.userTurns}`);
    return throughSymlinks(await forkWithCode(session, here, wanted, request.withCode.dir, to));
  }
  switch (place.kind) {
    case 'local':
      return throughSymlinks(await (to === null ? forkHere(session, here, wanted) : handOffHere(session, here, { ...wanted, to, end: request.atTurn === 'end' })));
    case 'host': {
      checkHostTurn(atTurn, session.userTurns);
      // The host's own end: its file may hold turns its row here does not show yet.
      const { result, resume, cut } = await forkWithHostSessions(place.host, place.settings, session, { atTurn: request.atTurn === 'end' ? 'end' : atTurn, ...(branchName ? { branchName } : {}), to });
      const warning = cut === undefined ? {} : { warning: `the link to ${place.host} was cut (${cut}) after sessions there wrote the new session; its answer was read again` };
      return { result, host: place.host, row: hostRow(session, result, wanted, result.path), resume: { kind: 'remote', host: place.host, launch: resume }, ...warning };
    }
    case 'mirror':
      checkHostTurn(atTurn, session.userTurns);
      return to === null ? forkIntoMirror(session, place, here, wanted) : handOffIntoMirror(session, place, here, { ...wanted, to, end: request.atTurn === 'end' });
  }
}

/**
 * A session written into a folder that is a symlink (a Claude Code or Qwen Code project folder linked elsewhere) lands
 * in the link's target: said, with the real path, beside the path the agent will find it by.
 */
async function throughSymlinks(forked: Forked): Promise<Forked> {
  const { root } = forked.row;
  const { path } = forked.result;
  if (!root || !path.startsWith(root + sep)) return forked;
  for (let folder = dirname(path); folder.startsWith(root + sep); folder = dirname(folder)) {
    if (!(await lstat(folder).then((stats) => stats.isSymbolicLink(), () => false))) continue;
    const real = await realpath(path).catch(() => null);
    return { ...forked, warning: `${folder} is a symlink: the new session was written through it${real === null ? '' : `, to ${real}`}` };
  }
  return forked;
}

type Wanted = { readonly atTurn: number; readonly branchName?: string; readonly now?: Date; readonly redact?: boolean; readonly id?: string; readonly cwd?: string; readonly leaf?: { readonly id: string; readonly whole: boolean } };

/** `leaf` given: a fork of that branch, in the session's own agent, where the agent keeps branches in one file. */
function checkLeaf(session: CatalogSession, request: ForkRequest, to: Agent | null, place: Place): string {
  const adapter = ADAPTERS[session.agent];
  if (!adapter.forksAnyBranch) throw new UnsupportedForkError(`${adapter.label} keeps one branch per session file: there is no other branch to fork (leave out --leaf)`);
  if (to !== null) throw new HandoffError('--leaf forks another branch in its own agent; a hand-off carries the branch the agent resumes: leave out --to or --leaf');
  if (request.withCode !== undefined) throw new NoCodeError('--with-code restores the files of the branch the agent resumes: leave out --leaf');
  if (place.kind === 'host') throw new HostActionError(`${place.host}: fork another branch with sessions on the host (sessions fork --leaf there)`);
  return request.leaf!;
}

/**
 * A fork (or with `to` a hand-off) with the files as they were when its turn was typed: what the agent recorded is
 * checked against the repository, the worktree made (named after the new session's id, made first), then the session
 * written to run there; one that fails takes the worktree back.
 */
async function forkWithCode(session: CatalogSession, here: Here, wanted: Wanted, dir: string | undefined, to: Agent | null): Promise<Forked> {
  const adapter = ADAPTERS[session.agent];
  if (adapter.checkpoints === undefined) throw new NoCodeError(`${adapter.label} records no files per turn: --with-code cannot give them as they were`);
  const writer = to === null ? undefined : ADAPTERS[to].handoff;
  if (to !== null && writer === undefined) throw new HandoffError(`a conversation cannot be handed off to ${to}`);
  const context = await here.context();
  const code = await adapter.checkpoints.codeAt(groupOf(session), wanted.atTurn, context);
  const plan = await planWorktree(code);
  const now = wanted.now ?? new Date();
  const id = writer === undefined ? adapter.checkpoints.newId(now) : writer.newId(now);
  const worktree = await makeWorktree(plan, id, dir ?? defaultWorktreeDir(plan, id));
  try {
    const made = { ...wanted, now, id, cwd: worktree.cwd };
    return { ...(await (to === null ? forkHere(session, here, made) : handOffHere(session, here, { ...made, to, end: false }))), worktree };
  } catch (error) {
    await removeWorktree(worktree, plan.repo);
    throw error;
  }
}

/** What a hand-off writes from: the transcript, redacted when asked. */
function handedOff(session: Session, wanted: Wanted): Session {
  return wanted.redact ? { ...session, title: redactSecrets(session.title), messages: session.messages.map(redactMessage) } : session;
}

/** A turn no fork of the host's row can be made before: said here, before ssh (the host checks the exact range). */
function checkHostTurn(atTurn: number, userTurns: number): void {
  if (atTurn < 1 || atTurn > userTurns + 1) throw new ForkRangeError(atTurn, 1, userTurns + 1);
}

/** A hand-off of the whole conversation cuts after the transcript's last turn (what the writer reads), not the row's. */
function handOffTurn(session: Session, wanted: Wanted & { readonly end: boolean }): number {
  return wanted.end ? countUserTurns(session.messages) + 1 : wanted.atTurn;
}

async function forkHere(session: CatalogSession, here: Here, wanted: Wanted): Promise<Forked> {
  const context = await here.context();
  const result = await ADAPTERS[session.agent].fork(groupOf(session), wanted, context);
  const group = { agent: session.agent, paths: [result.path], idHint: result.id, root: session.root, archived: false };
  context.register(group, result.id);
  const summary = await toRow(group, context, here.cache?.());
  // Linked and dated as the scan will link and date it after a restart (a fork is as new as when it was made).
  const row: CatalogSession = summary
    ? summary.forkedFrom
      ? { ...summary, root: session.root, fork: summary.fork ?? { id: session.id, atTurn: wanted.atTurn } }
      : asLineageFork({ ...summary, root: session.root, fork: { id: session.id, atTurn: wanted.atTurn } }, session)
    : { ...hostRow(session, result, wanted, result.path), userTurnsExact: true };
  return { result, host: null, row, resume: planResume({ ...session, id: result.id, path: result.path, paths: [result.path], ...(wanted.cwd === undefined ? {} : { cwd: wanted.cwd }) }, { kind: 'local' }, here) };
}

/** A hand-off: the whole transcript (never a clipped one) written as a new session of `wanted.to`. */
async function handOffHere(session: CatalogSession, here: Here, wanted: Wanted & { readonly to: Agent; readonly end: boolean }): Promise<Forked> {
  const context = await here.context();
  const read = await ADAPTERS[session.agent].readSession(groupOf(session), context);
  // With the code: the new session runs in the worktree.
  const full = handedOff(wanted.cwd === undefined ? read : { ...read, cwd: wanted.cwd }, wanted);
  const homes = handoffHomes(here.locations);
  const result = await handOff(full, { ...wanted, atTurn: handOffTurn(full, wanted) }, homes);
  // Agents without a home keep sessions in the workspace (claw): the session's cwd is the new one's root.
  const root = homes[wanted.to] ?? session.cwd ?? '';
  const group = { agent: wanted.to, paths: [result.path], idHint: result.id, root, archived: false };
  context.register(group, result.id);
  const summary = await toRow(group, context, here.cache?.());
  if (!summary) throw new Error(`${result.path}: the new ${wanted.to} session could not be read back`);
  const row: CatalogSession = { ...summary, root };
  const resume = planResume({ ...row, cwd: wanted.cwd ?? session.cwd, ...(homes[wanted.to] === undefined ? { root: '' } : {}) }, { kind: 'local' }, here);
  return { result, host: null, row, resume };
}

/** The new session's row as its host will list it, made from what the fork said (a host's next read brings the real one). */
function hostRow(session: CatalogSession, result: ForkResult, wanted: Wanted, path: string): CatalogSession {
  const now = (wanted.now ?? new Date()).toISOString();
  return {
    ...session,
    agent: result.agent,
    id: result.id,
    path,
    paths: [path],
    userTurns: result.keptUserTurns,
    createdAt: now,
    updatedAt: now,
    forkedFrom: session.id,
    fork: { id: session.id, atTurn: wanted.atTurn, ...(wanted.branchName ? { branchName: wanted.branchName } : {}) },
    archived: false,
  };
}

/** The refusal for a name that would go into a file every session of the agent shares (Codex's session index). */
function refuseSharedName(place: Place & { readonly kind: 'mirror' }, agent: Agent, wanted: Wanted, what: string): void {
  const names = ADAPTERS[agent].names;
  if (names === undefined || !wanted.branchName) return;
  throw new HostActionError(
    `${place.host}: a ${ADAPTERS[agent].label} session's name goes into the host's ${names.file}, which is written only by sessions on the host; ${what} without a name, or install sessions there`,
  );
}

/**
 * A fork of a mirrored host's session: the agent's own fork written into the mirror, then placed on the host under a
 * temp name and linked to its final name (a link never replaces a file that is there), the temp name removed.
 */
async function forkIntoMirror(session: CatalogSession, place: Place & { readonly kind: 'mirror' }, here: Here, wanted: Wanted): Promise<Forked> {
  const { mirror } = place;
  const context = mirror.context;
  if (context === null) throw new HostActionError(`${place.host}: the mirror is not indexed yet`);
  refuseSharedName(place, session.agent, wanted, 'fork');
  const { local, target } = await writingIntoMirror(mirror, async () => {
    const local = await ADAPTERS[session.agent].fork(groupOf(session), wanted, context);
    const target = hostPath(mirror.dir, local.path);
    try {
      await placeOnHost(place.host, place.settings, target, await readRegularFile(local.path));
    } catch (error) {
      await unlink(local.path).catch(() => undefined); // not on the host: not in its mirror either
      throw error;
    }
    return { local, target };
  });
  const forked: CatalogSession = { ...session, id: local.id, path: local.path, paths: [local.path] };
  return { result: { ...local, path: target }, host: place.host, row: hostRow(session, local, wanted, local.path), resume: planResume(forked, place, here) };
}

/**
 * A hand-off of a mirrored host's session: the transcript is read from the mirror, the other agent's session is
 * written into the mirror (in that agent's home on the host, as the mirror holds it), and each file the writer
 * made is placed on the host, the session file last (a host watching sees it whole). Files the writer adds to
 * existing ones (a shared names file, a database) or writes outside the agent's homes (a workspace) cannot be placed
 * this way: those need `sessions` on the host.
 */
async function handOffIntoMirror(session: CatalogSession, place: Place & { readonly kind: 'mirror' }, here: Here, wanted: Wanted & { readonly to: Agent; readonly end: boolean }): Promise<Forked> {
  const { mirror } = place;
  const { to } = wanted;
  if (mirror.context === null) throw new HostActionError(`${place.host}: the mirror is not indexed yet`);
  if (!ADAPTERS[to].locations.homeFolder) {
    throw new HostActionError(`${place.host}: a ${to} hand-off is written in the session's directory on the host, which only sessions on the host writes; install sessions there, or hand it off on ${place.host}`);
  }
  if (ADAPTERS[to].store !== undefined) {
    // A file is placed on the host beside the others; a database (opencode's) is the agent's, written in place.
    throw new HostActionError(`${place.host}: a ${to} hand-off adds rows to ${to}'s database on the host, which only sessions on the host can write; install sessions there`);
  }
  refuseSharedName(place, to, wanted, 'hand it off');
  const read = await ADAPTERS[session.agent].readSession(groupOf(session), mirror.context);
  // The session ran in the host's directory (claw's is where its files are: in the mirror, the host's path).
  const onTheHost = handedOff({ ...read, cwd: read.cwd === null ? null : hostPath(mirror.dir, read.cwd) }, wanted);
  const homes = handoffHomes(mirror.locations);
  const home = homes[to];
  if (home === undefined) throw new HostActionError(`${place.host}: no ${to} home on the host`);
  // Files are dated by the system clock: what the writer makes is at or after this (timestamps lag by a tick).
  const started = Date.now() - 50;
  const local = await writingIntoMirror(mirror, async () => {
    let local: ForkResult;
    try {
      local = await handOff(onTheHost, { ...wanted, atTurn: handOffTurn(onTheHost, wanted) }, homes);
    } catch (error) {
      if (error instanceof HandoffError || error instanceof ForkRangeError) throw new HostActionError(`${place.host}: ${error.message}`);
      throw error;
    }
    const written = await newFilesBeside(local.path, home, started);
    try {
      for (const path of [...written.filter((one) => one !== local.path), local.path]) await placeOnHost(place.host, place.settings, hostPath(mirror.dir, path), await readRegularFile(path));
    } catch (error) {
      // Not on the host: not in its mirror either (what was placed already stays there, and comes back by the next sync).
      await Promise.all(written.map((path) => unlink(path).catch(() => undefined)));
      throw error;
    }
    return local;
  });
  const handed: CatalogSession = { ...session, agent: to, id: local.id, path: local.path, paths: [local.path], root: home, cwd: onTheHost.cwd };
  return { result: { ...local, path: hostPath(mirror.dir, local.path) }, host: place.host, row: hostRow(session, local, wanted, local.path), resume: planResume(handed, place, here) };
}
