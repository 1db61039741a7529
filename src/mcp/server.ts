// `sessions mcp`'s tools: thin callers of the app layer (list, search, grep, read, fork), as src/cli/*.ts are. Every
// answer is bounded (a caller-set limit under a ceiling) and names sessions by the id another tool takes; a caller's
// mistake (an unknown id, a turn out of range) is a tool error, never a crash of the server.
import { resolve } from 'node:path';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { grepHosts, grepPlace, type RowPlace } from '../app/grep.js';
import { listSessions, resolveOne, type ListSetup, type Resolved } from '../app/list.js';
import type { Here } from '../app/place.js';
import { readTranscript } from '../app/read.js';
import { forkSession } from '../app/fork.js';
import { isUnder } from '../catalog/locations.js';
import type { CatalogSession } from '../catalog/scan.js';
import { SearchIndex } from '../catalog/search.js';
import type { GrepFound } from '../catalog/grep.js';
import { describeError } from '../core/errors.js';
import { ADAPTER_LIST } from '../core/formats/index.js';
import { AGENTS, type Agent } from '../core/model.js';
import { stripControl } from '../core/text.js';
import { onHost } from '../remote/mirror-layout.js';
import { SESSIONS_VERSION } from '../version.js';
import { transcriptWindow } from './window.js';

export interface McpSetup {
  /** What every call reads (the command's location options, `--host`). */
  readonly setup: ListSetup;
  /** This machine as the app layer sees it, after a call resolved a session. */
  readonly here: (found: Pick<Resolved, 'context' | 'cache'>) => Here;
  /** The fork and hand-off tools (they write sessions): off unless `--allow-fork`. */
  readonly allowFork: boolean;
  readonly grepEngine: 'native' | 'js';
}

/** Rows a call returns when it names no limit, and the most it may ask for: a page fits a model's context. */
export const DEFAULT_ROWS = 20;
export const MAX_ROWS = 200;

const agentFilter = z.array(z.enum(AGENTS as unknown as [Agent, ...Agent[]])).optional().describe('only these agents');
const cwdFilter = z.string().optional().describe('only sessions whose cwd is this directory or below it');
const hostFilter = z.string().optional().describe('only sessions of this host (`local`: this machine)');
const limit = z.number().int().min(1).max(MAX_ROWS).optional().describe(`how many sessions at most (default ${DEFAULT_ROWS})`);

type Filters = { readonly agent?: readonly Agent[] | undefined; readonly cwd?: string | undefined; readonly host?: string | undefined };

/** A row for a model: what tells sessions apart and the id read_session, grep and fork take. */
function rowOf(row: CatalogSession) {
  const s = onHost(row);
  return {
    id: s.id,
    agent: s.agent,
    host: s.host ?? 'local',
    title: stripControl(s.title),
    cwd: s.cwd,
    userTurns: s.userTurns,
    createdAt: s.createdAt,
    updatedAt: s.updatedAt,
    gitBranch: s.gitBranch,
    model: s.model,
    forkedFrom: s.forkedFrom,
    ...(s.stale === undefined ? {} : { stale: true }),
  };
}

function accepts(filters: Filters, cwd: string): (row: RowPlace) => boolean {
  const dir = filters.cwd === undefined ? null : resolve(cwd, filters.cwd);
  return (row) =>
    (filters.agent === undefined || filters.agent.includes(row.agent)) &&
    (dir === null || isUnder(row.cwd, dir)) &&
    (filters.host === undefined || (row.host ?? 'local') === filters.host);
}

function json(value: unknown) {
  return { content: [{ type: 'text' as const, text: JSON.stringify(value, null, 2) }] };
}

/** A failed call, said to the model: the message is its own (an id not found, a turn out of range), not a crash. */
function failed(error: unknown) {
  return { content: [{ type: 'text' as const, text: stripControl(describeError(error)) }], isError: true };
}

async function guarded<T>(run: () => Promise<T>): Promise<T | ReturnType<typeof failed>> {
  try {
    return await run();
  } catch (error) {
    return failed(error);
  }
}

