// Full-text search where sessions live: this machine's files, a host's mirror (searched here), or a host's own
// `sessions grep` (rows stream back over ssh).
import { grepLocations, type GrepFound, type GrepOptions } from '../catalog/grep.js';
import type { Locations } from '../catalog/locations.js';
import type { CatalogSession } from '../catalog/scan.js';
import type { Problem } from '../core/formats/types.js';
import { ADAPTERS } from '../core/formats/index.js';
import { sessionKey, type Agent } from '../core/model.js';
import { safeLine } from '../core/text.js';
import { type HostContext } from '../remote/host-source.js';
import { mirrorRow } from '../remote/mirror-layout.js';
import { grepWithHostSessions } from '../remote/host-sessions.js';
import { loadHosts } from '../remote/hosts.js';
import { placeOfHost, type Place } from './place.js';

/** One session's files that hold the text (the browser has every row already: it looks them up). */
export interface FilesFound extends GrepFound {
  /** The files as the place's rows name them (a mirror's rows: the mirror's paths). */
  readonly paths: readonly string[];
  /** The conversation's key when its file holds many (a store), where the paths do not tell. */
  readonly key?: string;
}

export interface GrepRequest {
  readonly ignoreCase: boolean;
  /** Count each matching session's matches (its files are then read to the end). */
  readonly count: boolean;
  /** Characters each side of the first match in a snippet. */
  readonly context?: number;
  /** See GrepOptions.readSnippets (this machine's files only). */
  readonly readSnippets?: boolean;
  readonly signal?: AbortSignal;
  readonly engine: 'native' | 'js';
  /** Only these agents' sessions. */
  readonly agents?: readonly Agent[];
  /** Only rows this accepts (a cwd's). */
  readonly accept?: (row: RowPlace) => boolean;
  /** Each matching session as a row (the list's), as it is found. */
  readonly onRow?: (row: CatalogSession, found: GrepFound) => void;
  /** This machine's matching sessions as printed lines instead of `onRow`'s rows (see GrepOptions.printed; `accept` judges them). */
  readonly printed?: Omit<NonNullable<GrepOptions['printed']>, 'accept'>;
  /** Instead of rows: each matching session's files, as soon as they are found. */
  readonly onFiles?: (found: FilesFound) => void;
  /** This machine's search (a local place's): its locations, its cache, its walk memo, its trigram maps. */
  readonly local?: { readonly locations: Locations } & Pick<GrepOptions, 'cache' | 'walkMemo' | 'trigrams' | 'walkSynchronously' | 'onProblem'>;
}

/** What `accept` judges of a row (a made row's, or a printed line's). */
export type RowPlace = Pick<CatalogSession, 'agent' | 'cwd' | 'host'>;

export interface GrepDone {
  /** Sessions that matched (and were accepted). */
  readonly matched: number;
  readonly problems: readonly Problem[];
  /** Why a host could not be searched, or null. */
  readonly error: string | null;
}

/** Search `text` in every session of `place` (this machine's: in `request.local.locations`). */
export async function grepPlace(place: Place, text: string, request: GrepRequest): Promise<GrepDone> {
  const agents = request.agents;
  const accept = (row: RowPlace): boolean => (agents === undefined || agents.includes(row.agent)) && (request.accept?.(row) ?? true);
  if (place.kind === 'host') {
    let matched = 0;
    const error = await grepWithHostSessions(place.host, place.settings, text, {
      ignoreCase: request.ignoreCase,
      ...(request.context === undefined ? {} : { context: request.context }),
      ...(request.signal ? { signal: request.signal } : {}),
      onRow: ({ row, matches, snippet }) => {
        if (!accept(row)) return;
        matched++;
        request.onRow?.(row, { matches, snippet });
        // The row's key names it exactly (a store's conversations share their file).
        request.onFiles?.({ paths: row.paths, key: sessionKey(row), matches, snippet });
      },
    });
    return { matched, problems: [], error };
  }
  const host = place.kind === 'mirror' ? place.host : undefined;
  const asRow = place.kind === 'mirror' ? (row: CatalogSession): CatalogSession => mirrorRow(row, place.host, place.mirror.dir) : (row: CatalogSession): CatalogSession => row;
  const onFiles = request.onFiles;
  const { locations, ...local } = request.local ?? { locations: null };
  const searched = place.kind === 'mirror' ? place.mirror.locations : locations;
  if (searched === null) throw new Error('a search of this machine needs its locations');
  const result = await grepLocations(searched, text, {
    ignoreCase: request.ignoreCase,
    // A mirror's rows are the host's: their agent and cwd are judged as the host's rows.
    ...(agents && place.kind === 'local' ? { agents } : {}),
    ...(request.accept || (agents && place.kind === 'mirror') ? { accept: (row: CatalogSession) => accept(asRow(row)) } : {}),
    count: request.count,
    ...(request.context === undefined ? {} : { context: request.context }),
    ...(request.readSnippets === false && place.kind === 'local' ? { readSnippets: false } : {}),
    ...(request.signal ? { signal: request.signal } : {}),
    onMatch: (row, found) => request.onRow?.(asRow(row), found),
    ...(request.printed && place.kind === 'local' ? { printed: { ...request.printed, ...(request.accept || agents ? { accept } : {}) } } : {}),
    ...(onFiles
      ? {
          onFiles: (group, found) =>
            onFiles({
              paths: group.paths,
              // One conversation of a store (a file of many): the paths alone would name all of them.
              ...(ADAPTERS[group.agent].store !== undefined && group.idHint !== null ? { key: sessionKey({ agent: group.agent, id: group.idHint, ...(host === undefined ? {} : { host }) }) } : {}),
              matches: found.matches,
              snippet: found.snippet,
            }),
        }
      : {}),
    engine: request.engine,
    ...(place.kind === 'local' ? local : {}),
  });
  return { matched: result.matched, problems: result.problems, error: null };
}

/**
 * Search each host, each read for this search alone (its own `sessions grep` streams matching rows; a mirror is synced
 * and searched here). Resolves to the rows matched; a host that cannot be read or searched is said by `onWarning`.
 */
export async function grepHosts(hosts: readonly string[], context: HostContext, text: string, request: GrepRequest & { readonly onWarning: (message: string) => void }): Promise<number> {
  const counts = await Promise.all(
    hosts.map(async (host) => {
      const [source] = await loadHosts([host], context);
      // A host that is down is searched in its mirror, when one is listed (stale), as list shows it.
      const down = source!.status.kind === 'unreachable';
      const place = down && !source!.stale ? null : placeOfHost(source!, context.settings);
      if (down) request.onWarning(`host ${safeLine(host)} unreachable: ${source!.status.kind === 'unreachable' ? source!.status.reason : 'not read'}${place === null ? '' : `; searching its mirror as of ${source!.syncedAt || 'an unknown time'} (stale)`}`);
      if (place === null) return 0;
      const done = await grepPlace(place, text, request);
      if (done.error !== null) request.onWarning(`host ${done.error}`);
      return done.matched;
    }),
  );
  return counts.reduce((a, b) => a + b, 0);
}
