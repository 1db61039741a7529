import { mkdir, stat } from 'node:fs/promises';
import { dirname, isAbsolute, join } from 'node:path';
import { CatalogCache } from '../catalog/cache.js';
import type { Locations } from '../catalog/locations.js';
import { catalogFromCache, scanCatalog, type CatalogSession, type ScanContext, type ScanResult } from '../catalog/scan.js';
import { describeError } from '../core/errors.js';
import type { Problem } from '../core/formats/types.js';
import { AGENTS, sessionKey, type Agent } from '../core/model.js';
import { safeLine } from '../core/text.js';
import {
  hostPath,
  mirrorDir,
  mirrorLocations,
  mirrorRow,
  mirrorRsyncArgv,
  mirrorTransfer,
  mirrorVariables,
  newWorkspaces,
  remoteHomes,
  unionWorkspaces,
  workspacesOf,
  type MirrorWorkspaces,
  type RemoteHomes,
} from './mirror-layout.js';
import { clearMirrorState, copiedFiles, newToken, readMirrorState, withMirrorLock, writeMirrorState } from './mirror-state.js';
import { readHostRecord, writeHostRecord, type HostVia } from './host-record.js';
import { rowFromListJson } from './remote-row.js';
import { keepRows, readKeptRows } from './row-digest.js';
import { rsyncCannotProtectArgs, rsyncOutcome } from './rsync.js';
import { failureReason, hostLimits, runCommand, sshArgv, type RunningCommand, type SshSettings } from './ssh.js';

export type { HostVia } from './host-record.js';

export type HostStatus =
  | { readonly kind: 'connecting' }
  | { readonly kind: 'syncing' }
  | { readonly kind: 'ready'; readonly via: HostVia; readonly sessions: number }
  | { readonly kind: 'unreachable'; readonly reason: string; /** Its mirror's rows are listed, stale: synced then (ISO 8601; empty: unknown). */ readonly stale?: string };

export interface HostContext {
  readonly settings: SshSettings;
  /** `$XDG_CACHE_HOME/sessions`: a host's mirror is `hosts/<name>/` under it. */
  readonly cacheDir: string;
  /** The catalog cache file for a mirror's locations (null: no cache, `--no-cache`). */
  readonly cachePathFor: ((locations: Locations) => string) | null;
}

export interface Mirror {
  /** The local folder the host's files are copied into: a host path P is at `dir + P`. */
  readonly dir: string;
  readonly remote: RemoteHomes;
  /** Where the mirror's sessions are looked for: the agents' roots, and the workspaces mirrored that hold sessions. */
  locations: Locations;
  /** The scan's context over the mirror (transcripts and forks of its rows need it). */
  context: ScanContext | null;
  /** The workspaces the last sync copied. */
  workspaces: MirrorWorkspaces;
  /**
   * What this process indexed at its last sync, with the catalog cache that holds its rows and the token of the
   * state it wrote: while the state on disk still has that token, no other process synced the mirror since.
   */
  indexed: { readonly cache: CatalogCache; readonly token: string } | null;
}

/** Lines of a host's stream that are not rows (each one a problem reported) before the host is dropped. */
const MAX_BAD_LINES = 100;

/** What a host's login shell prints before anything else: which way it is read. */
const MARK = 'sessions-host-v1';

/** The mirror's half of the probe: where the host's agents keep their sessions ($HOME, then each variable). */
const MIRROR_PROBE = [`echo ${MARK} mirror`, `printf '%s\\n' "$HOME"${mirrorVariables().map((name) => ` "\${${name}-}"`).join('')}`].join('; ');

/**
 * One round trip: a host with `sessions` on its PATH starts streaming its rows at once (`list --watch --json`:
 * NDJSON, a `hello` line with its version — the handshake: a `sessions` too old to know these options ends with
 * "unknown option" and the host is read through a mirror instead —, the rows not among those this side kept from the
 * last ask (`--known`: their digests on stdin's first line), every row's digest, a `synced` line, then one line per
 * change); one without says where its agents keep their sessions ($HOME, then each variable the agents' roots depend
 * on), for rsync. POSIX shell syntax (ssh runs it in `sh -c`).
 */
export const PROBE_LINE = [`if command -v sessions >/dev/null 2>&1; then echo ${MARK} sessions; exec sessions list --watch --json --all --hello --known; fi`, MIRROR_PROBE].join('; ');

