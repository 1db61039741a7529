// Per-group rows → the listed rows: one row per conversation (files sharing an id merged), forks linked to their
// lineage, sub-agents nested under their parent, newest first. Scan, watch, grep and the cache all end here.
import { sessionKey, type SessionSummary } from '../core/model.js';
import { asLineageFork, lineageOrder, linkLineageForks } from './lineage.js';
import type { CatalogSession } from './row.js';

/** Per-group rows → the listed conversations, newest first (also used on a cache's unvalidated contents). */
export function conversations(summaries: readonly CatalogSession[]): CatalogSession[] {
  return mergeRows(summaries).rows;
}

/**
 * Per-group rows → the listed rows (newest first) and the sub-agent sessions nested under a row instead: one row per
 * conversation (same id), forks linked to their lineage (`lineageLink`), sub-agents under their parent. Scan, watch
 * and grep all end here.
 */
export function mergeRows(summaries: readonly CatalogSession[]): { rows: CatalogSession[]; nested: CatalogSession[] } {
  const merged = mergeById(summaries);
  linkLineageForks(merged);
  const { rows, nested } = nestSubagents(merged);
  return { rows: rows.sort(newestFirst), nested };
}

/**
 * Sub-agent sessions (a Codex review, a spawned thread) belong to their parent, as Claude's subagents do: the
 * parent lists their ids in `subagents` and they are not rows. The parent is the one the sub-agent's file
 * names; a review names none (Codex links it only in memory), so it is the session of the same agent and cwd
 * that was running when the review started (created before it, updated after), the latest such. A sub-agent
 * whose parent is not found stays a row: a session is never hidden for want of a parent.
 */
export function nestSubagents(sessions: readonly CatalogSession[]): { rows: CatalogSession[]; nested: CatalogSession[] } {
  const byKey = new Map(sessions.map((s) => [sessionKey(s), s]));
  // Candidate parents by agent and cwd, built only when a sub-agent names no parent (a home of 100k rows).
  let byCwd: Map<string, CatalogSession[]> | null = null;
  const sameCwd = (child: CatalogSession): readonly CatalogSession[] => {
    if (byCwd === null) {
      byCwd = new Map();
      for (const s of sessions) {
        if (s.subagent || s.cwd === null) continue;
        const key = `${s.agent}\0${s.cwd}`;
        const list = byCwd.get(key);
        if (list) list.push(s);
        else byCwd.set(key, [s]);
      }
    }
    return byCwd.get(`${child.agent}\0${child.cwd}`) ?? [];
  };
  const parentOf = new Map<CatalogSession, CatalogSession>();
  for (const session of sessions) {
    if (!session.subagent) continue;
    const parent = subagentParent(session, sameCwd, byKey);
    if (parent) parentOf.set(session, parent);
  }
  // Named parents that loop (damaged or hand-edited files) would hide every session of the loop: they stay rows.
  const inLoop = new Set<CatalogSession>();
  for (const start of parentOf.keys()) {
    const path = new Set<CatalogSession>();
    let at: CatalogSession | undefined = start;
    while (at !== undefined && !path.has(at) && !inLoop.has(at)) {
      path.add(at);
      at = parentOf.get(at);
    }
    if (at !== undefined && path.has(at)) for (let loop: CatalogSession | undefined = at; loop !== undefined && !inLoop.has(loop); loop = parentOf.get(loop)) inLoop.add(loop);
  }
  const children = new Map<CatalogSession, CatalogSession[]>();
  const nested = new Map<CatalogSession, string>();
  for (const [session, parent] of parentOf) {
    if (inLoop.has(session)) continue;
    nested.set(session, parent.id);
    const siblings = children.get(parent);
    if (siblings === undefined) children.set(parent, [session]);
    else siblings.push(session);
  }
  const rows: CatalogSession[] = [];
  const nestedOut: CatalogSession[] = [];
  for (const session of sessions) {
    const own = children.get(session);
    let listed = own ? { ...session, subagents: [...own].sort((a, b) => (a.createdAt < b.createdAt ? -1 : 1)).map((s) => s.id) } : session;
    const parentId = nested.get(session);
    if (parentId === undefined) rows.push(listed);
    else {
      // The parent found (by cwd and time when the file names none) is what `show` of the sub-agent says.
      if (listed.subagent && listed.subagent.parentId !== parentId) listed = { ...listed, subagent: { ...listed.subagent, parentId } };
      nestedOut.push(listed);
    }
  }
  return { rows, nested: nestedOut };
}

function subagentParent(
  child: CatalogSession,
  sameCwd: (child: CatalogSession) => readonly CatalogSession[],
  byKey: ReadonlyMap<string, CatalogSession>,
): CatalogSession | undefined {
  const named = child.subagent?.parentId;
  if (named) {
    const parent = byKey.get(sessionKey({ agent: child.agent, id: named }));
    return parent !== child ? parent : undefined;
  }
  if (child.cwd === null) return undefined;
  let best: CatalogSession | undefined;
  for (const other of sameCwd(child)) {
    if (other.createdAt > child.createdAt || other.updatedAt < child.createdAt) continue;
    if (!best || other.createdAt > best.createdAt) best = other;
  }
  return best;
}

/**
 * The order of a conversation's files: by when each was updated; between copies updated at the same time (a
 * workspace copied whole, .claw/ and all), by when it was written, then by path. Never the order they were found in,
 * which for roots found through cwds depends on which file's head was read first.
 */
