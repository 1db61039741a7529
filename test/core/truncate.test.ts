import { describe, expect, it } from 'vitest';
import { dropLastUserTurns, indexOfUserTurn, truncateBeforeUserTurn } from '../../src/core/truncate.js';

interface Item {
  readonly name: string;
  readonly userTurn: boolean;
}
const u = (name: string): Item => ({ name, userTurn: true });
const o = (name: string): Item => ({ name, userTurn: false });
const names = (history: { kind: string; history?: readonly Item[] }) => (history.kind === 'new' ? 'New' : history.history!.map((i) => i.name).join(' '));

// The seed's test case (codex-rs conversation_manager.rs drops_from_last_user_only).
const seed = [u('u1'), o('a1'), o('a2'), u('u2'), o('a3'), o('r1'), o('c1'), o('a4')];
// A Codex-like file: injected context before the first prompt.
const withContext = [o('dev'), o('env'), u('u1'), o('a1'), u('u2'), o('call'), o('out'), o('a2'), u('u3'), o('a3')];

describe('truncateBeforeUserTurn', () => {
  it.each([
    [seed, 1, 'u1 a1 a2'],
    [seed, 0, 'New'],
    [seed, 2, 'u1 a1 a2 u2 a3 r1 c1 a4'],
    [withContext, 0, 'New'],
    [withContext, 1, 'dev env u1 a1'],
    [withContext, 2, 'dev env u1 a1 u2 call out a2'],
    [withContext, 3, 'dev env u1 a1 u2 call out a2 u3 a3'],
    [[], 0, 'New'],
    [[o('x')], 1, 'x'],
  ] as const)('%#: cut before turn %s', (items, k, expected) => {
    expect(names(truncateBeforeUserTurn(items, k))).toBe(expected);
  });

  it('carries the parent on a forked history', () => {
    const parent = { id: 'p', path: '/p.jsonl' };
    expect(truncateBeforeUserTurn(seed, 1, parent)).toEqual({ kind: 'forked', history: seed.slice(0, 3), parent });
  });

  it('rejects a negative or fractional turn', () => {
    expect(() => truncateBeforeUserTurn(seed, -1)).toThrow(RangeError);
    expect(() => truncateBeforeUserTurn(seed, 1.5)).toThrow(RangeError);
  });
});

describe('dropLastUserTurns (the seed semantics)', () => {
  it.each([
    [seed, 0, 'u1 a1 a2 u2 a3 r1 c1 a4'],
    [seed, 1, 'u1 a1 a2'],
    [seed, 2, 'New'],
    [seed, 5, 'New'],
    [withContext, 1, 'dev env u1 a1 u2 call out a2'],
    [withContext, 2, 'dev env u1 a1'],
    [withContext, 3, 'New'],
  ] as const)('%#: drop %s', (items, n, expected) => {
    expect(names(dropLastUserTurns(items, n))).toBe(expected);
  });
});

describe('indexOfUserTurn', () => {
  it('finds the k-th user turn or -1', () => {
    expect(indexOfUserTurn(withContext, 0)).toBe(2);
    expect(indexOfUserTurn(withContext, 2)).toBe(8);
    expect(indexOfUserTurn(withContext, 3)).toBe(-1);
  });
});
