import { createHash } from 'node:crypto';
import { chmod, cp, mkdir, mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ForkRangeError } from '../../src/core/errors.js';
import {
  codexAdapter,
  codexRolloutPath,
  codexUserPromptText,
  isInjectedContext,
  parseRolloutName,
  readCodexNames,
} from '../../src/core/formats/codex/index.js';
import type { AdapterContext, Problem, SessionFileGroup } from '../../src/core/formats/types.js';
import { messageText, type Message, type Session, type SessionSummary } from '../../src/core/model.js';

const FIXTURES = fileURLToPath(new URL('../fixtures/', import.meta.url));
const CORPUS = join(FIXTURES, 'home', '.codex');
const SYNTHETIC = join(FIXTURES, 'codex-synthetic', '.codex');
const DAY = join('sessions', '2026', '11', '22');

// Corpus thread ids (from the file names and their session_meta lines).
const API = '01a200ed-500e-74e1-88bc-7c2f05604fd8';
const API_FORK = '01a200ed-5c85-77b2-b5d4-279df852ebe4';
const WEB = '01a200ed-5ea9-7d10-900c-84b2858d6d09';
const PIPELINE = '01a200ed-60a4-7f10-a53c-15a9ecf122f3';
const UNICODE = '01a200ed-8253-74d3-b561-f652765d4d59';
const V020 = '584c1c48-5ca1-4160-ac98-ec5c303552b5';
const V039 = '01a200fa-2988-76f2-b999-ff0e8384db1e';
const V089 = '01a200fa-3a58-7971-88f2-72d291066439';
const V0100 = '01a200fa-4b34-7413-b956-253dda01fe5a';

const API_FILE = `rollout-2026-11-22T01-44-42-${API}.jsonl`;
const API_FORK_FILE = `rollout-2026-11-22T01-44-45-${API_FORK}.jsonl`;

// Synthetic thread ids (test/fixtures/codex-synthetic).
const S_COMPACT = '0199c0de-0000-7000-8000-000000000001';
const S_ROLLBACK = '0199c0de-0000-7000-8000-000000000002';
const S_SEGMENTS = '0199c0de-0000-7000-8000-000000000003';
const S_TOOLS = '0199c0de-0000-7000-8000-000000000004';
const S_HEADER_ONLY = '0199c0de-0000-7000-8000-000000000005';
const S_REPLAY = '0199c0de-0000-7000-8000-000000000006';
const S_REPLAY_PARENT = '0199c0de-0000-7000-8000-0000000000a6';
const S_CONTINUES = '0199c0de-0000-7000-8000-000000000007';

const API_TURNS = [
  '[a] Add a health check endpoint to the API server (a-variant)',
  '[a] now run the tests and list the failures',
  '[a] why did the auth test fail? think it through',
  '[a] ok, fix it and summarise the change',
];
const STEP = (n: number): string => `[a] step ${n}: continue with the next part of the migration plan, and list what changed`;

interface Scan {
  readonly groups: SessionFileGroup[];
  readonly problems: Problem[];
  readonly context: AdapterContext;
  group(id: string): SessionFileGroup;
}

async function scan(root: string): Promise<Scan> {
  const problems: Problem[] = [];
  const report = (problem: Problem): void => {
    problems.push(problem);
  };
  const groups = await codexAdapter.discover(root, report);
  const names = await readCodexNames(root);
  const byId = new Map(groups.map((g) => [g.idHint, g]));
  const context: AdapterContext = {
    report,
    lookup: (agent, id) => (agent === 'codex' ? byId.get(id) : undefined),
    names: (r) => (r === root ? names : new Map()),
  };
  return {
    groups,
    problems,
    context,
    group(id) {
      const found = byId.get(id);
      if (!found) throw new Error(`no group ${id}`);
      return found;
    },
  };
}

function userTurnTexts(session: Pick<Session, 'messages'>): string[] {
  return session.messages.filter((m) => m.userTurn).map((m) => messageText(m));
}

/** A message without where it came from: what two copies of one conversation share. */
function content(message: Message): Omit<Message, 'source'> {
  const { source: _source, ...rest } = message;
  return rest;
}

function sha256(data: Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}

async function listFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) out.push(relative(dir, join(entry.parentPath, entry.name)));
  }
  return out.sort();
}

/** Lines as latin1 strings: byte-exact, and readable when a comparison fails. */
function bytes(list: readonly Buffer[]): string[] {
  return list.map((b) => b.toString('latin1'));
}

function lines(data: Buffer): Buffer[] {
  const out: Buffer[] = [];
  let from = 0;
  for (let nl = data.indexOf(0x0a); nl !== -1; nl = data.indexOf(0x0a, from)) {
    out.push(data.subarray(from, nl));
    from = nl + 1;
  }
  if (from < data.length) out.push(data.subarray(from));
  return out;
}

let temp: string;
beforeEach(async () => {
  temp = await mkdtemp(join(tmpdir(), 'sessions-codex-'));
});
afterEach(async () => {
  await chmod(temp, 0o700).catch(() => undefined);
  await rm(temp, { recursive: true, force: true });
});

async function copyHome(source: string): Promise<string> {
  const root = join(temp, '.codex');
  await cp(source, root, { recursive: true });
  return root;
}

