import { describe, expect, it } from 'vitest';
import type { Message } from '../../src/core/model.js';
import { buildTranscriptItems, withCodeMarks, findMatches, firstMatchFrom, itemAtLine, layoutTranscript, toolArguments, turnAtLine, type TranscriptLayout, type TranscriptLine } from '../../src/ui/transcript-layout.js';
import { wrapLine } from '../../src/ui/wrap-text.js';
import { assistant, userTurn } from './helpers.js';

const messages: Message[] = [
  { role: 'system', userTurn: false, blocks: [{ type: 'text', text: '<environment_context>\n<cwd>/x</cwd>' }] },
  userTurn('fix the \u001b[31mred\u001b[0m test'),
  { role: 'assistant', userTurn: false, blocks: [{ type: 'reasoning', summary: 'Looking at the failing assertion', encrypted: true }] },
  { role: 'assistant', userTurn: false, blocks: [{ type: 'tool_use', id: 'c1', name: 'exec_command', input: '{"cmd":["bash","-lc","npm test"],"timeout":5}' }] },
  { role: 'tool', userTurn: false, blocks: [{ type: 'tool_result', toolUseId: 'c1', output: 'line 1\nline 2\nline 3\nline 4\nline 5\n', isError: true }] },
  assistant('The test compared strings with different case. Fixed it by normalising both sides before comparing them.'),
  { role: 'system', userTurn: false, blocks: [{ type: 'compaction', summary: 'Summary: fixed a test.\nMore detail.\nEven more.' }] },
  userTurn('now commit'),
  assistant('Done.'),
];

/** Every row of a layout, top to bottom. */
const allRows = (layout: TranscriptLayout): TranscriptLine[] => layout.slice(0, layout.lineCount);

const session = { messages, fork: { id: 'parent-1', atTurn: 3, branchName: 'try' }, forkedFrom: 'parent-1' };
const texts = (width: number, options = { expanded: false, showReasoning: false }): string[] =>
  allRows(layoutTranscript(buildTranscriptItems(session), width, options)).map((line) => `${line.gutter}|${line.text}`);

