// What every command shares: its location options, the environment read once (the only place below which nothing
// reads homedir() or process.env), the setup the app layer takes, and how warnings reach stderr.
import { statSync } from 'node:fs';
import { homedir } from 'node:os';
import { resolve } from 'node:path';
import { type Command, InvalidArgumentError, Option } from 'commander';
import type { Here } from '../app/place.js';
import type { ListSetup, Resolved } from '../app/list.js';
import { defaultCachePath } from '../catalog/cache.js';
import { agentDefaultHomes, locationFlags, locationOptionsFromFlags, resolveLocations, type Locations } from '../catalog/locations.js';
import type { CatalogSession, ScanContext, ScanProgress } from '../catalog/scan.js';
import { configPath, loadConfig, type Config } from '../config.js';
import { ADAPTER_LIST } from '../core/formats/index.js';
import { isSkippedLines, skippedLinesMessage } from '../core/formats/problems.js';
import type { Problem } from '../core/formats/types.js';
import { AGENTS, type Agent } from '../core/model.js';
import { safeLine, stripControl } from '../core/text.js';
import { chosenHosts, hostContext } from '../remote/hosts.js';

/** Every command's options: `--home`, each agent's location flag (its values under the flag's camel-cased name), … */
export interface CommonOptions {
  readonly home?: string;
  readonly json?: boolean;
  /** `--host` destinations (repeatable); `local` is this machine. */
  readonly host?: readonly string[];
  /** commander's --no-cache */
  readonly cache?: boolean;
}

export const env = process.env;
export const cwd = process.cwd();

/** grep's search engine: SESSIONS_GREP_ENGINE=js picks the JS workers over the native engine (see GrepOptions.engine). */
export function grepEngine(): 'native' | 'js' {
  return env.SESSIONS_GREP_ENGINE === 'js' ? 'js' : 'native';
}

export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
  }
}

export function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

/** A whole number of 0 or more, written as such: no blanks, sign, leading zeros or exponent (`" 2"` is refused). */
export function positiveInt(value: string): number {
  const n = Number(value);
  if (!/^(?:0|[1-9][0-9]*)$/.test(value) || !Number.isSafeInteger(n)) throw new InvalidArgumentError('expected a whole number');
  return n;
}

/** `--limit`: a count of rows, 1 or more. */
export function rowCount(value: string): number {
  const n = positiveInt(value);
  if (n < 1) throw new InvalidArgumentError('expected 1 or more');
  return n;
}

/** `--agent`, repeatable, each a name or a comma list (`--agent codex,claude`): every agent named, once. */
export function agentOption(): Option {
  return new Option('--agent <agent>', 'only these agents (repeat it, or give a comma list)').choices([...AGENTS]).argParser(agentList);
}

function agentList(value: string, previous: readonly Agent[] | undefined): Agent[] {
  const names = value
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  const unknown = names.find((name) => !(AGENTS as readonly string[]).includes(name));
  if (unknown !== undefined || names.length === 0) throw new InvalidArgumentError(`Allowed choices are ${AGENTS.join(', ')}.`);
  return [...new Set([...(previous ?? []), ...(names as Agent[])])];
}

/** `a, b and c` */
function spokenList(items: readonly string[]): string {
  return items.length <= 1 ? items.join('') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)!}`;
}

/** Location options, accepted by every command (before or after the command name): `--home` and each adapter's flag. */
export function withLocations(command: Command): Command {
  const homeFolders = ADAPTER_LIST.flatMap((adapter) => (adapter.locations.homeFolder === null ? [] : [`<dir>/${adapter.locations.homeFolder}`]));
  command.option('--home <dir>', `a home folder to read: ${spokenList(homeFolders)}`);
  for (const flag of locationFlags()) command.option(flag.flags, flag.help, collect);
  command.option('--host <destination>', "read this ssh destination's sessions (repeatable; `local` is this machine; default: this machine and the config's hosts)", collect);
  return command.option('--no-cache', 'ignore and do not update the catalog cache ($XDG_CACHE_HOME/sessions)');
}

export function locationsFrom(options: CommonOptions): Locations {
  return resolveLocations(locationOptionsFromFlags(options as Readonly<Record<string, unknown>>), { env, homeDir: homedir(), cwd });
}

/** A folder named on the command line that is not there is a typo or a missing mount, not an empty home: say so. */
export function warnMissingLocations(options: CommonOptions): void {
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

export function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

export function readConfig(): Config {
  return loadConfig(configPath(env, homedir()));
}

export function cachePathOf(options: CommonOptions, locations: Locations = locationsFrom(options)): string | null {
  return options.cache === false ? null : defaultCachePath(env, homedir(), locations);
}

/** What the app layer reads for a command: this machine unless `--host` leaves it out, the hosts named, the cache. */
export function listSetup(options: CommonOptions, config: Config): ListSetup {
  const chosen = chosenHosts(options.host, config);
  const locations = locationsFrom(options);
  return {
    locations,
    local: chosen.local,
    hosts: chosen.hosts,
    hostContext: hostContext(config, env, homedir(), options.cache !== false),
    cachePath: cachePathOf(options, locations),
    cwd,
    progress: stderrProgress(),
    onWarning: (message) => warn(`sessions: warning: ${message}\n`),
  };
}

/** This machine as the app layer sees it: the scan that resolved a session, the homes the agents look in, the config's commands. */
export function hereOf(setup: Pick<ListSetup, 'locations'>, config: Config, found: Pick<Resolved, 'context' | 'cache'> | null = null): Here {
  const context = found?.context ?? null;
  return {
    locations: setup.locations,
    context: (): Promise<ScanContext> => (context === null ? Promise.reject(new Error('this machine was not read')) : Promise.resolve(context)),
    cache: () => undefined,
    defaultHomes: agentDefaultHomes({ env, homeDir: homedir(), cwd }),
    templates: { resume: config.resume, exec: config.exec },
  };
}

/** Write to stdout, waiting when a pipe's reader is behind (a 200 MB transcript is never buffered whole). */
export function writeStdout(text: string): Promise<void> | void {
  if (process.stdout.write(text)) return;
  return new Promise((resolve) => process.stdout.once('drain', () => resolve()));
}

/**
 * Everything written to stderr: paths, ids, titles and messages can come from files, so control sequences are
 * stripped here, once (one field per line stays on its line: see safeLine where a field is put together).
 */
export function warn(text: string): void {
  process.stderr.write(stripControl(text));
}

export function reportProblems(problems: readonly Problem[]): void {
  for (const problem of problems) warn(`sessions: warning: ${safeLine(problem.path)}: ${safeLine(problem.message)}\n`);
}

/** The lines a transcript read skipped, in the words `list` uses for them (reportSkippedLines). */
export function warnSkippedLines(path: string, malformed: number): void {
  if (malformed > 0) reportProblems([{ path, message: skippedLinesMessage(malformed) }]);
}

/**
 * What the scan that found `session` met that a reader of its transcript should hear: problems of other files are not
 * about it (a lookup in a warm cache, which scans nothing, reports none either), and the lines its own files skipped
 * are reported by the transcript's read.
 */
export function ownProblems(problems: readonly Problem[], session: CatalogSession): Problem[] {
  const own = new Set(session.paths);
  return problems.filter((problem) => own.has(problem.path) && !isSkippedLines(problem));
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
