// An opencode database with a hot rollback journal beside it (a writer killed mid-transaction): a read-only
// connection may not roll it back (SQLITE_READONLY_ROLLBACK), which hid every opencode session. The rows are read
// from a rolled-back copy: the committed ones, the uncommitted transaction's not; the agent's files untouched.
import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { opencodeAdapter } from '../../src/core/formats/opencode/index.js';
import type { AdapterContext } from '../../src/core/formats/types.js';
import { sha256File } from '../helpers/files.js';

const DUMP = join(import.meta.dirname, '..', 'fixtures', 'opencode-1.18.33', 'opencode.sql');
const context: AdapterContext = { report: () => undefined, lookup: () => undefined, names: () => new Map() };

let temp: string;
let root: string;
let db: string;

beforeEach(async () => {
  temp = await mkdtemp(join(tmpdir(), 'sessions-sqlite-journal-'));
  root = join(temp, 'opencode');
  await mkdir(root, { recursive: true });
  db = join(root, 'opencode.db');
  const handle = new Database(db);
  handle.pragma('journal_mode = DELETE');
  handle.exec(await readFile(DUMP, 'utf8'));
  handle.close();
});

afterEach(async () => {
  await rm(temp, { recursive: true, force: true });
});

/** A writer that renames every session and adds a table, its cache spilling to the file, killed before it commits. */
function crashMidTransaction(): void {
  const script = `
    const Database = require(${JSON.stringify(createRequire(import.meta.url).resolve('better-sqlite3'))});
    const db = new Database(${JSON.stringify(db)});
    db.pragma('cache_size = 1');
    db.exec('BEGIN');
    db.exec("UPDATE session SET title = 'uncommitted'");
    db.exec('CREATE TABLE junk(x)');
    const insert = db.prepare('INSERT INTO junk VALUES (?)');
    for (let i = 0; i < 20000; i++) insert.run('y'.repeat(100));
    process.kill(process.pid, 'SIGKILL');`;
  const run = spawnSync(process.execPath, ['-e', script]);
  expect(run.signal).toBe('SIGKILL');
}

it('reads the committed rows of a database whose journal is hot, writing neither file', async () => {
  const group = { agent: 'opencode' as const, paths: [db], idHint: null, root, archived: false };
  const before = (await opencodeAdapter.store!.readRows(group, context)).map((row) => [row.id, row.title, row.userTurns]);
  expect(before).toHaveLength(3);
  crashMidTransaction();
  // The state this is about: SQLite itself refuses a read-only reader.
  expect(() => {
    const handle = new Database(db, { readonly: true, fileMustExist: true });
    try {
      handle.prepare('SELECT count(*) FROM session').get();
    } finally {
      handle.close();
    }
  }).toThrow(expect.objectContaining({ code: 'SQLITE_READONLY_ROLLBACK' }));
  const stamps = [await sha256File(db), await sha256File(`${db}-journal`)];
  const after = (await opencodeAdapter.store!.readRows(group, context)).map((row) => [row.id, row.title, row.userTurns]);
  expect(after).toEqual(before);
  expect([await sha256File(db), await sha256File(`${db}-journal`)]).toEqual(stamps);
});