describe('discover', () => {
  it('finds every rollout under sessions/ and archived_sessions/, one group per thread', async () => {
    const { groups, problems } = await scan(CORPUS);
    expect(problems).toEqual([]);
    const table = groups
      .map((g) => ({ idHint: g.idHint, archived: g.archived, root: g.root, paths: g.paths.map((p) => relative(CORPUS, p)) }))
      .sort((a, b) => a.paths[0]!.localeCompare(b.paths[0]!));
    const live = (name: string): string => join(DAY, name);
    expect(table).toEqual([
      { idHint: WEB, archived: true, root: CORPUS, paths: [join('archived_sessions', `rollout-2026-11-22T01-44-45-${WEB}.jsonl`)] },
      { idHint: API, archived: false, root: CORPUS, paths: [live(API_FILE)] },
      { idHint: API_FORK, archived: false, root: CORPUS, paths: [live(API_FORK_FILE)] },
      { idHint: PIPELINE, archived: false, root: CORPUS, paths: [live(`rollout-2026-11-22T01-44-46-${PIPELINE}.jsonl`)] },
      { idHint: UNICODE, archived: false, root: CORPUS, paths: [live(`rollout-2026-11-22T01-44-55-${UNICODE}.jsonl`)] },
      { idHint: V020, archived: false, root: CORPUS, paths: [live(`rollout-2026-11-22T01-58-43-${V020}.jsonl`)] },
      { idHint: V039, archived: false, root: CORPUS, paths: [live(`rollout-2026-11-22T01-58-44-${V039}.jsonl`)] },
      { idHint: V089, archived: false, root: CORPUS, paths: [live(`rollout-2026-11-22T01-58-48-${V089}.jsonl`)] },
      { idHint: V0100, archived: false, root: CORPUS, paths: [live(`rollout-2026-11-22T01-58-52-${V0100}.jsonl`)] },
    ]);
  });

  it('groups segment files of one thread, first file first', async () => {
    const { group } = await scan(SYNTHETIC);
    expect(group(S_SEGMENTS).paths.map((p) => basename(p))).toEqual([
      `rollout-2026-01-15T12-00-00-${S_SEGMENTS}.jsonl`,
      `rollout-2026-01-15T12-00-00-${S_SEGMENTS}_0199c0de-0000-7000-8000-0000000000f3.jsonl`,
    ]);
  });

  it('makes one group of a thread found in both sessions/ and archived_sessions/, the live copy last', async () => {
    const root = await copyHome(CORPUS);
    const name = `rollout-2026-11-22T01-44-45-${WEB}.jsonl`;
    await cp(join(root, 'archived_sessions', name), join(root, DAY, name));
    const { group, context } = await scan(root);
    const web = group(WEB);
    expect(web.paths).toEqual([join(root, 'archived_sessions', name), join(root, DAY, name)]);
    expect(web.archived).toBe(false);
    // The two copies are one file: its lines must not appear twice.
    const session = await codexAdapter.readSession(web, context);
    expect(userTurnTexts(session)).toEqual(['[a] The scroll position jumps when new messages arrive — 为什么? 🙂']);
    expect(session.path).toBe(join(root, DAY, name));
  });

  it('walks any depth, and finds nothing (silently) when there is no sessions folder', async () => {
    const root = join(temp, 'home');
    const deep = join(root, 'sessions', '2025', '01', '02', 'extra');
    await mkdir(deep, { recursive: true });
    await cp(join(CORPUS, DAY, API_FILE), join(deep, API_FILE));
    await writeFile(join(root, 'sessions', 'notes.txt'), 'not a rollout');
    const problems: Problem[] = [];
    const groups = await codexAdapter.discover(root, (p) => problems.push(p));
    expect(groups.map((g) => g.paths)).toEqual([[join(deep, API_FILE)]]);
    expect(await codexAdapter.discover(join(temp, 'nowhere'), (p) => problems.push(p))).toEqual([]);
    expect(problems).toEqual([]);
  });

  it('reports an unreadable folder once and lists the rest', async () => {
    const root = await copyHome(CORPUS);
    // Root ignores permissions; a file where the archive folder should be is unreadable as a folder for anyone.
    await rm(join(root, 'archived_sessions'), { recursive: true });
    await writeFile(join(root, 'archived_sessions'), 'oops');
    const locked = join(root, 'sessions', '2026', '12');
    await mkdir(locked);
    await chmod(locked, 0o000);
    const problems: Problem[] = [];
    const groups = await codexAdapter.discover(root, (p) => problems.push(p));
    await chmod(locked, 0o700);
    expect(groups).toHaveLength(8);
    const expected = [join(root, 'archived_sessions')];
    if (process.getuid?.() !== 0) expected.push(locked);
    expect(problems.map((p) => p.path).sort()).toEqual(expected.sort());
    for (const problem of problems) expect(problem.message).toMatch(/cannot read directory/);
  });

  it('parses rollout names', () => {
    expect(parseRolloutName(API_FILE)).toEqual({ timestamp: '2026-11-22T01-44-42', threadId: API, segment: null });
    expect(parseRolloutName(`rollout-2026-01-15T12-00-00-${S_SEGMENTS}_7.jsonl`)).toEqual({
      timestamp: '2026-01-15T12-00-00',
      threadId: S_SEGMENTS,
      segment: '7',
    });
    expect(parseRolloutName('rollout-2026.jsonl')).toBeNull();
  });
});

describe('names', () => {
  it('reads session_index.jsonl, newest updated_at wins', async () => {
    expect(await readCodexNames(CORPUS)).toEqual(new Map([[API, 'api-health']]));
    expect(await readCodexNames(SYNTHETIC)).toEqual(
      new Map([
        [S_ROLLBACK, 'rollback-new'],
        [S_SEGMENTS, 'segments'],
      ]),
    );
    expect(await readCodexNames(join(temp, 'none'))).toEqual(new Map());
  });
});

type SummaryRow = Pick<
  SessionSummary,
  | 'id'
  | 'cwd'
  | 'userTurns'
  | 'userTurnsExact'
  | 'firstPrompt'
  | 'lastPrompt'
  | 'forkedFrom'
  | 'title'
  | 'archived'
  | 'name'
  | 'createdAt'
  | 'updatedAt'
  | 'model'
  | 'gitBranch'
  | 'usage'
>;

function row(summary: SessionSummary): SummaryRow {
  const {
    id,
    cwd,
    userTurns,
    userTurnsExact,
    firstPrompt,
    lastPrompt,
    forkedFrom,
    title,
    archived,
    name,
    createdAt,
    updatedAt,
    model,
    gitBranch,
    usage,
  } = summary;
  return { id, cwd, userTurns, userTurnsExact, firstPrompt, lastPrompt, forkedFrom, title, archived, name, createdAt, updatedAt, model, gitBranch, usage };
}

const usage = (input: number, output: number, cacheRead: number): SummaryRow['usage'] => ({ input, output, cacheRead, cacheWrite: 0 });

