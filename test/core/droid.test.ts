import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { ForkRangeError } from '../../src/core/errors.js';
import { droidAdapter } from '../../src/core/formats/droid/index.js';
import type { AdapterContext, Problem, SessionFileGroup } from '../../src/core/formats/types.js';
import { handoffNote } from '../../src/core/handoff/index.js';
import { handoffConversation } from '../../src/core/handoff/conversation.js';
import { messageText, type SessionSummary } from '../../src/core/model.js';
import { sha256File } from '../helpers/files.js';

// Sessions the real Factory Droid 0.225.2 wrote against the loopback model stand-in (test/interop/record-droid.ts,
// HOME=/home/dev): a 4-turn session with a tool call (continued with `exec -s`), a 1-turn session in a folder with a
// space and a non-ASCII name, and Droid's own `exec --fork` of the first with a 5th turn.
const FIXTURE = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'droid-0.225.2', '.factory');
const API = 'sessions/-home-dev-src-d-api-server';
const ACCENTS = 'sessions/-home-dev-src-d-café 日本';
const MAIN_ID = 'ea64e05b-c101-4a66-a855-13c5b0dfbc39';
const FORK_ID = '6947af31-6b60-4fe0-851b-3e8ea6efe543';
const ACCENTS_ID = 'c3c2b345-d819-4284-a975-b7a8dd6b83b6';
const MAIN_PROMPTS: [string, string, string, string] = ['[d] What does the api server do?', '[d] RUN-THE-TOOL: show me what the tool prints.', '[d] Add a health check endpoint.', '[d] Now write a test for it.'];

let temp: string;
let root: string; // a copy of the fixture's .factory: forks write here, never into the fixture
const problems: Problem[] = [];
const context: AdapterContext = { report: (problem) => problems.push(problem), lookup: () => undefined, names: () => new Map() };

beforeAll(async () => {
  temp = await mkdtemp(join(tmpdir(), 'sessions-droid-'));
  root = join(temp, '.factory');
  await cp(FIXTURE, root, { recursive: true });
});

afterAll(async () => {
  await rm(temp, { recursive: true, force: true });
});

const file = (dir: string, id: string): string => join(root, dir, `${id}.jsonl`);
const group = (path: string): SessionFileGroup => ({ agent: 'droid', paths: [path], idHint: path.replace(/^.*\/|\.jsonl$/g, ''), root, archived: false });

