import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { keyOf, resolveAction, splitKeys, type KeyInfo } from '../../src/ui/keymap.js';
import type { Action } from '../../src/ui/reducer.js';
import type { Mode } from '../../src/ui/state.js';

const plain = keyOf({});
const k = (partial: Partial<KeyInfo>): KeyInfo => keyOf(partial);

const table: readonly [mode: Mode, input: string, key: KeyInfo, expected: Action | null][] = [
  // list
  ['list', '', k({ downArrow: true }), { type: 'move', delta: 1 }],
  ['list', 'j', plain, { type: 'move', delta: 1 }],
  ['list', 'k', plain, { type: 'move', delta: -1 }],
  ['list', '', k({ pageDown: true }), { type: 'movePage', direction: 1 }],
  ['list', '', k({ pageUp: true }), { type: 'movePage', direction: -1 }],
  ['list', 'g', plain, { type: 'moveFirst' }],
  ['list', 'G', k({ shift: true }), { type: 'moveLast' }],
  ['list', '', k({ home: true }), { type: 'moveFirst' }],
  ['list', '', k({ end: true }), { type: 'moveLast' }],
  ['list', '', k({ return: true }), { type: 'open' }],
  ['list', '/', plain, { type: 'startSearch' }],
  ['list', '', k({ tab: true }), { type: 'toggleScope' }],
  ['list', 'a', plain, { type: 'toggleScope' }],
  ['list', 's', plain, { type: 'toggleSort' }],
  ['list', 'r', plain, { type: 'resume' }],
  ['list', '?', plain, { type: 'showHelp' }],
  ['list', '!', plain, { type: 'showProblems' }],
  ['list', 'q', plain, { type: 'quit' }],
  ['list', 'c', k({ ctrl: true }), { type: 'quit' }],
  ['list', '', k({ escape: true, meta: true }), { type: 'clearQuery' }],
  ['list', 'x', plain, null],
  // search: letters are typed, arrows still move
  ['search', 'j', plain, { type: 'queryInput', text: 'j' }],
  ['search', 'q', plain, { type: 'queryInput', text: 'q' }],
  ['search', 'api server', plain, { type: 'queryInput', text: 'api server' }],
  ['search', '', k({ downArrow: true }), { type: 'move', delta: 1 }],
  ['search', '', k({ upArrow: true }), { type: 'move', delta: -1 }],
  ['search', '', k({ backspace: true }), { type: 'queryBackspace' }],
  ['search', '', k({ delete: true }), { type: 'queryBackspace' }],
  ['search', 'u', k({ ctrl: true }), { type: 'queryKill' }],
  ['search', '', k({ return: true }), { type: 'open' }],
  ['search', '', k({ escape: true, meta: true }), { type: 'clearQuery' }],
  ['search', '', k({ tab: true }), { type: 'toggleScope' }],
  ['search', 'c', k({ ctrl: true }), { type: 'quit' }],
  // transcript
  ['transcript', 'j', plain, { type: 'scroll', delta: 1 }],
  ['transcript', '', k({ upArrow: true }), { type: 'scroll', delta: -1 }],
  ['transcript', ' ', plain, { type: 'scrollPage', direction: 1 }],
  ['transcript', '', k({ pageUp: true }), { type: 'scrollPage', direction: -1 }],
  ['transcript', 'g', plain, { type: 'scrollHome' }],
  ['transcript', '', k({ end: true }), { type: 'scrollEnd' }],
  ['transcript', 'n', plain, { type: 'nextTurn' }],
  ['transcript', 'p', plain, { type: 'prevTurn' }],
  ['transcript', '/', plain, { type: 'startFind' }],
  ['transcript', 'N', k({ shift: true }), { type: 'findNext', direction: 1 }],
  ['transcript', 'P', k({ shift: true }), { type: 'findNext', direction: -1 }],
  ['transcript', 'e', plain, { type: 'toggleExpand' }],
  ['transcript', 't', plain, { type: 'toggleReasoning' }],
  ['transcript', 'f', plain, { type: 'startFork' }],
  ['transcript', 'r', plain, { type: 'resume' }],
  ['transcript', '?', plain, { type: 'showHelp' }],
  ['transcript', 'q', plain, { type: 'back' }],
  ['transcript', '', k({ escape: true, meta: true }), { type: 'back' }],
  ['transcript', '', k({ leftArrow: true }), { type: 'back' }],
  // find, fork: text prompts
  ['find', 'n', plain, { type: 'findInput', text: 'n' }],
  ['find', '', k({ return: true }), { type: 'findSubmit' }],
  ['find', '', k({ escape: true, meta: true }), { type: 'findCancel' }],
  ['find', '', k({ backspace: true }), { type: 'findBackspace' }],
  ['find', 'u', k({ ctrl: true }), { type: 'findKill' }],
  ['list', '>', plain, { type: 'toggleContent' }],
  ['list', 'g', k({ ctrl: true }), { type: 'toggleContent' }],
  ['search', 'g', k({ ctrl: true }), { type: 'toggleContent' }],
  ['fork', 'x', plain, { type: 'forkInput', text: 'x' }],
  ['fork', '', k({ return: true }), { type: 'forkSubmit' }],
  ['fork', '', k({ escape: true, meta: true }), { type: 'forkCancel' }],
  ['fork', '', k({ delete: true }), { type: 'forkBackspace' }],
  ['fork', '', k({ tab: true }), { type: 'forkTarget', step: 1 }],
  ['fork', '', k({ tab: true, shift: true }), { type: 'forkTarget', step: -1 }],
  ['fork', '\u0007', plain, null],
  // confirm, overlays
  ['confirm', 'y', plain, { type: 'confirmYes' }],
  ['confirm', '', k({ return: true }), { type: 'confirmYes' }],
  ['confirm', 'n', plain, { type: 'confirmNo' }],
  ['confirm', '', k({ escape: true, meta: true }), { type: 'confirmNo' }],
  ['confirm', 'x', plain, null],
  ['help', '', k({ escape: true, meta: true }), { type: 'closeOverlay' }],
  ['help', '?', plain, { type: 'closeOverlay' }],
  ['help', 'j', plain, null],
  ['problems', 'q', plain, { type: 'closeOverlay' }],
];

