import { createHash } from 'node:crypto';
import { cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { ForkRangeError } from '../../src/core/errors.js';
import { geminiAdapter, geminiMessages, geminiSessionFileName, isGeminiNonConversationLine, readGeminiFile } from '../../src/core/formats/gemini/index.js';
import { compileTextSearch, fileContainsSync, fileMatchesSync } from '../../src/core/io/contains.js';
import type { AdapterContext, Problem, SessionFileGroup } from '../../src/core/formats/types.js';
import { messageText, type SessionSummary } from '../../src/core/model.js';
import { resolveLocations } from '../../src/catalog/locations.js';
import { scanCatalog } from '../../src/catalog/scan.js';
import { DEFAULT_EXEC_TEMPLATES, DEFAULT_RESUME_TEMPLATES, resumeCommand } from '../../src/core/resume.js';
import { UnsafeSessionIdError } from '../../src/core/session-id.js';
import { sha256File } from '../helpers/files.js';

// Sessions the real Gemini CLI 0.61.0 wrote against the loopback model stand-in (test/interop/record-gemini-qwen.ts,
// HOME=/home/dev): a 4-turn session with a tool call, resumed three times (twice in the minute its file is named
// after: those runs appended their start-up records to it; once in a later minute: that run also left a
// start-up-only file under the same short id), and a 2-turn session in a folder with a non-ASCII name.
const FIXTURE = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'gemini-0.61.0', '.gemini');
const MAIN_ID = 'c736521c-9ab4-4a7f-8ac5-565575aa5591';
const ACCENTS_ID = '7da3ac42-2ddf-4520-8f38-5e8d4f31bb20';
const MAIN_FILE = 'tmp/g-api-server/chats/session-2026-11-25T02-14-c736521c.jsonl';
const STRAY_FILE = 'tmp/g-api-server/chats/session-2026-11-25T02-15-c736521c.jsonl';
const ACCENTS_FILE = 'tmp/g-caf/chats/session-2026-11-25T02-14-7da3ac42.jsonl';
const MAIN_PROMPTS: [string, string, string, ...string[]] = ['[g] What does the api server do?', '[g] RUN-THE-TOOL: show me what the tool prints.', '[g] Add a health check endpoint.', '[g] Now document the endpoint.'];

let temp: string;
let root: string; // a copy of the fixture's .gemini: forks write here, never into the fixture
const problems: Problem[] = [];
const context: AdapterContext = { report: (problem) => problems.push(problem), lookup: () => undefined, names: () => new Map() };

beforeAll(async () => {
  temp = await mkdtemp(join(tmpdir(), 'sessions-gemini-'));
  root = join(temp, '.gemini');
  await cp(FIXTURE, root, { recursive: true });
});

afterAll(async () => {
  await rm(temp, { recursive: true, force: true });
});

const group = (rel: string, base = root): SessionFileGroup => ({ agent: 'gemini', paths: [join(base, rel)], idHint: null, root: base, archived: false });