// Written by hand from the corpus files.
const CORPUS_SUMMARIES: Record<string, SummaryRow> = {
  [API]: {
    id: API,
    cwd: '/home/dev/src/a-api-server',
    userTurns: 5,
    userTurnsExact: true,
    firstPrompt: API_TURNS[0]!,
    lastPrompt: 'which name is this session under?',
    forkedFrom: null,
    title: 'api-health',
    archived: false,
    name: 'api-health',
    createdAt: '2026-11-22T01:44:42.271Z',
    updatedAt: '2026-11-22T01:56:28.525Z',
    model: 'gpt-stand-in',
    gitBranch: null,
    usage: usage(6541, 240, 1200),
  },
  [API_FORK]: {
    id: API_FORK,
    cwd: '/home/dev/src/a-api-server',
    userTurns: 5,
    userTurnsExact: true,
    firstPrompt: API_TURNS[0]!,
    lastPrompt: '[a] instead, try a different approach to the fix',
    forkedFrom: API,
    title: API_TURNS[0]!,
    archived: false,
    name: null,
    createdAt: '2026-11-22T01:44:45.452Z',
    updatedAt: '2026-11-22T01:44:45.590Z',
    model: 'gpt-stand-in',
    gitBranch: null,
    usage: usage(6495, 240, 1200),
  },
  [WEB]: {
    id: WEB,
    cwd: '/home/dev/src/a-web-ui',
    userTurns: 1,
    userTurnsExact: true,
    firstPrompt: '[a] The scroll position jumps when new messages arrive — 为什么? 🙂',
    lastPrompt: '[a] The scroll position jumps when new messages arrive — 为什么? 🙂',
    forkedFrom: null,
    title: '[a] The scroll position jumps when new messages arrive — 为什么? 🙂',
    archived: true,
    name: null,
    createdAt: '2026-11-22T01:44:45.997Z',
    updatedAt: '2026-11-22T01:44:46.156Z',
    model: 'gpt-stand-in',
    gitBranch: null,
    usage: usage(1086, 40, 200),
  },
  [PIPELINE]: {
    id: PIPELINE,
    cwd: '/home/dev/src/a-data pipeline',
    userTurns: 7,
    userTurnsExact: true,
    firstPrompt: '[a] run ls and explain the layout of this repo',
    lastPrompt: STEP(6),
    forkedFrom: null,
    title: '[a] run ls and explain the layout of this repo',
    archived: false,
    name: null,
    createdAt: '2026-11-22T01:44:46.504Z',
    updatedAt: '2026-11-22T01:44:54.650Z',
    model: 'gpt-stand-in',
    gitBranch: null,
    usage: usage(15309, 560, 2800),
  },
  [UNICODE]: {
    id: UNICODE,
    cwd: '/home/dev/src/a-ünïcødé-项目',
    userTurns: 4,
    userTurnsExact: true,
    firstPrompt: '[a] Write a long design note about caching',
    lastPrompt: '[a] extend the note with section 3',
    forkedFrom: null,
    title: '[a] Write a long design note about caching',
    archived: false,
    name: null,
    createdAt: '2026-11-22T01:44:55.128Z',
    updatedAt: '2026-11-22T01:44:57.496Z',
    model: 'gpt-stand-in',
    gitBranch: null,
    usage: usage(4410, 160, 800),
  },
  [V020]: {
    id: V020,
    cwd: null, // 0.20 records no cwd anywhere
    userTurns: 1,
    userTurnsExact: true,
    firstPrompt: '[a] codex 0.20.0: please run ls and summarise the project',
    lastPrompt: '[a] codex 0.20.0: please run ls and summarise the project',
    forkedFrom: null,
    title: '[a] codex 0.20.0: please run ls and summarise the project',
    archived: false,
    name: null,
    createdAt: '2026-11-22T01:58:43.800Z',
    updatedAt: '2026-11-22T01:58:43.800Z', // only the first line carries a time
    model: null,
    gitBranch: null,
    usage: null,
  },
  [V039]: {
    id: V039,
    cwd: '/home/dev/src/a-codex-0.39.0',
    userTurns: 2,
    userTurnsExact: true,
    firstPrompt: '[a] codex 0.39.0: please run ls and summarise the project',
    lastPrompt: '[a] codex 0.39.0: second turn, why is that?',
    forkedFrom: null,
    title: '[a] codex 0.39.0: please run ls and summarise the project',
    archived: false,
    name: null,
    createdAt: '2026-11-22T01:58:44.360Z',
    updatedAt: '2026-11-22T01:58:45.121Z',
    model: 'gpt-stand-in',
    gitBranch: null,
    usage: usage(1142, 40, 200), // the resumed process counts afresh: the last token_count wins
  },
  [V089]: {
    id: V089,
    cwd: '/home/dev/src/a-codex-0.89.0',
    userTurns: 2,
    userTurnsExact: true,
    firstPrompt: '[a] codex 0.89.0: please run ls and summarise the project',
    lastPrompt: '[a] codex 0.89.0: second turn, why is that?',
    forkedFrom: null,
    title: '[a] codex 0.89.0: please run ls and summarise the project',
    archived: false,
    name: null,
    createdAt: '2026-11-22T01:58:48.664Z',
    updatedAt: '2026-11-22T01:58:52.614Z',
    model: 'gpt-stand-in',
    gitBranch: null,
    usage: usage(3432, 120, 600),
  },
  [V0100]: {
    id: V0100,
    cwd: '/home/dev/src/a-codex-0.100.0',
    userTurns: 2,
    userTurnsExact: true,
    firstPrompt: '[a] codex 0.100.0: please run ls and summarise the project',
    lastPrompt: '[a] codex 0.100.0: second turn, why is that?',
    forkedFrom: null,
    title: '[a] codex 0.100.0: please run ls and summarise the project',
    archived: false,
    name: null,
    createdAt: '2026-11-22T01:58:52.980Z',
    updatedAt: '2026-11-22T01:58:53.789Z',
    model: 'gpt-stand-in',
    gitBranch: null,
    usage: usage(3441, 120, 600),
  },
};

const CORPUS_TURNS: Record<string, string[]> = {
  [API]: [...API_TURNS, 'which name is this session under?'],
  [API_FORK]: [...API_TURNS, '[a] instead, try a different approach to the fix'],
  [WEB]: ['[a] The scroll position jumps when new messages arrive — 为什么? 🙂'],
  [PIPELINE]: ['[a] run ls and explain the layout of this repo', STEP(1), STEP(2), STEP(3), STEP(4), STEP(5), STEP(6)],
  [UNICODE]: [
    '[a] Write a long design note about caching',
    '[a] extend the note with section 1',
    '[a] extend the note with section 2',
    '[a] extend the note with section 3',
  ],
  [V020]: ['[a] codex 0.20.0: please run ls and summarise the project'],
  [V039]: ['[a] codex 0.39.0: please run ls and summarise the project', '[a] codex 0.39.0: second turn, why is that?'],
  [V089]: ['[a] codex 0.89.0: please run ls and summarise the project', '[a] codex 0.89.0: second turn, why is that?'],
  [V0100]: ['[a] codex 0.100.0: please run ls and summarise the project', '[a] codex 0.100.0: second turn, why is that?'],
};

