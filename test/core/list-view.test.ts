import { describe, expect, it } from 'vitest';
import { ListView } from '../../src/core/list-view.js';

describe('ListView', () => {
  const items = ['a', 'b', 'c', 'd', 'e'];
  const made: number[] = [];
  const view = new ListView(items.length, (i) => {
    made.push(i);
    return items[i]!;
  });

  it('reads as the array it stands for, making only the items read', () => {
    made.length = 0;
    expect(view.at(1)).toBe('b');
    expect(view.at(-1)).toBe('e');
    expect(view.at(5)).toBeUndefined();
    expect(view.at(-6)).toBeUndefined();
    expect(made).toEqual([1, 4]);
    for (const [start, end] of [[1, 3], [0, undefined], [-2, undefined], [2, -1], [3, 99], [4, 2], [undefined, undefined]] as const) {
      expect(view.slice(start, end)).toEqual(items.slice(start, end));
    }
    expect(view.map((item, i) => `${i}${item}`)).toEqual(items.map((item, i) => `${i}${item}`));
    expect(view.findIndex((item) => item === 'd')).toBe(3);
    expect(view.findIndex((item) => item === 'z')).toBe(-1);
    expect([...view]).toEqual(items);
  });
});
