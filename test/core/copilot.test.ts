import { cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ForkRangeError } from '../../src/core/errors.js';
import { copilotAdapter, groupCopilotFiles, isCopilotNonConversationLine, parseWorkspaceYaml } from '../../src/core/formats/copilot/index.js';
import type { AdapterContext, SessionFileGroup } from '../../src/core/formats/types.js';
import { FINGERPRINT_BYTES } from '../../src/core/io/lines.js';
import { messageText, type SessionSummary } from '../../src/core/model.js';
import { handoffConversation } from '../../src/core/handoff/conversation.js';
import { rawLines, sha256File } from '../helpers/files.js';

/*
 * Sessions written by the real GitHub Copilot CLI 1.0.102 (test/interop/record-copilot.ts against the loopback
 * stand-in, imported by test/fixtures/import-copilot-recording.py), plus its own `/fork` of the first one made in
 * its terminal UI and continued with one turn; and one session from exploring Copilot by hand (test/fixtures/
 * copilot-1.0.102/README.md). The expected rows below were written by hand from the files.
 */
const FIXTURE = fileURLToPath(new URL('../fixtures/copilot-1.0.102/.copilot', import.meta.url));
const MAIN = '333c8c0f-07a6-4837-b155-dfba325e902c';
const UNICODE = '4ae98b21-b659-453b-b037-7ffbe9780750';
const NOTES = '299d94e5-2c5d-4b95-a2e9-f103a94a3ec8';
const NATIVE_FORK = 'b2f43ef2-df08-4a3e-8b21-fcfddff254e1';
const RENAMED = '1d1624b9-fa0c-4666-86b5-81f2e446e514';

let tmp: string;
let root: string;

beforeEach(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'sessions-copilot-'));
  root = join(tmp, '.copilot');
  await cp(FIXTURE, root, { recursive: true });
});

afterEach(async () => {
  await rm(tmp, { recursive: true, force: true });
});

function context(problems: unknown[] = []): AdapterContext {
  return { report: (problem) => problems.push(problem), lookup: () => undefined, names: () => new Map() };
}

const folder = (id: string): string => join(root, 'session-state', id);
const events = (id: string): string => join(folder(id), 'events.jsonl');

async function groupOf(id: string): Promise<SessionFileGroup> {
  const group = (await copilotAdapter.discover(root, () => undefined)).find((g) => g.idHint === id);
  if (!group) throw new Error(`no group ${id}`);
  return group;
}

type Row = Omit<SessionSummary, 'path' | 'paths' | 'size' | 'mtimeMs' | 'agent' | 'userTurnsExact' | 'archived' | 'model' | 'gitBranch'>;

