// Issue 9's reading rules for Claude Code files, on sessions with those shapes (test/fixtures/claude-rules,
// written by its generate.py): what is a prompt, what is a turn, which id and title a file has.
import { cp, mkdtemp, readFile, rm, utimes } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import {
  commandAnsweredBy,
  isClaudeNonConversationLine,
  isOnlyIdeContext,
  isOtherOrigin,
  sidecarTitle,
  stripIdeContext,
  typedSlashCommand,
} from '../../src/core/formats/claude/rules.js';
import { claudeAdapter, claudeUserText, isClaudeCommandCaveat, isClaudeUserTurn } from '../../src/core/formats/claude/index.js';
import { transcriptToMarkdown, transcriptToText } from '../../src/core/export.js';
import type { AdapterContext, SessionFileGroup } from '../../src/core/formats/types.js';
import { messageText, type Message } from '../../src/core/model.js';
import { compileTextSearch, fileContainsSync } from '../../src/core/io/contains.js';
import { firstAndLastExchange } from '../../src/ui/exchanges.js';
import { buildTranscriptItems } from '../../src/ui/transcript-layout.js';

const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures');
const PROJECT = '-home-dev-src-rules';
const sid = (k: number): string => `c1a0de00-0000-4000-8000-0000000000${k.toString(16).padStart(2, '0')}`;

let temp: string;
let root: string;

const context: AdapterContext = { report: () => undefined, lookup: () => undefined, names: () => new Map() };
const group = (k: number): SessionFileGroup => ({ agent: 'claude', paths: [join(root, 'projects', PROJECT, `${sid(k)}.jsonl`)], idHint: sid(k), root, archived: false });
const turnTexts = (messages: readonly Message[]): string[] => messages.filter((m) => m.userTurn).map(messageText);

beforeAll(async () => {
  temp = await mkdtemp(join(tmpdir(), 'sessions-claude-rules-'));
  root = join(temp, '.claude');
  await cp(join(FIXTURES, 'claude-rules', '.claude'), root, { recursive: true });
});

afterAll(async () => {
  await rm(temp, { recursive: true, force: true });
});

