import { isUtf8 } from 'node:buffer';
import { createHash } from 'node:crypto';
import { readdirSync, statSync, unlinkSync } from 'node:fs';
import { basename, dirname, join, sep } from 'node:path';
import type { SessionFileGroup } from '../core/formats/types.js';
import { makePrivateFolder, replaceCacheFileSync } from '../core/io/atomic.js';
import { readRegularBytesSync } from '../core/io/regular.js';
import { recordWalkAnswers, walkAnswerHolds, type WalkAnswer, type WalkKind } from '../core/io/walk-fs.js';
import { AGENTS, type Agent } from '../core/model.js';
import { locationsKey } from './cache.js';
import { lineageVerdictsPath } from './lineage-verdicts.js';
import { printedRowsPath } from './printed-rows.js';
import type { Locations } from './locations.js';

/**
 * 2: the answers and candidates on the first line, the roots on the second (the answers' check starts before the roots
 * are parsed). 3: a group's paths as the place of their folder among the listed ones and their name (`SavedGroup`).
 * 4: the same layout, one memo per run (`defaultWalkMemoPath`). 5: a root's groups as `SavedGroups`, their paths after
 * the two lines as the bytes the native engine takes (`PackedPaths`).
 */
const VERSION = 5;

/** The memos of one set of locations kept, the newest (one per directory and agents a grep ran with). */
export const WALK_MEMOS_KEPT = 4;

/** What discovery found of one root: whether it is one of its agent's roots, its real path, and its groups when it was walked. */
export interface RootWalk {
  readonly isRoot: boolean;
  readonly real: string | null;
  readonly groups?: readonly SessionFileGroup[];
  /** Those groups' paths as the native engine takes them, when read from a memo. */
  readonly packed?: PackedPaths;
}

