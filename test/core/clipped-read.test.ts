import { mkdtemp, rm, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { groupOf, scanCatalog, type CatalogSession, type ScanContext } from '../../src/catalog/scan.js';
import { ADAPTERS } from '../../src/core/formats/index.js';
import { COUNT_CLIP_LIMITS, DISPLAY_CLIP_LIMITS, type ClipLimits } from '../../src/core/io/clip.js';
import type { SessionFileGroup } from '../../src/core/formats/types.js';
import type { Block, Message, Session } from '../../src/core/model.js';
import { noRoots } from '../../src/catalog/locations.js';

const FIXTURES = fileURLToPath(new URL('../fixtures/', import.meta.url));

/** Every session of every fixture home, as the catalog finds them. */
async function fixtureSessions(): Promise<{ sessions: readonly CatalogSession[]; context: ScanContext }> {
  const result = await scanCatalog({
    roots: {
      ...noRoots(),
      codex: [join(FIXTURES, 'home', '.codex'), join(FIXTURES, 'codex-synthetic', '.codex')],
      claude: [join(FIXTURES, 'home', '.claude'), join(FIXTURES, 'claude-synthetic', '.claude')],
      claw: [join(FIXTURES, 'home', 'src'), join(FIXTURES, 'claw-synthetic')],
    },
    cwd: join(FIXTURES, 'claw-synthetic', 'demo'),
    rootsFromCwds: false,
  });
  return { sessions: result.sessions, context: result.context };
}

/** The text of a block (the field clipping can shorten). */
function textOf(block: Block): string {
  switch (block.type) {
    case 'text':
      return block.text;
    case 'tool_use':
      return block.input;
    case 'tool_result':
      return block.output;
    case 'reasoning':
    case 'compaction':
      return block.summary;
    case 'image':
      return block.data ?? block.url ?? '';
  }
}

/** The full session's shape (everything but the texts clipping shortens), to compare with a clipped read. */
function shape(session: Session): unknown {
  // Titles and prompt openings come from texts, which clipping shortens; the rest must be the same.
  const { messages, title: _title, firstPrompt: _first, lastPrompt: _last, prompts: _prompts, ...rest } = session;
  return {
    ...rest,
    messages: messages.map(({ blocks, ...message }) => ({
      ...message,
      blocks: blocks.map((block) => ({ type: block.type, ...(block.type === 'tool_use' ? { id: block.id, name: block.name } : {}) })),
    })),
  };
}

/** A clipped text is the full text with each clipped stretch replaced by `…`: every piece between marks is in it, in order. */
function expectClippedText(full: string, clipped: string): void {
  let at = 0;
  for (const piece of clipped.split('…')) {
    const found = full.indexOf(piece, at);
    expect(found, `"${piece.slice(0, 40)}" in the full text`).toBeGreaterThanOrEqual(0);
    at = found + piece.length;
  }
}

describe('a clipped read (display) against the full read, on every fixture session', () => {
  // Small enough to clip most tool outputs of the fixtures, big enough to keep the openings that classify lines.
  const SMALL: ClipLimits = { text: 120, other: 80 };

  it.each([
    ['small limits', SMALL],
    ['the TUI limits', DISPLAY_CLIP_LIMITS],
    ['the turn-count limits', COUNT_CLIP_LIMITS],
  ])('gives the same turns, roles, order and sources with %s', async (_name, limits) => {
    const { sessions, context } = await fixtureSessions();
    expect(sessions.length).toBeGreaterThan(20);
    expect(new Set(sessions.map((s) => s.agent))).toEqual(new Set(['codex', 'claude', 'claw']));
    let clippedBlocks = 0;
    for (const session of sessions) {
      const adapter = ADAPTERS[session.agent];
      const full = await adapter.readSession(groupOf(session), context);
      const clipped = await adapter.readSession(groupOf(session), context, { clip: limits });
      expect(shape(clipped), session.path).toEqual(shape(full));
      full.messages.forEach((message, m) => {
        message.blocks.forEach((block, b) => {
          const other = clipped.messages[m]!.blocks[b]!;
          if (other.clippedBytes === undefined) {
            expect(textOf(other)).toBe(textOf(block));
            return;
          }
          clippedBlocks++;
          expect(other.clippedBytes).toBeGreaterThan(0);
          expectClippedText(textOf(block), textOf(other));
          expect(textOf(other).length).toBeLessThanOrEqual(textOf(block).length);
          expect(block.clippedBytes).toBeUndefined();
        });
      });
    }
    if (limits === SMALL) expect(clippedBlocks).toBeGreaterThan(10);
  });
});

describe('a clipped read of a big session', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'sessions-clip-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('holds a few KiB of a multi-megabyte tool output and says how much it left out', async () => {
    const id = '0199c0de-0000-7000-8000-00000000c11b';
    const folder = join(dir, '.codex', 'sessions', '2026', '01', '15');
    await mkdir(folder, { recursive: true });
    const output = `${'line of output é\n'.repeat(300_000)}the end`;
    const lines = [
      { timestamp: '2026-01-15T10:00:00.000Z', type: 'session_meta', payload: { id, timestamp: '2026-01-15T10:00:00.000Z', cwd: '/w' } },
      { timestamp: '2026-01-15T10:00:01.000Z', type: 'response_item', payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'run it' }] } },
      { timestamp: '2026-01-15T10:00:02.000Z', type: 'response_item', payload: { type: 'function_call', name: 'shell', arguments: '{"cmd":"make"}', call_id: 'c1' } },
      { timestamp: '2026-01-15T10:00:03.000Z', type: 'response_item', payload: { type: 'function_call_output', call_id: 'c1', output } },
      { timestamp: '2026-01-15T10:00:04.000Z', type: 'response_item', payload: { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'done' }] } },
    ];
    const path = join(folder, `rollout-2026-01-15T10-00-00-${id}.jsonl`);
    await writeFile(path, `${lines.map((line) => JSON.stringify(line)).join('\n')}\n`);
    const group = { agent: 'codex' as const, paths: [path], idHint: id, root: join(dir, '.codex'), archived: false };
    const context = { report: () => undefined, lookup: () => undefined, names: () => new Map<string, string>() };
    const session = await ADAPTERS.codex.readSession(group, context, { clip: DISPLAY_CLIP_LIMITS });
    const result = session.messages[2]!.blocks[0]!;
    expect(result.type).toBe('tool_result');
    if (result.type !== 'tool_result') return;
    expect(result.output.length).toBeLessThanOrEqual(DISPLAY_CLIP_LIMITS.other + 1);
    expect(result.output.startsWith('line of output é\nline of output é\n')).toBe(true);
    expect(result.output.endsWith('…')).toBe(true);
    const encoded = Buffer.byteLength(JSON.stringify(output)) - 2;
    expect(result.clippedBytes).toBe(encoded - Buffer.byteLength(JSON.stringify(result.output.slice(0, -1))) + 2);
    expect(session.messages.map((m) => [m.role, m.userTurn])).toEqual([
      ['user', true],
      ['assistant', false],
      ['tool', false],
      ['assistant', false],
    ]);
  });
});