describe('sessions the real Factory Droid 0.225.2 wrote (test/fixtures/droid-0.225.2)', () => {
  it('discovery: one group per session file (not its settings or their backup); the watcher groups the same way', async () => {
    const groups = await droidAdapter.discover(root, context.report);
    expect(groups).toEqual([group(file(API, FORK_ID)), group(file(API, MAIN_ID)), group(file(ACCENTS, ACCENTS_ID))]);
    const known = [file(API, MAIN_ID), file(API, FORK_ID), file(ACCENTS, ACCENTS_ID), join(root, API, `${MAIN_ID}.settings.json`), join(root, API, `${MAIN_ID}.settings.json.bak`), join(root, 'logs', 'console.log')];
    expect(droidAdapter.groupFiles(root, known)).toEqual(groups);
    // The folders Droid also looks a session up in: `sessions/` itself and `sessions/btw/` (side questions).
    expect(droidAdapter.groupFiles(root, [join(root, 'sessions', `${MAIN_ID}.jsonl`), join(root, 'sessions', 'btw', `${FORK_ID}.jsonl`), join(root, 'sessions', 'other', `${FORK_ID}.jsonl`)]).map((one) => one.paths[0])).toEqual([
      join(root, 'sessions', 'btw', `${FORK_ID}.jsonl`),
      join(root, 'sessions', `${MAIN_ID}.jsonl`),
    ]);
  });

  it('rows, whole: the hidden context is no turn; cwd and title from session_start; its own fork names its parent', async () => {
    const main = await droidAdapter.readSummary(group(file(API, MAIN_ID)), context);
    expect(main).toEqual({
      id: MAIN_ID,
      agent: 'droid',
      path: file(API, MAIN_ID),
      paths: [file(API, MAIN_ID)],
      cwd: '/home/dev/src/d-api-server',
      title: MAIN_PROMPTS[0],
      firstPrompt: MAIN_PROMPTS[0],
      lastPrompt: MAIN_PROMPTS[3],
      name: null,
      userTurns: 4,
      userTurnsExact: true,
      prompts: MAIN_PROMPTS,
      createdAt: '2026-11-28T23:18:07.434Z',
      updatedAt: '2026-11-28T23:18:17.165Z',
      forkedFrom: null,
      fork: null,
      gitBranch: null,
      model: 'custom:Stand-in-0',
      archived: false,
      usage: null,
      size: main!.size,
      mtimeMs: main!.mtimeMs,
    } satisfies SessionSummary);
    expect(await droidAdapter.readSummary(group(file(API, FORK_ID)), context)).toMatchObject({
      id: FORK_ID,
      userTurns: 5,
      prompts: [...MAIN_PROMPTS, '[d] Document the endpoint instead.'],
      forkedFrom: MAIN_ID,
      fork: { id: MAIN_ID },
      cwd: '/home/dev/src/d-api-server',
    });
    expect(await droidAdapter.readSummary(group(file(ACCENTS, ACCENTS_ID)), context)).toMatchObject({
      id: ACCENTS_ID,
      userTurns: 1,
      cwd: '/home/dev/src/d-café 日本',
      title: '[d] Résumé of the café menu, 日本語 please.',
      lastPrompt: '[d] Résumé of the café menu, 日本語 please.',
    });
    expect(problems).toEqual([]);
  });

  it('the transcript: prompts, answers with their reasoning, the Execute call and its result; none of the hidden context', async () => {
    const session = await droidAdapter.readSession(group(file(API, MAIN_ID)), context);
    expect(session.messages.map((message) => [message.role, message.userTurn, message.blocks.map((block) => block.type).join(',')])).toEqual([
      ['user', true, 'text'],
      ['assistant', false, 'reasoning,text'],
      ['user', true, 'text'],
      ['assistant', false, 'tool_use'],
      ['tool', false, 'tool_result'],
      ['assistant', false, 'text'],
      ['user', true, 'text'],
      ['assistant', false, 'reasoning,text'],
      ['user', true, 'text'],
      ['assistant', false, 'reasoning,text'],
    ]);
    const blocks = session.messages.flatMap((message) => message.blocks);
    expect(blocks[1]).toEqual({ type: 'reasoning', summary: `Thinking about: ${MAIN_PROMPTS[0]}`, encrypted: false });
    const call = blocks.find((block) => block.type === 'tool_use');
    expect(call).toMatchObject({ name: 'Execute' });
    expect(JSON.parse(call?.type === 'tool_use' ? call.input : '{}')).toMatchObject({ command: 'echo interop-tool-ran' });
    expect(blocks.find((block) => block.type === 'tool_result')).toMatchObject({ toolUseId: call?.type === 'tool_use' ? call.id : '', isError: false, output: expect.stringContaining('interop-tool-ran') });
    expect(session.messages.map(messageText).join('\n')).not.toContain('system-reminder');
  });

  it('grep counts no match inside the hidden context lines', () => {
    expect(droidAdapter.isNonConversationLine!('{"type":"message","id":"context-133769e7-553b","timestamp":"t","message":{"role":"user"')).toBe(true);
    expect(droidAdapter.isNonConversationLine!('{"type":"message","id":"133769e7-553b","parentId":"context-133769e7","message":{"role":"user"')).toBe(false);
  });

  it('a fork at turn 3 keeps the lines before it byte for byte, names its parent, copies the settings; the original is untouched', async () => {
    const path = file(API, MAIN_ID);
    const before = await sha256File(path);
    const result = await droidAdapter.fork(group(path), { atTurn: 3 }, context);
    expect(result).toMatchObject({ agent: 'droid', parentId: MAIN_ID, keptUserTurns: 2 });
    expect(dirname(result.path)).toBe(dirname(path));
    const original = (await readFile(path, 'utf8')).split('\n');
    const fork = (await readFile(result.path, 'utf8')).split('\n');
    const header = JSON.parse(fork[0]!) as Record<string, unknown>;
    expect(header).toMatchObject({ type: 'session_start', id: result.id, parent: MAIN_ID, cwd: '/home/dev/src/d-api-server', title: MAIN_PROMPTS[0] });
    // The last message kept: turn 2's final answer.
    const kept = fork.slice(1, -1);
    expect(JSON.parse(kept.findLast((line) => line.includes('"type":"message"'))!).id).toBe(header.forkedAtMessageId);
    expect(kept).toEqual(original.slice(1, 1 + kept.length));
    expect(original[1 + kept.length]).toContain(MAIN_PROMPTS[2]);
    expect(await readFile(result.path.replace(/\.jsonl$/, '.settings.json'), 'utf8')).toBe(await readFile(path.replace(/\.jsonl$/, '.settings.json'), 'utf8'));
    expect(await droidAdapter.readSummary(group(result.path), context)).toMatchObject({ id: result.id, userTurns: 2, prompts: MAIN_PROMPTS.slice(0, 2), forkedFrom: MAIN_ID });
    expect(await sha256File(path)).toBe(before);
    await expect(droidAdapter.fork(group(path), { atTurn: 6 }, context)).rejects.toThrow(ForkRangeError);
  });

  it('a named fork is titled by the name, as Droid marks a title the user set', async () => {
    const result = await droidAdapter.fork(group(file(API, MAIN_ID)), { atTurn: 2, branchName: 'try again' }, context);
    expect(await droidAdapter.readSummary(group(result.path), context)).toMatchObject({ title: 'try again', name: 'try again', userTurns: 1 });
  });

  it('a fork cut before a turn Droid gave hidden context leaves that context out with the turn', async () => {
    // Droid writes the hidden context before a turn it starts (in exec: the first); a fork cut before a later one leaves it out too.
    const lines = (await readFile(file(API, MAIN_ID), 'utf8')).split('\n');
    const third = lines.findIndex((line) => line.includes(MAIN_PROMPTS[2]!));
    const turnId = (JSON.parse(lines[third]!) as { id: string }).id;
    const context2 = `{"type":"message","id":"context-${turnId}","timestamp":"2026-11-28T23:18:14.000Z","message":{"role":"user","content":[{"type":"text","text":"<system-reminder>cwd</system-reminder>"}],"visibility":"llm_only"}}`;
    const path = join(root, API, '11111111-2222-4333-8444-555555555555.jsonl');
    await writeFile(path, [...lines.slice(0, third), context2, ...lines.slice(third)].join('\n'));
    const result = await droidAdapter.fork(group(path), { atTurn: 3 }, context);
    const text = await readFile(result.path, 'utf8');
    expect(text).not.toContain(`context-${turnId}`);
    expect(text).not.toContain(MAIN_PROMPTS[2]);
    expect(await droidAdapter.readSummary(group(path), context)).toMatchObject({ userTurns: 4 });
  });

  it('a hand-off into Droid: the note is hidden context (sent to the model, shown as no turn), then the conversation', async () => {
    const source = await droidAdapter.readSession(group(file(API, MAIN_ID)), context);
    const note = handoffNote({ agent: 'claude', id: 'src', atTurn: 3 }, 'droid');
    const written = await droidAdapter.handoff!.write(handoffConversation(source, 3), { source: { agent: 'claude', id: 'src', atTurn: 3 }, cwd: '/work/a b', gitBranch: null, model: null, note, now: new Date('2026-11-28T00:00:00.000Z') }, root);
    expect(written.path).toBe(join(root, 'sessions', '-work-a b', `${written.id}.jsonl`));
    const lines = (await readFile(written.path, 'utf8')).trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines[0]).toMatchObject({ type: 'session_start', id: written.id, cwd: '/work/a b', title: MAIN_PROMPTS[0], isSessionTitleManuallySet: false });
    expect(lines[0]).not.toHaveProperty('parent');
    expect(lines[1]).toMatchObject({ type: 'message', id: expect.stringMatching(/^context-/), message: { role: 'user', visibility: 'llm_only', content: [{ type: 'text', text: note }] } });
    const back = await droidAdapter.readSession(group(written.path), context);
    expect(back.messages[0]).toMatchObject({ role: 'system', userTurn: false, blocks: [{ type: 'text', text: note }] });
    expect(back).toMatchObject({ userTurns: 2, prompts: MAIN_PROMPTS.slice(0, 2), cwd: '/work/a b' });
  });

  it('resume: `droid --resume ID` and `droid exec -s ID PROMPT`; a .factory elsewhere through FACTORY_HOME_OVERRIDE', () => {
    expect(droidAdapter.resume.homeEnvironment!(join(temp, '.factory'))).toEqual({ FACTORY_HOME_OVERRIDE: temp });
    expect(droidAdapter.resume.homeEnvironment!(join(temp, 'copied'))).toEqual({});
    expect(droidAdapter.locations.defaultRoots({ home: undefined, env: { FACTORY_HOME_OVERRIDE: '/srv/f' }, homeDir: '/home/me', abs: (path) => path })).toEqual(['/srv/f/.factory']);
    expect(droidAdapter.locations.defaultRoots({ home: '/h', env: { FACTORY_HOME_OVERRIDE: '/srv/f' }, homeDir: '/home/me', abs: (path) => path })).toEqual(['/h/.factory']);
    expect(droidAdapter.locations.defaultRoots({ home: undefined, env: {}, homeDir: '/home/me', abs: (path) => path })).toEqual(['/home/me/.factory']);
  });

  it('delete takes the settings and their backup with the session file', async () => {
    const path = file(ACCENTS, ACCENTS_ID);
    expect(await droidAdapter.sessionPaths!(group(path), ACCENTS_ID)).toEqual([path, path.replace(/\.jsonl$/, '.settings.json'), path.replace(/\.jsonl$/, '.settings.json.bak')]);
  });
});
