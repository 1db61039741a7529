// Lineage: sessions sharing a root message (Claude Code forks keep their parent's message uuids) are one family, whose
// first member is the parent of the others. The scan links whole families (linkLineageForks), the watcher one changed
// row (lineageLink); merge-rows.ts links grep's matches (lineageLinker).
import type { CatalogSession } from './row.js';

/** Sessions that share a lineage (Claude forks keep their parent's message uuids): the family's root is the parent. */
export function linkLineageForks(sessions: CatalogSession[]): void {
  // Linear in the number of sessions: one pass groups the families, one finds their roots, one links the rest.
  const families = new Map<string, CatalogSession[]>();
  for (const session of sessions) {
    if (!session.lineage) continue;
    const key = `${session.agent}:${session.lineage}`;
    const family = families.get(key);
    if (family === undefined) families.set(key, [session]);
    else family.push(session);
  }
  const parents = new Map<string, CatalogSession>();
  for (const [key, family] of families) if (family.length > 1) parents.set(key, lineageParent(family));
  for (let i = 0; i < sessions.length; i++) {
    const session = sessions[i]!;
    if (!session.lineage || session.forkedFrom) continue;
    const parent = parents.get(`${session.agent}:${session.lineage}`);
    if (parent === undefined || parent === session) continue;
    sessions[i] = asLineageFork(session, parent);
  }
}

/**
 * One session linked into its lineage family (the other sessions sharing its root message), by the rule of
 * `linkLineageForks`: the family's parent (`lineageParent` over the family and the session) is its parent, unless
 * that is the session itself. The watcher's path: one changed row against the rows already listed.
 */
export function lineageLink(session: CatalogSession, family: readonly CatalogSession[]): CatalogSession {
  if (!session.lineage || session.forkedFrom) return session;
  const members = family.filter((other) => other.agent === session.agent && other.lineage === session.lineage && other.id !== session.id);
  if (members.length === 0) return session;
  const parent = lineageParent([session, ...members]);
  return parent === session ? session : asLineageFork(session, parent);
}

type LineageFields = Pick<CatalogSession, 'id' | 'createdAt' | 'mtimeMs' | 'forkedFrom'> & { readonly userTurns?: number };

/**
 * Which of two sessions of one lineage came first. A fork copies its parent's lines, and a fork written by
 * `sessions` keeps their timestamps, so both can start at the same time: then the parent is the one with more
 * turns (a fork keeps fewer), then the older file (written last the earliest), then the lower id, so the choice
 * never depends on the order.
 */
export function lineageOrder(a: LineageFields, b: LineageFields): number {
  if (a.createdAt !== b.createdAt) return a.createdAt < b.createdAt ? -1 : 1;
  if (a.userTurns !== undefined && b.userTurns !== undefined && a.userTurns !== b.userTurns) return b.userTurns - a.userTurns;
  if (a.mtimeMs !== b.mtimeMs) return a.mtimeMs - b.mtimeMs;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/**
 * The parent of a lineage family (sessions sharing a root message: Claude forks keep their parent's uuids): never
 * one that names its own parent (a parent is never made the fork of its child), else the first by lineageOrder.
 */
export function lineageParent<T extends LineageFields>(family: readonly T[]): T {
  const unlinked = family.filter((session) => session.forkedFrom === null);
  const pool = unlinked.length > 0 ? unlinked : family;
  return pool.reduce((a, b) => (lineageOrder(b, a) < 0 ? b : a));
}

/**
 * A session linked to its parent by their shared lineage, dated from when the fork was made (as Codex and claw
 * forks are, by the header they are written with). A fork whose first line is older than its parent's last holds
 * copies of the parent's lines with their times (forks written by `sessions`; Claude Code's own forks begin
 * with lines of their own): the file records no fork time, so its modification time stands for it.
 */
export function asLineageFork(session: CatalogSession, parent: CatalogSession): CatalogSession {
  const linked = { ...session, forkedFrom: parent.id, fork: session.fork ?? { id: parent.id } };
  if (!(session.createdAt < parent.updatedAt) || !(session.mtimeMs > Date.parse(session.updatedAt))) return linked;
  const made = new Date(session.mtimeMs).toISOString();
  return { ...linked, createdAt: made, updatedAt: made };
}
