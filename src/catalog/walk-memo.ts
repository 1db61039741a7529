import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, renameSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, sep } from 'node:path';
import type { SessionFileGroup } from '../core/formats/types.js';
import { readRegularFileSync } from '../core/io/regular.js';
import { recordWalkAnswers, walkAnswerHolds, type WalkAnswer, type WalkKind } from '../core/io/walk-fs.js';
import { AGENTS, type Agent } from '../core/model.js';
import { locationsKey } from './cache.js';
import type { Locations } from './locations.js';

/**
 * 2: the answers and candidates on the first line, the roots on the second (the answers' check starts before the roots
 * are parsed). 3: a group's paths as the place of their folder among the listed ones and their name (`SavedGroup`).
 * 4: the same layout, one memo per run (`defaultWalkMemoPath`).
 */
const VERSION = 4;

/** The memos of one set of locations kept, the newest (one per directory and agents a grep ran with). */
export const WALK_MEMOS_KEPT = 4;

/** What discovery found of one root: whether it is one of its agent's roots, its real path, and its groups when it was walked. */
export interface RootWalk {
  readonly isRoot: boolean;
  readonly real: string | null;
  readonly groups?: readonly SessionFileGroup[];
}

/**
 * Where `grep` keeps what its walks found for a set of locations (beside the catalog cache): one memo per run of
 * another directory or agents (`walkMemoKey`'s parts beside the roots), so that a grep from another directory, or of
 * one agent, does not walk everything again and replace the memo the next grep from here reads (at 10k sessions a
 * walk and its memo's write took ~0.6 s of CPU more than a run from its memo).
 */
export function defaultWalkMemoPath(
  env: Readonly<Record<string, string | undefined>>,
  homeDir: string,
  locations: Pick<Locations, 'roots' | 'cwd' | 'rootsFromCwds' | 'within'>,
  agents?: readonly Agent[],
): string {
  const base = env.XDG_CACHE_HOME || join(homeDir, '.cache');
  const run = createHash('sha256')
    .update(JSON.stringify([locations.cwd, locations.rootsFromCwds ?? true, locations.within ?? null, agents ?? null]))
    .digest('hex')
    .slice(0, 16);
  return join(base, 'sessions', `grep-walk-v${VERSION}-${locationsKey(locations)}-${run}.json`);
}

/**
 * Beside `path` (a default path's name: `grep-walk-v<N>-<locations>-<run>.json`), once it is written: the memos earlier
 * versions kept for the same locations (`grep-walk-v<N>-<locations>.json`: no run reads them again, 23.6 MB at 100k
 * sessions each), and this version's of the same locations past the newest WALK_MEMOS_KEPT. Nothing else.
 */
function removeStaleMemos(path: string): void {
  const named = /^grep-walk-v(\d+)-([0-9a-f]+)-[0-9a-f]+\.json$/.exec(basename(path));
  if (named === null || Number(named[1]) !== VERSION) return;
  const folder = dirname(path);
  const runs = new RegExp(`^grep-walk-v${VERSION}-${named[2]}-[0-9a-f]+\\.json$`);
  const remove = (name: string): void => {
    try {
      unlinkSync(join(folder, name));
    } catch {
      // gone already, or not ours to remove
    }
  };
  for (let version = 1; version < VERSION; version++) remove(`grep-walk-v${version}-${named[2]}.json`);
  const kept: { readonly name: string; readonly mtimeMs: number }[] = [];
  try {
    for (const name of readdirSync(folder)) {
      if (!runs.test(name) || name === basename(path)) continue;
      const mtimeMs = statSync(join(folder, name), { throwIfNoEntry: false })?.mtimeMs;
      if (mtimeMs !== undefined) kept.push({ name, mtimeMs });
    }
  } catch {
    return;
  }
  kept.sort((a, b) => b.mtimeMs - a.mtimeMs);
  for (const { name } of kept.slice(WALK_MEMOS_KEPT - 1)) remove(name);
}

/** The runs a memo may answer for: the same roots, current directory, agents and cwd rule (anything else is walked again). */
export function walkMemoKey(locations: Locations, agents: readonly Agent[]): string {
  return JSON.stringify([AGENTS.map((agent) => locations.roots[agent]), locations.cwd, locations.rootsFromCwds ?? true, locations.within ?? null, agents]);
}

