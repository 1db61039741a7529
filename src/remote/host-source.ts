import { mkdir } from 'node:fs/promises';
import { isAbsolute, join, posix } from 'node:path';
import { createHash } from 'node:crypto';
import { CatalogCache } from '../catalog/cache.js';
import { noRoots, type Locations } from '../catalog/locations.js';
import { scanCatalog, type CatalogSession, type ScanContext } from '../catalog/scan.js';
import { describeError } from '../core/errors.js';
import type { Problem } from '../core/formats/types.js';
import { sessionKey, type Agent } from '../core/model.js';
import { safeLine } from '../core/text.js';
import { rowFromListJson } from './remote-row.js';
import { failureReason, rsyncShell, runCommand, sshArgv, type RunResult, type SshSettings } from './ssh.js';

/** How a host is read: its own `sessions` (only rows travel), or a local rsync mirror of its session folders. */
export type HostVia = 'sessions' | 'mirror';

export type HostStatus =
  | { readonly kind: 'connecting' }
  | { readonly kind: 'syncing' }
  | { readonly kind: 'ready'; readonly via: HostVia; readonly sessions: number }
  | { readonly kind: 'unreachable'; readonly reason: string };

export interface HostContext {
  readonly settings: SshSettings;
  /** `$XDG_CACHE_HOME/sessions`: a host's mirror is `hosts/<name>/` under it. */
  readonly cacheDir: string;
  /** The catalog cache file for a mirror's locations (null: no cache, `--no-cache`). */
  readonly cachePathFor: ((locations: Locations) => string) | null;
}

/** Where the agents keep their sessions on the host (what its login shell says), and what is mirrored of them. */
export interface RemoteHomes {
  readonly home: string;
  readonly codexHome: string;
  readonly claudeDir: string;
}

export interface Mirror {
  /** The local folder the host's files are copied into: a host path P is at `dir + P`. */
  readonly dir: string;
  readonly remote: RemoteHomes;
  readonly locations: Locations;
  /** The scan's context over the mirror (transcripts and forks of its rows need it). */
  context: ScanContext | null;
}

/** What a host's login shell prints before anything else: which way it is read. */
const MARK = 'sessions-host-v1';

/**
 * One round trip: a host with `sessions` on its PATH starts streaming its rows at once (`list --watch --json`:
 * NDJSON, the rows, a `synced` line, then one line per change); one without says where its agents keep their
 * sessions, for rsync. POSIX shell syntax: the remote user's login shell runs it.
 */
export const PROBE_LINE = [
  `if command -v sessions >/dev/null 2>&1; then echo ${MARK} sessions; exec sessions list --watch --json --all; fi`,
  `echo ${MARK} mirror`,
  `printf '%s\\n' "$HOME" "\${CODEX_HOME-}" "\${CLAUDE_CONFIG_DIR-}"`,
].join('; ');

/** The sessions folders mirrored per agent (never a whole agent home: it holds credentials). claw is not mirrored. */
export function mirroredPaths(remote: RemoteHomes): Record<Extract<Agent, 'codex' | 'claude'>, string[]> {
  return {
    codex: [posix.join(remote.codexHome, 'sessions'), posix.join(remote.codexHome, 'archived_sessions'), posix.join(remote.codexHome, 'session_index.jsonl')],
    claude: [posix.join(remote.claudeDir, 'projects')],
  };
}

/** The folder a host is mirrored into: readable name plus a hash (two destinations never share one). */
export function mirrorDir(cacheDir: string, host: string): string {
  const readable = host.replace(/[^\w.@-]+/g, '_').slice(0, 40);
  const hash = createHash('sha256').update(host).digest('hex').slice(0, 8);
  return join(cacheDir, 'hosts', `${readable}-${hash}`);
}

/** Read `$HOME`, `$CODEX_HOME`, `$CLAUDE_CONFIG_DIR` as the probe printed them. */
export function remoteHomes(lines: readonly string[]): RemoteHomes | null {
  const [home, codex, claude] = lines;
  if (!home || !home.startsWith('/')) return null;
  const under = (value: string | undefined, fallback: string): string => (value ? (value.startsWith('/') ? value : posix.join(home, value)) : posix.join(home, fallback));
  return { home, codexHome: under(codex, '.codex'), claudeDir: under(claude, '.claude') };
}