const ROWS: Record<string, Row> = {
  [RENAMED]: {
    id: RENAMED,
    cwd: '/home/dev/src/café',
    // Renamed with /rename in Copilot's terminal UI: workspace.yaml `name` and `user_named: true`.
    title: 'My chosen name',
    name: 'My chosen name',
    firstPrompt: 't1 What does alpha do?',
    // Under -p, Copilot sends `/rename …` to the model as a prompt: a turn.
    lastPrompt: '/rename my renamed session',
    userTurns: 4,
    prompts: ['t1 What does alpha do?', 't2 RUN-THE-TOOL: show me', 't3 Add health check.', '/rename my renamed session'],
    createdAt: '2026-11-25T01:54:07.413Z',
    updatedAt: '2026-11-25T02:31:13.478Z',
    // Its "Forked this session into …" note names a child, not a parent.
    forkedFrom: null,
    fork: null,
    usage: { input: 12986 + 13079 + 13165 + 13254 + 13347, output: 40, cacheRead: 0, cacheWrite: 0 },
  },
  [MAIN]: {
    id: MAIN,
    cwd: '/home/dev/src/c-api-server',
    title: '[c] What does the api server do?',
    name: null,
    firstPrompt: '[c] What does the api server do?',
    lastPrompt: '[c] Add a health check endpoint.',
    userTurns: 3,
    prompts: ['[c] What does the api server do?', '[c] RUN-THE-TOOL: show me what the tool prints.', '[c] Add a health check endpoint.'],
    createdAt: '2026-11-25T02:01:52.710Z',
    // Copilot's own /fork appended a note to it at 02:02:17; the terminal UI session it ran in ended at 02:02:25.
    updatedAt: '2026-11-25T02:02:25.069Z',
    forkedFrom: null,
    fork: null,
    usage: { input: 12992 + 13094 + 13179 + 13271, output: 32, cacheRead: 0, cacheWrite: 0 },
  },
  [UNICODE]: {
    id: UNICODE,
    cwd: '/home/dev/src/c-café ünïcode',
    title: '[c] Ça marche? Grüße aus dem Café ☕',
    name: null,
    firstPrompt: '[c] Ça marche? Grüße aus dem Café ☕',
    lastPrompt: '[c] Und noch eine Frage: naïve résumé?',
    userTurns: 2,
    prompts: ['[c] Ça marche? Grüße aus dem Café ☕', '[c] Und noch eine Frage: naïve résumé?'],
    createdAt: '2026-11-25T02:01:56.177Z',
    updatedAt: '2026-11-25T02:01:57.703Z',
    forkedFrom: null,
    fork: null,
    usage: { input: 12993 + 13093, output: 16, cacheRead: 0, cacheWrite: 0 },
  },
  [NOTES]: {
    id: NOTES,
    cwd: '/home/dev/src/c-notes',
    title: '[c] Keep notes for me.',
    name: null,
    firstPrompt: '[c] Keep notes for me.',
    lastPrompt: '[c] When is the deploy?',
    // `/compact` is no turn: it writes compaction events, no user.message.
    userTurns: 3,
    prompts: ['[c] Keep notes for me.', '[c] Note: the deploy is on Friday.', '[c] When is the deploy?'],
    createdAt: '2026-11-25T02:01:58.440Z',
    updatedAt: '2026-11-25T02:02:01.654Z',
    forkedFrom: null,
    fork: null,
    // Only session.usage_record counts: the compaction's own call is recorded elsewhere.
    usage: { input: 12988 + 13084 + 14492, output: 24, cacheRead: 0, cacheWrite: 0 },
  },
  [NATIVE_FORK]: {
    id: NATIVE_FORK,
    cwd: '/home/dev/src/c-api-server',
    // Copilot names its fork "<parent's name> (fork)" (not user_named: an agent title, not a name).
    title: '[c] What does the api server do? (fork)',
    name: null,
    firstPrompt: '[c] What does the api server do?',
    lastPrompt: '[c] In the fork: write a test for the health check instead.',
    userTurns: 4,
    prompts: [
      '[c] What does the api server do?',
      '[c] RUN-THE-TOOL: show me what the tool prints.',
      '[c] Add a health check endpoint.',
      '[c] In the fork: write a test for the health check instead.',
    ],
    createdAt: '2026-11-25T02:02:17.015Z',
    updatedAt: '2026-11-25T02:02:30.362Z',
    forkedFrom: MAIN,
    fork: { id: MAIN },
    usage: { input: 12992 + 13094 + 13179 + 13271 + 13376, output: 40, cacheRead: 0, cacheWrite: 0 },
  },
};