describe('the rules as functions', () => {
  it('strips IDE context the extensions put before a prompt, however many blocks', () => {
    expect(stripIdeContext('<ide_opened_file>a.ts</ide_opened_file>Fix it')).toBe('Fix it');
    expect(stripIdeContext('<ide_diagnostics>x</ide_diagnostics>\n<ide_selection>l1\nl2</ide_selection>\n  Explain')).toBe('Explain');
    expect(stripIdeContext('Explain <ide_selection>x</ide_selection>')).toBe('Explain <ide_selection>x</ide_selection>');
    expect(isOnlyIdeContext('<ide_selection>x</ide_selection>\n')).toBe(true);
    expect(isOnlyIdeContext('plain')).toBe(false);
  });

  it('knows other origins and task notifications', () => {
    expect(isOtherOrigin({ origin: { kind: 'human' } }, 'hi')).toBe(false);
    expect(isOtherOrigin({}, 'hi')).toBe(false);
    expect(isOtherOrigin({ origin: { kind: 'task-notification' } }, 'done')).toBe(true);
    expect(isOtherOrigin({}, '<task-notification><status>completed</status></task-notification>')).toBe(true);
  });

  it('turns a slash command line into what was typed', () => {
    expect(typedSlashCommand('<command-message>orchestrator</command-message>\n<command-name>/orchestrator</command-name>\n<command-args>create TODO app</command-args>')).toBe(
      '/orchestrator create TODO app',
    );
    expect(typedSlashCommand('<command-message>init</command-message>\n<command-name>/init</command-name>')).toBe('/init');
    expect(typedSlashCommand('Unknown skill: usage')).toBeNull();
  });

  it('finds the slash command an answer answers, through its meta expansion and attachments only', () => {
    type N = { uuid: string; type: string; parentUuid: string | null; meta: boolean; command: string | null };
    const command: N = { uuid: 'c', type: 'user', parentUuid: null, meta: false, command: '/init' };
    const expansion: N = { uuid: 'e', type: 'user', parentUuid: 'c', meta: true, command: null };
    const attachment: N = { uuid: 'a', type: 'attachment', parentUuid: 'e', meta: false, command: null };
    const answer: N = { uuid: 'r', type: 'assistant', parentUuid: 'a', meta: false, command: null };
    const byId = new Map([command, expansion, attachment, answer].map((n) => [n.uuid, n]));
    const parentOf = (n: N): N | undefined => (n.parentUuid === null ? undefined : byId.get(n.parentUuid));
    expect(commandAnsweredBy(answer, parentOf)).toBe(command);
    // Without a meta expansion the command never reached the model (a local command's output came next).
    byId.set('a', { ...attachment, parentUuid: 'c' });
    expect(commandAnsweredBy(answer, parentOf)).toBeNull();
    // A prompt typed after a local command stops the walk: the answer is the prompt's.
    byId.set('a', { ...attachment, parentUuid: 'p' });
    byId.set('p', { uuid: 'p', type: 'user', parentUuid: 'c', meta: false, command: null });
    expect(commandAnsweredBy(answer, parentOf)).toBeNull();
  });

  it('judges request shapes, system prompts and injected attachments by their opening bytes', () => {
    expect(isClaudeNonConversationLine('{"type":"api-request-shape","sessionId":"x","shape":"commit"')).toBe(true);
    expect(isClaudeNonConversationLine('{"type":"api-request-blob","sessionId":"x"')).toBe(true);
    expect(isClaudeNonConversationLine('{"type":"cost-state","sessionId":"x"')).toBe(true);
    expect(isClaudeNonConversationLine('{"parentUuid":"a","isSidechain":false,"attachment":{"type":"prompt_snapshot","content":"')).toBe(true);
    expect(isClaudeNonConversationLine('{"parentUuid":"a","isSidechain":false,"type":"user","message":{"role":"user","content":"{\\"attachment\\":{\\"type\\":\\"date\\""')).toBe(false);
    expect(isClaudeNonConversationLine('{"parentUuid":"a","isSidechain":false,"type":"assistant","message":{')).toBe(false);
  });

  it('reads the /rename sidecar', () => {
    expect(sidecarTitle('{"customTitle":"api health work"}')).toBe('api health work');
    expect(sidecarTitle('{"customTitle":""}')).toBeNull();
    expect(sidecarTitle('not json')).toBeNull();
  });

  it('isClaudeUserTurn and claudeUserText apply them line by line', () => {
    const line = (content: unknown, extra: Record<string, unknown> = {}): Record<string, unknown> => ({ type: 'user', message: { role: 'user', content }, ...extra });
    expect(isClaudeUserTurn(line('<ide_selection>x</ide_selection>'))).toBe(false);
    expect(isClaudeUserTurn(line([{ type: 'text', text: '<ide_opened_file>a</ide_opened_file>' }, { type: 'text', text: 'Go' }]))).toBe(true);
    expect(claudeUserText([{ type: 'text', text: '<ide_opened_file>a</ide_opened_file>' }, { type: 'text', text: 'Go' }])).toBe('Go');
    expect(isClaudeUserTurn(line('done', { origin: { kind: 'task-notification' } }))).toBe(false);
    expect(isClaudeCommandCaveat(line('<local-command-caveat>Caveat</local-command-caveat>', { isMeta: true }))).toBe(true);
    expect(isClaudeCommandCaveat(line('<local-command-caveat>Caveat</local-command-caveat>'))).toBe(false);
    expect(isClaudeUserTurn(line('Unknown skill: usage'), true)).toBe(false);
    expect(isClaudeUserTurn(line('Unknown skill: usage'))).toBe(true);
  });
});

