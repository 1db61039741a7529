import { cp, mkdir, mkdtemp, readFile, readdir, rm, stat, symlink, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ForkRangeError } from '../../src/core/errors.js';
import {
  appendClawMessages,
  clawAdapter,
  clawWorkspaceFingerprint,
  findClawWorkspaces,
  resumeClawInPlace,
} from '../../src/core/formats/claw/index.js';
import type { AdapterContext, SessionFileGroup } from '../../src/core/formats/types.js';
import { messageText, type Message, type Session, type SessionSummary } from '../../src/core/model.js';
import { rawLines, sha256File } from '../helpers/files.js';

const FIXTURES = fileURLToPath(new URL('../fixtures/', import.meta.url));
/** Every copied file gets this mtime, so the mtime fallbacks are part of the table. */
const MTIME = new Date('2026-06-01T00:00:00.000Z');
const HASH_DIR = 'd87be5ec94538b86';

let tmp: string;
let code: string; // copy of home/src/claw-code
let demo: string; // copy of claw-synthetic/demo
let sessions: string; // demo/.claw/sessions

beforeEach(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'sessions-claw-'));
  code = join(tmp, 'claw-code');
  demo = join(tmp, 'demo');
  sessions = join(demo, '.claw', 'sessions');
  await cp(join(FIXTURES, 'home', 'src', 'claw-code'), code, { recursive: true });
  await cp(join(FIXTURES, 'claw-synthetic', 'demo'), demo, { recursive: true });
  await touchAll(tmp);
});

afterEach(async () => {
  await rm(tmp, { recursive: true, force: true });
});

async function touchAll(dir: string): Promise<void> {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) await touchAll(path);
    else await utimes(path, MTIME, MTIME);
  }
}

function context(problems: unknown[] = []): AdapterContext {
  return {
    report: (problem) => problems.push(problem),
    lookup: () => undefined,
    names: () => new Map(),
  };
}

function ms(value: number): string {
  return new Date(value).toISOString();
}

async function sizeOf(...paths: string[]): Promise<number> {
  let total = 0;
  for (const path of paths) total += (await stat(path)).size;
  return total;
}



function withoutSource(messages: readonly Message[]): Omit<Message, 'source'>[] {
  return messages.map(({ source: _source, ...rest }) => rest);
}

function userTurnTexts(session: Session): string[] {
  return session.messages.filter((message) => message.userTurn).map(messageText);
}

async function groupFor(root: string, live: string): Promise<SessionFileGroup> {
  const group = (await clawAdapter.discover(root, () => undefined)).find((g) => g.paths.at(-1) === live);
  if (!group) throw new Error(`no group for ${live}`);
  return group;
}

const summaryDefaults = {
  agent: 'claw',
  gitBranch: null,
  archived: false,
  forkedFrom: null,
  fork: null,
  name: null,
  model: null,
  mtimeMs: MTIME.getTime(),
} as const;

