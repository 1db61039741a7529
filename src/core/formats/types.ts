import type { HandoffConversation } from '../handoff/conversation.js';
import type { HandoffWrite, HandoffWritten } from '../handoff/types.js';
import type { ClipLimits } from '../io/clip.js';
import type { Agent, Message, Session, SessionSummary } from '../model.js';

/** Something wrong with one file or directory: reported once, never fatal to a scan. */
export interface Problem {
  readonly path: string;
  readonly message: string;
}

export type ReportProblem = (problem: Problem) => void;

/** One conversation's files, as discovery found them (before any content is read). */
export interface SessionFileGroup {
  readonly agent: Agent;
  /** Oldest first; the last one is the live file a resume appends to. */
  readonly paths: readonly string[];
  /** The id the file name suggests (Codex/Claude names carry it), or null. */
  readonly idHint: string | null;
  /** The location root this came from (a CODEX_HOME, a Claude config dir, a claw workspace). */
  readonly root: string;
  /** Codex `archived_sessions/`. */
  readonly archived: boolean;
}

export interface AdapterContext {
  readonly report: ReportProblem;
  /** Files of another conversation of the same agent by id (Codex paginated forks read their parent). */
  readonly lookup: (agent: Agent, id: string) => SessionFileGroup | undefined;
  /** Codex thread names from `session_index.jsonl`, per CODEX_HOME root (newest wins). */
  readonly names: (root: string) => ReadonlyMap<string, string>;
  /** Files at least this big get their fold saved with the row (IndexedSession.resume); default: never. */
  readonly saveFoldFrom?: number;
}

/**
 * Where a saved fold stopped, and what it needs to go on: the live file's offset just past its last complete
 * line, and the adapter's own fold state (plain JSON, read back from disk: the adapter checks it).
 */
export interface FoldResume {
  readonly path: string;
  readonly offset: number;
  readonly state: unknown;
  /** The row the fold made (the cache keeps it anyway): a fold may keep counts where the row has the texts. */
  readonly row?: SessionSummary;
}

/** A row folded from every line, with what a later fold over appended bytes needs (absent: read it whole again). */
export interface IndexedSession {
  readonly summary: SessionSummary | null;
  readonly resume?: FoldResume;
  /** Fingerprint of the live file's first bytes when it was read (lines.ts headFingerprint). */
  readonly fingerprint?: string;
  /** Bytes of the live file this fold read (an appended read reads only what was appended). */
  readonly bytesRead: number;
}

/** How a transcript is read: exactly (the default: forks, exports, `show`) or clipped for display. */
export interface ReadSessionOptions {
  /**
   * Cut long JSON string values while reading, before they are decoded: a screen needs a few KiB of each tool
   * output, not all 200 MB of a session. Clipped blocks carry `clippedBytes`.
   */
  readonly clip?: ClipLimits;
  /**
   * Called once with the messages of the start of a big transcript, before the rest is read, so that a screen
   * can show them at once. Not called when the start cannot be shown on its own (a Codex fork whose history
   * lives in its parent's file, several segment files) or the file is small. The messages are replaced by the
   * returned session: later lines can still roll back turns or move Claude's active leaf.
   */
  readonly onPartial?: (messages: readonly Message[]) => void;
}

/** Where a display read hands the transcript: message by message, never held by the reader. */
export interface DisplaySink {
  /** The next message of the active transcript (long strings clipped, clip marks taken out). */
  message(message: Message): void;
  /** What was handed on so far is the start of a big transcript: a screen can show it. At most once. */
  start?(): void;
  /** Drop every message handed on so far: the transcript is handed on again from its first message. */
  restart(): void;
}

/** A transcript read as a stream (`show` of a 200 MB session): its messages in order, never all held at once. */
export interface MessageStream {
  /**
   * Exact (never clipped), as `readSession` makes them, except that they carry no usage; in batches, in order (a
   * 200 MB session is ~200k messages: one turn of an async iterator each cost ~70 ms).
   */
  readonly messages: AsyncIterable<readonly Message[]>;
  /** Lines skipped as malformed: known once `messages` has ended. */
  malformedLines(): number;
  /** How many times the file was read (1: in one pass from the first byte), once `messages` has started; absent: once. */
  passes?(): 1 | 2 | null;
}

