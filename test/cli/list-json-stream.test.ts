// `list --json` is written an item at a time (writeJsonArray): the bytes must be exactly what one
// `JSON.stringify(rows, null, 2)` gave, whatever the values hold (nested arrays and objects, empty ones, escapes).
import { describe, expect, it } from 'vitest';
import { writeJsonArray } from '../../src/cli/output.js';

function written<T>(items: readonly T[], toJson: (item: T) => unknown): { text: string; writes: number } {
  let text = '';
  let writes = 0;
  writeJsonArray(items, toJson, (chunk) => {
    text += chunk;
    writes++;
  });
  return { text, writes };
}

describe('writeJsonArray', () => {
  const rows = [
    { id: 'a', title: 'line one\nline two "quoted" \\ tab\t', paths: ['/x/a.jsonl', '/x/b.jsonl'], usage: { input: 1, output: 2 }, subagents: [], empty: {}, nested: [{ k: [1, [2, {}]] }], none: null },
    { id: 'b', title: 'ünïcødé 漢字 \u2028', paths: [], usage: null, subagents: [{ id: 'c', paths: ['/y'] }], flag: true, n: -1.5 },
  ];

  it('writes the bytes JSON.stringify(items, null, 2) gives, plus a newline', () => {
    expect(written(rows, (row) => row).text).toBe(`${JSON.stringify(rows, null, 2)}\n`);
    expect(written(rows.slice(0, 1), (row) => row).text).toBe(`${JSON.stringify(rows.slice(0, 1), null, 2)}\n`);
    expect(written([] as unknown[], (row) => row).text).toBe('[]\n');
  });

  it('maps each item through toJson, and writes a long list in several pieces', () => {
    const many = Array.from({ length: 6000 }, (_, i) => ({ id: `row-${i}`, title: 'x'.repeat(300), paths: [`/p/${i}`] }));
    const { text, writes } = written(many, (row) => ({ ...row, index: Number(row.id.slice(4)) }));
    expect(text).toBe(`${JSON.stringify(many.map((row) => ({ ...row, index: Number(row.id.slice(4)) })), null, 2)}\n`);
    expect(writes).toBeGreaterThan(1);
  });
});
