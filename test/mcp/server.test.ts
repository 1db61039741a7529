// `sessions mcp`'s tools, called by the MCP SDK's own client (in-memory transport) on a copy of the sample home:
// each tool's answer holds the sessions and text the sample holds, and a caller's mistake is a tool error.
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ListSetup } from '../../src/app/list.js';
import { resolveLocations } from '../../src/catalog/locations.js';
import { DEFAULT_EXEC_TEMPLATES, DEFAULT_RESUME_TEMPLATES } from '../../src/core/resume.js';
import type * as Server from '../../src/mcp/server.js';

// From dist (npm run build): grep's JS workers are loaded from beside the module that starts them.
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const { createSessionsServer } = (await import(join(ROOT, 'dist', 'mcp', 'server.js'))) as typeof Server;

let dir: string;
let home: string;

/** A client connected to a server over the home, with fork allowed or not. */
async function connect(allowFork: boolean): Promise<Client> {
  const locations = resolveLocations({ home, roots: { claw: [join(home, 'src')] } }, { env: {}, homeDir: home, cwd: home });
  const setup: ListSetup = { locations, local: true, hosts: [], hostContext: { settings: { ssh: ['ssh'], connectTimeout: 5 }, cacheDir: join(dir, 'cache'), cachePathFor: null }, cachePath: null, cwd: home };
  const server = createSessionsServer({
    setup,
    here: (found) => ({ locations, context: () => (found.context ? Promise.resolve(found.context) : Promise.reject(new Error('not read'))), defaultHomes: {}, templates: { resume: DEFAULT_RESUME_TEMPLATES, exec: DEFAULT_EXEC_TEMPLATES } }),
    allowFork,
    grepEngine: process.env.SESSIONS_GREP_ENGINE === 'js' ? 'js' : 'native',
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: 'test', version: '1' });
  await Promise.all([server.connect(serverSide), client.connect(clientSide)]);
  return client;
}

type Reply = { content: { type: string; text: string }[]; isError?: boolean };

async function call(client: Client, name: string, args: Record<string, unknown>): Promise<Reply> {
  return (await client.callTool({ name, arguments: args })) as Reply;
}

function parsed(reply: Reply): { total: number; next?: number | null; sessions: { id: string; agent: string; title: string; matches?: number; snippet?: string }[] } {
  expect(reply.isError, reply.content[0]?.text).toBeFalsy();
  return JSON.parse(reply.content[0]!.text);
}

let client: Client;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sessions-mcp-'));
  home = join(dir, 'home');
  await cp(join(ROOT, 'examples/home'), home, { recursive: true });
  client = await connect(false);
});

