// Once the catalog has settled (scan done, watcher ready) and no key came for a moment, the TUI's services run one
// full garbage collection: the pages the setup's garbage took go back (run.tsx gives the collector); and again after
// each content search.
import { afterEach, beforeEach, expect, it } from 'vitest';
import { fixtureHome, fixtureServices, waitFor } from './helpers.js';

let home: string;
let dispose: () => Promise<void>;
let stop: (() => void) | null = null;

beforeEach(async () => {
  ({ home, dispose } = await fixtureHome());
});

afterEach(async () => {
  stop?.();
  stop = null;
  await dispose();
});

it('collects after the watcher is ready, once no key came for a moment, never during the scan', async () => {
  let collections = 0;
  let readyAt: number | null = null;
  let collectedAt: number | null = null;
  let lastKeyAt = 0;
  const services = fixtureServices(home, {
    collectGarbage: () => {
      collections++;
      collectedAt = Date.now();
    },
  });
  const { sessions } = await services.scan(() => undefined);
  expect(collections).toBe(0);
  stop = services.watch(sessions, () => undefined, () => {
    readyAt = Date.now();
    // A key right after the watcher is ready: the collection waits for a quiet moment after it.
    lastKeyAt = Date.now();
    services.noteActivity?.();
  });
  await waitFor(() => expect(collections).toBe(1), { timeout: 15000, interval: 50 });
  expect(readyAt).not.toBeNull();
  // It waited for a quiet moment after the last key (a lower bound: a busy machine only makes it later).
  expect(collectedAt! - lastKeyAt).toBeGreaterThanOrEqual(2000);
});

it('collects again once a content search is done and no key came for a moment', async () => {
  let collections = 0;
  const services = fixtureServices(home, { collectGarbage: () => collections++ });
  await services.scan(() => undefined);
  await new Promise<void>((resolve, reject) => {
    services.grep!('health', () => undefined, (error) => (error === null ? resolve() : reject(new Error(error))));
  });
  await waitFor(() => expect(collections).toBe(1), { timeout: 15000, interval: 50 });
});
