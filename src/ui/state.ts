import type { CatalogSession, ScanProgress } from '../catalog/scan.js';
import type { HostStatus } from '../remote/host-source.js';
import type { SearchHit } from '../catalog/search.js';
import type { ReadonlyList } from '../core/list-view.js';
import type { Problem } from '../core/formats/types.js';
import type { Agent } from '../core/model.js';
import type { Snippet } from '../core/io/snippet.js';
import type { ScreenSize } from './geometry.js';
import type { FindMatch, TranscriptItem, TranscriptLayout } from './transcript-layout.js';

/** What the TUI hands back to the CLI when it exits: the CLI, not the UI, runs the agent. */
export type TuiDecision =
  | { readonly kind: 'quit' }
  /** `remote`: the session is on another machine; the CLI runs this ssh argv (`ssh -t HOST …`) with the terminal. */
  | {
      readonly kind: 'resume';
      readonly session: CatalogSession;
      readonly here?: boolean;
      readonly remote?: { readonly argv: readonly string[] };
      /** The session looked open in an agent and the user chose, in the browser, to resume it anyway (or it is the fork they chose instead). */
      readonly inUseAnswered?: true;
    };

/** `list`: the rows and the query (printable keys always type into it); `menu`: the actions of the selected row (Tab). */
export type Mode = 'list' | 'menu' | 'help' | 'problems' | 'transcript' | 'find' | 'fork' | 'confirm' | 'rename';

export type Scope = 'cwd' | 'all';
export type SortKey = 'updated' | 'created';

/** The results on screen are for the query as typed (not for a keystroke ago). Content results stream: never waited for. */
export function searchSettled(state: Pick<BrowserState, 'query' | 'search'>): boolean {
  const query = state.query.trim();
  return query === '' || state.search?.query === query || contentQuery(state.query) !== null;
}

/** A query that starts with `>` searches inside every transcript: the text after it (null for a fuzzy query). */
export function contentQuery(query: string): string | null {
  const trimmed = query.trimStart();
  return trimmed.startsWith('>') ? trimmed.slice(1).trim() : null;
}

/** Content search needs this many characters (one letter is in every transcript). */
export const CONTENT_MIN_CHARS = 2;

/** Session files that hold the content-search text (the list shows the catalog's row for them). */
export interface ContentHit {
  /** The machine the files are on (absent: this one): a host's paths are looked up among its rows only. */
  readonly host?: string;
  readonly paths: readonly string[];
  /**
   * The conversation's key, where it is known: a search of the catalog's rows names each row it found so, and a store's
   * conversation (opencode's database: a file of many) must be, as its paths do not tell.
   */
  readonly key?: string;
  /** Occurrences in these files (0: not counted, as this machine's content search does not; a host's grep counts them). */
  readonly matches: number;
  /** The first one in its surroundings. */
  readonly snippet: Snippet | null;
}

export interface ListRow {
  readonly session: CatalogSession;
  readonly hit: SearchHit | null;
  /** In content search: where the text is. */
  readonly content?: ContentHit;
}

export interface Exchange {
  readonly prompt: string;
  readonly reply: string;
}

/** The selected session's first and last exchanges, read from its transcript. */
export interface PreviewData {
  readonly key: string;
  readonly first: Exchange | null;
  readonly last: Exchange | null;
}

export interface TranscriptState {
  readonly key: string;
  readonly session: CatalogSession;
  readonly status: 'loading' | 'ready' | 'error';
  readonly error: string | null;
  readonly items: readonly TranscriptItem[];
  /** Only the start is read yet (a big transcript shows it while the rest is read). */
  readonly partial: boolean;
  readonly layout: TranscriptLayout | null;
  /** First visible line. */
  readonly top: number;
  /** The selected user turn (1-based; 0 when the transcript has none): `f` forks before it. */
  readonly turn: number;
  readonly expanded: boolean;
  readonly showReasoning: boolean;
  /** The committed in-transcript search, and the one being typed (each `/` starts an empty one). */
  readonly find: string;
  readonly findDraft: string;
  /** Every occurrence of `find` in the layout, top to bottom (the header counts them). */
  readonly findMatches: readonly FindMatch[];
  /** The occurrence n/N last landed on (highlighted apart from the others); -1 before the first. */
  readonly findCurrent: number;
  /** Opened from content search: land on the first match once the transcript is read. */
  readonly findOnLoad: boolean;
}