describe('corpus summaries and transcripts', () => {
  it('summarises every corpus session from head and tail as the hand-written table says', async () => {
    const { groups, context, problems } = await scan(CORPUS);
    const rows: Record<string, SummaryRow> = {};
    for (const group of groups) {
      const summary = await codexAdapter.readSummary(group, context);
      expect(summary).not.toBeNull();
      rows[summary!.id] = row(summary!);
      expect(summary!.agent).toBe('codex');
      expect(summary!.paths).toEqual(group.paths);
      expect(summary!.path).toBe(group.paths[group.paths.length - 1]);
      expect(summary!.prompts).toEqual(CORPUS_TURNS[summary!.id]);
      expect(summary!.fork).toEqual(summary!.forkedFrom ? { id: summary!.forkedFrom } : null);
      const sizes = await Promise.all(group.paths.map(async (p) => (await stat(p)).size));
      expect(summary!.size).toBe(sizes.reduce((a, b) => a + b, 0));
    }
    expect(rows).toEqual(CORPUS_SUMMARIES);
    expect(problems).toEqual([]);
  });

  it('replays every corpus session: the user turns in order, the same summary', async () => {
    const { groups, context } = await scan(CORPUS);
    for (const group of groups) {
      const session = await codexAdapter.readSession(group, context);
      expect(userTurnTexts(session), session.id).toEqual(CORPUS_TURNS[session.id]);
      expect(row(session)).toEqual(CORPUS_SUMMARIES[session.id]);
      expect(session.malformedLines).toBe(0);
    }
  });

  it('counts only real prompts: every other user-role text in the corpus is injected context', async () => {
    const prompts = new Set(Object.values(CORPUS_TURNS).flat());
    let injected = 0;
    for (const file of await listFiles(CORPUS)) {
      if (!file.endsWith('.jsonl') || file === 'session_index.jsonl') continue;
      for (const line of (await readFile(join(CORPUS, file), 'utf8')).split('\n')) {
        if (!line) continue;
        const value = JSON.parse(line) as Record<string, unknown>;
        const item = (value.payload ?? value) as { type?: string; role?: string; content?: { text?: string }[] };
        if (item.type !== 'message' || item.role === 'assistant') continue;
        for (const part of item.content ?? []) {
          const text = part.text ?? '';
          const real = item.role === 'user' && !isInjectedContext(text);
          expect(real, text.slice(0, 60)).toBe(prompts.has(text));
          if (!real) injected++;
        }
      }
    }
    expect(injected).toBeGreaterThan(20);
  });

  it('renders tool calls, results and reasoning of the api-server session', async () => {
    const { group, context } = await scan(CORPUS);
    const session = await codexAdapter.readSession(group(API), context);
    const shape = session.messages.map((m) => `${m.role}:${m.blocks.map((b) => b.type).join('+')}${m.userTurn ? '*' : ''}`);
    expect(shape).toEqual([
      'system:text+text', // developer: skills + permissions
      'system:text', // <environment_context>
      'user:text*',
      'assistant:text',
      'user:text*',
      'assistant:tool_use',
      'tool:tool_result',
      'assistant:text',
      'user:text*',
      'assistant:reasoning',
      'assistant:text',
      'user:text*',
      'assistant:text',
      'system:text',
      'system:text',
      'user:text*',
      'assistant:text',
    ]);
    expect(session.messages[5]!.blocks[0]).toEqual({ type: 'tool_use', id: 'call_81', name: 'exec_command', input: '{"cmd":"ls -la"}' });
    const result = session.messages[6]!.blocks[0]!;
    expect(result).toMatchObject({ type: 'tool_result', toolUseId: 'call_81', isError: false });
    expect(result.type === 'tool_result' && result.output.startsWith('Chunk ID: 718123\nWall time: 0.2771 seconds')).toBe(true);
    expect(session.messages[9]!.blocks[0]).toEqual({
      type: 'reasoning',
      summary: '**Thinking about [a] why did the auth test fail**\n\nConsidering the options step by step.',
      encrypted: true,
    });
    expect(session.messages[2]).toEqual({
      role: 'user',
      blocks: [{ type: 'text', text: API_TURNS[0] }],
      userTurn: true,
      timestamp: '2026-11-22T01:44:42.424Z',
      source: { path: group(API).paths[0], offset: expect.any(Number) },
    });
  });

  it('reads the legacy 0.20 file: header line, bare items, state lines, unterminated last line', async () => {
    const { group, context } = await scan(CORPUS);
    const session = await codexAdapter.readSession(group(V020), context);
    expect(session.messages.map(content)).toEqual([
      { role: 'user', blocks: [{ type: 'text', text: '[a] codex 0.20.0: please run ls and summarise the project' }], userTurn: true },
      {
        role: 'assistant',
        blocks: [{ type: 'tool_use', id: 'call_138', name: 'shell', input: '{"command":["bash","-lc","ls -la"]}' }],
        userTurn: false,
      },
      {
        role: 'tool',
        blocks: [
          {
            type: 'tool_result',
            toolUseId: 'call_138',
            output:
              '{"output":"total 8\\ndrwxr-xr-x 2 root root 4096 Nov 22 01:58 .\\ndrwxr-xr-x 7 root root 4096 Nov 22 01:58 ..\\n","metadata":{"exit_code":0,"duration_seconds":0.2}}',
            isError: false,
          },
        ],
        userTurn: false,
      },
      {
        role: 'assistant',
        blocks: [{ type: 'text', text: 'The command finished. Summary for "[a] codex 0.20.0: please run ls and summarise the project": done.' }],
        userTurn: false,
      },
    ]);
    expect(session.malformedLines).toBe(0);
  });

  it('replays a paginated fork: the parent up to end_byte_offset, then its own turn', async () => {
    const { group, context, problems } = await scan(CORPUS);
    const session = await codexAdapter.readSession(group(API_FORK), context);
    const parentPath = group(API).paths[0]!;
    const childPath = group(API_FORK).paths[0]!;
    const turns = session.messages.filter((m) => m.userTurn);
    expect(turns.map((m) => [messageText(m), m.source!.path])).toEqual([
      [API_TURNS[0], parentPath],
      [API_TURNS[1], parentPath],
      [API_TURNS[2], parentPath],
      [API_TURNS[3], parentPath],
      ['[a] instead, try a different approach to the fix', childPath],
    ]);
    for (const m of session.messages) if (m.source!.path === parentPath) expect(m.source!.offset).toBeLessThan(58653);
    // The parent's part is exactly the parent's transcript before its later (fifth) turn.
    const parent = await codexAdapter.readSession(group(API), context);
    const inherited = session.messages.filter((m) => m.source!.path === parentPath);
    expect(inherited).toEqual(parent.messages.slice(0, inherited.length));
    expect(inherited).toHaveLength(13);
    expect(problems).toEqual([]);
  });

  it('still lists a paginated fork whose parent is missing, with its own lines, and says so', async () => {
    const { group, context } = await scan(CORPUS);
    const problems: Problem[] = [];
    const alone: AdapterContext = { ...context, lookup: () => undefined, report: (p) => problems.push(p) };
    const summary = await codexAdapter.readSummary(group(API_FORK), alone);
    expect(summary).toMatchObject({ id: API_FORK, userTurns: 1, firstPrompt: '[a] instead, try a different approach to the fix', forkedFrom: API });
    expect(problems).toEqual([{ path: group(API_FORK).paths[0], message: expect.stringContaining(API) }]);
  });

  it('lists every file from all of its lines', async () => {
    // The headers are ~22 KB: a 24 KB head and 8 KB tail would leave the middle of every larger file unread.
    const { group, context } = await scan(CORPUS);
    const pipeline = (await codexAdapter.readSummary(group(PIPELINE), context))!;
    expect(pipeline).toMatchObject({ userTurns: 7, userTurnsExact: true, firstPrompt: '[a] run ls and explain the layout of this repo', lastPrompt: STEP(6) });
    expect(pipeline.updatedAt).toBe('2026-11-22T01:44:54.650Z');
    // The fork's parent part is read whole too, up to the cut.
    const fork = (await codexAdapter.readSummary(group(API_FORK), context))!;
    expect(fork).toMatchObject({ userTurnsExact: true, firstPrompt: API_TURNS[0], lastPrompt: '[a] instead, try a different approach to the fix' });
    const { messages: _messages, malformedLines: _malformed, ...whole } = await codexAdapter.readSession(group(PIPELINE), context);
    expect(pipeline).toEqual(whole);
  });
});