describe('sessions the real Gemini CLI 0.61.0 wrote (test/fixtures/gemini-0.61.0)', () => {
  it('discovery: one group per chats file; the start-up-only file a later-minute resume left is a group with no row', async () => {
    const groups = await geminiAdapter.discover(root, context.report);
    expect(groups.map((g) => g.paths.map((path) => path.slice(root.length + 1)))).toEqual([[MAIN_FILE], [STRAY_FILE], [ACCENTS_FILE]]);
    expect(await geminiAdapter.readSummary(group(STRAY_FILE), context)).toBeNull();
    // The watcher's grouping agrees with discovery (and leaves the project marker and the registry out).
    const known = [MAIN_FILE, STRAY_FILE, ACCENTS_FILE, 'tmp/g-api-server/.project_root', 'projects.json'].map((rel) => join(root, rel));
    expect(geminiAdapter.groupFiles!(root, known)).toEqual(groups);
  });

  it('rows, whole: the ids the CLI reported, the cwd from the project folder marker, every prompt, model and usage', async () => {
    const main = await geminiAdapter.readSummary(group(MAIN_FILE), context);
    expect(main).toEqual({
      id: MAIN_ID,
      agent: 'gemini',
      path: join(root, MAIN_FILE),
      paths: [join(root, MAIN_FILE)],
      cwd: '/home/dev/src/g-api-server',
      title: MAIN_PROMPTS[0],
      firstPrompt: MAIN_PROMPTS[0],
      lastPrompt: MAIN_PROMPTS[3]!,
      name: null,
      userTurns: 4,
      userTurnsExact: true,
      prompts: MAIN_PROMPTS,
      // The first metadata record's start; later runs in the same minute appended their own.
      createdAt: '2026-11-25T02:14:05.814Z',
      updatedAt: '2026-11-25T02:15:10.802Z',
      forkedFrom: null,
      fork: null,
      gitBranch: null,
      model: 'gemini-3.8-flash',
      archived: false,
      usage: { input: 24193, output: 16, cacheRead: 0, cacheWrite: 0 },
      size: 13316,
      mtimeMs: main!.mtimeMs,
    } satisfies SessionSummary);
    expect(await geminiAdapter.readSummary(group(ACCENTS_FILE), context)).toMatchObject({
      id: ACCENTS_ID,
      cwd: '/home/dev/src/g-café-日本',
      title: '[g] Résumé of the café menu, 日本語 please.',
      prompts: ['[g] Résumé of the café menu, 日本語 please.', '[g] Merci, ça suffit.'],
      userTurns: 2,
      createdAt: '2026-11-25T02:14:39.791Z',
      updatedAt: '2026-11-25T02:14:51.423Z',
    });
    expect(problems).toEqual([]);
  });

  it('show: the prompts in order, thoughts as reasoning, the tool call and its one result; never the session context', async () => {
    const session = await geminiAdapter.readSession(group(MAIN_FILE), context);
    expect(session.messages.filter((m) => m.userTurn).map(messageText)).toEqual(MAIN_PROMPTS);
    const blocks = session.messages.flatMap((m) => m.blocks);
    expect(blocks.filter((b) => b.type === 'tool_use')).toEqual([
      { type: 'tool_use', id: 'run_shell_command__run_shell_command_1795572855982_0', name: 'run_shell_command', input: '{"command":"echo interop-tool-ran","description":"Print a marker"}' },
    ]);
    // 0.61 records the result in the call, as a user message after it, and (after a resume) as `<id>_response`: shown once.
    const results = blocks.filter((b) => b.type === 'tool_result');
    expect(results).toHaveLength(1);
    expect(results[0]).toMatchObject({ toolUseId: 'run_shell_command__run_shell_command_1795572855982_0', isError: false });
    expect(results[0]!.type === 'tool_result' && results[0]!.output).toContain('interop-tool-ran');
    expect(blocks.filter((b) => b.type === 'reasoning')).toEqual(
      [MAIN_PROMPTS[0], MAIN_PROMPTS[2], MAIN_PROMPTS[3]].map((prompt) => ({ type: 'reasoning', summary: `**Plan** Thinking about: ${prompt}`, encrypted: false })),
    );
    expect(blocks.filter((b) => b.type === 'text').map((b) => (b.type === 'text' ? b.text : ''))).toContain('The tool ran; done.');
    expect(JSON.stringify(session.messages)).not.toContain('session_context');
    expect(session.malformedLines).toBe(0);
  });

  it('fork at turn 3: a new session file in the same chats folder, the messages before turn 3, the original untouched', async () => {
    const original = join(root, MAIN_FILE);
    const before = await sha256File(original);
    const now = new Date('2026-11-26T08:09:10.000Z');
    const fork = await geminiAdapter.fork(group(MAIN_FILE), { atTurn: 3, now }, context);
    expect(fork).toMatchObject({ agent: 'gemini', parentId: MAIN_ID, keptUserTurns: 2 });
    expect(fork.path).toBe(join(dirname(original), geminiSessionFileName(fork.id, now)));
    expect(basename(fork.path)).toBe(`session-2026-11-26T08-09-${fork.id.slice(0, 8)}.jsonl`);
    expect(await sha256File(original)).toBe(before);

    const lines = (await readFile(fork.path, 'utf8')).trimEnd().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
    // What `gemini --resume` needs to load it: the metadata first, with the project's hash (sha256 of its folder).
    expect(lines[0]).toEqual({
      sessionId: fork.id,
      projectHash: createHash('sha256').update('/home/dev/src/g-api-server').digest('hex'),
      startTime: now.toISOString(),
      lastUpdated: now.toISOString(),
      kind: 'main',
      forkedFrom: { sessionId: MAIN_ID, atTurn: 3 },
    });
    const row = await geminiAdapter.readSummary({ ...group(MAIN_FILE), paths: [fork.path] }, context);
    expect(row).toMatchObject({ id: fork.id, cwd: '/home/dev/src/g-api-server', userTurns: 2, prompts: MAIN_PROMPTS.slice(0, 2), forkedFrom: MAIN_ID, fork: { id: MAIN_ID, atTurn: 3 } });
    const shown = await geminiAdapter.readSession({ ...group(MAIN_FILE), paths: [fork.path] }, context);
    expect(shown.messages.flatMap((m) => m.blocks).filter((b) => b.type === 'tool_result')).toHaveLength(1);
    expect(JSON.stringify(shown.messages)).not.toContain('health check');
    await rm(fork.path);
  });

  it('grep counts only conversation text: never the session context ($set copies, the folder listing), metadata updates or notices', () => {
    const path = join(FIXTURE, MAIN_FILE);
    const count = (text: string): number => fileMatchesSync(path, compileTextSearch(text), undefined, undefined, isGeminiNonConversationLine).count;
    // The session context Gemini CLI writes into every $set.messages: found without the filter, not with it.
    expect(fileContainsSync(path, compileTextSearch('Showing up to 200 items'))).toBe(true);
    expect(count('Showing up to 200 items')).toBe(0);
    // The three runs' metadata records hold it; the $set updates that followed each turn are not counted.
    expect(count('lastUpdated')).toBe(3);
    // Prompts, answers and the tool's output are: once each as a message record (the $set.messages copies not counted).
    expect(count('[{"text":"[g] Add a health check endpoint."}]')).toBe(1);
    expect(count('The tool ran; done.')).toBe(1);
    expect(count('Output: interop-tool-ran')).toBeGreaterThan(0);
    expect(isGeminiNonConversationLine('{"id":"a","timestamp":"t","type":"info","content":"Resumed"}')).toBe(true);
    expect(isGeminiNonConversationLine('{"id":"a","timestamp":"t","type":"user","content":[{"text":"<session_context>\\nThis is')).toBe(true);
    expect(isGeminiNonConversationLine('{"id":"a","timestamp":"t","type":"user","content":[{"text":"what about <session_context>?"}]}')).toBe(false);
    expect(isGeminiNonConversationLine('{"$rewindTo":"a"}')).toBe(true);
    expect(isGeminiNonConversationLine('  "messages": [')).toBe(false); // a legacy pretty-printed .json: all counted
  });

  it('a fork needs a turn to cut before and one to keep', async () => {
    await expect(geminiAdapter.fork(group(MAIN_FILE), { atTurn: 1 }, context)).rejects.toBeInstanceOf(ForkRangeError);
    await expect(geminiAdapter.fork(group(MAIN_FILE), { atTurn: 6 }, context)).rejects.toBeInstanceOf(ForkRangeError);
    await expect(geminiAdapter.fork(group(STRAY_FILE), { atTurn: 2 }, context)).rejects.toBeInstanceOf(ForkRangeError);
    expect((await readdir(dirname(join(root, MAIN_FILE)))).sort()).toEqual([basename(MAIN_FILE), basename(STRAY_FILE)]);
  });
});

