// Claude forks found by their shared message uuids: which one is the parent, and when a fork was made.
import { describe, expect, it } from 'vitest';
import { type CatalogSession } from '../../src/catalog/scan.js';
import { conversations, lineageLinker } from '../../src/catalog/merge-rows.js';
import { lineageLink } from '../../src/catalog/lineage.js';
import { catalogSession } from '../ui/helpers.js';

const start = '2026-03-01T10:00:00.000Z';
const claude = (partial: Partial<CatalogSession> & Pick<CatalogSession, 'id'>): CatalogSession =>
  catalogSession({ agent: 'claude', lineage: 'root-uuid', createdAt: start, ...partial });

describe('lineage forks', () => {
  // The parent was resumed after the fork; the fork (written by sessions) copied its first two turns with their times.
  const parent = claude({ id: 'parent', userTurns: 4, updatedAt: '2026-03-01T11:00:00.000Z', mtimeMs: Date.parse('2026-09-01T08:00:00.000Z') });
  const made = Date.parse('2026-06-01T09:30:00.000Z');
  const fork = claude({ id: 'fork', userTurns: 2, updatedAt: '2026-03-01T10:05:00.000Z', mtimeMs: made });

  it.each([[[parent, fork]], [[fork, parent]]])('links the fork that starts at its parent\'s time to it, in any order, dated when it was made', (input) => {
    const rows = conversations(input);
    // newest first: the fork is as new as when it was made
    expect(rows.map((row) => [row.id, row.forkedFrom])).toEqual([
      ['fork', 'parent'],
      ['parent', null],
    ]);
    const linked = rows.find((row) => row.id === 'fork')!;
    expect(linked.createdAt).toBe(new Date(made).toISOString());
    expect(linked.updatedAt).toBe(new Date(made).toISOString());
  });

  it("keeps a fork's own times when its lines date it (Claude Code's --fork-session writes new lines first)", () => {
    const own = claude({ id: 'own', createdAt: '2026-03-01T12:00:00.000Z', updatedAt: '2026-03-01T12:01:00.000Z', userTurns: 3, mtimeMs: Date.parse('2026-11-01T00:00:00.000Z') });
    const rows = conversations([parent, own]);
    expect(rows.find((row) => row.id === 'own')).toMatchObject({ forkedFrom: 'parent', createdAt: own.createdAt, updatedAt: own.updatedAt });
  });

  // The watcher links one re-read row against the rows already listed (`lineageLink`); the scan links them all at once
  // (`conversations`). One rule: a changed row gets the parent the scan would give it.
  describe('one rule for the watcher and the scan', () => {
    // A child that names its parent in its file (Claude Code 2.1.330's requestSessionId) and went on for more turns.
    const named = claude({ id: 'child', userTurns: 6, forkedFrom: 'parent', updatedAt: '2026-03-01T12:00:00.000Z', mtimeMs: Date.parse('2026-03-01T12:00:00.000Z') });
    const later = claude({ id: 'later', createdAt: '2026-03-01T10:30:00.000Z', updatedAt: '2026-03-01T10:40:00.000Z', userTurns: 1, mtimeMs: Date.parse('2026-03-01T10:40:00.000Z') });
    const earlier = claude({ id: 'earlier', createdAt: '2026-03-01T09:00:00.000Z', updatedAt: '2026-03-01T09:10:00.000Z', userTurns: 1, mtimeMs: Date.parse('2026-03-01T09:10:00.000Z') });
    it.each([
      ['a fork re-read against its listed parent', fork, [parent]],
      ['a parent re-read against its listed fork', parent, [fork]],
      // Before: the watcher took the child (more turns, same start) as the parent's parent; the scan never does.
      ['a parent re-read while only a child naming it is listed', parent, [named]],
      ['a session that started after the family', later, [parent, fork]],
      ['a session older than every listed one', earlier, [parent, fork]],
    ])('%s', (_, session, listed) => {
      const scanned = conversations([session, ...listed]).find((row) => row.id === session.id)!;
      // The listed rows are linked and dated already, as the watcher holds them.
      const held = conversations(listed);
      expect(lineageLink(session, held)).toEqual(scanned);
    });
  });

  // grep links each matching row against its family once per lineage (`lineageLinker`): the same row as the whole
  // merge gives it, on families with equal start times, rows naming a parent, ids in several files and other lineages.
  it('links a row into its family as the whole merge does (random families)', () => {
    let seed = 7;
    const next = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const times = ['2026-03-01T10:00:00.000Z', '2026-03-01T10:00:00.000Z', '2026-03-01T09:00:00.000Z', '2026-03-01T11:00:00.000Z'];
    let compared = 0;
    for (let round = 0; round < 300; round++) {
      const size = 1 + next(7);
      const family = Array.from({ length: size }, (_, i) =>
        claude({
          id: `s${next(size + 1)}`,
          path: `/p/${round}-${i}.jsonl`,
          lineage: next(6) === 0 ? 'other-root' : 'root-uuid',
          createdAt: times[next(times.length)]!,
          updatedAt: times[next(times.length)]!.replace(':00.000Z', `:${String(next(60)).padStart(2, '0')}.000Z`),
          userTurns: 1 + next(3),
          mtimeMs: Date.parse('2026-06-01T00:00:00.000Z') + next(3) * 1000,
          forkedFrom: next(5) === 0 ? 's0' : null,
        }),
      );
      const link = lineageLinker(family.filter((s) => s.lineage === 'root-uuid'));
      for (const row of [...family, claude({ id: 'outsider', createdAt: times[next(times.length)]!, userTurns: 1 + next(3) })]) {
        if (row.lineage !== 'root-uuid') continue;
        const others = family.filter((s) => s.lineage === 'root-uuid' && s.id !== row.id);
        const whole = others.length === 0 ? row : (conversations([row, ...others]).find((s) => s.id === row.id) ?? row);
        expect(link(row)).toEqual(whole);
        compared++;
      }
    }
    expect(compared).toBeGreaterThan(500);
  });
});
