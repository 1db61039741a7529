// Rename: a session's name written the agent's own way (its adapter's `rename`: where the agent itself reads it, so
// its picker shows it too), and the row read again so the list shows it at once.
import { groupOf, toRow, type CatalogSession } from '../catalog/scan.js';
import { ADAPTERS } from '../core/formats/index.js';
import { assertSessionId } from '../core/session-id.js';
import { HostActionError } from '../remote/host-sessions.js';
import type { Here, Place } from './place.js';

/** A rename that cannot be done (an empty name, an agent that keeps none): said in the user's terms. */
export class RenameError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RenameError';
  }
}

export interface Renamed {
  /** The session's row read again: titled by its new name. */
  readonly row: CatalogSession;
  /** Where the name went, in the agent's terms. */
  readonly where: string;
}

/** The name as it is written: trimmed, one line, no control characters (it goes into the agent's files as it is). */
export function cleanName(name: string): string {
  const trimmed = name.trim();
  if (trimmed === '') throw new RenameError('a name must not be empty');
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/.test(trimmed)) throw new RenameError('a name is one line of text, without control characters');
  return trimmed;
}

/** Whether `session`'s agent keeps a name at all (the TUI offers rename only then). */
export function canRename(session: Pick<CatalogSession, 'agent'>): boolean {
  return ADAPTERS[session.agent].rename !== undefined;
}

/**
 * Name `session` `name` where its agent reads names. A session of another machine is renamed by that machine's own
 * `sessions` (not done from here yet: refused with the command to run there).
 */
export async function renameSession(session: CatalogSession, place: Place, here: Here, request: { readonly name: string; readonly now?: Date }): Promise<Renamed> {
  assertSessionId(session);
  const name = cleanName(request.name);
  const adapter = ADAPTERS[session.agent];
  if (adapter.rename === undefined) throw new RenameError(`${adapter.label} keeps no name for a session (nowhere it would read one): ${session.id} cannot be renamed`);
  if (place.kind !== 'local') {
    throw new HostActionError(`${place.host}: a session of another machine is renamed there: run \`sessions rename ${session.id} …\` on ${place.host}`);
  }
  await adapter.rename.write(groupOf(session), session.id, name, request.now ?? new Date());
  const context = await here.context();
  await context.loadNames(adapter, session.root);
  const read = await toRow(groupOf(session), context, here.cache?.());
  const row: CatalogSession = read === null ? { ...session, title: name, name } : { ...read, root: session.root };
  return { row, where: adapter.rename.where };
}
