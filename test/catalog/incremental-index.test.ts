import { appendFile, mkdir, mkdtemp, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CatalogCache } from '../../src/catalog/cache.js';
import { resolveLocations } from '../../src/catalog/locations.js';
import { scanCatalog, type CatalogSession } from '../../src/catalog/scan.js';
import { claudeAdapter } from '../../src/core/formats/claude/index.js';
import { codexAdapter } from '../../src/core/formats/codex/index.js';
import { geminiAdapter } from '../../src/core/formats/gemini/index.js';
import { qwenAdapter } from '../../src/core/formats/qwen/index.js';
import type { AdapterContext, SessionFileGroup } from '../../src/core/formats/types.js';
import { FINGERPRINT_BYTES, indexReads } from '../../src/core/io/lines.js';

/*
 * The index is exact and incremental: a row is folded from every line, its fold is saved with it, and a file that
 * only grew is read from where the fold stopped. These tests count the bytes read, and check that a row folded in
 * two goes equals the row of a whole read.
 */

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sessions-incremental-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const context = (saveFoldFrom = 0): AdapterContext => ({ report: () => undefined, lookup: () => undefined, names: () => new Map(), saveFoldFrom });

const CLAUDE_ID = '5e55104a-0000-4000-8000-00000000c1a0';
const PROJECT = '-home-dev-src-big';

function claudeLine(fields: Record<string, unknown>): string {
  return `${JSON.stringify({ isSidechain: false, userType: 'external', cwd: '/home/dev/src/big', sessionId: CLAUDE_ID, version: '2.1.197', gitBranch: 'main', ...fields })}\n`;
}

/** A Claude turn: prompt, tool call, a big tool result, answer; uuids `<tag>-…`. */
function claudeTurn(tag: string, parent: string | null, prompt: string, minute: number): { text: string; leaf: string } {
  const at = `2026-10-02T08:${String(minute % 60).padStart(2, '0')}:00.000Z`;
  const lines = [
    claudeLine({ parentUuid: parent, uuid: `${tag}-u`, type: 'user', timestamp: at, message: { role: 'user', content: prompt } }),
    claudeLine({ parentUuid: `${tag}-u`, uuid: `${tag}-a1`, type: 'assistant', timestamp: at, message: { id: `${tag}-m1`, model: 'claude-opus-4-8', role: 'assistant', content: [{ type: 'tool_use', id: `${tag}-t`, name: 'Bash', input: { command: 'ls' } }], usage: { input_tokens: 10, output_tokens: 2 } } }),
    claudeLine({ parentUuid: `${tag}-a1`, uuid: `${tag}-r`, type: 'user', timestamp: at, message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: `${tag}-t`, content: 'x'.repeat(20_000) }] }, toolUseResult: { stdout: 'x'.repeat(20_000) } }),
    claudeLine({ parentUuid: `${tag}-r`, uuid: `${tag}-att`, type: 'attachment', timestamp: at, attachment: { type: 'prompt_snapshot', content: 'y'.repeat(10_000) } }),
    claudeLine({ parentUuid: `${tag}-att`, uuid: `${tag}-a2`, type: 'assistant', timestamp: at, message: { id: `${tag}-m2`, model: 'claude-opus-4-8', role: 'assistant', content: [{ type: 'text', text: `answer ${tag}` }], usage: { input_tokens: 20, output_tokens: 3 } } }),
  ];
  return { text: lines.join(''), leaf: `${tag}-a2` };
}

async function bigClaudeFile(turns: number): Promise<{ path: string; group: SessionFileGroup; leaf: string }> {
  const root = join(dir, '.claude');
  const folder = join(root, 'projects', PROJECT);
  await mkdir(folder, { recursive: true });
  const path = join(folder, `${CLAUDE_ID}.jsonl`);
  // uuid-less request records of the newest Claude Code: skimmed, never part of the tree.
  const parts = [`${JSON.stringify({ type: 'api-request-shape', sessionId: CLAUDE_ID, shape: { tools: Array.from({ length: 300 }, (_, i) => ({ name: `tool${i}`, description: 'commit '.repeat(10) })) } })}\n`];
  let leaf: string | null = null;
  for (let i = 0; i < turns; i++) {
    const turn = claudeTurn(`t${i}`, leaf, `prompt number ${i}`, i);
    parts.push(turn.text);
    leaf = turn.leaf;
  }
  await writeFile(path, parts.join(''));
  return { path, group: { agent: 'claude', paths: [path], idHint: CLAUDE_ID, root, archived: false }, leaf: leaf! };
}

