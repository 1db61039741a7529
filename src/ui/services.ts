import { isAbsolute, join } from 'node:path';
import { existsSync } from 'node:fs';
import { CatalogCache } from '../catalog/cache.js';
import { trigramMapsBeside } from '../catalog/native-grep.js';
import { SnippetReader } from '../catalog/grep-snippets.js';
import { grepCatalog } from '../catalog/grep-catalog.js';
import type { Snippet } from '../core/io/snippet.js';
import { agentDefaultHomes, type Locations } from '../catalog/locations.js';
import { scanCatalog, ScanContext, type CatalogSession, type ScanProgress } from '../catalog/scan.js';
import { conversations } from '../catalog/merge-rows.js';
import { watchCatalog, type CatalogChange } from '../catalog/watch.js';
import type { Config } from '../config.js';
import { ADAPTER_LIST, ADAPTERS } from '../core/formats/index.js';
import { DISPLAY_CLIP_LIMITS } from '../core/io/clip.js';
import type { Problem } from '../core/formats/types.js';
import type { Agent, Message, Session } from '../core/model.js';
import { sessionIdProblem } from '../core/session-id.js';
import { formatCommand } from '../launch.js';
import type { ResumeOutcome } from './reducer.js';
import type { ContentHit } from './state.js';
import { TranscriptCache, transcriptBytes, transcriptItemsBytes } from './transcript-cache.js';
import { buildTranscriptItems, transcriptHeader, TranscriptItemsBuilder, withCodeMarks, type TranscriptItem } from './transcript-layout.js';
import { turnFiles } from '../app/turn-files.js';
import { sessionKey } from '../core/model.js';
import { describeError } from '../core/errors.js';
import { safeLine, tildePath } from '../core/text.js';
import { HostSource, type HostContext, type HostStatus } from '../remote/host-source.js';
import { DEFAULT_SSH_SETTINGS } from '../remote/ssh.js';
import { forkSession } from '../app/fork.js';
import { removeSession, restoreSession, type Trash } from '../app/remove.js';
import { renameSession } from '../app/rename.js';
import { staleRefusal } from '../app/place.js';
import { describeInUse, sessionInUse } from '../app/in-use.js';
import { grepPlace, type GrepRequest } from '../app/grep.js';
import { placeOf, placeOfHost, type Here, type Place } from '../app/place.js';
import { readForDisplay, readsForDisplay, readTranscript } from '../app/read.js';
import { checkPlan, planCommand, planResume } from '../app/resume.js';

export interface ForkOutcome {
  readonly session: CatalogSession;
  /** The command that resumes the fork, to copy. */
  readonly resumeCommand: string;
}

