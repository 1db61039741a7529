// `sessions grep TEXT`: full-text search of every transcript, here and on the hosts; rows stream out as found.
import { homedir } from 'node:os';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { grepHosts, grepPlace, type GrepRequest, type RowPlace } from '../app/grep.js';
import type { GrepFound, PrintedRow } from '../catalog/grep.js';
import { isUnder } from '../catalog/locations.js';
import { CatalogCache } from '../catalog/cache.js';
import { trigramMapsBeside } from '../catalog/native-grep.js';
import type { CatalogSession } from '../catalog/scan.js';
import { defaultWalkMemoPath } from '../catalog/walk-memo.js';
import type { Agent } from '../core/model.js';
import { agentOption, cwd, env, grepEngine, listSetup, positiveInt, readConfig, reportProblems, rowCount, warnMissingLocations, withLocations, type CommonOptions } from './common.js';
import { batchedStdout, LIST_LINE_FORMAT, listLine, listWidths, toListJson, type ListWidths } from './output.js';

type GrepCommandOptions = CommonOptions & { ignoreCase?: boolean; agent?: readonly Agent[]; cwd?: string; context?: number; limit?: number };

export function grepCommand(program: Command): void {
  withLocations(program.command('grep'))
    .description('full-text search inside every transcript (tool outputs included); matching sessions stream in as they are found')
    .argument('<text>', 'the literal text to find')
    .option('-i, --ignore-case', 'ignore the case of ASCII letters')
    .option('--json', 'one JSON object per matching session per line (the `list --json` fields, plus `matches` and `inherited`)')
    .option('--context <n>', 'under each row, the first match with N characters of text each side (JSON: `snippet`)', positiveInt)
    .addOption(agentOption())
    .option('--cwd <dir>', 'only sessions whose cwd is this directory or below it (default: every session)')
    .option('--limit <n>', 'only the newest n matching sessions (printed once the search is done, newest first)', rowCount)
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
session's files, as the agent wrote them (some record a prompt twice). A Codex fork whose early turns live
in its parent's file matches by the text of those turns (\`inherited\`: true in --json, said under the
row with --context). Exits 0 when something matched,
1 when nothing did (like grep).

Examples:
  sessions grep RuntimeError
  sessions grep --context 40 "health check"
  sessions grep -i "health check" --json | jq -r .id
  sessions grep -i health --agent codex,claude --limit 2`,
    )
    .action(async (text: string, _options: unknown, command: Command) => {
      const options = command.optsWithGlobals<GrepCommandOptions>();
      const mark = process.stdout.isTTY && !process.env.NO_COLOR ? (text: string): string => `\u001b[1;31m${text}\u001b[0m` : (text: string): string => text;
      const scopeDir = options.cwd === undefined ? null : resolve(cwd, options.cwd);
      const setup = listSetup(options, readConfig());
      warnMissingLocations(options);
      const out = batchedStdout();
      const writeRow = (s: CatalogSession, found: GrepFound, widths?: ListWidths): void => {
        if (options.json) {
          const snippet = options.context === undefined ? {} : { snippet: found.snippet };
          out.write(`${JSON.stringify({ ...toListJson(s), matches: found.matches, inherited: found.inherited === true, ...snippet })}\n`);
          return;
        }
        out.write(listLine(s, widths));
        const inherited = found.inherited === true ? ', in the turns it inherits from its parent' : '';
        if (found.snippet) {
          const { before, match, after } = found.snippet;
          out.write(`        ${before}${mark(match)}${after}  (${found.matches} match${found.matches === 1 ? '' : 'es'}${inherited})\n`);
        }
      };
      // With --limit, rows wait for the search's end: the newest n of all of them are printed.
      const held: { row: CatalogSession; found: GrepFound }[] = [];
      const printRow = options.limit === undefined ? writeRow : (row: CatalogSession, found: GrepFound): void => void held.push({ row, found });
      const printHeld = (): void => {
        held.sort((a, b) => (a.row.updatedAt < b.row.updatedAt ? 1 : a.row.updatedAt > b.row.updatedAt ? -1 : 0));
        const newest = held.slice(0, options.limit);
        // All of them known: one width per column, the widest's.
        const widths = listWidths(newest.map(({ row }) => row));
        for (const { row, found } of newest) writeRow(row, found, widths);
      };
      const request: GrepRequest = {
        ignoreCase: options.ignoreCase ?? false,
        ...(options.agent ? { agents: options.agent } : {}),
        ...(scopeDir === null ? {} : { accept: (s: RowPlace) => isUnder(s.cwd, scopeDir) }),
        count: options.json === true || options.context !== undefined,
        ...(options.context === undefined ? {} : { context: options.context }),
        engine: grepEngine(),
        onRow: printRow,
        // Lines alone (no JSON, snippet or order to wait for): this machine's come as lines, those of files unchanged since
        // an earlier grep printed them without their rows made again.
        ...(options.json || options.context !== undefined || options.limit !== undefined
          ? {}
          : { printed: { home: homedir(), format: LIST_LINE_FORMAT, lineOf: (row: CatalogSession) => listLine(row), onLine: (row: PrintedRow) => out.write(row.line) } }),
      };
      const hostsMatched = setup.hosts.length === 0 ? Promise.resolve(0) : grepHosts(setup.hosts, setup.hostContext, text, { ...request, onWarning: setup.onWarning! });
      if (!setup.local) {
        const matched = await hostsMatched;
        printHeld();
        out.flush();
        if (matched === 0) process.exitCode = 1;
        return;
      }
      // No catalog scan first: files are searched as soon as they are found, and only matches are summarised.
      const { locations, cachePath } = setup;
      // The cache is read synchronously (nothing else runs here): read asynchronously, each chunk waited for a turn of
      // an event loop busy with the search's results, and every row waited for the cache.
      const { matched, problems } = await grepPlace({ kind: 'local' }, text, {
        ...request,
        local: {
          locations,
          ...(cachePath === null ? {} : { cache: async () => CatalogCache.lazySync(cachePath), walkMemo: defaultWalkMemoPath(env, homedir(), locations, options.agent), trigrams: trigramMapsBeside(cachePath) }),
          onProblem: (problem) => reportProblems([problem]),
          walkSynchronously: true,
        },
      });
      const hostMatches = await hostsMatched;
      printHeld();
      out.flush();
      reportProblems(problems);
      if (matched + hostMatches === 0) process.exitCode = 1;
    });
}