describe('synthetic rollouts', () => {
  it('shows a compacted line as a marker and keeps the turns on both sides', async () => {
    const { group, context } = await scan(SYNTHETIC);
    const session = await codexAdapter.readSession(group(S_COMPACT), context);
    expect(userTurnTexts(session)).toEqual([
      'compact q1: explain the cache layer',
      'compact q2: and the eviction policy?',
      'compact q3: now add metrics',
    ]);
    const texts = session.messages.map((m) => (m.blocks[0]?.type === 'compaction' ? `[compaction] ${m.blocks[0].summary}` : messageText(m)));
    expect(texts.slice(1)).toEqual([
      'compact q1: explain the cache layer',
      'compact a1: the cache layer is a map',
      'compact q2: and the eviction policy?',
      'compact a2: LRU',
      '[compaction] Summary: the user asked about the cache layer and its LRU eviction.',
      'compact q3: now add metrics',
      'compact a3: metrics added',
    ]);
    expect(session.messages[5]).toMatchObject({ role: 'system', userTurn: false });
    expect(row(session)).toMatchObject({
      cwd: '/home/dev/src/synth-compact',
      gitBranch: 'main',
      model: 'gpt-synth',
      usage: usage(700, 30, 0),
      userTurns: 3,
    });
  });

  it('applies thread_rolled_back: the last turns and their answers are gone', async () => {
    const { group, context } = await scan(SYNTHETIC);
    const summary = (await codexAdapter.readSummary(group(S_ROLLBACK), context))!;
    expect(summary.prompts).toEqual(['rollback A: start the refactor', 'rollback D: only rename the module']);
    expect(summary.title).toBe('rollback-new');
    const session = await codexAdapter.readSession(group(S_ROLLBACK), context);
    expect(session.messages.slice(1).map((m) => messageText(m))).toEqual([
      'rollback A: start the refactor',
      'answer A',
      'rollback D: only rename the module',
      'answer D',
    ]);
  });

  it('reads segment files as one conversation, a revert cutting the earlier file', async () => {
    const { group, context } = await scan(SYNTHETIC);
    const session = await codexAdapter.readSession(group(S_SEGMENTS), context);
    expect(session.messages.map((m) => messageText(m))).toEqual([
      'segment one',
      'segment answer one',
      'segment two',
      'segment answer two',
      'segment three again',
      'segment answer three again',
    ]);
    expect(row(session)).toMatchObject({ id: S_SEGMENTS, userTurns: 3, title: 'segments', updatedAt: '2026-01-15T12:10:02.000Z' });
    expect(session.path).toBe(group(S_SEGMENTS).paths[1]);
    const summary = (await codexAdapter.readSummary(group(S_SEGMENTS), context))!;
    expect(summary.prompts).toEqual(['segment one', 'segment two', 'segment three again']);
  });

  it('reads IDE prompts, images, custom/local-shell/web-search tools and encrypted reasoning', async () => {
    const { group, context } = await scan(SYNTHETIC);
    const session = await codexAdapter.readSession(group(S_TOOLS), context);
    expect(row(session)).toMatchObject({
      cwd: '/home/dev/src/synth-tools',
      title: 'tools-demo',
      name: 'tools-demo',
      firstPrompt: 'Refactor the app entry point',
      lastPrompt: '[image]',
      userTurns: 2,
      gitBranch: 'feature/tools',
      model: 'gpt-5-codex-high',
    });
    expect(session.prompts).toEqual(['Refactor the app entry point', '[image]']);
    const blocks = session.messages.flatMap((m) => m.blocks.map((b) => ({ role: m.role, turn: m.userTurn, ...b })));
    expect(blocks.filter((b) => b.role !== 'system')).toEqual([
      // The IDE context is left out: the turn is the request, in rows and in the transcript alike.
      { role: 'user', turn: true, type: 'text', text: 'Refactor the app entry point' },
      { role: 'assistant', turn: false, type: 'reasoning', summary: '', encrypted: true },
      { role: 'assistant', turn: false, type: 'tool_use', id: 'call_patch', name: 'apply_patch', input: '*** Begin Patch\n*** End Patch\n' },
      { role: 'tool', turn: false, type: 'tool_result', toolUseId: 'call_patch', output: 'Success. Updated the following files:\nM src/app.ts\n', isError: false },
      {
        role: 'assistant',
        turn: false,
        type: 'tool_use',
        id: 'call_shell',
        name: 'local_shell',
        input: '{"type":"exec","command":["bash","-lc","npm test"],"timeout_ms":10000}',
      },
      { role: 'tool', turn: false, type: 'tool_result', toolUseId: 'call_shell', output: '1 failing', isError: true },
      { role: 'assistant', turn: false, type: 'tool_use', id: 'ws_1', name: 'web_search', input: '{"type":"search","query":"ink useInput"}' },
      { role: 'assistant', turn: false, type: 'text', text: 'Refactored.' },
      // The image itself, from its data URL (a hand-off carries it to the other agent's image block).
      { role: 'user', turn: true, type: 'image', mediaType: 'image/png', data: 'iVBORw0KGgo=', url: null },
      { role: 'assistant', turn: false, type: 'text', text: 'That is a screenshot.' },
    ]);
    // Developer, AGENTS.md, environment, user shell command and turn-aborted messages are context, not turns.
    expect(session.messages.filter((m) => m.role === 'system').map((m) => messageText(m).split('\n')[0])).toEqual([
      '<permissions instructions>',
      '# AGENTS.md instructions for /home/dev/src/synth-tools',
      '<environment_context>',
      '<user_shell_command>',
      '<turn_aborted>',
    ]);
  });

  it('does not list a header-only file, but can still open it', async () => {
    const { group, context } = await scan(SYNTHETIC);
    expect(await codexAdapter.readSummary(group(S_HEADER_ONLY), context)).toBeNull();
    const session = await codexAdapter.readSession(group(S_HEADER_ONLY), context);
    expect(session).toMatchObject({ id: S_HEADER_ONLY, userTurns: 0, messages: [], cwd: '/home/dev/src/synth-empty' });
  });

  it('takes the first session_meta as the id, and a replayed parent header as the fork parent', async () => {
    const { group, context } = await scan(SYNTHETIC);
    const replay = (await codexAdapter.readSummary(group(S_REPLAY), context))!;
    expect(replay).toMatchObject({
      id: S_REPLAY,
      forkedFrom: S_REPLAY_PARENT,
      prompts: ['replay parent question', 'replay fork question'],
    });
    // A file named after one thread whose first session_meta is another's belongs to that other thread.
    const continued = (await codexAdapter.readSummary(group(S_CONTINUES), context))!;
    expect(continued.id).toBe(S_COMPACT);
    expect(continued.userTurns).toBe(4);
    // Grouped with that thread (as the catalog merges by id), the replayed lines are not counted twice.
    const merged: SessionFileGroup = { ...group(S_COMPACT), paths: [...group(S_COMPACT).paths, ...group(S_CONTINUES).paths] };
    const session = await codexAdapter.readSession(merged, context);
    expect(userTurnTexts(session)).toEqual([
      'compact q1: explain the cache layer',
      'compact q2: and the eviction policy?',
      'compact q3: now add metrics',
      'compact q4: continue in a new file',
    ]);
  });
});