describe('GitHub Copilot CLI 1.0.102 sessions (written by the real CLI)', () => {
  it('discovers one group per session folder: its workspace.yaml, then the events.jsonl a resume appends to', async () => {
    const groups = await copilotAdapter.discover(root, () => undefined);
    expect(groups.map((g) => g.idHint)).toEqual([RENAMED, NOTES, MAIN, UNICODE, NATIVE_FORK]);
    for (const group of groups) {
      expect(group).toEqual({
        agent: 'copilot',
        paths: [join(folder(group.idHint!), 'workspace.yaml'), events(group.idHint!)],
        idHint: group.idHint,
        root,
        archived: false,
      });
    }
  });

  it('reads each row from every event: prompts, cwd from workspace.yaml, times, usage, the parent of its own /fork', async () => {
    const problems: unknown[] = [];
    for (const group of await copilotAdapter.discover(root, () => undefined)) {
      const row = await copilotAdapter.readSummary(group, context(problems));
      expect(row).toMatchObject({ ...ROWS[group.idHint!], agent: 'copilot', path: events(group.idHint!), paths: group.paths, userTurnsExact: true, model: 'gpt-5.4', gitBranch: null });
    }
    expect(problems).toEqual([]);
  });

  it('replays the tool turn: prompt, tool call with its arguments, its result, the answer; reasoning as encrypted', async () => {
    const session = await copilotAdapter.readSession(await groupOf(MAIN), context());
    const lines = session.messages.map((m) => [m.role, m.userTurn, m.blocks.map((b) => (b.type === 'text' ? `text:${b.text}` : b.type === 'tool_use' ? `tool_use:${b.name}:${b.id}:${b.input}` : b.type === 'tool_result' ? `tool_result:${b.toolUseId}:${b.isError}:${b.output}` : b.type === 'reasoning' ? `reasoning:${b.encrypted}:${b.summary}` : b.type))]);
    expect(lines).toEqual([
      ['user', true, ['text:[c] What does the api server do?']],
      ['assistant', false, ['reasoning:true:Thinking about: [c] What does the api server do?', 'text:Answer to: [c] What does the api server do?']],
      ['user', true, ['text:[c] RUN-THE-TOOL: show me what the tool prints.']],
      ['assistant', false, ['tool_use:bash:call_2:{"command":"echo interop-tool-ran","description":"Print a marker","mode":"sync","initial_wait":30}']],
      ['tool', false, ['tool_result:call_2:false:interop-tool-ran\n<shellId: 0 completed with exit code 0>']],
      ['assistant', false, ['text:The tool ran; done.']],
      ['user', true, ['text:[c] Add a health check endpoint.']],
      ['assistant', false, ['reasoning:true:Thinking about: [c] Add a health check endpoint.', 'text:Answer to: [c] Add a health check endpoint.']],
    ]);
    expect(session.malformedLines).toBe(0);
    // Each message points at the line it came from (a fork cuts there).
    const bytes = await readFile(events(MAIN));
    for (const message of session.messages) {
      expect(message.source?.path).toBe(events(MAIN));
      expect(bytes.subarray(message.source!.offset, message.source!.offset + 9).toString()).toBe('{"type":"');
    }
  });

  it('marks /compact with the summary the model sees from then on', async () => {
    const session = await copilotAdapter.readSession(await groupOf(NOTES), context());
    expect(session.messages.map((m) => (m.userTurn ? messageText(m) : m.role === 'system' ? m.blocks[0]!.type : m.role))).toEqual([
      '[c] Keep notes for me.',
      'assistant',
      '[c] Note: the deploy is on Friday.',
      'assistant',
      'compaction',
      '[c] When is the deploy?',
      'assistant',
    ]);
    const marker = session.messages[4]!.blocks[0]!;
    expect(marker.type === 'compaction' && marker.summary.startsWith('Answer to: Please create a detailed summary of the conversation so far.')).toBe(true);
  });

  it('clips long strings for display but keeps prompts whole', async () => {
    const session = await copilotAdapter.readSession(await groupOf(MAIN), context(), { clip: { text: 8, other: 8 } });
    expect(session.messages.filter((m) => m.userTurn).map(messageText)).toEqual(ROWS[MAIN]!.prompts);
    const answer = session.messages[1]!.blocks.find((b) => b.type === 'text')!;
    expect(answer).toMatchObject({ type: 'text', clippedBytes: 'Answer to: [c] What does the api server do?'.length - 8 });
  });

  it('says which lines are never conversation (search skips them by their opening)', () => {
    expect(isCopilotNonConversationLine('{"type":"system.message","data":{"role":"system","content":"You are the GitHub Copilot CLI')).toBe(true);
    expect(isCopilotNonConversationLine('{"type":"session.start","data":{"sessionId":"x"')).toBe(true);
    expect(isCopilotNonConversationLine('{"type":"model.messages_snapshot","data":{')).toBe(true);
    expect(isCopilotNonConversationLine('{"type":"user.message","data":{"content":"hi"')).toBe(false);
    expect(isCopilotNonConversationLine('{"type":"assistant.message","data":{')).toBe(false);
    expect(isCopilotNonConversationLine('{"type":"tool.execution_complete","data":{')).toBe(false);
    expect(isCopilotNonConversationLine('cwd: /home/dev/src/c-api-server')).toBe(true);
    expect(isCopilotNonConversationLine("name: '[c] What does the api server do?'")).toBe(false);
  });

  it('groups changed files the way discover does, and leaves other files out', () => {
    const state = join(root, 'session-state');
    const groups = groupCopilotFiles(root, [
      join(state, MAIN, 'events.jsonl'),
      join(state, MAIN, 'workspace.yaml'),
      join(state, UNICODE, 'workspace.yaml'), // no events.jsonl (yet): no session
      join(state, NOTES, 'checkpoints', 'index.md'),
      join(state, NOTES, 'events.jsonl'),
      join(state, 'not-a-session', 'events.jsonl'),
      join(root, 'logs', 'events.jsonl'),
    ]);
    expect(groups.map((g) => [g.idHint, g.paths])).toEqual([
      [MAIN, [join(state, MAIN, 'workspace.yaml'), join(state, MAIN, 'events.jsonl')]],
      [NOTES, [join(state, NOTES, 'events.jsonl')]],
    ]);
  });
});