/**
 * A host's sessions, read with ssh: its rows (`host` set on each), its status, and for a mirrored host the
 * mirror (transcripts, grep and forks read it). `load` resolves once the first whole set of rows is in, or the
 * host failed (status `unreachable`, rows kept from before); with `live`, a host's `sessions` keeps streaming
 * changes over the same connection, and `refresh` re-syncs a mirror (rsync sends only changed files).
 */
export class HostSource {
  status: HostStatus = { kind: 'connecting' };
  via: HostVia | null = null;
  mirror: Mirror | null = null;
  readonly problems: Problem[] = [];
  private rows = new Map<string, CatalogSession>();
  private subagentRows: CatalogSession[] = [];
  private stream: (Promise<RunResult> & { child: { kill(signal?: NodeJS.Signals): boolean } }) | null = null;
  private closed = false;
  private busy: Promise<void> | null = null;

  constructor(
    readonly host: string,
    private readonly context: HostContext,
    /** Called whenever rows or status change. */
    private readonly onUpdate: (source: HostSource) => void = () => undefined,
  ) {}

  sessions(): CatalogSession[] {
    return [...this.rows.values()];
  }

  /** Sub-agent sessions (mirrored hosts): not rows, but `show`/`fork` find them by id. */
  subagentSessions(): readonly CatalogSession[] {
    return this.subagentRows;
  }

  load(live: boolean): Promise<void> {
    this.busy ??= this.connect(live).finally(() => {
      this.busy = null;
    });
    return this.busy;
  }

  /** Read the host again: a mirror syncs and is indexed again; a lost connection is made again. */
  refresh(): Promise<void> {
    if (this.busy) return this.busy;
    if (this.via === 'mirror' && this.mirror) {
      this.busy = this.syncMirror(this.mirror).finally(() => {
        this.busy = null;
      });
      return this.busy;
    }
    if (this.stream) return Promise.resolve(); // streaming: changes arrive by themselves
    return this.load(true);
  }

  close(): void {
    this.closed = true;
    this.stream?.child.kill('SIGTERM');
    this.stream = null;
  }

  private setStatus(status: HostStatus): void {
    this.status = status;
    this.onUpdate(this);
  }

  private fail(reason: string): void {
    this.setStatus({ kind: 'unreachable', reason: safeLine(reason) });
  }

  private async connect(live: boolean): Promise<void> {
    this.setStatus({ kind: 'connecting' });
    let mode: HostVia | null = null;
    const homeLines: string[] = [];
    let fresh: Map<string, CatalogSession> | null = null;
    let synced!: () => void;
    const syncedPromise = new Promise<void>((resolve) => (synced = resolve));
    const onLine = (line: string): void => {
      if (mode === null) {
        if (line === `${MARK} sessions`) {
          mode = 'sessions';
          fresh = new Map();
        } else if (line === `${MARK} mirror`) mode = 'mirror';
        return; // a login banner or motd line before the mark
      }
      if (mode === 'mirror') {
        homeLines.push(line);
        return;
      }
      this.streamLine(line, fresh, () => {
        this.rows = fresh!;
        fresh = null;
        this.via = 'sessions';
        this.setStatus({ kind: 'ready', via: 'sessions', sessions: this.rows.size });
        synced();
      });
    };
    const run = runCommand(sshArgv(this.context.settings, this.host, PROBE_LINE, 'batch'), { onLine, keepStdinOpen: true });
    this.stream = run;
    const ended = run.then((result) => {
      if (this.stream === run) this.stream = null;
      return result;
    });
    // A host's `sessions` answers with rows and goes on streaming: done once they are in (or the connection ended).
    const first = await Promise.race([ended, syncedPromise.then(() => null)]);
    if (first === null) {
      if (!live) this.close();
      else void ended.then((result) => this.closed || this.fail(`connection lost: ${failureReason(result, 'ssh ended')}`));
      return;
    }
    const result = first;
    if (this.closed) return;
    if (mode === 'sessions') {
      this.fail(failureReason(result, `${this.host}: sessions ended before sending its rows`));
      return;
    }
    if (mode === null || result.code !== 0) {
      this.fail(failureReason(result, 'ssh failed'));
      return;
    }
    const remote = remoteHomes(homeLines);
    if (remote === null) {
      this.fail(`the host did not say where its home is (got ${JSON.stringify(homeLines.slice(0, 1))})`);
      return;
    }
    this.via = 'mirror';
    const dir = mirrorDir(this.context.cacheDir, this.host);
    // Only the mirrored agents' roots, and no roots from cwds (those are the host's directories, not this machine's).
    const locations: Locations = {
      roots: { ...noRoots(), codex: [join(dir, remote.codexHome)], claude: [join(dir, remote.claudeDir)] },
      cwd: dir,
      rootsFromCwds: false,
    };
    this.mirror = { dir, remote, locations, context: null };
    await this.syncMirror(this.mirror);
  }