export interface ForkState {
  readonly session: CatalogSession;
  /** The selected turn: the fork keeps the turns before it, unless `whole`. */
  readonly atTurn: number;
  /** Every turn (the whole conversation): ↑↓ choose between this and "before turn atTurn" when atTurn ≥ 2. */
  readonly whole: boolean;
  /** The session's user turns. */
  readonly turns: number;
  readonly turnText: string;
  readonly branchName: string;
  /** The agent the new session is for: the session's own (a fork), or another one (a hand-off); Tab picks it. */
  readonly target: Agent;
  /** The selected turn's files as they were are recorded (the agent's snapshots): ↑↓ offer them. */
  readonly codeRecorded: boolean;
  /** With the code as it was when the turn was typed, in a new git worktree (`fork --with-code`). */
  readonly withCode: boolean;
  readonly status: 'editing' | 'working' | 'error';
  readonly error: string | null;
}

/** The action menu (Tab): which of its items is highlighted, and the screen it was opened on. */
export interface MenuState {
  readonly selected: number;
  readonly returnTo: 'list' | 'transcript';
}

/** The recorded cwd cannot be used: ask before resuming in the current directory. */
export interface ConfirmState {
  /**
   * `cwd`: the recorded directory is gone (resume in the current one?); `inUse`: the session looks open in an agent;
   * `remove`: move the session to the trash?
   */
  readonly kind: 'cwd' | 'inUse' | 'remove';
  readonly session: CatalogSession;
  readonly message: string;
  readonly returnTo: Mode;
}

/** The rename prompt (Tab → rename): the name being typed, then written through the agent's own name field. */
export interface RenameState {
  readonly session: CatalogSession;
  readonly name: string;
  readonly status: 'editing' | 'working' | 'error';
  readonly error: string | null;
}

/** A write the browser asked for and the container runs (services): a confirmed delete, or the undo of the last one. */
export type PendingWrite = { readonly kind: 'remove'; readonly session: CatalogSession } | { readonly kind: 'restore'; readonly session: CatalogSession };

export interface Notice {
  readonly text: string;
  /** A second line (where a fork was written, how to resume it). */
  readonly detail?: string;
  readonly tone: 'info' | 'success' | 'error';
}

/** Another machine whose sessions are listed, and how reading it goes. */
export interface HostView {
  readonly name: string;
  readonly status: HostStatus;
}

