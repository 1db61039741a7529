// The scan's turns of the event loop: every concurrent worker waits for the same turn, and the budget restarts once.
import { expect, it } from 'vitest';
import { EventLoopTurns } from '../../src/catalog/event-loop-turns.js';

it('lets all workers wait for one shared turn once the budget is spent, and restarts the budget when it is given', async () => {
  let now = 0;
  const turns = new EventLoopTurns(16, () => now);
  expect(turns.maybeYield()).toBeUndefined();
  now = 16;
  const first = turns.maybeYield();
  const second = turns.maybeYield();
  expect(first).toBeInstanceOf(Promise);
  // A second worker reaching the check waits for the same turn (not a turn of its own after the first one's).
  expect(second).toBe(first);
  await Promise.all([first, second]);
  expect(turns.given).toBe(1);
  // The budget restarted when the turn was given: workers resuming in that turn go on without waiting.
  expect(turns.maybeYield()).toBeUndefined();
  now = 31;
  expect(turns.maybeYield()).toBeUndefined();
  now = 32;
  await turns.maybeYield();
  expect(turns.given).toBe(2);
});

it('lets one file through per turn when each file spends the budget, whatever the number of workers', async () => {
  let now = 0;
  const turns = new EventLoopTurns(16, () => now);
  const worker = async () => {
    for (let file = 0; file < 3; file++) {
      for (let wait = turns.maybeYield(); wait !== undefined; wait = turns.maybeYield()) await wait;
      now += 20; // each file spends more than the budget
    }
  };
  await Promise.all(Array.from({ length: 32 }, worker));
  // 96 files, a turn of the event loop before each but the first: the 32 workers never ran one after another
  // inside one turn (as when each restarted the budget for itself).
  expect(turns.given).toBe(95);
});
