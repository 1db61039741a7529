import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ForkRangeError } from '../../src/core/errors.js';
import { ADAPTER_LIST, ADAPTERS } from '../../src/core/formats/index.js';
import type { AdapterContext, SessionFileGroup } from '../../src/core/formats/types.js';
import { claudeProjectFolder } from '../../src/core/formats/claude/discovery.js';
import { CLAW_IMAGE_TEXT } from '../../src/core/formats/claw/handoff.js';
import { geminiProjectFolder, geminiSlug } from '../../src/core/formats/gemini/handoff.js';
import { handoffConversation } from '../../src/core/handoff/conversation.js';
import { HANDOFF_TARGETS, handOff, HandoffError, handoffNote, NO_RESULT_RECORDED } from '../../src/core/handoff/index.js';
import { AGENTS, messageText, type Agent, type Message, type Session } from '../../src/core/model.js';
import { DATABASE_DUMPS, loadAgentDatabase } from '../helpers/agent-databases.js';
import { sha256File } from '../helpers/files.js';

const FIXTURES = fileURLToPath(new URL('../fixtures/', import.meta.url));
const NOW = new Date('2026-11-24T10:00:00.000Z');
const context: AdapterContext = { report: () => undefined, lookup: () => undefined, names: () => new Map() };

/** Real sessions of each agent, each with a tool call and its result before its third turn, and reasoning after. */
const SOURCES: Readonly<Record<Agent, SessionFileGroup>> = {
  codex: group('codex', join(FIXTURES, 'home/.codex'), 'home/.codex/sessions/2026/11/22/rollout-2026-11-22T01-44-42-01a200ed-500e-74e1-88bc-7c2f05604fd8.jsonl'),
  claude: group('claude', join(FIXTURES, 'home/.claude'), 'home/.claude/projects/-home-dev-src-a-api-server/5a1999c3-3fef-4a8c-8969-b584a1892bda.jsonl'),
  claw: group('claw', join(FIXTURES, 'claw-synthetic/demo'), 'claw-synthetic/demo/.claw/sessions/session-1776000000000-0.jsonl'),
  copilot: {
    ...group('copilot', join(FIXTURES, 'copilot-1.0.102/.copilot'), 'copilot-1.0.102/.copilot/session-state/1d1624b9-fa0c-4666-86b5-81f2e446e514/events.jsonl'),
    paths: [
      join(FIXTURES, 'copilot-1.0.102/.copilot/session-state/1d1624b9-fa0c-4666-86b5-81f2e446e514/workspace.yaml'),
      join(FIXTURES, 'copilot-1.0.102/.copilot/session-state/1d1624b9-fa0c-4666-86b5-81f2e446e514/events.jsonl'),
    ],
  },
  gemini: group('gemini', join(FIXTURES, 'gemini-0.61.0/.gemini'), 'gemini-0.61.0/.gemini/tmp/g-api-server/chats/session-2026-11-25T02-14-c736521c.jsonl'),
  qwen: group('qwen', join(FIXTURES, 'qwen-0.24.4/.qwen'), 'qwen-0.24.4/.qwen/projects/-home-dev-src-q-api-server/chats/102c84f4-79ed-4d67-9fdd-e722d4a36748.jsonl'),
  // One conversation of the database the real opencode 1.18.33 wrote (examples/home): its own --fork of the main session (4 turns).
  opencode: {
    ...group('opencode', join(FIXTURES, '../../examples/home/.local/share/opencode'), '../../examples/home/.local/share/opencode/opencode.db'),
    idHint: 'ses_def8a7e14ffeEyddEP23wkkCBZ',
  },
  droid: group('droid', join(FIXTURES, 'droid-0.225.2/.factory'), 'droid-0.225.2/.factory/sessions/-home-dev-src-d-api-server/ea64e05b-c101-4a66-a855-13c5b0dfbc39.jsonl'),
  pi: group('pi', join(FIXTURES, 'pi-0.74.2/.pi/agent'), 'pi-0.74.2/.pi/agent/sessions/--home-dev-src-p-api-server--/2026-11-28T23-32-16-793Z_01a22480-9719-72b3-ac49-695237831be6.jsonl'),
  // One conversation of the database the real Kilo Code CLI 7.7.9 wrote (its dump, loaded): four turns, a tool call at the second.
  kilo: {
    ...group('kilo', join(FIXTURES, 'contract/kilo/kilo'), 'contract/kilo/kilo/kilo.db'),
    idHint: 'ses_ddb74a3bcffef9V5TQ5zcOGfBN',
  },
  auggie: group('auggie', join(FIXTURES, 'auggie-0.36.0/.augment'), 'auggie-0.36.0/.augment/sessions/9547752f-264b-4591-bad5-7c18f2271bf2.json'),
};

