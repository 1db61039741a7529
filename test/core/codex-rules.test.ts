// The reading rules real Codex files need (issue 9): IDE context, image prompts, review mode, sub-agent
// rollouts, TypeScript-era rollouts. Fixtures: test/fixtures/codex-rules, shaped on the corpus's 0.100+ lines
// and on what codex-rs writes for reviews (tasks/review.rs) and sub-agents (SessionSource::SubAgent).
import { cp, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { scanCatalog, type CatalogSession } from '../../src/catalog/scan.js';
import { nestSubagents } from '../../src/catalog/merge-rows.js';
import { UnsupportedForkError } from '../../src/core/errors.js';
import { transcriptToMarkdown, transcriptToText } from '../../src/core/export.js';
import { codexAdapter, isCodexNonConversationLine } from '../../src/core/formats/codex/index.js';
import { compileTextSearch, fileContainsSync } from '../../src/core/io/contains.js';
import { DISPLAY_CLIP_LIMITS } from '../../src/core/io/clip.js';
import {
  codexUserPromptText,
  isImageTag,
  isReviewResult,
  parseTypeScriptRolloutName,
  promptTextOf,
  reviewModeChange,
  subagentSourceOf,
} from '../../src/core/formats/codex/rules.js';
import { messageText, type Session } from '../../src/core/model.js';
import { noRoots } from '../../src/catalog/locations.js';

const FIXTURE = fileURLToPath(new URL('../fixtures/codex-rules/.codex', import.meta.url));

const IDE = '0199d1e0-0000-7000-8000-000000000101';
const EMPTY = '0199d1e0-0000-7000-8000-000000000102';
const REVIEW = '0199d1e0-0000-7000-8000-000000000103';
const REVIEWER = '0199d1e0-0000-7000-8000-000000000104';
const SPAWNED = '0199d1e0-0000-7000-8000-000000000105';
const TYPESCRIPT = '5f1c6b2e-8a3d-4c1e-9b7a-2d4e6f8a0c11';

let temp: string;
let root: string;
beforeEach(async () => {
  temp = await mkdtemp(join(tmpdir(), 'sessions-codex-rules-'));
  root = join(temp, '.codex');
  await cp(FIXTURE, root, { recursive: true });
});
afterEach(async () => {
  await rm(temp, { recursive: true, force: true });
});

async function scan() {
  return scanCatalog({ roots: { ...noRoots(), codex: [root] }, cwd: temp, rootsFromCwds: false }, { workers: 0 });
}

async function open(id: string): Promise<{ session: Session; row: CatalogSession }> {
  const result = await scan();
  const row = [...result.sessions, ...result.subagentSessions].find((s) => s.id === id);
  if (!row) throw new Error(`no session ${id}`);
  const session = await codexAdapter.readSession({ agent: 'codex', paths: row.paths, idHint: row.id, root: row.root, archived: row.archived }, result.context);
  return { session, row };
}

function userTurns(session: Session): string[] {
  return session.messages.filter((m) => m.userTurn).map((m) => messageText(m));
}

async function files(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) out.push(relative(dir, join(entry.parentPath, entry.name)));
  }
  return out.sort();
}