export function createSessionsServer(options: McpSetup): McpServer {
  const { setup } = options;
  const server = new McpServer({ name: 'sessions', version: SESSIONS_VERSION });
  const rows = async (filters: Filters) => (await listSessions(setup, filters.agent ? { agents: filters.agent } : {})).sessions.filter(accepts(filters, setup.cwd));

  server.registerTool(
    'list_sessions',
    {
      description: `Coding-agent sessions (${ADAPTER_LIST.map((adapter) => adapter.label).join(', ')}), newest first, a page at a time. Each row has the id read_session takes.`,
      inputSchema: { agent: agentFilter, cwd: cwdFilter, host: hostFilter, limit, offset: z.number().int().min(0).optional().describe('rows to skip (the next page: offset + limit)') },
    },
    (args) =>
      guarded(async () => {
        const all = await rows(args);
        const offset = args.offset ?? 0;
        const page = all.slice(offset, offset + (args.limit ?? DEFAULT_ROWS));
        return json({ total: all.length, offset, next: offset + page.length < all.length ? offset + page.length : null, sessions: page.map(rowOf) });
      }),
  );

  server.registerTool(
    'search_sessions',
    {
      description: "Fuzzy search over sessions' titles, prompts, cwds and branches, best first. fzf syntax: words match in any order; 'exact, ^prefix, suffix$, !exclude, a | b.",
      inputSchema: { query: z.string().min(1).describe('the words to find'), agent: agentFilter, cwd: cwdFilter, host: hostFilter, limit },
    },
    (args) =>
      guarded(async () => {
        const found = new SearchIndex(await rows(args)).search(args.query).flatMap((hit) => (hit.session === undefined ? [] : [hit.session]));
        return json({ total: found.length, sessions: found.slice(0, args.limit ?? DEFAULT_ROWS).map(rowOf) });
      }),
  );

  server.registerTool(
    'grep_sessions',
    {
      description: 'Full-text search inside every transcript (prompts, answers, tool output): the matching sessions, newest first, each with its match count and a snippet around the first match.',
      inputSchema: {
        text: z.string().min(1).describe('the literal text to find'),
        ignoreCase: z.boolean().optional().describe('ignore the case of ASCII letters'),
        context: z.number().int().min(0).max(500).optional().describe('characters of text each side of the match in a snippet (default 60)'),
        agent: agentFilter,
        cwd: cwdFilter,
        host: hostFilter,
        limit,
      },
    },
    (args) =>
      guarded(async () => {
        const found: { row: CatalogSession; found: GrepFound }[] = [];
        const accept = accepts(args, setup.cwd);
        const request = {
          ignoreCase: args.ignoreCase ?? false,
          count: true,
          context: args.context ?? 60,
          engine: options.grepEngine,
          ...(args.agent ? { agents: args.agent } : {}),
          accept,
          onRow: (row: CatalogSession, match: GrepFound) => void found.push({ row, found: match }),
        };
        const warnings: string[] = [];
        const hosts = setup.hosts.length === 0 ? Promise.resolve(0) : grepHosts(setup.hosts, setup.hostContext, args.text, { ...request, onWarning: (message) => warnings.push(message) });
        if (setup.local) await grepPlace({ kind: 'local' }, args.text, { ...request, local: { locations: setup.locations } });
        await hosts;
        found.sort((a, b) => (a.row.updatedAt < b.row.updatedAt ? 1 : a.row.updatedAt > b.row.updatedAt ? -1 : 0));
        const shown = found.slice(0, args.limit ?? DEFAULT_ROWS).map(({ row, found: match }) => ({
          ...rowOf(row),
          matches: match.matches,
          ...(match.inherited === true ? { inherited: true } : {}),
          ...(match.snippet ? { snippet: stripControl(`${match.snippet.before}${match.snippet.match}${match.snippet.after}`) } : {}),
        }));
        return json({ total: found.length, sessions: shown, ...(warnings.length ? { warnings: warnings.map(stripControl) } : {}) });
      }),
  );

  server.registerTool(
    'read_session',
    {
      description: "A window of a session's transcript by user turn (1-based): the prompts, answers, tool calls and their output, each clipped to maxBlockChars. The reply says the next turn to ask for when the window was cut.",
      inputSchema: {
        id: z.string().min(1).describe('a session id (or unique prefix, or name) from list_sessions, search_sessions or grep_sessions'),
        from: z.number().int().min(1).optional().describe('first user turn (default 1)'),
        to: z.number().int().min(1).optional().describe('last user turn (default from + 4)'),
        maxBlockChars: z.number().int().min(100).max(100_000).optional().describe('characters kept of each prompt, answer or tool output (default 2000)'),
        maxChars: z.number().int().min(1000).max(200_000).optional().describe('characters of the whole window (default 40000)'),
        system: z.boolean().optional().describe('include injected context and system messages'),
      },
    },
    (args) =>
      guarded(async () => {
        const found = await resolveOne(setup, args.id, { cached: true });
        const session = await readTranscript(found.session, found.place, options.here(found));
        const from = args.from ?? 1;
        const window = transcriptWindow(session, { from, to: args.to ?? from + 4, maxBlockChars: args.maxBlockChars ?? 2000, maxChars: args.maxChars ?? 40_000, system: args.system ?? false });
        const head = { ...rowOf(found.session), window: { from: window.from, to: window.to, turns: window.turns, next: window.next } };
        return { content: [{ type: 'text' as const, text: `${JSON.stringify(head, null, 2)}\n\n${window.text}` }] };
      }),
  );

  if (options.allowFork) {
    server.registerTool(
      'fork_session',
      {
        description: "Write a new session holding a session's first turns (a fork), or hand it off to another agent (to). Returns the new session's id.",
        inputSchema: {
          id: z.string().min(1).describe('the session to fork'),
          atTurn: z.number().int().min(1).optional().describe('keep the turns before this one (default: every turn)'),
          to: z.enum(AGENTS as unknown as [Agent, ...Agent[]]).optional().describe('another agent to continue in (a hand-off)'),
          name: z.string().optional().describe('a name for the new session'),
        },
      },
      (args) =>
        guarded(async () => {
          const found = await resolveOne(setup, args.id);
          const forked = await forkSession(found.session, found.place, options.here(found), { atTurn: args.atTurn ?? 'end', ...(args.to ? { to: args.to } : {}), ...(args.name ? { branchName: args.name } : {}) });
          const { result } = forked;
          return json({ id: result.id, agent: result.agent, host: forked.host ?? 'local', path: result.path, parentId: found.session.id, keptUserTurns: result.keptUserTurns, ...(forked.warning ? { warning: stripControl(forked.warning) } : {}) });
        }),
    );
  }
  return server;
}