/** Everything the TUI does outside itself, behind one interface (tests can stand in for any of it). */
export interface TuiServices {
  /** Where sessions are looked for, for the loading and empty states. */
  readonly lookedIn: readonly string[];
  /** The first screen remembered from the last run (unvalidated), to paint at once; may be empty. */
  cached(): readonly CatalogSession[];
  /** Every session remembered from the last run (unvalidated): the whole list while the scan validates it. */
  loadCached?(): Promise<readonly CatalogSession[]>;
  /**
   * Index every session (from the cache where files did not change). `onIndexed` gets rows as files are read
   * (newest first), not those that came from the cache: on a cold start they are the list until the scan is done.
   */
  scan(
    onProgress: (progress: ScanProgress) => void,
    onIndexed?: (session: CatalogSession) => void,
  ): Promise<{ readonly sessions: readonly CatalogSession[]; readonly problems: readonly Problem[] }>;
  /** The user pressed a key (background work waits for a pause). */
  noteActivity?(): void;
  /** Start reporting changes (after the scan); `onReady` once events are being delivered. Returns a stop function. */
  watch(sessions: readonly CatalogSession[], onChange: (change: CatalogChange) => void, onReady: () => void): () => void;
  /** The transcript, clipped for display; `onPartial` may get its first messages before the rest is read. */
  loadSession(session: CatalogSession, onPartial?: (messages: readonly Message[]) => void): Promise<Session>;
  /**
   * The transcript as the screen's items (clipped for display, the row's lineage as its header); `onPartial` may get
   * the items of its start, holding a user turn, before the rest is read. A big transcript's messages are never held
   * whole: its items are made as they are read. Absent (services standing in, in tests): items from `loadSession`.
   */
  loadTranscript?(session: CatalogSession, onPartial?: (items: readonly TranscriptItem[]) => void): Promise<readonly TranscriptItem[]>;
  /**
   * A fork, or with another `target` agent a hand-off: a new session of that agent holding turns 1..atTurn-1, or with
   * `end` every turn (the whole conversation).
   */
  fork(session: CatalogSession, atTurn: number | 'end', branchName: string, target?: Agent, withCode?: boolean): Promise<ForkOutcome>;
  /** Name the session where its agent reads names; the row read again (absent in stand-ins: not offered to work). */
  rename?(session: CatalogSession, name: string): Promise<CatalogSession>;
  /** Move the session to the trash (refused while a process holds its files open). */
  remove?(session: CatalogSession): Promise<void>;
  /** Put the session deleted last back from the trash, byte for byte: its row as it was. */
  restore?(session: CatalogSession): Promise<CatalogSession>;
  /**
   * Can Enter resume as is, or must the user be asked first (the recorded cwd is gone or unknown, or the session looks
   * open in an agent on this machine)?
   */
  checkResume(session: CatalogSession): Promise<ResumeOutcome>;
  /**
   * Search inside every transcript (`sessions grep`'s engine, ASCII case ignored): each matching session as it is
   * found, then `onDone` (with an error message if the search failed). Returns a function that stops it.
   */
  grep?(text: string, onHit: (hit: ContentHit) => void, onDone: (error: string | null) => void): () => void;
  /**
   * Snippets of this machine's sessions that `grep` found holding `text` without one (the rows on screen ask): each
   * `read` resolves to the snippet, or null; `close` when the text is no longer searched.
   */
  contentSnippets?(text: string): { read(session: CatalogSession, paths: readonly string[]): Promise<Snippet | null>; close(): void };
  /** Other machines, read over ssh while the local list is on screen. */
  readonly hosts?: HostsService;
}

export interface HostUpdate {
  readonly host: string;
  readonly status: HostStatus;
  /** All of the host's rows (null: only its status changed). */
  readonly sessions: readonly CatalogSession[] | null;
}

export interface HostsService {
  readonly names: readonly string[];
  /** How often the hosts are read again (a mirror re-syncs; a lost connection is made again). */
  readonly refreshMs: number;
  /** Connect to every host at once; updates arrive as each answers. */
  start(onUpdate: (update: HostUpdate) => void): { refresh(): void; stop(): void };
}

/** Characters of text each side of a content-search match (the row shows what fits). */
const CONTENT_CONTEXT = 80;

export interface ServiceOptions {
  readonly locations: Locations;
  readonly config: Config;
  readonly homeDir: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly transcripts?: TranscriptCache;
  /** Transcripts as screen items (`loadTranscript`). */
  readonly transcriptItems?: TranscriptCache<readonly TranscriptItem[]>;
  /** The persisted catalog's file: loaded after the first frame, validated per file by the scan, saved after it. */
  readonly cachePath?: string | null;
  /** Its first-screen file, read before the UI started. */
  readonly cacheHead?: readonly CatalogSession[] | null;
  /** The clock forks are dated by (Codex files them under the day's folder); tests pass their own. */
  readonly now?: () => Date;
  /**
   * A full garbage collection (run.tsx gives one): run once when the catalog has settled (scan done, watcher
   * ready) and the user has not pressed a key for a moment, so the pages that setup's garbage took go back.
   */
  readonly collectGarbage?: () => void;
  /** Other machines to read over ssh, and how. */
  readonly hosts?: { readonly names: readonly string[]; readonly context: HostContext; readonly refreshMs: number };
  /** The process table whose open files say a session is open in an agent (`/proc`; null: only write times are checked). */
  readonly procDir?: string | null;
  /** Where deleted sessions go (default: `$XDG_DATA_HOME`, else `~/.local/share`, its `Trash/`). */
  readonly trash?: Trash;
}

