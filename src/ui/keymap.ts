import type { Action, KeyInfo } from './actions.js';
import type { Mode } from './state.js';

export type { KeyInfo };

export const NO_KEY: KeyInfo = {
  upArrow: false,
  downArrow: false,
  leftArrow: false,
  rightArrow: false,
  pageUp: false,
  pageDown: false,
  home: false,
  end: false,
  return: false,
  escape: false,
  ctrl: false,
  shift: false,
  tab: false,
  backspace: false,
  delete: false,
  meta: false,
};

export function keyOf(partial: Partial<KeyInfo>): KeyInfo {
  return { ...NO_KEY, ...partial };
}

/**
 * Ink delivers a run of plain characters typed faster than it reads (or pasted) as one input: `/health`, or
 * Tab followed by `/`. Split it into one key per character so each is resolved in the mode the previous one
 * left (`/` enters search, the rest is typed into it).
 */
export function splitKeys(input: string, key: KeyInfo): { readonly input: string; readonly key: KeyInfo }[] {
  const chars = [...input];
  const special = key.upArrow || key.downArrow || key.leftArrow || key.rightArrow || key.pageUp || key.pageDown || key.home || key.end || key.escape || key.meta || key.ctrl;
  if (chars.length <= 1 || special) return [{ input, key }];
  return chars.map((char) => {
    if (char === '\t') return { input: '', key: keyOf({ tab: true }) };
    if (char === '\r' || char === '\n') return { input: '', key: keyOf({ return: true }) };
    if (char === '\u007f' || char === '\b') return { input: '', key: keyOf({ backspace: true }) };
    const code = char.codePointAt(0)!;
    if (code >= 1 && code <= 26) return { input: String.fromCharCode(code + 96), key: keyOf({ ctrl: true }) };
    return { input: char, key: keyOf({ shift: /[A-Z]/.test(char) }) };
  });
}

/** Text a key types into a prompt: printable characters only (a paste arrives as one string). */
function typed(input: string, key: KeyInfo): string | null {
  if (key.ctrl || key.meta || key.escape || key.return || key.tab) return null;
  const text = [...input].filter((char) => !isControl(char.codePointAt(0)!)).join('');
  return text === '' ? null : text;
}

function isControl(code: number): boolean {
  return code < 0x20 || (code >= 0x7f && code <= 0x9f);
}

/** Up/down/page/home/end as list moves or transcript scrolls. */
function navigation(input: string, key: KeyInfo, mode: 'list' | 'transcript', letters: boolean): Action | null {
  const list = mode === 'list';
  if (key.upArrow || (letters && input === 'k')) return list ? { type: 'move', delta: -1 } : { type: 'scroll', delta: -1 };
  if (key.downArrow || (letters && input === 'j')) return list ? { type: 'move', delta: 1 } : { type: 'scroll', delta: 1 };
  if (key.pageUp || (key.ctrl && input === 'b')) return list ? { type: 'movePage', direction: -1 } : { type: 'scrollPage', direction: -1 };
  if (key.pageDown || (key.ctrl && input === 'f') || (letters && input === ' ')) {
    return list ? { type: 'movePage', direction: 1 } : { type: 'scrollPage', direction: 1 };
  }
  if (key.home || (letters && input === 'g')) return list ? { type: 'moveFirst' } : { type: 'scrollHome' };
  if (key.end || (letters && input === 'G')) return list ? { type: 'moveLast' } : { type: 'scrollEnd' };
  return null;
}