/** A memo's first line once parsed: what its roots' groups are checked against. */
interface Header {
  readonly answers: WalkAnswer[];
  readonly candidates: Map<Agent, readonly string[]>;
  /** The folders the walks listed, in order (every file a memo names is in one: see SavedGroup). */
  readonly listed: string[];
}

/**
 * A group's paths as pairs: the place of the path's folder among the listed ones (the `d` answers, in order) and its
 * name in it. Every file a memo names is in a folder its walks listed: so it holds, and a path is made, not checked,
 * when read (a third less to read at 100k sessions than the paths spelled out, and no lookup of each one's folder).
 */
type SavedGroup = readonly [paths: readonly (number | string)[], idHint: string | null, archived: boolean];
type SavedRoot = readonly [agent: Agent, root: string, isRoot: boolean, real: string | null, groups: readonly SavedGroup[] | null];

/**
 * What the last `grep` over these locations found in its folder walks (candidate roots, each root's check and its
 * file groups), with every file system answer the walks rested on (`WalkAnswer`: a folder's mtime, a path's kind,
 * a real path). When every answer still holds — a stat or realpath each, ~40 ms for a 10k-session home against
 * the walk's hundreds — the same walk would find the same files, so they are searched at once; when one does not,
 * nothing of it is used and the walk is done (and recorded) again. The file is not trusted: anything malformed is
 * the same as no file.
 */
export class WalkMemo {
  private answers: WalkAnswer[];
  private candidates: Map<Agent, readonly string[]>;
  private roots: Map<string, RootWalk>;
  /** A walk ran live (its answers were recorded): the memo is written again. */
  private changed = false;
  /** Something a walk met was reported as a problem: a replay would not report it again, so nothing is saved. */
  private spoiled = false;
  /** The check `read` started of the answers it read (see `read`'s `startCheck`), or null. */
  private pending: Promise<boolean> | null = null;

  /** An empty memo, kept at `path` for runs of `key`: `load` reads what is there. */
  constructor(
    private readonly path: string,
    private readonly key: string,
  ) {
    this.answers = [];
    this.candidates = new Map();
    this.roots = new Map();
  }

  /**
   * Read the memo (its answers are not checked yet: `verify`); it stays empty when the file is missing, malformed or
   * another run's. True when it holds what earlier walks found. `startCheck` may start checking the answers as soon as
   * they are read, before the roots are (the native engine's `nativeAnswersHoldLater`, on another thread; null: it
   * cannot): `verify` then waits for that check.
   */
  read(startCheck?: (answers: readonly WalkAnswer[]) => Promise<boolean> | null): boolean {
    this.pending = null;
    try {
      const text = readRegularFileSync(this.path);
      const end = text.indexOf('\n');
      const header = end < 0 ? null : parseHeader(JSON.parse(text.slice(0, end)) as unknown, this.key);
      if (header === null) return false;
      const pending = startCheck?.(header.answers) ?? null;
      const roots = parseRoots(JSON.parse(text.slice(end + 1)) as unknown, header.listed);
      if (roots === null) return false;
      this.answers = header.answers;
      this.candidates = header.candidates;
      this.roots = roots;
      this.pending = pending;
      return true;
    } catch {
      return false;
    }
  }

  /**
   * Whether every answer read still holds (a stat or realpath each). Until this says so, what `read` found may be
   * searched but nothing found in it may be reported: when one answer does not hold, the walks must run again.
   * `check` may check them all at once (the native engine's `nativeAnswersHold`; null: it cannot, they are checked here);
   * a check `read` started is waited for instead.
   */
  verify(check?: (answers: readonly WalkAnswer[]) => boolean | null): boolean | Promise<boolean> {
    return this.pending ?? check?.(this.answers) ?? this.answers.every(walkAnswerHolds);
  }

  /** Read the memo and check it at once: empty unless every answer holds (`read` + `verify`). */
  load(): void {
    if (this.read() && this.verify() !== true) {
      this.answers = [];
      this.candidates = new Map();
      this.roots = new Map();
    }
  }

