// Kilo Code CLI on the database the real Kilo 7.7.9 wrote (test/fixtures/kilo-7.7.9: its SQL dump, loaded into a temp
// database in WAL mode as Kilo keeps it), read by opencode's reader told Kilo's dialect: every session listed once
// with its turns, prompts, cwd and title; the prompt block Kilo appends is never the user's; a delete keeps Kilo's own
// rows of the session; resume names Kilo's data folder.
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { handoffConversation } from '../../src/core/handoff/conversation.js';
import { kiloAdapter } from '../../src/core/formats/kilo/index.js';
import type { AdapterContext, SessionFileGroup } from '../../src/core/formats/types.js';
import { resumeCommand } from '../../src/core/resume.js';
import { loadAgentDatabase } from '../helpers/agent-databases.js';

const BIN = join(import.meta.dirname, '..', '..', 'bin', 'sessions.js');
const NOTES = 'ses_ddb751e0fffeUS1rG9Z5AW0b29';
const MAIN = 'ses_ddb74a3bcffef9V5TQ5zcOGfBN';
const FORK = 'ses_ddb72cf9affen2lpeLQu6BRdDr';
const CAFE = 'ses_ddb7254acffemFMX8kqfWtBH2f';
const MAIN_PROMPTS = ['"[k] What does the api server do?"', '"[k] RUN-THE-TOOL: show me what the tool prints."', '"[k] Add a health check endpoint."', '"[k] Now document the endpoint."'];
const ENVIRONMENT = '\n\n<environment_details>\nMessage time: 2026-11-28T23:44:17Z\nWorking directory: /home/dev/src/k-api-server\nWorkspace root folder: /\n</environment_details>';
const context: AdapterContext = { report: () => undefined, lookup: () => undefined, names: () => new Map() };

let temp: string;
let home: string;
let db: string;

beforeEach(async () => {
  temp = await mkdtemp(join(tmpdir(), 'sessions-kilo-'));
  home = join(temp, 'home');
  db = await loadAgentDatabase('kilo', home);
});

afterEach(async () => {
  await rm(temp, { recursive: true, force: true });
});

const root = (): string => join(home, '.local', 'share', 'kilo');
const conversation = (id: string): SessionFileGroup => ({ agent: 'kilo', paths: [db], idHint: id, root: root(), archived: false });

function sessionsJson<T>(args: readonly string[]): Promise<T> {
  return new Promise((resolve, reject) =>
    execFile(process.execPath, [BIN, ...args], { cwd: temp, env: { PATH: process.env.PATH, HOME: temp, XDG_CACHE_HOME: join(temp, 'cache'), XDG_CONFIG_HOME: join(temp, 'config') } }, (error, stdout, stderr) =>
      error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(JSON.parse(stdout) as T),
    ),
  );
}

function sql<T>(run: (handle: Database.Database) => T): T {
  const handle = new Database(db);
  try {
    return run(handle);
  } finally {
    handle.close();
  }
}

