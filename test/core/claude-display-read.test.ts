// The TUI's read of a Claude session (long strings clipped) keeps no line's parsed value: it folds the lines in file
// order as they come and reads the chain again only when the file is not one chain. It must show exactly what a
// scan that kept every value shows.
import { appendFile, cp, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveLocations } from '../../src/catalog/locations.js';
import { groupOf, scanCatalog } from '../../src/catalog/scan.js';
import { claudeAdapter, claudeMessages, mayHoldPrompt, scanFile } from '../../src/core/formats/claude.js';
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
