import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { ForkRangeError } from '../../src/core/errors.js';
import { isQwenNonConversationLine, qwenAdapter } from '../../src/core/formats/qwen/index.js';
import { compileTextSearch, fileContainsSync, fileMatchesSync } from '../../src/core/io/contains.js';
import type { AdapterContext, Problem, SessionFileGroup } from '../../src/core/formats/types.js';
import { messageText, type SessionSummary } from '../../src/core/model.js';
import { resolveLocations } from '../../src/catalog/locations.js';
import { DEFAULT_EXEC_TEMPLATES, DEFAULT_RESUME_TEMPLATES, resumeCommand } from '../../src/core/resume.js';
import { UnsafeSessionIdError } from '../../src/core/session-id.js';
import { sha256File } from '../helpers/files.js';

// Sessions the real Qwen Code 0.24.4 wrote against the loopback model stand-in (test/interop/record-gemini-qwen.ts,
// HOME=/home/dev): a 3-turn session with a tool call (continued with --resume), its own `--fork-session` with a
// 4th turn, and a 2-turn session in a folder with a non-ASCII name (the project folder's name is lossy).
const FIXTURE = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'qwen-0.24.4', '.qwen');
const API = 'projects/-home-dev-src-q-api-server/chats';
const ACCENTS = 'projects/-home-dev-src-q-caf----/chats';
const MAIN_ID = '2b22c286-b68b-48eb-a7da-307c7cf5d761';
const FORK_ID = '102c84f4-79ed-4d67-9fdd-e722d4a36748';
const ACCENTS_ID = '77d4aa70-e81c-4025-9537-2c4526617f71';
const MAIN_PROMPTS: [string, string, string, ...string[]] = ['[q] What does the api server do?', '[q] RUN-THE-TOOL: show me what the tool prints.', '[q] Add a health check endpoint.'];

let temp: string;
let root: string; // a copy of the fixture's .qwen: forks write here, never into the fixture
const problems: Problem[] = [];
const context: AdapterContext = { report: (problem) => problems.push(problem), lookup: () => undefined, names: () => new Map() };

beforeAll(async () => {
  temp = await mkdtemp(join(tmpdir(), 'sessions-qwen-'));
  root = join(temp, '.qwen');
  await cp(FIXTURE, root, { recursive: true });
});

afterAll(async () => {
  await rm(temp, { recursive: true, force: true });
});

const file = (dir: string, id: string): string => join(root, dir, `${id}.jsonl`);
const group = (path: string, archived = false): SessionFileGroup => ({ agent: 'qwen', paths: [path], idHint: path.replace(/^.*\/|\.jsonl$/g, ''), root, archived });

