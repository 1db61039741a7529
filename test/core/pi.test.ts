import { appendFile, cp, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { piAdapter } from '../../src/core/formats/pi/index.js';
import type { AdapterContext, Problem, SessionFileGroup } from '../../src/core/formats/types.js';
import { messageText, type Message } from '../../src/core/model.js';
import { resolveLocations } from '../../src/catalog/locations.js';
import { sha256File } from '../helpers/files.js';

// Sessions the real pi 0.74.2 wrote against the loopback model stand-in (test/interop/record-pi.ts, HOME=/home/dev;
// test/fixtures/pi-0.74.2/README.md says what each one is).
const FIXTURE = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'pi-0.74.2', '.pi', 'agent');
const API = 'sessions/--home-dev-src-p-api-server--';
const NOTES = 'sessions/--home-dev-src-p-notes--';
const TREE = 'sessions/--home-dev-src-p-tree--';
const ACCENTS = 'sessions/--home-dev-src-p-café-日本--';
const FILES = {
  single: `${NOTES}/2026-11-28T23-32-15-197Z_01a22480-90dd-78b2-b878-1d098ab01c3b.jsonl`,
  main: `${API}/2026-11-28T23-32-16-793Z_01a22480-9719-72b3-ac49-695237831be6.jsonl`,
  named: `${API}/2026-11-28T23-32-24-351Z_01a22480-b49f-7a6c-a9cc-a6d9bdc0d94c.jsonl`,
  compacted: `${NOTES}/2026-11-28T23-32-30-351Z_01a22480-cc0f-7106-98cd-7eacad790274.jsonl`,
  tree: `${TREE}/2026-11-28T23-32-40-450Z_01a22480-f382-791d-a9e4-1402703e6259.jsonl`,
  piFork: `${API}/2026-11-28T23-32-48-226Z_01a22481-11e2-751c-8ad8-5a93c2e24c2a.jsonl`,
  accents: `${ACCENTS}/2026-11-28T23-32-49-981Z_01a22481-18bd-770d-a6e6-7bbc97d68efe.jsonl`,
} as const;
const idOf = (file: string): string => file.slice(-42, -6);
const MAIN = ['[p] What does the api server do?', '[p] RUN-THE-TOOL: show me what the tool prints.', '[p] Add a health check endpoint.', '[p] Now write a test for it.'];

let temp: string;
let root: string;
const problems: Problem[] = [];
const context: AdapterContext = { report: (problem) => problems.push(problem), lookup: () => undefined, names: () => new Map() };
const group = (file: string): SessionFileGroup => ({ agent: 'pi', paths: [join(root, file)], idHint: idOf(file), root, archived: false });
const prompts = (messages: readonly Message[]): string[] => messages.filter((message) => message.userTurn).map(messageText);

beforeAll(async () => {
  temp = await mkdtemp(join(tmpdir(), 'sessions-pi-'));
  root = join(temp, '.pi', 'agent');
  await cp(FIXTURE, root, { recursive: true });
});

afterAll(async () => {
  await rm(temp, { recursive: true, force: true });
});

