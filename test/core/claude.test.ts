import { cp, mkdir, mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

import { ForkRangeError } from '../../src/core/errors.js';
import { claudeAdapter, indexedValue, rewriteSessionId } from '../../src/core/formats/claude/index.js';
import { topLevelStringSpans } from '../../src/core/io/json-bytes.js';
import type { AdapterContext, Problem, SessionFileGroup } from '../../src/core/formats/types.js';
import { messageText, type Message, type SessionSummary } from '../../src/core/model.js';
import { rawLines, sha256File } from '../helpers/files.js';

const LOCKED = 'locked-project';

// Root reads every directory, so an unreadable project folder is simulated: readdir fails for it with EACCES.
vi.mock('node:fs/promises', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:fs/promises')>();
  return {
    ...actual,
    readdir: (...args: Parameters<typeof actual.readdir>) => {
      if (String(args[0]).endsWith(LOCKED)) {
        return Promise.reject(Object.assign(new Error(`EACCES: permission denied, scandir '${String(args[0])}'`), { code: 'EACCES' }));
      }
      return actual.readdir(...args);
    },
  };
});

const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures');

let temp: string;
let home: string; // copy of the real corpus's .claude
let synth: string; // copy of the synthetic .claude

const API = '-home-dev-src-a-api-server';
const UNICODE = '-home-dev-src-a--n-c-d----';
const WEB = '-home-dev-src-a-web-ui';
const SYNTH = '-home-dev-src-synth';

const NON_ASCII_ID = '328cfc0d-0846-4702-9243-c6354d61457d';
const ORIGINAL_ID = 'b0304532-bd3a-4d34-9619-62f2487fd2d5';
const CLAUDE_FORK_ID = '5a1999c3-3fef-4a8c-8969-b584a1892bda';
const WEB_ID = '637c5025-a11d-4fce-bb60-2cbeb9eb07a4';

const synthId = (suffix: string): string => `5e551011-0000-4000-8000-0000000000${suffix}`;
const synthUuid = (n: number, k: number): string =>
  `${n.toString(16).padStart(8, '0')}-0000-4000-8000-${k.toString(16).padStart(12, '0')}`;

function context(options: { report?: (problem: Problem) => void } = {}): AdapterContext {
  return {
    report: options.report ?? (() => undefined),
    lookup: () => undefined,
    names: () => new Map(),
  };
}

function group(root: string, project: string, id: string): SessionFileGroup {
  return { agent: 'claude', paths: [join(root, 'projects', project, `${id}.jsonl`)], idHint: id, root, archived: false };
}

const corpus = (project: string, id: string): SessionFileGroup => group(home, project, id);
const synthetic = (suffix: string): SessionFileGroup => group(synth, SYNTH, synthId(suffix));



/** A line with its `"sessionId":"<from>"` pair (exact spelling given) turned into `<to>`: the expected fork line. */
function withSessionId(line: Buffer, pair: string, from: string, to: string): Buffer {
  const text = line.toString('latin1');
  expect(text.split(pair).length - 1).toBe(1);
  return Buffer.from(text.replace(pair, pair.replace(from, to)), 'latin1');
}

const userTurnTexts = (messages: readonly Message[]): string[] => messages.filter((m) => m.userTurn).map(messageText);
const withoutSource = (messages: readonly Message[]): Omit<Message, 'source'>[] => messages.map(({ source: _source, ...rest }) => rest);

beforeAll(async () => {
  temp = await mkdtemp(join(tmpdir(), 'sessions-claude-'));
  home = join(temp, 'home', '.claude');
  synth = join(temp, 'synth', '.claude');
  await cp(join(FIXTURES, 'home', '.claude'), home, { recursive: true });
  await cp(join(FIXTURES, 'claude-synthetic', '.claude'), synth, { recursive: true });
});

afterAll(async () => {
  await rm(temp, { recursive: true, force: true });
});

describe('discover', () => {
  it('finds one group per session file in the corpus', async () => {
    const problems: Problem[] = [];
    const groups = await claudeAdapter.discover(home, (p) => problems.push(p));
    expect(groups).toEqual([
      corpus(UNICODE, NON_ASCII_ID),
      corpus(API, CLAUDE_FORK_ID),
      corpus(API, ORIGINAL_ID),
      corpus(WEB, WEB_ID),
    ]);
    expect(problems).toEqual([]);
  });

  it('leaves out subagent transcripts and old agent-*.jsonl sidechain files', async () => {
    const groups = await claudeAdapter.discover(synth, () => undefined);
    expect(groups.map((g) => relative(join(synth, 'projects', SYNTH), g.paths[0]!))).toEqual(
      ['01', '02', '03', '04', '05', '06', '08', '09', '0a', '0b', '0c', 'e0', 'e1', 'e2'].map((s) => `${synthId(s)}.jsonl`),
    );
    expect(groups.every((g) => g.idHint === basename(g.paths[0]!, '.jsonl') && g.root === synth && !g.archived)).toBe(true);
  });

  it('returns nothing, silently, for a config dir without projects', async () => {
    const problems: Problem[] = [];
    expect(await claudeAdapter.discover(join(temp, 'no-such-dir'), (p) => problems.push(p))).toEqual([]);
    expect(problems).toEqual([]);
  });

  it('reports an unreadable project folder once and lists the others', async () => {
    const root = join(temp, 'locked', '.claude');
    await cp(join(FIXTURES, 'home', '.claude', 'projects', WEB), join(root, 'projects', WEB), { recursive: true });
    await mkdir(join(root, 'projects', LOCKED), { recursive: true });
    const problems: Problem[] = [];
    const groups = await claudeAdapter.discover(root, (p) => problems.push(p));
    expect(groups).toEqual([group(root, WEB, WEB_ID)]);
    expect(problems).toHaveLength(1);
    expect(problems[0]!.path).toBe(join(root, 'projects', LOCKED));
    expect(problems[0]!.message).toMatch(/EACCES/);
  });
});

