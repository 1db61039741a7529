// The cold start's row batches: the first screen as soon as a screenful is indexed, then rows and progress together.
import { expect, it } from 'vitest';
import type { CatalogSession, ScanProgress } from '../../src/catalog/scan.js';
import { RowBatcher, type BatchTimers } from '../../src/ui/row-batches.js';

/** Timers fired by hand: `due()` lists the pending waits, `fire()` runs the pending one. */
function handTimers() {
  const pending = new Map<number, { run: () => void; ms: number }>();
  let next = 0;
  const timers: BatchTimers = {
    set: (run, ms) => {
      pending.set(++next, { run, ms });
      return next;
    },
    clear: (handle) => void pending.delete(handle as number),
  };
  return {
    timers,
    due: () => [...pending.values()].map((t) => t.ms),
    fire: () => {
      const [id, timer] = [...pending.entries()][0]!;
      pending.delete(id);
      timer.run();
    },
  };
}

const row = (id: string) => ({ id }) as unknown as CatalogSession;
const progress = (done: number, total: number): ScanProgress => ({ done, total, bytesDone: done, bytesTotal: total });

function batcher(screenRows = 3) {
  const hand = handTimers();
  const batches: string[][] = [];
  const progresses: number[] = [];
  const b = new RowBatcher({ screenRows, firstWaitMs: 50, intervalMs: 200, timers: hand.timers }, (rows) => batches.push(rows.map((r) => r.id)), (p) => progresses.push(p.done));
  return { b, hand, batches, progresses };
}

it('paints the first screen as soon as a screenful of rows is indexed, without waiting for a timer', () => {
  const { b, hand, batches, progresses } = batcher(3);
  b.row(row('a'));
  b.progressed(progress(1, 10));
  b.row(row('b'));
  expect(batches).toEqual([]);
  b.row(row('c'));
  expect(batches).toEqual([['a', 'b', 'c']]);
  // The progress seen so far went with the rows, in the same turn.
  expect(progresses).toEqual([1]);
  expect(hand.due()).toEqual([]);
});

it('paints a first row that waits alone after the short wait, then rows and progress together at the interval', () => {
  const { b, hand, batches, progresses } = batcher(64);
  b.progressed(progress(1, 10)); // a file with no conversation: its progress waits for the interval
  expect(hand.due()).toEqual([200]);
  b.row(row('a')); // the first row cuts that wait short
  expect(hand.due()).toEqual([50]);
  hand.fire();
  expect(batches).toEqual([['a']]);
  expect(progresses).toEqual([1]);
  b.row(row('b'));
  b.progressed(progress(3, 10));
  b.row(row('c'));
  expect(hand.due()).toEqual([200]);
  hand.fire();
  expect(batches).toEqual([['a'], ['b', 'c']]);
  expect(progresses).toEqual([1, 3]);
});

it('says at once when the last file is done, and hands nothing on once stopped', () => {
  const { b, hand, batches, progresses } = batcher(64);
  b.row(row('a'));
  b.progressed(progress(2, 2));
  expect(batches).toEqual([['a']]);
  expect(progresses).toEqual([2]);
  expect(hand.due()).toEqual([]);
  b.row(row('b'));
  b.stop();
  expect(hand.due()).toEqual([]);
  b.row(row('c'));
  b.progressed(progress(3, 3));
  expect(batches).toEqual([['a']]);
  expect(progresses).toEqual([2]);
});
