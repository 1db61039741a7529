// A Copilot CLI events.jsonl in another valid JSON layout (a space after each colon, `type` not first), as another
// writer or a tool that reformats JSON Lines leaves it: the same row and the same fork as Copilot's own layout (it
// gave no row and no warning).
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { copilotAdapter } from '../../src/core/formats/copilot/index.js';
import type { AdapterContext, SessionFileGroup } from '../../src/core/formats/types.js';

const FIXTURE = fileURLToPath(new URL('../fixtures/copilot-1.0.102/.copilot', import.meta.url));
const MAIN = '333c8c0f-07a6-4837-b155-dfba325e902c';
const context: AdapterContext = { report: () => undefined, lookup: () => undefined, names: () => new Map() };

let temp: string;
beforeEach(async () => {
  temp = await mkdtemp(join(tmpdir(), 'sessions-copilot-layout-'));
});
afterEach(async () => {
  await rm(temp, { recursive: true, force: true });
});

/** The same events: `type` moved last, then written as Python's json.dumps does (`": "`, `", "`). */
function relaid(text: string): string {
  return text
    .split('\n')
    .map((line) => {
      if (line === '') return line;
      const { type, ...rest } = JSON.parse(line) as Record<string, unknown>;
      return JSON.stringify({ ...rest, type }).replace(/":(?=["{[\dtfn-])/g, '": ').replace(/,"/g, ', "');
    })
    .join('\n');
}

async function group(root: string): Promise<SessionFileGroup> {
  const found = (await copilotAdapter.discover(root, () => undefined)).find((g) => g.idHint === MAIN);
  expect(found).toBeDefined();
  return found!;
}

it('reads the same row and transcript, and forks the same turns, whatever the JSON layout', async () => {
  const plain = join(temp, 'plain');
  const other = join(temp, 'other');
  await cp(FIXTURE, plain, { recursive: true });
  await cp(FIXTURE, other, { recursive: true });
  const events = join(other, 'session-state', MAIN, 'events.jsonl');
  const text = relaid(await readFile(events, 'utf8'));
  expect(text).toContain('"type": "user.message"}');
  await writeFile(events, text);

  const want = await copilotAdapter.readSummary(await group(plain), context);
  const got = await copilotAdapter.readSummary(await group(other), context);
  expect(want!.userTurns).toBeGreaterThan(1);
  const comparable = (row: typeof want) => ({ ...row!, path: null, paths: null, size: null, mtimeMs: null, root: null });
  expect(comparable(got)).toEqual(comparable(want));
  // (each message's source names its own file and offset)
  const messages = async (root: string) => (await copilotAdapter.readSession(await group(root), context)).messages.map(({ source: _source, ...message }) => message);
  expect(await messages(other)).toEqual(await messages(plain));

  const fork = await copilotAdapter.fork(await group(other), { atTurn: 2, now: new Date('2026-11-28T10:00:00Z') }, context);
  expect(fork.keptUserTurns).toBe(1);
});