describe('sessions with those shapes', () => {
  it('IDE context is neither a prompt nor a turn, in the row, the transcript and the exports', async () => {
    const summary = await claudeAdapter.readSummary(group(1), context);
    expect(summary).toMatchObject({
      id: sid(1),
      title: 'Fix the login bug',
      firstPrompt: 'Fix the login bug',
      lastPrompt: 'Thanks, ship it',
      prompts: ['Fix the login bug', 'Explain this selection', 'Thanks, ship it'],
      userTurns: 3,
    });
    const session = await claudeAdapter.readSession(group(1), context);
    expect(turnTexts(session.messages)).toEqual(['Fix the login bug', 'Explain this selection', 'Thanks, ship it']);
    // The line that held only the selection shows nothing at all.
    expect(session.messages.map((m) => `${m.role}${m.userTurn ? '*' : ''}`)).toEqual(['user*', 'assistant', 'user*', 'assistant', 'user*', 'assistant']);
    // The TUI's preview pane: the first and last exchange.
    expect(firstAndLastExchange(session.messages)).toEqual({
      first: { prompt: 'Fix the login bug', reply: 'Fixed the comparison.' },
      last: { prompt: 'Thanks, ship it', reply: 'Shipped.' },
    });
    for (const out of [transcriptToText(session), transcriptToMarkdown(session), JSON.stringify(buildTranscriptItems(session))]) {
      expect(out).not.toMatch(/ide_(?:selection|opened_file|diagnostics)|login\.ts/);
      expect(out).toContain('Explain this selection');
    }
  });

  it('a long IDE selection clipped by the summary read is still context, not the prompt', async () => {
    const summary = await claudeAdapter.readSummary(group(10), context);
    expect(summary).toMatchObject({ title: 'Refactor this', prompts: ['Refactor this', 'Now add types'], userTurns: 2 });
    const session = await claudeAdapter.readSession(group(10), context);
    expect(turnTexts(session.messages)).toEqual(['Refactor this', 'Now add types']);
  });

  it('a fork before the prompt under an IDE context line leaves that line out with the prompt', async () => {
    const fork = await claudeAdapter.fork(group(1), { atTurn: 2 }, context);
    expect(fork.keptUserTurns).toBe(1);
    const lines = (await readFile(fork.path, 'utf8')).trimEnd().split('\n').map((line) => JSON.parse(line) as { uuid: string });
    // The prompt and its answer; not the selection meant for the prompt that was cut.
    expect(lines.map((line) => line.uuid)).toEqual(['00000001-0000-4000-8000-000000000001', '00000001-0000-4000-8000-000000000002']);
    await rm(fork.path);
  });

  it('a fork at turn 3 of it keeps the two prompts the user typed', async () => {
    const fork = await claudeAdapter.fork(group(1), { atTurn: 3 }, context);
    expect(fork.keptUserTurns).toBe(2);
    const forked = await claudeAdapter.readSession({ ...group(1), paths: [fork.path], idHint: fork.id }, context);
    expect(forked.prompts).toEqual(['Fix the login bug', 'Explain this selection']);
    await rm(fork.path);
  });

  it('other origins, task notifications and a local command under its caveat are not the user’s words', async () => {
    const session = await claudeAdapter.readSession(group(2), context);
    expect(session.prompts).toEqual(['Run the tests in the background', 'Ship it']);
    expect(session.userTurns).toBe(2);
    expect(session.lastPrompt).toBe('Ship it');
    expect(await claudeAdapter.readSummary(group(2), context)).toMatchObject({ prompts: ['Run the tests in the background', 'Ship it'], userTurns: 2 });
  });

  it('a slash command that started model work is a turn, shown as typed; local ones are not', async () => {
    const summary = await claudeAdapter.readSummary(group(3), context);
    expect(summary).toMatchObject({
      title: '/orchestrator create TODO app',
      prompts: ['/orchestrator create TODO app', 'Add tests', '/init'],
      userTurns: 3,
      lastPrompt: '/init',
    });
    const session = await claudeAdapter.readSession(group(3), context);
    expect(turnTexts(session.messages)).toEqual(['/orchestrator create TODO app', 'Add tests', '/init']);
    expect(transcriptToText(session)).toContain('── user · turn 1 ────────────────────────────────────────\n/orchestrator create TODO app');
    // Fork turn numbers count the command: turn 2 is "Add tests".
    const fork = await claudeAdapter.fork(group(3), { atTurn: 2 }, context);
    expect(fork.keptUserTurns).toBe(1);
    await rm(fork.path);
  });

  it('first prompt: image only is [image], image + text is the text, none is null', async () => {
    expect(await claudeAdapter.readSummary(group(4), context)).toMatchObject({ firstPrompt: '[image]', prompts: ['[image]', 'Make it look like this'], userTurns: 2 });
    const none = await claudeAdapter.readSummary(group(5), context);
    expect(none).toMatchObject({ firstPrompt: null, lastPrompt: null, userTurns: 0, title: '(no prompt)' });
  });

  it('a --fork-session copy names its parent (requestSessionId); a summary of another conversation titles nothing', async () => {
    const parent = await claudeAdapter.readSummary(group(6), context);
    const child = await claudeAdapter.readSummary(group(7), context);
    expect(parent).toMatchObject({ id: sid(6), forkedFrom: null, fork: null, title: 'Plan the release' });
    expect(child).toMatchObject({ id: sid(7), forkedFrom: sid(6), fork: { id: sid(6) }, userTurns: 3 });
    // Both begin with the same copied line: equal createdAt.
    expect(child!.createdAt).toBe(parent!.createdAt);
    const session = await claudeAdapter.readSession(group(7), context);
    expect(session.forkedFrom).toBe(sid(6));
  });

  it('a fork of a --fork-session copy names the copy, not its parent: requestSessionId is rewritten like sessionId', async () => {
    const fork = await claudeAdapter.fork(group(7), { atTurn: 3 }, context);
    const lines = (await readFile(fork.path, 'utf8')).trimEnd().split('\n').map((line) => JSON.parse(line) as { sessionId?: string; requestSessionId?: string });
    expect(new Set(lines.map((line) => line.sessionId))).toEqual(new Set([fork.id]));
    expect(lines.filter((line) => line.requestSessionId !== undefined).map((line) => line.requestSessionId)).toEqual([sid(7), sid(7)]);
    const forked = await claudeAdapter.readSummary({ ...group(7), paths: [fork.path], idHint: fork.id }, context);
    expect(forked).toMatchObject({ id: fork.id, forkedFrom: sid(7), userTurns: 2 });
    await rm(fork.path);
  });

  it('the id is the file stem, not a sessionId inside copied lines', async () => {
    expect((await claudeAdapter.readSummary(group(8), context))?.id).toBe(sid(8));
    expect((await claudeAdapter.readSession(group(8), context)).id).toBe(sid(8));
    const fork = await claudeAdapter.fork(group(8), { atTurn: 2 }, context);
    expect(fork.parentId).toBe(sid(8));
    await rm(fork.path);
  });

  it('2.1.330: uuid-less records and attachments in the chain are harmless; compaction without a "Continue" line', async () => {
    const session = await claudeAdapter.readSession(group(9), context);
    expect(session.prompts).toEqual(['Summarise the design doc', 'Now list the open questions']);
    expect(session.messages.map((m) => `${m.role}${m.userTurn ? '*' : ''}:${m.blocks.map((b) => b.type).join('+')}`)).toEqual([
      'user*:text', 'assistant:text', 'system:compaction', 'user:text', 'user:text', 'user:text', 'user*:text', 'assistant:text',
    ]);
    const text = transcriptToText(session);
    expect(text).not.toMatch(/commit/i);
    expect(session.usage).toEqual({ input: 200, output: 20, cacheRead: 0, cacheWrite: 0 });
  });

  it('the /rename sidecar titles the session when it is newer than the in-file title, else the file wins', async () => {
    const sidecar = join(root, 'projects', PROJECT, sid(9), 'custom-title.json');
    await utimes(sidecar, new Date('2026-10-02T11:00:00Z'), new Date('2026-10-02T11:00:00Z'));
    expect(await claudeAdapter.readSummary(group(9), context)).toMatchObject({ name: 'design review', title: 'design review' });
    expect((await claudeAdapter.readSession(group(9), context)).name).toBe('design review');
    await utimes(sidecar, new Date('2026-10-02T10:00:00Z'), new Date('2026-10-02T10:00:00Z'));
    expect(await claudeAdapter.readSummary(group(9), context)).toMatchObject({ name: 'design notes', title: 'design notes' });
  });
});

