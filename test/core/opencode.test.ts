// The opencode adapter on the database the real opencode 1.18.33 wrote (test/fixtures/opencode-1.18.33: its SQL dump,
// loaded into a temp database in WAL mode as opencode keeps it): rows, transcript, fork, resume, and the catalog's
// store path (cache, watcher) when the database changes.
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CatalogCache } from '../../src/catalog/cache.js';
import { resolveLocations, type Locations } from '../../src/catalog/locations.js';
import { scanCatalog } from '../../src/catalog/scan.js';
import { watchCatalog, type CatalogChange, type CatalogWatcher } from '../../src/catalog/watch.js';
import { ForkRangeError } from '../../src/core/errors.js';
import { forkTitle, opencodeAdapter, opencodeId } from '../../src/core/formats/opencode/index.js';
import type { AdapterContext, SessionFileGroup } from '../../src/core/formats/types.js';
import { resumeCommand } from '../../src/core/resume.js';
import { waitFor } from '../ui/helpers.js';

const DUMP = join(import.meta.dirname, '..', 'fixtures', 'opencode-1.18.33', 'opencode.sql');
const MAIN = 'ses_def8b4415ffelGNy1ujFXhicI4';
const FORK = 'ses_def8a7e14ffeEyddEP23wkkCBZ';
const CAFE = 'ses_def8a5e01ffeSLpJoOndDIcP22';
const context: AdapterContext = { report: () => undefined, lookup: () => undefined, names: () => new Map() };

let temp: string;
let root: string;
let db: string;

beforeEach(async () => {
  temp = await mkdtemp(join(tmpdir(), 'sessions-opencode-'));
  root = join(temp, '.local', 'share', 'opencode');
  await mkdir(root, { recursive: true });
  db = join(root, 'opencode.db');
  const handle = new Database(db);
  handle.pragma('journal_mode = WAL');
  handle.exec(await readFile(DUMP, 'utf8'));
  handle.close();
});

afterEach(async () => {
  await rm(temp, { recursive: true, force: true });
});

const conversation = (id: string): SessionFileGroup => ({ agent: 'opencode', paths: [db], idHint: id, root, archived: false });

/** Every row of one session, as a digest. */
function digest(id: string): string {
  const handle = new Database(db, { readonly: true });
  try {
    const rows = ['session WHERE id', 'message WHERE session_id', 'part WHERE session_id'].map((from) => handle.prepare(`SELECT * FROM ${from} = ? ORDER BY id`).all(id));
    return createHash('sha256').update(JSON.stringify(rows)).digest('hex');
  } finally {
    handle.close();
  }
}

function locations(): Locations {
  return { ...resolveLocations({ roots: { opencode: [root] } }, { env: {}, homeDir: join(temp, 'nobody'), cwd: temp }), rootsFromCwds: false };
}