describe("a user's long prompt in a display read", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'sessions-prompt-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });
  const context = { report: () => undefined, lookup: () => undefined, names: () => new Map<string, string>() };
  // 33 KB and 120 KB pasted prompts: longer than both display limits, with their ends worth finding.
  const prompt = (kb: number, tag: string): string => `${tag} please review:\n${'a pasted line of the log é\n'.repeat(Math.ceil((kb * 1024) / 27))}the last words ${tag}`;
  const output = `${'tool output line\n'.repeat(4000)}output end`;
  const jsonl = (lines: readonly unknown[]): string => `${lines.map((line) => JSON.stringify(line)).join('\n')}\n`;
  const texts = (session: Session): { role: string; text: string; clipped: number }[] =>
    session.messages.flatMap((message) => message.blocks.map((block) => ({ role: message.role, text: textOf(block), clipped: block.clippedBytes ?? 0 })));

  it('is read whole (every agent), while a long tool output is still clipped', async () => {
    const codexId = '0199c0de-0000-7000-8000-00000000b16b';
    const codexPath = join(dir, `rollout-2026-01-15T10-00-00-${codexId}.jsonl`);
    const p1 = prompt(33, 'codex-1');
    const p2 = prompt(120, 'codex-2');
    await writeFile(
      codexPath,
      jsonl([
        { timestamp: '2026-01-15T10:00:00.000Z', type: 'session_meta', payload: { id: codexId, timestamp: '2026-01-15T10:00:00.000Z', cwd: '/w' } },
        { timestamp: '2026-01-15T10:00:01.000Z', type: 'response_item', payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text: p1 }] } },
        { timestamp: '2026-01-15T10:00:01.000Z', type: 'event_msg', payload: { type: 'user_message', message: p1, images: [] } },
        { timestamp: '2026-01-15T10:00:02.000Z', type: 'response_item', payload: { type: 'function_call', name: 'shell', arguments: '{"cmd":"make"}', call_id: 'c1' } },
        { timestamp: '2026-01-15T10:00:03.000Z', type: 'response_item', payload: { type: 'function_call_output', call_id: 'c1', output } },
        { timestamp: '2026-01-15T10:00:04.000Z', type: 'response_item', payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text: p2 }] } },
      ]),
    );
    const codex = texts(await ADAPTERS.codex.readSession({ agent: 'codex', paths: [codexPath], idHint: codexId, root: dir, archived: false }, context, { clip: DISPLAY_CLIP_LIMITS }));
    expect(codex.filter((one) => one.role === 'user')).toEqual([
      { role: 'user', text: p1, clipped: 0 },
      { role: 'user', text: p2, clipped: 0 },
    ]);
    expect(codex.find((one) => one.role === 'tool')!.clipped).toBeGreaterThan(0);

    const claudeId = '5e551011-0000-4000-8000-00000000b16b';
    const project = join(dir, 'projects', '-w');
    await mkdir(project, { recursive: true });
    const claudePath = join(project, `${claudeId}.jsonl`);
    const c1 = prompt(33, 'claude-1');
    const c2 = prompt(120, 'claude-2');
    const base = { isSidechain: false, sessionId: claudeId, cwd: '/w', version: '2.1.197', timestamp: '2026-01-15T10:00:00.000Z' };
    await writeFile(
      claudePath,
      jsonl([
        { ...base, parentUuid: null, type: 'user', uuid: 'u1', message: { role: 'user', content: c1 } },
        { ...base, parentUuid: 'u1', type: 'assistant', uuid: 'a1', message: { id: 'm1', role: 'assistant', model: 'm', content: [{ type: 'tool_use', id: 't1', name: 'Bash', input: { command: 'make' } }] } },
        { ...base, parentUuid: 'a1', type: 'user', uuid: 'r1', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: output }] } },
        { ...base, parentUuid: 'r1', type: 'user', uuid: 'u2', message: { role: 'user', content: [{ type: 'text', text: c2 }] } },
      ]),
    );
    const claude = texts(await ADAPTERS.claude.readSession({ agent: 'claude', paths: [claudePath], idHint: claudeId, root: join(dir, 'projects'), archived: false }, context, { clip: DISPLAY_CLIP_LIMITS }));
    expect(claude.filter((one) => one.role === 'user')).toEqual([
      { role: 'user', text: c1, clipped: 0 },
      { role: 'user', text: c2, clipped: 0 },
    ]);
    expect(claude.find((one) => one.role === 'tool')!.clipped).toBeGreaterThan(0);

    const clawDir = join(dir, 'ws', '.claw', 'sessions');
    await mkdir(clawDir, { recursive: true });
    const clawPath = join(clawDir, 'session-1776300000000-9.jsonl');
    const w1 = prompt(120, 'claw-1');
    await writeFile(
      clawPath,
      jsonl([
        { created_at_ms: 1776300000000, session_id: 'session-1776300000000-9', type: 'session_meta', updated_at_ms: 1776300000000, version: 1 },
        { message: { blocks: [{ text: w1, type: 'text' }], role: 'user' }, type: 'message' },
        { message: { blocks: [{ id: 't1', input: '{}', name: 'bash', type: 'tool_use' }], role: 'assistant' }, type: 'message' },
        { message: { blocks: [{ is_error: false, output, tool_name: 'bash', tool_use_id: 't1', type: 'tool_result' }], role: 'tool' }, type: 'message' },
      ]),
    );
    const claw = texts(await ADAPTERS.claw.readSession({ agent: 'claw', paths: [clawPath], idHint: null, root: join(dir, 'ws'), archived: false }, context, { clip: DISPLAY_CLIP_LIMITS }));
    expect(claw.filter((one) => one.role === 'user')).toEqual([{ role: 'user', text: w1, clipped: 0 }]);
    expect(claw.find((one) => one.role === 'tool')!.clipped).toBeGreaterThan(0);
  });
});