describe('Claude: a saved fold goes on over appended lines', () => {
  it('reads only the appended turn, and the row is the row of a whole read', async () => {
    const { path, group, leaf } = await bigClaudeFile(60);
    const first = await claudeAdapter.indexSession(group, context());
    expect((await stat(path)).size).toBeGreaterThan(1024 * 1024);
    expect(first.summary).toMatchObject({ userTurns: 60, userTurnsExact: true, lastPrompt: 'prompt number 59' });
    expect(first.resume?.offset).toBe((await stat(path)).size);

    const appended = claudeTurn('new', leaf, 'one more question', 59).text;
    await appendFile(path, appended);
    // The fold travels through JSON (it is saved to disk between runs); the row it made comes with it.
    const resume = { ...(JSON.parse(JSON.stringify(first.resume)) as NonNullable<typeof first.resume>), row: first.summary! };
    const before = indexReads.bytes;
    const next = await claudeAdapter.indexSession(group, context(), resume);
    expect(indexReads.bytes - before).toBe(Buffer.byteLength(appended) + FINGERPRINT_BYTES);
    expect(next.bytesRead).toBe(Buffer.byteLength(appended) + FINGERPRINT_BYTES);
    const whole = await claudeAdapter.indexSession(group, context());
    expect(next.summary).toEqual(whole.summary);
    expect(next.summary).toMatchObject({ userTurns: 61, lastPrompt: 'one more question', usage: { input: 61 * 30, output: 61 * 5, cacheRead: 0, cacheWrite: 0 } });
  });

  it('a /init waiting for its answer when the fold is saved becomes a turn once the answer is appended', async () => {
    const { path, group, leaf } = await bigClaudeFile(30);
    const at = '2026-10-02T09:00:00.000Z';
    // The command line and its meta expansion are written; the model has not answered yet.
    await appendFile(
      path,
      claudeLine({ parentUuid: leaf, uuid: 'cmd-u', type: 'user', timestamp: at, message: { role: 'user', content: '<command-message>init</command-message>\n<command-name>/init</command-name>' } }) +
        claudeLine({ parentUuid: 'cmd-u', uuid: 'cmd-meta', type: 'user', isMeta: true, timestamp: at, message: { role: 'user', content: [{ type: 'text', text: 'Please analyze this codebase and create a CLAUDE.md file.' }] } }),
    );
    const first = await claudeAdapter.indexSession(group, context());
    expect(first.summary).toMatchObject({ userTurns: 30 });
    const answer = claudeLine({ parentUuid: 'cmd-meta', uuid: 'cmd-a', type: 'assistant', timestamp: at, message: { id: 'cmd-m', model: 'claude-opus-4-8', role: 'assistant', content: [{ type: 'text', text: 'Wrote CLAUDE.md.' }], usage: { input_tokens: 1, output_tokens: 1 } } });
    await appendFile(path, answer);
    const next = await claudeAdapter.indexSession(group, context(), first.resume && { ...first.resume, row: first.summary! });
    const whole = await claudeAdapter.indexSession(group, context());
    expect(whole.summary).toMatchObject({ userTurns: 31, lastPrompt: '/init' });
    expect(next.summary).toEqual(whole.summary);
  });

  it('follows a rewind appended after the fold: the turns are those of the new branch', async () => {
    const { path, group } = await bigClaudeFile(40);
    const first = await claudeAdapter.indexSession(group, context());
    // The user went back to turn 3 (its parent is turn 2's answer) and asked something else.
    const rewind = claudeTurn('rw', 't1-a2', 'a different third question', 50).text;
    await appendFile(path, rewind);
    const next = await claudeAdapter.indexSession(group, context(), { ...first.resume!, row: first.summary! });
    expect(next.bytesRead).toBe(Buffer.byteLength(rewind) + FINGERPRINT_BYTES);
    expect(next.summary).toEqual((await claudeAdapter.indexSession(group, context())).summary);
    expect(next.summary).toMatchObject({ userTurns: 3, prompts: ['prompt number 0', 'prompt number 1', 'a different third question'] });
  });

  it('reads the file again whole when an appended line continues from a node the saved fold does not keep', async () => {
    // 100 turns: a rewind to turn 3 goes further back than the saved fold's rewind points.
    const { path, group } = await bigClaudeFile(100);
    const first = await claudeAdapter.indexSession(group, context());
    await appendFile(path, claudeTurn('deep', 't1-a2', 'back to the start', 50).text);
    const next = await claudeAdapter.indexSession(group, context(), { ...first.resume!, row: first.summary! });
    expect(next.bytesRead).toBeGreaterThan((await stat(path)).size);
    expect(next.summary).toEqual((await claudeAdapter.indexSession(group, context())).summary);
    expect(next.summary).toMatchObject({ userTurns: 3, lastPrompt: 'back to the start' });
  });

  it('saves the fold before a last line still being written, and goes on from that line', async () => {
    const { path, group, leaf } = await bigClaudeFile(30);
    const turn = claudeTurn('half', leaf, 'written in two goes', 40).text;
    await appendFile(path, turn.slice(0, 100));
    const first = await claudeAdapter.indexSession(group, context());
    await appendFile(path, turn.slice(100));
    const next = await claudeAdapter.indexSession(group, context(), { ...first.resume!, row: first.summary! });
    expect(next.summary).toEqual((await claudeAdapter.indexSession(group, context())).summary);
    expect(next.summary).toMatchObject({ userTurns: 31, lastPrompt: 'written in two goes' });
  });
});

