import { statSync } from 'node:fs';
import { homedir } from 'node:os';
import { resolve } from 'node:path';
import { Command, InvalidArgumentError, Option } from 'commander';
import { agentDefaultHomes, isUnder, locationFlags, locationOptionsFromFlags, resolveLocations, type Locations } from './catalog/locations.js';
import { resolveSession } from './catalog/resolve.js';
import { findInCache } from './catalog/cached-find.js';
import { CatalogCache, defaultCachePath, loadCacheHead } from './catalog/cache.js';
import { grepLocations } from './catalog/grep.js';
import { defaultWalkMemoPath } from './catalog/walk-memo.js';
import { trigramMapsBeside } from './catalog/native-grep.js';
import { groupOf, savedFold, scanCatalog, type CatalogSession, type ScanContext, type ScanOptions, type ScanProgress } from './catalog/scan.js';
import { configPath, loadConfig, type Config } from './config.js';
import { ForkRangeError, describeError } from './core/errors.js';
import { markdownTranscriptWriter, textTranscriptWriter, transcriptToMarkdown, transcriptToText, writeTranscript } from './core/export.js';
import { handoffHomes } from './catalog/handoff-homes.js';
import { HANDOFF_TARGETS, handOff, HandoffError, handoffWhere } from './core/handoff/index.js';
import { ADAPTER_LIST, ADAPTERS } from './core/formats/index.js';
import type { Problem } from './core/formats/types.js';
import { isSkippedLines, skippedLinesMessage } from './core/formats/problems.js';
import { AGENT_NAME_WIDTH, AGENTS, type Agent } from './core/model.js';
import { resumeCommand } from './core/resume.js';
import { assertSessionId, UnsafeSessionIdError } from './core/session-id.js';
import { oneLine, safeLine, stripControl, tildePath } from './core/text.js';
import { checkLaunch, findExecutable, formatCommand, runInherited } from './launch.js';
import type { Snippet } from './core/io/snippet.js';
import { forkOnHost, HostActionError, remoteResume } from './remote/host-actions.js';
import { mirrorRow, onHost, type HostSource } from './remote/host-source.js';
import { chosenHosts, hostContext, loadHosts, sourceOf, sshSettings } from './remote/hosts.js';
import { remoteArgv } from './remote/remote-shell.js';
import { rowFromListJson } from './remote/remote-row.js';
import { failureReason, runCommand, sshArgv } from './remote/ssh.js';
import { watchCatalog } from './catalog/watch.js';
import { fstatSync } from 'node:fs';
import { fit } from './ui/row-cells.js';

/** Every command's options: `--home`, each agent's location flag (its values under the flag's camel-cased name), … */
interface CommonOptions {
  readonly home?: string;
  readonly json?: boolean;
  /** `--host` destinations (repeatable); `local` is this machine. */
  readonly host?: readonly string[];
  /** commander's --no-cache */
  readonly cache?: boolean;
}

const env = process.env;

/** grep's search engine: SESSIONS_GREP_ENGINE=js picks the JS workers over the native engine (see GrepOptions.engine). */
function grepEngine(): 'native' | 'js' {
  return env.SESSIONS_GREP_ENGINE === 'js' ? 'js' : 'native';
}
const cwd = process.cwd();

class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
  }
}

function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

function positiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || String(n) !== value.trim()) throw new InvalidArgumentError('expected a whole number');
  return n;
}