describe('real claw-code samples', () => {
  async function expectedTable(): Promise<Record<string, SessionSummary | null>> {
    const rust = join(code, 'rust');
    const p = (...parts: string[]): string => join(code, ...parts);
    const usage = (input: number, output: number) => ({ input, output, cacheRead: 0, cacheWrite: 0 });
    const row = (
      path: string,
      fields: Pick<SessionSummary, 'id' | 'cwd' | 'prompts' | 'createdAt' | 'updatedAt' | 'usage' | 'userTurnsExact'>,
      size: number,
    ): SessionSummary => ({
      ...summaryDefaults,
      path,
      paths: [path],
      title: fields.prompts[0]!,
      firstPrompt: fields.prompts[0]!,
      lastPrompt: fields.prompts.at(-1)!,
      userTurns: fields.prompts.length,
      size,
      ...fields,
    });
    const table: Record<string, SessionSummary | null> = {
      // `{"messages":[],"version":1}`: an empty shell, not listed
      '.claude/sessions/session-1774998936453.json': null,
      '.claude/sessions/session-1775010002596.json': row(
        p('.claude/sessions/session-1775010002596.json'),
        {
          id: 'session-1775010002596',
          cwd: code,
          prompts: ['Read the file Cargo.toml and tell me the package name'],
          createdAt: ms(1775010002596),
          updatedAt: ms(1775010002596),
          usage: usage(3074, 352),
          userTurnsExact: true,
        },
        1236,
      ),
      // The Python port: no timestamps anywhere, so both come from the file's mtime.
      '.port_sessions/b035f648d5b549aa836ea01f6727ec62.json': row(
        p('.port_sessions/b035f648d5b549aa836ea01f6727ec62.json'),
        {
          id: 'b035f648d5b549aa836ea01f6727ec62',
          cwd: code,
          prompts: ['review MCP tool'],
          createdAt: MTIME.toISOString(),
          updatedAt: MTIME.toISOString(),
          usage: usage(3, 13),
          userTurnsExact: true,
        },
        141,
      ),
      'rust/.claude/sessions/session-1775010047738.json': row(
        p('rust/.claude/sessions/session-1775010047738.json'),
        {
          id: 'session-1775010047738',
          cwd: rust,
          prompts: ['do youy have issues with bash tool calling?', 'test it out'],
          createdAt: ms(1775010047738),
          updatedAt: ms(1775010047738),
          usage: usage(333 + 432 + 750 + 901 + 1016 + 1109, 92 + 172 + 110 + 74 + 52 + 137),
          userTurnsExact: true,
        },
        4388,
      ),
      'rust/.claude/sessions/session-1775010333630.json': row(
        p('rust/.claude/sessions/session-1775010333630.json'),
        {
          id: 'session-1775010333630',
          cwd: rust,
          prompts: ['hello use bash tool for testing'],
          createdAt: ms(1775010333630),
          updatedAt: ms(1775010333630),
          usage: usage(4277 + 4746, 92 + 84),
          userTurnsExact: true,
        },
        2303,
      ),
      // 450 KB, larger than head+tail: the three prompts are found in the head and the tail, the count is a lower bound.
      'rust/.claude/sessions/session-1775011562247.json': row(
        p('rust/.claude/sessions/session-1775011562247.json'),
        {
          id: 'session-1775011562247',
          cwd: rust,
          prompts: ['analyze this repo and make a plan for enhancing tui', 'save this analysis as a md file', 'can you spawn sub-agents?'],
          createdAt: ms(1775011562247),
          updatedAt: ms(1775011562247),
          // usage of all ten assistant messages: every line is read
          usage: usage(879390, 6786),
          userTurnsExact: true,
        },
        451647,
      ),
      // session_meta only (its id session-1775777421902-1 is not its file name): not listed
      'rust/.claw/sessions/session-1775386832313-0.jsonl': null,
      'rust/.claw/sessions/session-1775386842352-0.jsonl': {
        ...row(
          p('rust/.claw/sessions/session-1775386842352-0.jsonl'),
          {
            id: 'session-1775386842352-0',
            cwd: rust,
            prompts: ['doctor --help'],
            createdAt: ms(1775386842352),
            updatedAt: ms(1775386842352),
            usage: null,
            userTurnsExact: true,
          },
          230,
        ),
      },
      'rust/crates/rusty-claude-cli/.claw/sessions/session-newer.jsonl': null,
    };
    return table;
  }

  it('finds the three nested workspaces', async () => {
    expect(await findClawWorkspaces(code, 4)).toEqual([code, join(code, 'rust'), join(code, 'rust', 'crates', 'rusty-claude-cli')]);
    // Depth 1 reaches rust/ but not rust/crates/rusty-claude-cli.
    expect(await findClawWorkspaces(code, 1)).toEqual([code, join(code, 'rust')]);
  });

  it('discovers each workspace without descending into nested ones', async () => {
    const files = async (ws: string): Promise<string[][]> =>
      (await clawAdapter.discover(ws, () => undefined)).map((group) => group.paths.map((path) => relative(code, path)));
    expect(await files(code)).toEqual([
      ['.claude/sessions/session-1774998936453.json'],
      ['.claude/sessions/session-1775010002596.json'],
      ['.port_sessions/b035f648d5b549aa836ea01f6727ec62.json'],
    ]);
    expect(await files(join(code, 'rust'))).toEqual([
      ['rust/.claude/sessions/session-1775010047738.json'],
      ['rust/.claude/sessions/session-1775010333630.json'],
      ['rust/.claude/sessions/session-1775011562247.json'],
      ['rust/.claw/sessions/session-1775386832313-0.jsonl'],
      ['rust/.claw/sessions/session-1775386842352-0.jsonl'],
    ]);
    expect(await files(join(code, 'rust', 'crates', 'rusty-claude-cli'))).toEqual([['rust/crates/rusty-claude-cli/.claw/sessions/session-newer.jsonl']]);
  });

  it('summarises every sample as the hand-written table says (which are listed, which are not)', async () => {
    const table = await expectedTable();
    const seen: Record<string, SessionSummary | null> = {};
    for (const ws of await findClawWorkspaces(code, 4)) {
      for (const group of await clawAdapter.discover(ws, () => undefined)) {
        seen[relative(code, group.paths.at(-1)!)] = await clawAdapter.readSummary(group, context());
      }
    }
    expect(seen).toEqual(table);
  });

  it('replays each listed sample with its user turns in order, and counts the big one exactly', async () => {
    const expected: Record<string, string[]> = {
      '.claude/sessions/session-1775010002596.json': ['Read the file Cargo.toml and tell me the package name'],
      '.port_sessions/b035f648d5b549aa836ea01f6727ec62.json': ['review MCP tool'],
      'rust/.claude/sessions/session-1775010047738.json': ['do youy have issues with bash tool calling?', 'test it out'],
      'rust/.claude/sessions/session-1775010333630.json': ['hello use bash tool for testing'],
      'rust/.claude/sessions/session-1775011562247.json': [
        'analyze this repo and make a plan for enhancing tui',
        'save this analysis as a md file',
        'can you spawn sub-agents?',
      ],
      'rust/.claw/sessions/session-1775386842352-0.jsonl': ['doctor --help'],
    };
    const table = await expectedTable();
    for (const [file, turns] of Object.entries(expected)) {
      const path = join(code, file);
      const session = await clawAdapter.readSession({ agent: 'claw', paths: [path], idHint: null, root: dirname(path), archived: false }, context());
      expect(userTurnTexts(session), file).toEqual(turns);
      const { messages: _messages, malformedLines, ...summary } = session;
      const fullUsage =
        file === 'rust/.claude/sessions/session-1775011562247.json'
          ? {
              input: 4351 + 7220 + 11618 + 66955 + 121123 + 122226 + 135612 + 136414 + 136896 + 136975,
              output: 273 + 213 + 442 + 282 + 213 + 4182 + 792 + 156 + 69 + 164,
              cacheRead: 0,
              cacheWrite: 0,
            }
          : table[file]!.usage;
      expect(summary, file).toEqual({ ...table[file], userTurnsExact: true, usage: fullUsage });
      expect(malformedLines, file).toBe(0);
    }
  });

  it('reads the messages of a legacy session in full: roles, tool calls and results', async () => {
    const path = join(code, 'rust/.claude/sessions/session-1775010333630.json');
    const session = await clawAdapter.readSession({ agent: 'claw', paths: [path], idHint: null, root: code, archived: false }, context());
    const raw = JSON.parse(await readFile(path, 'utf8')) as { messages: { blocks: { output?: string }[] }[] };
    expect(session.messages).toEqual([
      { role: 'user', blocks: [{ type: 'text', text: 'hello use bash tool for testing' }], userTurn: true },
      {
        role: 'assistant',
        blocks: [
          { type: 'text', text: "\n\nHello! I'm ready to help. Let me run a quick bash command to confirm everything is working:" },
          {
            type: 'tool_use',
            id: 'toolu_01EuTzVfUK7iPRBvjZAovzfV',
            name: 'bash',
            input: '{"command": "echo \\"Hello! Bash tool is working. 🎉\\" && date && pwd"}',
          },
        ],
        userTurn: false,
        usage: { input: 4277, output: 92, cacheRead: 0, cacheWrite: 0 },
      },
      {
        role: 'tool',
        blocks: [{ type: 'tool_result', toolUseId: 'toolu_01EuTzVfUK7iPRBvjZAovzfV', output: raw.messages[2]!.blocks[0]!.output, isError: false }],
        userTurn: false,
      },
      {
        role: 'assistant',
        blocks: [expect.objectContaining({ type: 'text' })],
        userTurn: false,
        usage: { input: 4746, output: 84, cacheRead: 0, cacheWrite: 0 },
      },
    ]);
  });
});