describe('the record log, as Gemini CLI 0.61 loads it (loadConversationRecord)', () => {
  let dir: string;
  beforeAll(async () => {
    dir = join(temp, 'synthetic', 'tmp', 'proj', 'chats');
    await mkdir(dir, { recursive: true });
  });

  const meta = { sessionId: '11111111-2222-4333-8444-555555555555', projectHash: 'ab', startTime: '2026-01-01T00:00:00.000Z', lastUpdated: '2026-01-01T00:00:00.000Z', kind: 'main' };
  const user = (id: string, text: string): Record<string, unknown> => ({ id, timestamp: '2026-01-01T00:00:01.000Z', type: 'user', content: [{ text }] });
  const answer = (id: string, text: string): Record<string, unknown> => ({ id, timestamp: '2026-01-01T00:00:02.000Z', type: 'gemini', content: text, thoughts: [], model: 'm' });

  async function write(name: string, records: readonly unknown[]): Promise<string> {
    const path = join(dir, name);
    await writeFile(path, records.map((record) => `${JSON.stringify(record)}\n`).join(''));
    return path;
  }

  it('$rewindTo drops the message and what followed; a record with a known id replaces it in place; $set.messages replaces all', async () => {
    const path = await write('session-2026-01-01T00-00-11111111.jsonl', [
      meta,
      user('u1', 'first'),
      answer('a1', 'one'),
      user('u2', 'second'),
      answer('a2', 'two'),
      { $rewindTo: 'u2' },
      user('u3', 'third'),
      { ...answer('a1', 'one, edited') },
      { $set: { summary: 'A summary', lastUpdated: '2026-01-01T00:05:00.000Z' } },
    ]);
    const { record } = await readGeminiFile(path);
    expect(record.messages.map((m) => m.id)).toEqual(['u1', 'a1', 'u3']);
    expect(geminiMessages(record).map(messageText)).toEqual(['first', 'one, edited', 'third']);
    expect(await geminiAdapter.readSummary({ ...group('x', join(temp, 'synthetic')), paths: [path] }, context)).toMatchObject({
      title: 'A summary',
      prompts: ['first', 'third'],
      updatedAt: '2026-01-01T00:05:00.000Z',
    });
    const replaced = await write('session-2026-01-01T00-01-11111111.jsonl', [meta, user('u1', 'first'), { $set: { messages: [user('u9', 'only this')] } }]);
    expect((await readGeminiFile(replaced)).record.messages.map((m) => m.id)).toEqual(['u9']);
  });

  it('a rewind to an id not in the log empties it; slash commands and `?` help are not turns', async () => {
    const path = await write('session-2026-01-01T00-02-11111111.jsonl', [meta, user('u1', 'gone'), { $rewindTo: 'nope' }, user('u2', '/stats'), user('u3', '?'), user('u4', 'real')]);
    const { record } = await readGeminiFile(path);
    expect(geminiMessages(record).map((m) => [messageText(m), m.userTurn])).toEqual([
      ['/stats', false],
      ['?', false],
      ['real', true],
    ]);
  });

  it('a legacy session-*.json (one JSON object) is read; resumed into a .jsonl beside it, the two are one conversation', async () => {
    const legacy = { ...meta, messages: [user('u1', 'old prompt'), answer('a1', 'old answer')] };
    const json = join(dir, 'session-2026-01-01T00-03-22222222.json');
    await writeFile(json, JSON.stringify(legacy, null, 2));
    const base = join(temp, 'synthetic');
    const [single] = geminiAdapter.groupFiles!(base, [json]);
    expect(await geminiAdapter.readSummary(single!, context)).toMatchObject({ id: meta.sessionId, prompts: ['old prompt'], path: json });
    const jsonl = await write('session-2026-01-01T00-03-22222222.jsonl', [meta, user('u1', 'old prompt'), answer('a1', 'old answer'), user('u2', 'new prompt')]);
    const groups = geminiAdapter.groupFiles!(base, [jsonl, json]);
    expect(groups).toEqual([{ agent: 'gemini', paths: [json, jsonl], idHint: null, root: base, archived: false }]);
    expect(await geminiAdapter.readSummary(groups[0]!, context)).toMatchObject({ path: jsonl, paths: [json, jsonl], prompts: ['old prompt', 'new prompt'] });
  });

  it('without a .project_root marker (older releases), the cwd is the session context folder whose sha256 is the projectHash', async () => {
    const folder = '/work/some project';
    const hashed = { ...meta, projectHash: createHash('sha256').update(folder).digest('hex') };
    const context1 = { id: 'c1', timestamp: '2026-01-01T00:00:00.500Z', type: 'user', content: [{ text: `<session_context>\n- **Workspace Directories:**\n  - /elsewhere\n  - ${folder}\n- **Directory Structure:**\n</session_context>` }] };
    const path = await write('session-2026-01-01T00-04-33333333.jsonl', [hashed, context1, user('u1', 'hi')]);
    const base = join(temp, 'synthetic');
    expect(await geminiAdapter.readSummary({ ...group('x', base), paths: [path] }, context)).toMatchObject({ cwd: folder });
    const unhashed = await write('session-2026-01-01T00-05-44444444.jsonl', [meta, context1, user('u1', 'hi')]);
    expect(await geminiAdapter.readSummary({ ...group('x', base), paths: [unhashed] }, context)).toMatchObject({ cwd: null });
  });
});