export interface ForkRequest {
  /** 1-based user turn to cut before: the fork keeps user turns 1..atTurn-1 and everything answering them. */
  readonly atTurn: number;
  readonly branchName?: string;
  readonly now?: Date;
  /**
   * The directory the fork runs in (`fork --with-code`: the new worktree), written where the agent records its cwd
   * (and, for an agent that keeps sessions per directory, the fork goes into that directory's folder); absent: the
   * session's own.
   */
  readonly cwd?: string;
  /** The new session's id, made beforehand by the adapter's `checkpoints.newId` (a worktree is named after it first). */
  readonly id?: string;
  /**
   * A session file holding a tree (pi's `/tree`): fork the branch that ends at this entry (an id or a unique prefix of
   * one) instead of the one the agent resumes; `whole`: every turn of it (`atTurn` is not read). Only for an adapter
   * with `forksAnyBranch`.
   */
  readonly leaf?: { readonly id: string; readonly whole: boolean };
}

/**
 * The files as they were when a turn was typed, as the agent recorded them (`fork --with-code`): a commit to start
 * from, then a tree to lay over it (a snapshot commit) and single files set to recorded bytes or removed.
 */
export interface CodeAtTurn {
  /** The directory the session ran in, as recorded. */
  readonly cwd: string;
  /** The commit the files start from: given, or a branch's commit at a time (read from its reflog). */
  readonly base: { readonly kind: 'commit'; readonly id: string } | { readonly kind: 'branch-at'; readonly branch: string; readonly at: Date };
  /** A commit whose tree is every file as it was (untracked ones included), checked out over the base. */
  readonly tree?: { readonly commit: string; readonly what: string };
  /**
   * A tree in the agent's own snapshot repository (not the user's), holding every file as it was: the worktree is
   * made to match it (files of the base it lacks removed). `gitDirs`: the repositories it may be in; `gone`: why it
   * may not be there any more (the agent's cleanup).
   */
  readonly snapshot?: { readonly tree: string; readonly gitDirs: readonly string[]; readonly what: string; readonly gone: string };
  /** Files (absolute paths, as recorded) set to these bytes, or removed (null). */
  readonly files: readonly { readonly path: string; readonly content: Buffer | null }[];
  /** What the restore cannot give back, said to the user (files outside the repository, …). */
  readonly notes: readonly string[];
}

/** Per-turn file snapshots an agent records (`fork --with-code`, `show --files`). */
export interface AgentCheckpoints {
  /** How the agent's own rewind is named (said in refusals and help). */
  readonly rewind: string;
  /**
   * The files as they were when user turn `atTurn` was typed. Throws NoCodeError when the agent recorded nothing for
   * that turn (checkpointing off, a session outside git with no backups).
   */
  codeAt(group: SessionFileGroup, atTurn: number, context: AdapterContext): Promise<CodeAtTurn>;
  /** An id for a fork made at `now`, in the agent's shape. */
  newId(now: Date): string;
  /** Per user turn, what was recorded of its files (`show --files`, the transcript's marks). */
  turns(group: SessionFileGroup, context: AdapterContext): Promise<RecordedTurns>;
}

/** What an agent recorded of each user turn's files (index 0: turn 1). */
export interface RecordedTurns {
  /** The directory the session ran in (changed files inside it are named relative to it). */
  readonly cwd: string | null;
  readonly turns: readonly TurnCode[];
}

export interface TurnCode {
  /** The files as they were when the turn was typed were recorded: `fork --at N --with-code` can ask for them. */
  readonly recorded: boolean;
  /** Files the turn changed, as the agent's own records name them (its file tools, its snapshots). */
  readonly changed: readonly string[];
  /** A commit holding every file as it was when the turn was typed (a snapshot commit): the changes between one and the next are read from git. */
  readonly tree?: string;
}

export interface ForkResult {
  readonly agent: Agent;
  readonly id: string;
  readonly path: string;
  readonly parentId: string;
  readonly keptUserTurns: number;
}

