import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { keyOf, resolveAction, splitKeys, type KeyInfo } from '../../src/ui/keymap.js';
import type { Action } from '../../src/ui/reducer.js';
import type { Mode } from '../../src/ui/state.js';

const plain = keyOf({});
const k = (partial: Partial<KeyInfo>): KeyInfo => keyOf(partial);

const ctrl = (letter: string): [string, KeyInfo] => [letter, k({ ctrl: true })];

const table: readonly [mode: Mode, input: string, key: KeyInfo, expected: Action | null][] = [
  // list: every printable key types into the query, whatever it did before (j k g G / a s r R ? ! q > space)
  ...[...'jkgG/asrRq?!> xyzN1'].map((char): [Mode, string, KeyInfo, Action] => ['list', char, char === char.toUpperCase() && char !== char.toLowerCase() ? k({ shift: true }) : plain, { type: 'queryInput', text: char }]),
  ['list', 'api server', plain, { type: 'queryInput', text: 'api server' }],
  ['list', '', k({ downArrow: true }), { type: 'move', delta: 1 }],
  ['list', '', k({ upArrow: true }), { type: 'move', delta: -1 }],
  ['list', ...ctrl('n'), { type: 'move', delta: 1 }],
  ['list', ...ctrl('p'), { type: 'move', delta: -1 }],
  ['list', '\n', plain, { type: 'move', delta: 1 }], // Ctrl-J: a line feed, as a terminal sends it
  ['list', ...ctrl('k'), { type: 'move', delta: -1 }],
  ['list', '', k({ pageDown: true }), { type: 'movePage', direction: 1 }],
  ['list', '', k({ pageUp: true }), { type: 'movePage', direction: -1 }],
  ['list', '', k({ home: true }), { type: 'moveFirst' }],
  ['list', '', k({ end: true }), { type: 'moveLast' }],
  ['list', '\r', k({ return: true }), { type: 'resume' }],
  ['list', '', k({ rightArrow: true }), { type: 'open' }],
  ['list', ...ctrl('o'), { type: 'open' }],
  ['list', '', k({ tab: true }), { type: 'openMenu' }],
  ['list', '', k({ escape: true, meta: true }), { type: 'clearOrQuit' }],
  ['list', '', k({ backspace: true }), { type: 'queryBackspace' }],
  ['list', '', k({ delete: true }), { type: 'queryBackspace' }],
  ['list', ...ctrl('w'), { type: 'queryDeleteWord' }],
  ['list', '', k({ delete: true, meta: true }), { type: 'queryDeleteWord' }],
  ['list', ...ctrl('u'), { type: 'queryKill' }],
  ['list', ...ctrl('g'), { type: 'toggleContent' }],
  ['list', ...ctrl('a'), { type: 'toggleScope' }],
  ['list', ...ctrl('c'), { type: 'quit' }],
  ['list', ...ctrl('r'), { type: 'undoRemove' }],
  ['list', ...ctrl('z'), null],
  ['list', ...ctrl('t'), null],
  ['list', 'r', k({ meta: true }), null],
  ['list', '\u0007', plain, null],
  // menu: letters name items (the reducer looks them up), arrows and j/k choose, Enter runs, Esc/Tab close
  ['menu', 's', plain, { type: 'menuKey', key: 's' }],
  ['menu', '?', plain, { type: 'menuKey', key: '?' }],
  ['menu', 'j', plain, { type: 'menuMove', delta: 1 }],
  ['menu', '', k({ upArrow: true }), { type: 'menuMove', delta: -1 }],
  ['menu', ...ctrl('n'), { type: 'menuMove', delta: 1 }],
  ['menu', '\r', k({ return: true }), { type: 'menuChoose' }],
  ['menu', '', k({ escape: true, meta: true }), { type: 'closeMenu' }],
  ['menu', '', k({ tab: true }), { type: 'closeMenu' }],
  ['menu', 'ab', plain, null],
  // transcript: less and vim keys
  ['transcript', 'j', plain, { type: 'scroll', delta: 1 }],
  ['transcript', '', k({ upArrow: true }), { type: 'scroll', delta: -1 }],
  ['transcript', '\r', k({ return: true }), { type: 'scroll', delta: 1 }],
  ['transcript', ' ', plain, { type: 'scrollPage', direction: 1 }],
  ['transcript', '', k({ pageUp: true }), { type: 'scrollPage', direction: -1 }],
  ['transcript', 'g', plain, { type: 'scrollHome' }],
  ['transcript', '', k({ end: true }), { type: 'scrollEnd' }],
  ['transcript', 'n', plain, { type: 'findNext', direction: 1 }],
  ['transcript', 'N', k({ shift: true }), { type: 'findNext', direction: -1 }],
  ['transcript', ']', plain, { type: 'nextTurn' }],
  ['transcript', '[', plain, { type: 'prevTurn' }],
  ['transcript', 'p', plain, null],
  ['transcript', 'P', k({ shift: true }), null],
  ['transcript', '/', plain, { type: 'startFind' }],
  ['transcript', 'e', plain, { type: 'toggleExpand' }],
  ['transcript', 't', plain, { type: 'toggleReasoning' }],
  ['transcript', 'f', plain, { type: 'startFork' }],
  ['transcript', 'r', plain, null],
  ['transcript', '', k({ tab: true }), { type: 'openMenu' }],
  ['transcript', '?', plain, { type: 'showHelp' }],
  ['transcript', 'q', plain, { type: 'back' }],
  ['transcript', '', k({ escape: true, meta: true }), { type: 'back' }],
  ['transcript', '', k({ leftArrow: true }), { type: 'back' }],
  // find, fork: text prompts
  ['find', 'n', plain, { type: 'findInput', text: 'n' }],
  ['find', '\r', k({ return: true }), { type: 'findSubmit' }],
  ['find', '', k({ escape: true, meta: true }), { type: 'findCancel' }],
  ['find', '', k({ backspace: true }), { type: 'findBackspace' }],
  ['find', ...ctrl('u'), { type: 'findKill' }],
  ['find', ...ctrl('w'), { type: 'findDeleteWord' }],
  ['fork', 'x', plain, { type: 'forkInput', text: 'x' }],
  ['fork', '\r', k({ return: true }), { type: 'forkSubmit' }],
  ['fork', '', k({ escape: true, meta: true }), { type: 'forkCancel' }],
  ['fork', '', k({ delete: true }), { type: 'forkBackspace' }],
  ['fork', '', k({ tab: true }), { type: 'forkTarget', step: 1 }],
  ['fork', '', k({ tab: true, shift: true }), { type: 'forkTarget', step: -1 }],
  ['fork', '\u0007', plain, null],
  // confirm, overlays
  ['confirm', 'y', plain, { type: 'confirmYes' }],
  ['confirm', '\r', k({ return: true }), { type: 'confirmYes' }],
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

describe('the list: a typed word never acts', () => {
  it('types every printable character (and a few from other scripts) into the query', () => {
    const printable = [...Array.from({ length: 0x7f - 0x20 }, (_, i) => String.fromCharCode(0x20 + i)), 'é', 'ß', '日', '☕'];
    for (const char of printable) {
      const key = /[A-Z]/.test(char) ? k({ shift: true }) : plain;
      expect(resolveAction(char, key, 'list')).toEqual({ type: 'queryInput', text: char });
    }
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

  it('reads a line feed inside a burst as Ctrl-J (a move), not as Enter (a resume)', () => {
    const keys = splitKeys('ab\n', plain);
    expect(keys[2]).toEqual({ input: '\n', key: plain });
    expect(resolveAction(keys[2]!.input, keys[2]!.key, 'list')).toEqual({ type: 'move', delta: 1 });
  });
});

describe('the key table (docs/keys.md)', () => {
  const readme = readFileSync(new URL('../../docs/keys.md', import.meta.url), 'utf8');
  const rows = readme.split('\n').filter((line) => /^\| `/.test(line));

  it('says what Esc does in the list: it clears the search, then quits', () => {
    expect(resolveAction('', k({ escape: true }), 'list')).toEqual({ type: 'clearOrQuit' });
    const esc = rows.filter((line) => line.split('|')[1]!.includes('`Esc`'));
    expect(esc.length).toBeGreaterThan(0);
    expect(esc.some((row) => /`Esc` clears the search, then quits/.test(row.split('|')[2]!))).toBe(true);
  });

  it('says Enter resumes and → reads the transcript in the list, and no printable key acts there', () => {
    expect(resolveAction('\r', k({ return: true }), 'list')).toEqual({ type: 'resume' });
    expect(resolveAction('', k({ rightArrow: true }), 'list')).toEqual({ type: 'open' });
    const list = (keys: string): string => rows.find((line) => line.split('|')[1]!.trim().startsWith(keys))!.split('|')[2]!;
    expect(list('`Enter`')).toMatch(/^ resume the selected session/);
    expect(list('`→`')).toMatch(/^ read the transcript/);
    for (const keys of ['`/`', '`n N`', '`] [`', '`e` `t`', '`f`', '`?`']) expect(list(keys)).toMatch(/^ \(typed/);
  });
});