afterAll(async () => {
  await client?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const CLAUDE_CHECKOUT = '3e88d315-7144-400c-90c6-61cb05f07877';

describe('sessions mcp tools', () => {
  it('lists the read-only tools, and fork_session only when allowed', async () => {
    expect((await client.listTools()).tools.map((tool) => tool.name).sort()).toEqual(['grep_sessions', 'list_sessions', 'read_session', 'search_sessions']);
    const writer = await connect(true);
    expect((await writer.listTools()).tools.map((tool) => tool.name)).toContain('fork_session');
    await writer.close();
  });

  it('list_sessions pages newest first', async () => {
    const first = parsed(await call(client, 'list_sessions', { limit: 3 }));
    expect(first.sessions).toHaveLength(3);
    expect(first.total).toBeGreaterThan(10);
    expect(first.next).toBe(3);
    const second = parsed(await call(client, 'list_sessions', { limit: 3, offset: 3 }));
    expect(second.sessions.map((s) => s.id)).not.toContain(first.sessions[0]!.id);
    const all = parsed(await call(client, 'list_sessions', { limit: 200 }));
    expect(all.sessions.slice(0, 6).map((s) => s.id)).toEqual([...first.sessions, ...second.sessions].map((s) => s.id));
    const updated = all.sessions.map((s) => (s as unknown as { updatedAt: string }).updatedAt);
    expect([...updated].sort().reverse()).toEqual(updated);
    const gemini = parsed(await call(client, 'list_sessions', { agent: ['gemini'] }));
    expect(gemini.sessions.length).toBeGreaterThan(0);
    expect(new Set(gemini.sessions.map((s) => s.agent))).toEqual(new Set(['gemini']));
  });

  it('search_sessions finds rows by fuzzy words and fzf syntax, with filters', async () => {
    const found = parsed(await call(client, 'search_sessions', { query: 'checkout discount' }));
    expect(found.sessions.map((s) => s.id)).toContain(CLAUDE_CHECKOUT);
    const claude = parsed(await call(client, 'search_sessions', { query: 'checkout discount', agent: ['claude'] }));
    expect(claude.sessions.map((s) => s.id)).toEqual([CLAUDE_CHECKOUT]);
    const excluded = parsed(await call(client, 'search_sessions', { query: 'checkout !claude' }));
    expect(excluded.sessions.map((s) => s.agent)).not.toContain('claude');
    const elsewhere = parsed(await call(client, 'search_sessions', { query: 'checkout', cwd: '/home/dev/src/web-dashboard' }));
    expect(elsewhere.sessions).toEqual([]);
    expect(parsed(await call(client, 'search_sessions', { query: 'checkout', host: 'devbox' })).sessions).toEqual([]);
  });

  it('grep_sessions finds text inside transcripts with match counts and snippets', async () => {
    const found = parsed(await call(client, 'grep_sessions', { text: 'applyDiscount', agent: ['claude'] }));
    expect(found.sessions.map((s) => s.id)).toEqual([CLAUDE_CHECKOUT]);
    expect(found.sessions[0]!.matches).toBeGreaterThan(1);
    expect(found.sessions[0]!.snippet).toContain('applyDiscount');
    const limited = parsed(await call(client, 'grep_sessions', { text: 'the', limit: 2 }));
    expect(limited.sessions).toHaveLength(2);
    expect(limited.total).toBeGreaterThan(2);
    expect(parsed(await call(client, 'grep_sessions', { text: 'no such text anywhere 7f3a' })).sessions).toEqual([]);
  });

  it('read_session gives a window of turns, tool output clipped with a way to ask for more', async () => {
    const reply = await call(client, 'read_session', { id: CLAUDE_CHECKOUT, from: 2, to: 2 });
    expect(reply.isError).toBeFalsy();
    const text = reply.content[0]!.text;
    expect(text).toContain('"from": 2');
    expect(text).toContain('"next": null');
    expect(text).toContain('## turn 2');
    expect(text).toContain('Fix it and add a regression test');
    expect(text).not.toContain('## turn 1');
    expect(text).not.toContain('## turn 3');
    const clipped = (await call(client, 'read_session', { id: CLAUDE_CHECKOUT.slice(0, 8), from: 1, to: 1, maxBlockChars: 100 })).content[0]!.text;
    expect(clipped).toContain('[tool call Bash]');
    expect(clipped).toMatch(/more characters clipped; read this turn alone with a larger maxBlockChars/);
    expect(clipped).not.toContain('chargeCard` rejects it');
    const whole = (await call(client, 'read_session', { id: CLAUDE_CHECKOUT, from: 1, to: 1, maxBlockChars: 100_000 })).content[0]!.text;
    expect(whole).toContain('chargeCard` rejects it');
    const cut = (await call(client, 'read_session', { id: CLAUDE_CHECKOUT, maxChars: 1000 })).content[0]!.text;
    expect(cut).toContain('"next": 2');
  });

  it('answers bad arguments with tool errors, and keeps serving', async () => {
    const unknown = await call(client, 'read_session', { id: 'no-such-session' });
    expect(unknown.isError).toBe(true);
    expect(unknown.content[0]!.text).toMatch(/no-such-session/);
    const range = await call(client, 'read_session', { id: CLAUDE_CHECKOUT, from: 9 });
    expect(range.isError).toBe(true);
    expect(range.content[0]!.text).toContain('turn 9 is out of range');
    const empty = await call(client, 'read_session', { id: CLAUDE_CHECKOUT, from: 3, to: 2 });
    expect(empty.isError).toBe(true);
    const wrongType = await call(client, 'list_sessions', { limit: 'ten' });
    expect(wrongType.isError).toBe(true);
    const tooMany = await call(client, 'list_sessions', { limit: 100_000 });
    expect(tooMany.isError).toBe(true);
    expect(parsed(await call(client, 'list_sessions', { limit: 1 })).sessions).toHaveLength(1);
  });

  it('fork_session (with --allow-fork) writes a fork the other tools then read', async () => {
    const writer = await connect(true);
    const reply = await call(writer, 'fork_session', { id: CLAUDE_CHECKOUT, atTurn: 2 });
    expect(reply.isError, reply.content[0]?.text).toBeFalsy();
    const fork = JSON.parse(reply.content[0]!.text) as { id: string; keptUserTurns: number; parentId: string };
    expect(fork).toMatchObject({ keptUserTurns: 1, parentId: CLAUDE_CHECKOUT });
    const read = (await call(writer, 'read_session', { id: fork.id })).content[0]!.text;
    expect(read).toContain('Checkout returns a 500');
    expect(read).toContain('"turns": 1');
    expect((await call(writer, 'fork_session', { id: 'no-such-session' })).isError).toBe(true);
    await writer.close();
  });
});

describe('sessions mcp over stdio', () => {
  it('serves the tools to the SDK client that started it, with the location options of every command', async () => {
    const { StdioClientTransport } = await import('@modelcontextprotocol/sdk/client/stdio.js');
    const transport = new StdioClientTransport({ command: process.execPath, args: [join(ROOT, 'bin', 'sessions.js'), 'mcp', '--home', home, '--no-cache'], env: { PATH: process.env.PATH ?? '', HOME: dir }, stderr: 'pipe' });
    const stdio = new Client({ name: 'test', version: '1' });
    await stdio.connect(transport);
    try {
      const found = parsed((await stdio.callTool({ name: 'search_sessions', arguments: { query: 'dark mode toggle', limit: 1 } })) as Reply);
      expect(found.sessions.map((s) => [s.agent, s.title])).toEqual([['codex', "Add a dark mode toggle to the settings page and keep the user's choice."]]);
      const read = (await stdio.callTool({ name: 'read_session', arguments: { id: found.sessions[0]!.id, from: 1, to: 1 } })) as Reply;
      expect(read.content[0]!.text).toContain('## turn 1\nuser');
      expect(read.content[0]!.text).toContain('Add a dark mode toggle');
    } finally {
      await stdio.close();
    }
  });
});
