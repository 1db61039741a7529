// What the browser's one reducer is told: a key (resolved by keymap.ts against the mode it lands in) or an event
// from the services. Its own module so that the keymap (which returns actions) and the reducer do not import each other.
import type { Key } from 'ink';
import type { Snippet } from '../core/io/snippet.js';
import type { ScanProgress, CatalogSession } from '../catalog/scan.js';
import type { SearchHit } from '../catalog/search.js';
import type { ReadonlyList } from '../core/list-view.js';
import type { Problem } from '../core/formats/types.js';
import type { HostStatus } from '../remote/host-source.js';
import type { ScreenSize } from './geometry.js';
import type { ContentHit, PreviewData } from './state.js';
import type { TranscriptItem } from './transcript-layout.js';

/** The parts of Ink's Key the keymap reads (tests build them with `keyOf`). */
export type KeyInfo = Pick<
  Key,
  'upArrow' | 'downArrow' | 'leftArrow' | 'rightArrow' | 'pageUp' | 'pageDown' | 'home' | 'end' | 'return' | 'escape' | 'ctrl' | 'shift' | 'tab' | 'backspace' | 'delete' | 'meta'
>;

export type ResumeOutcome =
  /** `remote`: run on the session's host with this ssh argv. */
  | { readonly kind: 'go'; readonly remote?: { readonly argv: readonly string[] } }
  | { readonly kind: 'ask'; readonly message: string }
  /** The session looks open in an agent (written a moment ago, or a process holds its file): resume anyway, fork, or cancel. */
  | { readonly kind: 'inUse'; readonly message: string }
  | { readonly kind: 'refuse'; readonly message: string };