describe('where Gemini CLI sessions are looked for, and how they are resumed', () => {
  const environment = (env: Record<string, string>) => ({ env, homeDir: '/home/u', cwd: '/work' });

  it('GEMINI_CLI_HOME names the home (its .gemini holds the sessions); --home DIR is DIR/.gemini; --gemini-dir wins', () => {
    expect(resolveLocations({}, environment({})).roots.gemini).toEqual(['/home/u/.gemini']);
    expect(resolveLocations({}, environment({ GEMINI_CLI_HOME: 'alt' })).roots.gemini).toEqual(['/work/alt/.gemini']);
    expect(resolveLocations({ home: '/h' }, environment({ GEMINI_CLI_HOME: '/alt' })).roots.gemini).toEqual(['/h/.gemini']);
    expect(resolveLocations({ home: '/h', roots: { gemini: ['g1', '/g2'] } }, environment({})).roots.gemini).toEqual(['/work/g1', '/g2']);
  });

  it('resume: `gemini --resume ID` in the recorded cwd; a session from another home gets GEMINI_CLI_HOME pointing at it', () => {
    const session = { agent: 'gemini' as const, id: MAIN_ID, path: '/h/.gemini/tmp/p/chats/session-x.jsonl', cwd: '/home/dev/src/g-api-server' };
    const defaultHomes = { gemini: '/home/u/.gemini' };
    expect(resumeCommand({ ...session, root: '/home/u/.gemini' }, DEFAULT_RESUME_TEMPLATES, { defaultHomes })).toEqual({ argv: ['gemini', '--resume', MAIN_ID], cwd: session.cwd, env: {} });
    expect(resumeCommand({ ...session, root: '/h/.gemini' }, DEFAULT_EXEC_TEMPLATES, { defaultHomes, prompt: 'go on', extraArgs: ['-y'] })).toEqual({
      argv: ['gemini', '-y', '--resume', MAIN_ID, '-p', 'go on'],
      cwd: session.cwd,
      env: { GEMINI_CLI_HOME: '/h' },
    });
    // A folder given with --gemini-dir that is not named .gemini: no variable can point Gemini CLI at it.
    expect(resumeCommand({ ...session, root: '/backup/gemini-old' }, DEFAULT_RESUME_TEMPLATES, { defaultHomes }).env).toEqual({});
    expect(() => resumeCommand({ ...session, id: '--yolo' })).toThrow(UnsafeSessionIdError);
  });
});