function group(agent: Agent, root: string, path: string): SessionFileGroup {
  return { agent, paths: [join(FIXTURES, path)], idHint: null, root, archived: false };
}

/** What a hand-off must carry, agent-neutral: prompts, answers, tool calls (arguments parsed) and their outputs. */
type Entry =
  | { readonly user: string }
  | { readonly assistant: string }
  | { readonly call: string; readonly args: unknown }
  | { readonly result: string };

function essence(messages: readonly Message[], beforeTurn = Infinity): Entry[] {
  const entries: Entry[] = [];
  let turn = 0;
  for (const message of messages) {
    if (message.userTurn && ++turn >= beforeTurn) break;
    if (message.userTurn) {
      entries.push({ user: messageText(message) });
      continue;
    }
    if (message.role === 'system' || message.role === 'user') {
      if (message.blocks.some((block) => block.type === 'tool_result')) entries.push(...results(message));
      continue; // context, notes, compaction markers
    }
    for (const block of message.blocks) {
      if (block.type === 'text' && message.role === 'assistant' && block.text.trim() !== '') entries.push({ assistant: block.text });
      else if (block.type === 'tool_use') entries.push({ call: block.name, args: parsed(block.input) });
      else if (block.type === 'tool_result') entries.push({ result: block.output });
    }
  }
  return entries;
}

function results(message: Message): Entry[] {
  return message.blocks.flatMap((block) => (block.type === 'tool_result' ? [{ result: block.output }] : []));
}

/** Arguments as a value; a freeform tool's input (apply_patch) is carried as `{"input": …}` where calls take objects. */
function parsed(input: string): unknown {
  try {
    const value: unknown = JSON.parse(input);
    if (typeof value === 'object' && value !== null && Object.keys(value).length === 1 && typeof (value as { input?: unknown }).input === 'string') {
      return (value as { input: string }).input;
    }
    return value;
  } catch {
    return input;
  }
}

const OPENCODE_HOME = (): string => join(tmp, '.local', 'share', 'opencode');

/** An agent's database in the temp home, loaded once from the dump of one its real CLI wrote (it makes its database, a hand-off only adds to it). */
async function storeDatabase(agent: Agent): Promise<string> {
  if (agent !== 'opencode' && agent !== 'kilo') throw new Error(`no database dump of ${agent}`);
  const { folder, db } = DATABASE_DUMPS[agent];
  const path = join(tmp, folder, db);
  return existsSync(path) ? path : loadAgentDatabase(agent, tmp);
}

const opencodeDatabase = (): Promise<string> => storeDatabase('opencode');

let tmp: string;
beforeEach(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'sessions-handoff-'));
});
afterEach(async () => {
  await rm(tmp, { recursive: true, force: true });
});

/** Hand `source` off to `to` in temp homes (claw writes into the cwd: a temp one) and read it back as the target agent finds it. */
async function handOffAndRead(source: Session, to: Agent, atTurn: number): Promise<{ back: Session; path: string; id: string; cwd: string }> {
  const cwd = join(tmp, 'work', 'project ü');
  await mkdir(cwd, { recursive: true });
  // Each agent's home folder under the temp home (`--home tmp`): claw has none, it writes into the cwd.
  const homes: Partial<Record<Agent, string>> = Object.fromEntries(
    ADAPTER_LIST.flatMap((adapter) => (adapter.locations.homeFolder === null ? [] : [[adapter.agent, join(tmp, adapter.locations.homeFolder)]])),
  );
  if (ADAPTERS[to].store !== undefined) await storeDatabase(to);
  const result = await handOff({ ...source, cwd }, { atTurn, to, now: NOW }, homes);
  expect(result).toMatchObject({ agent: to, parentId: source.id, keptUserTurns: atTurn - 1 });
  const root = to === 'claw' ? cwd : homes[to]!;
  const found = (await ADAPTERS[to].discover(root, () => undefined)).filter((g) => g.paths.includes(result.path));
  expect(found, `${to} finds the new session where it looks for ${cwd}'s sessions`).toHaveLength(1);
  let group = found[0]!;
  const store = ADAPTERS[to].store;
  if (store !== undefined) {
    // One database holds every session of the agent (opencode, Kilo Code): the new one is a row of it.
    expect((await store.readRows(group, context)).filter((row) => row.id === result.id)).toHaveLength(1);
    group = { ...group, idHint: result.id };
  }
  const back = await ADAPTERS[to].readSession(group, context);
  expect(back.id).toBe(result.id);
  return { back, path: result.path, id: result.id, cwd };
}