/** Groups' paths in order, as the native engine's push takes them (native-grep.ts): no string is encoded again. */
export interface PackedPaths {
  /** Every path's UTF-8 bytes, each followed by a NUL: `bytes` from `start` to `end` (a memo's paths, of all its roots). */
  readonly bytes: Buffer;
  readonly start: number;
  readonly end: number;
  /** How many paths each group has (null: one each). */
  readonly counts: readonly number[] | null;
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
 * versions kept for the same locations (`grep-walk-v<N>-<locations>.json` and `grep-walk-v<N>-<locations>-<run>.json`:
 * no run reads them again, 23.6 MB at 100k sessions each), and this version's of the same locations past the newest
 * WALK_MEMOS_KEPT, each with its lineage verdicts (`lineageVerdictsPath`) and printed rows (`printedRowsPath`). Nothing else.
 */
function removeStaleMemos(path: string): void {
  const named = /^grep-walk-v(\d+)-([0-9a-f]+)-[0-9a-f]+\.json$/.exec(basename(path));
  if (named === null || Number(named[1]) !== VERSION) return;
  const folder = dirname(path);
  const runs = new RegExp(`^grep-walk-v${VERSION}-${named[2]}-[0-9a-f]+\\.json$`);
  const earlierRuns = new RegExp(`^grep-walk-v(\\d+)-${named[2]}-[0-9a-f]+\\.json$`);
  const remove = (name: string): void => {
    // A memo's lineage verdicts and printed rows go with it.
    for (const gone of [name, basename(lineageVerdictsPath(name)), basename(printedRowsPath(name))]) {
      try {
        unlinkSync(join(folder, gone));
      } catch {
        // gone already, or not ours to remove
      }
    }
  };
  for (let version = 1; version < VERSION; version++) remove(`grep-walk-v${version}-${named[2]}.json`);
  const kept: { readonly name: string; readonly mtimeMs: number }[] = [];
  try {
    for (const name of readdirSync(folder)) {
      const earlier = earlierRuns.exec(name);
      if (earlier !== null && Number(earlier[1]) < VERSION) remove(name);
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
 * A root's groups: for each path, the place of its folder among the listed ones (the `d` answers, in order); how many
 * paths each group has (null: one each); each group's id hint; and which groups are archived (their places). Their
 * paths follow the memo's two lines: every path's UTF-8 bytes and a NUL, roots and groups in order. Every file a memo
 * names is a plain name in a folder its walks listed: so it holds while their answers do (checked when read). The
 * paths' bytes are what the native engine takes (`PackedPaths`): a memo's 10k files are handed over without a string
 * per file made and encoded again.
 */
type SavedGroups = readonly [folders: readonly number[], counts: readonly number[] | null, idHints: readonly (string | null)[], archived: readonly number[]];
type SavedRoot = readonly [agent: Agent, root: string, isRoot: boolean, real: string | null, groups: SavedGroups | null];

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
   * another run's. True when it holds what earlier walks found (each root's groups are checked when first asked for, and
   * every root's by `verify`). `startCheck` may start checking the answers as soon as
   * they are read, before the roots are (the native engine's `nativeAnswersHoldLater`, on another thread; null: it
   * cannot): `verify` then waits for that check.
   */
  read(startCheck?: (answers: readonly WalkAnswer[]) => Promise<boolean> | null): boolean {
    this.pending = null;
    try {
      const bytes = readRegularBytesSync(this.path);
      const end = bytes.indexOf(NEWLINE);
      const header = end < 0 ? null : parseHeader(JSON.parse(bytes.toString('utf8', 0, end)) as unknown, this.key);
      if (header === null) return false;
      const pending = startCheck?.(header.answers) ?? null;
      const second = bytes.indexOf(NEWLINE, end + 1);
      if (second < 0) return false;
      const roots = parseRoots(JSON.parse(bytes.toString('utf8', end + 1, second)) as unknown, header.listed, bytes.subarray(second + 1));
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
    // Every root's groups are made by now (those not asked for yet too): a memo one of whose roots is not whole is stale.
    for (const walk of this.roots.values()) if (walk instanceof MemoRoot && !walk.holds()) return false;
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
    const roots: SavedRoot[] = [];
    /** Every saved path, each followed by a NUL (see SavedGroups). */
    const paths: string[] = [];
    for (const [id, walk] of this.roots) {
      const at = id.indexOf('\0');
      let groups: SavedGroups | null = null;
      if (walk.groups !== undefined) {
        const saved = savedGroups(walk.groups, listed, paths);
        // A memo that would not be read back is not written (the next run walks, as it would).
        if (saved === null) return;
        groups = saved;
      }
      roots.push([id.slice(0, at) as Agent, id.slice(at + 1), walk.isRoot, walk.real, groups]);
    }
    // Two lines, then the paths: the answers' check can start once the first is parsed (see `read`).
    const lines = `${JSON.stringify({ version: VERSION, key: this.key, answers, candidates: [...this.candidates] })}\n${JSON.stringify(roots)}\n`;
    const text = `${lines}${paths.join('')}`;
    if (makePrivateFolder(dirname(this.path)) && replaceCacheFileSync(this.path, text)) removeStaleMemos(this.path);
  }
}

const NEWLINE = 0x0a;

/**
 * A root's groups as saved (SavedGroups), their paths each with a NUL appended to `out`; null when a path is not a
 * plain name in a listed folder, or would not read back as itself (a lone surrogate, a NUL): nothing is saved then.
 */
function savedGroups(groups: readonly SessionFileGroup[], listed: ReadonlyMap<string, number>, out: string[]): SavedGroups | null {
  const folders: number[] = [];
  const counts: number[] = [];
  const idHints: (string | null)[] = [];
  const archived: number[] = [];
  let single = true;
  for (const [place, group] of groups.entries()) {
    if (group.paths.length === 0) return null;
    for (const path of group.paths) {
      const folder = dirname(path);
      const at = listed.get(folder);
      const name = path.slice(folder.length + (folder.endsWith(sep) ? 0 : 1));
      if (at === undefined || !isPlainName(name) || inFolder(folder, name) !== path || path.includes('\0') || !readsBack(path)) return null;
      folders.push(at);
      out.push(`${path}\0`);
    }
    counts.push(group.paths.length);
    if (group.paths.length !== 1) single = false;
    idHints.push(group.idHint);
    if (group.archived) archived.push(place);
  }
  return [folders, single ? null : counts, idHints, archived];
}

/** Whether a path's UTF-8 bytes decode to itself (not when it holds a lone surrogate: written as U+FFFD). */
function readsBack(path: string): boolean {
  return !/[\uD800-\uDFFF]/.test(path) || Buffer.from(path, 'utf8').toString('utf8') === path;
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

/** A non-negative integer below `limit`. */
const isIndex = (value: unknown, limit: number): value is number => typeof value === 'number' && Number.isInteger(value) && value >= 0 && value < limit;

/** The memo's paths (after its two lines), decoded, and where each starts in their bytes. */
interface MemoPaths {
  readonly bytes: Buffer;
  readonly paths: readonly string[];
  /** Where path k's bytes start (k = paths.length: the end). */
  readonly starts: Int32Array;
}

/** `bytes` as every path followed by a NUL (see SavedGroups), or null when they are not. */
function memoPaths(bytes: Buffer): MemoPaths | null {
  // Paths are made of these bytes, and handed to the engine as they are: the strings must be the same paths.
  if (bytes.length === 0) return { bytes, paths: [], starts: new Int32Array(1) };
  if (bytes[bytes.length - 1] !== 0 || !isUtf8(bytes)) return null;
  const paths = bytes.toString('utf8', 0, bytes.length - 1).split('\0');
  const starts = new Int32Array(paths.length + 1);
  let chars = 0;
  for (const path of paths) chars += path.length + 1;
  // Every character one byte (ASCII): a path's bytes are as many as its characters.
  const ascii = chars === bytes.length;
  for (let k = 0, at = 0; k < paths.length; k++) {
    at += (ascii ? paths[k]!.length : Buffer.byteLength(paths[k]!)) + 1;
    starts[k + 1] = at;
  }
  return { bytes, paths, starts };
}

/**
 * A root's saved groups (SavedGroups), their paths the memo's from `from` on; null when they do not hold together, or a
 * path is not a plain name in a listed folder.
 */
function groupsOf(agent: Agent, root: string, saved: unknown, listed: readonly string[], memo: MemoPaths, from: number): { readonly groups: SessionFileGroup[]; readonly packed: PackedPaths } | null {
  if (!Array.isArray(saved) || saved.length !== 4) return null;
  const [folders, counts, idHints, archived] = saved as unknown[];
  if (!Array.isArray(folders) || (counts !== null && !Array.isArray(counts)) || !Array.isArray(idHints) || !Array.isArray(archived)) return null;
  const groupCount = idHints.length;
  const { paths } = memo;
  if ((counts === null ? folders.length !== groupCount : counts.length !== groupCount) || from + folders.length > paths.length) return null;
  for (let at = 0; at < folders.length; at++) {
    const folder = listed[folders[at] as number];
    const path = paths[from + at]!;
    if (folder === undefined || !Number.isInteger(folders[at])) return null;
    // A plain name in the folder: what follows it, up to a separator (none after it), not empty, `.` or `..`.
    const nameAt = folder.length + (folder.endsWith(sep) ? 0 : 1);
    if (!path.startsWith(folder) || (nameAt > folder.length && path[folder.length] !== sep) || path.indexOf('/', nameAt) !== -1 || (sep !== '/' && path.indexOf(sep, nameAt) !== -1)) return null;
    const nameLength = path.length - nameAt;
    if (nameLength === 0 || (nameLength <= 2 && (path.endsWith(`${sep}.`) || path.endsWith(`${sep}..`)))) return null;
  }
  let isArchived: Set<number> | null = null;
  for (const place of archived as unknown[]) {
    if (!isIndex(place, groupCount)) return null;
    (isArchived ??= new Set()).add(place);
  }
  const groups = new Array<SessionFileGroup>(groupCount);
  let next = from;
  const end = from + folders.length;
  for (let place = 0; place < groupCount; place++) {
    const count = counts === null ? 1 : (counts[place] as unknown);
    const idHint = idHints[place] as unknown;
    if (!isIndex(count, end - next + 1) || count === 0 || (idHint !== null && !isString(idHint))) return null;
    groups[place] = { agent, paths: count === 1 ? [paths[next]!] : paths.slice(next, next + count), idHint, root, archived: isArchived?.has(place) ?? false };
    next += count;
  }
  if (next !== end) return null;
  return { groups, packed: { bytes: memo.bytes, start: memo.starts[from]!, end: memo.starts[end]!, counts: counts as number[] | null } };
}

/**
 * A root's groups as a memo saved them, made (and checked: `groupsOf`) when first asked for: grep hands the first root's
 * to the engine while the others are still to be made. `holds` says whether they are the memo's (`WalkMemo.verify`
 * asks it of every root before anything found in them is reported); a root whose groups are not has none.
 */
class MemoRoot implements RootWalk {
  private made: { readonly groups: SessionFileGroup[]; readonly packed: PackedPaths } | null | undefined;

  constructor(
    readonly isRoot: boolean,
    readonly real: string | null,
    private readonly agent: Agent,
    private readonly root: string,
    private readonly saved: unknown,
    private readonly listed: readonly string[],
    private readonly memo: MemoPaths,
    private readonly from: number,
  ) {}

  get groups(): readonly SessionFileGroup[] {
    return this.make()?.groups ?? [];
  }

  get packed(): PackedPaths | undefined {
    return this.make()?.packed;
  }

  holds(): boolean {
    return this.make() !== null;
  }

  private make(): { readonly groups: SessionFileGroup[]; readonly packed: PackedPaths } | null {
    if (this.made === undefined) {
      try {
        this.made = groupsOf(this.agent, this.root, this.saved, this.listed, this.memo, this.from);
      } catch {
        this.made = null;
      }
    }
    return this.made;
  }
}

/**
 * The roots' line and the paths after it (`bytes`: every one of them, nothing else; see SavedGroups). Each root's groups
 * are made when first asked for (MemoRoot); how many paths each root has is checked here.
 */
function parseRoots(value: unknown, listed: readonly string[], bytes: Buffer): Map<string, RootWalk> | null {
  const memo = Array.isArray(value) ? memoPaths(bytes) : null;
  if (memo === null) return null;
  const roots = new Map<string, RootWalk>();
  let from = 0;
  for (const entry of value as unknown[]) {
    if (!Array.isArray(entry) || entry.length !== 5) return null;
    const [agent, root, isRoot, real, groups] = entry as unknown[];
    if (!isAgent(agent) || !isString(root) || typeof isRoot !== 'boolean' || (real !== null && !isString(real))) return null;
    if (groups === null) {
      roots.set(`${agent}\0${root}`, { isRoot, real });
      continue;
    }
    if (!Array.isArray(groups) || groups.length !== 4 || !Array.isArray(groups[0])) return null;
    const count = (groups[0] as unknown[]).length;
    if (from + count > memo.paths.length) return null;
    roots.set(`${agent}\0${root}`, new MemoRoot(isRoot, real, agent, root, groups, listed, memo, from));
    from += count;
  }
  return from === memo.paths.length ? roots : null;
}