describe('damaged and unusual files', () => {
  async function apiVariant(transform: (data: Buffer) => Buffer | string): Promise<{ session: Session; summary: SessionSummary | null }> {
    const root = await copyHome(CORPUS);
    const path = join(root, DAY, API_FILE);
    await writeFile(path, transform(await readFile(path)));
    const { group, context } = await scan(root);
    return { session: await codexAdapter.readSession(group(API), context), summary: await codexAdapter.readSummary(group(API), context) };
  }

  it('reads CRLF line endings', async () => {
    const { session, summary } = await apiVariant((data) => data.toString('utf8').replaceAll('\n', '\r\n'));
    expect(userTurnTexts(session)).toEqual(CORPUS_TURNS[API]);
    expect(row(summary!)).toEqual(CORPUS_SUMMARIES[API]);
  });

  it('skips and counts a malformed middle line', async () => {
    const { session, summary } = await apiVariant((data) => {
      const all = lines(data);
      all.splice(20, 0, Buffer.from('{"timestamp": this is not json'), Buffer.from('[1,2,3]'));
      return Buffer.concat(all.flatMap((l) => [l, Buffer.from('\n')]));
    });
    expect(session.malformedLines).toBe(2);
    expect(userTurnTexts(session)).toEqual(CORPUS_TURNS[API]);
    expect(summary!.userTurns).toBe(5);
  });

  it('ignores a partial last line that is still being written', async () => {
    const partial = '{"timestamp":"2026-11-22T02:00:00.000Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"half';
    const { session, summary } = await apiVariant((data) => Buffer.concat([data, Buffer.from(partial)]));
    expect(session.malformedLines).toBe(0);
    expect(userTurnTexts(session)).toEqual(CORPUS_TURNS[API]);
    expect(row(summary!)).toEqual(CORPUS_SUMMARIES[API]);
  });

  it('reads a 20 MB line in full, and lists the file exactly without parsing that line', async () => {
    const big = 'x'.repeat(20 * 1024 * 1024);
    const line = JSON.stringify({
      timestamp: '2026-11-22T01:44:43.660Z',
      type: 'response_item',
      payload: { type: 'function_call_output', call_id: 'call_big', output: big },
    });
    const { session, summary } = await apiVariant((data) => {
      const all = lines(data);
      all.splice(23, 0, Buffer.from(line));
      return Buffer.concat(all.flatMap((l) => [l, Buffer.from('\n')]));
    });
    expect(userTurnTexts(session)).toEqual(CORPUS_TURNS[API]);
    const result = session.messages.flatMap((m) => m.blocks).find((b) => b.type === 'tool_result' && b.toolUseId === 'call_big');
    expect(result?.type === 'tool_result' && result.output.length).toBe(big.length);
    expect(row(summary!)).toEqual(CORPUS_SUMMARIES[API]);
  });

  it('survives non-UTF-8 bytes and a fork keeps them byte for byte', async () => {
    const root = join(temp, '.codex');
    const id = '0199c0de-0000-7000-8000-0000000000b8';
    const path = join(root, 'sessions', '2026', '01', '16', `rollout-2026-01-16T08-00-00-${id}.jsonl`);
    const user = (text: Buffer): Buffer =>
      Buffer.concat([
        Buffer.from('{"timestamp":"2026-01-16T08:00:01.000Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"'),
        text,
        Buffer.from('"}]}}'),
      ]);
    const reply = Buffer.from('{"timestamp":"2026-01-16T08:00:02.000Z","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"ok"}]}}');
    const first = user(Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x20, 0xff, 0xfe]));
    const header = Buffer.from(`{"timestamp":"2026-01-16T08:00:00.000Z","type":"session_meta","payload":{"id":"${id}","timestamp":"2026-01-16T08:00:00.000Z","cwd":"/tmp/latin1"}}`);
    await mkdir(join(path, '..'), { recursive: true });
    await writeFile(path, Buffer.concat([header, Buffer.from('\n'), first, Buffer.from('\n'), reply, Buffer.from('\n'), user(Buffer.from('second')), Buffer.from('\n')]));
    const { group, context } = await scan(root);
    const session = await codexAdapter.readSession(group(id), context);
    expect(userTurnTexts(session)).toEqual(['caf\uFFFD \uFFFD\uFFFD', 'second']);
    const fork = await codexAdapter.fork(group(id), { atTurn: 2, now: new Date(2026, 0, 16, 9, 0, 0) }, context);
    const written = lines(await readFile(fork.path));
    expect(bytes(written.slice(1))).toEqual(bytes([first, reply]));
  });

  it('does not list an empty file or a file of garbage, and opens them without throwing', async () => {
    const root = join(temp, '.codex');
    const dir = join(root, 'sessions', '2026', '01', '16');
    await mkdir(dir, { recursive: true });
    const empty = '0199c0de-0000-7000-8000-0000000000e0';
    const garbage = '0199c0de-0000-7000-8000-0000000000e1';
    await writeFile(join(dir, `rollout-2026-01-16T08-00-00-${empty}.jsonl`), '');
    await writeFile(join(dir, `rollout-2026-01-16T08-00-01-${garbage}.jsonl`), Buffer.from([0x00, 0xff, 0x0a, 0x7b, 0x0a, 0x5b, 0x5d]));
    const { group, context } = await scan(root);
    for (const id of [empty, garbage]) {
      expect(await codexAdapter.readSummary(group(id), context)).toBeNull();
      expect(await codexAdapter.readSession(group(id), context)).toMatchObject({ id, userTurns: 0, messages: [] });
    }
  });

  it('throws for a file it cannot read (the catalog reports it)', async () => {
    const { group, context } = await scan(CORPUS);
    const gone: SessionFileGroup = { ...group(API), paths: [join(temp, 'missing.jsonl')] };
    await expect(codexAdapter.readSummary(gone, context)).rejects.toThrow(/ENOENT/);
  });
});

