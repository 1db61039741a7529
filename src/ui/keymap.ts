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
 * Ink delivers a run of plain characters typed faster than it reads (or pasted) as one input: `health r`, or
 * Tab followed by `s`. Split it into one key per character so each is resolved in the mode the previous one
 * left (Tab opens the menu, `s` is read there).
 */
export function splitKeys(input: string, key: KeyInfo): { readonly input: string; readonly key: KeyInfo }[] {
  const chars = [...input];
  const special = key.upArrow || key.downArrow || key.leftArrow || key.rightArrow || key.pageUp || key.pageDown || key.home || key.end || key.escape || key.meta || key.ctrl;
  if (chars.length <= 1 || special) return [{ input, key }];
  return chars.map((char) => {
    if (char === '\t') return { input: '', key: keyOf({ tab: true }) };
    if (char === '\r') return { input: '', key: keyOf({ return: true }) };
    // A line feed is Ctrl-J (a terminal's Enter is a carriage return): a move, never Enter.
    if (char === '\n') return { input: '\n', key: NO_KEY };
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

/** Ctrl-J: a terminal sends it as a bare line feed (Enter is a carriage return), which Ink passes on as it is. */
function isCtrlJ(input: string, key: KeyInfo): boolean {
  return input === '\n' && !key.return && !key.meta;
}

/** Keys that move the list's selection without typing: arrows, Ctrl-N/P, Ctrl-J/K, pages, first, last. */
function listMove(input: string, key: KeyInfo): Action | null {
  if (key.upArrow || (key.ctrl && (input === 'p' || input === 'k'))) return { type: 'move', delta: -1 };
  if (key.downArrow || (key.ctrl && input === 'n') || isCtrlJ(input, key)) return { type: 'move', delta: 1 };
  if (key.pageUp) return { type: 'movePage', direction: -1 };
  if (key.pageDown) return { type: 'movePage', direction: 1 };
  if (key.home) return { type: 'moveFirst' };
  if (key.end) return { type: 'moveLast' };
  return null;
}

/** Transcript scrolling, as in less: arrows, j/k, pages (Space, Ctrl-F/B), g/G and Home/End. */
function transcriptScroll(input: string, key: KeyInfo): Action | null {
  if (key.upArrow || input === 'k' || (key.ctrl && input === 'p')) return { type: 'scroll', delta: -1 };
  if (key.downArrow || input === 'j' || key.return || (key.ctrl && input === 'n') || isCtrlJ(input, key)) return { type: 'scroll', delta: 1 };
  if (key.pageUp || (key.ctrl && input === 'b')) return { type: 'scrollPage', direction: -1 };
  if (key.pageDown || (key.ctrl && input === 'f') || input === ' ') return { type: 'scrollPage', direction: 1 };
  if (key.home || input === 'g') return { type: 'scrollHome' };
  if (key.end || input === 'G') return { type: 'scrollEnd' };
  return null;
}

/** Ctrl-W and Alt-Backspace erase a word, as in a shell. */
function isDeleteWord(input: string, key: KeyInfo): boolean {
  return (key.ctrl && input === 'w') || ((key.backspace || key.delete) && key.meta);
}

/**
 * The whole keymap: a key in a mode becomes one action (or nothing). Pure, so it is tested as a table.
 *
 * In the list every printable key types into the query, as in the agents' own pickers and fzf: nothing a word can
 * type starts an agent or writes a file. Moving and acting take keys a word cannot type (arrows, Ctrl-keys, Enter,
 * Tab); the rest of the actions are in the menu Tab opens.
 */
export function resolveAction(input: string, key: KeyInfo, mode: Mode, confirmKind: 'cwd' | 'inUse' | 'remove' = 'cwd'): Action | null {
  if (key.ctrl && input === 'c') return { type: 'quit' };
  const backspace = key.backspace || key.delete;
  switch (mode) {
    case 'list': {
      const move = listMove(input, key);
      if (move) return move;
      if (key.return) return { type: 'resume' };
      if (key.rightArrow || (key.ctrl && input === 'o')) return { type: 'open' };
      if (key.tab) return { type: 'openMenu' };
      if (key.escape) return { type: 'clearOrQuit' };
      if (isDeleteWord(input, key)) return { type: 'queryDeleteWord' };
      if (backspace) return { type: 'queryBackspace' };
      if (key.ctrl && input === 'u') return { type: 'queryKill' };
      if (key.ctrl && input === 'g') return { type: 'toggleContent' };
      // As in Claude Code's picker: Ctrl-A widens to every project (and back).
      if (key.ctrl && input === 'a') return { type: 'toggleScope' };
      // Undo the last delete (restore): a Ctrl-key, so a typed word never writes.
      if (key.ctrl && input === 'r') return { type: 'undoRemove' };
      const text = typed(input, key);
      return text === null ? null : { type: 'queryInput', text };
    }
    case 'menu': {
      if (key.escape || key.tab || key.leftArrow) return { type: 'closeMenu' };
      if (key.return || key.rightArrow) return { type: 'menuChoose' };
      if (key.upArrow || input === 'k' || (key.ctrl && (input === 'p' || input === 'k'))) return { type: 'menuMove', delta: -1 };
      if (key.downArrow || input === 'j' || (key.ctrl && input === 'n') || isCtrlJ(input, key)) return { type: 'menuMove', delta: 1 };
      if (key.ctrl && input === 'a') return { type: 'toggleScope' };
      if (key.ctrl && input === 'g') return { type: 'toggleContent' };
      const text = typed(input, key);
      return text !== null && [...text].length === 1 ? { type: 'menuKey', key: text } : null;
    }
    case 'transcript': {
      const scroll = transcriptScroll(input, key);
      if (scroll) return scroll;
      if (key.escape || key.leftArrow || backspace || input === 'q') return { type: 'back' };
      if (key.tab) return { type: 'openMenu' };
      // less and vim: n and N are the next and previous match; turns are ] and [ (vim's next and previous section).
      if (input === 'n') return { type: 'findNext', direction: 1 };
      if (input === 'N') return { type: 'findNext', direction: -1 };
      if (input === ']') return { type: 'nextTurn' };
      if (input === '[') return { type: 'prevTurn' };
      if (input === '/') return { type: 'startFind' };
      if (input === 'e') return { type: 'toggleExpand' };
      if (input === 't') return { type: 'toggleReasoning' };
      // f only opens the fork prompt: the fork is written by Enter there.
      if (input === 'f') return { type: 'startFork' };
      if (input === '?') return { type: 'showHelp' };
      return null;
    }
    case 'find': {
      if (key.escape) return { type: 'findCancel' };
      if (key.return) return { type: 'findSubmit' };
      if (isDeleteWord(input, key)) return { type: 'findDeleteWord' };
      if (backspace) return { type: 'findBackspace' };
      if (key.ctrl && input === 'u') return { type: 'findKill' };
      const text = typed(input, key);
      return text === null ? null : { type: 'findInput', text };
    }
    case 'fork': {
      if (key.escape) return { type: 'forkCancel' };
      if (key.return) return { type: 'forkSubmit' };
      if (key.tab) return { type: 'forkTarget', step: key.shift ? -1 : 1 };
      if (key.upArrow || key.downArrow) return { type: 'forkExtent', step: key.upArrow ? -1 : 1 };
      if (backspace) return { type: 'forkBackspace' };
      const text = typed(input, key);
      return text === null ? null : { type: 'forkInput', text };
    }
    case 'rename': {
      if (key.escape) return { type: 'renameCancel' };
      if (key.return) return { type: 'renameSubmit' };
      if (backspace) return { type: 'renameBackspace' };
      if (key.ctrl && input === 'u') return { type: 'renameKill' };
      const text = typed(input, key);
      return text === null ? null : { type: 'renameInput', text };
    }
    case 'confirm': {
      if (confirmKind === 'remove') {
        // Only y deletes: Enter chose the menu item, and a second press must not answer for the user.
        if (input === 'y' || input === 'Y') return { type: 'confirmYes' };
        if (input === 'n' || input === 'N' || key.escape || input === 'q') return { type: 'confirmNo' };
        return null;
      }
      if (confirmKind === 'inUse') {
        // Enter answers nothing here: it is the key that asked, and a second press must not start a second agent.
        if (input === 'r' || input === 'R') return { type: 'confirmInUse', answer: 'resume' };
        if (input === 'f' || input === 'F') return { type: 'confirmInUse', answer: 'fork' };
        if (input === 'c' || input === 'C' || input === 'n' || input === 'N' || key.escape || input === 'q') return { type: 'confirmNo' };
        return null;
      }
      if (input === 'y' || input === 'Y' || key.return) return { type: 'confirmYes' };
      if (input === 'n' || input === 'N' || key.escape || input === 'q') return { type: 'confirmNo' };
      return null;
    }
    case 'help':
    case 'problems':
      if (key.escape || key.return || key.tab || input === 'q' || input === '?' || input === '!') return { type: 'closeOverlay' };
      return null;
  }
}

export interface KeyHelp {
  readonly keys: string;
  readonly what: string;
}

/** Every key, per screen, for the help screen (kept next to the keymap so the two do not drift). Fits 80×24. */
export const KEY_HELP: readonly { readonly title: string; readonly keys: readonly KeyHelp[] }[] = [
  {
    title: 'List: type to search',
    keys: [
      { keys: 'a-z 0-9 …', what: 'search every column' },
      { keys: "'x ^x x$", what: 'exact, start, end' },
      { keys: '!x  a | b', what: 'not, either' },
      { keys: '↑ ↓', what: 'move' },
      { keys: 'Ctrl-N Ctrl-P', what: 'move' },
      { keys: 'Ctrl-J Ctrl-K', what: 'move' },
      { keys: 'PgUp PgDn', what: 'page' },
      { keys: 'Home End', what: 'first, last' },
      { keys: 'Enter', what: 'resume in its agent' },
      { keys: '→  Ctrl-O', what: 'read the transcript' },
      { keys: 'Tab', what: 'more: rename, delete…' },
      { keys: 'Ctrl-A', what: 'this directory ↔ all' },
      { keys: 'Ctrl-G  >x', what: 'search in transcripts' },
      { keys: 'Ctrl-W Ctrl-U', what: 'erase a word, all' },
      { keys: 'Ctrl-R', what: 'undo the last delete' },
      { keys: 'Esc', what: 'clear, then quit' },
      { keys: 'Ctrl-C', what: 'quit' },
    ],
  },
  {
    title: 'Transcript',
    keys: [
      { keys: '↑ ↓ j k Enter', what: 'scroll' },
      { keys: 'PgUp PgDn Space', what: 'page' },
      { keys: 'g G Home End', what: 'top, end' },
      { keys: '] [', what: 'next, previous turn' },
      { keys: '/', what: 'find' },
      { keys: 'n N', what: 'next, previous match' },
      { keys: 'e', what: 'expand tool outputs' },
      { keys: 't', what: 'show reasoning' },
      { keys: 'f', what: 'fork or hand off…' },
      { keys: 'Tab', what: 'resume, fork…' },
      { keys: '?', what: 'this help' },
      { keys: 'Esc q ←', what: 'back to the list' },
    ],
  },
];
