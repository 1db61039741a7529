// Where a mirrored host's sessions are, there and here: the agents' roots on the host (from its variables), the
// folder a host is mirrored into, what rsync copies (its filter) and how, and a mirror row's paths as the host's.
import { createHash } from 'node:crypto';
import { join, posix } from 'node:path';
import { noRoots, type Locations } from '../catalog/locations.js';
import type { CatalogSession } from '../catalog/scan.js';
import { ADAPTER_LIST, ADAPTERS } from '../core/formats/index.js';
import type { RootEnvironment } from '../core/formats/types.js';
import { AGENTS, type Agent } from '../core/model.js';
import { hostLimits, rsyncShell, type SshSettings } from './ssh.js';

/** Where the agents keep their sessions on the host (what its login shell says): each agent's roots there. */
export interface RemoteHomes {
  readonly home: string;
  /** Each agent's roots on the host: what `sessions` run there would read (its adapter's defaults, with the host's variables). */
  readonly roots: Readonly<Record<Agent, readonly string[]>>;
}

/** Host folders, per agent, whose sessions a mirror copies besides the agents' roots (claw workspaces other sessions ran in). */
export type MirrorWorkspaces = Readonly<Partial<Record<Agent, readonly string[]>>>;

/** The variables the agents' roots depend on (every adapter's `mirror.variables`), in registry order, each once. */
export function mirrorVariables(): string[] {
  const names = [...new Set(ADAPTER_LIST.flatMap((adapter) => adapter.mirror.variables))];
  for (const name of names) if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new Error(`not a variable name: ${name}`);
  return names;
}

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
export function unionWorkspaces(a: MirrorWorkspaces, b: MirrorWorkspaces): Partial<Record<Agent, string[]>> {
  const out: Partial<Record<Agent, string[]>> = {};
  for (const agent of AGENTS) {
    const dirs = [...new Set([...(a[agent] ?? []), ...(b[agent] ?? [])])].sort();
    if (dirs.length > 0) out[agent] = dirs;
  }
  return out;
}

/** Workspaces of `next` not in `known`. */
export function newWorkspaces(next: MirrorWorkspaces, known: MirrorWorkspaces): Partial<Record<Agent, string[]>> {
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