describe('indexing a Copilot session that grows', () => {
  it('saves its fold and, when Copilot appends a resumed turn, reads only the appended events for the same row', async () => {
    const group = await groupOf(UNICODE);
    const first = await copilotAdapter.indexSession(group, { ...context(), saveFoldFrom: 0 });
    const size = (await readFile(events(UNICODE))).length;
    expect(first.resume).toMatchObject({ path: events(UNICODE), offset: size });
    // A resumed turn as Copilot writes it (the session's own lines, replayed with new text and times).
    const lines = await rawLines(events(UNICODE));
    const resumeLine = lines.find((l) => l.toString().startsWith('{"type":"session.resume"'))!.toString().replace(/2026-11-25T02:01:5\d\.\d{3}Z/g, '2026-11-25T05:00:00.000Z');
    const prompt = lines.find((l) => l.toString().startsWith('{"type":"user.message"'))!.toString().replace('[c] Ça marche? Grüße aus dem Café ☕', 'third ☕').replace(/"timestamp":"[^"]*"/, '"timestamp":"2026-11-25T05:00:01.000Z"');
    const appended = `${resumeLine}\n${prompt}\n`;
    await writeFile(events(UNICODE), appended, { flag: 'a' });
    const again = await copilotAdapter.indexSession(group, { ...context(), saveFoldFrom: 0 }, { ...first.resume!, row: first.summary! });
    // The appended events, and the head's first bytes (is it still the same file?).
    expect(again.bytesRead).toBe(Buffer.byteLength(appended) + FINGERPRINT_BYTES);
    const whole = await copilotAdapter.indexSession(group, context());
    expect(again.summary).toEqual(whole.summary);
    expect(whole.summary).toMatchObject({ userTurns: 3, lastPrompt: 'third ☕', updatedAt: '2026-11-25T05:00:01.000Z' });
  });

  it('reads the file whole when the saved state is not a fold it wrote', async () => {
    const group = await groupOf(UNICODE);
    const whole = await copilotAdapter.indexSession(group, context());
    const again = await copilotAdapter.indexSession(group, context(), { path: events(UNICODE), offset: 10, state: { prompts: 'no' } });
    expect(again.summary).toEqual(whole.summary);
    expect(again.bytesRead).toBe(whole.bytesRead);
  });
});