describe('sessions the real Qwen Code 0.24.4 wrote (test/fixtures/qwen-0.24.4)', () => {
  it('discovery: one group per session file, named by its id; the watcher groups the same way', async () => {
    const groups = await qwenAdapter.discover(root, context.report);
    expect(groups).toEqual([group(file(API, FORK_ID)), group(file(API, MAIN_ID)), group(file(ACCENTS, ACCENTS_ID))]);
    const known = [file(API, MAIN_ID), file(API, FORK_ID), file(ACCENTS, ACCENTS_ID), join(root, API, `${MAIN_ID}.ledger.jsonl`), join(root, 'projects', 'x', 'meta.json')];
    expect(qwenAdapter.groupFiles!(root, known)).toEqual(groups);
  });

  it('rows, whole: cwd from the records (the folder name is lossy), prompts, model, usage; its own fork names its parent', async () => {
    const main = await qwenAdapter.readSummary(group(file(API, MAIN_ID)), context);
    expect(main).toEqual({
      id: MAIN_ID,
      agent: 'qwen',
      path: file(API, MAIN_ID),
      paths: [file(API, MAIN_ID)],
      cwd: '/home/dev/src/q-api-server',
      title: MAIN_PROMPTS[0],
      firstPrompt: MAIN_PROMPTS[0],
      lastPrompt: MAIN_PROMPTS[2],
      name: null,
      userTurns: 3,
      userTurnsExact: true,
      prompts: MAIN_PROMPTS,
      createdAt: '2026-11-25T02:14:07.945Z',
      updatedAt: '2026-11-25T02:14:57.538Z',
      forkedFrom: null,
      fork: null,
      gitBranch: null,
      model: 'stand-in',
      archived: false,
      usage: { input: 76389, output: 48, cacheRead: 0, cacheWrite: 0 },
      size: 16641,
      mtimeMs: main!.mtimeMs,
    } satisfies SessionSummary);
    expect(await qwenAdapter.readSummary(group(file(API, FORK_ID)), context)).toMatchObject({
      id: FORK_ID,
      forkedFrom: MAIN_ID,
      fork: { id: MAIN_ID },
      userTurns: 4,
      prompts: [...MAIN_PROMPTS, '[q] Write a test for the health check instead.'],
    });
    expect(await qwenAdapter.readSummary(group(file(ACCENTS, ACCENTS_ID)), context)).toMatchObject({
      id: ACCENTS_ID,
      cwd: '/home/dev/src/q-café-日本',
      prompts: ['[q] Résumé of the café menu, 日本語 please.', '[q] Merci, ça suffit.'],
    });
    expect(problems).toEqual([]);
  });

  it('show: prompts in order, reasoning, the tool call and its result; telemetry and snapshots are not conversation', async () => {
    const session = await qwenAdapter.readSession(group(file(API, MAIN_ID)), context);
    expect(session.messages.filter((m) => m.userTurn).map(messageText)).toEqual(MAIN_PROMPTS);
    const blocks = session.messages.flatMap((m) => m.blocks);
    expect(blocks.filter((b) => b.type === 'tool_use')).toEqual([
      { type: 'tool_use', id: 'call_standin_3', name: 'run_shell_command', input: '{"command":"echo interop-tool-ran","description":"Print a marker"}' },
    ]);
    const results = blocks.filter((b) => b.type === 'tool_result');
    expect(results).toHaveLength(1);
    expect(results[0]!.type === 'tool_result' && results[0]!.output).toContain('Output: interop-tool-ran');
    expect(blocks.filter((b) => b.type === 'reasoning')).toEqual([
      { type: 'reasoning', summary: `Thinking about: ${MAIN_PROMPTS[0]}`, encrypted: false },
      { type: 'reasoning', summary: `Thinking about: ${MAIN_PROMPTS[2]}`, encrypted: false },
    ]);
    expect(session.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant', 'tool', 'assistant', 'user', 'assistant']);
  });

  it('grep counts only conversation text: never the telemetry copies of answers and tool calls, nor snapshots', () => {
    const path = join(FIXTURE, API, `${MAIN_ID}.jsonl`);
    const count = (text: string): number => fileMatchesSync(path, compileTextSearch(text), undefined, undefined, isQwenNonConversationLine).count;
    // The memory agent's answers live only in ui_telemetry records.
    expect(fileContainsSync(path, compileTextSearch('Managed memory has TWO'))).toBe(true);
    expect(count('Managed memory has TWO')).toBe(0);
    expect(count('attribution-snapshot')).toBe(0);
    // An answer is in its assistant record and in a telemetry copy: counted once.
    expect(count('Answer to: [q] What does the api server do?')).toBe(1);
    expect(count('[q] RUN-THE-TOOL: show me what the tool prints.')).toBe(1);
    expect(count('interop-tool-ran')).toBeGreaterThan(0); // the tool result record
    expect(isQwenNonConversationLine('{"uuid":"u","parentUuid":null,"sessionId":"s","timestamp":"t","type":"system","cwd":"/x","subtype":"custom_title","systemPayload":{')).toBe(false);
    expect(isQwenNonConversationLine('{"uuid":"u","parentUuid":null,"sessionId":"s","timestamp":"t","type":"user","subtype":"notification","message":{')).toBe(false);
  });

  it('fork at turn 3: a new <uuid>.jsonl beside the original, the chain before turn 3 under the new id, each record naming its source', async () => {
    const original = file(API, MAIN_ID);
    const before = await sha256File(original);
    const fork = await qwenAdapter.fork(group(original), { atTurn: 3 }, context);
    expect(fork).toMatchObject({ agent: 'qwen', parentId: MAIN_ID, keptUserTurns: 2, path: file(API, fork.id) });
    expect(await sha256File(original)).toBe(before);
    const records = (await readFile(fork.path, 'utf8')).trimEnd().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
    const source = (await readFile(original, 'utf8')).trimEnd().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
    // Qwen Code refuses a transcript with more than one sessionId; its own fork marks copies with forkedFrom.
    expect(new Set(records.map((r) => r.sessionId))).toEqual(new Set([fork.id]));
    for (const record of records) expect(record.forkedFrom).toEqual({ sessionId: MAIN_ID, messageUuid: record.uuid });
    // The records up to turn 3's prompt, as they were (apart from the two keys).
    const cut = source.findIndex((r) => r.type === 'user' && JSON.stringify(r.message).includes(MAIN_PROMPTS[2]!));
    expect(records.map(({ sessionId: _s, forkedFrom: _f, ...rest }) => rest)).toEqual(source.slice(0, cut).map(({ sessionId: _s, ...rest }) => rest));
    expect(await qwenAdapter.readSummary(group(fork.path), context)).toMatchObject({ id: fork.id, forkedFrom: MAIN_ID, userTurns: 2, prompts: MAIN_PROMPTS.slice(0, 2), cwd: '/home/dev/src/q-api-server' });
    await rm(fork.path);
  });

  it('a fork with a branch name ends with the /rename record Qwen Code writes; a fork needs turns on both sides', async () => {
    const fork = await qwenAdapter.fork(group(file(API, FORK_ID)), { atTurn: 4, branchName: 'tests first', now: new Date('2026-11-26T00:00:00Z') }, context);
    expect(await qwenAdapter.readSummary(group(fork.path), context)).toMatchObject({ name: 'tests first', title: 'tests first', userTurns: 3, forkedFrom: FORK_ID });
    await rm(fork.path);
    await expect(qwenAdapter.fork(group(file(API, MAIN_ID)), { atTurn: 1 }, context)).rejects.toBeInstanceOf(ForkRangeError);
    await expect(qwenAdapter.fork(group(file(API, MAIN_ID)), { atTurn: 5 }, context)).rejects.toBeInstanceOf(ForkRangeError);
  });
});

describe('reminders Qwen Code puts in the typed prompt\'s record (issue 28, 3)', () => {
  // Written by the real Qwen Code 0.24.4 (test/interop/record-qwen-reminders.ts, HOME=/home/dev): started with
  // --worktree, resumed twice; each prompt record holds a `<system-reminder>` part ([Startup] / [Resumed] Active
  // worktree…) before the typed part, as a resume with restored background agents does.
  const REMINDERS = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'qwen-0.24.4-reminders', '.qwen');
  const CHATS = 'projects/-home-dev-src-q-reminders--qwen-worktrees-try-it/chats';
  const ID = 'ebb54b52-a7bf-4ffd-b460-a55a05cda48c';
  const TYPED = ['[q] What is in this worktree?', '[q] And after the resume?', '[q] Third and last.'];
  let here: string;
  const chat = (): SessionFileGroup => ({ agent: 'qwen', paths: [join(here, CHATS, `${ID}.jsonl`)], idHint: ID, root: here, archived: false });

  beforeAll(async () => {
    here = join(temp, 'reminders', '.qwen');
    await cp(REMINDERS, here, { recursive: true });
  });

  it('the row, show and a fork give the typed text only', async () => {
    expect(await readFile(chat().paths[0]!, 'utf8')).toContain('<system-reminder>\\n[Resumed] Active worktree');
    const row = await qwenAdapter.readSummary(chat(), context);
    expect(row).toMatchObject({ userTurns: 3, firstPrompt: TYPED[0], lastPrompt: TYPED[2], title: TYPED[0], prompts: TYPED });
    const session = await qwenAdapter.readSession(chat(), context);
    expect(session.messages.filter((m) => m.userTurn).map((m) => messageText(m))).toEqual(TYPED);
    expect(JSON.stringify(session.messages)).not.toContain('system-reminder');
    const fork = await qwenAdapter.fork(chat(), { atTurn: 3 }, context);
    const forked = await qwenAdapter.readSession({ ...chat(), paths: [fork.path], idHint: fork.id }, context);
    expect(forked.messages.filter((m) => m.userTurn).map((m) => messageText(m))).toEqual(TYPED.slice(0, 2));
  });

  it('a reminder around typed text in one part goes; text between two reminders was typed and stays; a record of reminders only is no turn', async () => {
    const dir = join(temp, 'reminders-inline', 'projects', '-home-dev-src-q-inline', 'chats');
    await mkdir(dir, { recursive: true });
    const sid = '99999999-0000-4000-8000-000000000002';
    // The text Qwen Code 0.24.4 gives the model when it restores a paused background agent on resume.
    const reminder = '<system-reminder>\n1 background agent was restored from this session. Use list_agents to inspect it and send_message with a task_id to continue one.\n</system-reminder>\n\n';
    const rec = (uuid: string, parentUuid: string | null, type: string, parts: readonly Record<string, unknown>[]): string =>
      `${JSON.stringify({ uuid, parentUuid, sessionId: sid, timestamp: '2026-11-25T02:15:10.891Z', type, ...(type === 'user' ? { provenance: 'real_user' } : {}), cwd: '/home/dev/src/q-inline', version: '0.24.4', message: { role: type === 'user' ? 'user' : 'model', parts } })}\n`;
    const path = join(dir, `${sid}.jsonl`);
    await writeFile(
      path,
      [
        rec('u1', null, 'user', [{ text: `${reminder}[q] One.` }]),
        rec('a1', 'u1', 'assistant', [{ text: 'Done one.' }]),
        rec('u2', 'a1', 'user', [{ text: `${reminder}[q] Typed <system-reminder>x</system-reminder> inside.\n${reminder}` }]),
        rec('a2', 'u2', 'assistant', [{ text: 'Done two.' }]),
        rec('u3', 'a2', 'user', [{ text: reminder }]),
        rec('a3', 'u3', 'assistant', [{ text: 'Nothing.' }]),
      ].join(''),
    );
    const typed = ['[q] One.', '[q] Typed <system-reminder>x</system-reminder> inside.'];
    const inline: SessionFileGroup = { agent: 'qwen', paths: [path], idHint: sid, root: join(temp, 'reminders-inline'), archived: false };
    expect(await qwenAdapter.readSummary(inline, context)).toMatchObject({ userTurns: 2, firstPrompt: typed[0], lastPrompt: typed[1], prompts: typed });
    expect((await qwenAdapter.readSession(inline, context)).messages.filter((m) => m.userTurn).map((m) => messageText(m))).toEqual(typed);
  });
});