/** `a, b and c` */
function spokenList(items: readonly string[]): string {
  return items.length <= 1 ? items.join('') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)!}`;
}

/** Location options, accepted by every command (before or after the command name): `--home` and each adapter's flag. */
function withLocations(command: Command): Command {
  const homeFolders = ADAPTER_LIST.flatMap((adapter) => (adapter.locations.homeFolder === null ? [] : [`<dir>/${adapter.locations.homeFolder}`]));
  command.option('--home <dir>', `a home folder to read: ${spokenList(homeFolders)}`);
  for (const flag of locationFlags()) command.option(flag.flags, flag.help, collect);
  command.option('--host <destination>', "read this ssh destination's sessions (repeatable; `local` is this machine; default: this machine and the config's hosts)", collect);
  return command.option('--no-cache', 'ignore and do not update the catalog cache ($XDG_CACHE_HOME/sessions)');
}

function locationsFrom(options: CommonOptions): Locations {
  return resolveLocations(locationOptionsFromFlags(options as Readonly<Record<string, unknown>>), { env, homeDir: homedir(), cwd });
}

/** A folder named on the command line that is not there is a typo or a missing mount, not an empty home: say so. */
function warnMissingLocations(options: CommonOptions): void {
  const parsed = options as Readonly<Record<string, unknown>>;
  const named = [
    ...(options.home === undefined ? [] : [['--home', options.home] as const]),
    ...locationFlags().flatMap((flag) => {
      const values = parsed[flag.attribute];
      return Array.isArray(values) ? values.map((dir) => [flag.long, String(dir)] as const) : [];
    }),
  ];
  for (const [option, dir] of named) {
    if (!isDirectory(resolve(cwd, dir))) process.stderr.write(`sessions: warning: ${option} ${dir} does not exist\n`);
  }
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** The homes the agents look in by themselves here: a session found elsewhere is resumed with its home's variable. */
function defaultHomes() {
  return agentDefaultHomes({ env, homeDir: homedir(), cwd });
}

function readConfig(): Config {
  return loadConfig(configPath(env, homedir()));
}

/**
 * Everything written to stderr: paths, ids, titles and messages can come from files, so control sequences are
 * stripped here, once (one field per line stays on its line: see safeLine where a field is put together).
 */
/** Write to stdout, waiting when a pipe's reader is behind (a 200 MB transcript is never buffered whole). */
function writeStdout(text: string): Promise<void> | void {
  if (process.stdout.write(text)) return;
  return new Promise((resolve) => process.stdout.once('drain', () => resolve()));
}

function warn(text: string): void {
  process.stderr.write(stripControl(text));
}

function reportProblems(problems: readonly Problem[]): void {
  for (const problem of problems) warn(`sessions: warning: ${safeLine(problem.path)}: ${safeLine(problem.message)}\n`);
}

/** The lines a transcript read skipped, in the words `list` uses for them (reportSkippedLines). */
function warnSkippedLines(path: string, malformed: number): void {
  if (malformed > 0) reportProblems([{ path, message: skippedLinesMessage(malformed) }]);
}

/**
 * What the scan that found `session` met that a reader of its transcript should hear: problems of other files are not
 * about it (a lookup in a warm cache, which scans nothing, reports none either), and the lines its own files skipped
 * are reported by the transcript's read.
 */
function ownProblems(problems: readonly Problem[], session: CatalogSession): Problem[] {
  const own = new Set(session.paths);
  return problems.filter((problem) => own.has(problem.path) && !isSkippedLines(problem));
}

async function openCache(options: CommonOptions): Promise<CatalogCache | undefined> {
  return options.cache === false ? undefined : CatalogCache.load(defaultCachePath(env, homedir(), locationsFrom(options)));
}

/** Scan with the persisted cache (when enabled), saving what was learnt. */
async function scan(options: CommonOptions, scanOptions: Omit<ScanOptions, 'cache'> = {}) {
  warnMissingLocations(options);
  const cache = await openCache(options);
  const progress = stderrProgress();
  const result = await scanCatalog(locationsFrom(options), { ...scanOptions, cache, onProgress: progress.update }).finally(progress.done);
  await cache?.save().catch((error: unknown) => warn(`sessions: warning: cannot write the cache: ${describeError(error)}\n`));
  return { ...result, cache };
}

/**
 * Indexing progress on stderr (`indexing 1,204 of 10,000 files · 310 of 2,480 MB`), only when stderr is a terminal
 * and indexing has taken over a second; the line is erased when indexing is done.
 */
function stderrProgress(): { update: (progress: ScanProgress) => void; done: () => void } {
  const started = Date.now();
  let shownAt = 0;
  let shown = false;
  const mb = (bytes: number): string => Math.round(bytes / 1e6).toLocaleString('en-US');
  return {
    update(progress) {
      if (!process.stderr.isTTY) return;
      const now = Date.now();
      if (now - started < 1000 || now - shownAt < 100 || progress.done === progress.total) return;
      shownAt = now;
      shown = true;
      process.stderr.write(`\r\x1b[2Kindexing ${progress.done.toLocaleString('en-US')} of ${progress.total.toLocaleString('en-US')} files · ${mb(progress.bytesDone)} of ${mb(progress.bytesTotal)} MB`);
    },
    done() {
      if (shown) process.stderr.write('\r\x1b[2K');
    },
  };
}

/** This machine's sessions (unless `--host` leaves it out) and each chosen host's, read at the same time. */
async function scanAll(options: CommonOptions, config: Config, scanOptions: Omit<ScanOptions, 'cache'> = {}) {
  const chosen = chosenHosts(options.host, config);
  const [local, sources] = await Promise.all([
    chosen.local ? scan(options, scanOptions) : null,
    loadHosts(chosen.hosts, hostContext(config, env, homedir(), options.cache !== false)),
  ]);
  for (const source of sources) {
    if (source.status.kind === 'unreachable') warn(`sessions: warning: host ${safeLine(source.host)} unreachable: ${source.status.reason}\n`);
  }
  const agents = scanOptions.agents;
  const remote = sources.flatMap((source) => source.sessions()).filter((s) => agents === undefined || agents.includes(s.agent));
  const sessions = [...(local?.sessions ?? []), ...remote].sort(newestFirst);
  const subagentSessions = [...(local?.subagentSessions ?? []), ...sources.flatMap((source) => source.subagentSessions())];
  const problems = [...(local?.problems ?? []), ...sources.flatMap((source) => source.problems)];
  return { sessions, subagentSessions, problems, context: local?.context ?? null, sources, cache: local?.cache };
}

async function findOne(
  query: string,
  options: CommonOptions,
  config: Config,
): Promise<{ session: CatalogSession; context: ScanContext | null; source: HostSource | null; problems: readonly Problem[]; cache: CatalogCache | undefined }> {
  const { sessions, subagentSessions, context, problems, sources, cache } = await scanAll(options, config);
  // A sub-agent is not a row of its own, but `show`/`fork` of its id still find it.
  const found = resolveSession([...sessions, ...subagentSessions], query, cwd);
  if (found.kind !== 'found') {
    reportProblems(problems);
    throw new CliError(found.message);
  }
  const source = sourceOf(found.session, sources);
  return { session: found.session, context: source ? (source.mirror?.context ?? null) : context, source, problems, cache };
}

/**
 * A full id of this machine's catalog, found in the cache without a scan when nothing that decides its row changed
 * since (catalog/cached-find.ts); null: scan (`findOne`).
 */
async function findCached(query: string, options: CommonOptions, config: Config): Promise<Awaited<ReturnType<typeof findOne>> | null> {
  const chosen = chosenHosts(options.host, config);
  if (options.cache === false || !chosen.local || chosen.hosts.length > 0) return null;
  const locations = locationsFrom(options);
  const found = await findInCache(defaultCachePath(env, homedir(), locations), locations, query);
  if (found === null) return null;
  warnMissingLocations(options);
  return { ...found, source: null, problems: [] };
}

function pathsOnHost(read: { readonly path: string; readonly paths: readonly string[] }, mirror: string): { path: string; paths: readonly string[] } {
  const { path, paths } = onHost({ path: read.path, paths: read.paths, mirror });
  return { path, paths };
}

function newestFirst(a: CatalogSession, b: CatalogSession): number {
  return a.updatedAt < b.updatedAt ? 1 : a.updatedAt > b.updatedAt ? -1 : 0;
}

/** `2026-11-22 01:58`: the updated time in list rows (scripts read the full ISO time from --json). */
function shortDate(iso: string): string {
  return iso.replace('T', ' ').slice(0, 16);
}

function shortenHome(path: string | null): string {
  return path ? safeLine(tildePath(path, homedir())) : '-';
}

export function buildProgram(): Command {
  const program = withLocations(new Command('sessions'))
    .description(`Find, replay, fork and resume your coding-agent conversations (${ADAPTER_LIST.map((adapter) => adapter.label).join(', ')}).`)
    .version('0.1.0')
    .showHelpAfterError('(run with --help for usage)')
    .addHelpText(
      'after',
      `
Without a command, opens the interactive browser (TUI).

Examples:
  sessions                                  browse sessions of the current directory
  sessions list --all                       every session on this machine, newest first
  sessions show 01a200ed --format md        a transcript as Markdown
  sessions fork 01a200ed --at 3             a new session holding user turns 1-2
  sessions resume 01a200ed                  continue it in the agent's own CLI

Config: ${configPath(env, homedir())} (resume commands per agent; see README).`,
    )
    .option('--all', 'start the browser with every session, not only the current directory\'s')
    .action(async (_options: unknown, command: Command) => {
      // `sessions lst`: a word that is no command reaches the browser's action; say so, as commander does.
      if (command.args.length > 0) (command as Command & CommanderUnknownCommand).unknownCommand();
      const options = command.optsWithGlobals<CommonOptions & { all?: boolean }>();
      const locations = locationsFrom(options);
      warnMissingLocations(options); // before the browser takes the screen: seen again when it quits
      const cachePath = options.cache === false ? null : defaultCachePath(env, homedir(), locations);
      // The UI code (Ink, React) loads while the cache's first screen is read and painted as plain text.
      const ui = import('./ui/run.js');
      ui.catch(() => undefined); // awaited below; a failure is reported there
      const initialScope = options.all ? 'all' : 'cwd';
      const [prepaint, cacheHead] = await Promise.all([import('./ui/prepaint.js'), loadCacheHead(cachePath)]);
      const { stdout, stdin } = process;
      const first =
        cacheHead && stdout.isTTY && stdin.isTTY
          ? prepaint.firstScreen({ sessions: cacheHead, columns: stdout.columns, rows: stdout.rows, cwd, homeDir: homedir(), now: Date.now(), scope: initialScope, env })
          : null;
      if (first !== null) stdout.write(prepaint.ENTER_ALT_SCREEN + first);
      let runTui;
      try {
        ({ runTui } = await ui);
      } catch (error) {
        if (first !== null) stdout.write(prepaint.LEAVE_ALT_SCREEN);
        throw error;
      }
      const config = readConfig();
      // The browser always shows this machine; --host (or the config's hosts) adds others, read while it is open.
      const hosts = { names: chosenHosts(options.host, config).hosts, context: hostContext(config, env, homedir(), options.cache !== false), refreshMs: config.hostRefresh * 1000 };
      const decision = await runTui({ locations, config, cwd, homeDir: homedir(), cachePath, cacheHead, initialScope, screenEntered: first !== null, hosts });
      if (decision.kind === 'resume') {
        const remote = decision.remote;
        process.exitCode = remote ? await launchRemote(remote.argv) : await launchResume(decision.session, config, { here: decision.here ?? false });
      }
    });

  withLocations(program.command('list'))
    .description('list conversations, newest first')
    .option('--json', 'print a JSON array (a stable contract; see README)')
    .addOption(new Option('--agent <agent>', 'only this agent').choices([...AGENTS]))
    .option('--cwd <dir>', 'only sessions whose cwd is this directory or below it (default: the current directory)')
    .option('--all', 'every session, wherever it ran')
    .option('--exact-turns', 'no effect: every row is exact (kept so that scripts that pass it still work)')
    .option('--watch', 'with --json: one row per line (NDJSON), then {"synced":true}, then a line per changed row ({"removed":"agent:id"} when one is gone) until stopped')
    .addHelpText(
      'after',
      `
By default lists the sessions of the current directory (and below); when there are none there,
lists all of them and says so on stderr. Every row is folded from every line of its files; the cache
keeps each row with where its fold stopped, so a session that grew is read from there on only.
Progress is shown on stderr when it is a terminal and indexing takes over a second.

Examples:
  sessions list
  sessions list --all --json | jq '.[0].id'
  sessions list --agent claude --cwd ~/src/api
  sessions list --host devbox --host local   this machine's sessions and devbox's (over ssh)
  sessions list --watch --json               rows as NDJSON, then changes as they happen`,
    )
    .action(async (_options: unknown, command: Command) => {
      const options = command.optsWithGlobals<CommonOptions & { agent?: Agent; cwd?: string; all?: boolean; watch?: boolean }>();
      if (options.watch) {
        if (!options.json) throw new CliError('--watch needs --json (it streams rows as NDJSON)');
        await watchList(options);
        return;
      }
      const config = readConfig();
      const { sessions, problems } = await scanAll(options, config, {
        agents: options.agent ? [options.agent] : undefined,
      });
      let shown: readonly CatalogSession[] = sessions;
      // A host's sessions ran in its own directories: naming hosts lists all of theirs unless --cwd says otherwise.
      if (!options.all && !(options.host?.length && !options.cwd)) {
        const scopeDir = resolve(cwd, options.cwd ?? '.');
        const scoped = sessions.filter((s) => isUnder(s.cwd, scopeDir));
        if (scoped.length > 0 || options.cwd) shown = scoped;
        else if (sessions.length > 0) warn(`sessions: no sessions ran in ${scopeDir}; listing all ${sessions.length}\n`);
      }
      if (options.json) {
        process.stdout.write(`${JSON.stringify(shown.map(toListJson), null, 2)}\n`);
      } else {
        if (process.stdout.isTTY && shown.length > 0) process.stdout.write(LIST_HEADER);
        for (const s of shown) process.stdout.write(listLine(s));
        if (shown.length === 0) warn(`sessions: no sessions found (looked in ${describeLocations(locationsFrom(options))})\n`);
      }
      reportProblems(problems);
    });

  withLocations(program.command('grep'))
    .description('full-text search inside every transcript (tool outputs included); matching sessions stream in as they are found')
    .argument('<text>', 'the literal text to find')
    .option('-i, --ignore-case', 'ignore the case of ASCII letters')
    .option('--json', 'one JSON object per matching session per line (the `list --json` fields, plus `matches`)')
    .option('--context <n>', 'under each row, the first match with N characters of text each side (JSON: `snippet`)', positiveInt)
    .addOption(new Option('--agent <agent>', 'only this agent').choices([...AGENTS]))
    .option('--cwd <dir>', 'only sessions whose cwd is this directory or below it (default: every session)')
    .addHelpText(
      'after',
      `
The text is matched literally, as written or as JSON escapes it (quotes, backslashes, newlines, \\u
escapes). Files are searched as soon as they are found, on one thread per core; rows are the ones
\`list\` prints (from the catalog cache when a session's files did not change; --no-cache reads them); the
folders are not walked again while none changed since the last grep (what the walk found is kept beside the
cache), and a file of 16 MiB or more gets a map of its trigrams once a search read it to its end: a
later search for text it cannot hold reads only what was appended to it since. Claude Code rows arrive
together once every Claude file was searched (a fork made by Claude's --fork-session is linked to its
parent then). \`matches\` counts the occurrences in the
session's files, as the agent wrote them (some record a prompt twice). Exits 0 when something matched,
1 when nothing did (like grep).

Examples:
  sessions grep ECONNREFUSED
  sessions grep --context 40 "rate limiter"
  sessions grep -i "rate limiter" --json | jq -r .id`,
    )
    .action(async (text: string, _options: unknown, command: Command) => {
      const options = command.optsWithGlobals<CommonOptions & { ignoreCase?: boolean; agent?: Agent; cwd?: string; context?: number }>();
      const mark = process.stdout.isTTY && !process.env.NO_COLOR ? (text: string): string => `\u001b[1;31m${text}\u001b[0m` : (text: string): string => text;
      const scopeDir = options.cwd === undefined ? null : resolve(cwd, options.cwd);
      const config = readConfig();
      const chosen = chosenHosts(options.host, config);
      warnMissingLocations(options);
      const out = batchedStdout();
      const printRow = (s: CatalogSession, found: { readonly matches: number; readonly snippet: Snippet | null }): void => {
        if (options.json) {
          const snippet = options.context === undefined ? {} : { snippet: found.snippet };
          out.write(`${JSON.stringify({ ...toListJson(s), matches: found.matches, ...snippet })}\n`);
          return;
        }
        out.write(listLine(s));
        if (found.snippet) {
          const { before, match, after } = found.snippet;
          out.write(`        ${before}${mark(match)}${after}  (${found.matches} match${found.matches === 1 ? '' : 'es'})\n`);
        }
      };
      const hostsMatched = grepHosts(chosen.hosts, text, options, config, scopeDir, printRow);
      if (!chosen.local) {
        const matched = await hostsMatched;
        out.flush();
        if (matched === 0) process.exitCode = 1;
        return;
      }
      // No catalog scan first: files are searched as soon as they are found, and only matches are summarised.
      const locations = locationsFrom(options);
      const cachePath = defaultCachePath(env, homedir(), locations);
      const { matched, problems } = await grepLocations(locations, text, {
        ignoreCase: options.ignoreCase ?? false,
        agents: options.agent ? [options.agent] : undefined,
        accept: scopeDir === null ? undefined : (s) => isUnder(s.cwd, scopeDir),
        count: options.json === true || options.context !== undefined,
        ...(options.context === undefined ? {} : { context: options.context }),
        ...(options.cache === false ? {} : { cache: () => CatalogCache.lazy(cachePath) }),
        onMatch: printRow,
        onProblem: (problem) => reportProblems([problem]),
        ...(options.cache === false ? {} : { walkMemo: defaultWalkMemoPath(env, homedir(), locations), trigrams: trigramMapsBeside(cachePath) }),
        walkSynchronously: true,
        engine: grepEngine(),
      });
      const hostMatches = await hostsMatched;
      out.flush();
      reportProblems(problems);
      if (matched + hostMatches === 0) process.exitCode = 1;
    });

  withLocations(program.command('show'))
    .description('print a whole transcript')
    .argument('<id>', 'session id, unique id prefix, Codex thread name, or path to a session file')
    .addOption(new Option('--format <format>', 'output format').choices(['text', 'md', 'json']).default('text'))
    .option('--system', 'include injected context and system messages')
    .addHelpText(
      'after',
      `
Examples:
  sessions show 01a200ed
  sessions show 01a200ed --format md > transcript.md
  sessions show ~/.claude/projects/-home-me-src-api/5a1999c3-….jsonl --format json`,
    )
    .action(async (id: string, _options: unknown, command: Command) => {
      const options = command.optsWithGlobals<CommonOptions & { format: 'text' | 'md' | 'json'; system?: boolean }>();
      const config = readConfig();
      const { session, context, source, problems, cache } = (await findCached(id, options, config)) ?? (await findOne(id, options, config));
      if (source !== null && source.via === 'sessions') {
        // The host's own `sessions` prints it (its files are there); text from another machine is sanitised here too.
        const line = remoteArgv(['sessions', 'show', session.id, '--format', options.format, ...(options.system ? ['--system'] : [])]);
        const run = await runCommand(sshArgv(sshSettings(config), source.host, line, 'batch'));
        if (run.code !== 0) throw new CliError(`${source.host}: ${failureReason(run, 'sessions show failed')}`);
        process.stdout.write(options.format === 'json' ? run.stdout : stripControl(run.stdout));
        return;
      }
      const adapter = ADAPTERS[session.agent];
      // The index's saved fold of the file (the scan that resolved the argument has just brought it up to date)
      // says whether it can be printed in one pass.
      const stream =
        options.format !== 'json' && adapter.streamMessages !== undefined && session.mirror === undefined
          ? adapter.streamMessages(groupOf(session), context!, cache === undefined || source !== null ? undefined : await savedFold(cache, session.paths))
          : null;
      if (stream !== null) {
        // Streamed: the header is the row (the catalog just folded the same file), each message is written as it is
        // read, and the transcript is never held whole.
        const writer = options.format === 'md' ? markdownTranscriptWriter({ includeSystem: options.system }) : textTranscriptWriter({ includeSystem: options.system });
        await writeTranscript(writer, session, stream.messages, (text) => writeStdout(text));
        warnSkippedLines(session.path, stream.malformedLines());
        reportProblems(ownProblems(problems, session));
        return;
      }
      const read = await adapter.readSession(groupOf(session), context!);
      // A mirrored host's transcript is read from the mirror and names its files where they are, on the host.
      const full = session.mirror === undefined ? read : { ...read, ...pathsOnHost(read, session.mirror) };
      const withFork = { ...full, forkedFrom: full.forkedFrom ?? session.forkedFrom, subagent: session.subagent ?? full.subagent, subagents: session.subagents };
      if (options.format === 'json') process.stdout.write(`${JSON.stringify(withFork, null, 2)}\n`);
      else if (options.format === 'md') process.stdout.write(transcriptToMarkdown(withFork, { includeSystem: options.system }));
      else process.stdout.write(transcriptToText(withFork, { includeSystem: options.system }));
      warnSkippedLines(session.path, full.malformedLines);
      reportProblems(ownProblems(problems, session));
    });

  withLocations(program.command('fork'))
    .description('write a new native session holding the conversation before a user turn')
    .argument('<id>', 'session id, unique id prefix, Codex thread name, or path')
    .option('--at <turn>', 'the user turn to fork before (1-based): the fork keeps turns 1..N-1 and their answers', positiveInt)
    .option('--drop-last <n>', 'instead of --at: drop the last n user turns', positiveInt)
    .option('--name <branch>', "a name for the fork or hand-off, in the agent's own name field (the session's title in list and in the agent)")
    .addOption(new Option('--to <agent>', 'continue the conversation in another agent: a new native session of that agent').choices([...HANDOFF_TARGETS]))
    .option('--json', 'print {id, path, agent, parentId, parentAgent, keptUserTurns, resume: {argv, cwd, env}} as JSON')
    .addHelpText(
      'after',
      `
The original session is never modified. The new file is written atomically with mode 0600, in the
agent's own format, where the agent looks for its sessions, so the agent can resume it:
${ADAPTER_LIST.map((adapter) => `  ${adapter.label}: ${adapter.forkTarget.split('\n').join(`\n${' '.repeat(adapter.label.length + 4)}`)}`).join('\n')}

With --to AGENT (another agent than the session's), the conversation is handed off: a new session of
AGENT, written from the transcript in AGENT's own format where AGENT keeps sessions for the session's
working directory, which AGENT's own resume takes up:
${HANDOFF_TARGETS.map((agent) => `  ${`${agent}:`.padEnd(10)}${handoffWhere(agent)}`).join('\n')}
It carries every user prompt and answer of turns 1..N-1 in order, tool calls with their results (a call
with no recorded result gets "no result recorded"), and images (as text for claw and Copilot); it
drops reasoning and thinking (bound to the agent and model that made them) and the source agent's own
context, and starts with a one-line note naming the source agent, session and turn.

Examples:
  sessions fork 01a200ed --at 3            keep user turns 1-2
  sessions fork 01a200ed --drop-last 1     keep everything but the last user turn
  sessions fork 5a1999c3 --at 3 --to codex continue turns 1-2 of a Claude Code session in Codex`,
    )
    .action(async (id: string, _options: unknown, command: Command) => {
      const options = command.optsWithGlobals<CommonOptions & { at?: number; dropLast?: number; name?: string; to?: Agent }>();
      if ((options.at === undefined) === (options.dropLast === undefined)) throw new CliError('give exactly one of --at <turn> or --drop-last <n>');
      const config = readConfig(); // a config that cannot be read fails the command before anything is written
      const { session, context, source } = await findOne(id, options, config);
      assertSessionId(session);
      const adapter = ADAPTERS[session.agent];
      const turns = session.userTurns;
      const atTurn = options.at ?? turns - options.dropLast! + 1;
      if (options.dropLast !== undefined && (options.dropLast < 1 || atTurn < 2)) {
        throw new CliError(`--drop-last ${options.dropLast} is out of range: valid values are 1..${Math.max(0, turns - 1)}`);
      }
      if (source !== null) {
        if (atTurn < 1 || atTurn > turns) throw new CliError(`--at ${atTurn} is out of range: valid turns are 1..${turns}`);
        const to = options.to !== undefined && options.to !== session.agent ? options.to : undefined;
        try {
          const forked = await forkOnHost(session, source, sshSettings(config), config.resume, { atTurn, ...(options.name ? { branchName: options.name } : {}), ...(to ? { to } : {}) });
          if (options.json) {
            process.stdout.write(`${JSON.stringify({ ...forked.result, parentAgent: session.agent, host: source.host, resume: { argv: forked.resume.argv, cwd: null, env: {} } }, null, 2)}\n`);
          } else {
            process.stdout.write(`${forked.result.id}\n${source.host}:${safeLine(forked.result.path)}\n`);
            const how = to === undefined ? 'forked' : `handed off to ${to}:`;
            warn(`${how} ${session.agent} session ${safeLine(session.id)} on ${safeLine(source.host)} before turn ${atTurn} (kept ${forked.result.keptUserTurns} user turn${forked.result.keptUserTurns === 1 ? '' : 's'})\nresume it with: ${formatCommand({ argv: forked.resume.argv, cwd: null })}\n`);
          }
        } catch (error) {
          if (error instanceof HostActionError || error instanceof ForkRangeError) throw new CliError(error.message);
          throw error;
        }
        return;
      }
      const to = options.to !== undefined && options.to !== session.agent ? options.to : null;
      try {
        const homes = handoffHomes(locationsFrom(options));
        const result =
          to === null
            ? await adapter.fork(groupOf(session), { atTurn, branchName: options.name }, context!)
            : await handOff(await adapter.readSession(groupOf(session), context!), { atTurn, to, branchName: options.name }, homes);
        const forked = to === null ? { ...session, id: result.id, path: result.path } : { agent: to, id: result.id, path: result.path, cwd: session.cwd, root: homes[to] };
        const resume = resumeCommand(forked, config.resume, { defaultHomes: defaultHomes() });
        if (options.json) {
          process.stdout.write(`${JSON.stringify({ ...result, parentAgent: session.agent, resume: { argv: resume.argv, cwd: resume.cwd, env: resume.env } }, null, 2)}\n`);
        } else {
          process.stdout.write(`${result.id}\n${safeLine(result.path)}\n`);
          const how = to === null ? 'forked' : `handed off to ${to}:`;
          warn(`${how} ${session.agent} session ${safeLine(session.id)} before turn ${atTurn} (kept ${result.keptUserTurns} user turn${result.keptUserTurns === 1 ? '' : 's'})\nresume it with: ${formatCommand(resume)}\n`);
        }
      } catch (error) {
        if (error instanceof ForkRangeError || error instanceof HandoffError) throw new CliError(error.message);
        throw error;
      }
    });

  withLocations(program.command('resume'))
    .description("continue a session in the agent's own CLI, in its recorded directory (appends to the same file)")
    .argument('<id>', 'session id, unique id prefix, Codex thread name, or path')
    .argument('[agentArgs...]', 'extra arguments for the agent, after --')
    .option('--dry-run', 'print the command and directory instead of running it')
    .option('--json', 'with --dry-run: print {argv, cwd, env} as JSON')
    .option('--prompt <text>', "run one non-interactive turn with this prompt (e.g. `codex exec resume`, `claude -p --resume`)")
    .option('--here', "run in the current directory instead of the session's recorded one")
    .addHelpText(
      'after',
      `
The agent takes over the terminal; sessions exits with the agent's exit code.

Examples:
  sessions resume 01a200ed
  sessions resume 01a200ed --dry-run --json
  sessions resume 01a200ed --prompt "now add tests"
  sessions resume 01a200ed -- --model o3`,
    )
    .action(async (id: string, agentArgs: string[], _options: unknown, command: Command) => {
      const options = command.optsWithGlobals<CommonOptions & { dryRun?: boolean; prompt?: string; here?: boolean }>();
      const config = readConfig();
      const { session, source } = await findOne(id, options, config);
      if (source !== null) {
        if (options.here) throw new CliError(`--here runs in this machine's current directory; ${safeLine(session.id)} is on ${safeLine(source.host)}`);
        const resume = remoteResume(session, source, sshSettings(config), options.prompt === undefined ? config.resume : config.exec, { ...(options.prompt === undefined ? {} : { prompt: options.prompt }), extraArgs: agentArgs });
        if (options.dryRun) {
          if (options.json) process.stdout.write(`${JSON.stringify({ argv: resume.argv, cwd: null, env: {}, host: source.host, remote: resume.remoteLine }, null, 2)}\n`);
          else process.stdout.write(`${formatCommand({ argv: resume.argv, cwd: null })}\n`);
          return;
        }
        process.exitCode = await launchRemote(resume.argv);
        return;
      }
      if (options.dryRun) {
        const resume = buildResume(session, config, options.prompt, agentArgs, options.here ?? false);
        if (options.json) process.stdout.write(`${JSON.stringify({ argv: resume.argv, cwd: resume.cwd, env: resume.env }, null, 2)}\n`);
        else process.stdout.write(`${formatCommand(resume)}\n`);
        // What the real run would refuse, said now (the agent missing from PATH is not: a dry run may be for elsewhere).
        const check = checkLaunch(resume, env, null);
        if (!check.ok && check.reason !== 'not-found') process.stderr.write(`sessions: warning: ${check.message}\n`);
        return;
      }
      process.exitCode = await launchResume(session, config, { prompt: options.prompt, extraArgs: agentArgs, here: options.here ?? false });
    });

  // Only now, so that the subcommands (which copy the program's settings when created) keep refusing extra words.
  program.allowExcessArguments();
  return program;
}

