import { execFile } from 'node:child_process';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { ForkRangeError } from '../../src/core/errors.js';
import { auggieAdapter } from '../../src/core/formats/auggie/index.js';
import type { AdapterContext, SessionFileGroup } from '../../src/core/formats/types.js';
import { handoffNote } from '../../src/core/handoff/index.js';
import { handoffConversation } from '../../src/core/handoff/conversation.js';
import { resumeCommand, DEFAULT_EXEC_TEMPLATES, DEFAULT_RESUME_TEMPLATES } from '../../src/core/resume.js';
import { sha256File } from '../helpers/files.js';

// Sessions the real Auggie 0.36.0 wrote against the loopback stand-in of Augment's backend
// (test/interop/record-auggie.ts, HOME=/home/dev): four turns with a launch-process call continued with `--resume ID`,
// two turns continued with `-c`, and one turn in a folder with a space and a non-ASCII name.
const HERE = dirname(fileURLToPath(import.meta.url));
const FIXTURE = join(HERE, '..', 'fixtures', 'auggie-0.36.0', '.augment');
const BIN = join(HERE, '..', '..', 'bin', 'sessions.js');
const MAIN = '9547752f-264b-4591-bad5-7c18f2271bf2';
const PAIR = 'c74caba0-8c2b-434f-8e0f-e865dbcd14eb';
const CAFE = '213c0147-ddb8-4e42-860b-abd1dd2bff3e';
const MAIN_PROMPTS = ['[a] What does the api server do?', '[a] RUN-THE-TOOL: show me what the tool prints.', '[a] Add a health check endpoint.', '[a] Now write a test for it.'];
const context: AdapterContext = { report: () => undefined, lookup: () => undefined, names: () => new Map() };

let temp: string;
let home: string;
let root: string; // a copy of the fixture's .augment: forks write here, never into the fixture

beforeAll(async () => {
  temp = await mkdtemp(join(tmpdir(), 'sessions-auggie-'));
  home = join(temp, 'home');
  root = join(home, '.augment');
  await cp(FIXTURE, root, { recursive: true });
});

afterAll(async () => {
  await rm(temp, { recursive: true, force: true });
});

const file = (id: string): string => join(root, 'sessions', `${id}.json`);
const group = (id: string): SessionFileGroup => ({ agent: 'auggie', paths: [file(id)], idHint: id, root, archived: false });

function sessionsJson<T>(args: readonly string[]): Promise<T> {
  return new Promise((resolve, reject) =>
    execFile(process.execPath, [BIN, ...args], { cwd: temp, env: { PATH: process.env.PATH, HOME: temp, XDG_CACHE_HOME: join(temp, 'cache'), XDG_CONFIG_HOME: join(temp, 'config') } }, (error, stdout, stderr) =>
      error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(JSON.parse(stdout) as T),
    ),
  );
}