export interface BrowserState {
  readonly size: ScreenSize;
  /** The hosts read over ssh (their rows carry `host`), in the order named. */
  readonly hosts: readonly HostView[];
  /** Bumped by `R`: the hosts are read again. */
  readonly hostsRefresh: number;
  readonly now: number;
  readonly cwd: string;
  readonly homeDir: string;
  /** Scan progress while the first scan runs; null once it finished. */
  readonly loading: ScanProgress | null;
  /** Every session, in the current sort order. */
  readonly sessions: readonly CatalogSession[];
  readonly byKey: ReadonlyMap<string, CatalogSession>;
  readonly problems: readonly Problem[];
  /** The watcher is running: new sessions and turns appear without a restart. */
  readonly watching: boolean;
  readonly scope: Scope;
  /** The user chose the scope (`--all` or Tab): the first scan does not override it. */
  readonly scopeChosen: boolean;
  /** Why the scope is what it is, when the user did not choose it. */
  readonly scopeNote: string | null;
  readonly sort: SortKey;
  readonly query: string;
  /** Content search (`>text`, Ctrl-G): the sessions found so far for `query`, in the order found; `done` once every file was searched. */
  readonly content: {
    readonly query: string;
    readonly hits: readonly ContentHit[];
    readonly done: boolean;
    readonly error: string | null;
    /** Snippets read for rows shown whose hit came without one, by session key (see TuiServices.contentSnippets). */
    readonly snippets?: ReadonlyMap<string, Snippet>;
  } | null;
  /** Results of the last search that finished (it may lag `query` by a keystroke). */
  /** `counted`: `hits` holds every match (the count is final) while `pending` of them are still being ranked. */
  readonly search: { readonly query: string; readonly hits: ReadonlyList<SearchHit>; readonly pending: number; readonly counted: boolean; readonly catalog?: readonly CatalogSession[] } | null;
  /** What the list shows, in order: for a search of 80k matches, rows made as they are read (see withRows). */
  readonly rows: ReadonlyList<ListRow>;
  /** Enter (resume) or → (open) was pressed before the results for the typed query arrived: done to the best match when they are. */
  readonly whenSearched: 'open' | 'resume' | null;
  /** Matches of the current query outside the scope (the header offers Tab to see them). */
  readonly hiddenMatches: number;
  readonly selected: number;
  readonly selectedKey: string | null;
  /**
   * Until the user moves it, the selection stays on the top row as rows stream in at start and as a query's results
   * arrive and are ranked further (Enter resumes what is first on screen); once moved, it stays on what they chose.
   */
  readonly followTop: boolean;
  readonly listTop: number;
  readonly mode: Mode;
  /** Where Esc from help/problems goes back to. */
  readonly overlayReturn: Mode;
  readonly preview: PreviewData | null;
  readonly transcript: TranscriptState | null;
  readonly fork: ForkState | null;
  readonly menu: MenuState | null;
  readonly confirm: ConfirmState | null;
  readonly rename: RenameState | null;
  /** A delete or undo being run. */
  readonly pendingWrite: PendingWrite | null;
  /** The session deleted last in this browser (Ctrl-R puts it back). */
  readonly lastDeleted: CatalogSession | null;
  /** A resume asked for and not yet checked (the container checks the agent and cwd). */
  readonly resumeRequest: CatalogSession | null;
  /** A session open in an agent that the user chose to fork (every turn) and resume the fork of: being forked. */
  readonly forkThenResume: CatalogSession | null;
  readonly notice: Notice | null;
  readonly decision: TuiDecision | null;
}

export interface InitialOptions {
  readonly size: ScreenSize;
  readonly cwd: string;
  readonly homeDir: string;
  readonly now: number;
  /** 'all' is the user's choice (`--all`) and is kept; 'cwd' falls back to all when the directory has none. */
  readonly scope?: Scope;
  /** Other machines to read (shown as connecting until they answer). */
  readonly hosts?: readonly string[];
}

export function initialState(options: InitialOptions): BrowserState {
  return {
    size: options.size,
    hosts: (options.hosts ?? []).map((name) => ({ name, status: { kind: 'connecting' } })),
    hostsRefresh: 0,
    now: options.now,
    cwd: options.cwd,
    homeDir: options.homeDir,
    loading: { done: 0, total: 0, bytesDone: 0, bytesTotal: 0 },
    sessions: [],
    byKey: new Map(),
    problems: [],
    watching: false,
    scope: options.scope ?? 'cwd',
    scopeChosen: options.scope === 'all',
    scopeNote: null,
    sort: 'updated',
    query: '',
    content: null,
    search: null,
    rows: [],
    whenSearched: null,
    hiddenMatches: 0,
    selected: 0,
    selectedKey: null,
    followTop: true,
    listTop: 0,
    mode: 'list',
    overlayReturn: 'list',
    preview: null,
    transcript: null,
    fork: null,
    menu: null,
    confirm: null,
    rename: null,
    pendingWrite: null,
    lastDeleted: null,
    resumeRequest: null,
    forkThenResume: null,
    notice: null,
    decision: null,
  };
}
