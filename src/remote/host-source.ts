import { mkdir, stat } from 'node:fs/promises';
import { isAbsolute, join, posix } from 'node:path';
import { createHash } from 'node:crypto';
import { CatalogCache } from '../catalog/cache.js';
import { noRoots, type Locations } from '../catalog/locations.js';
import { catalogFromCache, scanCatalog, type CatalogSession, type ScanContext, type ScanResult } from '../catalog/scan.js';
import { describeError } from '../core/errors.js';
import { ADAPTER_LIST, ADAPTERS } from '../core/formats/index.js';
import type { Problem, RootEnvironment } from '../core/formats/types.js';
import { AGENTS, sessionKey, type Agent } from '../core/model.js';
import { safeLine } from '../core/text.js';
import { clearMirrorState, copiedFiles, newToken, readMirrorState, withMirrorLock, writeMirrorState } from './mirror-state.js';
import { rowFromListJson } from './remote-row.js';
import { failureReason, hostLimits, rsyncShell, runCommand, sshArgv, type RunningCommand, type SshSettings } from './ssh.js';

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

/** Where the agents keep their sessions on the host (what its login shell says): each agent's roots there. */
export interface RemoteHomes {
  readonly home: string;
  /** Each agent's roots on the host: what `sessions` run there would read (its adapter's defaults, with the host's variables). */
  readonly roots: Readonly<Record<Agent, readonly string[]>>;
}

/** Host folders, per agent, whose sessions a mirror copies besides the agents' roots (claw workspaces other sessions ran in). */
export type MirrorWorkspaces = Readonly<Partial<Record<Agent, readonly string[]>>>;

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

/** The variables the agents' roots depend on (every adapter's `mirror.variables`), in registry order, each once. */
export function mirrorVariables(): string[] {
  const names = [...new Set(ADAPTER_LIST.flatMap((adapter) => adapter.mirror.variables))];
  for (const name of names) if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new Error(`not a variable name: ${name}`);
  return names;
}

/**
 * One round trip: a host with `sessions` on its PATH starts streaming its rows at once (`list --watch --json`:
 * NDJSON, the rows, a `synced` line, then one line per change); one without says where its agents keep their
 * sessions ($HOME, then each variable the agents' roots depend on), for rsync. POSIX shell syntax: the remote
 * user's login shell runs it.
 */
export const PROBE_LINE = [
  `if command -v sessions >/dev/null 2>&1; then echo ${MARK} sessions; exec sessions list --watch --json --all; fi`,
  `echo ${MARK} mirror`,
  `printf '%s\\n' "$HOME"${mirrorVariables().map((name) => ` "\${${name}-}"`).join('')}`,
].join('; ');

/** The folder a host is mirrored into: readable name plus a hash (two destinations never share one). */
export function mirrorDir(cacheDir: string, host: string): string {
  const readable = host.replace(/[^\w.@-]+/g, '_').slice(0, 40);
  const hash = createHash('sha256').update(host).digest('hex').slice(0, 8);
  return join(cacheDir, 'hosts', `${readable}-${hash}`);
}

/**
 * The agents' roots on a host, from what the probe printed: `$HOME`, then each of `mirrorVariables()` (empty: unset).
 * Each adapter says where its sessions are from those, as it does on this machine; a relative value is taken
 * against the login directory, as the host's shell would. Null when the host named no absolute home.
 */
export function remoteHomes(lines: readonly string[]): RemoteHomes | null {
  const [home, ...values] = lines;
  if (!home || !home.startsWith('/')) return null;
  const env: Record<string, string | undefined> = {};
  mirrorVariables().forEach((name, i) => {
    if (values[i]) env[name] = values[i];
  });
  const environment: RootEnvironment = { home: undefined, env, homeDir: home, abs: (path) => posix.resolve(home, path) };
  const roots = noRoots();
  for (const adapter of ADAPTER_LIST) {
    const found = adapter.mirror.hostRoots ? adapter.mirror.hostRoots(environment) : adapter.locations.defaultRoots(environment);
    roots[adapter.agent] = [...new Set(found.filter((root) => root.startsWith('/')).map((root) => posix.normalize(root)))];
  }
  return { home, roots };
}

/**
 * Where a mirror's sessions are looked for: each agent's roots on the host, as they are in the mirror, the login
 * directory as the cwd, nothing outside the mirror (the folders around it are this machine's), and no roots from
 * other sessions' cwds (those are the host's paths): the workspaces they name are given as `workspaces` (host paths).
 */
export function mirrorLocations(dir: string, remote: RemoteHomes, workspaces: MirrorWorkspaces = {}): Locations {
  const roots = noRoots();
  for (const agent of AGENTS) roots[agent] = [...new Set([...remote.roots[agent], ...(workspaces[agent] ?? [])])].map((root) => join(dir, root));
  return { roots, cwd: join(dir, remote.home), rootsFromCwds: false, within: dir };
}