/** What a `sessions` that cannot take part in the handshake (older than `--hello`) says when it ends. */
const TOO_OLD = /unknown option|too many arguments/;

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
  /** The version the host's `sessions` said in its `hello` (null: none yet, or a mirror). */
  version: string | null = null;
  /** When the rows were last read whole (ISO 8601; a mirror's last whole sync), as far as this machine knows. */
  syncedAt: string | null = null;
  /** Why a host with `sessions` is read through a mirror (too old for the handshake), or null. */
  note: string | null = null;
  /** The rows are a mirror's from its last whole sync (`syncedAt`), shown while the host cannot be read. */
  stale = false;
  readonly problems: Problem[] = [];
  private rows = new Map<string, CatalogSession>();
  private subagentRows: CatalogSession[] = [];
  /** Each row's line as the host's `sessions` sent it (by row key): kept for the next ask, which names their digests. */
  private lines = new Map<string, string>();
  private stream: RunningCommand | null = null;
  /** Lines of the stream that were not rows: past MAX_BAD_LINES the host is dropped. */
  private badLines = 0;
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

  private async connect(live: boolean, probe: string = PROBE_LINE, note: string | null = null): Promise<void> {
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
      this.streamLine(line, fresh, known, () => {
        this.rows = fresh!;
        for (const key of this.lines.keys()) if (!this.rows.has(key)) this.lines.delete(key);
        if (keep) void keepRows(mirrorDir(this.context.cacheDir, this.host), this.lines.values()).catch(() => undefined);
        fresh = null;
        this.via = 'sessions';
        this.stale = false;
        this.note = null;
        this.syncedAt = new Date().toISOString();
        // The rows are in: from here on the stream only says what changed, whenever it does.
        run.complete();
        this.setStatus({ kind: 'ready', via: 'sessions', sessions: this.rows.size });
        synced();
        void this.saveRecord(null);
      });
    };
    // The rows kept from the last ask (none with --no-cache): the host's sessions sends only the others.
    const keep = this.context.cachePathFor !== null;
    const known = probe === PROBE_LINE && keep ? await readKeptRows(mirrorDir(this.context.cacheDir, this.host), hostLimits(this.context.settings).maxTotalBytes) : new Map<string, string>();
    const run = runCommand(sshArgv(this.context.settings, this.host, probe, 'batch'), { onLine, keepStdinOpen: true, limits: hostLimits(this.context.settings), input: `${JSON.stringify([...known.keys()])}\n` });
    this.stream = run;
    this.badLines = 0;
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
      const reason = failureReason(result, `${this.host}: sessions ended before sending its rows`);
      // The handshake: a `sessions` there that does not know this one's options is read around, through a mirror.
      if (!result.stopped && TOO_OLD.test(result.stderr)) return this.connect(live, MIRROR_PROBE, `the sessions there is too old for this one (${reason}): read through a mirror`);
      return this.unreachable(reason);
    }
    if (mode === null || result.code !== 0) return this.unreachable(failureReason(result, 'ssh failed'));
    const remote = remoteHomes(homeLines);
    if (remote === null) return this.unreachable(`the host did not say where its home is (got ${JSON.stringify(homeLines.slice(0, 1))})`);
    this.via = 'mirror';
    this.note = note;
    const dir = mirrorDir(this.context.cacheDir, this.host);
    const locations = mirrorLocations(dir, remote);
    this.mirror = { dir, remote, locations, context: null, workspaces: {}, indexed: null };
    await this.syncMirror(this.mirror);
  }

  /**
   * The host cannot be read now: said in its status, and a mirror synced before (by this process, or one whose record
   * says where the host keeps its sessions) is listed as it was, its rows marked stale, for reading (show, grep).
   */
  private async unreachable(reason: string): Promise<void> {
    this.fail(reason);
    const record = this.mirror === null ? await readHostRecord(mirrorDir(this.context.cacheDir, this.host)) : null;
    if (this.mirror === null && (record?.via !== 'mirror' || record.remote === null)) return;
    this.stale = true;
    if (record !== null) this.syncedAt = record.syncedAt;
    if (this.mirror === null && record?.remote) {
      const dir = mirrorDir(this.context.cacheDir, this.host);
      this.via = 'mirror';
      this.mirror = { dir, remote: record.remote, locations: mirrorLocations(dir, record.remote), context: null, workspaces: {}, indexed: null };
    }
    const mirror = this.mirror!;
    if (this.status.kind === 'unreachable') this.status = { ...this.status, stale: this.syncedAt ?? '' };
    if (mirror.context !== null) {
      // Indexed by this process already: the same rows, marked.
      this.rows = new Map([...this.rows].map(([key, row]) => [key, { ...row, stale: this.syncedAt ?? '' }]));
      this.onUpdate(this);
      return;
    }
    const state = await readMirrorState(mirror.dir);
    const cachePath = this.context.cachePathFor?.(mirrorLocations(mirror.dir, mirror.remote)) ?? null;
    await this.indexMirror(mirror, state?.workspaces ?? {}, await CatalogCache.load(cachePath), null);
  }

  /** What this read learnt, for `sessions hosts` and for listing the mirror while the host is down. */
  private async saveRecord(remote: RemoteHomes | null): Promise<void> {
    if (this.via === null || this.syncedAt === null) return;
    const dir = mirrorDir(this.context.cacheDir, this.host);
    try {
      await mkdir(dirname(dir), { recursive: true, mode: 0o700 });
      await writeHostRecord(dir, { via: this.via, version: this.version, syncedAt: this.syncedAt, remote, note: this.note });
    } catch {
      // Not kept: `sessions hosts` then says only what it reads now.
    }
  }

  /** One NDJSON line of a host's `sessions list --watch --json`. */
  private streamLine(line: string, fresh: Map<string, CatalogSession> | null, known: ReadonlyMap<string, string>, onSynced: () => void): void {
    if (line.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      if (++this.badLines > MAX_BAD_LINES) this.stream?.stop(`sent over ${MAX_BAD_LINES} lines that are not rows`);
      else this.problems.push({ path: `${this.host}:`, message: `not a row: ${safeLine(line.slice(0, 120))}` });
      return;
    }
    const target = fresh ?? this.rows;
    if (typeof value === 'object' && value !== null && 'hello' in value) {
      const hello = value.hello;
      if (typeof hello === 'object' && hello !== null && 'sessions' in hello && typeof hello.sessions === 'string') this.version = safeLine(hello.sessions).slice(0, 40);
      return;
    }
    if (typeof value === 'object' && value !== null && 'synced' in value) {
      onSynced();
      return;
    }
    if (fresh !== null && typeof value === 'object' && value !== null && 'rows' in value && Array.isArray(value.rows)) {
      // Every row the host has, by digest: those not sent are the ones kept here from the last ask.
      for (const digest of value.rows) {
        const kept = typeof digest === 'string' ? known.get(digest) : undefined;
        const row = kept === undefined ? null : rowFromJsonLine(kept, this.host);
        // (A row sent in this answer is the host's newer one.)
        if (row !== null && !fresh.has(sessionKey(row))) this.addRow(kept!, fresh);
      }
      return;
    }
    if (typeof value === 'object' && value !== null && 'removed' in value && typeof value.removed === 'string') {
      target.delete(`${this.host}\u0000${value.removed}`);
      this.lines.delete(`${this.host}\u0000${value.removed}`);
    } else if (!this.addRow(line, target, value)) return;
    if (fresh === null) {
      this.status = { kind: 'ready', via: 'sessions', sessions: this.rows.size };
      this.onUpdate(this);
    }
  }

  /** A row line into `target` (and its line kept); false when it is not a row. */
  private addRow(line: string, target: Map<string, CatalogSession>, parsed?: unknown): boolean {
    const row = parsed === undefined ? rowFromJsonLine(line, this.host) : rowFromListJson(parsed, this.host);
    if (row === null) return false;
    const key = sessionKey(row);
    target.set(key, row);
    this.lines.set(key, line);
    const { maxRows } = hostLimits(this.context.settings);
    if (target.size > maxRows) this.stream?.stop(`sent over ${maxRows} rows`);
    return true;
  }

  /**
   * rsync the host's session folders into the mirror (additive: nothing the host removed is deleted here), then index
   * what it copied. rsync says which files it copied (`--out-format`): when the mirror's rows are known (this process
   * indexed it last, or the state the last sync left names the cache it saved), only those files are read, and a sync
   * that copied nothing reads none. One sync of a mirror at a time, across processes.
   */
  private async syncMirror(mirror: Mirror): Promise<void> {
    this.setStatus({ kind: 'syncing' });
    await mkdir(mirror.dir, { recursive: true, mode: 0o700 });
    await withMirrorLock(mirror.dir, () => this.syncLocked(mirror));
  }

  private async syncLocked(mirror: Mirror): Promise<void> {
    // The cache is named by the agents' roots alone: the workspaces mirrored may change from one sync to the next.
    const cachePath = this.context.cachePathFor?.(mirrorLocations(mirror.dir, mirror.remote)) ?? null;
    const state = await readMirrorState(mirror.dir);
    // From here until the new state is written, the mirror may hold files no cache knows.
    await clearMirrorState(mirror.dir);
    const own = mirror.indexed !== null && state?.token === mirror.indexed.token ? mirror.indexed : null;
    mirror.indexed = null;
    const saved = own === null && state !== null && cachePath !== null && state.cache === cachePath;
    const workspaces = unionWorkspaces(mirror.workspaces, state?.workspaces ?? {});
    // The cache is read while rsync runs (rsync writes the mirror, not the cache), and with a state naming it, the rows
    // it holds are the mirror's as the last sync left it.
    const loading = own !== null ? Promise.resolve(own.cache) : CatalogCache.load(cachePath);
    const known = saved
      ? loading.then(async (cache) => (cache.rejected === null ? { cache, result: await catalogFromCache(cache) } : null)).catch(() => null)
      : Promise.resolve(null);
    const synced = await this.rsync(mirror, workspaces);
    const base = await known;
    const cache = await loading;
    if (this.closed) return;
    if (!synced.ok) {
      // What did arrive stays (additive), and is listed, stale: a dropped sync shows what the last one brought. No
      // state is written: the next sync looks at every file.
      this.syncedAt ??= (await readHostRecord(mirror.dir))?.syncedAt ?? null;
      if (mirror.context === null) {
        this.stale = true;
        await this.indexMirror(mirror, workspaces, cache, null);
      }
      return this.unreachable(synced.reason);
    }
    this.stale = false;
    if (own !== null && synced.copied !== null && synced.copied.length === 0) {
      // Nothing copied, and the rows this process holds are the mirror's: nothing to read.
      await this.finishSync(mirror, workspaces, own.cache, cachePath);
      this.setStatus({ kind: 'ready', via: 'mirror', sessions: this.rows.size });
      return;
    }
    if (base !== null && synced.copied !== null && synced.copied.length === 0) {
      this.showIndexed(mirror, base.result);
      await this.finishSync(mirror, workspaces, base.cache, cachePath);
      this.setStatus({ kind: 'ready', via: 'mirror', sessions: this.rows.size });
      return;
    }
    // Something was copied, or the rows are not known: a scan of the mirror, reading only the files copied when the
    // cache holds the rest as they are.
    const changed = (own !== null || base !== null) && synced.copied !== null ? new Set(synced.copied) : null;
    if (!(await this.indexMirror(mirror, workspaces, cache, changed))) return;
    // Sessions that ran in folders not mirrored yet (claw workspaces): those folders are copied too, and read.
    const more = newWorkspaces(workspacesOf(this.rows.values(), mirror.remote), workspaces);
    if (Object.keys(more).length > 0) {
      const next = unionWorkspaces(workspaces, more);
      const extra = await this.rsync(mirror, more);
      if (this.closed) return;
      if (!extra.ok) return this.unreachable(extra.reason);
      // Indexed even when rsync copied nothing: the mirror may hold a workspace's files from before its state was lost.
      if (!(await this.indexMirror(mirror, next, cache, extra.copied === null ? null : new Set(extra.copied)))) return;
      await this.finishSync(mirror, next, cache, cachePath);
    } else await this.finishSync(mirror, workspaces, cache, cachePath);
    this.setStatus({ kind: 'ready', via: 'mirror', sessions: this.rows.size });
  }

  /**
   * One rsync of the host's roots (and these workspaces) into the mirror: the files it copied, as paths in the mirror.
   * A partial transfer (a folder the host's user cannot read, a file deleted meanwhile) is a sync: what arrived is
   * kept and indexed, and what did not is reported as a problem of the host.
   */
  private async rsync(mirror: Mirror, workspaces: MirrorWorkspaces): Promise<{ ok: boolean; reason: string; copied: string[] | null }> {
    const cannot = await rsyncCannotProtectArgs();
    if (cannot !== null) return { ok: false, reason: cannot, copied: null };
    const result = await runCommand(mirrorRsyncArgv(this.host, this.context.settings, mirrorTransfer(mirror.remote, workspaces), mirror.dir));
    const outcome = rsyncOutcome(result, mirror.dir);
    if (outcome.kind === 'failed') return { ok: false, reason: outcome.reason, copied: null };
    for (const missed of outcome.notCopied) this.problems.push({ path: `${this.host}:${missed.path}`, message: `not copied to the mirror: ${missed.why}` });
    return { ok: true, reason: '', copied: copiedFiles(result.stdout, mirror.dir) };
  }

  /** The mirror's rows and state once indexed: the cache saved, then the state that says the cache holds the mirror. */
  private async finishSync(mirror: Mirror, workspaces: MirrorWorkspaces, cache: CatalogCache, cachePath: string | null): Promise<void> {
    mirror.workspaces = workspaces;
    mirror.locations = await presentLocations(mirror, workspaces);
    const token = newToken();
    try {
      await cache.save();
      await writeMirrorState(mirror.dir, { token, cache: cachePath, workspaces });
      mirror.indexed = { cache, token };
    } catch {
      // No state: the next sync looks at every file again.
    }
    this.stale = false;
    this.syncedAt = new Date().toISOString();
    this.rows = new Map([...this.rows].map(([key, { stale: _, ...row }]) => [key, row]));
    await this.saveRecord(mirror.remote);
  }

  /** Index the mirror (with `changed`: only those files may differ from what `cache` holds); false when it failed. */
  private async indexMirror(mirror: Mirror, workspaces: MirrorWorkspaces, cache: CatalogCache, changed: ReadonlySet<string> | null): Promise<boolean> {
    mirror.locations = await presentLocations(mirror, workspaces);
    try {
      const result = await scanCatalog(mirror.locations, { cache, ...(changed === null ? {} : { changed }) });
      this.showIndexed(mirror, result);
      this.onUpdate(this);
      return true;
    } catch (error) {
      this.fail(`cannot index the mirror: ${describeError(error)}`);
      return false;
    }
  }

  private showIndexed(mirror: Mirror, result: ScanResult & { context: ScanContext }): void {
    mirror.context = result.context;
    const stale = this.stale ? { stale: this.syncedAt ?? '' } : {};
    const tag = (row: CatalogSession): CatalogSession => ({ ...mirrorRow(row, this.host, mirror.dir), ...stale });
    this.rows = new Map(result.sessions.map((row) => {
      const tagged = tag(row);
      return [sessionKey(tagged), tagged];
    }));
    this.subagentRows = result.subagentSessions.map(tag);
    this.problems.push(...result.problems.map((problem) => ({ ...problem, path: isAbsolute(problem.path) ? hostPath(mirror.dir, problem.path) : problem.path })));
  }
}