describe('fork', () => {
  async function forkHome(): Promise<{ root: string; scanned: Scan }> {
    const root = await copyHome(CORPUS);
    return { root, scanned: await scan(root) };
  }

  it('forks api-server at turn 3: a standalone new rollout with the first two turns, lines byte for byte', async () => {
    const { root, scanned } = await forkHome();
    const source = scanned.group(API);
    const originalBytes = await readFile(source.paths[0]!);
    const before = sha256(originalBytes);
    const now = new Date(2026, 0, 20, 9, 5, 7); // local time, like Codex's file names

    const result = await codexAdapter.fork(source, { atTurn: 3, now }, scanned.context);

    expect(result).toEqual({ agent: 'codex', id: expect.any(String), path: expect.any(String), parentId: API, keptUserTurns: 2 });
    expect(result.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(result.path).toBe(join(root, 'sessions', '2026', '01', '20', `rollout-2026-01-20T09-05-07-${result.id}.jsonl`));
    expect(result.path).toBe(codexRolloutPath(root, result.id, now));
    expect((await stat(result.path)).mode & 0o777).toBe(0o600);
    expect(sha256(await readFile(source.paths[0]!))).toBe(before);

    const original = lines(originalBytes);
    const written = lines(await readFile(result.path));
    // Header re-serialised with the new id; then the parent's lines up to turn 3's preamble (ordinals 1..28).
    const header = JSON.parse(written[0]!.toString('utf8')) as { timestamp: string; ordinal: number; payload: Record<string, unknown> };
    const sourceHeader = JSON.parse(original[0]!.toString('utf8')) as { payload: Record<string, unknown> };
    expect(header.payload).toEqual({
      ...sourceHeader.payload,
      id: result.id,
      session_id: result.id,
      forked_from_id: API,
      timestamp: now.toISOString(),
    });
    expect(header.ordinal).toBe(0);
    expect(header.timestamp).toBe(now.toISOString());
    expect(bytes(written.slice(1))).toEqual(bytes(original.slice(1, 29)));
    expect(JSON.parse(original[29]!.toString('utf8')).payload.type).toBe('thread_settings_applied');

    // The new file is listed and replayed on its own: exactly the first two turns and their answers.
    const rescanned = await scan(root);
    const fork = rescanned.group(result.id);
    const session = await codexAdapter.readSession(fork, { ...rescanned.context, lookup: () => undefined });
    expect(userTurnTexts(session)).toEqual(API_TURNS.slice(0, 2));
    const parent = await codexAdapter.readSession(source, scanned.context);
    const third = parent.messages.findIndex((m) => m.userTurn && messageText(m) === API_TURNS[2]);
    expect(session.messages.map(content)).toEqual(parent.messages.slice(0, third).map(content));
    const summary = (await codexAdapter.readSummary(fork, rescanned.context))!;
    expect(row(summary)).toEqual({
      ...CORPUS_SUMMARIES[API],
      id: result.id,
      userTurns: 2,
      lastPrompt: API_TURNS[1],
      forkedFrom: API,
      title: API_TURNS[0],
      name: null,
      createdAt: now.toISOString(),
      updatedAt: '2026-11-22T01:44:43.708Z',
      usage: usage(3243, 120, 600),
    });
  });

  it('refuses a turn out of range and writes nothing', async () => {
    const { root, scanned } = await forkHome();
    const before = await listFiles(root);
    for (const atTurn of [0, 1, 7, 2.5]) {
      await expect(codexAdapter.fork(scanned.group(API), { atTurn }, scanned.context)).rejects.toBeInstanceOf(ForkRangeError);
    }
    await expect(codexAdapter.fork(scanned.group(API), { atTurn: 7 }, scanned.context)).rejects.toThrow(/valid turns are 2\.\.6/);
    expect(await listFiles(root)).toEqual(before);
  });

  it('materialises a paginated fork: the parent lines up to the base offset, then the fork own lines', async () => {
    const { root, scanned } = await forkHome();
    const child = scanned.group(API_FORK);
    const childBefore = sha256(await readFile(child.paths[0]!));
    const parentLines = lines(await readFile(scanned.group(API).paths[0]!));

    const atTurn3 = await codexAdapter.fork(child, { atTurn: 3, now: new Date(2026, 0, 21, 10, 0, 0) }, scanned.context);
    const written3 = lines(await readFile(atTurn3.path));
    expect(bytes(written3.slice(1))).toEqual(bytes(parentLines.slice(1, 29)));

    const atTurn5 = await codexAdapter.fork(child, { atTurn: 5, now: new Date(2026, 0, 21, 10, 0, 1) }, scanned.context);
    expect(atTurn5).toMatchObject({ parentId: API_FORK, keptUserTurns: 4 });
    const written = lines(await readFile(atTurn5.path));
    const header = JSON.parse(written[0]!.toString('utf8')) as { ordinal: number; payload: Record<string, unknown> };
    expect(header.ordinal).toBe(0); // the materialised history starts where the oldest ancestor's did
    expect(header.payload).toMatchObject({ id: atTurn5.id, session_id: atTurn5.id, forked_from_id: API_FORK, cwd: '/home/dev/src/a-api-server' });
    expect(header.payload).not.toHaveProperty('history_base');
    expect(header.payload).not.toHaveProperty('forked_from_ordinal_exclusive');
    // All four parent turns (ordinals 1..50, the parent's own header left out); the fork's turn-5 preamble is cut.
    expect(bytes(written.slice(1))).toEqual(bytes(parentLines.slice(1, 51)));
    expect(sha256(await readFile(child.paths[0]!))).toBe(childBefore);

    const rescanned = await scan(root);
    const problems: Problem[] = [];
    const standalone: AdapterContext = { ...rescanned.context, lookup: () => undefined, report: (p) => problems.push(p) };
    const session = await codexAdapter.readSession(rescanned.group(atTurn5.id), standalone);
    expect(userTurnTexts(session)).toEqual(API_TURNS);
    expect(problems).toEqual([]);
  });

  it('follows a chain of paginated forks (a fork of the fork) and materialises all of it', async () => {
    const { root, scanned } = await forkHome();
    const childPath = scanned.group(API_FORK).paths[0]!;
    const childLines = lines(await readFile(childPath));
    const grandchild = '0199c0de-0000-7000-8000-0000000000c2';
    const path = join(root, DAY, `rollout-2026-11-22T02-00-00-${grandchild}.jsonl`);
    const record = (ordinal: number, type: string, payload: object, time: string): string =>
      JSON.stringify({ timestamp: `2026-11-22T02:00:${time}Z`, ordinal, type, payload });
    const text = [
      record(
        63,
        'session_meta',
        {
          session_id: grandchild,
          id: grandchild,
          forked_from_id: API_FORK,
          timestamp: '2026-11-22T02:00:00.000Z',
          cwd: '/home/dev/src/a-api-server',
          history_mode: 'paginated',
          history_base: { thread_id: API_FORK, end_ordinal_exclusive: 63, end_byte_offset: (await stat(childPath)).size },
        },
        '00.000',
      ),
      record(64, 'event_msg', { type: 'task_started', turn_id: 't6' }, '01.000'),
      record(65, 'turn_context', { cwd: '/home/dev/src/a-api-server', model: 'gpt-stand-in' }, '01.001'),
      record(66, 'response_item', { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'grandchild question' }] }, '01.002'),
      record(67, 'response_item', { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'grandchild answer' }] }, '02.000'),
      record(68, 'event_msg', { type: 'task_started', turn_id: 't7' }, '03.000'),
      record(69, 'response_item', { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'grandchild second question' }] }, '03.001'),
    ].join('\n');
    await writeFile(path, `${text}\n`);

    const rescanned = await scan(root);
    const session = await codexAdapter.readSession(rescanned.group(grandchild), rescanned.context);
    expect(userTurnTexts(session)).toEqual([...API_TURNS, '[a] instead, try a different approach to the fix', 'grandchild question', 'grandchild second question']);
    expect(session.forkedFrom).toBe(API_FORK);
    const summary = (await codexAdapter.readSummary(rescanned.group(grandchild), rescanned.context))!;
    expect(summary).toMatchObject({ userTurns: 7, userTurnsExact: true, firstPrompt: API_TURNS[0] });

    const fork = await codexAdapter.fork(rescanned.group(grandchild), { atTurn: 7 }, rescanned.context);
    const written = lines(await readFile(fork.path));
    const parentLines = lines(await readFile(rescanned.group(API).paths[0]!));
    const own = text.split('\n').slice(1, 5).map((l) => Buffer.from(l));
    expect(bytes(written.slice(1))).toEqual(bytes([...parentLines.slice(1, 51), ...childLines.slice(1), ...own]));
  });

  it('forks across a rollback: the dead turns stay in the file, so Codex replays the same history', async () => {
    const root = await copyHome(SYNTHETIC);
    const scanned = await scan(root);
    const result = await codexAdapter.fork(scanned.group(S_ROLLBACK), { atTurn: 2 }, scanned.context);
    const written = lines(await readFile(result.path));
    const original = lines(await readFile(scanned.group(S_ROLLBACK).paths[0]!));
    // Everything up to the rollback event; turn D's turn_context (its preamble) is cut.
    expect(bytes(written.slice(1))).toEqual(bytes(original.slice(1, 15)));
    const rescanned = await scan(root);
    const session = await codexAdapter.readSession(rescanned.group(result.id), rescanned.context);
    expect(userTurnTexts(session)).toEqual(['rollback A: start the refactor']);
  });

  it('forks the legacy 0.20 format too', async () => {
    const root = await copyHome(CORPUS);
    await writeFile(
      join(root, DAY, `rollout-2026-11-22T01-58-43-${V020}.jsonl`),
      Buffer.concat([await readFile(join(CORPUS, DAY, `rollout-2026-11-22T01-58-43-${V020}.jsonl`)), Buffer.from('\n{"type":"message","id":null,"role":"user","content":[{"type":"input_text","text":"second"}]}\n')]),
    );
    const scanned = await scan(root);
    const result = await codexAdapter.fork(scanned.group(V020), { atTurn: 2, now: new Date(2026, 0, 22, 8, 0, 0) }, scanned.context);
    const written = lines(await readFile(result.path));
    expect(JSON.parse(written[0]!.toString('utf8'))).toEqual({
      id: result.id,
      timestamp: new Date(2026, 0, 22, 8, 0, 0).toISOString(),
      instructions: null,
      forked_from_id: V020,
    });
    const rescanned = await scan(root);
    const summary = (await codexAdapter.readSummary(rescanned.group(result.id), rescanned.context))!;
    expect(summary).toMatchObject({ userTurns: 1, forkedFrom: V020, firstPrompt: '[a] codex 0.20.0: please run ls and summarise the project' });
  });
});