describe('corpus summaries', () => {
  // Written by hand from the files (see /work/shared/corpus/README.md for what was done to make them).
  const expected = [
    {
      project: UNICODE,
      id: NON_ASCII_ID,
      cwd: '/home/dev/src/a-ünïcødé-项目',
      prompts: [
        '[a] 请解释这个项目的结构',
        '[a] part 1: continue, and run ls to check',
        '[a] part 2: continue, and run ls to check',
        '[a] part 3: continue, and run ls to check',
        '[a] part 4: continue, and run ls to check',
        'after compaction: one more question, run ls',
      ],
      lastPrompt: 'after compaction: one more question, run ls',
      lineage: '9386f16e-9bad-4304-9796-da0995616285',
      createdAt: '2026-11-22T01:45:05.940Z',
      updatedAt: '2026-11-22T01:56:15.465Z',
      usage: { input: 6144, output: 330, cacheRead: 1100, cacheWrite: 0 },
    },
    {
      project: API,
      id: ORIGINAL_ID,
      cwd: '/home/dev/src/a-api-server',
      prompts: [
        '[a] Explain the request lifecycle in this server',
        '[a] run the linter and list the warnings',
        '[a] think about why the warnings appear',
      ],
      lastPrompt: '[a] think about why the warnings appear',
      lineage: '7bbe4943-8b9d-480f-86e6-e61b64d10361',
      createdAt: '2026-11-22T01:44:59.244Z',
      updatedAt: '2026-11-22T01:45:02.052Z',
      usage: { input: 2170, output: 120, cacheRead: 400, cacheWrite: 0 },
    },
    {
      // Claude Code's own --fork-session of the one above: same message uuids (so the same lineage), new sessionId.
      project: API,
      id: CLAUDE_FORK_ID,
      cwd: '/home/dev/src/a-api-server',
      prompts: [
        '[a] Explain the request lifecycle in this server',
        '[a] run the linter and list the warnings',
        '[a] think about why the warnings appear',
        '[a] fork: try a stricter lint config instead',
      ],
      // Claude Code's own last-prompt record here names the first prompt (a --fork-session quirk); the chain decides.
      lastPrompt: '[a] fork: try a stricter lint config instead',
      lineage: '7bbe4943-8b9d-480f-86e6-e61b64d10361',
      createdAt: '2026-11-22T01:45:03.276Z',
      updatedAt: '2026-11-22T01:45:03.479Z',
      usage: { input: 2715, output: 150, cacheRead: 500, cacheWrite: 0 },
    },
    {
      project: WEB,
      id: WEB_ID,
      cwd: '/home/dev/src/a-web-ui',
      prompts: ['[a] Make the sidebar collapsible — keep it accessible ♿'],
      lastPrompt: '[a] Make the sidebar collapsible — keep it accessible ♿',
      lineage: 'ba79a767-810f-454c-9d48-19b6dfb89a08',
      createdAt: '2026-11-22T01:45:04.544Z',
      updatedAt: '2026-11-22T01:45:04.799Z',
      usage: { input: 547, output: 30, cacheRead: 100, cacheWrite: 0 },
    },
  ];

  for (const row of expected) {
    it(`summarises ${row.id} (${row.cwd})`, async () => {
      const g = corpus(row.project, row.id);
      const info = await stat(g.paths[0]!);
      const summary = await claudeAdapter.readSummary(g, context());
      const want: SessionSummary = {
        id: row.id,
        agent: 'claude',
        path: g.paths[0]!,
        paths: g.paths,
        cwd: row.cwd,
        title: row.prompts[0]!,
        firstPrompt: row.prompts[0]!,
        lastPrompt: row.lastPrompt,
        name: null,
        userTurns: row.prompts.length,
        userTurnsExact: true,
        prompts: row.prompts,
        createdAt: row.createdAt,
        updatedAt: row.updatedAt,
        forkedFrom: null,
        fork: null,
        lineage: row.lineage,
        gitBranch: 'HEAD',
        model: 'claude-opus-4-8',
        archived: false,
        usage: row.usage,
        size: info.size,
        mtimeMs: info.mtimeMs,
      };
      expect(summary).toEqual(want);
      // A full read agrees with the listing.
      const { messages: _messages, malformedLines, ...session } = await claudeAdapter.readSession(g, context());
      expect(session).toEqual(want);
      expect(malformedLines).toBe(0);
      expect(userTurnTexts(_messages)).toEqual(row.prompts);
    });
  }

  it('lists a file from every line: the count is exact', async () => {
    // 42644 bytes; a head of 3000 and a tail of 10000 bytes would have missed lines 5-49.
    const g = corpus(UNICODE, NON_ASCII_ID);
    const summary = await claudeAdapter.readSummary(g, context());
    expect(summary).toMatchObject({
      id: NON_ASCII_ID,
      cwd: '/home/dev/src/a-ünïcødé-项目',
      title: '[a] 请解释这个项目的结构',
      firstPrompt: '[a] 请解释这个项目的结构',
      lastPrompt: 'after compaction: one more question, run ls',
      // head and tail alone showed 2 of these
      userTurns: 6,
      userTurnsExact: true,
      prompts: ['[a] 请解释这个项目的结构', ...[1, 2, 3, 4].map((n) => `[a] part ${n}: continue, and run ls to check`), 'after compaction: one more question, run ls'],
      lineage: '9386f16e-9bad-4304-9796-da0995616285',
      createdAt: '2026-11-22T01:45:05.940Z',
      updatedAt: '2026-11-22T01:56:15.465Z',
      model: 'claude-opus-4-8',
    });
  });
});

