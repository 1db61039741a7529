// What the last good read of a host learnt, kept beside its mirror (`<mirror>.host.json`): how it was read (its own
// `sessions`, or a mirror), that `sessions`' version, when, and for a mirror where the host keeps its sessions. It
// tells `sessions hosts` what each host is, and lets a mirror's rows be listed (stale) while the host is down.
import { rename, writeFile } from 'node:fs/promises';
import { INDEX_FILE_MAX_BYTES, readRegularFile } from '../core/io/regular.js';
import { AGENTS, type Agent } from '../core/model.js';
import type { RemoteHomes } from './mirror-layout.js';

/** How a host is read: its own `sessions` (only rows travel), or a local rsync mirror of its session folders. */
export type HostVia = 'sessions' | 'mirror';

export interface HostRecord {
  readonly via: HostVia;
  /** The version the host's `sessions` said (null: read through a mirror, or a `sessions` too old to say). */
  readonly version: string | null;
  /** When the host's rows were last read whole (ISO 8601): a mirror's last whole sync. */
  readonly syncedAt: string;
  /** Where the host keeps its sessions (a mirror's; null for a host read by its own `sessions`). */
  readonly remote: RemoteHomes | null;
  /** Why a host with `sessions` is read through a mirror (its `sessions` too old), or null. */
  readonly note: string | null;
}

const RECORD_VERSION = 1;

export function recordPath(mirrorDir: string): string {
  return `${mirrorDir}.host.json`;
}

export async function readHostRecord(mirrorDir: string): Promise<HostRecord | null> {
  try {
    const value = JSON.parse((await readRegularFile(recordPath(mirrorDir), INDEX_FILE_MAX_BYTES)).toString('utf8')) as Record<string, unknown>;
    if (value.version !== RECORD_VERSION || (value.via !== 'sessions' && value.via !== 'mirror')) return null;
    if (typeof value.syncedAt !== 'string' || Number.isNaN(Date.parse(value.syncedAt))) return null;
    const remote = value.remote === null ? null : remoteOf(value.remote);
    if (remote === undefined) return null;
    return {
      via: value.via,
      version: typeof value.sessions === 'string' ? value.sessions : null,
      syncedAt: value.syncedAt,
      remote,
      note: typeof value.note === 'string' ? value.note : null,
    };
  } catch {
    return null;
  }
}

/** Written whole (temp + rename), mode 0600. */
export async function writeHostRecord(mirrorDir: string, record: HostRecord): Promise<void> {
  const path = recordPath(mirrorDir);
  const temp = `${path}.tmp-${process.pid}`;
  const { version, ...rest } = record;
  await writeFile(temp, JSON.stringify({ version: RECORD_VERSION, sessions: version, ...rest }), { mode: 0o600 });
  await rename(temp, path);
}

/** RemoteHomes read back (undefined: not one). */
function remoteOf(value: unknown): RemoteHomes | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { home, roots } = value as Record<string, unknown>;
  if (typeof home !== 'string' || !home.startsWith('/') || typeof roots !== 'object' || roots === null) return undefined;
  const out = {} as Record<Agent, readonly string[]>;
  for (const agent of AGENTS) {
    const list = (roots as Record<string, unknown>)[agent];
    if (!Array.isArray(list) || !list.every((root) => typeof root === 'string' && root.startsWith('/'))) return undefined;
    out[agent] = list as string[];
  }
  return { home, roots: out };
}