describe('transcript layout', () => {
  it('makes only the rows asked for: any window is the same rows as the whole, item by item', () => {
    const many: Message[] = [];
    for (let i = 1; i <= 400; i++) {
      many.push(userTurn(`question ${i} `.repeat(1 + (i % 7))), { role: 'tool', userTurn: false, blocks: [{ type: 'tool_result', toolUseId: `c${i}`, output: 'out\n'.repeat(i % 5), isError: false }] });
      many.push(assistant(`answer ${i} `.repeat(1 + (i % 11))));
    }
    const layout = layoutTranscript(buildTranscriptItems({ messages: many, fork: null, forkedFrom: null }), 50, { expanded: false, showReasoning: false });
    const whole = Array.from({ length: layout.itemStarts.length }, (_, item) => layout.itemRows(item)).flat();
    expect(whole).toHaveLength(layout.lineCount);
    expect(allRows(layout)).toEqual(whole);
    for (const [from, to] of [[0, 48], [1, 2], [777, 825], [layout.lineCount - 10, layout.lineCount + 40], [layout.lineCount, layout.lineCount + 5]] as const) {
      expect(layout.slice(from, to)).toEqual(whole.slice(from, to));
    }
    whole.forEach((row, index) => {
      expect(layout.lineAt(index)).toEqual(row);
      // itemAtLine finds the item a row belongs to, and where in it the row is.
      const { item, offset } = itemAtLine(layout, index);
      expect(item).toBe(row.item);
      expect(layout.itemStarts[item]! + offset).toBe(index);
    });
    expect(layout.lineAt(layout.lineCount)).toBeUndefined();
    expect(layout.turnStarts).toHaveLength(400);
    layout.turnStarts.forEach((start, i) => expect(whole[start]).toMatchObject({ kind: 'turn', text: `turn ${i + 1}` }));
  });

  it('numbers user turns, strips control sequences, collapses tool output and hides reasoning by default', () => {
    expect(texts(40)).toEqual([
      '⋔|forked from parent-1 before turn 3 (branch "try")',
      '·|<environment_context> <cwd>/x</cwd>',
      '|',
      expect.stringMatching(/^▌\|turn 1( · .*)?$/),
      '|fix the red test',
      '»|exec_command cmd=bash -lc npm test timeout=5',
      '↳|line 1',
      '|line 2',
      '|line 3',
      '|… 2 more lines (e expands)',
      '●|The test compared strings with',
      '|different case. Fixed it by',
      '|normalising both sides before',
      '|comparing them.',
      '≡|conversation compacted: earlier turns were summarised',
      '|Summary: fixed a test.',
      '|More detail.',
      '|… 1 more line of summary (e expands)',
      '|',
      expect.stringMatching(/^▌\|turn 2/),
      '|now commit',
      '●|Done.',
    ]);
  });

  it('shows reasoning and full outputs when toggled', () => {
    const lines = texts(40, { expanded: true, showReasoning: true });
    expect(lines).toContain('∴|Looking at the failing assertion');
    expect(lines).toContain('|line 5');
    expect(lines).toContain('|Even more.');
    expect(lines.some((line) => line.includes('more line'))).toBe(false);
  });

  it('re-wraps at another width and keeps every word', () => {
    const layout = layoutTranscript(buildTranscriptItems(session), 20, { expanded: false, showReasoning: false });
    const prose = allRows(layout).filter((line) => line.kind === 'assistant' || line.kind === 'user');
    for (const line of prose) expect(line.text.length).toBeLessThanOrEqual(18);
    expect(prose.map((line) => line.text).join(' ')).toContain('different case. Fixed it by normalising both sides before comparing them.');
  });

  it('knows which turn a line belongs to and finds text', () => {
    const layout = layoutTranscript(buildTranscriptItems(session), 40, { expanded: false, showReasoning: false });
    expect(layout.turnStarts).toHaveLength(2);
    expect(turnAtLine(layout, 0)).toBe(0);
    expect(turnAtLine(layout, layout.turnStarts[0]!)).toBe(1);
    expect(turnAtLine(layout, layout.lineCount - 1)).toBe(2);
    const [done] = findMatches(layout, 'DONE');
    expect(layout.lineAt(done!.line)!.text).toBe('Done.');
    const fix = findMatches(layout, 'fix the');
    expect(fix[0]).toEqual({ line: layout.turnStarts[0]! + 1, start: 0 });
    expect(firstMatchFrom(fix, done!.line + 1)).toBe(0); // wraps around
    expect(findMatches(layout, 'absent')).toEqual([]);
    // every occurrence, several in a line too
    expect(findMatches(layoutTranscript(buildTranscriptItems({ messages: [userTurn('ab ab AB')], fork: null, forkedFrom: null }), 40, { expanded: false, showReasoning: false }), 'ab').map((m) => m.start)).toEqual([0, 3, 6]);
  });

  it('renders tool arguments on one line', () => {
    expect(toolArguments('{"path":"a.ts","lines":[1,2]}')).toBe('path=a.ts lines=[1,2]');
    expect(toolArguments('not json\nat all')).toBe('not json at all');
    expect(toolArguments('"ls -la"')).toBe('ls -la');
  });

  it('lays out a 50 MB transcript: one turn start per user turn, collapsed outputs, every line when expanded', () => {
    // How long this takes is measured by the bench (bench/transcript-layout.mjs), not here.
    const big: Message[] = [];
    const output = 'x'.repeat(99) + '\n';
    for (let turn = 0; turn < 500; turn++) {
      big.push(userTurn(`question ${turn}`));
      big.push({ role: 'tool', userTurn: false, blocks: [{ type: 'tool_result', toolUseId: 't', output: output.repeat(1000), isError: false }] });
      big.push(assistant('answer '.repeat(200)));
    }
    const items = buildTranscriptItems({ messages: big, fork: null, forkedFrom: null });
    const layout = layoutTranscript(items, 120, { expanded: false, showReasoning: false });
    const expanded = layoutTranscript(items, 120, { expanded: true, showReasoning: false });
    expect(layout.turnStarts).toHaveLength(500);
    // collapsed: a tool output shows a few lines, not its 1,000
    expect(layout.lineCount).toBeLessThan(50_000);
    expect(expanded.lineCount).toBeGreaterThan(500_000);
  });
});

describe('turns marked with their recorded files', () => {
  it('says which turns have their files as they were, and lists the files each changed', () => {
    const items = withCodeMarks(buildTranscriptItems({ messages, fork: null, forkedFrom: null }), [
      { recorded: true, files: ['src/a.ts', 'README.md'] },
      { recorded: false, files: [] },
    ]);
    const rows = allRows(layoutTranscript(items, 80, { expanded: false, showReasoning: false })).map((line) => `${line.gutter}|${line.kind}|${line.text}`);
    expect(rows.filter((row) => row.includes('|turn|'))).toEqual(['▌|turn|turn 1 · ⎌ files as they were recorded', '▌|turn|turn 2']);
    const at = rows.indexOf('▌|turn|turn 1 · ⎌ files as they were recorded');
    expect(rows.slice(at + 1, at + 3)).toEqual(['|user|fix the red test', '±|files|changed: src/a.ts, README.md']);
    expect(rows.filter((row) => row.includes('|files|'))).toHaveLength(1);
  });
});

describe('wrapLine', () => {
  it.each([
    ['short', 10, ['short']],
    ['two words here', 9, ['two words', 'here']],
    ['    indented code line', 12, ['    indented', 'code line']],
    ['abcdefghijkl', 5, ['abcde', 'fghij', 'kl']],
    ['ab abcdefghij', 5, ['ab ab', 'cdefg', 'hij']],
    ['项目项目项目', 5, ['项目', '项目', '项目']],
    ['', 5, ['']],
  ] as const)('%j at %i columns', (line, width, rows) => {
    expect(wrapLine(line, width)).toEqual(rows);
  });
});