/** What an agent's default roots are made of: the inputs, passed in (nothing below cli.ts reads homedir()). */
export interface RootEnvironment {
  /** `--home DIR`, absolute, when given: it stands for the user's home and wins over the agents' variables. */
  readonly home: string | undefined;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The user's home directory. */
  readonly homeDir: string;
  /** A path from the environment made absolute (against the current directory). */
  readonly abs: (path: string) => string;
}

/** Where an agent's sessions live, and how the user names other places (the CLI's flags and README come from this). */
export interface AgentLocations {
  /** The repeatable location flag, commander style: `--codex-home <dir>`. Its camel-cased name keys `LocationOptions.roots`. */
  readonly flag: string;
  /** The flag's `--help` text. */
  readonly flagHelp: string;
  /** The folder `--home DIR` means for this agent (`.codex` → `DIR/.codex`); null when `--home` does not apply (claw). */
  readonly homeFolder: string | null;
  /** The roots when the flag is not given (`--home`, then the agent's variable, then its default under the user's home). */
  defaultRoots(environment: RootEnvironment): string[];
  /** The README's row of "Where sessions are looked for": where (Markdown) and which options. */
  readonly readme: { readonly where: string; readonly options: string };
  /** What the browser's empty screen says was looked in, for one root (`dir` is already shortened for display). */
  describeRoot(dir: string): string;
  /** Said once after the roots on the empty screen and by `list` when nothing was found (claw: the cwd's workspaces). */
  describeAlso?(cwd: string): string;
}

/** How the configured roots become the folders sessions are discovered in. */
export interface AgentDiscovery {
  /**
   * The candidate roots (default: the configured ones). claw: the workspaces under each configured dir, the current
   * directory and its ancestors, and without configured dirs the current directory's subfolders.
   */
  candidateRoots?(configured: readonly string[], cwd: string, report: ReportProblem): Promise<string[]>;
  /** Whether a candidate holds this agent's sessions (default: it is a directory). */
  isRoot?(dir: string): Promise<boolean>;
  /** The directories other agents' sessions ran in (their cwds) are candidate roots too (claw keeps sessions in the workspace). */
  readonly rootsFromCwds?: boolean;
}

/** How the watcher follows an agent's files (folders only: a file's writes arrive as raw events of its folder). */
export interface AgentWatch {
  /** `configured`: each configured root, whether or not it holds sessions yet; `found`: the roots sessions were found under. */
  readonly roots: 'configured' | 'found';
  /** How many folder levels below a root can hold sessions. */
  readonly depth: number;
  /** Whether a path below a root (its segments) can hold sessions or their names: nothing else is watched. */
  wanted(parts: readonly string[]): boolean;
  /** The endings of file names that matter (`.jsonl`): other files are neither stat'ed nor read. */
  readonly fileSuffixes: readonly string[];
}

/**
 * Names kept beside the sessions, per root (Codex `session_index.jsonl`): a named row is titled by its name. A fork or
 * hand-off given a name appends it to this file, shared by every session of the root: a host's mirror cannot write it
 * (a file placed on a host never replaces one), so a named fork there needs the host's own `sessions`.
 */
export interface AgentNames {
  /** The file, relative to the root: the watcher reads the names again when it changes. */
  readonly file: string;
  read(root: string): Promise<Map<string, string>>;
}

/**
 * What a mirror of another machine's files copies of this agent's (rsync over SSH, for a host without `sessions`):
 * only what sessions are read from, never a whole agent home (it holds credentials and settings).
 */
