// The index's fold with its nodes keyed by the native engine (native/uuid-table.c, keyed-scan.ts) must learn what
// ClaudeScan learns: the same active chain node for node, the same scalars, titles, usage and linearity, for every
// Claude fixture, for lines cut and changed, and for trees the keys could get wrong (a parent written after its child,
// escaped and non-ASCII uuids, a repeated uuid, a loop, a compact boundary, an answered slash command, a caveat).
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isLinear } from '../../src/core/formats/claude/fold.js';
import { addIndexLine } from '../../src/core/formats/claude/indexed.js';
import { KeyedClaudeScan, uuidTableEngine } from '../../src/core/formats/claude/keyed-scan.js';
import { nativeIndexBatch } from '../../src/core/formats/claude/native-fold.js';
import { ClaudeScan } from '../../src/core/formats/claude/scan.js';
import { foldLines, newLineStats } from '../../src/core/io/lines.js';

const FIXTURES = join(import.meta.dirname, '..', 'fixtures');
const engine = uuidTableEngine();

/** What the index reads of a scan: its chain node by node, what it learned, and which uuids it knows. */
function view(scan: ClaudeScan, uuids: readonly string[]): unknown {
  const chain = scan.activeChain();
  const nodes = chain.map((n) => ({
    uuid: n.uuid, parentUuid: n.parentUuid, logicalParentUuid: n.logicalParentUuid, type: n.type, sidechain: n.sidechain, offset: n.offset,
    length: n.length, userTurn: n.userTurn, meta: n.meta, caveat: n.caveat, command: n.command, prompt: n.prompt, anchorTurns: n.anchorTurns,
  }));
  const leaf = chain.at(-1);
  return {
    nodes,
    complete: leaf === undefined ? null : scan.chainFrom(leaf).complete,
    linear: isLinear(scan, chain),
    title: scan.agentTitle(),
    usage: scan.totalUsage(),
    has: uuids.map((uuid) => scan.hasNode(uuid)),
    scalars: [scan.hasConversation, scan.sessionId, scan.cwd, scan.gitBranch, scan.model, scan.firstTimestamp, scan.lastTimestamp, scan.customTitle,
      scan.customTitleAt, scan.agentName, scan.requestSessionId, scan.agentTitles, scan.lastPrompt, scan.messageLines, [...scan.usageById]],
  };
}

async function folded(path: string, scan: ClaudeScan, native: boolean, uuids: readonly string[]): Promise<unknown> {
  const stats = newLineStats();
  const file = await foldLines(path, 0, (line) => addIndexLine(scan, line, stats), native ? nativeIndexBatch(scan, stats) : undefined);
  if (file.partial !== null) addIndexLine(scan, file.partial, stats);
  return { scan: view(scan, uuids), stats };
}

/** Every uuid-like string of a file's lines (to ask each scan whether it knows it). */
async function uuidsOf(path: string): Promise<string[]> {
  const found = new Set<string>(['absent', '']);
  for (const line of (await readFile(path, 'utf8')).split('\n')) {
    try {
      const value = JSON.parse(line) as Record<string, unknown>;
      for (const key of ['uuid', 'parentUuid', 'logicalParentUuid', 'leafUuid']) if (typeof value[key] === 'string') found.add(value[key]);
    } catch {
      // not a line of the tree
    }
  }
  return [...found];
}

const line = (value: Record<string, unknown>): string => JSON.stringify(value);
const user = (uuid: unknown, parentUuid: unknown, content: unknown, more: Record<string, unknown> = {}): string =>
  line({ type: 'user', uuid, parentUuid, sessionId: 's', cwd: '/w', timestamp: '2026-01-01T00:00:00.000Z', message: { role: 'user', content }, ...more });
const answer = (uuid: unknown, parentUuid: unknown, id: string, more: Record<string, unknown> = {}): string =>
  line({ type: 'assistant', uuid, parentUuid, timestamp: '2026-01-01T00:00:01.000Z', message: { id, model: 'm', content: [{ type: 'text', text: 'ok' }], usage: { input_tokens: 3, output_tokens: 4 } }, ...more });