describe('resolveAction', () => {
  it.each(table)('%s: %j %j', (mode, input, key, expected) => {
    expect(resolveAction(input, key, mode)).toEqual(expected);
  });
});

describe('splitKeys', () => {
  it('keeps a single key and special keys whole', () => {
    expect(splitKeys('j', plain)).toEqual([{ input: 'j', key: plain }]);
    expect(splitKeys('', k({ upArrow: true }))).toEqual([{ input: '', key: k({ upArrow: true }) }]);
  });

  it('splits a burst of typed characters into one key each', () => {
    expect(splitKeys('/ab', plain)).toEqual([
      { input: '/', key: plain },
      { input: 'a', key: plain },
      { input: 'b', key: plain },
    ]);
  });

  it('recognises Tab, Enter, Backspace, Ctrl and capitals inside a burst', () => {
    expect(splitKeys('\t\r\u007f\u0015G', plain)).toEqual([
      { input: '', key: k({ tab: true }) },
      { input: '', key: k({ return: true }) },
      { input: '', key: k({ backspace: true }) },
      { input: 'u', key: k({ ctrl: true }) },
      { input: 'G', key: k({ shift: true }) },
    ]);
  });
});

describe("README's key table", () => {
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
  const rows = readme.split('\n').filter((line) => /^\| `/.test(line));

  it('says what Esc does in the list: it clears the search, it does not quit', () => {
    expect(resolveAction('', k({ escape: true }), 'list')).toEqual({ type: 'clearQuery' });
    const esc = rows.filter((line) => line.split('|')[1]!.includes('`Esc`'));
    expect(esc.length).toBeGreaterThan(0);
    for (const row of esc) expect(row.split('|')[2]).not.toMatch(/quit/);
    expect(esc.some((row) => /`Esc` clears/.test(row.split('|')[2]!))).toBe(true);
  });
});