describe('rules as pure functions', () => {
  it('a prompt is its text without IDE context or image tags; [image] for images alone; else null', () => {
    expect(promptTextOf([{ kind: 'text', text: '# Context from my IDE setup:\n\n## Active file: a.ts\n\n## My request for Codex:\nrename it\n' }])).toBe('rename it');
    expect(
      promptTextOf([
        { kind: 'text', text: '<image name=[Image #1]>' },
        { kind: 'image', text: '[image]' },
        { kind: 'text', text: '</image>' },
        { kind: 'text', text: 'what is this?' },
      ]),
    ).toBe('what is this?');
    expect(promptTextOf([{ kind: 'text', text: '<image>' }, { kind: 'image', text: '[image]' }, { kind: 'text', text: '</image>' }])).toBe('[image]');
    expect(promptTextOf([{ kind: 'text', text: '  ' }])).toBeNull();
    expect(promptTextOf([])).toBeNull();
    expect(isImageTag('<image name=[Image #2] path="/tmp/a.png">')).toBe(true);
    expect(isImageTag('<image> is a tag I want to discuss\nbelow')).toBe(false);
    expect(codexUserPromptText('plain prompt')).toBe('plain prompt');
  });

  it('knows review results and review mode events', () => {
    expect(isReviewResult('<user_action>\n  <action>review</action>\n</user_action>')).toBe(true);
    expect(isReviewResult('please explain <user_action> tags')).toBe(false);
    expect([reviewModeChange('entered_review_mode'), reviewModeChange('exited_review_mode'), reviewModeChange('user_message')]).toEqual(['enter', 'exit', null]);
    expect([reviewModeChange('task_complete'), reviewModeChange('turn_aborted'), reviewModeChange('task_started')]).toEqual(['exit', 'exit', null]);
  });

  it('reads every SessionSource shape: only sub-agents are sub-agents, with the parent their file names', () => {
    expect(subagentSourceOf({ source: 'cli' })).toBeNull();
    expect(subagentSourceOf({ source: 'vscode' })).toBeNull();
    expect(subagentSourceOf({})).toBeNull();
    expect(subagentSourceOf({ source: { subagent: 'review' } })).toEqual({ kind: 'review', parentId: null });
    expect(subagentSourceOf({ source: { subagent: { thread_spawn: { parent_thread_id: 'p-1', depth: 1 } } } })).toEqual({ kind: 'thread_spawn', parentId: 'p-1' });
    expect(subagentSourceOf({ source: { subagent: { other: 'guardian' } }, parent_thread_id: 'p-2' })).toEqual({ kind: 'guardian', parentId: 'p-2' });
  });

  it('parses TypeScript-era rollout names only', () => {
    expect(parseTypeScriptRolloutName(`rollout-2025-04-20-${TYPESCRIPT}.json`)).toEqual({ date: '2025-04-20', id: TYPESCRIPT });
    expect(parseTypeScriptRolloutName(`rollout-2025-04-20T10-00-00-${TYPESCRIPT}.jsonl`)).toBeNull();
    expect(parseTypeScriptRolloutName('session_index.json')).toBeNull();
  });
});

describe('rows', () => {
  it('lists the fixture home as written by hand: sub-agents under their parent, TypeScript-era rollouts listed', async () => {
    const { sessions, subagentSessions } = await scan();
    const rows = sessions.map((s) => ({
      id: s.id,
      firstPrompt: s.firstPrompt,
      lastPrompt: s.lastPrompt,
      title: s.title,
      prompts: s.prompts,
      userTurns: s.userTurns,
      subagents: s.subagents ?? [],
    }));
    expect(rows).toEqual([
      {
        id: REVIEW,
        firstPrompt: 'add input validation to the signup form',
        lastPrompt: 'fix the empty password finding',
        title: 'add input validation to the signup form',
        prompts: ['add input validation to the signup form', 'fix the empty password finding'],
        userTurns: 2,
        subagents: [REVIEWER],
      },
      { id: EMPTY, firstPrompt: null, lastPrompt: null, title: '(no prompt)', prompts: [], userTurns: 1, subagents: [] },
      {
        id: IDE,
        firstPrompt: 'Explain what parseHeader does with an empty line',
        lastPrompt: '[image]',
        title: 'Explain what parseHeader does with an empty line',
        prompts: ['Explain what parseHeader does with an empty line', 'what is wrong in this screenshot?', '[image]'],
        userTurns: 3,
        subagents: [SPAWNED],
      },
      {
        id: TYPESCRIPT,
        firstPrompt: 'write a haiku about rollouts',
        lastPrompt: 'now list the files here',
        title: 'write a haiku about rollouts',
        prompts: ['write a haiku about rollouts', 'now list the files here'],
        userTurns: 2,
        subagents: [],
      },
    ]);
    expect(subagentSessions.map((s) => [s.id, s.subagent])).toEqual(
      expect.arrayContaining([
        [REVIEWER, { kind: 'review', parentId: REVIEW }],
        [SPAWNED, { kind: 'thread_spawn', parentId: IDE }],
      ]),
    );
    expect(subagentSessions).toHaveLength(2);
  });

  it('keeps a sub-agent whose parent is not there as a row of its own (never hidden)', async () => {
    await rm(join(root, 'sessions', '2026', '03', '10', `rollout-2026-03-10T10-00-00-${IDE}.jsonl`));
    await rm(join(root, 'sessions', '2026', '03', '10', `rollout-2026-03-10T12-00-00-${REVIEW}.jsonl`));
    const { sessions, subagentSessions } = await scan();
    expect(sessions.map((s) => s.id).sort()).toEqual([EMPTY, REVIEWER, SPAWNED, TYPESCRIPT].sort());
    expect(subagentSessions).toEqual([]);
  });
});

