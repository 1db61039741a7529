/** A new session in an opencode database (a fork, a hand-off's rows): ids, rows and the one transaction that adds them. */
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { checkForkTurn } from '../../errors.js';
import { openForWriting, type SqliteDatabase } from '../../io/sqlite.js';
import type { JsonObject } from '../../json.js';
import { addUsage, type Usage } from '../../model.js';
import { cutBeforeTurn } from '../../truncate.js';
import type { AdapterContext, ForkRequest, ForkResult, SessionFileGroup } from '../types.js';
import type { OpencodeDialect } from './dialect.js';
import { conversationId, FORK_KEY, isUserTurn, num, parseObject, readOne, usageOf, type DecodedMessage } from './store.js';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/**
 * An id the way opencode makes them (`Identifier.create`): prefix, 12 hex digits of (time in ms × 4096 + a
 * counter), bit-inverted for sessions (newest sort first), then 14 random base-62 characters.
 */
export function opencodeId(prefix: 'ses' | 'msg' | 'prt', timeMs: number, counter: number, descending: boolean): string {
  let value = BigInt(timeMs) * 4096n + BigInt(counter);
  if (descending) value = ~value;
  const hex = (value & 0xffffffffffffn).toString(16).padStart(12, '0');
  const random = randomBytes(14);
  let tail = '';
  for (const byte of random) tail += BASE62[byte % 62];
  return `${prefix}_${hex}${tail}`;
}

/** opencode's fork title: `<title> (fork #1)`, or the next number after one. */
export function forkTitle(title: string): string {
  const match = /^(.+) \(fork #(\d+)\)$/.exec(title);
  return match ? `${match[1]} (fork #${Number(match[2]) + 1})` : `${title} (fork #1)`;
}

function insertRow(db: SqliteDatabase, table: string, row: Record<string, unknown>): void {
  const columns = Object.keys(row);
  db.prepare(`INSERT INTO ${table} (${columns.map((c) => `"${c}"`).join(',')}) VALUES (${columns.map(() => '?').join(',')})`).run(...columns.map((c) => row[c] as never));
}

/** The rows of one new session: its `session` row (columns this database lacks are left out), then `message` and `part` rows. */
export interface NewOpencodeSession {
  readonly session: Record<string, unknown>;
  readonly messages: readonly Record<string, unknown>[];
  readonly parts: readonly Record<string, unknown>[];
}

/**
 * Add one session to the opencode database at `path` as `opencode import` (1.18.33) does: its session, message and
 * part rows in one `BEGIN IMMEDIATE` transaction under opencode's busy timeout (so it waits for opencode's own
 * writes instead of failing), nothing else touched. `plan` runs inside the transaction: what it reads (the session
 * it copies, the project of a cwd) cannot change before the rows are in.
 */
export function addOpencodeSession<T>(path: string, plan: (db: SqliteDatabase) => { readonly rows: NewOpencodeSession; readonly result: T }): T {
  const db = openForWriting(path);
  try {
    const write = db.transaction(() => {
      const { rows, result } = plan(db);
      const columns = new Set((db.prepare('PRAGMA table_info(session)').all() as { name: string }[]).map((c) => c.name));
      insertRow(db, 'session', Object.fromEntries(Object.entries(rows.session).filter(([key]) => columns.has(key))));
      for (const message of rows.messages) insertRow(db, 'message', message);
      for (const part of rows.parts) insertRow(db, 'part', part);
      return result;
    });
    return write.immediate();
  } finally {
    db.close();
  }
}

/** The database in a data folder. */
export function opencodeDatabasePath(dialect: OpencodeDialect, root: string): string {
  return join(root, dialect.dbName);
}

/** What a session written by `sessions` keeps in its metadata about where it came from (a fork's parent, a hand-off's source). */
export function forkMetadata(fork: { readonly id: string; readonly atTurn: number; readonly agent?: string; readonly branchName?: string }): Record<string, unknown> {
  return { [FORK_KEY]: fork };
}

/**
 * A new session holding user turns 1..atTurn-1 of the original and everything answering them, written into the
 * same database by `addOpencodeSession`: the session row copied with a new id, title and token totals, then every
 * kept message and part under new ids (assistants' parentID pointing at the new ids), as opencode's own fork and
 * import do. The original's rows are not touched.
 */
export async function forkOpencode(dialect: OpencodeDialect, group: SessionFileGroup, request: ForkRequest, context: AdapterContext): Promise<ForkResult> {
  const path = group.paths[0]!;
  const parentId = conversationId(dialect, group);
  const now = (request.now ?? new Date()).getTime();
  const isTurn = (message: DecodedMessage): boolean => isUserTurn(dialect, message);
  const { id, keptUserTurns } = addOpencodeSession(path, (db) => {
    const { session, messages } = readOne(dialect, db, parentId, 'all', context.report, path);
    const turns = messages.filter(isTurn).length;
    checkForkTurn(request.atTurn, turns);
    const kept = messages.slice(0, cutBeforeTurn(messages, isTurn, request.atTurn));
    const id = request.id ?? opencodeId('ses', now, 1, true);
    let usage: Usage | null = null;
    let cost = 0;
    for (const message of kept) {
      usage = addUsage(usage, usageOf(message.info));
      cost += num(message.info.cost);
    }
    const metadata = parseObject(session.metadata) ?? {};
    const row: Record<string, unknown> = {
      ...session,
      id,
      // `fork --with-code`: the fork runs in the new worktree (its `path` inside the project stays the same).
      ...(request.cwd === undefined ? {} : { directory: request.cwd }),
      title: request.branchName?.trim() || forkTitle(session.title),
      metadata: JSON.stringify({ ...metadata, ...forkMetadata({ id: parentId, atTurn: request.atTurn, ...(request.branchName ? { branchName: request.branchName } : {}) }) }),
      parent_id: null,
      share_url: null,
      revert: null,
      summary_additions: null,
      summary_deletions: null,
      summary_files: null,
      summary_diffs: null,
      cost,
      tokens_input: usage?.input ?? 0,
      tokens_output: usage?.output ?? 0,
      tokens_reasoning: 0,
      tokens_cache_read: usage?.cacheRead ?? 0,
      tokens_cache_write: usage?.cacheWrite ?? 0,
      time_created: now,
      time_updated: now,
      time_compacting: null,
      time_archived: null,
    };
    const newIds = new Map<string, string>();
    const messageRows: Record<string, unknown>[] = [];
    const partRows: Record<string, unknown>[] = [];
    let counter = 0;
    for (const message of kept) {
      const messageId = opencodeId('msg', now, ++counter, false);
      newIds.set(message.row.id, messageId);
      const info: JsonObject = { ...message.info };
      if (typeof info.parentID === 'string' && newIds.has(info.parentID)) info.parentID = newIds.get(info.parentID)!;
      delete info.id;
      delete info.sessionID;
      messageRows.push({ ...message.row, id: messageId, session_id: id, time_updated: now, data: JSON.stringify(info) });
      for (const part of message.parts) {
        const data: JsonObject = { ...part.data };
        delete data.id;
        delete data.sessionID;
        delete data.messageID;
        partRows.push({ ...part.row, id: opencodeId('prt', now, ++counter, false), message_id: messageId, session_id: id, time_updated: now, data: JSON.stringify(data) });
      }
    }
    return { rows: { session: row, messages: messageRows, parts: partRows }, result: { id, keptUserTurns: request.atTurn - 1 } };
  });
  return { agent: dialect.agent, id, path, parentId, keptUserTurns };
}