describe('hand-off between every pair of agents, read back by the target adapter', () => {
  for (const from of AGENTS) {
    for (const to of HANDOFF_TARGETS.filter((agent) => agent !== from)) {
      it(`${from} → ${to}: every cut keeps the same prompts, answers and paired tool calls as the source's first N-1 turns`, async () => {
        const source = await ADAPTERS[from].readSession(SOURCES[from], context);
        const before = await sha256File(source.path);
        expect(source.userTurns).toBeGreaterThanOrEqual(4);
        for (let atTurn = 2; atTurn <= source.userTurns; atTurn++) {
          const { back, cwd } = await handOffAndRead(source, to, atTurn);
          const expected = essence(source.messages, atTurn);
          // Not vacuous: the carried part holds prompts and answers, and from turn 3 on a tool call with its result.
          expect(expected.filter((entry) => 'user' in entry)).toHaveLength(atTurn - 1);
          if (atTurn >= 3) expect(expected.some((entry) => 'call' in entry) && expected.some((entry) => 'result' in entry)).toBe(true);
          expect(essence(back.messages), `${from} → ${to} at turn ${atTurn}`).toEqual(expected);
          expect(back.userTurns).toBe(atTurn - 1);
          expect(back.cwd).toBe(cwd);
          expect(back.messages.flatMap((m) => m.blocks).some((block) => block.type === 'reasoning'), 'reasoning is dropped').toBe(false);
          // The note says where the conversation came from, before the first prompt.
          const note = handoffNote({ agent: from, id: source.id, atTurn }, to);
          const first = back.messages.findIndex((m) => m.userTurn);
          expect(back.messages.slice(0, first).map((m) => messageText(m).trim())).toContain(note);
        }
        expect(await sha256File(source.path), 'the source is never touched').toBe(before);
      });
    }
  }

  it('the fork metadata points at the source where the format has a field for it (Codex forked_from_id, claw fork.parent_session_id)', async () => {
    const claude = await ADAPTERS.claude.readSession(SOURCES.claude, context);
    expect((await handOffAndRead(claude, 'codex', 3)).back.forkedFrom).toBe(claude.id);
    expect((await handOffAndRead(claude, 'claw', 3)).back.forkedFrom).toBe(claude.id);
    const codex = await ADAPTERS.codex.readSession(SOURCES.codex, context);
    const { back } = await handOffAndRead(codex, 'claude', 3);
    expect(back.forkedFrom).toBeNull(); // Claude Code's lines have no field for a parent: the note names it
    // Gemini CLI's metadata record and Qwen Code's first record carry forkedFrom.
    expect((await handOffAndRead(codex, 'gemini', 3)).back).toMatchObject({ forkedFrom: codex.id, fork: { id: codex.id, atTurn: 3 } });
    expect((await handOffAndRead(claude, 'qwen', 3)).back).toMatchObject({ forkedFrom: claude.id, fork: { id: claude.id } });
    // opencode's session metadata (where its forks written here name their parent).
    expect((await handOffAndRead(codex, 'opencode', 3)).back).toMatchObject({ forkedFrom: codex.id, fork: { id: codex.id, atTurn: 3 } });
  });

  it('a source whose id is not a UUID (opencode ses_…, claw session-…) goes to Codex in handed_off_from, never in forked_from_id (Codex 0.169 refuses the rollout)', async () => {
    for (const from of ['opencode', 'claw'] as const) {
      const source = await ADAPTERS[from].readSession(SOURCES[from], context);
      expect(source.id).not.toMatch(/^[0-9a-f]{8}-/);
      const { back, path } = await handOffAndRead(source, 'codex', 2);
      const meta = (JSON.parse((await readFile(path, 'utf8')).split('\n')[0]!) as { type: string; payload: Record<string, unknown> }).payload;
      expect(meta).not.toHaveProperty('forked_from_id');
      expect(meta.handed_off_from).toEqual({ agent: from, id: source.id });
      expect(back.forkedFrom, 'sessions still reads the source').toBe(source.id);
    }
    // A UUID source keeps Codex's own field.
    const claude = await ADAPTERS.claude.readSession(SOURCES.claude, context);
    const meta = (JSON.parse((await readFile((await handOffAndRead(claude, 'codex', 2)).path, 'utf8')).split('\n')[0]!) as { payload: Record<string, unknown> }).payload;
    expect(meta).toMatchObject({ forked_from_id: claude.id });
    expect(meta).not.toHaveProperty('handed_off_from');
  });

  it('writes a Gemini CLI session in the project folder Gemini CLI 0.61 finds for the cwd, claiming one with its marker when none exists', async () => {
    const codex = await ADAPTERS.codex.readSession(SOURCES.codex, context);
    const { back, path, id, cwd } = await handOffAndRead(codex, 'gemini', 3);
    // "project ü" → Gemini CLI's slug "project"; the marker names the cwd (Gemini CLI finds the folder by it).
    expect(path).toBe(join(tmp, '.gemini', 'tmp', 'project', 'chats', `session-2026-11-24T10-00-${id.slice(0, 8)}.jsonl`));
    expect(await readFile(join(tmp, '.gemini', 'tmp', 'project', '.project_root'), 'utf8')).toBe(cwd);
    const lines = (await readFile(path, 'utf8')).trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines[0]).toEqual({
      sessionId: id,
      projectHash: createHash('sha256').update(cwd).digest('hex'),
      startTime: NOW.toISOString(),
      lastUpdated: NOW.toISOString(),
      kind: 'main',
      forkedFrom: { sessionId: codex.id, atTurn: 3 },
    });
    // The tool call holds its result, as Gemini CLI 0.61 records a call it ran.
    const step = lines.find((line) => Array.isArray(line.toolCalls)) as { toolCalls: { id: string; name: string; result: { functionResponse: { id: string; name: string } }[]; status: string }[] };
    expect(step.toolCalls[0]!.result[0]!.functionResponse).toMatchObject({ id: step.toolCalls[0]!.id, name: step.toolCalls[0]!.name });
    expect(back.messages[0]).toMatchObject({ role: 'user', userTurn: false, blocks: [{ type: 'text', text: `${handoffNote({ agent: 'codex', id: codex.id, atTurn: 3 }, 'gemini')}\n` }] });
    // A second hand-off from the same cwd goes to the same folder.
    const again = await handOffAndRead(codex, 'gemini', 2);
    expect(again.path.startsWith(join(tmp, '.gemini', 'tmp', 'project', 'chats'))).toBe(true);
  });

  it('a name given with --name titles the hand-off in Gemini CLI (summary) and Qwen Code (its /rename record)', async () => {
    const codex = await ADAPTERS.codex.readSession(SOURCES.codex, context);
    const cwd = join(tmp, 'named');
    await mkdir(cwd);
    const homes = { gemini: join(tmp, '.gemini'), qwen: join(tmp, '.qwen') };
    for (const to of ['gemini', 'qwen'] as const) {
      const result = await handOff({ ...codex, cwd }, { atTurn: 3, to, now: NOW, branchName: ' picked up ' }, homes);
      const found = (await ADAPTERS[to].discover(homes[to], () => undefined)).filter((g) => g.paths.includes(result.path));
      expect((await ADAPTERS[to].readSession(found[0]!, context)).title, to).toBe('picked up');
    }
  });

  it('writes a Qwen Code session in the cwd\'s project folder: the note a notification record, no turn', async () => {
    const claude = await ADAPTERS.claude.readSession(SOURCES.claude, context);
    const { back, path, id, cwd } = await handOffAndRead(claude, 'qwen', 3);
    expect(path).toBe(join(tmp, '.qwen', 'projects', cwd.replace(/[^a-zA-Z0-9]/g, '-'), 'chats', `${id}.jsonl`));
    const first = JSON.parse((await readFile(path, 'utf8')).split('\n')[0]!) as Record<string, unknown>;
    expect(first).toMatchObject({ parentUuid: null, sessionId: id, type: 'user', subtype: 'notification', provenance: 'system', cwd, forkedFrom: { sessionId: claude.id } });
    expect(back.messages[0]).toMatchObject({ role: 'user', userTurn: false, blocks: [{ type: 'text', text: `${handoffNote({ agent: 'claude', id: claude.id, atTurn: 3 }, 'qwen')}\n` }] });
  });

  it('writes where the target agent looks for the cwd: Codex under the date, Claude Code in the cwd\'s project folder, claw in the workspace', async () => {
    const claude = await ADAPTERS.claude.readSession(SOURCES.claude, context);
    const toCodex = await handOffAndRead(claude, 'codex', 2);
    expect(toCodex.path).toBe(join(tmp, '.codex', 'sessions', '2026', '11', pad(NOW.getDate()), `rollout-2026-11-${pad(NOW.getDate())}T${pad(NOW.getHours())}-${pad(NOW.getMinutes())}-${pad(NOW.getSeconds())}-${toCodex.id}.jsonl`));
    const codex = await ADAPTERS.codex.readSession(SOURCES.codex, context);
    const toClaude = await handOffAndRead(codex, 'claude', 2);
    expect(toClaude.path).toBe(join(tmp, '.claude', 'projects', claudeProjectFolder(toClaude.cwd), `${toClaude.id}.jsonl`));
    expect(claudeProjectFolder(toClaude.cwd)).toMatch(/^[A-Za-z0-9-]+$/);
    const toClaw = await handOffAndRead(codex, 'claw', 2);
    expect(toClaw.path).toMatch(new RegExp(`^${escape(join(toClaw.cwd, '.claw', 'sessions'))}/[0-9a-f]{16}/session-${NOW.getTime()}-\\d+\\.jsonl$`));
  });

  it('writes a Copilot session folder in the Copilot home: the note as a message that is no turn, the source named by its fork note', async () => {
    const claude = await ADAPTERS.claude.readSession(SOURCES.claude, context);
    const { back, path, id } = await handOffAndRead(claude, 'copilot', 3);
    expect(path).toBe(join(tmp, '.copilot', 'session-state', id, 'events.jsonl'));
    expect(back).toMatchObject({ forkedFrom: claude.id, userTurns: 2, createdAt: NOW.toISOString(), name: null });
    const first = JSON.parse((await readFile(path, 'utf8')).split('\n')[0]!) as { type: string; data: Record<string, unknown> };
    // Copilot refuses a session.start without copilotVersion ("Session file is corrupted").
    expect(first).toMatchObject({ type: 'session.start', data: { sessionId: id, copilotVersion: '0.0.0', context: { cwd: back.cwd } } });
    expect(back.messages[0]).toMatchObject({ role: 'user', userTurn: false, blocks: [{ type: 'text', text: handoffNote({ agent: 'claude', id: claude.id, atTurn: 3 }, 'copilot') }] });
  });

  it('adds an opencode session to opencode.db: the cwd\'s project, the model opencode last used, the note a synthetic part, calls as tool parts holding their results', async () => {
    const claude = await ADAPTERS.claude.readSession(SOURCES.claude, context);
    const path = await opencodeDatabase();
    const rowsOf = (id: string): string => {
      const handle = new Database(path, { readonly: true });
      try {
        return JSON.stringify(['session WHERE id', 'message WHERE session_id', 'part WHERE session_id'].map((from) => handle.prepare(`SELECT * FROM ${from} = ? ORDER BY id`).all(id)));
      } finally {
        handle.close();
      }
    };
    const others = ['ses_def8b4415ffelGNy1ujFXhicI4', 'ses_def8a7e14ffeEyddEP23wkkCBZ', 'ses_def8a5e01ffeSLpJoOndDIcP22'].map(rowsOf);
    const { id, cwd, path: written } = await handOffAndRead(claude, 'opencode', 3);
    expect(written).toBe(path);
    expect(['ses_def8b4415ffelGNy1ujFXhicI4', 'ses_def8a7e14ffeEyddEP23wkkCBZ', 'ses_def8a5e01ffeSLpJoOndDIcP22'].map(rowsOf), 'the other sessions\' rows are untouched').toEqual(others);
    const handle = new Database(path, { readonly: true });
    try {
      // Outside git, opencode keeps a directory's sessions in its `global` project (worktree /): path is the cwd below it.
      expect(handle.prepare('SELECT project_id, directory, path, parent_id, metadata, model, agent, version FROM session WHERE id = ?').get(id)).toEqual({
        project_id: 'global',
        directory: cwd,
        path: cwd.slice(1),
        parent_id: null,
        metadata: JSON.stringify({ sessionsFork: { id: claude.id, atTurn: 3, agent: 'claude' } }),
        model: JSON.stringify({ id: 'stand-in', providerID: 'standin' }),
        agent: 'build',
        version: '1.18.33',
      });
      const messages = (handle.prepare('SELECT id, data FROM message WHERE session_id = ? ORDER BY time_created, id').all(id) as { id: string; data: string }[]).map((row): Record<string, unknown> & { id: string } => ({ ...(JSON.parse(row.data) as Record<string, unknown>), id: row.id }));
      const parts = (handle.prepare('SELECT message_id, data FROM part WHERE session_id = ? ORDER BY id').all(id) as { message_id: string; data: string }[]).map((row): Record<string, unknown> & { messageId: string } => ({ ...(JSON.parse(row.data) as Record<string, unknown>), messageId: row.message_id }));
      // The model of the newest prompt in the database (what opencode runs here), on every message: its resume asks that one.
      for (const message of messages.filter((m) => m.role === 'user')) expect(message).toMatchObject({ agent: 'build', model: { providerID: 'standin', modelID: 'stand-in' } });
      for (const message of messages.filter((m) => m.role === 'assistant')) {
        expect(message).toMatchObject({ providerID: 'standin', modelID: 'stand-in', mode: 'build', path: { cwd, root: '/' } });
        // An answer step points at the prompt it answers.
        expect(messages.findLast((m) => m.role === 'user' && m.id < message.id)?.id).toBe(message.parentID);
      }
      expect(parts.filter((part) => part.messageId === messages[0]!.id)).toEqual([
        { messageId: messages[0]!.id, type: 'text', text: handoffNote({ agent: 'claude', id: claude.id, atTurn: 3 }, 'opencode'), synthetic: true },
      ]);
      const tools = parts.filter((part) => part.type === 'tool') as unknown as { callID: string; tool: string; state: { status: string; input: unknown; output: string } }[];
      expect(tools.length).toBeGreaterThan(0);
      for (const tool of tools) {
        expect(tool.callID).toMatch(/^[A-Za-z0-9_-]+$/);
        expect(tool.state).toMatchObject({ status: 'completed', metadata: {}, title: expect.any(String) as unknown as string });
      }
      expect(parts.some((part) => part.type === 'reasoning'), 'reasoning is dropped').toBe(false);
    } finally {
      handle.close();
    }
  });

  it('puts an opencode hand-off in the project opencode keeps the cwd\'s sessions in, and refuses when opencode has made no database', async () => {
    const codex = await ADAPTERS.codex.readSession(SOURCES.codex, context);
    await expect(handOff({ ...codex, cwd: join(tmp, 'work') }, { atTurn: 2, to: 'opencode', now: NOW }, { opencode: OPENCODE_HOME() })).rejects.toThrow(/opencode\.db does not exist: run opencode once/);
    expect(await readdir(tmp)).toEqual([]);
    const path = await opencodeDatabase();
    const handle = new Database(path);
    handle.prepare("INSERT INTO project (id, worktree, time_created, time_updated, sandboxes) VALUES ('0123abcd', '/repo', 1, 1, '[]')").run();
    handle.close();
    const inRepo = await handOff({ ...codex, cwd: '/repo/sub dir' }, { atTurn: 2, to: 'opencode', now: NOW, branchName: ' picked up ' }, { opencode: OPENCODE_HOME() });
    const read = new Database(path, { readonly: true });
    try {
      expect(read.prepare('SELECT project_id, path, title FROM session WHERE id = ?').get(inRepo.id)).toEqual({ project_id: '0123abcd', path: 'sub dir', title: 'picked up' });
    } finally {
      read.close();
    }
  });

  it('refuses a hand-off to the same agent, a cut out of range and a session without a cwd, writing nothing', async () => {
    const codex = await ADAPTERS.codex.readSession(SOURCES.codex, context);
    const homes = { codex: join(tmp, '.codex'), claude: join(tmp, '.claude') };
    await expect(handOff(codex, { atTurn: 2, to: 'codex', now: NOW }, homes)).rejects.toThrow(HandoffError);
    await expect(handOff(codex, { atTurn: 1, to: 'claude', now: NOW }, homes)).rejects.toThrow(ForkRangeError);
    await expect(handOff(codex, { atTurn: codex.userTurns + 2, to: 'claude', now: NOW }, homes)).rejects.toThrow(ForkRangeError);
    await expect(handOff({ ...codex, cwd: null }, { atTurn: 2, to: 'claude', now: NOW }, homes)).rejects.toThrow(/no working directory/);
    // claw keeps sessions in the workspace: one that is gone is not made again.
    await expect(handOff({ ...codex, cwd: join(tmp, 'gone') }, { atTurn: 2, to: 'claw', now: NOW }, homes)).rejects.toThrow(/gone does not exist: claw keeps/);
    expect(await readdir(tmp)).toEqual([]);
    expect(await ADAPTERS.claude.discover(homes.claude, () => undefined)).toEqual([]);
  });
});