describe('transcripts and exports', () => {
  it('shows an IDE prompt as the request, and an image prompt without its tags', async () => {
    const { session } = await open(IDE);
    expect(userTurns(session)).toEqual(['Explain what parseHeader does with an empty line', '[image]\nwhat is wrong in this screenshot?', '[image]']);
    for (const text of [transcriptToText(session), transcriptToMarkdown(session)]) {
      expect(text).toContain('Explain what parseHeader does with an empty line');
      expect(text).not.toContain('Context from my IDE setup');
      expect(text).not.toContain('<image name=');
    }
  });

  it('shows the request of an IDE prompt whose context is longer than a display read keeps of a text', async () => {
    const path = join(root, 'sessions', '2026', '03', '10', `rollout-2026-03-10T10-00-00-${IDE}.jsonl`);
    const tabs = Array.from({ length: 2000 }, (_, i) => `- file${i}.ts: src/file${i}.ts`).join('\\n');
    const text = await readFile(path, 'utf8');
    await writeFile(path, text.replaceAll('## Open tabs:\\n', `## Open tabs:\\n${tabs}\\n`));
    expect((await readFile(path)).length).toBeGreaterThan(DISPLAY_CLIP_LIMITS.text * 2);
    const { row } = await open(IDE);
    const result = await scan();
    const shown = await codexAdapter.readSession({ agent: 'codex', paths: row.paths, idHint: row.id, root: row.root, archived: false }, result.context, { clip: DISPLAY_CLIP_LIMITS });
    expect(userTurns(shown)[0]).toBe('Explain what parseHeader does with an empty line');
    expect(row.firstPrompt).toBe('Explain what parseHeader does with an empty line');
  });

  it('shows the sub-agents the catalog found under a session', async () => {
    const { session, row } = await open(IDE);
    expect(transcriptToText({ ...session, subagents: row.subagents })).toContain(`sub-agents: ${SPAWNED}`);
    expect(transcriptToMarkdown({ ...session, subagents: row.subagents })).toContain(`- sub-agents: \`${SPAWNED}\``);
  });

  it('review mode: the review prompt and its <user_action> result are not turns; the turns are what the user typed', async () => {
    const { session, row } = await open(REVIEW);
    expect(userTurns(session)).toEqual(['add input validation to the signup form', 'fix the empty password finding']);
    expect(session.userTurns).toBe(2);
    expect(row.userTurns).toBe(2);
    const system = session.messages.filter((m) => m.role === 'system').map((m) => messageText(m).split('\n')[0]);
    expect(system).toEqual(['<environment_context>', 'Review the current code changes (staged, unstaged, and untracked files) and provide prioritized findings.', '<user_action>']);
    const text = transcriptToText(session);
    expect(text).toContain('── user · turn 2');
    expect(text).not.toContain('── user · turn 3');
  });

  it('a review cut short (no exited_review_mode: Codex stopped mid-review) hides no later prompt', async () => {
    const path = join(root, 'sessions', '2026', '03', '10', `rollout-2026-03-10T12-00-00-${REVIEW}.jsonl`);
    const kept = (await readFile(path, 'utf8')).split('\n').filter((line) => !line.includes('exited_review_mode'));
    await writeFile(path, kept.join('\n'));
    const { session } = await open(REVIEW);
    expect(userTurns(session)).toEqual(['add input validation to the signup form', 'fix the empty password finding']);
  });

  it('a <user_action> message outside review mode is still not a turn', async () => {
    const path = join(root, 'sessions', '2026', '03', '10', `rollout-2026-03-10T12-00-00-${REVIEW}.jsonl`);
    const kept = (await readFile(path, 'utf8')).split('\n').filter((line) => !line.includes('_review_mode'));
    await writeFile(path, kept.join('\n'));
    const { session } = await open(REVIEW);
    // Without the review events, the review prompt reads as a prompt; the findings never do.
    expect(userTurns(session)).toHaveLength(3);
    const reviewResult = session.messages.find((m) => messageText(m).startsWith('<user_action>'));
    expect(reviewResult).toMatchObject({ role: 'system', userTurn: false });
  });

  it('shows a sub-agent on its own, saying whose it is', async () => {
    const { session, row } = await open(REVIEWER);
    expect(userTurns(session)).toEqual(['Review the current code changes (staged, unstaged, and untracked files) and provide prioritized findings.']);
    expect(transcriptToText({ ...session, subagent: row.subagent })).toContain(`sub-agent (review) of: ${REVIEW}`);
  });

  it('strips control sequences from the sub-agent ids and kinds it prints (they come from the files)', async () => {
    const { session } = await open(REVIEWER);
    const hostile = { ...session, subagent: { kind: 'review\u001b[31m', parentId: 'p\u001b]0;owned\u0007' }, subagents: ['c\u001b[2J'] };
    for (const text of [transcriptToText(hostile), transcriptToMarkdown(hostile)]) {
      expect(text).not.toContain('\u001b');
      expect(text).toContain('sub-agent (review) of');
    }
  });

  it('reads a TypeScript-era rollout: prompts, answers, tool call and output', async () => {
    const { session } = await open(TYPESCRIPT);
    expect(session).toMatchObject({ id: TYPESCRIPT, createdAt: '2025-04-20T08:15:30.123Z', userTurns: 2, cwd: null });
    expect(session.messages.map((m) => [m.role, m.userTurn, m.blocks.map((b) => b.type).join(',')])).toEqual([
      ['user', true, 'text'],
      ['assistant', false, 'reasoning'],
      ['assistant', false, 'text'],
      ['user', true, 'text'],
      ['assistant', false, 'tool_use'],
      ['tool', false, 'tool_result'],
      ['assistant', false, 'text'],
    ]);
    expect(transcriptToText(session)).toContain('Lines fall into place');
  });
});

