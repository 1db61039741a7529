/**
 * Deleting an opencode session is taking its rows out of opencode.db, in one transaction: the `session` row, every
 * row of a table with a `session_id` column (messages, parts, todos, shares, …) and its event log (`event` and
 * `event_sequence` by `aggregate_id`). They are kept as JSON (BLOBs as base64) so that a restore puts back the same
 * rows, parents first, in one transaction.
 */
import { openForWriting, type SqliteDatabase } from '../../io/sqlite.js';

type Row = Record<string, unknown>;
interface Kept {
  readonly kind: 'opencode-rows';
  readonly id: string;
  /** Table → rows, in the order they are put back (parents first). */
  readonly tables: ReadonlyArray<readonly [string, readonly Row[]]>;
}

/** Parents before children (foreign keys: message → session, part → message, event → event_sequence). */
const FIRST = ['session', 'event_sequence', 'message', 'part', 'event'];

/** The tables that hold a session's rows, and the column that names it, parents first. */
function sessionTables(db: SqliteDatabase): Array<readonly [string, string]> {
  const tables = (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").pluck().all() as string[]).sort();
  const out: Array<readonly [string, string]> = [];
  for (const table of tables) {
    const columns = (db.prepare(`PRAGMA table_info(${quote(table)})`).all() as { name: string }[]).map((column) => column.name);
    if (table === 'session') out.push([table, 'id']);
    else if (columns.includes('session_id')) out.push([table, 'session_id']);
    else if ((table === 'event' || table === 'event_sequence') && columns.includes('aggregate_id')) out.push([table, 'aggregate_id']);
  }
  const rank = (table: string): number => (FIRST.includes(table) ? FIRST.indexOf(table) : FIRST.length);
  return out.sort((a, b) => rank(a[0]) - rank(b[0]));
}

function quote(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

const encode = (row: Row): Row => Object.fromEntries(Object.entries(row).map(([key, value]) => [key, Buffer.isBuffer(value) ? { $blob: value.toString('base64') } : value]));
const decode = (row: Row): Row =>
  Object.fromEntries(
    Object.entries(row).map(([key, value]) => [key, value !== null && typeof value === 'object' && typeof (value as { $blob?: unknown }).$blob === 'string' ? Buffer.from((value as { $blob: string }).$blob, 'base64') : value]),
  );

/** The session's rows, read in one transaction, as the text a restore puts back. */
function keptRows(db: SqliteDatabase, path: string, id: string): string {
  const tables = sessionTables(db).map(([table, column]) => [table, db.prepare(`SELECT * FROM ${quote(table)} WHERE ${quote(column)} = ?`).all(id) as Row[]] as const);
  if ((tables.find(([table]) => table === 'session')?.[1].length ?? 0) !== 1) throw new Error(`${path}: no opencode session ${id}`);
  const kept: Kept = { kind: 'opencode-rows', id, tables: tables.map(([table, rows]) => [table, rows.map(encode)] as const) };
  return JSON.stringify(kept);
}

export function opencodeRowsOf(path: string, id: string): Promise<string> {
  return new Promise((resolve) => {
    const db = openForWriting(path);
    try {
      resolve(db.transaction(() => keptRows(db, path, id)).deferred());
    } finally {
      db.close();
    }
  });
}

export function takeOutOpencodeSession(path: string, id: string, kept: string): Promise<void> {
  return new Promise((resolve) => {
    const db = openForWriting(path);
    try {
      const take = db.transaction(() => {
        if (keptRows(db, path, id) !== kept) throw new Error(`${path}: opencode wrote to session ${id} meanwhile: not deleted, try again`);
        // Children first, so that no foreign key is left pointing at a deleted row.
        for (const [table, column] of [...sessionTables(db)].reverse()) db.prepare(`DELETE FROM ${quote(table)} WHERE ${quote(column)} = ?`).run(id);
      });
      take.immediate();
      resolve();
    } finally {
      db.close();
    }
  });
}

export function putBackOpencodeSession(path: string, text: string): Promise<void> {
  return new Promise((resolve) => {
    const kept = JSON.parse(text) as Kept;
    if (kept.kind !== 'opencode-rows') throw new Error('not an opencode session kept by sessions rm');
    const db = openForWriting(path);
    try {
      const put = db.transaction(() => {
        if (db.prepare('SELECT 1 FROM session WHERE id = ?').get(kept.id) !== undefined) throw new Error(`${path}: opencode session ${kept.id} is there already`);
        for (const [table, rows] of kept.tables) {
          for (const row of rows.map(decode)) {
            const keys = Object.keys(row);
            db.prepare(`INSERT INTO ${quote(table)} (${keys.map(quote).join(', ')}) VALUES (${keys.map(() => '?').join(', ')})`).run(...keys.map((key) => row[key]));
          }
        }
      });
      put.immediate();
      resolve();
    } finally {
      db.close();
    }
  });
}