export interface AgentMirror {
  /**
   * The environment variables `locations.defaultRoots` reads (`CODEX_HOME`): the host's login shell prints their
   * values, and the host's roots are `defaultRoots` with them and the host's `$HOME`.
   */
  readonly variables: readonly string[];
  /** The host's roots when they are not `locations.defaultRoots` (claw: the login directory, searched for workspaces). */
  hostRoots?(environment: RootEnvironment): string[];
  /**
   * rsync filter rules, relative to each root: `+ PATTERN` copies, `- PATTERN` leaves out, the first rule that matches
   * a path decides, and what no rule includes stays on the host. A pattern ending in a slash matches folders only, and
   * a folder is walked only when a rule includes it: `sessions/***` is the folder and everything below it. `*` stays
   * within one name; a pattern starting with `**` followed by a slash matches at one or more folders below the root,
   * never at the root itself (write that rule too). A SQLite database names its write-ahead log beside it
   * (`opencode.db`, `opencode.db-wal`): the newest rows are only in the log until SQLite checkpoints it (the `-shm`
   * index is the reader's and is not copied).
   */
  readonly filter: readonly string[];
  /**
   * For an agent whose sessions are also found in the folders other agents' sessions ran in (claw's workspaces,
   * `discovery.rootsFromCwds`): what a mirror copies of such a folder on the host (rules as in `filter`, relative to
   * the folder), and whether the search of one of its host roots already reaches that folder (then nothing more is
   * copied for it).
   */
  readonly workspaces?: { readonly filter: readonly string[]; reached(root: string, dir: string): boolean };
}

/** How the agent's own CLI continues a session. */
export interface AgentResume {
  /**
   * Interactive resume argv; placeholders `{id}`, `{path}`, `{cwd}`; an element that is exactly `{prompt}` becomes
   * the prompt (or nothing), one that is exactly `{args}` the extra arguments (default: at the end).
   */
  readonly interactive: readonly string[];
  /** Non-interactive resume with a prompt (one turn appended to the same session). */
  readonly exec: readonly string[];
  /** The variables that point the agent at `root`, the home a session came from (none: it needs none, e.g. a path is resumed). */
  homeEnvironment?(root: string): Record<string, string>;
}

/** One conversation's words as its store holds them (decoded), for full-text search. */
export interface ConversationText {
  readonly id: string;
  readonly text: string;
}

/**
 * Agents that keep many conversations in one file (opencode's SQLite database). Discovery returns one group per
 * store file (`idHint` null); a conversation's group is that file with the conversation's id as `idHint` (what
 * `readSession`, `readSummary` and `fork` get). The catalog reads every row of a store in one pass and caches
 * them under the store file and its companions (re-read when any of them changes); grep asks `texts` instead of
 * searching the file's raw bytes; the watcher maps a changed companion to its store.
 */
export interface ConversationStore {
  /** The store file a path belongs to (the store itself, or a companion such as SQLite's `-wal`), or null. */
  storeOf(path: string): string | null;
  /** The companions of a store that exist now: their change is a change of the store's content. */
  companions(storePath: string): string[];
  /** Every conversation's row in the store (`group.paths[0]`). */
  readRows(group: SessionFileGroup, context: AdapterContext): Promise<SessionSummary[]>;
  /** Every conversation's text, for full-text search. */
  texts(group: SessionFileGroup, context: AdapterContext): Promise<ConversationText[]>;
  /** One conversation's rows, as text to keep in the trash before a delete takes them out. */
  rowsOf(storePath: string, id: string): Promise<string>;
  /**
   * Take one conversation's rows out of the store in one transaction (a delete), refused when they are no longer
   * `kept` (the agent wrote meanwhile); `putBack` inserts them again in one transaction (a restore), refused when the
   * conversation is there again.
   */
  takeOut(storePath: string, id: string, kept: string): Promise<void>;
  putBack(storePath: string, kept: string): Promise<void>;
}

/**
 * Everything about one agent: where its files are and how they are watched, how they are grouped and read, how a
 * fork is written and how the agent resumes. The catalog, the watcher, grep and the CLI loop over the registry
 * (formats/index.ts) and never name an agent. See docs/dev/adding-an-agent.md.
 */
