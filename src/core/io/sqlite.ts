import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';

export type SqliteDatabase = BetterSqlite3.Database;

/**
 * better-sqlite3 (a native module, built from source on install: Node 20 has no `node:sqlite`), loaded the first
 * time a database is opened: the agents that keep plain files never load it, and a build that failed to compile
 * it costs only the agents that need it (their store reports the error).
 */
let driver: typeof BetterSqlite3 | null = null;

function load(): typeof BetterSqlite3 {
  driver ??= createRequire(import.meta.url)('better-sqlite3') as typeof BetterSqlite3;
  return driver;
}

/**
 * An agent's database opened for reading only: never created, never written, never checkpointed (the agent's
 * own writers and their write-ahead log are left alone). A reader waits up to `busyMs` for a writer's lock.
 */
export function openReadOnly(path: string, busyMs = 5000): SqliteDatabase {
  const Database = load();
  const db = new Database(path, { readonly: true, fileMustExist: true, timeout: busyMs });
  return db;
}

/**
 * An agent's database opened to add rows: the same locking the agent uses (a busy timeout, so a write waits for
 * the agent's own transaction instead of failing), never created when it is not there.
 */
export function openForWriting(path: string, busyMs = 5000): SqliteDatabase {
  const Database = load();
  const db = new Database(path, { fileMustExist: true, timeout: busyMs });
  db.pragma(`busy_timeout = ${busyMs}`);
  return db;
}

/** Run `read` on the database at `path` opened read-only, and close it whatever happens. */
export function withReadOnly<T>(path: string, read: (db: SqliteDatabase) => T): T {
  const db = openReadOnly(path);
  try {
    return read(db);
  } finally {
    db.close();
  }
}