describe('sessions the real pi 0.74.2 wrote (test/fixtures/pi-0.74.2)', () => {
  it('discovery: one group per session file, named by the id in its name; the watcher groups them the same way', async () => {
    const groups = await piAdapter.discover(root, context.report);
    expect(groups.map((one) => one.idHint).sort()).toEqual(Object.values(FILES).map(idOf).sort());
    const known = [...groups.flatMap((one) => one.paths), join(root, 'auth.json'), join(root, 'sessions', 'loose.jsonl')];
    expect(piAdapter.groupFiles(root, known)).toEqual(groups);
  });

  it('rows: every session once, its active branch\'s turns, cwd from the header, the session_info name as title', async () => {
    const rows = Object.fromEntries(await Promise.all(Object.entries(FILES).map(async ([key, file]) => [key, await piAdapter.readSummary(group(file), context)])));
    expect(rows.main).toMatchObject({ id: idOf(FILES.main), agent: 'pi', cwd: '/home/dev/src/p-api-server', userTurns: 4, prompts: MAIN, title: MAIN[0], name: null, model: 'stand-in', forkedFrom: null });
    expect(rows.main!.createdAt).toBe('2026-11-28T23:32:16.793Z');
    expect(rows.main!.usage).toMatchObject({ output: 40, cacheRead: 0 });
    expect(rows.single).toMatchObject({ userTurns: 1, cwd: '/home/dev/src/p-notes', title: '[p] Hello from pi, one turn only.' });
    expect(rows.named).toMatchObject({ userTurns: 2, name: 'pi routes review', title: 'pi routes review', firstPrompt: '[p] Explain the routing table.', lastPrompt: '[p] Which routes are public?' });
    // Compaction leaves the compacted entries in the file: every prompt stays a turn.
    expect(rows.compacted).toMatchObject({
      userTurns: 4,
      prompts: ['[p] Summarise the meeting notes.', '[p] RUN-THE-TOOL: list the notes.', '[p] Pick the three action items.', '[p] Draft the follow-up email.'],
    });
    // The tree: back to its second prompt, then another one. The row is the branch pi resumes.
    expect(rows.tree).toMatchObject({ userTurns: 2, prompts: ['[p] tree-t1 Plan the migration.', '[p] tree-t2b Use a canary deploy instead.'], title: '[p] tree-t1 Plan the migration.' });
    // pi's own --fork: its header names the original's file.
    expect(rows.piFork).toMatchObject({ userTurns: 5, forkedFrom: idOf(FILES.main), fork: { id: idOf(FILES.main) }, lastPrompt: '[p] Take another direction: add metrics.' });
    expect(rows.accents).toMatchObject({ cwd: '/home/dev/src/p-café-日本', userTurns: 2, lastPrompt: '[p] Merci, ça suffit.' });
    expect(problems).toEqual([]);
  });

  it('the transcript: the active branch, its thinking, the tool call with its result, the compaction marker and the branch summary', async () => {
    const main = await piAdapter.readSession(group(FILES.main), context);
    expect(prompts(main.messages)).toEqual(MAIN);
    const blocks = main.messages.flatMap((message) => message.blocks);
    expect(blocks).toContainEqual({ type: 'reasoning', summary: 'Thinking about: [p] What does the api server do?', encrypted: false });
    expect(blocks).toContainEqual({ type: 'tool_use', id: 'call_standin_3', name: 'bash', input: '{"command":"echo interop-tool-ran"}' });
    expect(blocks).toContainEqual({ type: 'tool_result', toolUseId: 'call_standin_3', output: 'interop-tool-ran\n', isError: false });
    const compacted = await piAdapter.readSession(group(FILES.compacted), context);
    expect(compacted.messages.map((message) => (message.userTurn ? messageText(message) : message.blocks[0]!.type))).toEqual([
      '[p] Summarise the meeting notes.', 'reasoning', '[p] RUN-THE-TOOL: list the notes.', 'tool_use', 'tool_result', 'text',
      '[p] Pick the three action items.', 'reasoning', 'compaction', '[p] Draft the follow-up email.', 'reasoning',
    ]);
    const tree = await piAdapter.readSession(group(FILES.tree), context);
    expect(prompts(tree.messages)).toEqual(['[p] tree-t1 Plan the migration.', '[p] tree-t2b Use a canary deploy instead.']);
    expect(tree.messages.filter((message) => message.role === 'assistant').map(messageText)).toEqual(['Answer to: [p] tree-t1 Plan the migration.', 'Answer to: [p] tree-t2b Use a canary deploy instead.']);
    // Where the other branch (the first second prompt, and the third) leaves the active one, then the summary pi wrote of it.
    expect(tree.messages.filter((message) => message.role === 'system').map(messageText)).toEqual([
      '[another branch leaves here (pi\'s /tree): 2 prompts, from "[p] tree-t2 Use a blue-green deploy."; its last entry 0c6bcb9e (sessions fork --leaf 0c6bcb9e)]',
      expect.stringMatching(/^\[summary of another branch\] The user explored a different conversation branch/),
    ]);
    expect(tree.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'system', 'system', 'user', 'assistant']);
    // A file with no other branch has no such note.
    expect(main.messages.some((message) => message.role === 'system')).toBe(false);
  });

  it('forks the tree\'s active branch before its second turn: what pi resumes, its header naming the original', async () => {
    const before = await sha256File(join(root, FILES.tree));
    const now = new Date('2026-11-29T01:00:00.000Z');
    const fork = await piAdapter.fork(group(FILES.tree), { atTurn: 2, branchName: 'canary only', now }, context);
    expect(fork).toMatchObject({ agent: 'pi', parentId: idOf(FILES.tree), keptUserTurns: 1 });
    expect(fork.path).toBe(join(root, TREE, `2026-11-29T01-00-00-000Z_${fork.id}.jsonl`));
    const lines = (await readFile(fork.path, 'utf8')).trimEnd().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines[0]).toEqual({ type: 'session', version: 3, id: fork.id, timestamp: now.toISOString(), cwd: '/home/dev/src/p-tree', parentSession: join(root, FILES.tree) });
    // model, thinking level, prompt 1, its answer, the summary of the branch left behind (before the active second
    // prompt), then the name; nothing of either second prompt.
    expect(lines.slice(1).map((line) => line.type)).toEqual(['model_change', 'thinking_level_change', 'message', 'message', 'branch_summary', 'session_info']);
    expect(JSON.stringify(lines.slice(1, -2))).not.toMatch(/\[p\] tree-t[23]/);
    expect(lines.at(-1)).toMatchObject({ name: 'canary only', parentId: lines.at(-2)!.id });
    const row = await piAdapter.readSummary({ ...group(FILES.tree), paths: [fork.path], idHint: fork.id }, context);
    expect(row).toMatchObject({ id: fork.id, userTurns: 1, title: 'canary only', forkedFrom: idOf(FILES.tree) });
    expect(await sha256File(join(root, FILES.tree))).toBe(before);
  });

  it('forks the branch /tree left behind, by its last entry: its own turns, as pi would resume it there', async () => {
    const before = await sha256File(join(root, FILES.tree));
    const now = new Date('2026-11-29T01:00:00.000Z');
    const whole = await piAdapter.fork(group(FILES.tree), { atTurn: 99, leaf: { id: '0c6bcb9e', whole: true }, now }, context);
    expect(whole.keptUserTurns).toBe(3);
    const read = await piAdapter.readSession({ ...group(FILES.tree), paths: [whole.path], idHint: whole.id }, context);
    expect(prompts(read.messages)).toEqual(['[p] tree-t1 Plan the migration.', '[p] tree-t2 Use a blue-green deploy.', '[p] tree-t3 Write the runbook.']);
    // before its third turn, named by a prefix of the entry
    const cut = await piAdapter.fork(group(FILES.tree), { atTurn: 3, leaf: { id: '0c6b', whole: false }, now }, context);
    const lines = (await readFile(cut.path, 'utf8')).trimEnd().split('\n').map((line) => JSON.parse(line) as { id?: string });
    expect(lines.slice(1).map((line) => line.id)).toEqual(['4ac02a55', 'c2521af1', 'f9a2d422', 'cd24ed0d', 'ee88237f', '01a4bfc3']);
    await expect(piAdapter.fork(group(FILES.tree), { atTurn: 2, leaf: { id: 'ffff0000', whole: false }, now }, context)).rejects.toThrow(/holds no entry named "ffff0000"/);
    await expect(piAdapter.fork(group(FILES.tree), { atTurn: 5, leaf: { id: '0c6bcb9e', whole: false }, now }, context)).rejects.toThrow(/out of range/);
    expect(await sha256File(join(root, FILES.tree))).toBe(before);
  });

  it('an appended turn is folded on from the saved fold, as a whole read folds it', async () => {
    const saving: AdapterContext = { ...context, saveFoldFrom: 0 };
    const indexed = await piAdapter.indexSession(group(FILES.single), saving);
    expect(indexed.resume).toBeDefined();
    const parent = JSON.parse((await readFile(join(root, FILES.single), 'utf8')).trimEnd().split('\n').at(-1)!) as { id: string };
    await appendFile(join(root, FILES.single), `${JSON.stringify({ type: 'message', id: 'abcd0001', parentId: parent.id, timestamp: '2026-11-29T02:00:00.000Z', message: { role: 'user', content: [{ type: 'text', text: 'appended' }], timestamp: 1 } })}\n`);
    const resumed = await piAdapter.indexSession(group(FILES.single), saving, indexed.resume);
    const whole = await piAdapter.indexSession(group(FILES.single), context);
    expect(resumed.summary).toEqual(whole.summary);
    expect(resumed.summary).toMatchObject({ userTurns: 2, lastPrompt: 'appended', updatedAt: '2026-11-29T02:00:00.000Z' });
  });

  it('roots: --home DIR is DIR/.pi/agent, else $PI_CODING_AGENT_DIR (~ expanded as pi does), else ~/.pi/agent', () => {
    const roots = (home: string | undefined, env: Record<string, string>): string[] => piAdapter.locations.defaultRoots({ home, env, homeDir: '/home/u', abs: (path) => resolve('/cwd', path) });
    expect(roots('/h', { PI_CODING_AGENT_DIR: '/x' })).toEqual(['/h/.pi/agent']);
    expect(roots(undefined, { PI_CODING_AGENT_DIR: '/x/agent' })).toEqual(['/x/agent']);
    expect(roots(undefined, { PI_CODING_AGENT_DIR: '~/pi' })).toEqual(['/home/u/pi']);
    expect(roots(undefined, {})).toEqual(['/home/u/.pi/agent']);
    expect(resolveLocations({ roots: { pi: ['/a', '/b'] } }, { cwd: '/w', homeDir: '/home/u', env: {} }).roots.pi).toEqual(['/a', '/b']);
  });
});