/** No key for this long before the settled catalog's one full collection runs (it pauses the process briefly). */
const QUIET_BEFORE_COLLECTING_MS = 2000;

/** How often rows the watcher re-read are written to the cache (so that a restart does not read them again). */
const WATCH_SAVE_MS = 20_000;

/**
 * A transcript's turns marked with what the agent recorded of their files (a fork with the code can be made before a
 * marked one): for an agent that records them, on this machine. Marks that cannot be read leave the turns unmarked.
 */
async function markCode(session: CatalogSession, items: readonly TranscriptItem[], place: Place, here: Here): Promise<readonly TranscriptItem[]> {
  if (place.kind !== 'local' || ADAPTERS[session.agent].checkpoints === undefined) return items;
  const marks = await here.context().then((context) => turnFiles(session, context)).catch(() => null);
  return marks === null ? items : withCodeMarks(items, marks);
}

/** Items that fill a screen (each is a row at least): a big transcript's start is shown with as many. */
const FIRST_SCREEN_ITEMS = 60;

/** The real services: the catalog scan and watcher, the adapters, the launch checks. */
export function createTuiServices(options: ServiceOptions): TuiServices {
  const { locations, config, homeDir, env } = options;
  const transcripts = options.transcripts ?? new TranscriptCache();
  const transcriptItems = options.transcriptItems ?? new TranscriptCache<readonly TranscriptItem[]>();
  // A fork of a session under another home is resumed with that home's variable (the hint printed says so).
  const defaultHomes = agentDefaultHomes({ env, homeDir, cwd: locations.cwd });
  // Transcripts and forks need the scan's context (id lookups, names): requests made before it exists wait for it.
  let resolveContext: (context: ScanContext) => void = () => undefined;
  const scanned = new Promise<ScanContext>((resolve) => {
    resolveContext = resolve;
  });
  let context: ScanContext | null = null;
  let cache: Promise<CatalogCache> | null = null;
  /** The cache once loaded (the watcher and forks record their rows in it). */
  let cacheLoaded: CatalogCache | null = null;
  let lastActivity = 0;
  /** One full collection, once no key came for a moment: of the settled catalog, and after each content search. */
  const collectWhenQuiet = (): void => {
    const collect = options.collectGarbage;
    if (collect === undefined) return;
    const check = (): void => {
      const quietFor = Date.now() - lastActivity;
      if (quietFor >= QUIET_BEFORE_COLLECTING_MS) collect();
      else setTimeout(check, QUIET_BEFORE_COLLECTING_MS - quietFor).unref();
    };
    setTimeout(check, QUIET_BEFORE_COLLECTING_MS).unref();
  };
  const loadCache = (): Promise<CatalogCache> | null => {
    if (!options.cachePath) return null;
    cache ??= CatalogCache.load(options.cachePath).then((loaded) => (cacheLoaded = loaded));
    return cache;
  };

  /**
   * This machine's rows as the scan listed them, with the watcher's changes since (by key; null: removed): content
   * search hands their files to the engine instead of walking the folders. Null until the scan is done.
   */
  let localRows: readonly CatalogSession[] | null = null;
  const rowChanges = new Map<string, CatalogSession | null>();
  /** Content searches running over those rows: each gets the rows the watcher re-reads or finds meanwhile. */
  const liveSearches = new Set<(rows: readonly CatalogSession[]) => void>();
  /**
   * Every local row now, or null until the scan is done. Not held back until the watcher is ready: a session file
   * that appears before then is not in the list either (the watcher may miss its event), so a walk would find nothing
   * more the list can show, and at 100k sessions a walk took 25-50 s (and 630 MB) where the rows take 3-6 s.
   */
  const catalogNow = (): readonly CatalogSession[] | null => {
    if (localRows === null) return null;
    if (rowChanges.size > 0) {
      const rows = localRows.filter((row) => !rowChanges.has(sessionKey(row)));
      for (const row of rowChanges.values()) if (row !== null) rows.push(row);
      localRows = rows;
      rowChanges.clear();
    }
    return localRows;
  };

  const sources = new Map<string, HostSource>();
  const hostOptions = options.hosts;
  const settings = hostOptions?.context.settings ?? DEFAULT_SSH_SETTINGS;
  /** Where a session lives: this machine, or a host being read (its own `sessions`, or its mirror). */
  const placeFor = (session: CatalogSession): Place => placeOf(session, (host) => sources.get(host), settings);
  const here: Here = {
    locations,
    // A read that uses nothing of the scan's context (Claude's files) does not wait for the scan: a session opened
    // while the catalog is still being scanned (a warm 10k home takes seconds) shows its first screen at once.
    context: (request) => (request?.alone ? Promise.resolve(context ?? new ScanContext()) : scanned),
    cache: () => cacheLoaded ?? undefined,
    defaultHomes,
    templates: { resume: config.resume, exec: config.exec },
  };
  /** The version of a session's transcript: any change to its files (or a host's row) reads it again. */
  const versionOf = (session: CatalogSession): string => `${session.size}:${session.mtimeMs}:${session.updatedAt}:${session.userTurns}:${session.paths.join('\0')}`;

  return {
    lookedIn: describeLocations(locations, homeDir),

    noteActivity() {
      lastActivity = Date.now();
    },
    ...(hostOptions && hostOptions.names.length > 0
      ? {
          hosts: {
            names: hostOptions.names,
            refreshMs: hostOptions.refreshMs,
            start(onUpdate) {
              for (const name of hostOptions.names) {
                let lastRows: readonly CatalogSession[] | null = null;
                const source = new HostSource(name, hostOptions.context, (changed) => {
                  const rows = changed.sessions();
                  // Rows are sent when they changed (a status change alone sends none).
                  const same = lastRows !== null && lastRows.length === rows.length && rows.every((row, i) => row === lastRows![i]);
                  lastRows = rows;
                  onUpdate({ host: name, status: changed.status, sessions: same ? null : rows });
                });
                sources.set(name, source);
                void source.load(true);
              }
              return {
                refresh: () => {
                  for (const source of sources.values()) void source.refresh();
                },
                stop: () => {
                  for (const source of sources.values()) source.close();
                },
              };
            },
          },
        }
      : {}),

    cached() {
      return options.cacheHead ?? [];
    },

    async loadCached() {
      const loaded = await loadCache();
      return loaded ? conversations(loaded.sessions()) : [];
    },

    async scan(onProgress, onIndexed) {
      const loaded = (await loadCache()) ?? undefined;
      const result = await scanCatalog(locations, { onProgress, ...(onIndexed ? { onSession: onIndexed } : {}), ...(loaded ? { cache: loaded } : {}) });
      context = result.context;
      resolveContext(context);
      localRows = result.sessions;
      const problems = [...result.problems];
      await loaded
        ?.save({ sessions: result.sessions, scopeDir: locations.cwd })
        .catch((error: unknown) => problems.push({ path: loaded.path ?? '(cache)', message: `cannot write the cache: ${describeError(error)}` }));
      return { sessions: result.sessions, problems };
    },

    watch(sessions, onChange, onReady) {
      if (!context) throw new Error('watch() needs a finished scan');
      // Rows the watcher re-reads go to the cache, saved now and then: a restart reads none of them again.
      const loaded = cache;
      let savedAt = Date.now();
      let saving = false;
      const changed = (change: CatalogChange): void => {
        for (const key of change.removed) rowChanges.set(key, null);
        for (const row of change.upserted) rowChanges.set(sessionKey(row), row);
        for (const search of liveSearches) search(change.upserted);
        onChange(change);
        if (!loaded || saving || Date.now() - savedAt < WATCH_SAVE_MS) return;
        saving = true;
        void loaded
          .then((c) => c.save())
          .catch(() => undefined)
          .finally(() => {
            saving = false;
            savedAt = Date.now();
          });
      };
      const watcher = watchCatalog(locations, sessions, { context, onChange: changed, ...(cacheLoaded ? { cache: cacheLoaded } : {}) });
      void watcher.ready.then(() => {
        onReady();
        collectWhenQuiet();
      });
      return () => void watcher.close();
    },

    loadSession(session, onPartial) {
      const place = placeFor(session);
      // Clipped: the screen shows a few KiB of each tool output; a 200 MB session is read in tens of MB.
      return transcripts.load(sessionKey(session), versionOf(session), transcriptBytes, () => readTranscript(session, place, here, { clip: DISPLAY_CLIP_LIMITS, ...(onPartial ? { onPartial } : {}) }));
    },

    loadTranscript(session, onPartial) {
      const place = placeFor(session);
      if (!readsForDisplay(session, place)) {
        // Read whole (clipped), then made into items; a start is shown when it holds a turn.
        const partial = onPartial && ((messages: readonly Message[]) => {
          const items = buildTranscriptItems({ ...session, messages });
          if (items.some((item) => item.kind === 'turn')) onPartial(items);
        });
        return this.loadSession(session, partial).then(async (read) => markCode(session, buildTranscriptItems({ ...transcriptHeader(read, session), messages: read.messages }), place, here));
      }
      return transcriptItems.load(sessionKey(session), versionOf(session), transcriptItemsBytes, async () => {
        let builder = new TranscriptItemsBuilder(session);
        // The start is shown once: as soon as it fills a screen, or when the reader says it is the start.
        let shown = onPartial === undefined;
        const showStart = (): void => {
          if (shown || !builder.hasTurn) return;
          shown = true;
          onPartial!(builder.items.slice());
        };
        await readForDisplay(session, place, here, {
          clip: DISPLAY_CLIP_LIMITS,
          sink: {
            message: (message) => {
              builder.add(message);
              if (!shown && builder.items.length >= FIRST_SCREEN_ITEMS) showStart();
            },
            start: showStart,
            restart: () => {
              builder = new TranscriptItemsBuilder(session);
            },
          },
        });
        return markCode(session, builder.items, place, here);
      });
    },

    async fork(session, atTurn, branchName, target = session.agent, withCode = false) {
      const name = branchName.trim();
      const forked = await forkSession(session, placeFor(session), here, { atTurn, to: target, now: options.now?.() ?? new Date(), ...(name ? { branchName: name } : {}), ...(withCode ? { withCode: {} } : {}) });
      // A host lists the new session at its next read.
      if (forked.host !== null) void sources.get(forked.host)?.refresh();
      return { session: forked.row, resumeCommand: formatCommand(planCommand(forked.resume)) };
    },

    async rename(session, name) {
      return (await renameSession(session, placeFor(session), here, { name, now: options.now?.() ?? new Date() })).row;
    },

    async remove(session) {
      await removeSession(session, placeFor(session), { trash: trashOf(options), procDir: options.procDir ?? null });
    },

    async restore(session) {
      await restoreSession(trashOf(options), session.id);
      return session;
    },

    grep(text, onHit, onDone) {
      const controller = new AbortController();
      const { signal } = controller;
      const request: GrepRequest = {
        // SESSIONS_GREP_ENGINE=js: the JS workers, as `sessions grep` (see GrepOptions.engine).
        engine: env.SESSIONS_GREP_ENGINE === 'js' ? 'js' : 'native',
        ignoreCase: true,
        // No count: a file is read until its first lines with a match (the snippet), not to its end (issue 33).
        count: false,
        context: CONTENT_CONTEXT,
        signal,
      };
      const trigrams = options.cachePath ? { trigrams: trigramMapsBeside(options.cachePath) } : {};
      const rows = catalogNow();
      // Listed as the engine finds them; the rows on screen get their snippets from contentSnippets.
      const walked = (agents?: readonly Agent[]): Promise<unknown> =>
        grepPlace({ kind: 'local' }, text, { ...request, ...(agents ? { agents } : {}), readSnippets: false, local: { locations, ...trigrams }, onFiles: (found) => onHit(found) });
      let searched: Promise<unknown>;
      if (rows === null) {
        // Not scanned yet (the catalog may not know every session): the folders are walked, as `sessions grep` does.
        searched = walked();
      } else {
        // Every row's files, as the catalog names them (no walk); a row the watcher re-reads or finds while the search
        // runs (a file that grew or appeared) is searched again, whole. Stores (a file of many conversations) are
        // searched in the text their adapter reads out of them, found by their own (small) walk.
        const search = grepCatalog(rows, text, {
          ignoreCase: request.ignoreCase,
          engine: request.engine,
          signal,
          ...trigrams,
          context: CONTENT_CONTEXT,
          onFound: (session, found) => onHit({ paths: session.paths, key: sessionKey(session), matches: 0, snippet: found.snippet }),
        });
        const live = (changed: readonly CatalogSession[]): void => void search.add(changed);
        liveSearches.add(live);
        const stores = ADAPTER_LIST.filter((adapter) => adapter.store !== undefined).map((adapter) => adapter.agent);
        searched = Promise.all([search.done.finally(() => liveSearches.delete(live)), stores.length > 0 ? walked(stores) : null]);
      }
      const local = searched.then(
        () => null,
        (error: unknown) => describeError(error),
      );
      // Every host being read is searched at the same time: its own `sessions grep`, or its mirror here.
      const remote = [...sources.values()].flatMap((source) => {
        const place = placeOfHost(source, settings);
        if (place === null) return []; // not read (yet): it has no rows to find
        return [
          grepPlace(place, text, { ...request, onFiles: (found) => onHit({ host: source.host, ...found }) }).then(
            (done) => done.error,
            (error: unknown) => `${source.host}: ${describeError(error)}`,
          ),
        ];
      });
      void Promise.all([local, ...remote]).then((errors) => {
        if (signal.aborted) return;
        // A search of 100k sessions leaves ~50 MB of garbage and grown heap pages behind: one full collection once no
        // key came for a moment, as after the scan (else the next search's peak RSS stands on them).
        collectWhenQuiet();
        const failed = errors.filter((error): error is string => error !== null);
        onDone(failed.length === 0 ? null : failed.join('; '));
      });
      return () => controller.abort();
    },

    contentSnippets(text) {
      const reader = new SnippetReader(text, { ignoreCase: true, context: CONTENT_CONTEXT });
      return { read: (session, paths) => reader.read(session.agent, paths), close: () => reader.close() };
    },

    async checkResume(session) {
      const problem = sessionIdProblem(session);
      if (problem !== null) return { kind: 'refuse', message: `cannot resume: ${problem}` };
      if (session.stale !== undefined) return { kind: 'refuse', message: `cannot resume: ${staleRefusal(session)}` };
      const plan = planResume(session, placeFor(session), here);
      // A host checks its own directories and agents when the command runs there.
      const check = checkPlan(plan, env);
      if (check === null) return { kind: 'go', remote: { argv: planCommand(plan).argv } };
      // Asked here, in the browser, so that "cancel" goes back to the list (the CLI asks again only when it was not).
      const inUse = await sessionInUse(session, { procDir: options.procDir ?? null });
      if (inUse !== null) return { kind: 'inUse', message: `${session.agent} session ${safeLine(session.id)} looks open in an agent (${describeInUse(inUse)}).` };
      if (check.ok || check.reason === 'not-found') return { kind: 'go' }; // the CLI prints the command when the agent is missing
      if (check.reason === 'no-cwd') return { kind: 'ask', message: 'This session recorded no working directory.' };
      return { kind: 'ask', message: `The session's directory ${session.cwd ?? ''} no longer exists.` };
    },
  };
}

function describeLocations(locations: Locations, homeDir: string): string[] {
  const home = (path: string): string => tildePath(path, homeDir);
  // A home that is not there is not an empty one: said apart (a typo in --home, a missing mount).
  const missing = (dir: string): string => (existsSync(dir) ? '' : ' — does not exist');
  return [
    ...ADAPTER_LIST.flatMap((adapter) => locations.roots[adapter.agent].map((dir) => `${adapter.locations.describeRoot(home(dir))}${missing(dir)}`)),
    ...ADAPTER_LIST.flatMap((adapter) => (adapter.locations.describeAlso ? [adapter.locations.describeAlso(home(locations.cwd))] : [])),
  ];
}

/** The trash deleted sessions go to: the one given, else `$XDG_DATA_HOME`'s (an absolute one), else `~/.local/share`'s. */
function trashOf(options: ServiceOptions): Trash {
  if (options.trash) return options.trash;
  const data = options.env.XDG_DATA_HOME;
  return { dataHome: data !== undefined && isAbsolute(data) ? data : join(options.homeDir, '.local', 'share') };
}