describe('synthetic claw sessions', () => {
  const four = (): string => join(sessions, 'session-1776000000000-0.jsonl');
  const rotLive = (): string => join(sessions, 'session-1776100000000-0.jsonl');
  const damaged = (): string => join(sessions, 'session-1776300000000-0.jsonl');

  it('groups rotated files with their live file, skips temp and foreign files, and reads hash subfolders', async () => {
    const groups = await clawAdapter.discover(demo, () => undefined);
    expect(groups.map((group) => group.paths.map((path) => relative(sessions, path)))).toEqual([
      [`${HASH_DIR}/session-1776200000000-0.jsonl`],
      ['empty.jsonl'],
      ['old-export.json'],
      ['session-1776000000000-0.jsonl'],
      ['session-1776100000000-0.rot-1776100050000.jsonl', 'session-1776100000000-0.rot-1776100090000.jsonl', 'session-1776100000000-0.jsonl'],
      ['session-1776300000000-0.jsonl'],
      ['session-1776400000000-0.jsonl'],
    ]);
    expect(groups.every((group) => group.agent === 'claw' && group.root === demo && group.idHint === null && !group.archived)).toBe(true);
    // A `.claw` dir or its `sessions` dir as the root finds the same files.
    const paths = (list: SessionFileGroup[]): string[][] => list.map((group) => [...group.paths]);
    expect(paths(await clawAdapter.discover(join(demo, '.claw'), () => undefined))).toEqual(paths(groups));
    expect(paths(await clawAdapter.discover(sessions, () => undefined))).toEqual(paths(groups));
    expect(paths(await clawAdapter.discover(join(code, '.port_sessions'), () => undefined))).toEqual([
      [join(code, '.port_sessions', 'b035f648d5b549aa836ea01f6727ec62.json')],
    ]);
    expect(await clawAdapter.discover(join(tmp, 'nowhere'), () => undefined)).toEqual([]);
  });

  it('names per-workspace folders by the 64-bit FNV-1a of the workspace path', () => {
    expect(clawWorkspaceFingerprint('')).toBe('cbf29ce484222325');
    expect(clawWorkspaceFingerprint('a')).toBe('af63dc4c8601ec8c');
    expect(clawWorkspaceFingerprint('foobar')).toBe('85944171f73967e8');
    expect(clawWorkspaceFingerprint('/home/dev/src/demo')).toBe(HASH_DIR);
  });

  it('summarises each synthetic session as the hand-written table says', async () => {
    const rot1 = join(sessions, 'session-1776100000000-0.rot-1776100050000.jsonl');
    const rot2 = join(sessions, 'session-1776100000000-0.rot-1776100090000.jsonl');
    const child = join(sessions, HASH_DIR, 'session-1776200000000-0.jsonl');
    const legacy = join(sessions, 'old-export.json');
    const expected: Record<string, SessionSummary | null> = {
      [child]: {
        ...summaryDefaults,
        id: 'session-1776200000000-0',
        path: child,
        paths: [child],
        cwd: '/home/dev/src/demo',
        title: 'investigation',
        name: 'investigation',
        firstPrompt: 'turn one: list the files',
        lastPrompt: 'investigate the permissions',
        userTurns: 2,
        userTurnsExact: true,
        prompts: ['turn one: list the files', 'investigate the permissions'],
        createdAt: ms(1776200000000),
        updatedAt: ms(1776200000000),
        forkedFrom: 'session-1776000000000-0',
        fork: { id: 'session-1776000000000-0', branchName: 'investigation' },
        usage: null,
        size: await sizeOf(child),
      },
      [join(sessions, 'empty.jsonl')]: null,
      [legacy]: {
        ...summaryDefaults,
        id: 'session-1775900000000-7',
        path: legacy,
        paths: [legacy],
        cwd: demo,
        title: 'legacy prompt one',
        firstPrompt: 'legacy prompt one',
        lastPrompt: 'legacy prompt two',
        userTurns: 2,
        userTurnsExact: true,
        prompts: ['legacy prompt one', 'legacy prompt two'],
        createdAt: ms(1775900000000),
        updatedAt: ms(1775900100000),
        usage: null,
        size: await sizeOf(legacy),
      },
      [four()]: {
        ...summaryDefaults,
        id: 'session-1776000000000-0',
        path: four(),
        paths: [four()],
        cwd: '/home/dev/src/demo',
        title: 'turn one: list the files',
        firstPrompt: 'turn one: list the files',
        lastPrompt: 'turn four: thanks',
        userTurns: 4,
        userTurnsExact: true,
        prompts: ['turn one: list the files', 'turn two: read README', 'turn three: try with sudo', 'turn four: thanks'],
        createdAt: ms(1776000000000),
        // session_meta says 1776000001500, but prompt_history entries appended later are newer
        updatedAt: ms(1776000004000),
        model: 'claude-opus-4-6',
        usage: { input: 100 + 130 + 150 + 170 + 180 + 190, output: 20 + 10 + 12 + 8 + 5 + 4, cacheRead: 7, cacheWrite: 5 },
        size: await sizeOf(four()),
      },
      [rotLive()]: {
        ...summaryDefaults,
        id: 'session-1776100000000-0',
        path: rotLive(),
        paths: [rot1, rot2, rotLive()],
        cwd: demo,
        title: 'new turn c',
        firstPrompt: 'new turn c',
        lastPrompt: 'new turn d',
        userTurns: 2,
        userTurnsExact: true,
        prompts: ['new turn c', 'new turn d'],
        createdAt: ms(1776100000000),
        updatedAt: ms(1776100095000),
        usage: null,
        size: await sizeOf(rot1, rot2, rotLive()),
      },
      [damaged()]: {
        ...summaryDefaults,
        id: 'session-1776300000000-0',
        path: damaged(),
        paths: [damaged()],
        cwd: demo,
        title: 'bytes \ufffd\ufffd here',
        firstPrompt: 'bytes \ufffd\ufffd here',
        lastPrompt: 'second prompt',
        userTurns: 2,
        userTurnsExact: true,
        prompts: ['bytes \ufffd\ufffd here', 'second prompt'],
        createdAt: ms(1776300000000),
        updatedAt: ms(1776300000000),
        usage: null,
        size: await sizeOf(damaged()),
      },
      // session_meta and a prompt_history entry, no message: not a conversation
      [join(sessions, 'session-1776400000000-0.jsonl')]: null,
    };
    const seen: Record<string, SessionSummary | null> = {};
    for (const group of await clawAdapter.discover(demo, () => undefined)) seen[group.paths.at(-1)!] = await clawAdapter.readSummary(group, context());
    expect(seen).toEqual(expected);
  });

  it('replays the four-turn session: thinking with signature, tool calls, tool-result-only user messages', async () => {
    const session = await clawAdapter.readSession(await groupFor(demo, four()), context());
    const usage = (input: number, output: number, cacheRead = 0, cacheWrite = 0) => ({ input, output, cacheRead, cacheWrite });
    expect(withoutSource(session.messages)).toEqual([
      { role: 'user', blocks: [{ type: 'text', text: 'turn one: list the files' }], userTurn: true },
      {
        role: 'assistant',
        blocks: [
          { type: 'reasoning', summary: 'Café first; path a/b', encrypted: true },
          { type: 'tool_use', id: 'toolu_01', name: 'bash', input: '{"command":"ls"}' },
        ],
        userTurn: false,
        usage: usage(100, 20, 7, 5),
      },
      { role: 'tool', blocks: [{ type: 'tool_result', toolUseId: 'toolu_01', output: 'README.md\nsrc', isError: false }], userTurn: false },
      { role: 'assistant', blocks: [{ type: 'text', text: 'Two entries: README.md and src.' }], userTurn: false, usage: usage(130, 10) },
      { role: 'user', blocks: [{ type: 'text', text: 'turn two: read README' }], userTurn: true },
      { role: 'assistant', blocks: [{ type: 'tool_use', id: 'toolu_02', name: 'read_file', input: '{"path":"README.md"}' }], userTurn: false, usage: usage(150, 12) },
      { role: 'user', blocks: [{ type: 'tool_result', toolUseId: 'toolu_02', output: 'permission denied', isError: true }], userTurn: false },
      { role: 'assistant', blocks: [{ type: 'text', text: 'I could not read it.' }], userTurn: false, usage: usage(170, 8) },
      { role: 'user', blocks: [{ type: 'text', text: 'turn three:\n  try with sudo' }], userTurn: true },
      { role: 'assistant', blocks: [{ type: 'text', text: 'No sudo here.' }], userTurn: false, usage: usage(180, 5) },
      { role: 'user', blocks: [{ type: 'text', text: 'turn four: thanks' }], userTurn: true },
      { role: 'assistant', blocks: [{ type: 'text', text: "You're welcome." }], userTurn: false, usage: usage(190, 4) },
    ]);
    // Every message points at the start of its own line.
    const data = await readFile(four());
    for (const message of session.messages) {
      expect(message.source?.path).toBe(four());
      expect(data.subarray(message.source!.offset, message.source!.offset + 11).toString()).toBe('{"message":');
      expect(message.source!.offset === 0 || data[message.source!.offset - 1] === 0x0a).toBe(true);
    }
    expect(session.malformedLines).toBe(0);
  });

  it('replays a rotated session from its live snapshot: compaction marker first, rotated history not repeated', async () => {
    const session = await clawAdapter.readSession(await groupFor(demo, rotLive()), context());
    expect(withoutSource(session.messages)).toEqual([
      { role: 'system', blocks: [{ type: 'compaction', summary: 'Earlier: the user asked about a and b.' }], userTurn: false },
      {
        role: 'system',
        blocks: [{ type: 'text', text: 'This session is being continued from a previous conversation. Summary: a and b.' }],
        userTurn: false,
      },
      { role: 'user', blocks: [{ type: 'text', text: 'new turn c' }], userTurn: true },
      { role: 'assistant', blocks: [{ type: 'text', text: 'answer c' }], userTurn: false },
      { role: 'user', blocks: [{ type: 'text', text: 'new turn d' }], userTurn: true },
      { role: 'assistant', blocks: [{ type: 'text', text: 'answer d' }], userTurn: false },
    ]);
    expect(session.paths).toHaveLength(3);
    expect(session.path).toBe(rotLive());
  });

  it('skips malformed, unknown and partial lines, decodes non-UTF-8 bytes as U+FFFD, and accepts CRLF', async () => {
    const session = await clawAdapter.readSession(await groupFor(demo, damaged()), context());
    expect(withoutSource(session.messages)).toEqual([
      { role: 'user', blocks: [{ type: 'text', text: 'bytes \ufffd\ufffd here' }], userTurn: true },
      { role: 'user', blocks: [{ type: 'text', text: 'second prompt' }], userTurn: true },
      { role: 'assistant', blocks: [{ type: 'text', text: 'an answer' }], userTurn: false },
    ]);
    // garbage line + unknown role + partial last line; the unknown record type is skipped without counting
    expect(session.malformedLines).toBe(3);
  });

  it('reads a legacy object with a compaction and its own session_id, whole, whatever budgets a caller passes', async () => {
    const legacy = join(sessions, 'old-export.json');
    const group = await groupFor(demo, legacy);
    const session = await clawAdapter.readSession(group, context());
    expect(session.messages).toEqual([
      { role: 'system', blocks: [{ type: 'compaction', summary: 'Older work summarised.' }], userTurn: false },
      { role: 'user', blocks: [{ type: 'text', text: 'legacy prompt one' }], userTurn: true },
      { role: 'assistant', blocks: [{ type: 'text', text: 'legacy answer' }], userTurn: false },
      { role: 'user', blocks: [{ type: 'text', text: 'legacy prompt two' }], userTurn: true },
    ]);
    // The file is 422 bytes: a 205-byte head and a 170-byte tail would not see it all.
    const summary = await clawAdapter.readSummary(group, context());
    expect(summary).toMatchObject({
      id: 'session-1775900000000-7',
      createdAt: ms(1775900000000),
      updatedAt: ms(1775900100000),
      firstPrompt: 'legacy prompt one',
      lastPrompt: 'legacy prompt two',
      userTurns: 2,
      userTurnsExact: true,
    });
  });

  it('reads a legacy object that claw later appended JSONL lines to, and forks it', async () => {
    // claw resumes a legacy file by appending message lines after the object (then cannot read it back itself).
    const path = join(sessions, 'session-1775800000000.json');
    const appended = '{"message":{"blocks":[{"text":"appended prompt","type":"text"}],"role":"user"},"type":"message"}';
    await writeFile(
      path,
      `{"messages":[{"blocks":[{"text":"first","type":"text"}],"role":"user"},{"blocks":[{"text":"ok","type":"text"}],"role":"assistant"}],"version":1}\n${appended}\n`,
    );
    const group = await groupFor(demo, path);
    const session = await clawAdapter.readSession(group, context());
    expect(userTurnTexts(session)).toEqual(['first', 'appended prompt']);
    expect(session).toMatchObject({ id: 'session-1775800000000', createdAt: ms(1775800000000), malformedLines: 0 });
    expect(await clawAdapter.readSummary(group, context())).toMatchObject({ userTurns: 2, userTurnsExact: true });
    const fork = await clawAdapter.fork(group, { atTurn: 2 }, context());
    expect((await rawLines(fork.path)).slice(1).map(String)).toEqual([
      '{"message":{"blocks":[{"text":"first","type":"text"}],"role":"user"},"type":"message"}',
      '{"message":{"blocks":[{"text":"ok","type":"text"}],"role":"assistant"},"type":"message"}',
    ]);
  });

  it('reports an unreadable sessions folder once and still lists the rest', async () => {
    const workspace = join(tmp, 'looped');
    await mkdir(join(workspace, '.claw'), { recursive: true });
    await symlink(join(workspace, '.claw', 'sessions'), join(workspace, '.claw', 'sessions')); // ELOOP, even for root
    await cp(join(code, '.port_sessions'), join(workspace, '.port_sessions'), { recursive: true });
    const problems: unknown[] = [];
    const groups = await clawAdapter.discover(workspace, (problem) => problems.push(problem));
    expect(problems).toEqual([{ path: join(workspace, '.claw', 'sessions'), message: expect.stringContaining('ELOOP') }]);
    expect(groups.map((group) => group.paths)).toEqual([[join(workspace, '.port_sessions', 'b035f648d5b549aa836ea01f6727ec62.json')]]);
    // A file that cannot be read makes readSummary throw (the catalog reports it); nothing is printed.
    await symlink(join(workspace, 'nowhere.jsonl'), join(sessions, 'session-dangling.jsonl'));
    await expect(clawAdapter.readSummary({ ...groups[0]!, paths: [join(sessions, 'session-dangling.jsonl')] }, context())).rejects.toThrow();
  });

  it('lists and replays a session holding a field larger than 1 MB', async () => {
    const path = join(sessions, 'session-1776500000000-0.jsonl');
    const big = `${'é'.repeat(300_000)}${'x'.repeat(900_000)}`;
    const lines = [
      '{"created_at_ms":1776500000000,"session_id":"session-1776500000000-0","type":"session_meta","updated_at_ms":1776500000000,"version":1}',
      '{"message":{"blocks":[{"text":"dump the log","type":"text"}],"role":"user"},"type":"message"}',
      `{"message":{"blocks":[{"is_error":false,"output":${JSON.stringify(big)},"tool_name":"bash","tool_use_id":"t1","type":"tool_result"}],"role":"tool"},"type":"message"}`,
      '{"message":{"blocks":[{"text":"summarise it","type":"text"}],"role":"user"},"type":"message"}',
      '{"message":{"blocks":[{"text":"It is long.","type":"text"}],"role":"assistant"},"type":"message"}',
    ];
    await writeFile(path, `${lines.join('\n')}\n`);
    const group = await groupFor(demo, path);
    const summary = await clawAdapter.readSummary(group, context());
    expect(summary).toMatchObject({ userTurns: 2, userTurnsExact: true, firstPrompt: 'dump the log', lastPrompt: 'summarise it' });
    const session = await clawAdapter.readSession(group, context());
    expect(userTurnTexts(session)).toEqual(['dump the log', 'summarise it']);
    expect(session.messages[1]!.blocks[0]).toEqual({ type: 'tool_result', toolUseId: 't1', output: big, isError: false });
    const fork = await clawAdapter.fork(group, { atTurn: 2 }, context());
    const forked = await rawLines(fork.path);
    expect(forked.slice(1).map((line) => line.toString())).toEqual(lines.slice(1, 3));
  });
});