export interface FormatAdapter {
  readonly agent: Agent;
  /** The agent's name for people: `Codex CLI`. */
  readonly label: string;
  readonly locations: AgentLocations;
  readonly discovery?: AgentDiscovery;
  readonly watch: AgentWatch;
  /** What a mirror of another machine copies (hosts read with rsync). */
  readonly mirror: AgentMirror;
  readonly names?: AgentNames;
  readonly resume: AgentResume;
  /** Set when the agent keeps many conversations in one file (see ConversationStore). */
  readonly store?: ConversationStore;
  /**
   * The shape every id of this agent has: an id read from a file goes into argv and paths only when it matches (an
   * id such as `--dangerously-skip-permissions` would be read as an option).
   */
  readonly idShape: { readonly pattern: RegExp; readonly description: string };
  /** `sessions fork --help`: where the fork is written. */
  readonly forkTarget: string;
  /** Find this agent's session files under one root, grouped one conversation per group. */
  discover(root: string, report: ReportProblem): Promise<SessionFileGroup[]>;
  /**
   * Group known files under `root` the way `discover` would, without walking the root (the watcher's path:
   * a few changed files in a home of thousands). Files that are not this agent's sessions are left out.
   */
  groupFiles(root: string, paths: readonly string[]): SessionFileGroup[];
  /**
   * The folders where a file written since the catalog cache was saved could change this row once it is merged with
   * the others (another file of its id, a fork of its lineage, a sub-agent nested under it), beyond the folders of the
   * cached files it is merged with; null when they are not bounded. `show` of a cached id checks the files of these
   * folders against the cache instead of scanning every root (catalog/cached-find.ts). Absent: `show` scans.
   */
  rowFolders?(row: SessionSummary, root: string): Promise<readonly string[] | null>;
  /**
   * Forks whose early turns live in the parent's file (Codex's paginated forks, `session_meta.history_base`): grep
   * searches those bytes of the parent's file for each fork of a matching session, and the fork's row matches by them.
   */
  readonly inheritedHistory?: InheritedHistory;
  /**
   * The lineage a file's head shows (Claude: its root message uuid, shared by forks), for agents whose forks record
   * no parent: grep reports such agents' rows once every file of theirs was seen. Null: not in the head.
   */
  lineageInHead?(head: Buffer): string | null;
  /**
   * Text every head line `lineageInHead` reads holds (Claude: `"parentUuid":null`): the native search engine hands it
   * only those lines of each head, not the whole head. Absent: it hands over the whole head.
   */
  readonly lineageLineKey?: string;
  /**
   * `lineageInHead` is `claudeRootInHead` (the top-level uuid of the first head line holding `lineageLineKey` and no
   * logical parent): the native search engine reads it out of the lines itself where no byte of it needs decoding, so
   * JS makes one string per file rather than walking each head's lines.
   */
  readonly lineageIsRootUuid?: boolean;
  /**
   * The id a group's file names suggest where discovery leaves `idHint` null because names are not reliable ids (claw
   * names files after the session id): grep uses it only to read the files of one conversation together.
   */
  nameIdHint?(group: SessionFileGroup): string | null;
  /** The row, folded from every line of the files; null when the files hold no conversation. */
  readSummary(group: SessionFileGroup, context: AdapterContext): Promise<SessionSummary | null>;
  /**
   * The row and the fold's state, in one streaming pass over every line. With `resume` (a fold of the same live
   * file saved earlier, whose head is unchanged and which only grew), only the bytes after `resume.offset` are read.
   */
  indexSession(group: SessionFileGroup, context: AdapterContext, resume?: FoldResume): Promise<IndexedSession>;
  /** The whole active transcript (long strings clipped when `options.clip` is set). */
  readSession(group: SessionFileGroup, context: AdapterContext, options?: ReadSessionOptions): Promise<Session>;
  /**
   * The active transcript's messages as a stream, for agents whose big files `show` should not hold whole (absent, or
   * null for this group: `readSession`). The row (the catalog's, from the same files) stands for the session's other
   * fields.
   */
  streamMessages?(group: SessionFileGroup, context: AdapterContext, resume?: FoldResume): MessageStream | null;
  /**
   * The transcript clipped for a screen, handed to `sink` as it is read (absent: `readSession` with `clip`). The
   * row (the catalog's, from the same files) stands for the session's other fields.
   */
  readDisplay?(group: SessionFileGroup, context: AdapterContext, options: { readonly clip: ClipLimits; readonly sink: DisplaySink }): Promise<{ readonly malformedLines: number }>;
  /**
   * `readSession` uses nothing of the context (no other session's files, no names kept beside the sessions): the TUI
   * reads such a transcript at once, without waiting for the catalog scan.
   */
  readonly readsAlone?: boolean;
  /** Write a new native session holding user turns 1..atTurn-1; the original files are never touched. */
  fork(group: SessionFileGroup, request: ForkRequest, context: AdapterContext): Promise<ForkResult>;
  /** The files the agent recorded per turn, for a fork with the code as it was; absent: it records none. */
  readonly checkpoints?: AgentCheckpoints;
  /**
   * The files and folders that are this session and nothing else, for a delete to move to the trash whole (a folder of
   * sub-agents or sidecars with its session file); absent: the group's paths. Not for a store (its rows are taken out).
   */
  sessionPaths?(group: SessionFileGroup, id: string): Promise<string[]>;
  /** Its session files can hold a tree of branches, and `fork` takes `ForkRequest.leaf`: any branch can be forked. */
  readonly forksAnyBranch?: boolean;
  /** How the agent names a session, where the agent itself reads the name (its own picker shows it); absent: it keeps no name. */
  readonly rename?: AgentRename;
  /** How a conversation of another agent is continued in this one (`fork --to`); absent: it cannot take one (yet). */
  readonly handoff?: HandoffWriter;
  /**
   * True for a line that is never conversation text, judged by its opening bytes (the agent's own records: request
   * shapes, system prompts): a full-text search must not match inside it.
   */
  isNonConversationLine?(opening: string): boolean;
  /**
   * ASCII strings at least one of which an opening holds whenever `isNonConversationLine` says true of it (what its
   * patterns cannot match without: a record's type name, a key). The native search counts a hit in a line whose
   * opening holds none of them without asking the rule (no round trip to JS); absent: every such line is asked about.
   */
  readonly nonConversationNeedles?: readonly string[];
  /**
   * What the JSON before a string looks like when the string is not conversation (system prompts, skill listings):
   * a full-text search's snippet shows a match elsewhere when there is one. Tested against the bytes just
   * before the string's opening quote.
   */
  readonly notConversation?: RegExp;
}