export type Action =
  /** A key press, resolved against the mode of the state it lands in (never a stale one). */
  | { readonly type: 'key'; readonly input: string; readonly key: KeyInfo }
  | { readonly type: 'resize'; readonly size: ScreenSize }
  | { readonly type: 'watchReady' }
  | { readonly type: 'tick'; readonly now: number }
  | { readonly type: 'scanProgress'; readonly progress: ScanProgress }
  | { readonly type: 'cachedCatalog'; readonly sessions: readonly CatalogSession[] }
  | { readonly type: 'scanDone'; readonly sessions: readonly CatalogSession[]; readonly problems: readonly Problem[] }
  | { readonly type: 'catalogChanged'; readonly upserted: readonly CatalogSession[]; readonly removed: readonly string[]; readonly problems?: readonly Problem[] }
  /** `counted`: the hits are every match (the count is final), though `pending` of them are not ranked yet. */
  /** `catalog`: the sessions the search ran over; when they are still the list's, each hit's session is the row's. */
  | { readonly type: 'searchResults'; readonly query: string; readonly hits: ReadonlyList<SearchHit>; readonly pending: number; readonly counted?: boolean; readonly catalog?: readonly CatalogSession[] }
  /** More sessions found by content search for `query` (appended); `done` when the search is over. */
  /** `fresh`: a new search of the text has started (what an earlier one found is dropped, not added to). */
  | { readonly type: 'contentResults'; readonly query: string; readonly hits: readonly ContentHit[]; readonly done: boolean; readonly error?: string; readonly fresh?: true }
  /** Snippets read for rows on screen (by session key), for the content search of `query`. */
  | { readonly type: 'contentSnippets'; readonly query: string; readonly snippets: readonly (readonly [key: string, snippet: Snippet])[] }
  | { readonly type: 'toggleContent' }
  | { readonly type: 'move'; readonly delta: number }
  | { readonly type: 'movePage'; readonly direction: 1 | -1 }
  | { readonly type: 'moveFirst' }
  | { readonly type: 'moveLast' }
  | { readonly type: 'open' }
  | { readonly type: 'queryInput'; readonly text: string }
  | { readonly type: 'queryBackspace' }
  /** Ctrl-W: the last word of the query (and the spaces after it). */
  | { readonly type: 'queryDeleteWord' }
  | { readonly type: 'queryKill' }
  /** Esc in the list: clears the query; with none, quits. */
  | { readonly type: 'clearOrQuit' }
  /** Tab: the action menu of the selected row (or of the open transcript). */
  | { readonly type: 'openMenu' }
  | { readonly type: 'menuMove'; readonly delta: 1 | -1 }
  /** Enter in the menu: its highlighted item. */
  | { readonly type: 'menuChoose' }
  /** A key typed in the menu: the item it names (see menu.ts), if any. */
  | { readonly type: 'menuKey'; readonly key: string }
  | { readonly type: 'closeMenu' }
  | { readonly type: 'toggleScope' }
  | { readonly type: 'toggleSort' }
  | { readonly type: 'showHelp' }
  | { readonly type: 'showProblems' }
  | { readonly type: 'closeOverlay' }
  | { readonly type: 'quit' }
  | { readonly type: 'resume' }
  | { readonly type: 'resumeChecked'; readonly session: CatalogSession; readonly outcome: ResumeOutcome }
  | { readonly type: 'confirmYes' }
  /** The fork prompt for the selected row's whole session (the list's menu). */
  | { readonly type: 'startForkWhole' }
  /** In the fork prompt: all turns ↔ the turns before the selected one. */
  | { readonly type: 'forkExtent'; readonly step: 1 | -1 }
  /** The in-use question's answers (cancel is `confirmNo`). */
  | { readonly type: 'confirmInUse'; readonly answer: 'resume' | 'fork' }
  /** The fork the in-use question asked for is written: resume it. */
  | { readonly type: 'forkThenResumeDone'; readonly session: CatalogSession }
  | { readonly type: 'forkThenResumeFailed'; readonly message: string }
  | { readonly type: 'confirmNo' }
  /** `partial`: only the start of the transcript, shown while the rest is read. */
  | { readonly type: 'transcriptLoaded'; readonly key: string; readonly items: readonly TranscriptItem[]; readonly partial?: boolean }
  | { readonly type: 'transcriptFailed'; readonly key: string; readonly message: string }
  | { readonly type: 'scroll'; readonly delta: number }
  | { readonly type: 'scrollPage'; readonly direction: 1 | -1 }
  | { readonly type: 'scrollHome' }
  | { readonly type: 'scrollEnd' }
  | { readonly type: 'nextTurn' }
  | { readonly type: 'prevTurn' }
  | { readonly type: 'toggleExpand' }
  | { readonly type: 'toggleReasoning' }
  | { readonly type: 'startFind' }
  | { readonly type: 'findInput'; readonly text: string }
  | { readonly type: 'findBackspace' }
  | { readonly type: 'findDeleteWord' }
  | { readonly type: 'findKill' }
  | { readonly type: 'findSubmit' }
  | { readonly type: 'findCancel' }
  | { readonly type: 'findNext'; readonly direction: 1 | -1 }
  | { readonly type: 'startFork' }
  | { readonly type: 'forkInput'; readonly text: string }
  | { readonly type: 'forkBackspace' }
  /** Tab / Shift-Tab in the fork prompt: the next or previous agent to continue in. */
  | { readonly type: 'forkTarget'; readonly step: 1 | -1 }
  | { readonly type: 'forkSubmit' }
  | { readonly type: 'forkCancel' }
  | { readonly type: 'forkDone'; readonly session: CatalogSession; readonly resumeCommand: string }
  | { readonly type: 'forkFailed'; readonly message: string }
  | { readonly type: 'back' }
  | { readonly type: 'previewLoaded'; readonly preview: PreviewData }
  | { readonly type: 'dismissNotice' }
  /** A host's status, and when its rows changed all of them (they replace the host's rows: the local ones stay). */
  | { readonly type: 'hostUpdate'; readonly host: string; readonly status: HostStatus; readonly sessions: readonly CatalogSession[] | null }
  | { readonly type: 'refreshHosts' }
  | { readonly type: 'startRename' }
  | { readonly type: 'renameInput'; readonly text: string }
  | { readonly type: 'renameBackspace' }
  | { readonly type: 'renameKill' }
  | { readonly type: 'renameSubmit' }
  | { readonly type: 'renameCancel' }
  | { readonly type: 'renameDone'; readonly session: CatalogSession }
  | { readonly type: 'renameFailed'; readonly message: string }
  | { readonly type: 'startRemove' }
  | { readonly type: 'removeDone'; readonly session: CatalogSession }
  | { readonly type: 'undoRemove' }
  | { readonly type: 'restoreDone'; readonly session: CatalogSession | null }
  | { readonly type: 'writeFailed'; readonly message: string };