/**
 * The folders, per agent, that `sessions` on the host would also look in because other sessions ran there (claw's
 * workspaces: `discovery.rootsFromCwds`) and that the search of the agent's roots does not reach: each row's cwd (a
 * host path), of the agents that do not find roots that way.
 */
export function workspacesOf(rows: Iterable<Pick<CatalogSession, 'agent' | 'cwd'>>, remote: RemoteHomes): Partial<Record<Agent, string[]>> {
  const cwds = new Set<string>();
  for (const row of rows) if (row.cwd !== null && row.cwd.startsWith('/') && !ADAPTERS[row.agent].discovery?.rootsFromCwds) cwds.add(posix.normalize(row.cwd).replace(/(.)\/+$/, '$1'));
  const out: Partial<Record<Agent, string[]>> = {};
  for (const adapter of ADAPTER_LIST) {
    const spec = adapter.mirror.workspaces;
    if (spec === undefined || !adapter.discovery?.rootsFromCwds) continue;
    const roots = remote.roots[adapter.agent];
    const wanted = [...cwds].filter((cwd) => !roots.some((root) => spec.reached(root, cwd))).sort();
    if (wanted.length > 0) out[adapter.agent] = wanted;
  }
  return out;
}

/** The workspaces of `a` and of `b`, each once. */
function unionWorkspaces(a: MirrorWorkspaces, b: MirrorWorkspaces): Partial<Record<Agent, string[]>> {
  const out: Partial<Record<Agent, string[]>> = {};
  for (const agent of AGENTS) {
    const dirs = [...new Set([...(a[agent] ?? []), ...(b[agent] ?? [])])].sort();
    if (dirs.length > 0) out[agent] = dirs;
  }
  return out;
}

/** Workspaces of `next` not in `known`. */
function newWorkspaces(next: MirrorWorkspaces, known: MirrorWorkspaces): Partial<Record<Agent, string[]>> {
  const out: Partial<Record<Agent, string[]>> = {};
  for (const agent of AGENTS) {
    const dirs = (next[agent] ?? []).filter((dir) => !(known[agent] ?? []).includes(dir));
    if (dirs.length > 0) out[agent] = dirs;
  }
  return out;
}

/** The rsync arguments of a mirror: its sources on the host and the filter that picks the agents' session files there. */
export interface MirrorTransfer {
  /** Each root, with a trailing slash (a root that is a symlink on the host is followed). */
  readonly sources: readonly string[];
  /** `--include=` / `--exclude=` arguments, in order: the first that matches a path decides. */
  readonly filter: readonly string[];
}

/**
 * What a mirror copies: each agent's roots on the host, and in them only what the adapter's `mirror.filter` includes
 * (never a whole agent home: it holds credentials). Every rule is anchored at its root (rsync's `--relative` paths
 * are the host's full paths); a deeper root's rules come before those of a root above it (claw searches the home
 * that holds the other agents' folders), and what no rule includes is left on the host.
 */
export function mirrorTransfer(remote: RemoteHomes, workspaces: MirrorWorkspaces = {}): MirrorTransfer {
  const roots = ADAPTER_LIST.flatMap((adapter) => [
    ...remote.roots[adapter.agent].map((root) => ({ root, rules: adapter.mirror.filter })),
    ...(adapter.mirror.workspaces ? (workspaces[adapter.agent] ?? []).map((root) => ({ root, rules: adapter.mirror.workspaces!.filter })) : []),
  ]);
  roots.sort((a, b) => depth(b.root) - depth(a.root));
  const filter: string[] = [];
  const folders = new Set<string>();
  // The folders down to each root are walked (a root below another one is reached through it).
  for (const { root } of roots) {
    for (let dir = root; ; dir = posix.dirname(dir)) {
      if (dir !== '/') folders.add(dir);
      if (posix.dirname(dir) === dir) break;
    }
  }
  for (const dir of [...folders].sort()) filter.push(`--include=${rsyncLiteral(dir, '/')}`);
  for (const { root, rules } of roots) {
    for (const rule of rules) {
      const match = /^([+-]) (.+)$/.exec(rule);
      if (!match) throw new Error(`not an rsync filter rule: ${rule}`);
      filter.push(`${match[1] === '+' ? '--include' : '--exclude'}=${rsyncLiteral(root === '/' ? '' : root, `/${match[2]!}`)}`);
    }
  }
  filter.push('--exclude=*');
  return { sources: [...new Set(roots.map(({ root }) => (root === '/' ? '/' : `${root}/`)))], filter };
}