describe('the record tree, as Qwen Code 0.24.4 resumes it (prepareTranscriptRecords)', () => {
  const sid = '99999999-0000-4000-8000-000000000001';
  const rec = (uuid: string, parentUuid: string | null, type: string, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
    uuid,
    parentUuid,
    sessionId: sid,
    timestamp: '2026-01-01T00:00:00.000Z',
    type,
    cwd: '/w',
    ...extra,
  });
  const text = (t: string, role = 'user'): Record<string, unknown> => ({ message: { role, parts: [{ text: t }] } });

  it('the active leaf is the last conversation record: a dead branch is not the transcript; fragments of one uuid are joined', async () => {
    const dir = join(root, 'projects', '-w', 'chats');
    await mkdir(join(dir, 'archive'), { recursive: true });
    const path = join(dir, 'archive', `${sid}.jsonl`);
    const lines = [
      rec('u1', null, 'user', text('first')),
      rec('a1', 'u1', 'assistant', { message: { role: 'model', parts: [{ text: 'part one, ' }] } }),
      rec('a1', 'u1', 'assistant', { message: { role: 'model', parts: [{ text: 'part two' }] } }),
      rec('u2', 'a1', 'user', text('abandoned')),
      rec('u3', 'a1', 'user', text('kept')),
      rec('s1', 'u3', 'system', { subtype: 'session_artifact_event' }),
      rec('c1', 'u3', 'system', { subtype: 'slash_command', systemPayload: {} }),
      rec('n1', 'c1', 'user', { subtype: 'notification', ...text('a notice') }),
    ];
    await writeFile(path, lines.map((line) => `${JSON.stringify(line)}\n`).join(''));
    const [archived] = qwenAdapter.groupFiles!(root, [path]);
    expect(archived).toMatchObject({ archived: true, idHint: sid });
    const session = await qwenAdapter.readSession(archived!, context);
    expect(session.messages.map((m) => [m.role, messageText(m), m.userTurn])).toEqual([
      ['user', 'first', true],
      ['assistant', 'part one, part two', false],
      ['user', 'kept', true],
      ['user', 'a notice', false],
    ]);
    expect(session).toMatchObject({ archived: true, prompts: ['first', 'kept'], cwd: '/w' });
    // A fork of an archived session is a live one: in chats/, where `qwen --resume` looks.
    const fork = await qwenAdapter.fork(archived!, { atTurn: 2 }, context);
    expect(fork.path).toBe(join(dir, `${fork.id}.jsonl`));
  });
});