describe('fork', () => {
  const four = (): string => join(sessions, 'session-1776000000000-0.jsonl');

  it('at turn 3 of four writes a new 0600 file with turns 1–2 and their answers, kept lines byte for byte', async () => {
    const source = four();
    const before = await sha256File(source);
    const now = new Date(1777000000000);
    const result = await clawAdapter.fork(await groupFor(demo, source), { atTurn: 3, branchName: '  retry  ', now }, context());

    expect(result).toEqual({
      agent: 'claw',
      id: expect.stringMatching(/^session-1777000000000-\d+$/),
      path: join(sessions, `${result.id}.jsonl`),
      parentId: 'session-1776000000000-0',
      keptUserTurns: 2,
    });
    expect(await sha256File(source)).toBe(before);
    expect((await stat(result.path)).mode & 0o777).toBe(0o600);

    const sourceLines = await rawLines(source);
    const forkLines = await rawLines(result.path);
    const metaText = forkLines[0]!.toString();
    expect(metaText).toBe(
      `{"created_at_ms":1777000000000,"fork":{"branch_name":"retry","parent_session_id":"session-1776000000000-0"},` +
        `"model":"claude-opus-4-6","session_id":"${result.id}","type":"session_meta","updated_at_ms":1777000000000,` +
        `"version":1,"workspace_root":"/home/dev/src/demo"}`,
    );
    // Source lines 1..10: prompt_history and messages up to the answer of turn 2; the prompt_history entry of
    // turn 3 (line 11) goes with the dropped turn.
    expect(forkLines.slice(1)).toEqual(sourceLines.slice(1, 11));
    expect((await readFile(result.path)).at(-1)).toBe(0x0a);
    // The thinking block's escapes and signature survive as written.
    expect(forkLines[3]!.toString()).toContain('"signature":"EqQBCkgIARABGAIiQL+sig/with+slashes==","thinking":"Caf\\u00e9 first; path a\\/b"');

    const original = await clawAdapter.readSession(await groupFor(demo, source), context());
    const copy = await clawAdapter.readSession(await groupFor(demo, result.path), context());
    expect(userTurnTexts(copy)).toEqual(['turn one: list the files', 'turn two: read README']);
    expect(withoutSource(copy.messages)).toEqual(withoutSource(original.messages.slice(0, 8)));
    expect(copy).toMatchObject({
      id: result.id,
      forkedFrom: 'session-1776000000000-0',
      fork: { id: 'session-1776000000000-0', branchName: 'retry' },
      name: 'retry',
      cwd: '/home/dev/src/demo',
      model: 'claude-opus-4-6',
      createdAt: ms(1777000000000),
      // the kept prompt_history entries are older than the fork itself
      updatedAt: ms(1777000000000),
    });
  });

  it('refuses turns out of range and writes nothing', async () => {
    const group = await groupFor(demo, four());
    const listing = async (): Promise<string[]> => (await readdir(sessions)).sort();
    const before = await listing();
    for (const atTurn of [0, 1, 6, 2.5]) {
      await expect(clawAdapter.fork(group, { atTurn }, context())).rejects.toBeInstanceOf(ForkRangeError);
    }
    await expect(clawAdapter.fork(group, { atTurn: 6 }, context())).rejects.toThrow('valid turns are 2..5');
    expect(await listing()).toEqual(before);
  });

  it('never overwrites: a taken name moves the fork to the next counter', async () => {
    const group = await groupFor(demo, four());
    const now = new Date(1777000000000);
    const first = await clawAdapter.fork(group, { atTurn: 2, now }, context());
    const counter = Number(first.id.split('-').at(-1));
    const taken = join(sessions, `session-1777000000000-${counter + 1}.jsonl`);
    await writeFile(taken, 'occupied\n');
    const second = await clawAdapter.fork(group, { atTurn: 2, now }, context());
    expect(second.id).toBe(`session-1777000000000-${counter + 2}`);
    expect(await readFile(taken, 'utf8')).toBe('occupied\n');
    expect(second.path).not.toBe(first.path);
    expect(first.path).toBe(join(sessions, `${first.id}.jsonl`));
  });

  it('keeps the compaction record of a rotated session and reads only its live file', async () => {
    const live = join(sessions, 'session-1776100000000-0.jsonl');
    const result = await clawAdapter.fork(await groupFor(demo, live), { atTurn: 2 }, context());
    const kept = (await rawLines(result.path)).slice(1);
    expect(kept).toEqual((await rawLines(live)).slice(1, 5));
    expect(kept[0]!.toString()).toBe('{"count":1,"removed_message_count":4,"summary":"Earlier: the user asked about a and b.","type":"compaction"}');
    expect(JSON.parse((await rawLines(result.path))[0]!.toString())).toEqual({
      created_at_ms: expect.any(Number),
      fork: { parent_session_id: 'session-1776100000000-0' },
      session_id: result.id,
      type: 'session_meta',
      updated_at_ms: expect.any(Number),
      version: 1,
    });
  });

  it('copies non-UTF-8 bytes untouched and drops lines claw could not load', async () => {
    const source = join(sessions, 'session-1776300000000-0.jsonl');
    const result = await clawAdapter.fork(await groupFor(demo, source), { atTurn: 2 }, context());
    const kept = (await rawLines(result.path)).slice(1);
    expect(kept).toEqual([(await rawLines(source))[2]!]);
    expect(kept[0]!.includes(Buffer.from([0xff, 0xfe]))).toBe(true);
  });

  it('turns a legacy JSON session into a JSONL fork whose message bodies are the original bytes', async () => {
    const source = join(code, 'rust/.claude/sessions/session-1775011562247.json');
    const before = await sha256File(source);
    const group: SessionFileGroup = { agent: 'claw', paths: [source], idHint: null, root: join(code, 'rust'), archived: false };
    const result = await clawAdapter.fork(group, { atTurn: 3 }, context());
    expect(dirname(result.path)).toBe(dirname(source));
    expect(result.parentId).toBe('session-1775011562247');
    expect(await sha256File(source)).toBe(before);

    const sourceBytes = await readFile(source);
    const legacy = JSON.parse(sourceBytes.toString('utf8')) as { messages: unknown[] };
    const lines = (await rawLines(result.path)).slice(1);
    const cut = legacy.messages.findIndex((m) => JSON.stringify(m).includes('can you spawn sub-agents?'));
    expect(lines).toHaveLength(cut);
    lines.forEach((line, index) => {
      const text = line.toString('utf8');
      expect(text.startsWith('{"message":') && text.endsWith(',"type":"message"}')).toBe(true);
      const body = line.subarray('{"message":'.length, line.length - ',"type":"message"}'.length);
      expect(sourceBytes.includes(body)).toBe(true);
      expect(JSON.parse(text)).toEqual({ message: legacy.messages[index], type: 'message' });
    });
    const copy = await clawAdapter.readSession({ ...group, paths: [result.path] }, context());
    expect(userTurnTexts(copy)).toEqual(['analyze this repo and make a plan for enhancing tui', 'save this analysis as a md file']);
    expect(copy.forkedFrom).toBe('session-1775011562247');
  });
});