describe('the start of a big transcript, before the rest is read', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'sessions-partial-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });
  const context = { report: () => undefined, lookup: () => undefined, names: () => new Map<string, string>() };

  async function codexFile(name: string, turns: number, header: Record<string, unknown> = {}): Promise<SessionFileGroup> {
    const id = `0199c0de-0000-7000-8000-${name.padStart(12, '0')}`;
    const at = (n: number): string => new Date(Date.UTC(2026, 0, 15, 10, 0, n)).toISOString();
    const lines: unknown[] = [{ timestamp: at(0), type: 'session_meta', payload: { id, timestamp: at(0), cwd: '/w', ...header } }];
    for (let turn = 1; turn <= turns; turn++) {
      lines.push({ timestamp: at(turn), type: 'response_item', payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text: `question ${turn}` }] } });
      lines.push({ timestamp: at(turn), type: 'response_item', payload: { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: `answer ${turn}` }] } });
    }
    const path = join(dir, `rollout-2026-01-15T10-00-00-${id}.jsonl`);
    await writeFile(path, `${lines.map((line) => JSON.stringify(line)).join('\n')}\n`);
    return { agent: 'codex', paths: [path], idHint: id, root: dir, archived: false };
  }

  it('gives a Codex display read the messages of its first lines, then the whole transcript', async () => {
    const group = await codexFile('a1', 300);
    const starts: (readonly Message[])[] = [];
    const session = await ADAPTERS.codex.readSession(group, context, { clip: DISPLAY_CLIP_LIMITS, onPartial: (messages) => starts.push(messages) });
    expect(session.messages).toHaveLength(600);
    expect(starts).toHaveLength(1);
    const start = starts[0]!;
    expect(start.length).toBeGreaterThan(100);
    expect(start.length).toBeLessThan(600);
    expect(start).toEqual(session.messages.slice(0, start.length));
  });

  it('says nothing early for a small file or a fork whose history is in its parent', async () => {
    const calls: number[] = [];
    await ADAPTERS.codex.readSession(await codexFile('a2', 20), context, { onPartial: (messages) => calls.push(messages.length) });
    const fork = await codexFile('a3', 300, { forked_from_id: 'p', history_base: { thread_id: '0199c0de-0000-7000-8000-0000000000ff', end_byte_offset: 10 } });
    await ADAPTERS.codex.readSession(fork, context, { onPartial: (messages) => calls.push(messages.length) });
    expect(calls).toEqual([]);
  });

  it('gives a Claude display read the chain of its first lines', async () => {
    const project = join(dir, 'projects', '-w');
    await mkdir(project, { recursive: true });
    const sessionId = '5e551011-0000-4000-8000-0000000000a1';
    const lines: unknown[] = [];
    let parent: string | null = null;
    for (let n = 0; n < 300; n++) {
      const uuid = `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
      const user = n % 2 === 0;
      lines.push({
        parentUuid: parent,
        isSidechain: false,
        type: user ? 'user' : 'assistant',
        message: user ? { role: 'user', content: `question ${n}` } : { id: `msg_${n}`, role: 'assistant', model: 'm', content: [{ type: 'text', text: `answer ${n}` }] },
        uuid,
        timestamp: new Date(Date.UTC(2026, 0, 15, 10, 0, n)).toISOString(),
        sessionId,
        cwd: '/w',
      });
      parent = uuid;
    }
    const path = join(project, `${sessionId}.jsonl`);
    await writeFile(path, `${lines.map((line) => JSON.stringify(line)).join('\n')}\n`);
    const starts: (readonly Message[])[] = [];
    const group = { agent: 'claude' as const, paths: [path], idHint: sessionId, root: dir, archived: false };
    const session = await ADAPTERS.claude.readSession(group, context, { clip: DISPLAY_CLIP_LIMITS, onPartial: (messages) => starts.push(messages) });
    expect(session.messages).toHaveLength(300);
    expect(starts).toHaveLength(1);
    expect(starts[0]!.length).toBeGreaterThan(100);
    expect(starts[0]).toEqual(session.messages.slice(0, starts[0]!.length));
  });
});