describe('sessions the real Claude Code 2.1.330 wrote (test/fixtures/claude-2.1.330)', () => {
  const REAL = join(FIXTURES, 'claude-2.1.330', '.claude');
  const API = '-home-dev-src-b-api-server';
  const MAIN = '4908739e-7140-40f4-bd05-9ab21cdf9519';
  const FORK = 'a4e44f24-dde6-4336-806d-347ffd63474a';
  const INIT = '1a74bce2-a7b1-4e09-9581-2619a464dcab';
  const real = (project: string, id: string): SessionFileGroup => ({ agent: 'claude', paths: [join(REAL, 'projects', project, `${id}.jsonl`)], idHint: id, root: REAL, archived: false });

  it('a renamed, compacted session: every turn, the /rename title, the model and usage of every request', async () => {
    const session = await claudeAdapter.readSession(real(API, MAIN), context);
    expect(session).toMatchObject({
      id: MAIN,
      name: 'api health (2.1.330)',
      title: 'api health (2.1.330)',
      prompts: ['[b] What does the api server do?', '[b] RUN-THE-TOOL: show me what the tool prints.', '[b] Add a health check endpoint.', '[b] Now document the endpoint.'],
      lastPrompt: '[b] Now document the endpoint.',
      userTurns: 4,
      model: 'claude-opus-5-5',
      usage: { input: 62912, output: 40, cacheRead: 0, cacheWrite: 0 },
      forkedFrom: null,
    });
    const shown = transcriptToText(session);
    expect(shown).toContain('[conversation compacted]');
    // /rename and /compact ran locally: shown as typed, never as turns; the system prompt is never shown.
    expect(session.messages.filter((m) => m.role === 'user' && !m.userTurn).map(messageText)).toContain('/compact');
    expect(shown).not.toMatch(/commit|You are Claude Code|api-request/i);
  });

  it('its --fork-session copy names it as parent; /init is the first turn of its session', async () => {
    expect(await claudeAdapter.readSession(real(API, FORK), context)).toMatchObject({
      id: FORK,
      forkedFrom: MAIN,
      userTurns: 4,
      lastPrompt: '[b] Write a test for the health check instead.',
    });
    const init = await claudeAdapter.readSession(real('-home-dev-src-b-tools', INIT), context);
    expect(init).toMatchObject({ title: '/init', firstPrompt: '/init', prompts: ['/init', '[b] Thanks, that is all.'], userTurns: 2 });
  });

  it('grep finds its own words in no line of them but the conversation', () => {
    const search = compileTextSearch('commit');
    for (const [project, id] of [[API, MAIN], [API, FORK]] as const) {
      const path = real(project, id).paths[0]!;
      expect(fileContainsSync(path, search), `${id}: "commit" is in its system prompt`).toBe(true);
      expect(fileContainsSync(path, search, undefined, undefined, isClaudeNonConversationLine), id).toBe(false);
      expect(fileContainsSync(path, compileTextSearch('health check endpoint'), undefined, undefined, isClaudeNonConversationLine), id).toBe(true);
    }
  });
});