/** Writing a conversation handed off from another agent (core/handoff cuts and pairs it) as a new native session. */
export interface HandoffWriter {
  /** `home`: this agent's first root the run reads (undefined when there is none: claw keeps sessions in the workspace). */
  write(conversation: HandoffConversation, write: HandoffWrite, home: string | undefined): Promise<HandoffWritten>;
  /** Where the new session goes and what names its source (`fork --help`). */
  readonly where: string;
  /** An id for a session written at `now`, in the agent's shape (given back in `HandoffWrite.id`). */
  newId(now: Date): string;
}


/**
 * Naming a session the agent's own way: the name written where the agent reads it (Codex's session index, Claude
 * Code's `custom-title` line, Copilot's workspace.yaml, …), so its picker and `sessions list` both show it. The
 * conversation's lines are never rewritten: a name is appended, or kept in a file of its own.
 */
export interface AgentRename {
  /** Where the name goes, in the agent's terms (docs/agents.md, `rename --help`). */
  readonly where: string;
  /** Write `name` (trimmed, one line) as the name of the conversation `id` of `group`. */
  write(group: SessionFileGroup, id: string, name: string, now: Date): Promise<void>;
}

/** Where a fork's inherited turns are: the parent's id and how many bytes of its last file (see FormatAdapter.inheritedHistory). */
export interface InheritedBase {
  readonly parentId: string;
  readonly endByteOffset: number;
}

export interface InheritedHistory {
  /** Whether a file's first bytes (INHERITED_HEAD_BYTES) may be a fork's: a cheap test before `base` reads its header. */
  mayInherit(head: Buffer): boolean;
  /** The inherited part a group's header names, or null (no fork, or a fork that holds its whole history). */
  base(group: SessionFileGroup): InheritedBase | null;
}

/** The bytes of a file's start `InheritedHistory.mayInherit` is given. */
export const INHERITED_HEAD_BYTES = 1024;