describe('readSession', () => {
  it('replays the api-server session: tool use, tool result, streamed thinking + text as one message', async () => {
    const g = corpus(API, ORIGINAL_ID);
    const session = await claudeAdapter.readSession(g, context());
    const usage = (input: number) => ({ input, output: 30, cacheRead: 100, cacheWrite: 0 });
    const text = (t: string) => ({ type: 'text', text: t });
    expect(withoutSource(session.messages)).toEqual([
      { role: 'user', userTurn: true, timestamp: '2026-11-22T01:44:59.288Z', blocks: [text('[a] Explain the request lifecycle in this server')] },
      {
        role: 'assistant',
        userTurn: false,
        timestamp: expect.any(String),
        usage: usage(541),
        blocks: [text('Answer 41: about "[a] Explain the request lifecycle in this server". Here is a longer explanation with some detail so that previews have something to show.')],
      },
      { role: 'user', userTurn: true, timestamp: expect.any(String), blocks: [text('[a] run the linter and list the warnings')] },
      {
        role: 'assistant',
        userTurn: false,
        timestamp: '2026-11-22T01:45:00.618Z',
        usage: usage(542),
        blocks: [{ type: 'tool_use', id: 'toolu_42', name: 'Bash', input: '{"command":"ls -la","description":"List files"}' }],
      },
      {
        role: 'tool',
        userTurn: false,
        timestamp: '2026-11-22T01:45:00.706Z',
        blocks: [
          {
            type: 'tool_result',
            toolUseId: 'toolu_42',
            output: 'total 12\ndrwxr-xr-x 2 root root 4096 Nov 22 01:44 .\ndrwxr-xr-x 6 root root 4096 Nov 22 01:44 ..\n-rw-r--r-- 1 root root   18 Nov 22 01:44 README.md',
            isError: false,
          },
        ],
      },
      {
        role: 'assistant',
        userTurn: false,
        timestamp: expect.any(String),
        usage: usage(543),
        blocks: [text('The command finished. Summary for "[a] run the linter and list the warnings": done.')],
      },
      { role: 'user', userTurn: true, timestamp: expect.any(String), blocks: [text('[a] think about why the warnings appear')] },
      {
        role: 'assistant',
        userTurn: false,
        timestamp: '2026-11-22T01:45:02.050Z',
        usage: usage(544),
        blocks: [
          { type: 'reasoning', summary: 'Considering [a] think about why the warnin step by step.', encrypted: true },
          text('Answer 44: about "[a] think about why the warnings appear". Here is a longer explanation with some detail so that previews have something to show.'),
        ],
      },
    ]);
    // Each message points at its line.
    const data = await readFile(g.paths[0]!);
    for (const message of session.messages) {
      expect(message.source!.path).toBe(g.paths[0]);
      expect(message.source!.offset === 0 || data[message.source!.offset - 1] === 0x0a).toBe(true);
      expect(data.subarray(message.source!.offset, message.source!.offset + 14).toString()).toBe('{"parentUuid":');
    }
  });

  it('crosses the /compact boundary: 5 turns before it, 1 after, with a compaction marker carrying the summary', async () => {
    const session = await claudeAdapter.readSession(corpus(UNICODE, NON_ASCII_ID), context());
    expect(session.userTurns).toBe(6);
    const shape = session.messages.map((m) => `${m.role}${m.userTurn ? '*' : ''}:${m.blocks.map((b) => b.type).join('+')}`);
    expect(shape).toEqual([
      'user*:text', 'assistant:text',
      'user*:text', 'assistant:tool_use', 'tool:tool_result', 'assistant:text',
      'user*:text', 'assistant:tool_use', 'tool:tool_result', 'assistant:text',
      'user*:text', 'assistant:tool_use', 'tool:tool_result', 'assistant:text',
      'user*:text', 'assistant:tool_use', 'tool:tool_result', 'assistant:text',
      'system:compaction',
      'user:text', 'user:text', 'user:text', // the command caveat, <command-name>/compact, its stdout
      'user:text', 'assistant:text', // the meta "Continue from where you left off." and the synthetic answer
      'user*:text', 'assistant:tool_use', 'tool:tool_result', 'assistant:text',
    ]);
    const marker = session.messages[18]!;
    expect(marker.blocks[0]!.type).toBe('compaction');
    const summary = marker.blocks[0]!.type === 'compaction' ? marker.blocks[0]!.summary : '';
    expect(summary).toMatch(/^This session is being continued from a previous conversation that ran out of context\./);
    expect(summary).toMatch(/Pick up the last task as if the break never happened\.$/);
    // A slash command shows as typed, not as the tags Claude Code wraps it in.
    expect(messageText(session.messages[20]!)).toBe('/compact');
  });
});