function pad(n: number): string {
  return String(n).padStart(2, '0');
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

describe('claudeProjectFolder', () => {
  it('is the folder Claude Code itself made for a non-ASCII cwd (test/fixtures/home)', () => {
    expect(claudeProjectFolder('/home/dev/src/a-ünïcødé-项目')).toBe('-home-dev-src-a--n-c-d----');
    expect(claudeProjectFolder('/home/dev/src/a-api-server')).toBe('-home-dev-src-a-api-server');
  });

  it('cuts a name past 200 characters and adds Claude Code\'s base-36 hash of the path', () => {
    const cwd = `/${'x'.repeat(250)}`;
    // (h << 5) - h + c over the UTF-16 units, kept to 32 bits: computed by hand for "/" + 250 "x".
    let h = 0;
    for (const c of cwd) h = (Math.imul(h, 31) + c.charCodeAt(0)) | 0;
    expect(claudeProjectFolder(cwd)).toBe(`-${'x'.repeat(199)}-${Math.abs(h).toString(36)}`);
  });
});

const user = (text: string): Message => ({ role: 'user', blocks: [{ type: 'text', text }], userTurn: true });
const assistant = (...blocks: Message['blocks']): Message => ({ role: 'assistant', blocks, userTurn: false });
const tool = (id: string, output: string): Message => ({ role: 'tool', blocks: [{ type: 'tool_result', toolUseId: id, output, isError: false }], userTurn: false });
const call = (id: string) => ({ type: 'tool_use', id, name: 'shell', input: '{"cmd":"ls"}' }) as const;

describe('handoffConversation', () => {
  it('closes a call without a result with an explicit output, right after its step', () => {
    const conversation = handoffConversation({ messages: [user('one'), assistant(call('a')), user('two'), assistant({ type: 'text', text: 'x' }), user('three')] }, 3);
    expect(conversation.items).toEqual([
      { kind: 'user', blocks: [{ type: 'text', text: 'one' }] },
      { kind: 'assistant', blocks: [call('a')] },
      { kind: 'results', results: [{ type: 'tool_result', toolUseId: 'a', output: NO_RESULT_RECORDED, isError: true }] },
      { kind: 'user', blocks: [{ type: 'text', text: 'two' }] },
      { kind: 'assistant', blocks: [{ type: 'text', text: 'x' }] },
    ]);
  });

  it('keeps parallel calls in one step with their results in the calls\' order, drops a result without its call, reasoning and context', () => {
    const messages: Message[] = [
      { role: 'system', blocks: [{ type: 'text', text: '<environment_context>' }], userTurn: false },
      user('one'),
      assistant({ type: 'reasoning', summary: 'hmm', encrypted: true }, { type: 'text', text: 'running both' }, call('a'), call('b')),
      tool('b', 'B out'),
      tool('a', 'A out'),
      tool('orphan', 'no call made this'),
      assistant({ type: 'text', text: 'done' }),
      user('two'),
    ];
    expect(handoffConversation({ messages }, 2).items).toEqual([
      { kind: 'user', blocks: [{ type: 'text', text: 'one' }] },
      { kind: 'assistant', blocks: [{ type: 'text', text: 'running both' }, call('a'), call('b')] },
      {
        kind: 'results',
        results: [
          { type: 'tool_result', toolUseId: 'a', output: 'A out', isError: false },
          { type: 'tool_result', toolUseId: 'b', output: 'B out', isError: false },
        ],
      },
      { kind: 'assistant', blocks: [{ type: 'text', text: 'done' }] },
    ]);
  });

  it('cuts sequential calls into steps, each followed by its result', () => {
    const messages: Message[] = [user('one'), assistant(call('a')), tool('a', 'A'), assistant(call('b')), tool('b', 'B'), user('two')];
    expect(handoffConversation({ messages }, 2).items.map((item) => item.kind)).toEqual(['user', 'assistant', 'results', 'assistant', 'results']);
  });
});

describe('images', () => {
  const png = Buffer.from('fake png bytes').toString('base64');
  const withImage: Session = {
    ...({} as Session),
    id: '0b1a0000-0000-4000-8000-000000000001',
    agent: 'claude',
    path: '/nowhere.jsonl',
    cwd: '/nowhere',
    gitBranch: null,
    model: null,
    messages: [
      { role: 'user', userTurn: true, blocks: [{ type: 'text', text: 'what is in this picture?' }, { type: 'image', mediaType: 'image/png', data: png, url: null }] },
      assistant({ type: 'text', text: 'a cat' }),
      user('thanks'),
    ],
  };

  it('become the target\'s image blocks: Codex input_image with a data URL, Claude Code base64 image; claw says one was there', async () => {
    const homes = { codex: join(tmp, '.codex'), claude: join(tmp, '.claude') };
    const cwd = join(tmp, 'work');
    await mkdir(cwd);
    const codex = await handOff({ ...withImage, cwd }, { atTurn: 2, to: 'codex', now: NOW }, homes);
    const codexLines = (await readFile(codex.path, 'utf8')).trim().split('\n').map((line) => JSON.parse(line) as { type: string; payload: { role?: string; content?: unknown } });
    expect(codexLines.find((line) => line.type === 'response_item' && line.payload.role === 'user')?.payload.content).toEqual([
      { type: 'input_text', text: 'what is in this picture?' },
      { type: 'input_image', image_url: `data:image/png;base64,${png}` },
    ]);
    const claude = await handOff({ ...withImage, agent: 'codex', cwd }, { atTurn: 2, to: 'claude', now: NOW }, homes);
    const claudeLines = (await readFile(claude.path, 'utf8')).trim().split('\n').map((line) => JSON.parse(line) as { type: string; isMeta?: boolean; message?: { content?: unknown } });
    expect(claudeLines.find((line) => line.type === 'user' && line.isMeta !== true)?.message?.content).toEqual([
      { type: 'text', text: 'what is in this picture?' },
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: png } },
    ]);
    const claw = await handOff({ ...withImage, cwd }, { atTurn: 2, to: 'claw', now: NOW }, homes);
    expect(await readFile(claw.path, 'utf8')).toContain(JSON.stringify(CLAW_IMAGE_TEXT));
  });

  it('read from the agents\' own files, carry over as images the target reads back (Codex data URL → Claude Code, Gemini CLI, Qwen Code inlineData; Claude Code base64 → Codex, Qwen Code)', async () => {
    const image = { type: 'image', mediaType: 'image/png', data: 'iVBORw0KGgo=', url: null };
    const cases = [
      { from: 'codex', to: 'claude', group: group('codex', join(FIXTURES, 'codex-synthetic/.codex'), 'codex-synthetic/.codex/sessions/2026/01/15/rollout-2026-01-15T13-00-00-0199c0de-0000-7000-8000-000000000004.jsonl') },
      { from: 'claude', to: 'codex', group: group('claude', join(FIXTURES, 'claude-synthetic/.claude'), 'claude-synthetic/.claude/projects/-home-dev-src-synth/5e551011-0000-4000-8000-000000000008.jsonl') },
      { from: 'codex', to: 'gemini', group: group('codex', join(FIXTURES, 'codex-synthetic/.codex'), 'codex-synthetic/.codex/sessions/2026/01/15/rollout-2026-01-15T13-00-00-0199c0de-0000-7000-8000-000000000004.jsonl') },
      { from: 'claude', to: 'qwen', group: group('claude', join(FIXTURES, 'claude-synthetic/.claude'), 'claude-synthetic/.claude/projects/-home-dev-src-synth/5e551011-0000-4000-8000-000000000008.jsonl') },
      { from: 'codex', to: 'qwen', group: group('codex', join(FIXTURES, 'codex-synthetic/.codex'), 'codex-synthetic/.codex/sessions/2026/01/15/rollout-2026-01-15T13-00-00-0199c0de-0000-7000-8000-000000000004.jsonl') },
      // opencode keeps an attached image as a `file` part with a data: URL.
      { from: 'codex', to: 'opencode', group: group('codex', join(FIXTURES, 'codex-synthetic/.codex'), 'codex-synthetic/.codex/sessions/2026/01/15/rollout-2026-01-15T13-00-00-0199c0de-0000-7000-8000-000000000004.jsonl') },
      { from: 'claude', to: 'opencode', group: group('claude', join(FIXTURES, 'claude-synthetic/.claude'), 'claude-synthetic/.claude/projects/-home-dev-src-synth/5e551011-0000-4000-8000-000000000008.jsonl') },
    ] as const;
    for (const { from, to, group: source } of cases) {
      const read = await ADAPTERS[from].readSession(source, context);
      // The image is in the last turn: one more prompt after it lets a hand-off keep it.
      const session = { ...read, messages: [...read.messages, user('and then?')], userTurns: read.userTurns + 1 };
      const { back } = await handOffAndRead(session, to, session.userTurns);
      expect(back.messages.filter((m) => m.userTurn).at(-1)?.blocks, `${from} → ${to}`).toContainEqual(image);
      // Codex's web search is a call with no output item: it is closed with an explicit "no result recorded".
      const carried = essence(back.messages);
      const closed = carried.filter((entry) => 'result' in entry && entry.result === NO_RESULT_RECORDED);
      expect(closed).toHaveLength(from === 'codex' ? 1 : 0);
      expect(carried.filter((entry) => !closed.includes(entry))).toEqual(essence(session.messages, session.userTurns));
    }
  });
});

