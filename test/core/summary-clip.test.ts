// A Claude summary clips the long strings of big lines before parsing them: what it lists must not change.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claudeAdapter } from '../../src/core/formats/claude/index.js';
import type { AdapterContext, SessionFileGroup } from '../../src/core/formats/types.js';

const ID = '5e551011-0000-4000-8000-00000000c11f';
let root: string;
let group: SessionFileGroup;
const context: AdapterContext = { report: () => undefined, lookup: () => undefined, names: () => new Map() };

const uuid = (n: number): string => `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;
const base = (n: number, parent: number | null) => ({
  parentUuid: parent === null ? null : uuid(parent),
  isSidechain: false,
  userType: 'external',
  cwd: '/home/dev/src/clip',
  sessionId: ID,
  version: '2.1.197',
  gitBranch: 'main',
  uuid: uuid(n),
  timestamp: `2026-11-20T10:00:${String(n).padStart(2, '0')}.000Z`,
});

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'sessions-summary-clip-'));
  const dir = join(root, 'projects', '-home-dev-src-clip');
  await mkdir(dir, { recursive: true });
  const longPrompt = `Please review this log — ünïcødé and all:\n${'2026-11-20 ERROR something "quoted" \\ failed at step\n'.repeat(90)}`;
  const output = `${'line of tool output with "quotes" and \\backslashes\\ and ✓ marks\n'.repeat(200)}`;
  const lines = [
    { ...base(1, null), type: 'user', message: { role: 'user', content: longPrompt } },
    { ...base(2, 1), type: 'assistant', message: { id: 'msg_1', model: 'claude-opus-4', role: 'assistant', content: [{ type: 'thinking', thinking: 'x'.repeat(9000), signature: 'S'.repeat(6000) }, { type: 'tool_use', id: 'toolu_1', name: 'Bash', input: { command: 'cat log' } }], usage: { input_tokens: 10, output_tokens: 20 } } },
    { ...base(3, 2), type: 'user', message: { role: 'user', content: [{ tool_use_id: 'toolu_1', type: 'tool_result', content: output }] }, toolUseResult: { stdout: output, stderr: '' } },
    { ...base(4, 3), type: 'assistant', message: { id: 'msg_2', model: 'claude-opus-4', role: 'assistant', content: [{ type: 'text', text: 'Found it. '.repeat(700) }], usage: { input_tokens: 30, output_tokens: 40 } } },
    { ...base(5, 4), type: 'user', message: { role: 'user', content: [{ type: 'text', text: `now fix it ${'please '.repeat(700)}` }] } },
    { ...base(6, 5), type: 'assistant', message: { id: 'msg_3', model: 'claude-opus-4', role: 'assistant', content: [{ type: 'text', text: 'Done.' }], usage: { input_tokens: 50, output_tokens: 60 } } },
    { type: 'last-prompt', lastPrompt: `now fix it ${'please '.repeat(700)}`, sessionId: ID },
  ];
  const text = lines.map((line) => JSON.stringify(line)).join('\n') + '\n';
  expect(lines.filter((line) => JSON.stringify(line).length > 4096).length).toBeGreaterThanOrEqual(6); // clipped
  const path = join(dir, `${ID}.jsonl`);
  await writeFile(path, text);
  group = { agent: 'claude', paths: [path], idHint: ID, root, archived: false };
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('Claude summaries of big lines', () => {
  it('list what a full read lists: prompts, turns, model, usage, times', async () => {
    const summary = await claudeAdapter.readSummary(group, context);
    const { messages: _messages, malformedLines: _malformed, ...full } = await claudeAdapter.readSession(group, context);
    expect(summary).toEqual(full);
    expect(summary!.userTurns).toBe(2);
    expect(summary!.firstPrompt).toMatch(/^Please review this log — ünïcødé and all: 2026-11-20 ERROR something "quoted" \\ failed/);
    expect(summary!.lastPrompt).toMatch(/^now fix it please please/);
    expect(summary!.usage).toEqual({ input: 90, output: 120, cacheRead: 0, cacheWrite: 0 });
    expect(JSON.stringify(summary)).not.toContain('\\u0000');
  });
});
