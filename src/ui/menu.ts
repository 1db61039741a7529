// The action menu Tab opens: what can be done to the selected row (or the open transcript) and to the list, each
// item an action the reducer already knows. A table, so the keys the menu answers to and the help say the same.
import type { Action } from './actions.js';
import { canRename } from '../app/rename.js';
import { contentQuery, type BrowserState } from './state.js';

export interface MenuItem {
  /**
   * The key that runs the item from the menu, or '' when only Enter on it does: an item that starts an agent or
   * writes a file has none, so a typed word that reaches the menu (a pasted Tab) cannot run it.
   */
  readonly key: string;
  readonly label: string;
  /** The key that does the same outside the menu, shown beside it (when it is not the menu's own key). */
  readonly shortcut?: string;
  readonly action: Action;
}

/** The menu's items for this state: the row's (or transcript's) own first, then the list's. */
export function menuItems(state: BrowserState): MenuItem[] {
  const items: MenuItem[] = [];
  if (state.menu?.returnTo === 'transcript' && state.transcript) {
    const t = state.transcript;
    items.push({ key: '', label: `resume in ${t.session.agent}`, action: { type: 'resume' } });
    items.push({ key: 'f', label: t.turn >= 2 ? `fork or hand off before turn ${t.turn}…` : 'fork or hand off…', shortcut: 'f', action: { type: 'startFork' } });
    items.push({ key: 'e', label: t.expanded ? 'collapse tool outputs' : 'expand tool outputs', shortcut: 'e', action: { type: 'toggleExpand' } });
    items.push({ key: 't', label: t.showReasoning ? 'hide reasoning' : 'show reasoning', shortcut: 't', action: { type: 'toggleReasoning' } });
    items.push({ key: '?', label: 'help: every key', shortcut: '?', action: { type: 'showHelp' } });
    items.push({ key: 'q', label: 'back to the list', shortcut: 'Esc', action: { type: 'back' } });
    return items;
  }
  const row = state.rows.at(state.selected);
  if (row) {
    items.push({ key: '', label: `resume in ${row.session.agent}`, shortcut: 'Enter', action: { type: 'resume' } });
    items.push({ key: 'o', label: 'read the transcript', shortcut: '→', action: { type: 'open' } });
    // The most common hand-off: all of it, to another agent, without reading it first (it asks before writing).
    items.push({ key: 'f', label: 'fork or hand off the whole session…', action: { type: 'startForkWhole' } });
    // Rename opens a prompt (the name is written by Enter there); delete asks first, and has no key of its own.
    if (canRename(row.session)) items.push({ key: 'n', label: 'rename…', action: { type: 'startRename' } });
    items.push({ key: '', label: 'delete: move to the trash…', action: { type: 'startRemove' } });
  }
  if (state.lastDeleted !== null) items.push({ key: '', label: `undo the delete of ${state.lastDeleted.title}`, shortcut: 'Ctrl-R', action: { type: 'undoRemove' } });
  items.push({ key: 'a', label: state.scope === 'cwd' ? 'show every directory' : 'show this directory only', shortcut: 'Ctrl-A', action: { type: 'toggleScope' } });
  items.push({ key: 's', label: `sort by ${state.sort === 'updated' ? 'created' : 'updated'}`, action: { type: 'toggleSort' } });
  items.push({ key: 'g', label: contentQuery(state.query) === null ? 'search inside the transcripts' : 'search titles and columns', shortcut: 'Ctrl-G', action: { type: 'toggleContent' } });
  if (state.hosts.length > 0) items.push({ key: 'h', label: 'read the hosts again', action: { type: 'refreshHosts' } });
  if (state.problems.length > 0) items.push({ key: '!', label: `scan problems (${state.problems.length})`, action: { type: 'showProblems' } });
  items.push({ key: '?', label: 'help: every key', action: { type: 'showHelp' } });
  items.push({ key: 'q', label: 'quit', shortcut: 'Ctrl-C', action: { type: 'quit' } });
  return items;
}

/** The item a key typed in the menu names (letters in either case), if any. */
export function menuItemForKey(items: readonly MenuItem[], key: string): MenuItem | undefined {
  return key === '' ? undefined : items.find((item) => item.key !== '' && item.key.toLowerCase() === key.toLowerCase());
}