  /** Record the answers of the walks that run live from now on (synchronous ones: see `whileWalkingSynchronously`). */
  startRecording(): void {
    recordWalkAnswers((answer) => {
      this.answers.push(answer);
      this.changed = true;
    });
  }

  stopRecording(): void {
    recordWalkAnswers(null);
  }

  candidatesOf(agent: Agent): readonly string[] | undefined {
    return this.candidates.get(agent);
  }

  rememberCandidates(agent: Agent, roots: readonly string[]): void {
    this.candidates.set(agent, roots);
  }

  rootWalk(agent: Agent, root: string): RootWalk | undefined {
    return this.roots.get(`${agent}\0${root}`);
  }

  rememberRoot(agent: Agent, root: string, walk: RootWalk): void {
    // Saved groups name their agent and root by the entry: a group that does not is not kept (walked again next time).
    if (walk.groups?.some((group) => group.agent !== agent || group.root !== root)) this.spoiled = true;
    this.roots.set(`${agent}\0${root}`, walk);
  }

  /** A problem was reported while walking. */
  spoil(): void {
    this.spoiled = true;
  }

  /** Write the memo when a walk ran live and met no problem (temp file + rename; a failure only costs the next run a walk). */
  save(): void {
    if (!this.changed || this.spoiled) return;
    const answers = essentialAnswers(this.answers);
    const listed = new Map<string, number>();
    for (const answer of answers) if (answer[0] === 'd') listed.set(answer[1], listed.size);
    /** A group's paths as SavedGroup's pairs; null when one is not a plain name in a listed folder (nothing is saved). */
    const pairs = (paths: readonly string[]): (number | string)[] | null => {
      const out: (number | string)[] = [];
      for (const path of paths) {
        const folder = dirname(path);
        const at = listed.get(folder);
        const name = path.slice(folder.length + (folder.endsWith(sep) ? 0 : 1));
        if (at === undefined || !isPlainName(name) || inFolder(folder, name) !== path) return null;
        out.push(at, name);
      }
      return out;
    };
    const roots: SavedRoot[] = [];
    for (const [id, walk] of this.roots) {
      const at = id.indexOf('\0');
      let groups: SavedGroup[] | null = null;
      if (walk.groups !== undefined) {
        groups = [];
        for (const group of walk.groups) {
          const paths = pairs(group.paths);
          // A memo that would not be read back is not written (the next run walks, as it would).
          if (paths === null) return;
          groups.push([paths, group.idHint, group.archived]);
        }
      }
      roots.push([id.slice(0, at) as Agent, id.slice(at + 1), walk.isRoot, walk.real, groups]);
    }
    // Two lines: the answers' check can start once the first is parsed (see `read`).
    const text = `${JSON.stringify({ version: VERSION, key: this.key, answers, candidates: [...this.candidates] })}\n${JSON.stringify(roots)}\n`;
    const temp = `${this.path}.tmp-${process.pid}`;
    try {
      mkdirSync(dirname(this.path), { recursive: true, mode: 0o700 });
      try {
        unlinkSync(temp);
      } catch {
        // no leftover
      }
      writeFileSync(temp, text, { flag: 'wx', mode: 0o600 });
      renameSync(temp, this.path);
      removeStaleMemos(this.path);
    } catch {
      try {
        unlinkSync(temp);
      } catch {
        // nothing written
      }
    }
  }
}

/**
 * The answers a memo must check, each once (walks ask the same of a path more than once: the roots of several agents
 * in one cwd), without those a listed folder's answer implies: that a listed folder is a directory, and that a path
 * missing directly in a listed folder is missing (while the folder keeps its inode and mtime, its entries are the
 * same). On a 10k-session home: 11.5k answers to check, ~80 ms, down to ~6.5k.
 */
export function essentialAnswers(answers: readonly WalkAnswer[]): WalkAnswer[] {
  const listed = new Set<string>();
  for (const answer of answers) if (answer[0] === 'd') listed.add(answer[1]);
  const seen = new Set<string>();
  const out: WalkAnswer[] = [];
  for (const answer of answers) {
    if (answer[0] === 'k' && ((answer[2] === 'd' && listed.has(answer[1])) || (answer[2] === '-' && listed.has(dirname(answer[1])) && dirname(answer[1]) !== answer[1]))) continue;
    const key = JSON.stringify(answer);
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(answer);
  }
  return out;
}