describe('synthetic sessions', () => {
  it('follows the active branch of a rewound file and names it by its summary', async () => {
    const session = await claudeAdapter.readSession(synthetic('01'), context());
    expect(userTurnTexts(session.messages)).toEqual(['How do I parse CSV?', 'Show me with a library instead', 'Now add tests']);
    expect(session.messages.some((m) => /regex/i.test(messageText(m)))).toBe(false);
    expect(session).toMatchObject({
      id: synthId('01'),
      cwd: '/home/dev/src/synth',
      title: 'CSV parsing with a library',
      name: null,
      firstPrompt: 'How do I parse CSV?',
      lastPrompt: 'Now add tests',
      lineage: synthUuid(1, 1),
      userTurns: 3,
      gitBranch: 'main',
      model: 'claude-sonnet-4-5',
      createdAt: '2026-10-01T10:00:01.000Z',
      updatedAt: '2026-10-01T10:00:11.000Z',
      // Every API message once, dead branch included (its tokens were spent); msg_r3's last line holds its count.
      usage: { input: 1500, output: 150, cacheRead: 5, cacheWrite: 1 },
    });
    const answer = session.messages[3]!;
    expect(answer.blocks).toEqual([
      { type: 'reasoning', summary: 'A library handles quoting.', encrypted: true },
      { type: 'text', text: 'Use the csv-parse package.' },
    ]);
    expect(answer.usage).toEqual({ input: 300, output: 30, cacheRead: 0, cacheWrite: 0 });
    expect(session.messages[6]!.blocks).toEqual([{ type: 'tool_result', toolUseId: 'toolu_r4', output: 'Error: no tests found', isError: true }]);
    expect(await claudeAdapter.readSummary(synthetic('01'), context())).toEqual((({ messages: _m, malformedLines: _l, ...rest }) => rest)(session));
  });

  it.each([
    ['02', 'poetry', 'poetry'], // custom-title wins over ai-title and agent-name
    ['03', 'Monads explained', null], // the last ai-title
    ['04', 'deployer', 'deployer'], // agent-name alone names it
    ['05', 'Count the lines in main.ts', null], // a summary of another conversation's leaf is not this one's title
  ])('titles %s as %j (name %j)', async (suffix, title, name) => {
    const summary = await claudeAdapter.readSummary(synthetic(suffix), context());
    expect(summary).toMatchObject({ id: synthId(suffix), title, name, userTurns: 1 });
  });

  it('keeps sidechain lines out of the transcript, the turns and the usage', async () => {
    const session = await claudeAdapter.readSession(synthetic('06'), context());
    expect(session.messages.map((m) => `${m.role}:${messageText(m) || m.blocks[0]!.type}`)).toEqual([
      'user:Research the codebase',
      'assistant:tool_use',
      'tool:tool_result',
      'assistant:The entry point is src/index.ts.',
    ]);
    expect(session.userTurns).toBe(1);
    expect(session.updatedAt).toBe('2026-10-01T10:00:08.000Z');
    expect(session.usage).toEqual({ input: 200, output: 20, cacheRead: 0, cacheWrite: 0 });
  });

  it('does not count slash commands, shell mode, meta lines or interruptions as turns', async () => {
    const session = await claudeAdapter.readSession(synthetic('08'), context());
    expect(userTurnTexts(session.messages)).toEqual(['Start the server', 'Use port 8080 instead\n[image]']);
    expect(session.prompts).toEqual(['Start the server', 'Use port 8080 instead']);
    expect(session.messages.filter((m) => m.role === 'user' && !m.userTurn).map(messageText)).toEqual([
      '<local-command-caveat>Caveat: The messages below were generated by the user while running local commands.</local-command-caveat>',
      '/model',
      '<local-command-stdout>Set model to sonnet</local-command-stdout>',
      '[Request interrupted by user]',
      '<bash-input>lsof -i :3000</bash-input>',
      '<bash-stdout>node 1234</bash-stdout><bash-stderr></bash-stderr>',
    ]);
    expect(session.messages[5]).toMatchObject({ role: 'tool', userTurn: false });
    expect(session.firstPrompt).toBe('Start the server');
  });

  it.each([
    ['e0', '0 bytes'],
    ['e1', 'file-history-snapshot lines only'],
    ['e2', 'a summary line only'],
  ])('is not a conversation: %s (%s)', async (suffix) => {
    expect(await claudeAdapter.readSummary(synthetic(suffix), context())).toBeNull();
  });

  it('skips and counts a malformed middle line', async () => {
    const session = await claudeAdapter.readSession(synthetic('09'), context());
    expect(userTurnTexts(session.messages)).toEqual(['First question', 'Second question']);
    expect(session.malformedLines).toBe(1);
  });

  it('ignores a partial last line that is still being written', async () => {
    const session = await claudeAdapter.readSession(synthetic('0a'), context());
    expect(userTurnTexts(session.messages)).toEqual(['Only question']);
    expect(session.malformedLines).toBe(0);
    expect(await claudeAdapter.readSummary(synthetic('0a'), context())).toMatchObject({ userTurns: 1, userTurnsExact: true, lastPrompt: 'Only question' });
  });

  it('decodes non-UTF-8 bytes as replacement characters', async () => {
    const session = await claudeAdapter.readSession(synthetic('0c'), context());
    expect(userTurnTexts(session.messages)).toEqual(['caf\uFFFD cr\uFFFDme \uFFFD\uFFFD', 'Second question', 'Third question']);
  });

  it('lists and replays a session with a 20 MB line', async () => {
    const dir = join(temp, 'big', '.claude', 'projects', SYNTH);
    await mkdir(dir, { recursive: true });
    const id = 'b16b16b1-0000-4000-8000-000000000020';
    const base = { isSidechain: false, cwd: '/home/dev/src/big', sessionId: id, timestamp: '2026-10-02T08:00:00.000Z' };
    const huge = 'x'.repeat(20 * 1024 * 1024);
    const lines = [
      { ...base, parentUuid: null, uuid: 'u1', type: 'user', message: { role: 'user', content: 'Dump the database' } },
      { ...base, parentUuid: 'u1', uuid: 'a1', type: 'assistant', message: { id: 'm1', role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'Bash', input: {} }] } },
      { ...base, parentUuid: 'a1', uuid: 'r1', type: 'user', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: huge }] } },
      { ...base, parentUuid: 'r1', uuid: 'a2', type: 'assistant', message: { id: 'm2', role: 'assistant', content: [{ type: 'text', text: 'That was big.' }] } },
      { ...base, parentUuid: 'a2', uuid: 'u2', type: 'user', message: { role: 'user', content: 'Summarise it' } },
      { ...base, parentUuid: 'u2', uuid: 'a3', type: 'assistant', message: { id: 'm3', role: 'assistant', content: [{ type: 'text', text: 'Rows of x.' }] } },
    ];
    await writeFile(join(dir, `${id}.jsonl`), lines.map((line) => `${JSON.stringify(line)}\n`).join(''));
    const root = join(temp, 'big', '.claude');
    const g = group(root, SYNTH, id);
    const summary = await claudeAdapter.readSummary(g, context());
    expect(summary).toMatchObject({ id, userTurns: 2, userTurnsExact: true, prompts: ['Dump the database', 'Summarise it'], lineage: 'u1' });
    const session = await claudeAdapter.readSession(g, context());
    expect(userTurnTexts(session.messages)).toEqual(['Dump the database', 'Summarise it']);
    const result = session.messages[2]!.blocks[0]!;
    expect(result.type === 'tool_result' && result.output.length).toBe(huge.length);
  });
});