describe('forking a Copilot session', () => {
  it('writes a new session folder with turns 1..N-1 byte for byte, a new session.start and Copilot\'s fork note; the original is untouched', async () => {
    const before = await sha256File(events(MAIN));
    const beforeYaml = await sha256File(join(folder(MAIN), 'workspace.yaml'));
    const now = new Date('2026-11-25T03:00:00.000Z');
    const result = await copilotAdapter.fork(await groupOf(MAIN), { atTurn: 3, now }, context());
    expect(result).toMatchObject({ agent: 'copilot', parentId: MAIN, keptUserTurns: 2 });
    expect(result.path).toBe(events(result.id));
    expect(await sha256File(events(MAIN))).toBe(before);
    expect(await sha256File(join(folder(MAIN), 'workspace.yaml'))).toBe(beforeYaml);

    const original = await rawLines(events(MAIN));
    const fork = await rawLines(result.path);
    const thirdPrompt = original.findIndex((line, i) => line.toString().startsWith('{"type":"user.message"') && original.slice(0, i + 1).filter((l) => l.toString().startsWith('{"type":"user.message"')).length === 3);
    // session.start rewritten; every event after it up to the third prompt copied byte for byte; the note last.
    expect(fork.slice(1, -1).map((b) => b.toString('hex'))).toEqual(original.slice(1, thirdPrompt).map((b) => b.toString('hex')));
    const start = JSON.parse(fork[0]!.toString()) as { type: string; data: Record<string, unknown>; id: string; timestamp: string };
    const originalStart = JSON.parse(original[0]!.toString()) as { data: Record<string, unknown>; id: string };
    expect(start).toMatchObject({ type: 'session.start', id: originalStart.id, timestamp: now.toISOString() });
    expect(start.data).toEqual({ ...originalStart.data, sessionId: result.id, startTime: now.toISOString(), remoteSteerable: undefined });
    const note = JSON.parse(fork.at(-1)!.toString()) as { type: string; data: unknown; parentId: string };
    expect(note).toMatchObject({
      type: 'session.info',
      data: { infoType: 'fork', message: `Forked from "[c] What does the api server do?" (${MAIN}) as "[c] What does the api server do? (fork)" (${result.id}).` },
      parentId: (JSON.parse(original[thirdPrompt - 1]!.toString()) as { id: string }).id,
    });

    expect(parseWorkspaceYaml(await readFile(join(folder(result.id), 'workspace.yaml'), 'utf8'))).toEqual({
      id: result.id,
      cwd: '/home/dev/src/c-api-server',
      client_name: 'github/cli',
      name: '[c] What does the api server do? (fork)',
      user_named: 'false',
      summary_count: '0',
      fork_count: '0',
      created_at: now.toISOString(),
      updated_at: now.toISOString(),
    });

    const row = await copilotAdapter.readSummary(await groupOf(result.id), context());
    expect(row).toMatchObject({
      id: result.id,
      cwd: '/home/dev/src/c-api-server',
      userTurns: 2,
      prompts: ROWS[MAIN]!.prompts.slice(0, 2),
      forkedFrom: MAIN,
      createdAt: now.toISOString(),
      title: '[c] What does the api server do? (fork)',
      name: null,
    });
  });

  it('names the fork after the branch name when given (a name the user chose), quoting it for YAML', async () => {
    const result = await copilotAdapter.fork(await groupOf(UNICODE), { atTurn: 2, branchName: 'try: "other" #1' }, context());
    const yaml = await readFile(join(folder(result.id), 'workspace.yaml'), 'utf8');
    expect(yaml).toContain('name: "try: \\"other\\" #1"\n');
    expect(yaml).toContain('cwd: /home/dev/src/c-café ünïcode\n');
    const row = await copilotAdapter.readSummary(await groupOf(result.id), context());
    expect(row).toMatchObject({ name: 'try: "other" #1', title: 'try: "other" #1', userTurns: 1, cwd: '/home/dev/src/c-café ünïcode', forkedFrom: UNICODE });
  });

  it("forks Copilot's own fork (whose parent note is in the middle) and keeps its parent link to the fork", async () => {
    const result = await copilotAdapter.fork(await groupOf(NATIVE_FORK), { atTurn: 4 }, context());
    const row = await copilotAdapter.readSummary(await groupOf(result.id), context());
    // The fork note of the fork we cut comes before ours in the file; ours is the last one and names the parent.
    expect(row).toMatchObject({ userTurns: 3, forkedFrom: NATIVE_FORK, lastPrompt: '[c] Add a health check endpoint.' });
  });

  it('refuses a turn out of range and writes nothing', async () => {
    const before = await readdir(join(root, 'session-state'));
    await expect(copilotAdapter.fork(await groupOf(UNICODE), { atTurn: 4 }, context())).rejects.toBeInstanceOf(ForkRangeError);
    await expect(copilotAdapter.fork(await groupOf(UNICODE), { atTurn: 0 }, context())).rejects.toBeInstanceOf(ForkRangeError);
    expect(await readdir(join(root, 'session-state'))).toEqual(before);
  });
});