/** Commander's own "unknown command 'x' (Did you mean y?)" error, which its typings do not declare. */
interface CommanderUnknownCommand {
  unknownCommand(): never;
}

function buildResume(session: CatalogSession, config: Config, prompt: string | undefined, extraArgs: readonly string[], here: boolean) {
  const templates = prompt === undefined ? config.resume : config.exec;
  const command = resumeCommand(session, templates, { prompt, extraArgs, defaultHomes: defaultHomes() });
  return here ? { ...command, cwd } : command;
}

/** Hand the terminal to the agent; returns the exit code `sessions` should exit with. */
export async function launchResume(
  session: CatalogSession,
  config: Config,
  options: { readonly prompt?: string; readonly extraArgs?: readonly string[]; readonly here: boolean },
): Promise<number> {
  const command = buildResume(session, config, options.prompt, options.extraArgs ?? [], options.here);
  const check = checkLaunch(command, env, null);
  if (!check.ok) {
    warn(`sessions: cannot resume ${session.agent} session ${safeLine(session.id)}: ${check.message}\n`);
    if (check.reason !== 'not-found') warn(`the command would be:\n  ${formatCommand(command)}\n`);
    return check.reason === 'not-found' ? 127 : 1;
  }
  return runInherited(check.executable, command.argv.slice(1), check.cwd, { ...process.env, ...command.env });
}