describe('fork', () => {
  /** The project folder's file names, to check that a refused fork writes nothing. */
  const listing = async (g: SessionFileGroup): Promise<string[]> => (await readdir(dirname(g.paths[0]!))).sort();

  async function checkFork(g: SessionFileGroup, atTurn: number, keptLines: readonly number[], oldId: string) {
    const before = await sha256File(g.paths[0]!);
    const original = await rawLines(g.paths[0]!);
    const result = await claudeAdapter.fork(g, { atTurn }, context());
    expect(result).toMatchObject({ agent: 'claude', parentId: oldId, keptUserTurns: atTurn - 1 });
    expect(result.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(result.path).toBe(join(dirname(g.paths[0]!), `${result.id}.jsonl`));
    expect((await stat(result.path)).mode & 0o777).toBe(0o600);
    expect(await sha256File(g.paths[0]!)).toBe(before);
    const forked = await rawLines(result.path);
    expect(forked).toEqual(keptLines.map((i) => withSessionId(original[i]!, `"sessionId":"${oldId}"`, oldId, result.id)));
    const forkGroup: SessionFileGroup = { ...g, paths: [result.path], idHint: result.id };
    return { result, forked, forkGroup };
  }

  it('forks the non-ASCII session at turn 3: the first two turns and their answers, byte for byte', async () => {
    const g = corpus(UNICODE, NON_ASCII_ID);
    const parent = await claudeAdapter.readSession(g, context());
    const { result, forkGroup } = await checkFork(g, 3, [2, 3, 4, 5, 9, 10, 11, 12], NON_ASCII_ID);
    const child = await claudeAdapter.readSession(forkGroup, context());
    expect(userTurnTexts(child.messages)).toEqual(['[a] 请解释这个项目的结构', '[a] part 1: continue, and run ls to check']);
    expect(withoutSource(child.messages)).toEqual(withoutSource(parent.messages.slice(0, 6)));
    expect(child).toMatchObject({ id: result.id, cwd: '/home/dev/src/a-ünïcødé-项目', lineage: parent.lineage, forkedFrom: null });
  });

  it('forks the 4-turn api-server fork file at turn 3 and at turn 4 (the thinking signature survives)', async () => {
    const g = corpus(API, CLAUDE_FORK_ID);
    const three = await checkFork(g, 3, [3, 4, 5, 6, 7, 8, 9, 10], CLAUDE_FORK_ID);
    expect(userTurnTexts((await claudeAdapter.readSession(three.forkGroup, context())).messages)).toEqual([
      '[a] Explain the request lifecycle in this server',
      '[a] run the linter and list the warnings',
    ]);
    const four = await checkFork(g, 4, [3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13], CLAUDE_FORK_ID);
    expect(four.forked.filter((line) => line.includes('"signature":"c2lnLQ=="'))).toHaveLength(1);
    const child = await claudeAdapter.readSession(four.forkGroup, context());
    expect(child.userTurns).toBe(3);
    expect(child.messages.at(-1)!.blocks[0]).toEqual({ type: 'reasoning', summary: 'Considering [a] think about why the warnin step by step.', encrypted: true });
  });

  it('keeps only the active branch of a rewound file, and names the fork when asked', async () => {
    const g = synthetic('01');
    const { forked } = await checkFork(g, 3, [1, 2, 5, 6, 7], synthId('01'));
    expect(forked.some((line) => line.includes(synthUuid(1, 3)) || line.includes('file-history-snapshot'))).toBe(false);
    const named = await claudeAdapter.fork(g, { atTurn: 2, branchName: 'csv-basics' }, context());
    const summary = await claudeAdapter.readSummary({ ...g, paths: [named.path], idHint: named.id }, context());
    expect(summary).toMatchObject({ id: named.id, name: 'csv-basics', title: 'csv-basics', userTurns: 1, prompts: ['How do I parse CSV?'] });
  });

  it('rewrites only the top-level sessionId, whatever its spacing', async () => {
    const g = synthetic('0b');
    const old = synthId('0b');
    const original = await rawLines(g.paths[0]!);
    const result = await claudeAdapter.fork(g, { atTurn: 2 }, context());
    const forked = await rawLines(result.path);
    expect(forked).toEqual([
      withSessionId(original[0]!, `"sessionId": "${old}"`, old, result.id),
      withSessionId(original[1]!, `"sessionId":"${old}"}`, old, result.id),
      withSessionId(original[2]!, `"sessionId":"${old}"}`, old, result.id),
      withSessionId(original[3]!, `"sessionId":"${old}"}`, old, result.id),
    ]);
    const first = JSON.parse(forked[0]!.toString()) as { sessionId: string; message: { content: string } };
    expect(first.sessionId).toBe(result.id);
    expect(first.message.content).toBe(`Why does "sessionId":"${old}" appear in my logs?`);
    const third = JSON.parse(forked[2]!.toString()) as { sessionId: string; toolUseResult: { sessionId: string } };
    expect(third).toMatchObject({ sessionId: result.id, toolUseResult: { sessionId: old } });
  });

  it('copies non-UTF-8 bytes unchanged', async () => {
    const g = synthetic('0c');
    const { forked } = await checkFork(g, 3, [0, 1, 2, 3], synthId('0c'));
    expect(forked[0]!.includes(Buffer.from('caf\xe9 cr\xe8me \xff\xfe', 'latin1'))).toBe(true);
  });

  it.each([1, 0, 8, 2.5, -1])('refuses --at %s on a 6-turn session and writes nothing', async (atTurn) => {
    const g = corpus(UNICODE, NON_ASCII_ID);
    const before = await listing(g);
    const hash = await sha256File(g.paths[0]!);
    await expect(claudeAdapter.fork(g, { atTurn }, context())).rejects.toBeInstanceOf(ForkRangeError);
    expect(await listing(g)).toEqual(before);
    expect(await sha256File(g.paths[0]!)).toBe(hash);
  });

  it('forks a one-turn session only whole (after its turn)', async () => {
    const g = corpus(WEB, WEB_ID);
    const before = await listing(g);
    await expect(claudeAdapter.fork(g, { atTurn: 3 }, context())).rejects.toThrow('valid turns are 2..2');
    expect(await listing(g)).toEqual(before);
  });
});

describe('rewriteSessionId', () => {
  const id = 'new-id';
  it.each([
    ['{"a":1,"sessionId":"old"}', '{"a":1,"sessionId":"new-id"}'],
    ['{ "sessionId" : "old" , "b":[1,{"sessionId":"old"}]}', '{ "sessionId" : "new-id" , "b":[1,{"sessionId":"old"}]}'],
    ['{"x":"{\\"sessionId\\":\\"old\\"}","y":{"sessionId":"old"}}', '{"x":"{\\"sessionId\\":\\"old\\"}","y":{"sessionId":"old"}}'],
    ['{"type":"summary","summary":"s"}', '{"type":"summary","summary":"s"}'],
    ['{"sessionId":null}', '{"sessionId":null}'],
    ['not json "sessionId":"old"', 'not json "sessionId":"old"'],
  ])('%s', (line, want) => {
    expect(rewriteSessionId(Buffer.from(line), id).toString()).toBe(want);
  });
});

describe('the byte scanner a fork and the index step through lines with', () => {
  // Escaped quotes and backslashes, nested objects and arrays holding strings with braces, non-ASCII text.
  const line = Buffer.from(
    JSON.stringify({ type: 'progress', uuid: 'u1', data: { text: 'a "quoted" }] \\ end\\', list: [{ x: '{[' }] }, sessionId: 'été-\\"', after: 'tail', n: 3 }),
  );

  it('reads the fields the index folds, stepping over nested values and strings with escapes', () => {
    expect(indexedValue(line)).toEqual({ type: 'progress', uuid: 'u1', sessionId: 'été-\\"' });
  });

  it('reads every line of every Claude fixture as the parsed line gives the fold its fields', async () => {
    const files = (await readdir(FIXTURES, { recursive: true })).filter((name) => name.includes('claude') && name.endsWith('.jsonl'));
    expect(files.length).toBeGreaterThan(20);
    let read = 0;
    for (const name of files) {
      for (const raw of (await readFile(join(FIXTURES, name))).toString('utf8').split('\n')) {
        if (raw.trim() === '') continue;
        let parsed: unknown;
        try {
          parsed = JSON.parse(raw);
        } catch {
          expect(indexedValue(Buffer.from(raw)), `${name}: ${raw.slice(0, 80)}`).toBeNull();
          continue;
        }
        expect(indexedValue(Buffer.from(raw)), `${name}: ${raw.slice(0, 80)}`).toEqual(foldedFields(parsed as Record<string, unknown>));
        read++;
      }
    }
    expect(read).toBeGreaterThan(400);
  });

  it('reads messages whose content holds tool results, images, tool calls and text with braces', () => {
    const value = {
      type: 'user',
      uuid: 'u',
      parentUuid: null,
      toolUseResult: { stdout: '}'.repeat(100) },
      message: {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 't', content: [{ type: 'text', text: 'out "}' }] },
          { type: 'image', source: { type: 'base64', data: 'A'.repeat(5000) } },
          { type: 'text', text: 'the prompt {"type":"tool_result"}', cache_control: { type: 'ephemeral' } },
          'a string',
        ],
      },
      origin: { kind: 'human' },
    };
    const bytes = Buffer.from(JSON.stringify(value));
    expect(indexedValue(bytes)).toEqual(foldedFields(value));
    expect(indexedValue(bytes)).toEqual({
      type: 'user',
      uuid: 'u',
      parentUuid: null,
      message: { content: [{ type: 'tool_result' }, { type: 'image' }, value.message.content[2], null] },
      origin: { kind: 'human' },
    });
    // Cut anywhere, the line is not read (the fold then counts it as partial or malformed).
    for (let cut = 1; cut < bytes.length; cut += 97) expect(indexedValue(bytes.subarray(0, cut))).toBeNull();
    expect(indexedValue(Buffer.from('{"type":"user","timestamp":"bad \\x escape"}'))).toBeNull();
  });

  it('finds the spans of a top-level string whatever the strings before it hold', () => {
    const spans = topLevelStringSpans(line, 'after');
    expect(spans).toHaveLength(1);
    expect(line.subarray(spans[0]!.start, spans[0]!.end).toString()).toBe('"tail"');
    expect(indexedValue(Buffer.from('{"type":"x","data":{"a":"unterminated'))).toBeNull();
  });
});

