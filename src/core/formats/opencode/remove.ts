/**
 * Deleting an opencode session is taking its rows out of opencode.db, in one transaction: the `session` row, every
 * row of a table with a `session_id` column (messages, parts, todos, shares, …) and its event log (`event` and
 * `event_sequence` by `aggregate_id`), and the rows of tables whose foreign key points at one of those columns
 * (Kilo's `kilo_board` by `root_session_id`, its messages by `board_root_session_id`: SQLite would cascade the delete
 * to them, and a restore would lose them). They are kept as JSON (BLOBs as base64) so that a restore puts back the
 * same rows, parents first, in one transaction.
 */
import { openForWriting, type SqliteDatabase } from '../../io/sqlite.js';
import type { OpencodeDialect } from './dialect.js';

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
  const keyed = new Map<string, { column: string; depth: number }>();
  const foreignKeys = new Map<string, { table: string; from: string; to: string }[]>();
  for (const table of tables) {
    const columns = (db.prepare(`PRAGMA table_info(${quote(table)})`).all() as { name: string }[]).map((column) => column.name);
    if (table === 'session') keyed.set(table, { column: 'id', depth: 0 });
    else if (columns.includes('session_id')) keyed.set(table, { column: 'session_id', depth: 1 });
    else if ((table === 'event' || table === 'event_sequence') && columns.includes('aggregate_id')) keyed.set(table, { column: 'aggregate_id', depth: 1 });
    else foreignKeys.set(table, db.prepare(`PRAGMA foreign_key_list(${quote(table)})`).all() as { table: string; from: string; to: string }[]);
  }
  // A table whose foreign key points at a column naming the session names it in that key's column (transitively).
  for (let found = true; found; ) {
    found = false;
    for (const [table, keys] of foreignKeys) {
      const key = keys.find((fk) => keyed.get(fk.table)?.column === fk.to);
      if (key === undefined) continue;
      keyed.set(table, { column: key.from, depth: keyed.get(key.table)!.depth + 1 });
      foreignKeys.delete(table);
      found = true;
    }
  }
  const rank = (table: string): number => (FIRST.includes(table) ? FIRST.indexOf(table) : FIRST.length + keyed.get(table)!.depth);
  return [...keyed].map(([table, { column }]) => [table, column] as const).sort((a, b) => rank(a[0]) - rank(b[0]));
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
function keptRows(dialect: OpencodeDialect, db: SqliteDatabase, path: string, id: string): string {
  const tables = sessionTables(db).map(([table, column]) => [table, db.prepare(`SELECT * FROM ${quote(table)} WHERE ${quote(column)} = ?`).all(id) as Row[]] as const);
  if ((tables.find(([table]) => table === 'session')?.[1].length ?? 0) !== 1) throw new Error(`${path}: no ${dialect.label} session ${id}`);
  const kept: Kept = { kind: 'opencode-rows', id, tables: tables.map(([table, rows]) => [table, rows.map(encode)] as const) };
  return JSON.stringify(kept);
}

export function opencodeRowsOf(dialect: OpencodeDialect, path: string, id: string): Promise<string> {
  return new Promise((resolve) => {
    const db = openForWriting(path);
    try {
      resolve(db.transaction(() => keptRows(dialect, db, path, id)).deferred());
    } finally {
      db.close();
    }
  });
}

export function takeOutOpencodeSession(dialect: OpencodeDialect, path: string, id: string, kept: string): Promise<void> {
  return new Promise((resolve) => {
    const db = openForWriting(path);
    try {
      const take = db.transaction(() => {
        if (keptRows(dialect, db, path, id) !== kept) throw new Error(`${path}: ${dialect.label} wrote to session ${id} meanwhile: not deleted, try again`);
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

export function putBackOpencodeSession(dialect: OpencodeDialect, path: string, text: string): Promise<void> {
  return new Promise((resolve) => {
    const kept = JSON.parse(text) as Kept;
    if (kept.kind !== 'opencode-rows') throw new Error(`not a session of ${dialect.label} kept by sessions rm`);
    const db = openForWriting(path);
    try {
      const put = db.transaction(() => {
        if (db.prepare('SELECT 1 FROM session WHERE id = ?').get(kept.id) !== undefined) throw new Error(`${path}: ${dialect.label} session ${kept.id} is there already`);
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
