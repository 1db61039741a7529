// Files of one conversation (resumed copies, a workspace copied whole with its .claw/) are one row, whatever order
// discovery found them in: roots found through cwds are found in the order files' heads were read, which varies.
import { describe, expect, it } from 'vitest';
import { type CatalogSession } from '../../src/catalog/scan.js';
import { mergeById } from '../../src/catalog/merge-rows.js';
import { catalogSession } from '../ui/helpers.js';

const claw = (path: string, partial: Partial<CatalogSession> = {}): CatalogSession =>
  catalogSession({ agent: 'claw', id: 'session-1775010047738', path, paths: [path], updatedAt: '2026-04-01T02:20:00.000Z', mtimeMs: 1775010047738, size: 100, ...partial });

function permutations<T>(items: readonly T[]): T[][] {
  if (items.length <= 1) return [[...items]];
  return items.flatMap((item, i) => permutations([...items.slice(0, i), ...items.slice(i + 1)]).map((rest) => [item, ...rest]));
}

describe('one row per conversation', () => {
  it('is the same row in every discovery order, for copies updated at the same time', () => {
    const copies = [claw('/src/p99/c99/.claw/sessions/s.jsonl'), claw('/src/p99/c9299/.claw/sessions/s.jsonl'), claw('/src/p99/c899/.claw/sessions/s.jsonl')];
    const rows = permutations(copies).map((order) => mergeById(order));
    for (const merged of rows) expect(merged).toEqual(rows[0]);
    // the greatest path names the row; every file is kept, in path order
    expect(rows[0]).toHaveLength(1);
    expect(rows[0]![0]!.path).toBe('/src/p99/c99/.claw/sessions/s.jsonl');
    expect(rows[0]![0]!.paths).toEqual(['/src/p99/c899/.claw/sessions/s.jsonl', '/src/p99/c9299/.claw/sessions/s.jsonl', '/src/p99/c99/.claw/sessions/s.jsonl']);
    expect(rows[0]![0]!.size).toBe(300);
  });

  it('takes its fields from the file updated last, then the one written last, in any order', () => {
    const old = claw('/b/old.jsonl', { updatedAt: '2026-04-01T01:00:00.000Z', createdAt: '2026-04-01T00:00:00.000Z', userTurns: 2 });
    const resumed = claw('/a/resumed.jsonl', { updatedAt: '2026-04-01T03:00:00.000Z', createdAt: '2026-04-01T00:30:00.000Z', userTurns: 5 });
    const touched = claw('/a/touched.jsonl', { updatedAt: '2026-04-01T03:00:00.000Z', createdAt: '2026-04-01T00:30:00.000Z', userTurns: 4, mtimeMs: 1775010047739 });
    for (const order of permutations([old, resumed, touched])) {
      const [row] = mergeById(order);
      expect(row).toMatchObject({ path: '/a/touched.jsonl', userTurns: 4, createdAt: '2026-04-01T00:00:00.000Z', paths: ['/b/old.jsonl', '/a/resumed.jsonl', '/a/touched.jsonl'] });
    }
  });

  it('keeps files found twice once', () => {
    const one = claw('/a/s.jsonl');
    expect(mergeById([one, { ...one }])).toEqual([one]);
  });
});