describe('geminiProjectFolder (Gemini CLI 0.61\'s ProjectRegistry)', () => {
  it('slugs the folder name as Gemini CLI does (test/fixtures/gemini-0.61.0: "g-café-日本" is "g-caf")', () => {
    expect(geminiSlug('g-café-日本')).toBe('g-caf');
    expect(geminiSlug('g-api-server')).toBe('g-api-server');
    expect(geminiSlug('日本')).toBe('project');
  });

  it('takes the registry\'s slug, else the folder whose marker names the cwd, else claims a new slug past those taken', async () => {
    const dir = join(tmp, '.gemini');
    await mkdir(join(dir, 'tmp', 'app', 'chats'), { recursive: true });
    await writeFile(join(dir, 'tmp', 'app', '.project_root'), '/elsewhere/app');
    await writeFile(join(dir, 'projects.json'), JSON.stringify({ projects: { '/other/app': 'app-1', '/mapped/x': 'my-slug' } }));
    // /work/app: "app" is owned by /elsewhere/app (marker), "app-1" by /other/app (registry): app-2, claimed with its marker.
    expect(await geminiProjectFolder(dir, '/work/app')).toBe('app-2');
    expect(await readFile(join(dir, 'tmp', 'app-2', '.project_root'), 'utf8')).toBe('/work/app');
    // Found again by its marker.
    expect(await geminiProjectFolder(dir, '/work/app')).toBe('app-2');
    // A path the registry maps keeps its slug, and gets its marker.
    expect(await geminiProjectFolder(dir, '/mapped/x')).toBe('my-slug');
    expect(await readFile(join(dir, 'tmp', 'my-slug', '.project_root'), 'utf8')).toBe('/mapped/x');
    expect(await geminiProjectFolder(dir, '/elsewhere/app')).toBe('app');
    // The registry is Gemini CLI's: never rewritten.
    expect(JSON.parse(await readFile(join(dir, 'projects.json'), 'utf8'))).toEqual({ projects: { '/other/app': 'app-1', '/mapped/x': 'my-slug' } });
  });
});
