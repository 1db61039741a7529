import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';
import { copyRegularFileSync, NotRegularFileError } from './regular.js';

export type SqliteDatabase = BetterSqlite3.Database;

/**
 * better-sqlite3 (a native module, built from source on install: Node 20 has no `node:sqlite`), loaded the first
 * time a database is opened: the agents that keep plain files never load it, and a build that failed to compile
 * it costs only the agents that need it (their store reports the error).
 */
let driver: typeof BetterSqlite3 | null = null;

/** SQLite opens the path blocking: a FIFO there would hang it. Only a regular file (or a symlink to one) is opened. */
function checkRegular(path: string): void {
  const stats = statSync(path);
  if (!stats.isFile()) throw new NotRegularFileError(path, stats);
}

function load(): typeof BetterSqlite3 {
  driver ??= createRequire(import.meta.url)('better-sqlite3') as typeof BetterSqlite3;
  return driver;
}

/**
 * An agent's database opened for reading only: never created, never written, never checkpointed (the agent's
 * own writers and their write-ahead log are left alone). A reader waits up to `busyMs` for a writer's lock.
 */
export function openReadOnly(path: string, busyMs = 5000): SqliteDatabase {
  checkRegular(path);
  const Database = load();
  const db = new Database(path, { readonly: true, fileMustExist: true, timeout: busyMs });
  return db;
}

/**
 * An agent's database opened to add rows: the same locking the agent uses (a busy timeout, so a write waits for
 * the agent's own transaction instead of failing), never created when it is not there.
 */
export function openForWriting(path: string, busyMs = 5000): SqliteDatabase {
  checkRegular(path);
  const Database = load();
  const db = new Database(path, { fileMustExist: true, timeout: busyMs });
  db.pragma(`busy_timeout = ${busyMs}`);
  return db;
}

/**
 * Run `read` on the database at `path` opened read-only, and close it whatever happens. A rollback journal a
 * crashed writer left (`<db>-journal`, "hot") must be played back before the database can be read, and a read-only
 * connection may not do that (SQLITE_READONLY_ROLLBACK: every conversation of the store would be hidden): the
 * database and its journal are then copied to a temp folder and read there, after SQLite rolls the copy back to
 * its last committed state. The agent's own files are never written; it rolls back its own on its next start.
 */
export function withReadOnly<T>(path: string, read: (db: SqliteDatabase) => T): T {
  try {
    return readClosing(openReadOnly(path), read);
  } catch (error) {
    if ((error as { code?: unknown }).code !== 'SQLITE_READONLY_ROLLBACK') throw error;
  }
  const dir = mkdtempSync(join(tmpdir(), 'sessions-sqlite-'));
  try {
    const copy = join(dir, basename(path));
    copyRegularFileSync(path, copy);
    copyRegularFileSync(`${path}-journal`, `${copy}-journal`);
    const Database = load();
    return readClosing(new Database(copy, { fileMustExist: true }), read);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function readClosing<T>(db: SqliteDatabase, read: (db: SqliteDatabase) => T): T {
  try {
    return read(db);
  } finally {
    db.close();
  }
}