describe('Copilot events the recordings do not have', () => {
  async function session(lines: readonly unknown[], yaml?: string): Promise<SessionFileGroup> {
    const id = '0cb916db-26aa-40f2-86b5-1ba81b225fd2';
    await mkdir(folder(id), { recursive: true });
    await writeFile(events(id), `${lines.map((line) => (typeof line === 'string' ? line : JSON.stringify(line))).join('\n')}\n`);
    if (yaml !== undefined) await writeFile(join(folder(id), 'workspace.yaml'), yaml);
    return groupOf(id);
  }
  const start = { type: 'session.start', data: { sessionId: '0cb916db-26aa-40f2-86b5-1ba81b225fd2', startTime: '2026-01-02T03:04:05.000Z', context: { cwd: '/w', branch: 'main' } }, id: 'e1', timestamp: '2026-01-02T03:04:05.000Z', parentId: null };

  it('counts only typed prompts: a skill injection or autopilot continuation is no turn', async () => {
    const group = await session([
      start,
      { type: 'user.message', data: { content: 'real one' }, id: 'e2', timestamp: '2026-01-02T03:04:06.000Z', parentId: 'e1' },
      { type: 'user.message', data: { content: 'skill text', source: 'skill-pdf' }, id: 'e3', timestamp: '2026-01-02T03:04:07.000Z', parentId: 'e2' },
      { type: 'user.message', data: { content: 'continue', isAutopilotContinuation: true }, id: 'e4', timestamp: '2026-01-02T03:04:08.000Z', parentId: 'e3' },
      { type: 'user.message', data: { content: 'second', source: 'user' }, id: 'e5', timestamp: '2026-01-02T03:04:09.000Z', parentId: 'e4' },
    ]);
    const row = await copilotAdapter.readSummary(group, context());
    expect(row).toMatchObject({ userTurns: 2, prompts: ['real one', 'second'], cwd: '/w', gitBranch: 'main', title: 'real one', updatedAt: '2026-01-02T03:04:09.000Z' });
  });

  it('takes a name the user gave (user_named: true) and a failed tool as an error result', async () => {
    const group = await session(
      [
        start,
        { type: 'user.message', data: { content: 'go' }, id: 'e2', timestamp: '2026-01-02T03:04:06.000Z', parentId: 'e1' },
        { type: 'assistant.message', data: { content: '', toolRequests: [{ toolCallId: 't1', name: 'view', arguments: { path: '/x' } }] }, id: 'e3', timestamp: '2026-01-02T03:04:07.000Z', parentId: 'e2' },
        { type: 'tool.execution_complete', data: { toolCallId: 't1', success: false, error: { message: 'no such file' } }, id: 'e4', timestamp: '2026-01-02T03:04:08.000Z', parentId: 'e3' },
      ],
      "id: 0cb916db-26aa-40f2-86b5-1ba81b225fd2\ncwd: '/w it''s'\nname: My work # not a comment? yes it is\nuser_named: true\n",
    );
    const full = await copilotAdapter.readSession(group, context());
    expect(full).toMatchObject({ name: 'My work', title: 'My work', cwd: "/w it's" });
    expect(full.messages.slice(1).map((m) => m.blocks)).toEqual([
      [{ type: 'tool_use', id: 't1', name: 'view', input: '{"path":"/x"}' }],
      [{ type: 'tool_result', toolUseId: 't1', output: 'no such file', isError: true }],
    ]);
  });

  it('skips and reports malformed lines, and does not read a half-written last line as a turn', async () => {
    const problems: unknown[] = [];
    const group = await session([start, '{"type":"user.message","data":{"content":"ok"},"id":"e2","timestamp":"2026-01-02T03:04:06.000Z","parentId":"e1"}', 'not json at all', '{"type":"user.message","data":{"conte']);
    // The last line has a newline in this file: it is malformed, not partial.
    const row = await copilotAdapter.readSummary(group, context(problems));
    expect(row).toMatchObject({ userTurns: 1, prompts: ['ok'] });
    expect(problems).toEqual([{ path: events('0cb916db-26aa-40f2-86b5-1ba81b225fd2'), message: 'skipped 2 malformed lines' }]);
  });

  it('lists no session for a folder without session.start or prompts', async () => {
    const group = await session([{ type: 'session.shutdown', data: {}, id: 'x', timestamp: '2026-01-02T03:04:05.000Z', parentId: null }]);
    expect(await copilotAdapter.readSummary(group, context())).toBeNull();
  });
});

describe('workspace.yaml', () => {
  it('reads plain, single- and double-quoted values', () => {
    expect(parseWorkspaceYaml("id: a\nname: '[c] it''s'\ncwd: \"/a \\\"b\\\"\"\nuser_named: false\nsummary: x # comment\nempty:\n")).toEqual({
      id: 'a',
      name: "[c] it's",
      cwd: '/a "b"',
      user_named: 'false',
      summary: 'x',
      empty: '',
    });
    // A double-quoted value followed by a comment was read verbatim, quotes and escapes included.
    expect(parseWorkspaceYaml('cwd: "/home/dev/src/caf\\u00e9 \\"x\\"" # moved here\nname: "a # b" # not this\nsummary: \'it\'\'s\'   # nor this\n')).toEqual({
      cwd: '/home/dev/src/café "x"',
      name: 'a # b',
      summary: "it's",
    });
    // Not YAML (a tab-indented key, an unclosed quote): no values, rather than wrong ones.
    expect(parseWorkspaceYaml('cwd: "/open\nname: x\n')).toEqual({});
  });
});