/** The fields `indexedValue` reads, taken from the parsed line: what the index's fold sees of it. */
const FOLDED_KEYS = [
  'type', 'uuid', 'parentUuid', 'logicalParentUuid', 'isSidechain', 'timestamp', 'sessionId', 'cwd', 'gitBranch', 'subtype', 'isMeta',
  'isCompactSummary', 'requestSessionId', 'customTitle', 'title', 'agentName', 'name', 'aiTitle', 'summary', 'leafUuid', 'lastPrompt', 'origin',
];

function foldedFields(value: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of FOLDED_KEYS) if (key in value) out[key] = value[key];
  if ('message' in value) {
    const message = value.message;
    if (message === null || typeof message !== 'object' || Array.isArray(message)) out.message = message;
    else {
      const m = message as Record<string, unknown>;
      const kept: Record<string, unknown> = {};
      for (const key of ['model', 'id', 'usage']) if (key in m) kept[key] = m[key];
      if ('content' in m) {
        kept.content = !Array.isArray(m.content)
          ? m.content
          : m.content.map((block: unknown) => {
              if (block === null || typeof block !== 'object' || Array.isArray(block)) return null;
              const type = (block as Record<string, unknown>).type;
              if (type === 'text' || (type !== undefined && typeof type !== 'string')) return block;
              return type === undefined ? {} : { type };
            });
      }
      out.message = kept;
    }
  }
  return out;
}