/** The whole keymap: a key in a mode becomes one action (or nothing). Pure, so it is tested as a table. */
export function resolveAction(input: string, key: KeyInfo, mode: Mode): Action | null {
  if (key.ctrl && input === 'c') return { type: 'quit' };
  const backspace = key.backspace || key.delete;
  switch (mode) {
    case 'list': {
      if (key.ctrl && input === 'g') return { type: 'toggleContent' }; // before `g` (first row)
      const nav = navigation(input, key, 'list', true);
      if (nav) return nav;
      if (key.return || key.rightArrow) return { type: 'open' };
      if (key.escape) return { type: 'clearQuery' };
      if (key.tab || input === 'a') return { type: 'toggleScope' };
      if (input === '/') return { type: 'startSearch' };
      if (input === '>') return { type: 'toggleContent' };
      if (input === 's') return { type: 'toggleSort' };
      if (input === 'r') return { type: 'resume' };
      if (input === '?') return { type: 'showHelp' };
      if (input === '!') return { type: 'showProblems' };
      if (input === 'q') return { type: 'quit' };
      return null;
    }
    case 'search': {
      const nav = navigation(input, key, 'list', false);
      if (nav) return nav;
      if (key.escape) return { type: 'clearQuery' };
      if (key.return) return { type: 'open' };
      if (key.tab) return { type: 'toggleScope' };
      if (backspace) return { type: 'queryBackspace' };
      if (key.ctrl && input === 'u') return { type: 'queryKill' };
      if (key.ctrl && input === 'g') return { type: 'toggleContent' };
      const text = typed(input, key);
      return text === null ? null : { type: 'queryInput', text };
    }
    case 'transcript': {
      const nav = navigation(input, key, 'transcript', true);
      if (nav) return nav;
      if (key.escape || key.leftArrow || backspace || input === 'q') return { type: 'back' };
      if (input === 'n') return { type: 'nextTurn' };
      if (input === 'p') return { type: 'prevTurn' };
      if (input === '/') return { type: 'startFind' };
      if (input === 'N') return { type: 'findNext', direction: 1 };
      if (input === 'P') return { type: 'findNext', direction: -1 };
      if (input === 'e') return { type: 'toggleExpand' };
      if (input === 't') return { type: 'toggleReasoning' };
      if (input === 'f') return { type: 'startFork' };
      if (input === 'r') return { type: 'resume' };
      if (input === '?') return { type: 'showHelp' };
      return null;
    }
    case 'find': {
      if (key.escape) return { type: 'findCancel' };
      if (key.return) return { type: 'findSubmit' };
      if (backspace) return { type: 'findBackspace' };
      if (key.ctrl && input === 'u') return { type: 'findKill' };
      const text = typed(input, key);
      return text === null ? null : { type: 'findInput', text };
    }
    case 'fork': {
      if (key.escape) return { type: 'forkCancel' };
      if (key.return) return { type: 'forkSubmit' };
      if (key.tab) return { type: 'forkTarget', step: key.shift ? -1 : 1 };
      if (backspace) return { type: 'forkBackspace' };
      const text = typed(input, key);
      return text === null ? null : { type: 'forkInput', text };
    }
    case 'confirm': {
      if (input === 'y' || input === 'Y' || key.return) return { type: 'confirmYes' };
      if (input === 'n' || input === 'N' || key.escape || input === 'q') return { type: 'confirmNo' };
      return null;
    }
    case 'help':
    case 'problems':
      if (key.escape || key.return || input === 'q' || input === '?' || input === '!') return { type: 'closeOverlay' };
      return null;
  }
}

export interface KeyHelp {
  readonly keys: string;
  readonly what: string;
}

/** Every key, per screen, for `?` (kept next to the keymap so the two do not drift). */
export const KEY_HELP: readonly { readonly title: string; readonly keys: readonly KeyHelp[] }[] = [
  {
    title: 'List',
    keys: [
      { keys: '↑ ↓ j k', what: 'move' },
      { keys: 'PgUp PgDn g G', what: 'page, first, last' },
      { keys: 'Enter →', what: 'open the transcript' },
      { keys: '/', what: 'search, each word anywhere (Esc clears)' },
      { keys: "'x ^x x$ !x a|b", what: 'exact, start, end, not, either' },
      { keys: 'Ctrl-G >', what: 'search inside every transcript' },
      { keys: 'Tab a', what: 'this dir ↔ all dirs' },
      { keys: 's', what: 'sort updated ↔ created' },
      { keys: 'r', what: 'resume in the agent' },
      { keys: '!', what: 'scan problems' },
      { keys: 'q Ctrl-C', what: 'quit' },
    ],
  },
  {
    title: 'Transcript',
    keys: [
      { keys: '↑ ↓ j k', what: 'scroll' },
      { keys: 'PgUp PgDn Space', what: 'page' },
      { keys: 'g G Home End', what: 'top, end' },
      { keys: 'n p', what: 'next / previous turn' },
      { keys: '/ N P', what: 'find (Ctrl-U clears), next / previous' },
      { keys: 'e', what: 'expand tool output' },
      { keys: 't', what: 'show reasoning' },
      { keys: 'f', what: 'fork before the turn (Tab there: continue in another agent)' },
      { keys: 'r', what: 'resume this session' },
      { keys: 'Esc q ←', what: 'back to the list' },
    ],
  },
];