// Gemini CLI 0.61.0 running its `generalist` sub-agent (invoke_agent) for a prompt, then resumed in a later minute
// (test/fixtures/gemini-0.61.0-subagent, recorded against the stand-in with HOME=/tmp/handoff-gsub/home): the
// sub-agent's chat is `chats/<parent id>/<sub-agent id>.jsonl`, its metadata `kind: "subagent"`.
describe('sub-agent chats (Gemini CLI 0.61.0)', () => {
  const home = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'gemini-0.61.0-subagent');
  const chats = join(home, '.gemini', 'tmp', 'g-subagent', 'chats');
  const PARENT = 'ed3e7d8a-9f8c-4f75-a996-1dc4e64d7587';
  const SUB = 'c7256c1f-3bf9-481a-8e69-8c0c9a09c6fd';
  const subPath = join(chats, PARENT, `${SUB}.jsonl`);

  it('belong to the session that ran them: listed under its row (subagents), not as rows; found by discovery and the watcher\'s grouping', async () => {
    const root = join(home, '.gemini');
    const groups = await geminiAdapter.discover(root, () => undefined);
    expect(groups.map((g) => g.paths.map((p) => basename(p)))).toContainEqual([`${SUB}.jsonl`]);
    expect(geminiAdapter.groupFiles(root, [subPath, join(chats, PARENT, 'notes.txt')]).map((g) => g.paths)).toEqual([[subPath]]);
    const { sessions, subagentSessions } = await scanCatalog(resolveLocations({ home }, { env: {}, homeDir: home, cwd: home }), { workers: 0 });
    expect(sessions.map((s) => [s.agent, s.id, s.subagents ?? []])).toEqual([['gemini', PARENT, [SUB]]]);
    expect(subagentSessions).toHaveLength(1);
    expect(subagentSessions[0]).toMatchObject({
      id: SUB,
      agent: 'gemini',
      subagent: { kind: 'subagent', parentId: PARENT },
      cwd: '/tmp/handoff-gsub/home/src/g-subagent',
      userTurns: 1,
      firstPrompt: 'Sub-task for: [g] RUN-THE-SUBAGENT: look into the api server.',
    });
  });

  it('show reads the sub-agent\'s own conversation: its task and the complete_task call that ended it', async () => {
    const group = geminiAdapter.groupFiles(join(home, '.gemini'), [subPath])[0]!;
    const session = await geminiAdapter.readSession(group, context);
    expect(session.messages.filter((m) => m.userTurn).map(messageText)).toEqual(['Sub-task for: [g] RUN-THE-SUBAGENT: look into the api server.']);
    expect(session.messages.flatMap((m) => m.blocks).find((b) => b.type === 'tool_use')).toMatchObject({ name: 'complete_task' });
  });
});