describe('a parentUuid loop (a corrupt file)', () => {
  it('ends the chain where it first repeats, in the row and the transcript, without hanging', async () => {
    const id = synthId('f7');
    const project = join(temp, 'loop', '.claude');
    const g = group(project, 'loop', id);
    await mkdir(dirname(g.paths[0]!), { recursive: true });
    const base = { sessionId: id, cwd: '/w', isSidechain: false, timestamp: '2026-11-22T01:00:00.000Z' };
    const lines = [
      { ...base, type: 'user', uuid: 'u1', parentUuid: null, message: { role: 'user', content: 'first prompt' } },
      { ...base, type: 'assistant', uuid: 'a1', parentUuid: 'u1', message: { id: 'm1', role: 'assistant', model: 'm', content: [{ type: 'text', text: 'one' }] } },
      // u2 and a2 point at each other: the chain from a2 is [u2, a2] (a2's parent u2, u2's parent a2, seen).
      { ...base, type: 'user', uuid: 'u2', parentUuid: 'a2', message: { role: 'user', content: 'looping prompt' } },
      { ...base, type: 'assistant', uuid: 'a2', parentUuid: 'u2', message: { id: 'm2', role: 'assistant', model: 'm', content: [{ type: 'text', text: 'two' }] } },
    ];
    await writeFile(g.paths[0]!, lines.map((line) => JSON.stringify(line)).join('\n') + '\n');
    const summary = await claudeAdapter.readSummary(g, context());
    expect(summary).toMatchObject({ userTurns: 1, firstPrompt: 'looping prompt', lastPrompt: 'looping prompt' });
    const session = await claudeAdapter.readSession(g, context());
    expect(session.messages.map(messageText)).toEqual(['looping prompt', 'two']);
  });
});