/** A row line another machine's `sessions` sent (untrusted), as a row of `host`; null when it is not one. */
function rowFromJsonLine(line: string, host: string): CatalogSession | null {
  try {
    return rowFromListJson(JSON.parse(line), host);
  } catch {
    return null;
  }
}

/**
 * Write into a mirror other than by its sync (a fork built from it, then placed on the host): the mirror then holds
 * files its cache does not know, so the next sync looks at every file (the state is removed, under the sync's lock).
 */
export async function writingIntoMirror<T>(mirror: Mirror, write: () => Promise<T>): Promise<T> {
  return withMirrorLock(mirror.dir, async () => {
    await clearMirrorState(mirror.dir);
    return write();
  });
}

/** The mirror's locations with the workspaces that are in it (rsync makes no folder for one where nothing was copied). */
async function presentLocations(mirror: Mirror, workspaces: MirrorWorkspaces): Promise<Locations> {
  const present: Partial<Record<Agent, string[]>> = {};
  for (const agent of AGENTS) {
    const dirs: string[] = [];
    for (const workspace of workspaces[agent] ?? []) {
      if (await stat(join(mirror.dir, workspace)).then((info) => info.isDirectory(), () => false)) dirs.push(workspace);
    }
    if (dirs.length > 0) present[agent] = dirs;
  }
  return mirrorLocations(mirror.dir, mirror.remote, present);
}