describe('fork', () => {
  it('counts turns as the user typed them across a review: --at 2 keeps the first turn and the review', async () => {
    const result = await scan();
    const row = result.sessions.find((s) => s.id === REVIEW)!;
    const group = { agent: 'codex' as const, paths: row.paths, idHint: row.id, root: row.root, archived: false };
    const fork = await codexAdapter.fork(group, { atTurn: 2, now: new Date('2026-03-11T08:00:00Z') }, result.context);
    expect(fork.keptUserTurns).toBe(1);
    const written = await readFile(fork.path, 'utf8');
    expect(written).toContain('entered_review_mode');
    expect(written).toContain('<user_action>');
    expect(written).not.toContain('fix the empty password finding');
    const forked = await codexAdapter.readSession({ ...group, paths: [fork.path], idHint: fork.id }, result.context);
    expect(userTurns(forked)).toEqual(['add input validation to the signup form']);
  });

  it('refuses a TypeScript-era rollout and writes nothing', async () => {
    const result = await scan();
    const row = result.sessions.find((s) => s.id === TYPESCRIPT)!;
    const before = await files(root);
    await expect(
      codexAdapter.fork({ agent: 'codex', paths: row.paths, idHint: row.id, root: row.root, archived: false }, { atTurn: 2 }, result.context),
    ).rejects.toThrow(UnsupportedForkError);
    expect(await files(root)).toEqual(before);
  });
});

