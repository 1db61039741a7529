// Delete and restore: a session's files and folders (or a store's rows, in one transaction) moved to the trash
// (app/trash.ts), and put back byte for byte. A session an agent has open is not deleted.
import { unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { groupOf, type CatalogSession } from '../catalog/scan.js';
import { ADAPTERS } from '../core/formats/index.js';
import { createFileAtomic } from '../core/io/atomic.js';
import { readRegularFile } from '../core/io/regular.js';
import { assertSessionId } from '../core/session-id.js';
import { HostActionError } from '../remote/host-sessions.js';
import { describeInUse, sessionInUse } from './in-use.js';
import type { Place } from './place.js';
import { exists, keptRowsDir, moveToTrash, newTrashKey, recordEntry, restoreItem, trashEntries, TrashError, type Trash, type TrashedItem, type TrashEntry } from './trash.js';

export { TrashError, type Trash, type TrashEntry } from './trash.js';

export interface RemoveOptions {
  readonly trash: Trash;
  /** Delete even when a process holds the session's files open. */
  readonly force?: boolean;
  readonly now?: Date;
  /** The process table the open-file check reads (`/proc`; null: none, as on macOS). */
  readonly procDir?: string | null;
}

export interface Removed {
  readonly entry: TrashEntry;
  /** Said though the session was deleted (it was written very recently). */
  readonly warning?: string;
}

/**
 * Move `session` to the trash: its files and folders whole (the adapter's `sessionPaths`: sub-agents and sidecars
 * with it), or its rows taken out of its store in one transaction. Refused for a session a running process holds open
 * (unless `force`), and for a session of another machine (its own `sessions` deletes it there).
 */
export async function removeSession(session: CatalogSession, place: Place, options: RemoveOptions): Promise<Removed> {
  assertSessionId(session);
  if (place.kind !== 'local') throw new HostActionError(`${place.host}: a session of another machine is deleted there: run \`sessions rm ${session.id}\` on ${place.host}`);
  const inUse = await sessionInUse(session, { procDir: options.procDir ?? null });
  if (inUse !== null && inUse.heldBy.length > 0 && options.force !== true) {
    throw new TrashError(`${session.agent} session ${session.id} is open (${describeInUse(inUse)}): close it first, or delete it anyway with --force`);
  }
  const warning = inUse !== null && inUse.heldBy.length === 0 ? `${session.agent} session ${session.id} was ${describeInUse(inUse)}: deleted anyway` : undefined;
  const now = options.now ?? new Date();
  const key = newTrashKey(now);
  const adapter = ADAPTERS[session.agent];
  const base = { key, deletedAt: now.toISOString(), agent: session.agent, id: session.id, title: session.title, root: session.root };
  let entry: TrashEntry;
  if (adapter.store !== undefined) {
    const store = adapter.store;
    const text = await store.rowsOf(session.path, session.id);
    const kept = join(keptRowsDir(options.trash), `${key}.json`);
    await createFileAtomic(kept, text);
    try {
      await store.takeOut(session.path, session.id, text);
    } catch (error) {
      await unlink(kept).catch(() => undefined);
      throw error;
    }
    entry = { ...base, items: [], rows: { store: session.path, kept } };
  } else {
    const paths = (await adapter.sessionPaths?.(groupOf(session), session.id)) ?? [...session.paths];
    const items: TrashedItem[] = [];
    try {
      for (const path of paths) items.push(await moveToTrash(path, options.trash, now));
    } catch (error) {
      // All or nothing: what was moved already goes back.
      for (const item of items.reverse()) await restoreItem(item).catch(() => undefined);
      throw error;
    }
    entry = { ...base, items };
  }
  await recordEntry(options.trash, entry);
  return { entry, ...(warning === undefined ? {} : { warning }) };
}

/** The sessions in the trash that `restore` can put back, newest last. */
export function deletedSessions(trash: Trash): Promise<TrashEntry[]> {
  return trashEntries(trash);
}

/**
 * Put a deleted session back where it was, byte for byte: the one of `id` (a full id or a unique prefix) deleted
 * last, or without `id` the session deleted last. Refused, with nothing moved, when anything is back in its place.
 */
export async function restoreSession(trash: Trash, id?: string): Promise<TrashEntry> {
  const entries = await trashEntries(trash);
  const matching = id === undefined ? entries : entries.filter((entry) => entry.id === id || entry.id.startsWith(id));
  const ids = new Set(matching.map((entry) => entry.id));
  if (id !== undefined && ids.size > 1 && !ids.has(id)) throw new TrashError(`${id} names several deleted sessions: ${[...ids].join(', ')}`);
  const entry = matching.filter((one) => id === undefined || ids.size === 1 || one.id === id).at(-1);
  if (entry === undefined) throw new TrashError(id === undefined ? 'the trash holds no session deleted by sessions' : `no deleted session ${id} in the trash`);
  for (const item of entry.items) if (await exists(item.original)) throw new TrashError(`${item.original} exists: ${entry.id} not restored (its files stay in the trash)`);
  if (entry.rows !== undefined) {
    const store = ADAPTERS[entry.agent].store;
    if (store === undefined) throw new TrashError(`${entry.agent} keeps no store: cannot put rows back`);
    await store.putBack(entry.rows.store, (await readRegularFile(entry.rows.kept)).toString('utf8'));
    await unlink(entry.rows.kept);
  }
  for (const item of entry.items) await restoreItem(item);
  return entry;
}