describe('/compress (issue 28, 2): written by the real Gemini CLI 0.61.0 (test/fixtures/gemini-0.61.0-compress)', () => {
  // test/interop/record-gemini-compress.ts: two prompts (the second runs a tool), `/compress` typed into the
  // interactive CLI (its `$set.messages` then holds only the summary and the model's "Got it"), a third prompt.
  const COMPRESS = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'gemini-0.61.0-compress', '.gemini');
  const FILE = 'tmp/g-compress/chats/session-2026-11-28T20-18-beecbfea.jsonl';
  const TYPED = ['[g] What does the api server do?', '[g] RUN-THE-TOOL: show me what the tool prints.', '[g] Add a health check endpoint.'];
  let here: string;

  beforeAll(async () => {
    here = join(temp, 'compress', '.gemini');
    await cp(COMPRESS, here, { recursive: true });
  });

  it('the prompts typed before it stay the user\'s: counted, first prompt and title, shown; the summary is a compaction', async () => {
    expect(await readFile(join(here, FILE), 'utf8')).toContain('Got it. Thanks for the additional context!');
    const row = await geminiAdapter.readSummary(group(FILE, here), context);
    expect(row).toMatchObject({ userTurns: 3, firstPrompt: TYPED[0], lastPrompt: TYPED[2], title: TYPED[0], prompts: TYPED });
    const session = await geminiAdapter.readSession(group(FILE, here), context);
    expect(session.messages.filter((m) => m.userTurn).map((m) => messageText(m))).toEqual(TYPED);
    const blocks = session.messages.flatMap((m) => m.blocks);
    expect(blocks.filter((b) => b.type === 'compaction')).toEqual([{ type: 'compaction', summary: expect.stringContaining('<state_snapshot>') as unknown as string }]);
    expect(blocks.filter((b) => b.type === 'tool_use')).toHaveLength(1);
    expect(JSON.stringify(session.messages)).not.toContain('Got it. Thanks');
    // The compaction comes after what it summarized and before the prompt typed after it.
    const kinds = session.messages.map((m) => (m.userTurn ? `turn:${messageText(m)}` : m.blocks[0]?.type));
    expect(kinds.indexOf('compaction')).toBeGreaterThan(kinds.indexOf(`turn:${TYPED[1]}`));
    expect(kinds.indexOf('compaction')).toBeLessThan(kinds.indexOf(`turn:${TYPED[2]}`));
  });

  it('a fork before turn 2 or 3 keeps the prompts typed before /compress, and no record Gemini CLI would not load', async () => {
    for (const atTurn of [2, 3]) {
      const fork = await geminiAdapter.fork(group(FILE, here), { atTurn }, context);
      const forked = await geminiAdapter.readSession({ ...group(FILE, here), paths: [fork.path] }, context);
      expect(forked.messages.filter((m) => m.userTurn).map((m) => messageText(m))).toEqual(TYPED.slice(0, atTurn - 1));
      const types = (await readFile(fork.path, 'utf8')).trim().split('\n').slice(1).map((line) => (JSON.parse(line) as { type: string }).type);
      expect(types.every((type) => type === 'user' || type === 'gemini')).toBe(true);
      await rm(fork.path);
    }
  });

  it('a saved fold from before the compression, resumed over the lines appended since, gives the whole read\'s row', async () => {
    const path = join(here, FILE);
    const whole = await readFile(path, 'utf8');
    const lines = whole.split('\n');
    const cut = lines.findIndex((line) => line.includes('Got it. Thanks'));
    const grow = join(temp, 'compress-grow', '.gemini');
    await mkdir(join(grow, 'tmp', 'g-compress', 'chats'), { recursive: true });
    await cp(join(here, 'tmp', 'g-compress', '.project_root'), join(grow, 'tmp', 'g-compress', '.project_root'));
    await writeFile(join(grow, FILE), `${lines.slice(0, cut).join('\n')}\n`);
    const first = await geminiAdapter.indexSession!(group(FILE, grow), { ...context, saveFoldFrom: 0 });
    expect(first.summary).toMatchObject({ userTurns: 2 });
    await writeFile(join(grow, FILE), whole);
    const state = JSON.parse(JSON.stringify(first.resume!.state)) as unknown;
    const again = await geminiAdapter.indexSession!(group(FILE, grow), { ...context, saveFoldFrom: 0 }, { ...first.resume!, state, row: first.summary! });
    expect(again.summary).toMatchObject({ userTurns: 3, firstPrompt: TYPED[0], lastPrompt: TYPED[2], prompts: TYPED });
    // And a fold saved after the compression carries it on.
    const third = await geminiAdapter.indexSession!(group(FILE, grow), { ...context, saveFoldFrom: 0 }, { ...again.resume!, state: JSON.parse(JSON.stringify(again.resume!.state)) as unknown, row: again.summary! });
    expect(third.summary).toMatchObject({ userTurns: 3, prompts: TYPED });
  });
});
