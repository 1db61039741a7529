import { rename, unlink, writeFile } from 'node:fs/promises';
import { readRegularFile } from '../core/io/regular.js';
import { errorCode } from '../core/errors.js';
import { AGENTS, type Agent } from '../core/model.js';
import { CACHE_VERSION, isForkOrigin, isUsage } from './cache-file.js';
import { isUnder } from './locations.js';
import type { CatalogSession } from './row.js';

/** Rows kept in the first-screen file (per slice: overall, and under the directory it was saved for). */
const HEAD_ROWS = 200;

interface CacheHead {
  readonly version: number;
  readonly scopeDir: string;
  readonly total: number;
  readonly sessions: readonly CatalogSession[];
}

/** The first-screen file beside the cache file at `path`. */
export function headPath(path: string): string {
  return path.replace(/\.jsonl?$/, '') + '.head.json';
}

/**
 * The first screen saved by the last run (newest first), or null. Cheap: a few hundred rows. Every row is checked
 * field by field (the file is painted before anything else runs): a file that is not regular, does not parse, or
 * holds one bad row is deleted and null returned, and the next save writes it anew.
 */
export async function loadCacheHead(path: string | null): Promise<readonly CatalogSession[] | null> {
  if (path === null) return null;
  const file = headPath(path);
  let head: unknown;
  try {
    head = JSON.parse((await readRegularFile(file)).toString('utf8'));
  } catch (error) {
    if (errorCode(error) !== 'ENOENT' && errorCode(error) !== 'EFTYPE') await unlink(file).catch(() => undefined);
    return null;
  }
  const record = head !== null && typeof head === 'object' ? (head as Partial<Record<keyof CacheHead, unknown>>) : null;
  // Another version's file is left for that version (removeOlderVersions cleans up once ours is written).
  if (record !== null && typeof record.version === 'number' && record.version !== CACHE_VERSION) return null;
  if (record === null || !Array.isArray(record.sessions) || !record.sessions.every(isHeadSession)) {
    await unlink(file).catch(() => undefined);
    return null;
  }
  return record.sessions;
}

const isString = (value: unknown): value is string => typeof value === 'string';
const isStringOrNull = (value: unknown): value is string | null => value === null || typeof value === 'string';
const isCount = (value: unknown): value is number => typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
const isFiniteNumber = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);
const isTime = (value: unknown): value is string => typeof value === 'string' && !Number.isNaN(Date.parse(value));

/** Every field a row, the preview and search read, with its type: a first-screen row is used only when all hold. */
function isHeadSession(value: unknown): value is CatalogSession {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return false;
  const s = value as Partial<Record<keyof CatalogSession, unknown>>;
  return (
    isString(s.id) &&
    AGENTS.includes(s.agent as Agent) &&
    isString(s.path) &&
    Array.isArray(s.paths) &&
    s.paths.length > 0 &&
    s.paths.every(isString) &&
    isString(s.root) &&
    isStringOrNull(s.cwd) &&
    isString(s.title) &&
    isStringOrNull(s.firstPrompt) &&
    isStringOrNull(s.lastPrompt) &&
    isStringOrNull(s.name) &&
    isCount(s.userTurns) &&
    typeof s.userTurnsExact === 'boolean' &&
    Array.isArray(s.prompts) &&
    s.prompts.every(isString) &&
    isTime(s.createdAt) &&
    isTime(s.updatedAt) &&
    isStringOrNull(s.forkedFrom) &&
    (s.fork === null || isForkOrigin(s.fork)) &&
    (s.lineage === undefined || isString(s.lineage)) &&
    isStringOrNull(s.gitBranch) &&
    isStringOrNull(s.model) &&
    typeof s.archived === 'boolean' &&
    (s.usage === null || isUsage(s.usage)) &&
    isFiniteNumber(s.size) &&
    isFiniteNumber(s.mtimeMs)
  );
}

/**
 * Write the first screen beside the cache file at `path` (temp + rename): the newest conversations overall and under
 * `scopeDir`, already merged and sorted.
 */
export async function saveCacheHead(path: string, head: { readonly sessions: readonly CatalogSession[]; readonly scopeDir: string }): Promise<void> {
  const under = head.sessions.filter((s) => isUnder(s.cwd, head.scopeDir));
  const picked = new Set([...head.sessions.slice(0, HEAD_ROWS), ...under.slice(0, HEAD_ROWS)]);
  const body: CacheHead = { version: CACHE_VERSION, scopeDir: head.scopeDir, total: head.sessions.length, sessions: head.sessions.filter((s) => picked.has(s)) };
  const temp = `${headPath(path)}.tmp-${process.pid}`;
  await unlink(temp).catch(() => undefined);
  await writeFile(temp, JSON.stringify(body), { mode: 0o600, flag: 'wx' });
  await rename(temp, headPath(path));
}
