// Where a session lives, decided once per use case: this machine, a host whose own `sessions` does the work, or a
// host whose session folders are mirrored here (read and written through the mirror, new files placed over ssh).
import type { CatalogCache } from '../catalog/cache.js';
import type { Locations } from '../catalog/locations.js';
import type { CatalogSession, ScanContext } from '../catalog/scan.js';
import type { AgentHomes, ResumeTemplates } from '../core/resume.js';
import type { HostVia, Mirror } from '../remote/host-source.js';
import type { SshSettings } from '../remote/ssh.js';

export type Place =
  | { readonly kind: 'local' }
  | { readonly kind: 'host'; readonly host: string; readonly settings: SshSettings }
  | { readonly kind: 'mirror'; readonly host: string; readonly settings: SshSettings; readonly mirror: Mirror };

/** A place on another machine. */
export type HostPlace = Exclude<Place, { readonly kind: 'local' }>;

/** A host being read (a HostSource, or a test's stand-in): its name and how it is read. */
export interface HostLink {
  readonly host: string;
  readonly via: HostVia | null;
  readonly mirror: Mirror | null;
}

/** What the app needs of this machine: where its sessions are, the scan's context, and how its agents are resumed. */
export interface Here {
  readonly locations: Locations;
  /**
   * The scan's context (id lookups, names); the TUI's requests made before its scan ends wait for it, except a read
   * that uses nothing of it (`alone`: the adapter's `readsAlone`).
   */
  context(options?: { readonly alone?: boolean }): Promise<ScanContext>;
  /** The catalog cache a new session's row is recorded in (none: not recorded). */
  cache?(): CatalogCache | undefined;
  /** The homes the agents look in by themselves: a session elsewhere is resumed with its home's variable. */
  readonly defaultHomes: AgentHomes;
  readonly templates: { readonly resume: ResumeTemplates; readonly exec: ResumeTemplates };
}

const LOCAL: Place = { kind: 'local' };

/** The place of `session`: this machine, or its host read by that host's `sessions` or through a mirror. */
export function placeOf(session: Pick<CatalogSession, 'host'>, hosts: (host: string) => HostLink | null | undefined, settings: SshSettings): Place {
  if (session.host === undefined) return LOCAL;
  const link = hosts(session.host);
  const place = link ? placeOfHost(link, settings) : null;
  if (place === null) throw new Error(`${session.host} is not being read`);
  return place;
}

/** How a host is reached: its own `sessions`, or its mirror here; null until it has been read one way or the other. */
export function placeOfHost(link: HostLink, settings: SshSettings): HostPlace | null {
  if (link.via === 'mirror') return link.mirror ? { kind: 'mirror', host: link.host, settings, mirror: link.mirror } : null;
  return link.via === 'sessions' ? { kind: 'host', host: link.host, settings } : null;
}

/** Why a row listed from a mirror while its host is down cannot be resumed or forked (show and grep read it). */
export function staleRefusal(session: Pick<CatalogSession, 'host' | 'stale'>): string {
  return `${session.host ?? ''} cannot be reached now: its rows are its mirror's${session.stale ? ` as of ${session.stale}` : ''} (stale); show and grep read them, resume and fork need the host`;
}
