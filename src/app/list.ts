// Listing and resolving: this machine's catalog (scanned with its cache) and each chosen host's rows, read at the
// same time; one session found by id, prefix, name or path, with the place it lives in.
import { resolve } from 'node:path';
import { CatalogCache } from '../catalog/cache.js';
import { findInCache } from '../catalog/cached-find.js';
import type { Locations } from '../catalog/locations.js';
import { resolveSession } from '../catalog/resolve.js';
import { scanCatalog, type CatalogSession, type ScanContext, type ScanOptions, type ScanProgress } from '../catalog/scan.js';
import { describeError } from '../core/errors.js';
import type { Problem } from '../core/formats/types.js';
import type { Agent } from '../core/model.js';
import type { HostContext, HostSource } from '../remote/host-source.js';
import { loadHosts, sourceOf } from '../remote/hosts.js';
import { placeOfHost, type Place } from './place.js';

/** What a command reads: this machine (or not), the hosts it names, and how. */
export interface ListSetup {
  readonly locations: Locations;
  /** Whether this machine's sessions are read (`--host` can leave it out). */
  readonly local: boolean;
  readonly hosts: readonly string[];
  readonly hostContext: HostContext;
  /** The catalog cache's file; null: no cache (`--no-cache`). */
  readonly cachePath: string | null;
  /** The directory a path given as an id is relative to. */
  readonly cwd: string;
  /** Indexing progress, and the end of indexing. */
  readonly progress?: { update(progress: ScanProgress): void; done(): void };
  /** Something worth saying that does not stop the command (a host unreachable, a cache not written). */
  readonly onWarning?: (message: string) => void;
}

export interface Listed {
  /** Every row, newest first. */
  readonly sessions: readonly CatalogSession[];
  /** Sub-agents: not rows, but found by id. */
  readonly subagentSessions: readonly CatalogSession[];
  readonly problems: readonly Problem[];
  /** This machine's scan context; null when it was not read. */
  readonly context: ScanContext | null;
  readonly sources: readonly HostSource[];
  readonly cache: CatalogCache | undefined;
}

/** Scan this machine with the persisted cache (when enabled), saving what was learnt. */
export async function scanHere(setup: Pick<ListSetup, 'locations' | 'cachePath' | 'progress' | 'onWarning'>, scanOptions: Omit<ScanOptions, 'cache' | 'onProgress'> = {}) {
  const cache = setup.cachePath === null ? undefined : await CatalogCache.load(setup.cachePath);
  const progress = setup.progress;
  const result = await scanCatalog(setup.locations, { ...scanOptions, ...(cache ? { cache } : {}), ...(progress ? { onProgress: (p: ScanProgress) => progress.update(p) } : {}) }).finally(() => progress?.done());
  await cache?.save().catch((error: unknown) => setup.onWarning?.(`cannot write the cache: ${describeError(error)}`));
  return { ...result, cache };
}

/** This machine's sessions (unless left out) and each chosen host's, read at the same time. */
export async function listSessions(setup: ListSetup, scanOptions: Omit<ScanOptions, 'cache' | 'onProgress'> = {}): Promise<Listed> {
  const [local, sources] = await Promise.all([setup.local ? scanHere(setup, scanOptions) : null, loadHosts(setup.hosts, setup.hostContext)]);
  for (const source of sources) {
    if (source.status.kind !== 'unreachable') continue;
    const stale = source.stale && source.sessions().length > 0 ? `; listing its ${source.sessions().length} mirrored sessions as of ${source.syncedAt || 'an unknown time'} (stale: show and grep read them)` : '';
    setup.onWarning?.(`host ${source.host} unreachable: ${source.status.reason}${stale}`);
  }
  const agents = scanOptions.agents;
  const remote = sources.flatMap((source) => source.sessions()).filter((s) => agents === undefined || agents.includes(s.agent));
  const sessions = [...(local?.sessions ?? []), ...remote].sort(newestFirst);
  const subagentSessions = [...(local?.subagentSessions ?? []), ...sources.flatMap((source) => source.subagentSessions())];
  const problems = [...(local?.problems ?? []), ...sources.flatMap((source) => source.problems)];
  return { sessions, subagentSessions, problems, context: local?.context ?? null, sources, cache: local?.cache };
}

export interface Resolved {
  readonly session: CatalogSession;
  /** Where it lives (chosen once: this machine, the host's own `sessions`, or its mirror). */
  readonly place: Place;
  /** This machine's scan context (null when this machine was not read). */
  readonly context: ScanContext | null;
  /** What the scan met (a caller reports those about the session's own files). */
  readonly problems: readonly Problem[];
  readonly cache: CatalogCache | undefined;
}

/** No session, or more than one, matches the query: the message says which. */
export class NotResolvedError extends Error {
  constructor(
    message: string,
    /** What the scan met, worth reporting with the error. */
    readonly problems: readonly Problem[],
  ) {
    super(message);
  }
}

/**
 * One session by full id, unique id prefix, name or path, among this machine's and the hosts' (a sub-agent is not a
 * row of its own, but `show`/`fork` of its id find it). A full id of this machine's catalog is found in the cache
 * without a scan when nothing that decides its row changed since (catalog/cached-find.ts).
 */
export async function resolveOne(setup: ListSetup, query: string, options: { readonly cached?: boolean; readonly synchronous?: boolean } = {}): Promise<Resolved> {
  if (options.cached && setup.cachePath !== null && setup.local && setup.hosts.length === 0) {
    const found = await findInCache(setup.cachePath, setup.locations, query, { synchronous: options.synchronous === true });
    if (found !== null) return { session: found.session, place: { kind: 'local' }, context: found.context, problems: [], cache: found.cache };
  }
  const { sessions, subagentSessions, context, problems, sources, cache } = await listSessions(setup);
  const found = resolveSession([...sessions, ...subagentSessions], query, setup.cwd);
  if (found.kind !== 'found') throw new NotResolvedError(found.message, problems);
  const source = sourceOf(found.session, sources);
  const place: Place | null = source === null ? { kind: 'local' } : placeOfHost(source, setup.hostContext.settings);
  if (place === null) throw new NotResolvedError(`${found.session.host ?? ''} is not being read`, problems);
  return { session: found.session, place, context, problems, cache };
}

/**
 * The newest session of this machine that ran in `dir` (`resume --last`, like `codex resume --last` and
 * `claude --continue`), of `agents` when given.
 */
export async function resolveLast(setup: ListSetup, dir: string, agents?: readonly Agent[]): Promise<Resolved> {
  const { sessions, context, problems, cache } = await listSessions({ ...setup, local: true, hosts: [] }, agents ? { agents } : {});
  // Rows are newest first.
  const session = sessions.find((row) => row.host === undefined && row.cwd !== null && resolve(row.cwd) === dir);
  if (session === undefined) throw new NotResolvedError(`no session ran in ${dir}${agents ? ` (of ${agents.join(', ')})` : ''}`, problems);
  return { session, place: { kind: 'local' }, context, problems, cache };
}

function newestFirst(a: CatalogSession, b: CatalogSession): number {
  return a.updatedAt < b.updatedAt ? 1 : a.updatedAt > b.updatedAt ? -1 : 0;
}