  /** One NDJSON line of a host's `sessions list --watch --json`. */
  private streamLine(line: string, fresh: Map<string, CatalogSession> | null, onSynced: () => void): void {
    if (line.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      this.problems.push({ path: `${this.host}:`, message: `not a row: ${safeLine(line.slice(0, 120))}` });
      return;
    }
    const target = fresh ?? this.rows;
    if (typeof value === 'object' && value !== null && 'synced' in value) {
      onSynced();
      return;
    }
    if (typeof value === 'object' && value !== null && 'removed' in value && typeof value.removed === 'string') {
      target.delete(`${this.host}\u0000${value.removed}`);
    } else {
      const row = rowFromListJson(value, this.host);
      if (row === null) return;
      target.set(sessionKey(row), row);
    }
    if (fresh === null) {
      this.status = { kind: 'ready', via: 'sessions', sessions: this.rows.size };
      this.onUpdate(this);
    }
  }

  /** rsync the host's session folders into the mirror (additive: nothing the host removed is deleted here), then index it. */
  private async syncMirror(mirror: Mirror): Promise<void> {
    this.setStatus({ kind: 'syncing' });
    await mkdir(mirror.dir, { recursive: true, mode: 0o700 });
    const sources = Object.values(mirroredPaths(mirror.remote)).flat();
    const argv = [
      'rsync',
      // Recursive with times (unchanged files are skipped by size and time); no symlinks, devices or owners:
      // only regular files arrive, and nothing here is deleted because the host no longer has it.
      '-rt',
      '--relative',
      '--ignore-missing-args',
      '--chmod=Du=rwx,Dgo=,Fu=rw,Fgo=',
      '-e',
      rsyncShell(this.context.settings),
      '--',
      ...sources.map((source) => `${this.host}:${source}`),
      `${mirror.dir}/`,
    ];
    const result = await runCommand(argv);
    if (this.closed) return;
    if (result.code !== 0) {
      // What did arrive stays (additive), and is listed: a dropped sync shows what the last one brought.
      this.fail(failureReason(result, 'rsync failed'));
      if (mirror.context === null) await this.indexMirror(mirror, false);
      return;
    }
    await this.indexMirror(mirror, true);
  }

  private async indexMirror(mirror: Mirror, setReady: boolean): Promise<void> {
    const cachePath = this.context.cachePathFor?.(mirror.locations) ?? null;
    const cache = cachePath === null ? undefined : await CatalogCache.load(cachePath);
    try {
      const result = await scanCatalog(mirror.locations, { agents: ['codex', 'claude'], ...(cache ? { cache } : {}) });
      await cache?.save().catch(() => undefined);
      mirror.context = result.context;
      const tag = (row: CatalogSession): CatalogSession => ({ ...row, host: this.host, mirror: mirror.dir });
      this.rows = new Map(result.sessions.map((row) => [sessionKey(tag(row)), tag(row)]));
      this.subagentRows = result.subagentSessions.map(tag);
      this.problems.push(...result.problems.map((problem) => ({ ...problem, path: isAbsolute(problem.path) ? hostPath(mirror.dir, problem.path) : problem.path })));
      if (setReady) this.setStatus({ kind: 'ready', via: 'mirror', sessions: this.rows.size });
      else this.onUpdate(this);
    } catch (error) {
      this.fail(`cannot index the mirror: ${describeError(error)}`);
    }
  }
}

/** A mirror file's path on its host. */
export function hostPath(mirror: string, localPath: string): string {
  return localPath.startsWith(`${mirror}/`) ? localPath.slice(mirror.length) : localPath;
}

/** A row's files as paths on its host (mirror rows are read locally; the host's own paths are what it shows). */
export function onHost<T extends { readonly path: string; readonly paths: readonly string[] }>(session: T & { readonly mirror?: string }): T {
  if (session.mirror === undefined) return session;
  const mirror = session.mirror;
  return { ...session, path: hostPath(mirror, session.path), paths: session.paths.map((path) => hostPath(mirror, path)) };
}