describe('a big prompt line in the index', () => {
  it('counts a prompt whose IDE selection is longer than the index once clipped strings to (a row as show reads it)', async () => {
    const id = synthId('f8');
    const g = group(join(temp, 'ide-big', '.claude'), 'ide-big', id);
    await mkdir(dirname(g.paths[0]!), { recursive: true });
    const base = { sessionId: id, cwd: '/w', isSidechain: false, timestamp: '2026-11-22T01:00:00.000Z' };
    const selection = `<ide_selection>${'const x = 1;\n'.repeat(400)}</ide_selection>`;
    const lines = [
      { ...base, type: 'user', uuid: 'u1', parentUuid: null, message: { role: 'user', content: `${selection}\nthe real prompt` } },
      { ...base, type: 'assistant', uuid: 'a1', parentUuid: 'u1', message: { id: 'm1', role: 'assistant', model: 'm', content: [{ type: 'text', text: 'ok' }] } },
    ];
    await writeFile(g.paths[0]!, lines.map((line) => JSON.stringify(line)).join('\n') + '\n');
    const summary = await claudeAdapter.readSummary(g, context());
    expect(summary).toMatchObject({ userTurns: 1, firstPrompt: 'the real prompt', lastPrompt: 'the real prompt' });
    const session = await claudeAdapter.readSession(g, context());
    expect(userTurnTexts(session.messages)).toEqual(['the real prompt']);
  });
});

describe('plugin slash commands (issue 28, 6): recorded by the real Claude Code 2.1.330 (test/fixtures/claude-2.1.330-plugin)', () => {
  // /codex:setup (allowed-tools) and /codex:review (also disable-model-invocation: true), each answered by the model:
  // one rule for both, whatever the command: a slash command whose expansion the model answered is a turn.
  const ID = '0adc54e7-d6cf-415b-aa6f-04df30fd638f';
  const TURNS = ['[b] What does the api server do?', '/codex:setup --enable-review-gate', '/codex:review --wait', '[b] Thanks, that is all.'];
  const plugin = async (): Promise<SessionFileGroup> => {
    const root = await mkdtemp(join(tmpdir(), 'sessions-claude-plugin-'));
    await cp(join(FIXTURES, 'claude-2.1.330-plugin', '.claude'), join(root, '.claude'), { recursive: true });
    const path = join(root, '.claude', 'projects', '-home-dev-src-b-plugin', `${ID}.jsonl`);
    return { agent: 'claude', paths: [path], idHint: ID, root: join(root, '.claude'), archived: false };
  };

  it('both commands are turns, the same in the row, the transcript and a fork', async () => {
    const group = await plugin();
    expect(await claudeAdapter.readSummary(group, context())).toMatchObject({ userTurns: 4, prompts: TURNS });
    const session = await claudeAdapter.readSession(group, context());
    expect(session.messages.filter((m) => m.userTurn).map((m) => messageText(m))).toEqual(TURNS);
    const fork = await claudeAdapter.fork(group, { atTurn: 4 }, context());
    const forked = await claudeAdapter.readSession({ ...group, paths: [fork.path], idHint: fork.id }, context());
    expect(forked.messages.filter((m) => m.userTurn).map((m) => messageText(m))).toEqual(TURNS.slice(0, 3));
    await rm(dirname(group.root), { recursive: true, force: true });
  });
});