/** Run ssh with the terminal handed over (`ssh -t HOST …`); its exit code is the agent's, or 255 when ssh failed. */
async function launchRemote(argv: readonly string[]): Promise<number> {
  const executable = findExecutableOrNull(argv[0]!);
  if (executable === null) {
    warn(`sessions: \`${argv[0]}\` is not on PATH. The command is:\n  ${formatCommand({ argv, cwd: null })}\n`);
    return 127;
  }
  return runInherited(executable, argv.slice(1), cwd, process.env);
}

function findExecutableOrNull(command: string): string | null {
  return findExecutable(command, env, cwd);
}

/** Search each host: its own `sessions grep` streams matching rows; a mirror is searched here. Resolves to the rows matched. */
async function grepHosts(
  hosts: readonly string[],
  text: string,
  options: CommonOptions & { ignoreCase?: boolean; agent?: Agent; context?: number },
  config: Config,
  scopeDir: string | null,
  printRow: (s: CatalogSession, found: { readonly matches: number; readonly snippet: Snippet | null }) => void,
): Promise<number> {
  if (hosts.length === 0) return 0;
  const context = hostContext(config, env, homedir(), options.cache !== false);
  const counts = await Promise.all(
    hosts.map(async (host) => {
      const [source] = await loadHosts([host], context);
      if (source!.status.kind === 'unreachable') {
        warn(`sessions: warning: host ${safeLine(host)} unreachable: ${source!.status.reason}\n`);
        return 0;
      }
      const accept = (s: CatalogSession): boolean => (scopeDir === null || isUnder(s.cwd, scopeDir)) && (options.agent === undefined || s.agent === options.agent);
      if (source!.via === 'mirror' && source!.mirror) {
        const mirror = source!.mirror;
        const { matched } = await grepLocations(mirror.locations, text, {
          ignoreCase: options.ignoreCase ?? false,
          accept: (s) => accept(mirrorRow(s, host, mirror.dir)),
          count: options.json === true || options.context !== undefined,
          ...(options.context === undefined ? {} : { context: options.context }),
          onMatch: (s, found) => printRow(mirrorRow(s, host, mirror.dir), found),
          engine: grepEngine(),
        });
        return matched;
      }
      // `--` last: a search text that starts with a dash is text on the host too.
      const line = remoteArgv(['sessions', 'grep', '--json', ...(options.ignoreCase ? ['-i'] : []), ...(options.context === undefined ? [] : ['--context', String(options.context)]), '--', text]);
      let matched = 0;
      const run = await runCommand(sshArgv(sshSettings(config), host, line, 'batch'), {
        onLine: (json) => {
          let value: Record<string, unknown>;
          try {
            value = JSON.parse(json) as Record<string, unknown>;
          } catch {
            return;
          }
          const row = rowFromListJson(value, host);
          if (row === null || !accept(row)) return;
          matched++;
          const snippet = value.snippet as Snippet | null | undefined;
          const clean = snippet && typeof snippet.match === 'string' ? { before: safeLine(String(snippet.before)), match: safeLine(snippet.match), after: safeLine(String(snippet.after)) } : null;
          printRow(row, { matches: typeof value.matches === 'number' ? value.matches : 0, snippet: clean as Snippet | null });
        },
      });
      // grep exits 1 when nothing matched: not a failure of the host.
      if (run.code !== 0 && run.code !== 1) warn(`sessions: warning: host ${safeLine(host)}: ${failureReason(run, 'sessions grep failed')}\n`);
      return matched;
    }),
  );
  return counts.reduce((a, b) => a + b, 0);
}