describe('a sub-agent run by the main agent (issue 28, 4): written by the real Copilot CLI 1.0.102 (test/fixtures/copilot-1.0.102-subagent)', () => {
  // test/interop/record-copilot-subagent.ts: the stand-in answers the first prompt with a `task` call; the sub-agent's
  // events (its prompt, its answer, its model) carry `agentId` and `parentToolCallId`; then a resumed second prompt.
  const SUB = fileURLToPath(new URL('../fixtures/copilot-1.0.102-subagent/.copilot', import.meta.url));
  const ID = 'f1712f8f-586f-47de-a3b6-33773719d482';
  const TYPED = ['[c] RUN-THE-SUBAGENT: have a helper look at the api server.', '[c] Thanks. Now add a health check.'];
  const subGroup = async (): Promise<SessionFileGroup> => {
    const here = join(tmp, 'subagent', '.copilot');
    await cp(SUB, here, { recursive: true });
    return (await copilotAdapter.discover(here, () => undefined)).find((g) => g.idHint === ID)!;
  };

  it('its prompt, answer and model are not the main agent\'s: between the task call and its result there is nothing', async () => {
    const group = await subGroup();
    expect(await readFile(group.paths.find((p) => p.endsWith('events.jsonl'))!, 'utf8')).toContain('"parentToolCallId":"call_1"');
    expect(await copilotAdapter.readSummary(group, context())).toMatchObject({ userTurns: 2, prompts: TYPED, model: 'gpt-5.4' });
    const session = await copilotAdapter.readSession(group, context());
    const text = JSON.stringify(session.messages);
    expect(text).not.toContain('"text":"Sub-task: list');
    expect(text).not.toContain('"text":"Answer to: Sub-task');
    const call = session.messages.findIndex((m) => m.blocks.some((b) => b.type === 'tool_use' && b.name === 'task'));
    expect(session.messages[call + 1]).toMatchObject({ role: 'tool', blocks: [{ type: 'tool_result', toolUseId: 'call_1', output: expect.stringContaining('Answer to: Sub-task') as unknown as string }] });
    expect(session.messages.filter((m) => m.userTurn).map((m) => messageText(m))).toEqual(TYPED);
    // A hand-off gives the target model what Copilot's own request holds: the task's result, not the sub-agent's words.
    const items = handoffConversation(session, 3).items;
    expect(items.map((item) => item.kind)).toEqual(['user', 'assistant', 'results', 'assistant', 'user', 'assistant']);
    expect(JSON.stringify(items.filter((item) => item.kind !== 'results'))).not.toContain('Answer to: Sub-task');
  });

  it('a fork before turn 2 reads back with the main agent\'s turn only', async () => {
    const group = await subGroup();
    const fork = await copilotAdapter.fork(group, { atTurn: 2 }, context());
    const forked = (await copilotAdapter.discover(group.root, () => undefined)).find((g) => g.idHint === fork.id)!;
    const session = await copilotAdapter.readSession(forked, context());
    expect(session.messages.filter((m) => m.userTurn).map((m) => messageText(m))).toEqual(TYPED.slice(0, 1));
    expect(JSON.stringify(session.messages)).not.toContain('"text":"Answer to: Sub-task');
  });
});

describe('a session folder whose name is not a UUID (issue 28, 8)', () => {
  it('is not listed, and the reason is reported with its path', async () => {
    const here = join(tmp, 'odd-names', '.copilot');
    await cp(join(FIXTURE, 'session-state', MAIN), join(here, 'session-state', 'my-session'), { recursive: true });
    await cp(join(FIXTURE, 'session-state', MAIN), join(here, 'session-state', MAIN), { recursive: true });
    const problems: { path: string; message: string }[] = [];
    const groups = await copilotAdapter.discover(here, (problem) => problems.push(problem));
    expect(groups.map((g) => g.idHint)).toEqual([MAIN]);
    expect(problems).toEqual([{ path: join(here, 'session-state', 'my-session'), message: expect.stringContaining('not a UUID') as unknown as string }]);
  });
});