const CODEX_ID = '0199c0de-0000-7000-8000-0000000c0de1';

function codexLine(type: string, payload: Record<string, unknown>, second: number): string {
  return `${JSON.stringify({ timestamp: `2026-10-02T09:00:${String(second % 60).padStart(2, '0')}.000Z`, type, payload })}\n`;
}

function codexTurn(prompt: string, second: number, total: number): string {
  return [
    codexLine('turn_context', { cwd: '/home/dev/src/api', model: 'gpt-5.5' }, second),
    codexLine('response_item', { type: 'message', role: 'user', content: [{ type: 'input_text', text: '<environment_context><cwd>/x</cwd></environment_context>' }] }, second),
    codexLine('response_item', { type: 'message', role: 'user', content: [{ type: 'input_text', text: prompt }] }, second),
    codexLine('event_msg', { type: 'user_message', message: prompt }, second),
    codexLine('response_item', { type: 'function_call_output', call_id: 'c', output: 'o'.repeat(30_000) }, second),
    codexLine('response_item', { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: `answer to ${prompt}` }] }, second),
    codexLine('event_msg', { type: 'token_count', info: { total_token_usage: { input_tokens: total, output_tokens: 1, cached_input_tokens: 0 } } }, second),
  ].join('');
}

async function bigCodexFile(turns: number): Promise<{ path: string; group: SessionFileGroup }> {
  const root = join(dir, '.codex');
  const day = join(root, 'sessions', '2026', '10', '02');
  await mkdir(day, { recursive: true });
  const path = join(day, `rollout-2026-10-02T09-00-00-${CODEX_ID}.jsonl`);
  const meta = codexLine('session_meta', { id: CODEX_ID, timestamp: '2026-10-02T09:00:00.000Z', cwd: '/home/dev/src/api', base_instructions: { text: 'i'.repeat(20_000) }, git: { branch: 'main' } }, 0);
  await writeFile(path, meta + Array.from({ length: turns }, (_, i) => codexTurn(`codex prompt ${i}`, i, (i + 1) * 100)).join(''));
  return { path, group: { agent: 'codex', paths: [path], idHint: CODEX_ID, root, archived: false } };
}

