// ScanContext's lookups by id: the first group registered under an id is the one found, whether the registrations were
// made at once or left waiting behind `registerAll`'s groups (grep registers each row's group as it is made).
import { describe, expect, it } from 'vitest';
import { ScanContext } from '../../src/catalog/scan.js';
import type { SessionFileGroup } from '../../src/core/formats/types.js';

const group = (name: string, idHint: string | null, agent: SessionFileGroup['agent'] = 'codex'): SessionFileGroup => ({ agent, paths: [`/h/${name}.jsonl`], idHint, root: '/h', archived: false });

describe('ScanContext lookups', () => {
  it('find the first registration of an id, in the order registrations were made, deferred or not', () => {
    const walked = [group('a1', 'a'), group('b1', 'b'), group('a2', 'a'), group('n', null), group('c1', 'c', 'claude')];
    const later = [group('a3', 'a'), group('d1', 'd'), group('d2', 'd'), group('row-of-n', 'x')];
    const orders = (context: ScanContext): void => {
      context.register(later[0]!);
      context.register(later[1]!);
      context.register(later[2]!);
      // A row's own id, which its file names do not tell.
      context.register(walked[3]!, 'x');
      context.register(later[3]!, 'x');
    };
    const deferred = new ScanContext();
    deferred.registerAll(walked);
    orders(deferred);
    const direct = new ScanContext();
    for (const one of walked) direct.register(one);
    orders(direct);
    for (const context of [deferred, direct]) {
      expect(context.lookup('codex', 'a')).toBe(walked[0]);
      expect(context.lookup('codex', 'b')).toBe(walked[1]);
      expect(context.lookup('claude', 'c')).toBe(walked[4]);
      expect(context.lookup('codex', 'c')).toBeUndefined();
      expect(context.lookup('codex', 'd')).toBe(later[1]);
      expect(context.lookup('codex', 'x')).toBe(walked[3]);
    }
    // Registered after a lookup made the waiting ones: at once.
    deferred.register(group('e1', 'e'));
    expect(deferred.lookup('codex', 'e')?.paths).toEqual(['/h/e1.jsonl']);
  });
});
