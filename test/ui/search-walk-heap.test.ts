// What a query's walk of the catalog leaves on the JavaScript heap. A letter or two matches nearly every session: its
// candidates (86k at 100k sessions) were arrays grown one push at a time, ~3 MB a keystroke that lived until the
// next one, long enough for the young generation to hand them to the old one, whose full collections then fell on
// the first keys of a query. They are typed arrays now: their memory is outside the heap and the heap holds a few
// objects per query, however many sessions match.
import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { expect, it } from 'vitest';
import { SearchIndex, type SearchRun } from '../../src/catalog/search.js';
import { catalogSession } from './helpers.js';

/** A full collection (the gc of a context made once --expose-gc is set, as run.tsx gets it). */
function collector(): () => void {
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}

/**
 * What objects take on the heap: its code space left out, where V8 puts the optimised code it compiles on a thread of
 * its own while a test runs (more or less of it by the time of the last reading, as the machine is loaded).
 */
function objectsHeld(): number {
  return getHeapSpaceStatistics()
    .filter((space) => !space.space_name.startsWith('code'))
    .reduce((sum, space) => sum + space.space_used_size, 0);
}

const SESSIONS = 40_000;
const catalog = Array.from({ length: SESSIONS }, (_, i) =>
  catalogSession({ id: `s${i}`, title: `deploy the service ${i}`, prompts: [`deploy the service ${i}`, 'and check it'], cwd: `/src/p${i % 50}`, gitBranch: 'main' }),
);

it('a query matching every session, and the next key narrowing it, leave the heap no bigger by a word per match', () => {
  const gc = collector();
  // A clock that moves one millisecond a reading: each step(2) walks 256 sessions and ranks none (see SearchRun.step).
  let clock = 0;
  const index = new SearchIndex(catalog, () => ++clock);
  const runs: SearchRun[] = [];
  // The first keys a few times, so the heap holds what every query shares (fuse.js's records of the first page, the
  // feedback V8 keeps of the code that ran).
  for (let round = 0; round < 3; round++) {
    for (const query of ['d', 'de']) {
      const run = index.begin(query);
      while (run.count === null) run.step(2);
      expect(run.matches().length).toBe(SESSIONS);
    }
  }
  gc();
  const before = objectsHeld();
  for (const query of ['d', 'de']) {
    const run = index.begin(query);
    while (run.count === null) run.step(2);
    expect(run.count).toBe(SESSIONS);
    expect(run.matches().length).toBe(SESSIONS);
    runs.push(run);
  }
  gc();
  const grown = objectsHeld() - before;
  // Two runs of 40k matches each: an array slot is 8 bytes, so one array per run of one slot per match is 640 KB (the
  // arrays grown by push held 2.7 MB; the typed arrays leave 0.19–0.41 MB, what else the runs keep, as V8 lays it).
  expect(grown).toBeLessThan(2 * SESSIONS * 8);
  expect(runs.map((run) => run.matches().at(SESSIONS - 1)?.key)).toEqual(runs.map(() => expect.stringMatching(/^codex:s\d+$/)));
});