describe('where Qwen Code sessions are looked for, and how they are resumed', () => {
  const environment = (env: Record<string, string>) => ({ env, homeDir: '/home/u', cwd: '/work' });

  it('QWEN_RUNTIME_DIR, else QWEN_HOME, else ~/.qwen; --home DIR is DIR/.qwen; --qwen-dir wins', () => {
    expect(resolveLocations({}, environment({})).roots.qwen).toEqual(['/home/u/.qwen']);
    expect(resolveLocations({}, environment({ QWEN_HOME: '/q' })).roots.qwen).toEqual(['/q']);
    expect(resolveLocations({}, environment({ QWEN_HOME: '/q', QWEN_RUNTIME_DIR: 'rt' })).roots.qwen).toEqual(['/work/rt']);
    expect(resolveLocations({ home: '/h' }, environment({ QWEN_HOME: '/q' })).roots.qwen).toEqual(['/h/.qwen']);
    expect(resolveLocations({ home: '/h', roots: { qwen: ['/a'] } }, environment({})).roots.qwen).toEqual(['/a']);
  });

  it('resume: `qwen --resume ID` in the recorded cwd; a session from another folder gets QWEN_RUNTIME_DIR pointing at it', () => {
    const session = { agent: 'qwen' as const, id: MAIN_ID, path: '/h/.qwen/projects/p/chats/x.jsonl', cwd: '/home/dev/src/q-api-server' };
    const defaultHomes = { qwen: '/home/u/.qwen' };
    expect(resumeCommand({ ...session, root: '/home/u/.qwen' }, DEFAULT_RESUME_TEMPLATES, { defaultHomes })).toEqual({ argv: ['qwen', '--resume', MAIN_ID], cwd: session.cwd, env: {} });
    expect(resumeCommand({ ...session, root: '/h/.qwen' }, DEFAULT_EXEC_TEMPLATES, { defaultHomes, prompt: 'go on', extraArgs: ['--yolo'] })).toEqual({
      argv: ['qwen', '--yolo', '--resume', MAIN_ID, '-p', 'go on'],
      cwd: session.cwd,
      env: { QWEN_RUNTIME_DIR: '/h/.qwen' },
    });
    expect(() => resumeCommand({ ...session, id: '--yolo' })).toThrow(UnsafeSessionIdError);
  });
});