describe('opencode adapter', () => {
  it('finds the database under its data folder: one store group, the conversations inside it', async () => {
    expect(await opencodeAdapter.discover(root, () => undefined)).toEqual([{ agent: 'opencode', paths: [db], idHint: null, root, archived: false }]);
    expect(opencodeAdapter.groupFiles(root, [`${db}-wal`, join(root, 'other.db')])).toEqual([{ agent: 'opencode', paths: [db], idHint: null, root, archived: false }]);
    expect(opencodeAdapter.store!.storeOf(`${db}-wal`)).toBe(db);
    expect(opencodeAdapter.store!.storeOf(`${db}-shm`)).toBeNull();
  });

  it('reads every row exactly: turns, prompts, title, model, usage, cwd, times', async () => {
    const rows = await opencodeAdapter.store!.readRows({ agent: 'opencode', paths: [db], idHint: null, root, archived: false }, context);
    const main = rows.find((row) => row.id === MAIN)!;
    expect(main).toEqual({
      id: MAIN,
      agent: 'opencode',
      path: db,
      paths: [db],
      cwd: '/home/dev/src/o-api-server',
      title: 'Answer to: "[o] What does the api server do?"',
      firstPrompt: '"[o] What does the api server do?"',
      lastPrompt: '"[o] Add a health check endpoint."',
      name: null,
      userTurns: 3,
      userTurnsExact: true,
      prompts: ['"[o] What does the api server do?"', '"[o] RUN-THE-TOOL: show me what the tool prints."', '"[o] Add a health check endpoint."'],
      createdAt: new Date(1795572415483).toISOString(),
      updatedAt: new Date(1795572459295).toISOString(),
      forkedFrom: null,
      fork: null,
      gitBranch: null,
      model: 'stand-in',
      archived: false,
      // The session row's own totals (31069 in, 32 out): the four answers' tokens.
      usage: { input: 31069, output: 32, cacheRead: 0, cacheWrite: 0 },
      size: main.size,
      mtimeMs: 1795572459295,
    });
    expect(main.size).toBeGreaterThan(0);
    expect(rows.map((row) => [row.id, row.userTurns, row.cwd])).toEqual([
      [CAFE, 2, '/home/dev/src/o-café ünïcode'],
      [FORK, 4, '/home/dev/src/o-api-server'],
      [MAIN, 3, '/home/dev/src/o-api-server'],
    ]);
    // One conversation read alone is the same row.
    expect(await opencodeAdapter.readSummary(conversation(CAFE), context)).toEqual(rows.find((row) => row.id === CAFE));
  });

  it('reads the transcript: prompts, reasoning, answers, the tool call and its result, usage', async () => {
    const session = await opencodeAdapter.readSession(conversation(MAIN), context);
    expect(session.messages.map((message) => [message.role, message.userTurn, message.blocks.map((block) => block.type).join(',')])).toEqual([
      ['user', true, 'text'],
      ['assistant', false, 'reasoning,text'],
      ['user', true, 'text'],
      ['assistant', false, 'tool_use'],
      ['tool', false, 'tool_result'],
      ['assistant', false, 'text'],
      ['user', true, 'text'],
      ['assistant', false, 'reasoning,text'],
    ]);
    expect(session.messages[3]!.blocks[0]).toEqual({ type: 'tool_use', id: 'call_standin_3', name: 'bash', input: '{"command":"echo interop-tool-ran"}' });
    expect(session.messages[4]!.blocks[0]).toEqual({ type: 'tool_result', toolUseId: 'call_standin_3', output: 'interop-tool-ran\n', isError: false });
    expect(session.messages[1]!.usage).toEqual({ input: 7684, output: 8, cacheRead: 0, cacheWrite: 0 });
  });

  it('forks at a turn: new rows in one transaction under new ids, the original rows untouched', async () => {
    const before = digest(MAIN);
    const now = new Date('2026-11-25T06:00:00.000Z');
    const result = await opencodeAdapter.fork(conversation(MAIN), { atTurn: 3, now }, context);
    expect(result).toMatchObject({ agent: 'opencode', path: db, parentId: MAIN, keptUserTurns: 2 });
    expect(result.id).toMatch(opencodeAdapter.idShape.pattern);
    expect(digest(MAIN)).toBe(before);
    const fork = await opencodeAdapter.readSession(conversation(result.id), context);
    expect(fork).toMatchObject({
      title: 'Answer to: "[o] What does the api server do?" (fork #1)',
      userTurns: 2,
      lastPrompt: '"[o] RUN-THE-TOOL: show me what the tool prints."',
      forkedFrom: MAIN,
      fork: { id: MAIN, atTurn: 3 },
      cwd: '/home/dev/src/o-api-server',
      createdAt: now.toISOString(),
      usage: { input: 7684 + 7743 + 7806, output: 24, cacheRead: 0, cacheWrite: 0 },
    });
    const original = await opencodeAdapter.readSession(conversation(MAIN), context);
    expect(fork.messages).toEqual(original.messages.slice(0, 6).map((message) => ({ ...message })));
    // Assistants answer the fork's own user messages (opencode threads them by parentID); nothing points into the original.
    const handle = new Database(db, { readonly: true });
    const messages = handle.prepare('SELECT id, data FROM message WHERE session_id = ? ORDER BY time_created, id').all(result.id) as { id: string; data: string }[];
    const parts = handle.prepare('SELECT message_id, data FROM part WHERE session_id = ?').all(result.id) as { message_id: string; data: string }[];
    handle.close();
    const ids = new Set(messages.map((message) => message.id));
    for (const message of messages) {
      const parent = (JSON.parse(message.data) as { parentID?: string }).parentID;
      if (parent !== undefined) expect(ids).toContain(parent);
    }
    expect(parts.every((part) => ids.has(part.message_id))).toBe(true);
    // A name given with --name is the fork's title.
    const named = await opencodeAdapter.fork(conversation(MAIN), { atTurn: 2, now, branchName: 'health check, take two' }, context);
    expect((await opencodeAdapter.readSummary(conversation(named.id), context))?.title).toBe('health check, take two');
  });

  it('refuses a turn that is not 2..turns', async () => {
    await expect(opencodeAdapter.fork(conversation(MAIN), { atTurn: 1 }, context)).rejects.toBeInstanceOf(ForkRangeError);
    await expect(opencodeAdapter.fork(conversation(MAIN), { atTurn: 5 }, context)).rejects.toBeInstanceOf(ForkRangeError);
  });

  it('makes ids and fork titles as opencode does', () => {
    expect(opencodeId('msg', 1795572416907, 1, false)).toMatch(/^msg_21074c18b001[0-9A-Za-z]{14}$/);
    // A session id counts down: ses_def8b4415ffe… is the bit-inverse of (its creation ms × 4096 + 1).
    const created = Number((0xffffffffffffn - 0xdef8b4415ffen) >> 12n);
    expect(opencodeId('ses', created, 1, true)).toMatch(/^ses_def8b4415ffe[0-9A-Za-z]{14}$/);
    expect(forkTitle('Plan')).toBe('Plan (fork #1)');
    expect(forkTitle('Plan (fork #1)')).toBe('Plan (fork #2)');
  });

  it('resumes with opencode -s in the session cwd, XDG_DATA_HOME pointing at the home it came from', () => {
    const command = resumeCommand({ agent: 'opencode', id: MAIN, path: db, cwd: '/home/dev/src/o-api-server', root });
    expect(command.argv).toEqual(['opencode', '-s', MAIN]);
    expect(command.cwd).toBe('/home/dev/src/o-api-server');
    expect(command.env).toEqual({ XDG_DATA_HOME: join(temp, '.local', 'share') });
    expect(() => resumeCommand({ agent: 'opencode', id: '--help', path: db, cwd: '/', root })).toThrow();
  });
});