describe('nesting sub-agents (catalog)', () => {
  const row = (id: string, extra: Partial<CatalogSession> = {}): CatalogSession => ({
    id,
    agent: 'codex',
    path: `/s/${id}.jsonl`,
    paths: [`/s/${id}.jsonl`],
    cwd: '/w',
    title: id,
    firstPrompt: id,
    lastPrompt: id,
    name: null,
    userTurns: 1,
    userTurnsExact: true,
    prompts: [id],
    createdAt: '2026-03-10T10:00:00.000Z',
    updatedAt: '2026-03-10T11:00:00.000Z',
    forkedFrom: null,
    fork: null,
    gitBranch: null,
    model: null,
    archived: false,
    usage: null,
    size: 1,
    mtimeMs: 0,
    root: '/s',
    ...extra,
  });

  it('nests a chain under its row, keeps a loop of named parents as rows, and picks the running session by cwd and time', () => {
    const sessions = [
      row('a'),
      row('b', { subagent: { kind: 'thread_spawn', parentId: 'a' } }),
      row('c', { subagent: { kind: 'thread_spawn', parentId: 'b' } }),
      row('x', { subagent: { kind: 'thread_spawn', parentId: 'y' } }),
      row('y', { subagent: { kind: 'thread_spawn', parentId: 'x' } }),
      row('early', { createdAt: '2026-03-10T08:00:00.000Z', updatedAt: '2026-03-10T09:00:00.000Z' }),
      row('review', { createdAt: '2026-03-10T10:30:00.000Z', subagent: { kind: 'review', parentId: null } }),
      row('elsewhere', { cwd: '/other', createdAt: '2026-03-10T10:30:00.000Z', subagent: { kind: 'review', parentId: null } }),
    ];
    const { rows, nested } = nestSubagents(sessions);
    expect(rows.map((r) => [r.id, r.subagents ?? []])).toEqual([
      ['a', ['b', 'review']],
      ['x', []],
      ['y', []],
      ['early', []],
      ['elsewhere', []],
    ]);
    expect(nested.map((n) => [n.id, n.subagent?.parentId, n.subagents ?? []])).toEqual([
      ['b', 'a', ['c']],
      ['c', 'b', []],
      ['review', 'a', []],
    ]);
  });
});

describe('lines that are never conversation (full-text search)', () => {
  const rollout = fileURLToPath(
    new URL('../../examples/home/.codex/sessions/2026/11/22/rollout-2026-11-22T01-44-55-01a200ed-8253-74d3-b561-f652765d4d59.jsonl', import.meta.url),
  );

  it('does not count a match inside the header instructions, turn contexts, developer messages or injected context', async () => {
    const openings = (await readFile(rollout, 'utf8')).split('\n').filter(Boolean).map((line) => line.slice(0, 512));
    const skipped = openings.filter((line) => isCodexNonConversationLine(line));
    expect(skipped.some((line) => line.includes('"type":"session_meta"'))).toBe(true);
    expect(skipped.some((line) => line.includes('"type":"turn_context"'))).toBe(true);
    // every user message kept is a typed prompt, every one skipped is context Codex injected
    for (const line of openings.filter((l) => l.includes('"role":"user"'))) {
      expect(isCodexNonConversationLine(line)).toBe(/<environment_context>|<user_instructions>|# AGENTS\.md|<permissions/i.test(line));
    }
    expect(isCodexNonConversationLine('{"id":"584c1c48-5ca1-4160-ac98-ec5c303552b5","timestamp":"2025-08-20T10:00:00.000Z","instructions":"You are"}')).toBe(true);
    // an escaped `"role":"developer"` inside a prompt's text is text, not a developer message
    expect(isCodexNonConversationLine('{"type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"say \\"role\\":\\"developer\\""}]}}')).toBe(false);
  });

  it('a word only in the instructions every rollout carries matches no session', () => {
    const search = compileTextSearch('do whatever you need', { ignoreCase: true });
    expect(fileContainsSync(rollout, search)).toBe(true);
    expect(fileContainsSync(rollout, search, undefined, undefined, isCodexNonConversationLine)).toBe(false);
  });
});