describe('a Qwen Code chat the reader cannot take as written gives a row or a reported reason (issue 28, 8)', () => {
  const sid = '99999999-0000-4000-8000-000000000008';
  const rec = (uuid: string, parentUuid: string | null, type: string, parts: unknown): string =>
    `${JSON.stringify({ uuid, parentUuid, sessionId: sid, timestamp: '2026-11-25T02:15:10.891Z', type, ...(type === 'user' ? { provenance: 'real_user' } : {}), cwd: '/home/dev/src/q-odd', version: '0.24.4', message: { role: type === 'user' ? 'user' : 'model', parts } })}\n`;
  const chatOf = async (name: string, lines: readonly string[]): Promise<SessionFileGroup> => {
    const base = join(temp, name);
    const dir = join(base, 'projects', '-home-dev-src-q-odd', 'chats');
    await mkdir(dir, { recursive: true });
    const path = join(dir, `${sid}.jsonl`);
    await writeFile(path, lines.join(''));
    return { agent: 'qwen', paths: [path], idHint: sid, root: base, archived: false };
  };

  it('`parts` written as one object (not a list) is read as that part: a row with its prompt', async () => {
    const chat = await chatOf('object-parts', [rec('u1', null, 'user', { text: '[q] One part, not a list.' }), rec('a1', 'u1', 'assistant', { text: 'Read.' })]);
    const found: Problem[] = [];
    const row = await qwenAdapter.indexSession!(chat, { ...context, report: (problem) => found.push(problem) });
    expect(row.summary).toMatchObject({ userTurns: 1, firstPrompt: '[q] One part, not a list.' });
    expect((await qwenAdapter.readSession(chat, context)).messages.map((m) => messageText(m))).toEqual(['[q] One part, not a list.', 'Read.']);
    expect(found).toEqual([]);
  });

  it('records that are each their own parent: no row, and the reason is reported', async () => {
    const chat = await chatOf('self-parent', [rec('u1', 'u1', 'user', [{ text: '[q] Lost prompt.' }]), rec('a1', 'a1', 'assistant', [{ text: 'Lost answer.' }])]);
    const found: Problem[] = [];
    const row = await qwenAdapter.indexSession!(chat, { ...context, report: (problem) => found.push(problem) });
    expect(row.summary).toBeNull();
    expect(found).toEqual([{ path: chat.paths[0], message: expect.stringContaining('its own parent') as unknown as string }]);
  });
});