describe('a store of many conversations in the catalog', () => {
  let watcher: CatalogWatcher | null = null;
  afterEach(async () => {
    await watcher?.close();
    watcher = null;
  });

  /** A new turn written the way opencode writes: into the write-ahead log, the database file itself unchanged. */
  function appendTurn(id: string, text: string, at: number): void {
    const handle = new Database(db);
    handle.pragma('wal_autocheckpoint = 0');
    const message = `msg_${at.toString(16)}zz`;
    handle.prepare('INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?)').run(message, id, at, at, JSON.stringify({ role: 'user', time: { created: at } }));
    handle.prepare('INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?, ?)').run(`prt_${at.toString(16)}zz`, message, id, at, at, JSON.stringify({ type: 'text', text }));
    handle.prepare('UPDATE session SET time_updated = ? WHERE id = ?').run(at, id);
    handle.close();
  }

  it('caches the rows under the database and its WAL, and reads them again when either changes', async () => {
    const cache = await CatalogCache.load(join(temp, 'cache.jsonl'));
    const first = await scanCatalog(locations(), { cache, workers: 0 });
    expect(first.sessions.find((s) => s.id === CAFE)?.userTurns).toBe(2);
    await cache.save();
    const reloaded = await CatalogCache.load(join(temp, 'cache.jsonl'));
    expect(reloaded.sessions().filter((s) => s.agent === 'opencode').map((s) => s.id).sort()).toEqual([CAFE, FORK, MAIN]);
    appendTurn(CAFE, 'a third question', 1795572600000);
    const second = await scanCatalog(locations(), { cache: reloaded, workers: 0 });
    expect(second.sessions.find((s) => s.id === CAFE)).toMatchObject({ userTurns: 3, lastPrompt: 'a third question' });
    expect(second.sessions.filter((s) => s.agent === 'opencode')).toHaveLength(3);
  });

  it('the watcher re-reads the database when its WAL changes', async () => {
    const { sessions, context: scanContext } = await scanCatalog(locations(), { workers: 0 });
    const changes: CatalogChange[] = [];
    watcher = watchCatalog(locations(), sessions, { context: scanContext, onChange: (change) => changes.push(change) });
    await watcher.ready;
    appendTurn(MAIN, 'one more thing', 1795572700000);
    await waitFor(() => {
      const main = changes.flatMap((change) => change.upserted).find((s) => s.id === MAIN);
      expect(main).toMatchObject({ userTurns: 4, lastPrompt: 'one more thing' });
    });
  });
});