function byUpdate(a: CatalogSession, b: CatalogSession): number {
  if (a.updatedAt !== b.updatedAt) return a.updatedAt < b.updatedAt ? -1 : 1;
  if (a.mtimeMs !== b.mtimeMs) return a.mtimeMs - b.mtimeMs;
  return a.path < b.path ? -1 : a.path > b.path ? 1 : 0;
}

/**
 * One row per conversation: files that share an id (resumed copies, replayed forks) are one session, merged in
 * `byUpdate` order (the latest gives the row its path and fields), whatever order they were found in.
 */
export function mergeById(summaries: readonly CatalogSession[]): CatalogSession[] {
  const byKey = new Map<string, CatalogSession | CatalogSession[]>();
  for (const summary of summaries) {
    const key = sessionKey(summary);
    const seen = byKey.get(key);
    if (seen === undefined) byKey.set(key, summary);
    else if (Array.isArray(seen)) seen.push(summary);
    else byKey.set(key, [seen, summary]);
  }
  const out: CatalogSession[] = [];
  for (const entry of byKey.values()) {
    if (!Array.isArray(entry)) {
      out.push(entry);
      continue;
    }
    const [first, ...rest] = [...entry].sort(byUpdate);
    let merged: CatalogSession = first!;
    // The merged row's paths as a set: a conversation of hundreds of files is merged in linear time.
    const paths = new Set(merged.paths);
    const mergedPaths = [...merged.paths];
    for (const newer of rest) {
      if (newer.paths.some((path) => paths.has(path))) continue; // the same files found twice
      for (const path of newer.paths) {
        paths.add(path);
        mergedPaths.push(path);
      }
      merged = {
          ...newer,
          paths: mergedPaths,
          createdAt: merged.createdAt < newer.createdAt ? merged.createdAt : newer.createdAt,
          size: merged.size + newer.size,
          mtimeMs: Math.max(merged.mtimeMs, newer.mtimeMs),
          archived: merged.archived && newer.archived,
        };
    }
    out.push(merged);
  }
  return out;
}

/**
 * Links rows of one lineage family as `conversations([row, ...family without row's id])` would (same rows, the same
 * parent by `lineageParent`), in time linear in the family however many of its rows are linked: the family is merged
 * and its two first members by `lineageOrder` are found once; a row is compared with those only (the first that is
 * not the row itself is the least of the others). grep links each matching row of a family this way.
 */
export function lineageLinker(family: readonly CatalogSession[]): (row: CatalogSession) => CatalogSession {
  // A family of one conversation (most are: every one of 37k at 100k sessions) links a row of it to nothing: no merge,
  // map or closures made for it, unless a row of another id asks.
  const [first] = family;
  if (first !== undefined && family.every((s) => s.id === first.id)) {
    let others: ((row: CatalogSession) => CatalogSession) | undefined;
    return (row) => (row.id === first.id ? row : (others ??= linkerOf(family))(row));
  }
  return linkerOf(family);
}

/** `lineageLinker`'s linker for any family. */
function linkerOf(family: readonly CatalogSession[]): (row: CatalogSession) => CatalogSession {
  const merged = mergeById(family);
  const exact = (row: CatalogSession): CatalogSession => {
    const others = family.filter((s) => s.id !== row.id);
    return others.length === 0 ? row : (conversations([row, ...others]).find((s) => s.id === row.id) ?? row);
  };
  // Sub-agents are nested under a parent by `conversations` too: such a family (none is known) takes the whole path.
  if (merged.some((s) => s.subagent)) return exact;
  /** Per agent and lineage: the two least members by lineageOrder, among those naming no parent and among all. */
  const firsts = new Map<string, { unlinked: CatalogSession[]; all: CatalogSession[] }>();
  const keep = (two: CatalogSession[], s: CatalogSession): void => {
    if (two.length < 2) two.push(s);
    else if (lineageOrder(s, two[1]!) < 0) two[1] = s;
    else return;
    if (two.length === 2 && lineageOrder(two[1]!, two[0]!) < 0) two.reverse();
  };
  for (const s of merged) {
    if (!s.lineage) continue;
    const key = `${s.agent}:${s.lineage}`;
    let entry = firsts.get(key);
    if (entry === undefined) firsts.set(key, (entry = { unlinked: [], all: [] }));
    keep(entry.all, s);
    if (s.forkedFrom === null) keep(entry.unlinked, s);
  }
  return (row) => {
    if (row.subagent) return exact(row);
    if (!row.lineage || row.forkedFrom) return row;
    const entry = firsts.get(`${row.agent}:${row.lineage}`);
    const other = (two: readonly CatalogSession[] | undefined): CatalogSession | undefined => two?.find((s) => s.id !== row.id);
    // The row names no parent, so the pool is the members naming none, the row among them.
    if (other(entry?.all) === undefined) return row;
    const best = other(entry?.unlinked);
    return best === undefined || lineageOrder(row, best) < 0 ? row : asLineageFork(row, best);
  };
}

export function newestFirst(a: Pick<SessionSummary, 'updatedAt' | 'id'>, b: Pick<SessionSummary, 'updatedAt' | 'id'>): number {
  return a.updatedAt < b.updatedAt ? 1 : a.updatedAt > b.updatedAt ? -1 : a.id < b.id ? -1 : 1;
}