describe('Codex: a saved fold goes on over appended lines', () => {
  it('reads only the appended turn; a rollback appended later drops turns as in a whole read', async () => {
    const { path, group } = await bigCodexFile(40);
    const first = await codexAdapter.indexSession(group, context());
    expect(first.summary).toMatchObject({ userTurns: 40, userTurnsExact: true, usage: { input: 4000 } });
    const appended = codexTurn('one more', 50, 4100);
    await appendFile(path, appended);
    const resume = { ...(JSON.parse(JSON.stringify(first.resume)) as NonNullable<typeof first.resume>), row: first.summary! };
    const next = await codexAdapter.indexSession(group, context(), resume);
    expect(next.bytesRead).toBe(Buffer.byteLength(appended) + FINGERPRINT_BYTES);
    expect(next.summary).toEqual((await codexAdapter.indexSession(group, context())).summary);
    expect(next.summary).toMatchObject({ userTurns: 41, lastPrompt: 'one more', usage: { input: 4100 } });

    await appendFile(path, codexLine('event_msg', { type: 'thread_rolled_back', num_turns: 2 }, 55));
    const rolled = await codexAdapter.indexSession(group, context(), { ...next.resume!, row: next.summary! });
    expect(rolled.bytesRead).toBeLessThan(1000);
    expect(rolled.summary).toEqual((await codexAdapter.indexSession(group, context())).summary);
    expect(rolled.summary).toMatchObject({ userTurns: 39, lastPrompt: 'codex prompt 38' });
  });

  it('a review under way when the fold is saved goes on after it: what Codex writes there is no turn', async () => {
    const { path, group } = await bigCodexFile(20);
    await appendFile(path, codexLine('event_msg', { type: 'entered_review_mode' }, 30));
    const first = await codexAdapter.indexSession(group, context());
    // The review's own prompt arrives after the fold was saved, then the review ends and the user types again.
    const appended = [
      codexLine('response_item', { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Review the current changes' }] }, 31),
      codexLine('event_msg', { type: 'exited_review_mode' }, 32),
      codexTurn('after the review', 33, 2200),
    ].join('');
    await appendFile(path, appended);
    const resume = { ...(JSON.parse(JSON.stringify(first.resume)) as NonNullable<typeof first.resume>), row: first.summary! };
    const next = await codexAdapter.indexSession(group, context(), resume);
    expect(next.bytesRead).toBe(Buffer.byteLength(appended) + FINGERPRINT_BYTES);
    expect(next.summary).toEqual((await codexAdapter.indexSession(group, context())).summary);
    expect(next.summary).toMatchObject({ userTurns: 21, lastPrompt: 'after the review' });
  });
});

const GEMINI_ID = '9e111111-0000-4000-8000-00000000ce01';

function geminiLine(record: Record<string, unknown>): string {
  return `${JSON.stringify(record)}\n`;
}

/** A Gemini CLI turn as 0.61 records it: prompt, the answer's call (updated in place with its result), the answer, $set updates. */
function geminiTurn(i: number, prompt: string): string {
  const at = `2026-10-02T10:${String(i % 60).padStart(2, '0')}:00.000Z`;
  const call = { id: `g${i}`, timestamp: at, type: 'gemini', content: '', thoughts: [], tokens: { input: 100, output: 1, cached: 10, thoughts: 0, tool: 0, total: 101 }, model: 'gemini-3.8-flash' };
  return [
    geminiLine({ id: `u${i}`, timestamp: at, type: 'user', content: [{ text: prompt }] }),
    geminiLine({ $set: { lastUpdated: at } }),
    geminiLine(call),
    geminiLine({ ...call, toolCalls: [{ id: `c${i}`, name: 'run_shell_command', args: { command: 'ls' }, result: [{ functionResponse: { id: `c${i}`, name: 'run_shell_command', response: { output: 'x'.repeat(22_000) } } }], status: 'success' }] }),
    geminiLine({ id: `a${i}`, timestamp: at, type: 'gemini', content: `answer ${i}`, thoughts: [{ subject: 'Plan', description: 'y'.repeat(2000) }], tokens: { input: 200, output: 2, cached: 0, thoughts: 1, tool: 0, total: 203 }, model: 'gemini-3.8-flash' }),
  ].join('');
}

async function bigGeminiFile(turns: number): Promise<{ path: string; group: SessionFileGroup }> {
  const root = join(dir, '.gemini');
  const project = join(root, 'tmp', 'big');
  await mkdir(join(project, 'chats'), { recursive: true });
  await writeFile(join(project, '.project_root'), '/home/dev/src/big');
  const path = join(project, 'chats', 'session-2026-10-02T10-00-9e111111.jsonl');
  const meta = geminiLine({ sessionId: GEMINI_ID, projectHash: 'h', startTime: '2026-10-02T10:00:00.000Z', lastUpdated: '2026-10-02T10:00:00.000Z', kind: 'main' });
  const context = geminiLine({ $set: { messages: [{ id: 'ctx', timestamp: '2026-10-02T10:00:00.000Z', type: 'user', content: [{ text: `<session_context>\n${'z'.repeat(5000)}` }] }] } });
  await writeFile(path, meta + context + Array.from({ length: turns }, (_, i) => geminiTurn(i, `gemini prompt ${i}`)).join(''));
  return { path, group: { agent: 'gemini', paths: [path], idHint: null, root, archived: false } };
}

describe('Gemini CLI: a saved fold (message digests) goes on over appended records', () => {
  it('reads only the appended turn; a rewind appended later drops turns as in a whole read', async () => {
    const { path, group } = await bigGeminiFile(45);
    const first = await geminiAdapter.indexSession(group, context());
    expect((await stat(path)).size).toBeGreaterThan(1024 * 1024);
    expect(first.summary).toMatchObject({ userTurns: 45, cwd: '/home/dev/src/big', lastPrompt: 'gemini prompt 44' });
    expect(first.resume?.offset).toBe((await stat(path)).size);
    // The saved fold keeps digests, not messages: a fraction of the file.
    expect(JSON.stringify(first.resume!.state).length).toBeLessThan(20_000);

    const appended = geminiTurn(50, 'one more question');
    await appendFile(path, appended);
    const resume = { ...(JSON.parse(JSON.stringify(first.resume)) as NonNullable<typeof first.resume>), row: first.summary! };
    const before = indexReads.bytes;
    const next = await geminiAdapter.indexSession(group, context(), resume);
    expect(indexReads.bytes - before).toBe(Buffer.byteLength(appended) + FINGERPRINT_BYTES);
    expect(next.bytesRead).toBe(Buffer.byteLength(appended) + FINGERPRINT_BYTES);
    const whole = await geminiAdapter.indexSession(group, context());
    expect(next.summary).toEqual(whole.summary);
    expect(next.summary).toMatchObject({ userTurns: 46, lastPrompt: 'one more question', usage: { input: 46 * 290, output: 46 * 4, cacheRead: 46 * 10, cacheWrite: 0 } });

    // /rewind to turn 44's prompt: it and what followed are dropped.
    await appendFile(path, geminiLine({ $rewindTo: 'u44' }));
    const rewound = await geminiAdapter.indexSession(group, context(), { ...next.resume!, row: next.summary! });
    expect(rewound.bytesRead).toBeLessThan(1000);
    expect(rewound.summary).toEqual((await geminiAdapter.indexSession(group, context())).summary);
    expect(rewound.summary).toMatchObject({ userTurns: 44, lastPrompt: 'gemini prompt 43' });
  });

  it('a saved fold that is not one (a stale format) is not trusted: the file is read whole', async () => {
    const { path, group } = await bigGeminiFile(40);
    const first = await geminiAdapter.indexSession(group, context());
    const next = await geminiAdapter.indexSession(group, context(), { path, offset: first.resume!.offset, state: { messages: [['u0', { timestamp: 5 }]] } });
    expect(next.bytesRead).toBeGreaterThanOrEqual((await stat(path)).size);
    expect(next.summary).toEqual(first.summary);
  });
});

const QWEN_ID = '9e222222-0000-4000-8000-00000000ce02';

function qwenLine(fields: Record<string, unknown>): string {
  return `${JSON.stringify({ sessionId: QWEN_ID, cwd: '/home/dev/src/big', version: '0.24.4', gitBranch: 'main', ...fields })}\n`;
}

/** A Qwen Code turn: prompt, telemetry, a call, its (big) result, the answer; uuids `<tag>-…`. */
function qwenTurn(tag: string, parent: string | null, prompt: string, i: number): { text: string; leaf: string } {
  const at = `2026-10-02T11:${String(i % 60).padStart(2, '0')}:00.000Z`;
  const usage = { promptTokenCount: 100, candidatesTokenCount: 2, thoughtsTokenCount: 1, cachedContentTokenCount: 10 };
  const lines = [
    qwenLine({ uuid: `${tag}-u`, parentUuid: parent, timestamp: at, type: 'user', provenance: 'real_user', message: { role: 'user', parts: [{ text: prompt }] } }),
    qwenLine({ uuid: `${tag}-t`, parentUuid: `${tag}-u`, timestamp: at, type: 'system', provenance: 'system', subtype: 'ui_telemetry', systemPayload: { uiEvent: { response_text: 'r'.repeat(3000) } } }),
    qwenLine({ uuid: `${tag}-a1`, parentUuid: `${tag}-t`, timestamp: at, type: 'assistant', provenance: 'assistant_output', model: 'stand-in', message: { role: 'model', parts: [{ functionCall: { id: `${tag}-c`, name: 'run_shell_command', args: { command: 'ls' } } }] }, usageMetadata: usage }),
    qwenLine({ uuid: `${tag}-r`, parentUuid: `${tag}-a1`, timestamp: at, type: 'tool_result', provenance: 'tool_result', message: { role: 'user', parts: [{ functionResponse: { id: `${tag}-c`, name: 'run_shell_command', response: { output: 'o'.repeat(20_000) } } }] } }),
    qwenLine({ uuid: `${tag}-a2`, parentUuid: `${tag}-r`, timestamp: at, type: 'assistant', provenance: 'assistant_output', model: 'stand-in', message: { role: 'model', parts: [{ text: 'thinking', thought: true }, { text: `answer ${tag}` }] }, usageMetadata: usage }),
  ];
  return { text: lines.join(''), leaf: `${tag}-a2` };
}

async function bigQwenFile(turns: number): Promise<{ path: string; group: SessionFileGroup; leaf: string }> {
  const root = join(dir, '.qwen');
  const chats = join(root, 'projects', '-home-dev-src-big', 'chats');
  await mkdir(chats, { recursive: true });
  const path = join(chats, `${QWEN_ID}.jsonl`);
  const parts: string[] = [];
  let leaf: string | null = null;
  for (let i = 0; i < turns; i++) {
    const turn = qwenTurn(`q${i}`, leaf, `qwen prompt ${i}`, i);
    parts.push(turn.text);
    leaf = turn.leaf;
  }
  await writeFile(path, parts.join(''));
  return { path, group: { agent: 'qwen', paths: [path], idHint: QWEN_ID, root, archived: false }, leaf: leaf! };
}

describe('Qwen Code: a saved fold (one node per uuid) goes on over appended records', () => {
  it('reads only the appended turn; a branch from an older turn (a rewind) is followed as in a whole read', async () => {
    const { path, group, leaf } = await bigQwenFile(45);
    const first = await qwenAdapter.indexSession(group, context());
    expect((await stat(path)).size).toBeGreaterThan(1024 * 1024);
    expect(first.summary).toMatchObject({ userTurns: 45, cwd: '/home/dev/src/big', lastPrompt: 'qwen prompt 44', gitBranch: 'main' });

    const appended = qwenTurn('new', leaf, 'one more question', 50).text;
    await appendFile(path, appended);
    const resume = { ...(JSON.parse(JSON.stringify(first.resume)) as NonNullable<typeof first.resume>), row: first.summary! };
    const before = indexReads.bytes;
    const next = await qwenAdapter.indexSession(group, context(), resume);
    expect(indexReads.bytes - before).toBe(Buffer.byteLength(appended) + FINGERPRINT_BYTES);
    expect(next.bytesRead).toBe(Buffer.byteLength(appended) + FINGERPRINT_BYTES);
    expect(next.summary).toEqual((await qwenAdapter.indexSession(group, context())).summary);
    expect(next.summary).toMatchObject({ userTurns: 46, lastPrompt: 'one more question', usage: { input: 46 * 180, output: 46 * 6, cacheRead: 46 * 20, cacheWrite: 0 } });

    // The user went back to turn 3 (its parent is turn 2's answer) and asked something else; then renamed it.
    const branch = qwenTurn('rw', 'q1-a2', 'a different third question', 55).text + qwenLine({ uuid: 'title', parentUuid: 'rw-a2', timestamp: '2026-10-02T12:00:00.000Z', type: 'system', provenance: 'system', subtype: 'custom_title', systemPayload: { customTitle: 'renamed' } });
    await appendFile(path, branch);
    const rewound = await qwenAdapter.indexSession(group, context(), { ...next.resume!, row: next.summary! });
    expect(rewound.bytesRead).toBe(Buffer.byteLength(branch) + FINGERPRINT_BYTES);
    expect(rewound.summary).toEqual((await qwenAdapter.indexSession(group, context())).summary);
    expect(rewound.summary).toMatchObject({ userTurns: 3, prompts: ['qwen prompt 0', 'qwen prompt 1', 'a different third question'], title: 'renamed' });
  });
});

describe('the catalog cache: fingerprints and folds', () => {
  const locations = () => resolveLocations({ home: dir }, { env: {}, homeDir: dir, cwd: dir });
  const cachePath = () => join(dir, 'cache', 'catalog.jsonl');
  const scanWithCache = async (): Promise<CatalogSession[]> => {
    const cache = await CatalogCache.load(cachePath());
    const { sessions } = await scanCatalog(locations(), { cache, workers: 0 });
    await cache.save();
    return [...sessions];
  };

  it('re-indexes one appended turn of a big session by reading the appended bytes (and two fingerprints) only', async () => {
    const { path, leaf } = await bigClaudeFile(60);
    const [cold] = await scanWithCache();
    expect(cold).toMatchObject({ userTurns: 60 });
    const appended = claudeTurn('new', leaf, 'appended while listed', 59).text;
    await appendFile(path, appended);
    const before = indexReads.bytes;
    const [warm] = await scanWithCache();
    expect(indexReads.bytes - before).toBe(Buffer.byteLength(appended) + 2 * FINGERPRINT_BYTES);
    expect(warm).toMatchObject({ userTurns: 61, lastPrompt: 'appended while listed' });
    // Nothing changed: nothing but the fingerprint is read.
    const again = indexReads.bytes;
    await scanWithCache();
    expect(indexReads.bytes - again).toBe(FINGERPRINT_BYTES);
  });

  it('reads a file again whole when its first bytes changed, even with the same size and mtime', async () => {
    const { path } = await bigClaudeFile(3);
    const at = new Date('2026-10-02T10:00:00.000Z');
    await utimes(path, at, at);
    const [before] = await scanWithCache();
    expect(before).toMatchObject({ firstPrompt: 'prompt number 0' });
    const info = await stat(path);
    const text = await readFile(path, 'utf8');
    // Same length, other first bytes (the request record's id), and a first prompt of the same length.
    await writeFile(path, text.replace('"type":"api-request-shape","sessionId":"5e55104a', '"type":"api-request-shape","sessionId":"5e55104b').replace('prompt number 0', 'PROMPT NUMBER 0'));
    await utimes(path, at, at);
    expect((await stat(path)).size).toBe(info.size);
    expect((await stat(path)).mtimeMs).toBe(info.mtimeMs);
    const [after] = await scanWithCache();
    expect(after).toMatchObject({ firstPrompt: 'PROMPT NUMBER 0' });
  });

  it('remembers files that hold no conversation: a warm scan reads only their fingerprints, a changed one is read again', async () => {
    const { path } = await bigClaudeFile(2);
    // A summary-only Claude file (no conversation), beside the session.
    const summaryOnly = join(dir, '.claude', 'projects', PROJECT, '5e55104a-0000-4000-8000-0000000000aa.jsonl');
    const summaryLine = `${JSON.stringify({ type: 'summary', summary: 'Another session title', leafUuid: 'not-in-this-file' })}\n`;
    await writeFile(summaryOnly, summaryLine.repeat(200));
    const cold = await scanWithCache();
    expect(cold.map((s) => s.path)).toEqual([path]);
    const saved = await readFile(cachePath(), 'utf8');
    expect(saved).toContain(`{"none":[[${JSON.stringify(summaryOnly)},`);
    const before = indexReads.bytes;
    expect((await scanWithCache()).map((s) => s.path)).toEqual([path]);
    expect(indexReads.bytes - before).toBe(2 * FINGERPRINT_BYTES);
    // It becomes a conversation: read again, listed.
    await appendFile(summaryOnly, claudeTurn('late', null, 'a prompt at last', 1).text.replaceAll(CLAUDE_ID, '5e55104a-0000-4000-8000-0000000000aa'));
    const after = await scanWithCache();
    expect(after.map((s) => s.firstPrompt).sort()).toEqual(['a prompt at last', 'prompt number 0']);
  });

  it('reads a file again whole when it shrank', async () => {
    const { path } = await bigClaudeFile(30);
    await scanWithCache();
    const lines = (await readFile(path, 'utf8')).split('\n');
    await writeFile(path, `${lines.slice(0, 1 + 5 * 10).join('\n')}\n`);
    const [after] = await scanWithCache();
    expect(after).toMatchObject({ userTurns: 10, lastPrompt: 'prompt number 9' });
  });
});

describe('files the cache knows hold no conversation', () => {
  it('are not read again by toRow (grep and the watcher) while their stamps match: only their fingerprint is', async () => {
    const { toRow, ScanContext } = await import('../../src/catalog/scan.js');
    const root = join(dir, '.claude');
    const folder = join(root, 'projects', PROJECT);
    await mkdir(folder, { recursive: true });
    // A file of Claude Code's own records and no message: a fifth of a real home's files are like this.
    const path = join(folder, `${CLAUDE_ID}.jsonl`);
    const snapshot = (n: number): string => `${JSON.stringify({ type: 'file-history-snapshot', messageId: `m${n}`, snapshot: { trackedFileBackups: {}, timestamp: '2026-10-02T08:00:00.000Z', files: 'z'.repeat(2000) } })}\n`;
    await writeFile(path, Array.from({ length: 50 }, (_, n) => snapshot(n)).join(''));
    const group: SessionFileGroup = { agent: 'claude', paths: [path], idHint: CLAUDE_ID, root, archived: false };
    const cachePath = join(dir, 'cache.jsonl');
    const cache = await CatalogCache.load(cachePath);
    expect(await toRow(group, new ScanContext(), cache)).toBeNull();
    await cache.save();

    for (const reopened of [await CatalogCache.load(cachePath), await CatalogCache.lazy(cachePath)]) {
      const before = indexReads.bytes;
      expect(await toRow(group, new ScanContext(), reopened)).toBeNull();
      expect(indexReads.bytes - before).toBe(FINGERPRINT_BYTES);
    }
    // Changed, it is read again (and still holds none).
    await appendFile(path, snapshot(99));
    const before = indexReads.bytes;
    expect(await toRow(group, new ScanContext(), await CatalogCache.load(cachePath))).toBeNull();
    expect(indexReads.bytes - before).toBeGreaterThan(50 * 2000);
  });
});