describe('resume in place', () => {
  const four = (): string => join(sessions, 'session-1776000000000-0.jsonl');

  it('appendClawMessages appends exactly one alphabetical line per message to the same file', async () => {
    const path = four();
    const before = await readFile(path);
    const inode = (await stat(path)).ino;
    await appendClawMessages(path, [
      { role: 'user', blocks: [{ type: 'text', text: 'turn five: one more' }] },
      {
        role: 'assistant',
        blocks: [
          { type: 'reasoning', summary: 'think', encrypted: true, signature: 'sig==' },
          { type: 'tool_use', id: 'toolu_09', name: 'bash', input: '{"command":"pwd"}' },
        ],
        usage: { input: 11, output: 3, cacheRead: 2, cacheWrite: 1 },
      },
      { role: 'tool', blocks: [{ type: 'tool_result', toolUseId: 'toolu_09', output: '/home/dev/src/demo', isError: false }] },
    ]);
    const after = await readFile(path);
    expect((await stat(path)).ino).toBe(inode);
    expect(after.subarray(0, before.length)).toEqual(before);
    expect(after.subarray(before.length).toString('utf8')).toBe(
      '{"message":{"blocks":[{"text":"turn five: one more","type":"text"}],"role":"user"},"type":"message"}\n' +
        '{"message":{"blocks":[{"signature":"sig==","thinking":"think","type":"thinking"},{"id":"toolu_09","input":"{\\"command\\":\\"pwd\\"}","name":"bash","type":"tool_use"}],' +
        '"role":"assistant","usage":{"cache_creation_input_tokens":1,"cache_read_input_tokens":2,"input_tokens":11,"output_tokens":3}},"type":"message"}\n' +
        '{"message":{"blocks":[{"is_error":false,"output":"/home/dev/src/demo","tool_name":"bash","tool_use_id":"toolu_09","type":"tool_result"}],"role":"tool"},"type":"message"}\n',
    );

    const session = await clawAdapter.readSession(await groupFor(demo, path), context());
    expect(session.userTurns).toBe(5);
    expect(withoutSource(session.messages.slice(-3))).toEqual([
      { role: 'user', blocks: [{ type: 'text', text: 'turn five: one more' }], userTurn: true },
      {
        role: 'assistant',
        blocks: [
          { type: 'reasoning', summary: 'think', encrypted: true },
          { type: 'tool_use', id: 'toolu_09', name: 'bash', input: '{"command":"pwd"}' },
        ],
        userTurn: false,
        usage: { input: 11, output: 3, cacheRead: 2, cacheWrite: 1 },
      },
      { role: 'tool', blocks: [{ type: 'tool_result', toolUseId: 'toolu_09', output: '/home/dev/src/demo', isError: false }], userTurn: false },
    ]);
  });

  it('refuses to append to a legacy object or a missing file, changing nothing', async () => {
    const legacy = join(sessions, 'old-export.json');
    const before = await sha256File(legacy);
    const message = { role: 'user' as const, blocks: [{ type: 'text' as const, text: 'hi' }] };
    await expect(appendClawMessages(legacy, [message])).rejects.toThrow('not a claw JSONL session');
    expect(await sha256File(legacy)).toBe(before);
    const missing = join(sessions, 'session-missing.jsonl');
    await expect(appendClawMessages(missing, [message])).rejects.toThrow();
    await expect(stat(missing)).rejects.toThrow();
  });

  it('resumeClawInPlace names the existing live file, never a rotated one or a new one', async () => {
    const live = join(sessions, 'session-1776100000000-0.jsonl');
    const history = await resumeClawInPlace(await groupFor(demo, live), context());
    expect(history.kind).toBe('resumed');
    if (history.kind !== 'resumed') return;
    expect(history.id).toBe('session-1776100000000-0');
    expect(history.path).toBe(live);
    expect(history.history.filter((m) => m.userTurn).map(messageText)).toEqual(['new turn c', 'new turn d']);
  });
});

describe('findClawWorkspaces', () => {
  it('skips node_modules, .git, target and dot directories, and honours the depth', async () => {
    for (const dir of ['node_modules/pkg', '.git/x', 'proj/target/debug', '.cache/y']) await mkdir(join(tmp, dir, '.claw', 'sessions'), { recursive: true });
    await mkdir(join(tmp, 'proj', 'app', '.port_sessions'), { recursive: true });
    expect(await findClawWorkspaces(tmp, 4)).toEqual(
      [code, join(code, 'rust'), join(code, 'rust', 'crates', 'rusty-claude-cli'), demo, join(tmp, 'proj', 'app')].sort(),
    );
    expect(await findClawWorkspaces(tmp, 1)).toEqual([code, demo]);
    await expect(findClawWorkspaces(join(tmp, 'missing'), 2)).rejects.toThrow();
  });
});