describe('prompt text helpers', () => {
  it('recognises injected context, case-insensitively after leading space', () => {
    for (const text of [
      '<environment_context>\n<cwd>/x</cwd>\n</environment_context>',
      '  <ENVIRONMENT_CONTEXT>',
      '<user_instructions>be nice</user_instructions>',
      '# AGENTS.md instructions for /home/dev/x\n\n<INSTRUCTIONS>',
      '<skills_instructions>\n## Skills',
      '<permissions instructions>\nFilesystem sandboxing',
      '<user_shell_command>ls</user_shell_command>',
      '<turn_aborted>',
      '<subagent_notification>{}</subagent_notification>',
    ]) {
      expect(isInjectedContext(text), text).toBe(true);
    }
    for (const text of ['fix the <environment_context> parser', 'AGENTS.md: please update it', 'hello']) {
      expect(isInjectedContext(text), text).toBe(false);
    }
  });

  it('takes the request part of IDE prompts', () => {
    expect(codexUserPromptText('# Context from my IDE setup:\n\n## Active file: a.ts\n\n## My request for Codex:\nfix it\n')).toBe('fix it');
    expect(codexUserPromptText('# Context from my IDE setup:\n\nno request heading')).toBe('# Context from my IDE setup:\n\nno request heading');
    expect(codexUserPromptText('plain prompt')).toBe('plain prompt');
  });
});

describe('fork --name', () => {
  it('names the fork in session_index.jsonl the way codex does, without touching the parent', async () => {
    const home = await mkdtemp(join(tmpdir(), 'codex-name-'));
    try {
      const root = join(home, '.codex');
      await cp(join(FIXTURES, 'home', '.codex'), root, { recursive: true });
      const before = await readFile(join(root, 'session_index.jsonl'), 'utf8');
      const group = (await codexAdapter.discover(root, () => undefined)).find((g) => g.idHint === '01a200ed-60a4-7f10-a53c-15a9ecf122f3')!;
      const context: AdapterContext = { report: () => undefined, lookup: () => undefined, names: () => new Map() };
      const result = await codexAdapter.fork(group, { atTurn: 3, branchName: ' try-sqlite ', now: new Date('2026-11-22T03:00:00Z') }, context);
      const after = await readFile(join(root, 'session_index.jsonl'), 'utf8');
      expect(after.startsWith(before)).toBe(true);
      expect(after.slice(before.length)).toBe(`${JSON.stringify({ id: result.id, thread_name: 'try-sqlite', updated_at: '2026-11-22T03:00:00Z' })}\n`);
      expect((await readCodexNames(root)).get(result.id)).toBe('try-sqlite');
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  });
});