describe('Kilo Code CLI sessions (kilo.db)', () => {
  it('list --json --all --home H: every session once, with its turns, prompts, cwd and title (the first prompt while Kilo keeps its placeholder)', async () => {
    const rows = await sessionsJson<{ id: string; agent: string; path: string; cwd: string; title: string; firstPrompt: string; lastPrompt: string; userTurns: number; forkedFrom: string | null }[]>(['list', '--json', '--all', '--home', home, '--agent', 'kilo']);
    expect(rows.map((row) => [row.id, row.agent, row.path, row.cwd, row.userTurns, row.title, row.firstPrompt, row.lastPrompt, row.forkedFrom])).toEqual([
      [CAFE, 'kilo', db, '/home/dev/src/k-café ünïcode', 2, '"[k] Ça marche? Grüße aus dem Café ☕"', '"[k] Ça marche? Grüße aus dem Café ☕"', '"[k] Und noch eine Frage: naïve résumé?"', null],
      // Kilo's own --fork: titled `New session - <time> (fork #1)`, no parent recorded.
      [FORK, 'kilo', db, '/home/dev/src/k-api-server', 5, MAIN_PROMPTS[0], MAIN_PROMPTS[0], '"[k] In the fork: write a test for the health check instead."', null],
      [MAIN, 'kilo', db, '/home/dev/src/k-api-server', 4, MAIN_PROMPTS[0], MAIN_PROMPTS[0], MAIN_PROMPTS[3], null],
      [NOTES, 'kilo', db, '/home/dev/src/k-notes', 1, '"[k] Summarise the notes folder in one line."', '"[k] Summarise the notes folder in one line."', '"[k] Summarise the notes folder in one line."', null],
    ]);
    const shown = await sessionsJson<{ messages: { userTurn: boolean; blocks: { type: string; text?: string }[] }[] }>(['show', FORK, '--format', 'json', '--home', home]);
    expect(shown.messages.filter((m) => m.userTurn).map((m) => m.blocks.map((b) => b.text).join(''))).toEqual([...MAIN_PROMPTS, '"[k] In the fork: write a test for the health check instead."']);
  });

  it('reads the transcript: prompts, reasoning, answers, the bash call and its result', async () => {
    const session = await kiloAdapter.readSession(conversation(MAIN), context);
    expect(session).toMatchObject({ agent: 'kilo', id: MAIN, userTurns: 4, prompts: MAIN_PROMPTS, model: 'stand-in' });
    const blocks = session.messages.flatMap((message) => message.blocks);
    expect(blocks).toContainEqual({ type: 'tool_use', id: 'call_standin_3', name: 'bash', input: JSON.stringify({ command: 'echo interop-tool-ran', description: 'Print a marker' }) });
    expect(blocks).toContainEqual({ type: 'tool_result', toolUseId: 'call_standin_3', output: 'interop-tool-ran\n', isError: false });
  });

  it('the <environment_details> block Kilo appends to a prompt is not the user\'s: not in the row, the transcript nor a hand-off', async () => {
    // Kilo 7.7.9 adds the block per request (as a synthetic part); a prompt stored with it, in its text or as a part
    // of its own not marked synthetic, reads as the prompt alone.
    const [first, second] = sql((handle) => handle.prepare("SELECT id, message_id FROM part WHERE session_id = ? AND json_extract(data, '$.type') = 'text' AND message_id IN (SELECT id FROM message WHERE json_extract(data, '$.role') = 'user') ORDER BY message_id").all(MAIN) as { id: string; message_id: string }[]);
    sql((handle) => {
      handle.prepare("UPDATE part SET data = json_set(data, '$.text', json_extract(data, '$.text') || ?) WHERE id = ?").run(ENVIRONMENT, first!.id);
      handle.prepare('INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, 0, 0, ?)').run(`${second!.id}zz`, second!.message_id, MAIN, JSON.stringify({ type: 'text', text: ENVIRONMENT.trim() }));
    });
    const row = await kiloAdapter.readSummary(conversation(MAIN), context);
    expect(row).toMatchObject({ userTurns: 4, prompts: MAIN_PROMPTS, title: MAIN_PROMPTS[0] });
    const session = await kiloAdapter.readSession(conversation(MAIN), context);
    expect(JSON.stringify(session.messages.filter((message) => message.role === 'user'))).not.toContain('environment_details');
    const handed = handoffConversation(session, 5);
    expect(handed.items.filter((item) => item.kind === 'user').map((item) => item.blocks)).toEqual(MAIN_PROMPTS.map((text) => [{ type: 'text', text }]));
    expect((await kiloAdapter.store!.texts({ ...conversation(MAIN), idHint: null }, context)).find((text) => text.id === MAIN)?.text).toContain(MAIN_PROMPTS[1]);
  });

  it('a fork is titled as Kilo titles its own, and reads as the first prompt while that is the placeholder', async () => {
    const result = await kiloAdapter.fork(conversation(MAIN), { atTurn: 3, now: new Date('2026-11-29T00:00:00.000Z') }, context);
    expect(result).toMatchObject({ agent: 'kilo', path: db, parentId: MAIN, keptUserTurns: 2 });
    expect(sql((handle) => (handle.prepare('SELECT title FROM session WHERE id = ?').get(result.id) as { title: string }).title)).toBe('New session - 2026-11-28T23:44:02.638Z (fork #1)');
    expect(await kiloAdapter.readSummary(conversation(result.id), context)).toMatchObject({ title: MAIN_PROMPTS[0], userTurns: 2, prompts: MAIN_PROMPTS.slice(0, 2), forkedFrom: MAIN, cwd: '/home/dev/src/k-api-server' });
  });

  it("a delete takes Kilo's own rows of the session too (its board), and a restore puts every one back", async () => {
    const board = (): unknown[] => sql((handle) => handle.prepare('SELECT * FROM kilo_board WHERE root_session_id = ?').all(MAIN));
    const before = board();
    expect(before).toHaveLength(1);
    const store = kiloAdapter.store!;
    const kept = await store.rowsOf(db, MAIN);
    expect(JSON.parse(kept).tables.map(([table]: [string]) => table)).toContain('kilo_board');
    await store.takeOut(db, MAIN, kept);
    expect(board()).toEqual([]);
    expect((await store.readRows({ ...conversation(MAIN), idHint: null }, context)).map((row) => row.id)).not.toContain(MAIN);
    await store.putBack(db, kept);
    expect(board()).toEqual(before);
    expect(await kiloAdapter.readSummary(conversation(MAIN), context)).toMatchObject({ userTurns: 4 });
  });

  it('resumes with kilo -s in the session cwd, XDG_DATA_HOME pointing at the home it came from', () => {
    const command = resumeCommand({ agent: 'kilo', id: MAIN, path: db, cwd: '/home/dev/src/k-api-server', root: root() });
    expect(command.argv).toEqual(['kilo', '-s', MAIN]);
    expect(command.cwd).toBe('/home/dev/src/k-api-server');
    expect(command.env).toEqual({ XDG_DATA_HOME: join(home, '.local', 'share') });
    expect(() => resumeCommand({ agent: 'kilo', id: '--help', path: db, cwd: '/', root: root() })).toThrow();
  });
});