/** The rsync that copies a host's sessions into its mirror `dir`: one round trip; stdout names each file it copied. */
export function mirrorRsyncArgv(host: string, settings: SshSettings, transfer: MirrorTransfer, dir: string): string[] {
  return [
    'rsync',
    // Recursive with times (unchanged files are skipped by size and time); no symlinks, devices or owners: only
    // regular files arrive, and nothing here is deleted because the host no longer has it. Folders the filter walked
    // through but that hold nothing wanted are not made here (-m).
    '-rt',
    '-m',
    '--relative',
    '--ignore-missing-args',
    // The host's paths go to its rsync over the protocol, never through its shell (a workspace is a cwd a session
    // file recorded: untrusted text).
    '-s',
    '--chmod=Du=rwx,Dgo=,Fu=rw,Fgo=',
    // One line per item changed here (`>f…` for a file received): what the index reads again.
    '--out-format=%i %n',
    // A host that stops sending mid-sync (the link, not the handshake) ends the sync: rsync's I/O timeout.
    `--timeout=${Math.ceil(hostLimits(settings).idleMs / 1000)}`,
    '-e',
    rsyncShell(settings),
    ...transfer.filter,
    '--',
    ...transfer.sources.map((source) => `${host}:${source}`),
    `${dir}/`,
  ];
}

/** `prefix` (a path, taken literally) followed by `pattern` (rsync wildcards), as one rsync pattern. */
function rsyncLiteral(prefix: string, pattern: string): string {
  // A pattern with no wildcard is matched literally (a backslash in it is a backslash); in one with wildcards, the
  // path's own wildcard characters and backslashes are escaped.
  const wild = /[*?[]/.test(prefix) || /[*?[]/.test(pattern);
  return `${wild ? prefix.replace(/[*?[\\]/g, '\\$&') : prefix}${pattern}`;
}

function depth(path: string): number {
  return path.split('/').filter(Boolean).length;
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
        // The rows are in: from here on the stream only says what changed, whenever it does.
        run.complete();
        this.setStatus({ kind: 'ready', via: 'sessions', sessions: this.rows.size });
        synced();
      });
    };
    const run = runCommand(sshArgv(this.context.settings, this.host, PROBE_LINE, 'batch'), { onLine, keepStdinOpen: true, limits: hostLimits(this.context.settings) });
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
    const locations = mirrorLocations(dir, remote);
    this.mirror = { dir, remote, locations, context: null, workspaces: {}, indexed: null };
    await this.syncMirror(this.mirror);
  }

  /** One NDJSON line of a host's `sessions list --watch --json`. */
  private streamLine(line: string, fresh: Map<string, CatalogSession> | null, onSynced: () => void): void {
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
      const { maxRows } = hostLimits(this.context.settings);
      if (target.size > maxRows) this.stream?.stop(`sent over ${maxRows} rows`);
    }
    if (fresh === null) {
      this.status = { kind: 'ready', via: 'sessions', sessions: this.rows.size };
      this.onUpdate(this);
    }
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
    if (synced.code !== 0) {
      // What did arrive stays (additive), and is listed: a dropped sync shows what the last one brought. No state is
      // written: the next sync looks at every file.
      this.fail(synced.reason);
      if (mirror.context === null) await this.indexMirror(mirror, workspaces, cache, null);
      return;
    }
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
      if (extra.code !== 0) {
        this.fail(extra.reason);
        return;
      }
      // Indexed even when rsync copied nothing: the mirror may hold a workspace's files from before its state was lost.
      if (!(await this.indexMirror(mirror, next, cache, extra.copied === null ? null : new Set(extra.copied)))) return;
      await this.finishSync(mirror, next, cache, cachePath);
    } else await this.finishSync(mirror, workspaces, cache, cachePath);
    this.setStatus({ kind: 'ready', via: 'mirror', sessions: this.rows.size });
  }

  /** One rsync of the host's roots (and these workspaces) into the mirror: the files it copied, as paths in the mirror. */
  private async rsync(mirror: Mirror, workspaces: MirrorWorkspaces): Promise<{ code: number | null; reason: string; copied: string[] | null }> {
    const result = await runCommand(mirrorRsyncArgv(this.host, this.context.settings, mirrorTransfer(mirror.remote, workspaces), mirror.dir));
    return { code: result.code, reason: result.code === 0 ? '' : failureReason(result, 'rsync failed'), copied: copiedFiles(result.stdout, mirror.dir) };
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
    const tag = (row: CatalogSession): CatalogSession => mirrorRow(row, this.host, mirror.dir);
    this.rows = new Map(result.sessions.map((row) => {
      const tagged = tag(row);
      return [sessionKey(tagged), tagged];
    }));
    this.subagentRows = result.subagentSessions.map(tag);
    this.problems.push(...result.problems.map((problem) => ({ ...problem, path: isAbsolute(problem.path) ? hostPath(mirror.dir, problem.path) : problem.path })));
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

/**
 * A row of a mirror as a row of its host: its files are read here (`mirror` says where), and a cwd the files' place
 * names (claw keeps sessions in the workspace) is the host's directory.
 */
export function mirrorRow(row: CatalogSession, host: string, mirror: string): CatalogSession {
  return { ...row, host, mirror, cwd: row.cwd === null ? null : hostPath(mirror, row.cwd) };
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
