// Issue 32: the real Claude Code and Codex, configured with `sessions mcp` on a home of fixture sessions (the sample
// home), call its tools when the stand-in asks (MCP_KEYWORD in the prompt); the tool results the agent sends back to
// the model in its next request are checked there: the right search results and the right window of a transcript.
import { cp, mkdir, mkdtemp, realpath, writeFile, appendFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { describeRun, PROJECT_ROOT, runProcess, type InteropAgent } from './agents.js';
import { DRIVERS, type Sandbox } from './drivers.js';
import { MCP_KEYWORD, startModelStandIn, TOOL_FINAL_TEXT, type ModelStandIn } from './model-stand-in.js';
import { AGENT_TIMEOUT_MS, SCRUBBED_ENV } from './round-trip.js';
import { removeSandbox } from './sandbox-cleanup.js';

const SESSIONS_BIN = join(PROJECT_ROOT, 'bin', 'sessions.js');
const targets = inject('interopTargets');
const AGENTS_HERE = ['claude', 'codex'] as const;
/** The sample home's sessions the tools must find and read. */
const DARK_MODE = { id: '01a223a8-8ffb-7661-944b-3c51ef05c9e1', title: 'Add a dark mode toggle to the settings page' };
const CHECKOUT = '3e88d315-7144-400c-90c6-61cb05f07877';

/** A tool result's text as the model reads it (Claude: a string or text parts; Codex: a string or content items). */
function resultText(raw: unknown): string {
  if (typeof raw === 'string') {
    try {
      return resultText(JSON.parse(raw));
    } catch {
      return raw;
    }
  }
  if (Array.isArray(raw)) return raw.map((part: { text?: unknown }) => (typeof part?.text === 'string' ? part.text : '')).join('\n');
  if (raw && typeof raw === 'object' && 'content' in raw) return resultText((raw as { content: unknown }).content);
  return JSON.stringify(raw);
}

/** The tool results a request body carries (Anthropic tool_result parts; Responses function_call_output items). */
function toolResults(body: unknown): string[] {
  const out: string[] = [];
  for (const message of (body as { messages?: { content?: unknown }[] }).messages ?? []) {
    if (Array.isArray(message.content)) for (const part of message.content as { type?: string; content?: unknown }[]) if (part.type === 'tool_result') out.push(resultText(part.content));
  }
  for (const item of (body as { input?: { type?: string; output?: unknown }[] }).input ?? []) {
    if (item.type === 'function_call_output') out.push(resultText(item.output));
  }
  return out;
}

for (const agent of AGENTS_HERE) {
  const pin = targets[agent];
  describe.skipIf(!pin?.available)(`${pin?.target.packageName}@${pin?.target.version} calls sessions mcp`, () => {
    const bin = pin?.available ? pin.bin : '';
    let standIn: ModelStandIn;
    let sandbox: Sandbox;
    let fixtures: string;
    let mcpConfig: string;

    beforeAll(async () => {
      standIn = await startModelStandIn();
      const root = await realpath(await mkdtemp(join(tmpdir(), `sessions-interop-mcp-${agent}-`)));
      const home = join(root, 'home');
      const base: Omit<Sandbox, 'env'> = { root, home, codexHome: join(home, '.codex'), claudeDir: join(home, '.claude'), copilotHome: join(home, '.copilot'), projects: join(root, 'projects'), sessionsConfig: join(root, 'sessions-config.json') };
      for (const dir of [base.codexHome, base.claudeDir, base.projects]) await mkdir(dir, { recursive: true });
      fixtures = join(root, 'fixtures');
      await cp(join(PROJECT_ROOT, 'examples', 'home'), fixtures, { recursive: true });
      const env: NodeJS.ProcessEnv = {};
      for (const [key, value] of Object.entries(process.env)) if (!SCRUBBED_ENV.test(key)) env[key] = value;
      Object.assign(env, { HOME: home, CODEX_HOME: base.codexHome, CLAUDE_CONFIG_DIR: base.claudeDir, XDG_CONFIG_HOME: join(home, '.config'), XDG_CACHE_HOME: join(home, '.cache'), SESSIONS_CONFIG: base.sessionsConfig, NO_COLOR: '1' });
      sandbox = { ...base, env };
      Object.assign(env, await DRIVERS[agent as InteropAgent].prepare(sandbox, standIn.origin));
      await writeFile(base.sessionsConfig, '{}\n');
      const args = [SESSIONS_BIN, 'mcp', '--home', fixtures, '--claw-dir', join(fixtures, 'src')];
      if (agent === 'claude') {
        // 2.1.330 offers MCP tools behind its ToolSearch (a model searches, then calls): the stand-in calls the tool
        // at once, so it is offered directly.
        env.ENABLE_TOOL_SEARCH = 'false';
        mcpConfig = join(root, 'mcp.json');
        await writeFile(mcpConfig, JSON.stringify({ mcpServers: { sessions: { type: 'stdio', command: process.execPath, args } } }));
      } else {
        await appendFile(join(base.codexHome, 'config.toml'), `\n[mcp_servers.sessions]\ncommand = ${JSON.stringify(process.execPath)}\nargs = ${JSON.stringify(args)}\n`);
      }
    });

    afterAll(async () => {
      await standIn?.close();
      if (sandbox && process.env.SESSIONS_INTEROP_KEEP !== '1') await removeSandbox(sandbox.root);
    });

    /** One prompt asking for `tool` with `args`: what the tool returned, as the agent sent it to the model. */
    async function ask(tool: string, args: Record<string, unknown>): Promise<string> {
      const prompt = `${MCP_KEYWORD} ${tool} ${JSON.stringify(args)}`;
      const argv =
        agent === 'claude'
          ? ['-p', '--output-format', 'json', '--mcp-config', mcpConfig, '--strict-mcp-config', `--allowedTools=mcp__sessions__${tool}`, prompt]
          : ['exec', '--json', '--skip-git-repo-check', '--dangerously-bypass-approvals-and-sandbox', prompt];
      const mark = standIn.requests.length;
      const result = await runProcess(bin, argv, { cwd: sandbox.projects, env: sandbox.env, timeoutMs: AGENT_TIMEOUT_MS });
      const requests = standIn.since(mark);
      const asked = requests.find((request) => request.reply === 'mcp');
      expect(asked, `the stand-in never asked for ${tool}: ${describeRun(agent, result)}\ntools offered: ${JSON.stringify(((requests[0]?.body as { tools?: { name?: string }[] }).tools ?? []).filter((t) => t.name?.startsWith("mcp") || t.name === undefined)).slice(0, 3000)}`).toBeDefined();
      const final = requests.find((request) => request.reply === 'tool-final');
      expect(final, describeRun(agent, result)).toBeDefined();
      expect(result.code, describeRun(agent, result)).toBe(0);
      expect(result.stdout).toContain(TOOL_FINAL_TEXT);
      const results = toolResults(final!.body);
      expect(results).toHaveLength(1);
      return results[0]!;
    }

    it('search_sessions: the fixture session that matches, by id', async () => {
      const text = await ask('search_sessions', { query: 'dark mode toggle', limit: 3 });
      // Codex puts `Wall time: …\nOutput:` before a tool's text.
      const found = JSON.parse(text.slice(text.indexOf('{'))) as { sessions: { id: string; agent: string; title: string }[] };
      expect(found.sessions[0]).toMatchObject({ id: DARK_MODE.id, agent: 'codex' });
      expect(found.sessions[0]!.title).toContain(DARK_MODE.title);
    });

    it('read_session: the window of turns asked for, and nothing else', async () => {
      const text = await ask('read_session', { id: CHECKOUT, from: 2, to: 2 });
      expect(text).toContain(`"id": "${CHECKOUT}"`);
      expect(text).toContain('## turn 2');
      expect(text).toContain('Fix it and add a regression test for a cart with a 10% code.');
      expect(text).not.toContain('## turn 1');
      expect(text).not.toContain('Checkout returns a 500 when the cart has a discount code. Can you find out why?\n');
    });

    it('a bad id comes back as a tool error the agent passes on, not a dead server', async () => {
      const text = await ask('read_session', { id: 'no-such-session-zz' });
      expect(text).toContain('no-such-session-zz');
    });
  });
}