/**
 * `list --watch --json`: this machine's rows as NDJSON, `{"synced":true}`, then each row that changes as the
 * agents write (`{"removed":"agent:id"}` for one that is gone): what another machine's browser reads over one ssh
 * connection. Ends when its reader goes away (stdout closed, or the stdin of an ssh channel ended).
 */
async function watchList(options: CommonOptions & { agent?: Agent; cwd?: string; all?: boolean }): Promise<void> {
  const locations = locationsFrom(options);
  const cache = await openCache(options);
  const result = await scanCatalog(locations, { ...(options.agent ? { agents: [options.agent] } : {}), ...(cache ? { cache } : {}) });
  await cache?.save().catch(() => undefined);
  const scopeDir = options.all ? null : resolve(cwd, options.cwd ?? '.');
  const shown = (s: CatalogSession): boolean => (scopeDir === null || isUnder(s.cwd, scopeDir)) && (options.agent === undefined || s.agent === options.agent);
  const write = (value: unknown): void => void process.stdout.write(`${JSON.stringify(value)}\n`);
  for (const s of result.sessions) if (shown(s)) write(toListJson(s));
  const watcher = watchCatalog(locations, result.sessions, {
    context: result.context,
    ...(cache ? { cache } : {}),
    onChange: (change) => {
      for (const s of change.upserted) if (shown(s)) write(toListJson(s));
      for (const key of change.removed) write({ removed: key });
    },
  });
  // Synced once the watcher is armed: a change from then on is reported.
  await watcher.ready;
  write({ synced: true });
  await new Promise<void>((resolveDone) => {
    const stop = (): void => resolveDone();
    process.stdout.once('close', stop);
    process.once('SIGTERM', stop);
    process.once('SIGHUP', stop);
    try {
      const stat = fstatSync(0);
      // Over ssh, stdin is the channel: when the other side goes, it ends. (A terminal or /dev/null never does.)
      if (stat.isFIFO() || stat.isSocket()) {
        process.stdin.on('end', stop).on('error', stop).resume();
      }
    } catch {
      // no stdin
    }
  });
  await watcher.close();
  await cache?.save().catch(() => undefined);
}