describe('sessions the real Auggie 0.36.0 wrote (test/fixtures/auggie-0.36.0)', () => {
  it('list --json --all --home H: every session once, with its turns, prompts, cwd and title (the first prompt: Auggie keeps none)', async () => {
    const rows = await sessionsJson<{ id: string; agent: string; path: string; cwd: string; title: string; name: string | null; firstPrompt: string; lastPrompt: string; userTurns: number; forkedFrom: string | null }[]>([
      'list', '--json', '--all', '--home', home, '--agent', 'auggie',
    ]);
    expect(rows.map((row) => [row.id, row.agent, row.path, row.cwd, row.userTurns, row.title, row.name, row.firstPrompt, row.lastPrompt, row.forkedFrom])).toEqual([
      [CAFE, 'auggie', file(CAFE), '/home/dev/src/a-café 日本', 1, '[a] Résumé of the café menu, 日本語 please.', null, '[a] Résumé of the café menu, 日本語 please.', '[a] Résumé of the café menu, 日本語 please.', null],
      // Continued with `-c`: the same file, two turns.
      [PAIR, 'auggie', file(PAIR), '/home/dev/src/a-notes', 2, '[a] Keep a list of the open questions.', null, '[a] Keep a list of the open questions.', '[a] Add one about the deploy.', null],
      // The exchange that carried the tool's result back is no turn.
      [MAIN, 'auggie', file(MAIN), '/home/dev/src/a-api-server', 4, MAIN_PROMPTS[0], null, MAIN_PROMPTS[0], MAIN_PROMPTS[3], null],
    ]);
  });

  it('the transcript: prompts, reasoning, answers, the launch-process call and its result', async () => {
    const session = await auggieAdapter.readSession(group(MAIN), context);
    expect(session).toMatchObject({ agent: 'auggie', id: MAIN, userTurns: 4, prompts: MAIN_PROMPTS, createdAt: '2026-11-29T02:06:15.584Z', updatedAt: '2026-11-29T02:06:37.532Z' });
    const roles = session.messages.map((message) => `${message.role}${message.userTurn ? '*' : ''}:${message.blocks.map((block) => block.type).join(',')}`);
    expect(roles).toEqual([
      'user*:text', 'assistant:reasoning,text',
      'user*:text', 'assistant:tool_use',
      'tool:tool_result', 'assistant:text',
      'user*:text', 'assistant:reasoning,text',
      'user*:text', 'assistant:reasoning,text',
    ]);
    const blocks = session.messages.flatMap((message) => message.blocks);
    expect(blocks[1]).toEqual({ type: 'reasoning', summary: `Thinking about: ${MAIN_PROMPTS[0]}`, encrypted: false });
    const call = blocks.find((block) => block.type === 'tool_use');
    expect(call).toMatchObject({ type: 'tool_use', name: 'launch-process', input: JSON.stringify({ command: 'echo interop-tool-ran', wait: true, max_wait_seconds: 30, cwd: '.' }) });
    const result = blocks.find((block) => block.type === 'tool_result');
    expect(result).toMatchObject({ type: 'tool_result', toolUseId: call?.type === 'tool_use' ? call.id : '', isError: false });
    expect(result?.type === 'tool_result' && result.output).toContain('interop-tool-ran');
    expect(blocks).toContainEqual({ type: 'text', text: 'The tool ran; done.' });
  });

  it('a fork at turn 3 is a new <id>.json with the exchanges before it as they were; the original is untouched; the catalog links them by lineage', async () => {
    const before = await sha256File(file(MAIN));
    await expect(auggieAdapter.fork(group(MAIN), { atTurn: 6 }, context)).rejects.toBeInstanceOf(ForkRangeError);
    const result = await auggieAdapter.fork(group(MAIN), { atTurn: 3, now: new Date('2026-11-29T03:00:00.000Z') }, context);
    expect(result).toMatchObject({ agent: 'auggie', parentId: MAIN, keptUserTurns: 2 });
    expect(result.path).toBe(file(result.id));
    const original = JSON.parse(await readFile(file(MAIN), 'utf8')) as { chatHistory: unknown[]; rootTaskUuid: string };
    const fork = JSON.parse(await readFile(result.path, 'utf8')) as Record<string, unknown> & { chatHistory: unknown[] };
    // Turns 1-2: the first prompt's exchange, the tool call's, and the one that carried its result back.
    expect(fork.chatHistory).toEqual(original.chatHistory.slice(0, 3));
    expect(fork).toMatchObject({ sessionId: result.id, created: '2026-11-29T03:00:00.000Z', modified: '2026-11-29T03:00:00.000Z' });
    expect(fork.rootTaskUuid, "the original's task list stays the original's").toBeUndefined();
    expect(await sha256File(file(MAIN))).toBe(before);
    const [parent, child] = await Promise.all([auggieAdapter.readSummary(group(MAIN), context), auggieAdapter.readSummary({ ...group(result.id) }, context)]);
    expect(child).toMatchObject({ userTurns: 2, lastPrompt: MAIN_PROMPTS[1], cwd: '/home/dev/src/a-api-server' });
    expect(child?.lineage).toBeDefined();
    expect(child?.lineage).toBe(parent?.lineage);
    const head = (await readFile(result.path)).subarray(0, 64 * 1024);
    expect(auggieAdapter.lineageInHead!(head)).toBe(parent?.lineage);
    const listed = await sessionsJson<{ id: string; forkedFrom: string | null }[]>(['list', '--json', '--all', '--home', home, '--agent', 'auggie']);
    expect(listed.find((row) => row.id === result.id)?.forkedFrom).toBe(MAIN);
    expect(listed.find((row) => row.id === MAIN)?.forkedFrom).toBeNull();
    await rm(result.path);
  });

  it('a hand-off into Auggie: the note a text node before the first prompt (no turn), the tool call and its result paired across exchanges', async () => {
    const source = await auggieAdapter.readSession(group(MAIN), context);
    const note = handoffNote({ agent: 'auggie', id: MAIN, atTurn: 4 }, 'auggie');
    const written = await auggieAdapter.handoff!.write(handoffConversation(source, 4), { source: { agent: 'auggie', id: MAIN, atTurn: 4 }, cwd: '/home/dev/src/elsewhere', gitBranch: null, model: null, note, now: new Date('2026-11-29T03:00:00.000Z'), branchName: 'carried over' }, root);
    const back = await auggieAdapter.readSession({ ...group(written.id) }, context);
    expect(back).toMatchObject({ id: written.id, cwd: '/home/dev/src/elsewhere', userTurns: 3, prompts: MAIN_PROMPTS.slice(0, 3), title: 'carried over', name: 'carried over' });
    expect(back.messages[0]).toMatchObject({ role: 'system', userTurn: false, blocks: [{ type: 'text', text: note }] });
    const call = back.messages.flatMap((m) => m.blocks).find((block) => block.type === 'tool_use');
    const result = back.messages.flatMap((m) => m.blocks).find((block) => block.type === 'tool_result');
    expect(call?.type === 'tool_use' && result?.type === 'tool_result' && call.id === result.toolUseId).toBe(true);
    expect(back.messages.flatMap((m) => m.blocks).some((block) => block.type === 'reasoning'), 'reasoning stays behind').toBe(false);
    await rm(written.path);
  });

  it('no rename: the name (customTitle) lives only in the session file Auggie rewrites whole; an existing one titles the row', async () => {
    expect(auggieAdapter.rename).toBeUndefined();
    const copy = join(temp, 'named', '.augment');
    await cp(root, copy, { recursive: true });
    const path = join(copy, 'sessions', `${PAIR}.json`);
    const document = JSON.parse(await readFile(path, 'utf8')) as Record<string, unknown>;
    await writeFile(path, JSON.stringify({ ...document, customTitle: 'Open questions' }, null, 2));
    expect(await auggieAdapter.readSummary({ ...group(PAIR), paths: [path], root: copy }, context)).toMatchObject({ title: 'Open questions', name: 'Open questions', userTurns: 2, firstPrompt: '[a] Keep a list of the open questions.' });
  });

  it('resume: `auggie --resume ID` and `auggie --resume ID --print PROMPT` in the recorded cwd; another .augment through its HOME', async () => {
    const row = { ...(await auggieAdapter.readSummary(group(MAIN), context))!, root };
    expect(resumeCommand(row, DEFAULT_RESUME_TEMPLATES, { defaultHomes: {} })).toMatchObject({ argv: ['auggie', '--resume', MAIN], cwd: '/home/dev/src/a-api-server', env: { HOME: home } });
    expect(resumeCommand(row, DEFAULT_EXEC_TEMPLATES, { prompt: 'go on', defaultHomes: { auggie: root } })).toMatchObject({ argv: ['auggie', '--resume', MAIN, '--print', 'go on'], env: {} });
  });
});
