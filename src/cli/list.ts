// `sessions list`: rows of this machine and the hosts, newest first, as text lines or the `--json` contract; with
// `--watch --json`, rows then changes as NDJSON (what another machine's browser reads over ssh).
import { resolve } from 'node:path';
import { type Command, Option } from 'commander';
import { listSessions } from '../app/list.js';
import { isUnder } from '../catalog/locations.js';
import type { CatalogSession } from '../catalog/scan.js';
import type { Agent } from '../core/model.js';
import { agentOption, CliError, cwd, listSetup, readConfig, reportProblems, rowCount, warn, warnMissingLocations, withLocations, type CommonOptions } from './common.js';
import { describeLocations, listHeader, listLine, listWidths, toListJson, writeJsonArray } from './output.js';
import { watchList } from './watch-list.js';

type ListOptions = CommonOptions & { agent?: readonly Agent[]; cwd?: string; all?: boolean; watch?: boolean; limit?: number; hello?: boolean; known?: boolean };

export function listCommand(program: Command): void {
  withLocations(program.command('list'))
    .description('list conversations, newest first')
    .option('--json', 'print a JSON array (a stable contract: docs/list-json.md)')
    .addOption(agentOption())
    .option('--cwd <dir>', 'only sessions whose cwd is this directory or below it (default: the current directory)')
    .option('--all', 'every session, wherever it ran')
    .option('--limit <n>', 'only the newest n sessions', rowCount)
    .option('--exact-turns', 'no effect: every row is exact (kept so that scripts that pass it still work)')
    .option('--watch', 'with --json: one row per line (NDJSON), then {"synced":true}, then a line per changed row ({"removed":"agent:id"} when one is gone) until stopped')
    // The hosts' handshake: another machine's sessions asks for this line first (an older one does not know it).
    .addOption(new Option('--hello', 'with --watch: first a line {"hello":{"sessions":VERSION,"protocol":1}}').hideHelp())
    // And only the rows the reader does not hold: it names those it holds on stdin (remote/row-digest.ts).
    .addOption(new Option('--known', 'with --watch: read the digests of the rows held from stdin; send only the others, then {"rows":[every digest]}').hideHelp())
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
  sessions list --agent claude --cwd /home/dev/src/a-api-server
  sessions list --all --agent codex,claude --limit 5
                                             the 5 newest Codex and Claude Code sessions
  sessions list --host devbox --host local   this machine's sessions and devbox's (over ssh)
  sessions list --watch --json               rows as NDJSON, then changes as they happen`,
    )
    .action(async (_options: unknown, command: Command) => {
      const options = command.optsWithGlobals<ListOptions>();
      if (options.watch) {
        if (!options.json) throw new CliError('--watch needs --json (it streams rows as NDJSON)');
        if (options.limit !== undefined) throw new CliError('--limit counts the rows of a list, not of a stream: leave it out with --watch');
        await watchList(options);
        return;
      }
      const setup = listSetup(options, readConfig());
      if (setup.local) warnMissingLocations(options);
      const { sessions, problems, sources } = await listSessions(setup, { agents: options.agent, walkSynchronously: true });
      // Nothing asked for could be read (each host's reason was just said): not an empty list.
      // (A host down whose mirror a whole sync left is listed, stale, was read: from the mirror.)
      if (!setup.local && sources.length > 0 && sources.every((source) => source.status.kind === 'unreachable' && !(source.stale && source.syncedAt))) {
        throw new CliError(`no host could be read (tried ${sources.map((source) => source.host).join(', ')})`);
      }
      let shown: readonly CatalogSession[] = sessions;
      // A host's sessions ran in its own directories: naming hosts lists all of theirs unless --cwd says otherwise.
      if (!options.all && !(options.host?.length && !options.cwd)) {
        const scopeDir = resolve(cwd, options.cwd ?? '.');
        const scoped = sessions.filter((s) => isUnder(s.cwd, scopeDir));
        if (scoped.length > 0 || options.cwd) shown = scoped;
        else if (sessions.length > 0) warn(`sessions: no sessions ran in ${scopeDir}; listing all ${sessions.length}\n`);
      }
      // Rows are newest first: the newest n.
      if (options.limit !== undefined) shown = shown.slice(0, options.limit);
      if (options.json) {
        writeJsonArray(shown, toListJson);
      } else {
        const widths = listWidths(shown);
        if (process.stdout.isTTY && shown.length > 0) process.stdout.write(listHeader(widths));
        for (const s of shown) process.stdout.write(listLine(s, widths));
        if (shown.length === 0) warn(`sessions: no sessions found (looked in ${lookedIn(setup)})\n`);
      }
      reportProblems(problems);
    });
}

/** What a list read: this machine's folders (when it was read) and the hosts named. */
function lookedIn(setup: { readonly local: boolean; readonly locations: Parameters<typeof describeLocations>[0]; readonly hosts: readonly string[] }): string {
  return [...(setup.local ? [describeLocations(setup.locations)] : []), ...setup.hosts.map((host) => `host ${host}`)].join('; ');
}