/**
 * stdout for rows that arrive in bursts (grep's thousands of matches): what is written within one turn of the event
 * loop goes out in one write (or every 64 KiB), so rows still stream as they are found. `flush` before the end.
 */
function batchedStdout(): { write(text: string): void; flush(): void } {
  let pending = '';
  let scheduled = false;
  const flush = (): void => {
    scheduled = false;
    if (pending === '') return;
    const text = pending;
    pending = '';
    process.stdout.write(text);
  };
  return {
    write(text: string): void {
      pending += text;
      if (pending.length >= 1 << 16) flush();
      else if (!scheduled) {
        scheduled = true;
        setImmediate(flush);
      }
    },
    flush,
  };
}

/** Columns of a title in text rows; a longer one is cut with `…`. */
const LIST_TITLE_COLUMNS = 60;

/** One row of `list` / `grep` text output. */
function listLine(s: CatalogSession): string {
  const fork = s.forkedFrom ? ' [fork]' : '';
  const archived = s.archived ? ' [archived]' : '';
  const subagents = s.subagents?.length ? ` [${s.subagents.length} sub-agent${s.subagents.length === 1 ? '' : 's'}]` : s.subagent ? ' [sub-agent]' : '';
  const turns = `${s.userTurns}${s.userTurnsExact ? '' : '+'}`;
  // Another machine's directory is written host:path (its home is not ours: no ~).
  const where = s.host === undefined ? shortenHome(s.cwd) : `${safeLine(s.host)}:${s.cwd === null ? '-' : safeLine(s.cwd)}`;
  return `${s.agent.padEnd(AGENT_NAME_WIDTH)}  ${shortDate(s.updatedAt)}  ${turns.padStart(5)}  ${safeLine(s.id)}  ${fit(oneLine(s.title), LIST_TITLE_COLUMNS).text}${fork}${archived}${subagents}  ${where}\n`;
}

