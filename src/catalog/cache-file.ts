import { lstat, readdir, rename, rmdir, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { openNewFile } from '../core/io/atomic.js';
import { readLines } from '../core/io/lines.js';
import { AGENTS, type Agent, type ForkOrigin, type SubagentOrigin, type Usage } from '../core/model.js';
import { makeEntry, stampsOfEntry, type CacheEntry, type FileStamp } from './cache-entry.js';
import { KeysCollector } from './cache-keys-index.js';
import type { CatalogSession } from './row.js';

/** Bump when SessionSummary, the adapters' reading or the file format changes meaning: old caches are then ignored. */
// 5: a Claude fold records whether the file is one chain in file order (`show` prints such a file in one pass).
// 7: Qwen Code prompts without the reminders it adds to them; Gemini /compress, Copilot sub-agents, plugin slash commands.
export const CACHE_VERSION = 7;

// The cache file's format: how its entries are encoded, written, read and decoded, and which files beside it
// belong to older versions.
//
// Line 1: {"version":5}. Then, in any order, string lines ["s", text] (each appends to a table of shared
// strings; entries refer to it by index) and entry lines, one JSON object per cached file group. Last line:
// {"end": number of entries, all kinds} (a file without it was cut short and is not trusted). Files that hold no
// conversation are an entry {"none": [[path, size, mtimeMs, fingerprint], ...]} (not read again until they change).
// A store of many conversations (opencode's database) is {"store": [its stamp, its companions' ...], "rows": [entry
// of each conversation, as below]}.
// In an entry of a conversation:
//   paths   [path, ...]   whole strings: a path built from a shared directory and a name would be a V8 cons
//           string, flattened into a private copy of its directory part the first time it is compared
//   path    index into paths, or the string itself
//   stamps  [[path, size, mtimeMs, fingerprint], ...]   path: index into paths, or the string itself
//   fold    offset where the live file's saved fold stopped (the fold is in <cache>.folds/<sha1 of path>.json)
//   cwd, root, model, gitBranch   table index or null
//   title, firstPrompt, lastPrompt   index into prompts, -1 (title only) for name, or a string / null
// and every other field of CatalogSession as it is.

interface EncodedEntry {
  readonly id: string;
  readonly agent: string;
  readonly paths: readonly string[];
  readonly path: number | string;
  readonly stamps: readonly (readonly [number | string, number, number, string])[];
  readonly fold?: number;
  readonly cwd: number | null;
  readonly root: number;
  readonly model: number | null;
  readonly gitBranch: number | null;
  readonly title: number | string;
  readonly firstPrompt: number | string | null;
  readonly lastPrompt: number | string | null;
  readonly name: string | null;
  readonly prompts: readonly string[];
  readonly userTurns: number;
  readonly userTurnsExact: boolean;
  readonly createdAt: string;
  readonly updatedAt: string;
  readonly forkedFrom: string | null;
  readonly fork: ForkOrigin | null;
  readonly lineage?: string;
  readonly subagent?: SubagentOrigin;
  readonly archived: boolean;
  readonly usage: Usage | null;
  readonly size: number;
  readonly mtimeMs: number;
}

/** Bytes gathered before a write: big enough for few system calls, small enough to never matter. */
const WRITE_CHUNK = 1 << 20;

/**
 * Write the cache file at `path` (temp file + rename), and beside it its keys index (cache-keys-index.ts: where the
 * lines of each id, lineage, parent, cwd and folder are, so that `show <id>` reads only those).
 */
export async function writeEntries(path: string, entries: Iterable<readonly [string, CacheEntry]>): Promise<void> {
  const temp = `${path}.tmp-${process.pid}`;
  // Exclusive create (after removing a leftover of this PID): never opens a FIFO or follows a symlink put there.
  await unlink(temp).catch(() => undefined);
  const handle = await openNewFile(temp);
  const keys = new KeysCollector();
  let ino: bigint;
  try {
    const table = new Map<string, number>();
    const version = `${JSON.stringify({ version: CACHE_VERSION })}\n`;
    keys.text(version);
    let buffered = version;
    const ref = (text: string): number => {
      let index = table.get(text);
      if (index === undefined) {
        index = table.size;
        table.set(text, index);
        const line = `${JSON.stringify(['s', text])}\n`;
        keys.sharedString(text, line);
        buffered += line;
      }
      return index;
    };
    let count = 0;
    for (const [first, entry] of entries) {
      const stamps = stampsOfEntry(first, entry);
      const rows = entry.rows?.map((row) => encodeEntry(stamps.slice(0, 1), row, undefined, ref));
      const encoded = rows === undefined && entry.session !== null ? encodeEntry(stamps, entry.session, entry.fold, ref) : null;
      const line = JSON.stringify(rows !== undefined ? { store: stamps, rows } : (encoded ?? { none: stamps })); // after the string lines it adds
      keys.entry(line, stamps, rows ?? (encoded === null ? [] : [encoded]), encoded?.id ?? null);
      buffered += `${line}\n`;
      count++;
      if (buffered.length >= WRITE_CHUNK) {
        await handle.write(buffered);
        buffered = '';
      }
    }
    const end = `${JSON.stringify({ end: count })}\n`;
    keys.text(end);
    await handle.write(`${buffered}${end}`);
    ino = (await handle.stat({ bigint: true })).ino;
  } catch (error) {
    await handle.close();
    await unlink(temp).catch(() => undefined);
    throw error;
  }
  await handle.close();
  await rename(temp, path);
  keys.write(path, ino);
}

function encodeEntry(stamps: readonly FileStamp[], s: CatalogSession, fold: number | undefined, ref: (text: string) => number): EncodedEntry {
  const promptRef = (text: string | null): number | string | null => {
    if (text === null) return null;
    const at = s.prompts.indexOf(text);
    return at === -1 ? text : at;
  };
  const pathRef = (path: string): number | string => {
    const at = s.paths.indexOf(path);
    return at === -1 ? path : at;
  };
  return {
    id: s.id,
    agent: s.agent,
    paths: s.paths,
    path: pathRef(s.path),
    stamps: stamps.map(([path, size, mtime, fingerprint]) => [pathRef(path), size, mtime, fingerprint] as const),
    ...(fold === undefined ? {} : { fold }),
    cwd: s.cwd === null ? null : ref(s.cwd),
    root: ref(s.root),
    model: s.model === null ? null : ref(s.model),
    gitBranch: s.gitBranch === null ? null : ref(s.gitBranch),
    title: s.name !== null && s.title === s.name ? -1 : (promptRef(s.title) ?? ''),
    firstPrompt: promptRef(s.firstPrompt),
    lastPrompt: promptRef(s.lastPrompt),
    name: s.name,
    prompts: s.prompts,
    userTurns: s.userTurns,
    userTurnsExact: s.userTurnsExact,
    createdAt: s.createdAt,
    updatedAt: s.updatedAt,
    forkedFrom: s.forkedFrom,
    fork: s.fork,
    ...(s.lineage !== undefined ? { lineage: s.lineage } : {}),
    ...(s.subagent !== undefined ? { subagent: s.subagent } : {}),
    archived: s.archived,
    usage: s.usage,
    size: s.size,
    mtimeMs: s.mtimeMs,
  };
}

/** One entry of the cache file as CacheFileIndex finds it: the key (its first file), its files' stamps, its row(s). */
export interface CachedEntry {
  readonly firstPath: string;
  /** Null: the files hold no conversation. */
  readonly session: CatalogSession | null;
  readonly stamps: readonly FileStamp[];
  /** A store of many conversations (its rows are not looked at here). */
  readonly store: boolean;
  /** @internal */
  readonly entry: CacheEntry;
}

export function cachedEntry(decoded: readonly [string, CacheEntry]): CachedEntry {
  const [firstPath, entry] = decoded;
  return { firstPath, session: entry.session, stamps: stampsOfEntry(firstPath, entry), store: entry.rows !== undefined, entry };
}

/** The entries of a cache file, in order; throws on anything malformed, on another version, or on a file cut short. */
export async function* readEntries(path: string): AsyncGenerator<readonly [string, CacheEntry]> {
  const table: string[] = [];
  let lineNo = 0;
  let count = 0;
  let ended = false;
  for await (const line of readLines(path)) {
    lineNo++;
    if (ended) throw new Error('data after the end line');
    let value: unknown;
    try {
      value = JSON.parse(line.bytes.toString('utf8'));
    } catch {
      throw new Error(`line ${lineNo} is not JSON`);
    }
    if (lineNo === 1) {
      const version = (value as { version?: unknown } | null)?.version;
      if (version !== CACHE_VERSION) throw new Error(`cache version ${String(version)}`);
    } else if (Array.isArray(value)) {
      if (value.length !== 2 || value[0] !== 's' || typeof value[1] !== 'string') throw new Error(`line ${lineNo}: malformed string`);
      table.push(value[1]);
    } else if (value && typeof value === 'object' && 'store' in value) {
      const entry = decodeStore(value as { store: unknown; rows?: unknown }, table);
      if (!entry) throw new Error(`line ${lineNo}: malformed entry of a store of conversations`);
      count++;
      yield entry;
    } else if (value && typeof value === 'object' && 'none' in value) {
      const entry = decodeNone((value as { none: unknown }).none);
      if (!entry) throw new Error(`line ${lineNo}: malformed entry of files without a conversation`);
      count++;
      yield entry;
    } else if (value && typeof value === 'object' && 'end' in value) {
      if ((value as { end: unknown }).end !== count) throw new Error(`line ${lineNo}: ${count} entries, end line says ${String((value as { end: unknown }).end)}`);
      ended = true;
    } else {
      const entry = decodeEntry(value, table);
      if (!entry) throw new Error(`line ${lineNo}: malformed cache entry`);
      count++;
      yield entry;
    }
  }
  if (lineNo === 0) throw new Error('empty file');
  if (!ended) throw new Error('cut short (no end line)');
}

/** `{"none": stamps}`: files that hold no conversation (stamp paths written whole). */
export function decodeNone(value: unknown): readonly [string, CacheEntry] | null {
  if (!Array.isArray(value) || value.length === 0) return null;
  const stamps: FileStamp[] = [];
  for (const stamp of value as unknown[]) {
    if (!Array.isArray(stamp) || stamp.length !== 4 || typeof stamp[0] !== 'string' || typeof stamp[1] !== 'number' || typeof stamp[2] !== 'number' || typeof stamp[3] !== 'string') return null;
    stamps.push([stamp[0], stamp[1], stamp[2], stamp[3]]);
  }
  return [stamps[0]![0], makeEntry(stamps, null)];
}

/** `{"store": stamps, "rows": [entry, ...]}`: a store of many conversations and every row in it. */
export function decodeStore(value: { store: unknown; rows?: unknown }, table: readonly string[]): readonly [string, CacheEntry] | null {
  const none = decodeNone(value.store);
  if (none === null || !Array.isArray(value.rows)) return null;
  const rows: CatalogSession[] = [];
  for (const encoded of value.rows as unknown[]) {
    const decoded = decodeEntry(encoded, table);
    if (decoded === null || decoded[1].session === null) return null;
    rows.push(decoded[1].session);
  }
  return [none[0], { ...none[1], rows }];
}

const AGENT_BY_NAME = new Map<unknown, Agent>(AGENTS.map((agent) => [agent, agent]));

export function decodeEntry(value: unknown, table: readonly string[]): readonly [string, CacheEntry] | null {
  // Loops and module functions, not closures and `every` per entry: grep's rows decode 80k entries at 100k sessions.
  if (!value || typeof value !== 'object') return null;
  const e = value as Partial<Record<keyof EncodedEntry, unknown>>;
  const agent = AGENT_BY_NAME.get(e.agent);
  const prompts = e.prompts;
  if (agent === undefined || typeof e.id !== 'string' || !Array.isArray(prompts) || !allStrings(prompts)) return null;
  if (!Array.isArray(e.paths) || e.paths.length === 0) return null;
  const paths = e.paths as unknown[];
  if (!allStrings(paths)) return null;
  const path = pathRef(e.path, paths);
  if (!Array.isArray(e.stamps) || e.stamps.length === 0) return null;
  const stamps: FileStamp[] = [];
  for (const stamp of e.stamps as unknown[]) {
    if (!Array.isArray(stamp) || stamp.length !== 4 || typeof stamp[1] !== 'number' || typeof stamp[2] !== 'number' || typeof stamp[3] !== 'string') return null;
    const stampPath = pathRef(stamp[0], paths);
    if (stampPath === undefined) return null;
    stamps.push([stampPath, stamp[1], stamp[2], stamp[3]]);
  }
  const cwd = tableRef(e.cwd, table);
  const root = tableRef(e.root, table);
  const model = tableRef(e.model, table);
  const gitBranch = tableRef(e.gitBranch, table);
  const name = e.name;
  const title = e.title === -1 ? name : promptRef(e.title, prompts);
  const firstPrompt = promptRef(e.firstPrompt, prompts);
  const lastPrompt = promptRef(e.lastPrompt, prompts);
  if (
    path === undefined ||
    cwd === undefined ||
    typeof root !== 'string' ||
    model === undefined ||
    gitBranch === undefined ||
    !(name === null || typeof name === 'string') ||
    typeof title !== 'string' ||
    firstPrompt === undefined ||
    lastPrompt === undefined ||
    typeof e.userTurns !== 'number' ||
    typeof e.userTurnsExact !== 'boolean' ||
    typeof e.createdAt !== 'string' ||
    typeof e.updatedAt !== 'string' ||
    !(e.forkedFrom === null || typeof e.forkedFrom === 'string') ||
    !(e.fork === null || isForkOrigin(e.fork)) ||
    !(e.lineage === undefined || typeof e.lineage === 'string') ||
    !(e.subagent === undefined || isSubagentOrigin(e.subagent)) ||
    typeof e.archived !== 'boolean' ||
    !(e.usage === null || isUsage(e.usage)) ||
    typeof e.size !== 'number' ||
    typeof e.mtimeMs !== 'number'
  ) {
    return null;
  }
  const session: CatalogSession = {
    id: e.id,
    agent,
    path,
    paths: paths as string[],
    cwd,
    title,
    firstPrompt,
    lastPrompt,
    name,
    userTurns: e.userTurns,
    userTurnsExact: e.userTurnsExact,
    prompts: prompts as string[],
    createdAt: e.createdAt,
    updatedAt: e.updatedAt,
    forkedFrom: e.forkedFrom,
    fork: e.fork,
    ...(e.lineage !== undefined ? { lineage: e.lineage } : {}),
    ...(e.subagent !== undefined ? { subagent: e.subagent } : {}),
    gitBranch,
    model,
    archived: e.archived,
    usage: e.usage,
    size: e.size,
    mtimeMs: e.mtimeMs,
    root,
  };
  if (!(e.fold === undefined || (typeof e.fold === 'number' && Number.isSafeInteger(e.fold) && e.fold >= 0))) return null;
  return [stamps[0]![0], makeEntry(stamps, session, e.fold)];
}

function allStrings(values: readonly unknown[]): boolean {
  for (let at = 0; at < values.length; at++) if (typeof values[at] !== 'string') return false;
  return true;
}

/** A shared string by its index in the table, null for null, undefined for anything else. */
function tableRef(v: unknown, table: readonly string[]): string | null | undefined {
  return v === null ? null : typeof v === 'number' && v >= 0 && v < table.length ? table[v] : undefined;
}

/** A prompt by its index among the entry's prompts, or written whole (a string or null); undefined for anything else. */
function promptRef(v: unknown, prompts: readonly unknown[]): string | null | undefined {
  return v === null || typeof v === 'string' ? v : typeof v === 'number' ? (prompts[v] as string | undefined) : undefined;
}

/** A path by its index among the entry's paths, or written whole. */
function pathRef(v: unknown, paths: readonly unknown[]): string | undefined {
  return typeof v === 'string' ? v : typeof v === 'number' ? (paths[v] as string | undefined) : undefined;
}

export function isForkOrigin(value: unknown): value is ForkOrigin {
  if (!value || typeof value !== 'object') return false;
  const fork = value as Partial<Record<keyof ForkOrigin, unknown>>;
  return typeof fork.id === 'string' && (fork.atTurn === undefined || typeof fork.atTurn === 'number') && (fork.branchName === undefined || typeof fork.branchName === 'string');
}

function isSubagentOrigin(value: unknown): value is SubagentOrigin {
  if (!value || typeof value !== 'object') return false;
  const origin = value as Partial<Record<keyof SubagentOrigin, unknown>>;
  return typeof origin.kind === 'string' && (origin.parentId === null || typeof origin.parentId === 'string');
}

export function isUsage(value: unknown): value is Usage {
  if (!value || typeof value !== 'object') return false;
  const usage = value as Partial<Record<keyof Usage, unknown>>;
  return typeof usage.input === 'number' && typeof usage.output === 'number' && typeof usage.cacheRead === 'number' && typeof usage.cacheWrite === 'number';
}


/**
 * Earlier versions' files beside the current one (and, for a cache keyed by its locations, the one shared file
 * of this version that came before the keys): dead weight once the current one is written.
 */
export async function removeOlderVersions(path: string): Promise<void> {
  const match = /^catalog-v(\d+)(-[0-9a-f]+)?\.jsonl$/.exec(basename(path));
  if (!match) return;
  const current = Number(match[1]);
  const keyed = match[2] !== undefined;
  const names = await readdir(dirname(path)).catch(() => [] as string[]);
  for (const name of names) {
    const other = /^catalog-v(\d+)(-[0-9a-f]+)?\.(json|jsonl|head\.json|folds|lines|keys)$/.exec(name);
    if (!other) continue;
    const version = Number(other[1]);
    if (version < current || (keyed && version === current && other[2] === undefined)) {
      const target = join(dirname(path), name);
      // An older version's saved folds are a folder of small files; our own folders only (never a symlink).
      if (other[3] === 'folds') await removeFoldFolder(target);
      else await unlink(target).catch(() => undefined);
    }
  }
}

async function removeFoldFolder(dir: string): Promise<void> {
  const info = await lstat(dir).catch(() => null);
  if (info === null || !info.isDirectory()) return;
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  for (const entry of entries) if (entry.isFile() && entry.name.endsWith('.json')) await unlink(join(dir, entry.name)).catch(() => undefined);
  await rmdir(dir).catch(() => undefined);
}