const isString = (value: unknown): value is string => typeof value === 'string';
const isAgent = (value: unknown): value is Agent => (AGENTS as readonly unknown[]).includes(value);
const isKind = (value: unknown): value is WalkKind => value === 'f' || value === 'd' || value === 'o' || value === '-';

function parseHeader(value: unknown, key: string): Header | null {
  if (typeof value !== 'object' || value === null) return null;
  const data = value as Record<string, unknown>;
  if (data.version !== VERSION || data.key !== key || !Array.isArray(data.answers) || !Array.isArray(data.candidates)) return null;
  // The answers are checked in place (not copied: a 10k-session home's memo holds thousands).
  const answers = data.answers as WalkAnswer[];
  // Every file a memo names is in a folder its walks listed.
  const listed: string[] = [];
  for (const answer of answers as unknown[]) {
    if (!Array.isArray(answer) || !isString(answer[1])) return null;
    if (answer[0] === 'd' && answer.length === 4 && (answer[2] === null || typeof answer[2] === 'number') && typeof answer[3] === 'number') listed.push(answer[1]);
    else if (answer[0] === 'k' && answer.length === 3 && isKind(answer[2])) continue;
    else if (!(answer[0] === 'r' && answer.length === 3 && (answer[2] === null || isString(answer[2])))) return null;
  }
  const candidates = new Map<Agent, readonly string[]>();
  for (const entry of data.candidates as unknown[]) {
    if (!Array.isArray(entry) || entry.length !== 2 || !isAgent(entry[0]) || !Array.isArray(entry[1]) || !(entry[1] as unknown[]).every(isString)) return null;
    candidates.set(entry[0], entry[1] as string[]);
  }
  return { answers, candidates, listed };
}

/** A name a folder can hold: not empty, not `.` or `..`, no separator in it. */
function isPlainName(name: unknown): name is string {
  return typeof name === 'string' && name.length > 0 && name !== '.' && name !== '..' && !name.includes('/') && (sep === '/' || !name.includes(sep));
}

/** `join(folder, name)` for a plain name in a folder a walk listed (no normalisation to do). */
function inFolder(folder: string, name: string): string {
  return folder.endsWith(sep) ? folder + name : `${folder}${sep}${name}`;
}

/** A group's paths from SavedGroup's pairs, or null when they are not pairs of a listed folder and a plain name. */
function pathsOf(pairs: unknown, listed: readonly string[]): string[] | null {
  if (!Array.isArray(pairs) || pairs.length === 0 || pairs.length % 2 !== 0) return null;
  const paths = new Array<string>(pairs.length / 2);
  for (let at = 0; at < pairs.length; at += 2) {
    const folder = listed[pairs[at] as number];
    const name = pairs[at + 1] as unknown;
    if (folder === undefined || !Number.isInteger(pairs[at]) || !isPlainName(name)) return null;
    paths[at / 2] = inFolder(folder, name);
  }
  return paths;
}

function parseRoots(value: unknown, listed: readonly string[]): Map<string, RootWalk> | null {
  if (!Array.isArray(value)) return null;
  const roots = new Map<string, RootWalk>();
  for (const entry of value as unknown[]) {
    if (!Array.isArray(entry) || entry.length !== 5) return null;
    const [agent, root, isRoot, real, groups] = entry as unknown[];
    if (!isAgent(agent) || !isString(root) || typeof isRoot !== 'boolean' || (real !== null && !isString(real)) || (groups !== null && !Array.isArray(groups))) return null;
    let found: SessionFileGroup[] | undefined;
    if (Array.isArray(groups)) {
      found = [];
      for (const group of groups as unknown[]) {
        if (!Array.isArray(group) || group.length !== 3) return null;
        const [pairs, idHint, archived] = group as unknown[];
        const paths = pathsOf(pairs, listed);
        if (paths === null || (idHint !== null && !isString(idHint)) || typeof archived !== 'boolean') return null;
        found.push({ agent, paths, idHint: idHint as string | null, root, archived });
      }
    }
    roots.set(`${agent}\0${root}`, found === undefined ? { isRoot, real } : { isRoot, real, groups: found });
  }
  return roots;
}
