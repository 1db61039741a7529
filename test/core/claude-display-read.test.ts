// The TUI's read of a Claude session (long strings clipped) keeps no line's parsed value: it folds the lines in file
// order as they come and reads the chain again only when the file is not one chain. It must show exactly what a
// scan that kept every value shows.
import { appendFile, cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveLocations } from '../../src/catalog/locations.js';
import { groupOf, scanCatalog, type CatalogSession, type ScanContext } from '../../src/catalog/scan.js';
import { claudeAdapter, claudeMessages, mayHoldPrompt, scanFile } from '../../src/core/formats/claude/index.js';
import { DISPLAY_CLIP_LIMITS, unmarkMessages, withPromptLines } from '../../src/core/io/clip.js';
import type { Message } from '../../src/core/model.js';

const FIXTURES = fileURLToPath(new URL('../fixtures/', import.meta.url));
const HOMES = ['home', 'claude-rules', 'claude-synthetic', 'claude-2.1.330'];

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sessions-claude-display-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** What the display read showed when it kept every line's value: the chain of a whole scan, clipped alike. */
async function byWholeScan(path: string): Promise<{ messages: Message[]; malformed: number }> {
  const { scan, stats } = await scanFile(path, withPromptLines(DISPLAY_CLIP_LIMITS, mayHoldPrompt));
  return { messages: unmarkMessages(claudeMessages(scan.activeChain(), path, scan.usageById)), malformed: stats.malformed };
}

/** The streamed display read's messages, after its last restart, and how many restarts it made. */
async function streamDisplay(row: CatalogSession, context: ScanContext): Promise<{ messages: Message[]; restarts: number }> {
  let messages: Message[] = [];
  let restarts = 0;
  await claudeAdapter.readDisplay!(groupOf(row), context, {
    clip: DISPLAY_CLIP_LIMITS,
    sink: {
      message: (message) => messages.push(message),
      restart: () => {
        messages = [];
        restarts++;
      },
    },
  });
  return { messages, restarts };
}

/** The streamed read hands on no usage (a screen shows none). */
function withoutUsage(message: Message): Message {
  const { usage: _usage, ...rest } = message;
  return rest;
}

async function claudeRows(home: string) {
  const locations = { ...resolveLocations({ home }, { env: {}, homeDir: dir, cwd: dir }), rootsFromCwds: false };
  const { sessions, subagentSessions, context } = await scanCatalog(locations, { agents: ['claude'] });
  return { rows: [...sessions, ...subagentSessions].filter((row) => row.agent === 'claude'), context };
}