/** The names of listLine's columns, for a person reading a terminal (scripts reading a pipe get rows only). */
const LIST_HEADER = `${'agent'.padEnd(AGENT_NAME_WIDTH)}  ${'updated'.padEnd(16)}  ${'turns'.padStart(5)}  ${'id'.padEnd(36)}  title  cwd\n`;

function describeLocations(locations: Locations): string {
  const place = (dir: string): string => (isDirectory(dir) ? dir : `${dir} (does not exist)`);
  return [
    ...ADAPTER_LIST.flatMap((adapter) => locations.roots[adapter.agent].map(place)),
    ...ADAPTER_LIST.flatMap((adapter) => (adapter.locations.describeAlso ? [`${locations.cwd} (${adapter.agent})`] : [])),
  ].join(', ');
}

/** The `list --json` contract (README): stable field names and types. */
export function toListJson(row: CatalogSession) {
  // A mirrored host's files are read here from the mirror; the row names them where they are: on the host.
  const s = onHost(row);
  return {
    id: s.id,
    agent: s.agent,
    host: s.host ?? null,
    path: s.path,
    paths: s.paths,
    cwd: s.cwd,
    title: s.title,
    name: s.name,
    firstPrompt: s.firstPrompt,
    lastPrompt: s.lastPrompt,
    userTurns: s.userTurns,
    userTurnsExact: s.userTurnsExact,
    createdAt: s.createdAt,
    updatedAt: s.updatedAt,
    forkedFrom: s.forkedFrom,
    branchName: s.fork?.branchName ?? null,
    gitBranch: s.gitBranch,
    model: s.model,
    archived: s.archived,
    usage: s.usage,
    subagents: s.subagents ?? [],
    subagent: s.subagent ?? null,
  };
}

export async function main(argv: readonly string[]): Promise<void> {
  // `sessions list | head`: a reader that went away is not an error.
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(0);
    throw error;
  });
  try {
    await buildProgram().parseAsync([...argv]);
  } catch (error) {
    if (error instanceof CliError || error instanceof UnsafeSessionIdError) {
      warn(`sessions: ${error.message}\n`);
      process.exitCode = error instanceof CliError ? error.exitCode : 1;
      return;
    }
    warn(`sessions: ${describeError(error)}\n`);
    process.exitCode = 1;
  }
}
