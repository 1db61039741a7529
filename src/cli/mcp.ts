// `sessions mcp`: the Model Context Protocol server over stdio, so that an agent can search and read every session
// (the tools are in src/mcp/server.ts; the SDK is loaded only by this command).
import type { Command } from 'commander';
import { SESSIONS_VERSION } from '../version.js';
import { grepEngine, hereOf, listSetup, readConfig, warnMissingLocations, withLocations, type CommonOptions } from './common.js';

type McpOptions = CommonOptions & { allowFork?: boolean; listTools?: boolean };

export function mcpCommand(program: Command): void {
  withLocations(program.command('mcp'))
    .description('serve the sessions to an agent: a Model Context Protocol server on stdin/stdout')
    .option('--allow-fork', 'also offer the fork_session tool (it writes new sessions: forks and hand-offs)')
    .option('--list-tools', 'print the tools an agent is offered (name and description) and exit')
    .addHelpText(
      'after',
      `
Tools: list_sessions, search_sessions (fuzzy, fzf syntax), grep_sessions (full text), read_session
(a window of turns); fork_session with --allow-fork. Register it with your agent: docs/mcp.md.

Examples:
  claude mcp add sessions -- sessions mcp    register it with Claude Code
  sessions mcp --list-tools --allow-fork     what an agent is offered, fork_session included`,
    )
    .action(async (_options: unknown, command: Command) => {
      const options = command.optsWithGlobals<McpOptions>();
      const config = readConfig();
      // stdout carries the protocol: progress and warnings go to stderr only.
      const setup = { ...listSetup(options, config), progress: undefined };
      if (setup.local) warnMissingLocations(options);
      const [{ createSessionsServer }, { StdioServerTransport }] = await Promise.all([import('../mcp/server.js'), import('@modelcontextprotocol/sdk/server/stdio.js')]);
      const server = createSessionsServer({ setup, here: (found) => hereOf(setup, config, found), allowFork: options.allowFork === true, grepEngine: grepEngine() });
      if (options.listTools) {
        // Asked of the server as an agent asks it (tools/list), so the list is the one served.
        const [{ Client }, { InMemoryTransport }] = await Promise.all([import('@modelcontextprotocol/sdk/client/index.js'), import('@modelcontextprotocol/sdk/inMemory.js')]);
        const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
        const client = new Client({ name: 'sessions --list-tools', version: SESSIONS_VERSION });
        await Promise.all([server.connect(serverSide), client.connect(clientSide)]);
        for (const tool of (await client.listTools()).tools) process.stdout.write(`${tool.name}\n  ${tool.description ?? ''}\n`);
        await client.close();
        return;
      }
      const transport = new StdioServerTransport();
      const closed = new Promise<void>((resolve) => {
        transport.onclose = () => resolve();
        process.stdin.once('end', () => resolve());
      });
      await server.connect(transport);
      await closed;
      await server.close();
    });
}