/** Trees the keys could get wrong. */
const TREES: Record<string, string[]> = {
  commands: [
    user('a', null, 'first prompt'),
    answer('b', 'a', 'm1'),
    user('c', 'b', '<command-name>/init</command-name>\n<command-args>now</command-args>'),
    user('d', 'c', 'expanded', { isMeta: true }),
    line({ type: 'attachment', uuid: 'e', parentUuid: 'd', attachment: { type: 'x' } }),
    answer('f', 'e', 'm2'),
    // A child written before its parent: the chain finds the parent once every line is read.
    answer('h', 'g', 'm3'),
    line({ type: 'progress', uuid: 'g', parentUuid: 'f' }),
    // An escaped uuid is the decoded one; a non-ASCII one keyed by JS.
    '{"type":"user","uuid":"\\u0069","parentUuid":"h","message":{"role":"user","content":"escaped"}}',
    answer('j', 'i', 'm4'),
    user('ü1', 'j', [{ type: 'text', text: 'non-ascii uuid' }]),
    answer('k', 'ü1', 'm5'),
    // A repeated uuid: the latest line with it is the node.
    answer('k', 'j', 'm5', { isSidechain: true }),
    user('l', 'k', '<local-command-caveat>Caveat</local-command-caveat>', { isMeta: true }),
    user('m', 'l', 'local output under a caveat'),
    line({ type: 'system', subtype: 'compact_boundary', uuid: 'n', parentUuid: null, logicalParentUuid: 'm' }),
    user('o', 'n', 'after the boundary'),
    line({ type: 'summary', summary: 'A summary', leafUuid: 'o' }),
    line({ type: 'summary', summary: 'Another session', leafUuid: 'zz' }),
    user('', 'o', 'empty uuid: no node'),
    user('p', 7, 'a parent that is not a string'),
    answer('q', 'o', 'm6'),
    line({ type: 'custom-title', customTitle: 'Named' }),
  ],
  loop: [user('a', 'b', 'one'), answer('b', 'a', 'm1'), user('c', 'b', 'two')],
  missing: [user('a', null, 'one'), answer('b', 'gone', 'm1')],
  // Times the fold takes as they are, parses, or skips, read before and after a title (customTitleAt) and a last prompt.
  times: [
    answer('a', null, 'm1', { timestamp: '2026-01-01T00:00:05.000Z' }),
    line({ type: 'attachment', uuid: 'b', parentUuid: 'a', timestamp: '2026-01-01T00:00:06.000Z', isMeta: true }),
    line({ type: 'custom-title', customTitle: 'Titled' }),
    line({ type: 'progress', uuid: 'c', parentUuid: 'b', timestamp: '2026-01-01T00:00:07Z' }),
    answer('d', 'c', 'm2', { timestamp: 1767225600000 }),
    answer('e', 'd', 'm3', { timestamp: 'not a time', gitBranch: 'b1', requestSessionId: 'r1' }),
    answer('f', 'e', 'm4', { timestamp: '2026-01-01T00:00:09.000Z', isSidechain: true, gitBranch: 'side' }),
    line({ type: 'last-prompt', lastPrompt: 'the last', timestamp: '2026-01-01T00:00:10.000Z' }),
    line({ type: 'assistant', uuid: 'g', parentUuid: 'e', timestamp: '2026-01-01T00:00:11.000Z', gitBranch: 'b2', message: { model: '<synthetic>', usage: { input_tokens: 'x', output_tokens: 2.5 } } }),
    line({ type: 'assistant', uuid: 'h', parentUuid: 'g', timestamp: '2026-01-01T00:00:12.000Z', sessionId: 's2', cwd: '/v', message: { id: 'm5', model: 'm9' } }),
    line({ type: 'system', uuid: 'i', parentUuid: 'h', timestamp: '2026-01-01T00:00:13.000Z' }),
    line({ uuid: 'j', parentUuid: 'i', timestamp: '2026-01-01T00:00:14.000Z' }),
    line({ type: 'progress', uuid: 'k', parentUuid: 'j', timestamp: '2026-01-01T00:00:15.000Z' }),
  ],
  unicode: [user('é', null, 'one'), answer('\u00e9x', 'é', 'm1'), user('😀', 'éx', 'two'), answer('r', '😀', 'm2')],
};

describe('the keyed index fold', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'sessions-keyed-scan-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it.skipIf(engine === null)('learns what ClaudeScan learns, with and without the engine describing lines, for every Claude fixture and tree', async () => {
    const fixtures = (await readdir(FIXTURES, { recursive: true })).filter((name) => name.includes('claude') && name.endsWith('.jsonl')).map((name) => join(FIXTURES, name));
    const trees: string[] = [];
    for (const [name, lines] of Object.entries(TREES)) {
      const path = join(dir, `${name}.jsonl`);
      await writeFile(path, `${lines.join('\n')}\n`);
      trees.push(path);
      // The same lines with the last one unterminated, and each line cut in half after it.
      const cut = join(dir, `${name}-cut.jsonl`);
      await writeFile(cut, lines.flatMap((l) => [l, l.slice(0, l.length >> 1)]).join('\n'));
      trees.push(cut);
    }
    // Many chunks: lines cross chunk boundaries, and the times read between chunks are the last line's.
    const many = join(dir, 'many.jsonl');
    const all = [...TREES.times!, ...TREES.commands!].join('\n');
    await writeFile(many, `${Array.from({ length: Math.ceil((3.5 * (1 << 20)) / all.length) }, () => all).join('\n')}\n`);
    trees.push(many);
    expect(fixtures.length).toBeGreaterThan(5);
    for (const path of [...fixtures, ...trees]) {
      const uuids = await uuidsOf(path);
      const expected = await folded(path, new ClaudeScan(true), false, uuids);
      for (const native of [true, false]) {
        const scan = new KeyedClaudeScan(engine!);
        expect(await folded(path, scan, native, uuids), `${path} (engine describing lines: ${native})`).toEqual(expected);
        scan.release();
      }
    }
    // The trees hold what they are there for: an answered command is a turn, the caveat's child is not, the boundary is
    // crossed, a parent written after its child is found.
    const commands = (await folded(trees[0]!, new KeyedClaudeScan(engine!), true, [])) as { scan: { nodes: { uuid: string; userTurn: boolean }[]; title: string } };
    const turns = commands.scan.nodes.filter((n) => n.userTurn).map((n) => n.uuid);
    // The repeated k (a sidechain line, child of j) is the one the chain goes through: ü1 is left off it.
    expect(turns).toEqual(['a', 'c', 'i', 'o']);
    expect(commands.scan.nodes.map((n) => n.uuid)).toEqual(['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j', 'k', 'l', 'm', 'n', 'o', 'q']);
    expect(commands.scan.title).toBe('A summary');
    const times = (await folded(join(dir, 'times.jsonl'), new KeyedClaudeScan(engine!), true, [])) as { scan: { scalars: unknown[] } };
    // hasConversation … customTitleAt (the time of the line before the title), requestSessionId, the model (not <synthetic>).
    expect(times.scan.scalars.slice(0, 11)).toEqual([true, 's2', '/v', 'b2', 'm9', '2026-01-01T00:00:05.000Z', '2026-01-01T00:00:15.000Z', 'Titled', '2026-01-01T00:00:06.000Z', null, 'r1']);
  });
});