describe('the display read of a Claude session', () => {
  for (const name of HOMES) {
    it(`shows what a whole scan shows, usage included (fixtures/${name})`, async () => {
      const home = join(dir, name);
      await cp(join(FIXTURES, name), home, { recursive: true });
      const { rows, context } = await claudeRows(home);
      expect(rows.length).toBeGreaterThan(0);
      for (const row of rows) {
        const read = await claudeAdapter.readSession(groupOf(row), context, { clip: DISPLAY_CLIP_LIMITS });
        const whole = await byWholeScan(row.path);
        expect(read.messages, row.path).toEqual(whole.messages);
        expect(read.malformedLines).toBe(whole.malformed);
        // The row's fields come from the same fold.
        expect(read.userTurns).toBe(row.userTurns);
      }
    });
  }

  for (const name of HOMES) {
    it(`the streamed display read hands on what the whole read holds, usage aside (fixtures/${name})`, async () => {
      const home = join(dir, `stream-${name}`);
      await cp(join(FIXTURES, name), home, { recursive: true });
      const { rows, context } = await claudeRows(home);
      for (const row of rows) {
        const streamed = await streamDisplay(row, context);
        const read = await claudeAdapter.readSession(groupOf(row), context, { clip: DISPLAY_CLIP_LIMITS });
        expect(streamed.messages, row.path).toEqual(read.messages.map(withoutUsage));
      }
    });
  }

  it('the streamed display read of a rewound file, of a repeated uuid and of a line whose parent comes later: read again by the chain', async () => {
    const home = join(dir, 'stream-breaks');
    await cp(join(FIXTURES, 'home'), home, { recursive: true });
    const { rows, context } = await claudeRows(home);
    const row = rows.find((r) => r.id.startsWith('328cfc0d'))!;
    const original = await readFile(row.path, 'utf8');
    const lines = original.split('\n').filter(Boolean).map((line) => JSON.parse(line) as Record<string, unknown>);
    const chain = lines.filter((line) => typeof line.uuid === 'string' && (line.type === 'user' || line.type === 'assistant') && line.isSidechain !== true);
    const linear = await streamDisplay(row, context);
    expect(linear.restarts).toBe(0);
    const earlier = chain[Math.floor(chain.length / 2)]!;
    const breaks = [
      // A rewind: a prompt answering an earlier line.
      `${JSON.stringify({ ...earlier, type: 'user', uuid: 'bbbbbbbb-0000-4000-8000-000000000001', parentUuid: earlier.uuid, isMeta: undefined, message: { role: 'user', content: 'asked again after a rewind' } })}\n`,
      // A line repeating an earlier uuid, hanging from the leaf.
      `${JSON.stringify({ ...earlier, parentUuid: chain.at(-1)!.uuid })}\n`,
    ];
    for (const appended of breaks) {
      await writeFile(row.path, original + appended);
      const streamed = await streamDisplay(row, context);
      const read = await claudeAdapter.readSession(groupOf(row), context, { clip: DISPLAY_CLIP_LIMITS });
      expect(streamed.restarts).toBe(1);
      expect(streamed.messages).toEqual(read.messages.map(withoutUsage));
    }
    // The first line's parent written later in the file: the chain walks on to it, out of file order.
    const first = chain[0]!;
    const orphan = { ...first, uuid: 'cccccccc-0000-4000-8000-000000000002', parentUuid: null, message: { role: 'user', content: 'a later root' } };
    await writeFile(row.path, [JSON.stringify({ ...first, parentUuid: orphan.uuid }), ...original.split('\n').filter(Boolean).slice(1), JSON.stringify(orphan), ''].join('\n'));
    const streamed = await streamDisplay(row, context);
    expect(streamed.restarts).toBe(1);
    expect(streamed.messages).toEqual((await claudeAdapter.readSession(groupOf(row), context, { clip: DISPLAY_CLIP_LIMITS })).messages.map(withoutUsage));
  });

  it('a rewind appended to a file already shown: the new branch, not the lines read in file order', async () => {
    const home = join(dir, 'rewind');
    await cp(join(FIXTURES, 'home'), home, { recursive: true });
    const { rows, context } = await claudeRows(home);
    const row = rows.find((r) => r.id.startsWith('328cfc0d'))!;
    const lines = (await readFile(row.path, 'utf8')).split('\n').filter(Boolean).map((line) => JSON.parse(line) as Record<string, unknown>);
    const chain = lines.filter((line) => typeof line.uuid === 'string' && (line.type === 'user' || line.type === 'assistant') && line.isSidechain !== true);
    const earlier = chain[Math.floor(chain.length / 2)]!;
    await appendFile(row.path, `${JSON.stringify({ ...earlier, type: 'user', uuid: 'bbbbbbbb-0000-4000-8000-000000000001', parentUuid: earlier.uuid, isMeta: undefined, message: { role: 'user', content: 'asked again after a rewind' } })}\n`);
    const read = await claudeAdapter.readSession(groupOf(row), context, { clip: DISPLAY_CLIP_LIMITS });
    expect(read.messages).toEqual((await byWholeScan(row.path)).messages);
    expect(read.messages.at(-1)!.blocks).toEqual([{ type: 'text', text: 'asked again after a rewind' }]);
  });
});
