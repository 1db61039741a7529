// Background turn counting (the TUI's refine): exact counts for big files, and only while the user is idle.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { CatalogSession } from '../../src/catalog/scan.js';
import { fixtureHome, fixtureServices, waitFor } from './helpers.js';

let home: string;
let dispose: () => Promise<void>;
beforeEach(async () => {
  ({ home, dispose } = await fixtureHome());
});
afterEach(async () => {
  await dispose();
});

it('counts a big session exactly in the background, once the user has left the keyboard', async () => {
  // A rollout bigger than head + tail (80 KiB): its summary can only give a lower bound.
  const id = '01a200ed-8253-74d3-b561-f652765d4d59';
  const day = join(home, '.codex', 'sessions', '2026', '11', '22');
  const path = join(day, `rollout-2026-11-22T01-44-55-${id}.jsonl`);
  const output = JSON.stringify({ timestamp: '2026-11-22T01:45:00.000Z', type: 'response_item', payload: { type: 'function_call_output', call_id: 'big', output: 'x'.repeat(100 * 1024) } });
  const original = await readFile(path, 'utf8');
  const lines = original.trimEnd().split('\n');
  await writeFile(path, `${[lines[0], output, ...lines.slice(1)].join('\n')}\n`);

  const services = fixtureServices(home);
  const { sessions } = await services.scan(() => undefined);
  const big = sessions.find((session) => session.id === id)!;
  expect(big.userTurnsExact).toBe(false);

  const exact: { session: CatalogSession; at: number }[] = [];
  services.noteActivity!(); // a key was just pressed
  const pressed = Date.now();
  const done = services.refineTurns!(sessions, (session) => exact.push({ session, at: Date.now() }));
  const counted = await waitFor(() => {
    const found = exact.find((one) => one.session.id === id);
    if (!found) throw new Error('not counted yet');
    return found;
  }, { timeout: 10_000 });
  await done;
  expect(counted.session.userTurnsExact).toBe(true);
  expect(counted.session.userTurns).toBe(4);
  expect(counted.at - pressed).toBeGreaterThanOrEqual(1_000); // it waited for the pause (1.5 s)
});
