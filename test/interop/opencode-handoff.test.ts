// Issue 13, opencode as the target: a 4-turn session made by the real Codex CLI (tool calls at turns 2 and 3) handed
// to opencode by `sessions fork --at 3 --to opencode`, then resumed by the real opencode against the loopback stand-in.
// opencode keeps every session in one SQLite database, so "appended to the new session" is checked on its rows.
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readFile, realpath, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, inject, test } from 'vitest';
import { ADAPTERS } from '../../src/core/formats/index.js';
import { describeRun, PROJECT_ROOT, runProcess, type ProcessResult } from './agents.js';
import { codexDriver, qwenDriver, type ConversationItem, type Sandbox } from './drivers.js';
import { ANSWER_PREFIX, startModelStandIn, TOOL_FINAL_TEXT, TOOL_KEYWORD, type ModelStandIn, type RecordedRequest } from './model-stand-in.js';
import { opencodeSandboxEnv } from './opencode-config.js';
import { AGENT_TIMEOUT_MS, SCRUBBED_ENV } from './round-trip.js';
import { removeSandbox } from './sandbox-cleanup.js';

const SESSIONS_BIN = join(PROJECT_ROOT, 'bin', 'sessions.js');
const NOTE_OPENING = '[sessions] This conversation was handed off to';
const targets = inject('interopTargets');
const codexPin = targets.codex;
const opencodePin = targets.opencode;
const available = codexPin?.available === true && opencodePin?.available === true;

/** `opencode run` quotes a message word that holds a space (it joins its arguments into one message). */
const asRecorded = (prompt: string): string => `"${prompt}"`;

interface ShownSession {
  readonly agent: string;
  readonly forkedFrom: string | null;
  readonly messages: { role: string; userTurn: boolean; blocks: { type: string; text?: string; name?: string; output?: string }[] }[];
}

describe.skipIf(!available)(`hand-off from ${codexPin?.target.packageName}@${codexPin?.target.version} to ${opencodePin?.target.packageName}@${opencodePin?.target.version} (the real agents)`, () => {
  const codexBin = codexPin?.available ? codexPin.bin : '';
  const opencodeBin = opencodePin?.available ? opencodePin.bin : '';
  let root: string;
  let home: string;
  let db: string;
  let sandbox: Sandbox;
  let standIn: ModelStandIn;
  let failed = false;
  // Made in beforeAll by the real agents: opencode's own earlier session, and the Codex session handed off.
  let earlier: string;
  let earlierRows: Map<string, string>;
  let sourceId: string;
  let cwd: string;
  const tag = 'zqhandoff-codex-to-opencode';
  const prompts = [`${tag}-t1 What does the alpha project do?`, `${tag}-t2 ${TOOL_KEYWORD}: show me what the tool prints.`, `${tag}-t3 ${TOOL_KEYWORD}: run it once more.`, `${tag}-t4 Now write a test for it.`];

  beforeAll(async () => {
    standIn = await startModelStandIn();
    root = await realpath(await mkdtemp(join(tmpdir(), 'sessions-interop-opencode-handoff-')));
    home = join(root, 'home');
    db = join(home, '.local', 'share', 'opencode', 'opencode.db');
    const base: Omit<Sandbox, 'env'> = {
      root,
      home,
      codexHome: join(home, '.codex'),
      claudeDir: join(home, '.claude'),
      copilotHome: join(home, '.copilot'),
      projects: join(root, 'projects'),
      sessionsConfig: join(root, 'sessions-config.json'),
    };
    for (const dir of [base.codexHome, base.projects]) await mkdir(dir, { recursive: true });
    const env: NodeJS.ProcessEnv = {};
    for (const [key, value] of Object.entries(process.env)) if (!SCRUBBED_ENV.test(key) && !key.startsWith('OPENCODE')) env[key] = value;
    // Nothing of the machine's: HOME and every XDG folder are in the sandbox (never the real ~/.local/share/opencode).
    Object.assign(env, opencodeSandboxEnv(home, standIn.origin), { CODEX_HOME: base.codexHome, SESSIONS_CONFIG: base.sessionsConfig, NO_COLOR: '1' });
    sandbox = { ...base, env };
    Object.assign(env, await codexDriver.prepare(sandbox, standIn.origin));
    await writeFile(base.sessionsConfig, '{}\n');
    try {
      // opencode makes its database (and its schema) itself: a user who hands a session to opencode has run it before.
      const elsewhere = join(sandbox.projects, 'elsewhere');
      await mkdir(elsewhere, { recursive: true });
      earlier = await opencode(['zqopencode-handoff-earlier A session of opencode own, in another folder.'], elsewhere, 'earlier session');
      earlierRows = rowsOf(earlier);
      // The source: 4 turns by the real Codex CLI, tool calls at turns 2 and 3.
      cwd = join(sandbox.projects, 'codex-to-opencode ü');
      await mkdir(cwd, { recursive: true });
      const first = await run(codexBin, codexDriver.newSessionArgs(prompts[0]!), cwd, 'codex new session');
      const id = codexDriver.reportedSessionId(first.stdout);
      if (!id) throw new Error(describeRun('codex reported no session id', first));
      sourceId = id;
      for (const prompt of prompts.slice(1)) {
        const resumed = codexDriver.reportedSessionId((await run(codexBin, codexDriver.resumeArgs(sourceId, prompt), cwd, `codex resume ${sourceId}`)).stdout);
        if (resumed !== sourceId) throw new Error(`codex resume ${sourceId} continued ${resumed}`);
      }
    } catch (error) {
      failed = true;
      throw error;
    }
  }, 6 * AGENT_TIMEOUT_MS);

  afterAll(async () => {
    await standIn?.close();
    if (!root) return;
    if (failed || process.env.SESSIONS_INTEROP_KEEP === '1') {
      const lines = (standIn?.requests ?? []).map((request) => JSON.stringify({ seq: request.seq, path: request.path, body: request.body }));
      await writeFile(join(root, 'stand-in-requests.jsonl'), `${lines.join('\n')}\n`);
      process.stderr.write(`[interop] kept the opencode hand-off sandbox (and the stand-in's requests): ${root}\n`);
    } else {
      await removeSandbox(root);
    }
  });

  async function run(bin: string, args: readonly string[], cwd: string, label: string, extraEnv: NodeJS.ProcessEnv = {}): Promise<ProcessResult> {
    const result = await runProcess(bin, args, { cwd, env: { ...sandbox.env, ...extraEnv }, timeoutMs: AGENT_TIMEOUT_MS });
    if (result.timedOut || result.code !== 0) throw new Error(describeRun(label, result));
    return result;
  }

  /** `opencode run --format json ARGS` in `cwd`, and the session id its events name. */
  async function opencode(args: readonly string[], cwd: string, label: string): Promise<string> {
    // PWD as a shell sets it: opencode (Bun) records PWD as the session's directory, not getcwd().
    const result = await run(opencodeBin, ['run', '--format', 'json', ...args], cwd, `opencode ${label}`, { PWD: cwd });
    for (const line of result.stdout.split('\n')) {
      try {
        const event = JSON.parse(line) as { sessionID?: unknown };
        if (typeof event.sessionID === 'string') return event.sessionID;
      } catch {
        // not an event line
      }
    }
    throw new Error(describeRun(`opencode ${label} reported no session`, result));
  }

  async function sessionsJson<T>(args: readonly string[]): Promise<T> {
    const result = await runProcess(process.execPath, [SESSIONS_BIN, ...args], { cwd: root, env: sandbox.env, timeoutMs: 60_000 });
    expect(result.code, describeRun(`sessions ${args.join(' ')}`, result)).toBe(0);
    return JSON.parse(result.stdout) as T;
  }

  function query<T>(sql: string, ...args: unknown[]): T[] {
    const handle = new Database(db, { readonly: true });
    try {
      return handle.prepare(sql).all(...args) as T[];
    } finally {
      handle.close();
    }
  }

  /** The rows of one session as they are now, by id: what "opencode only appended" is checked against. */
  function rowsOf(id: string): Map<string, string> {
    const rows = new Map<string, string>();
    for (const row of query<{ id: string; data: string }>('SELECT id, data FROM message WHERE session_id = ?', id)) rows.set(row.id, row.data);
    for (const row of query<{ id: string; data: string }>('SELECT id, data FROM part WHERE session_id = ?', id)) rows.set(row.id, row.data);
    return rows;
  }

  const sessionIds = (): string[] => query<{ id: string }>('SELECT id FROM session ORDER BY id').map((row) => row.id);
  const sha256 = (data: Buffer): string => createHash('sha256').update(data).digest('hex');
  const turnTexts = (shown: ShownSession): string[] => shown.messages.filter((m) => m.userTurn).map((m) => m.blocks.filter((b) => b.type === 'text').map((b) => b.text).join('\n'));
  /** opencode's conversation requests: its agent sends its tools (title generation sends none). */
  const turnRequests = (requests: readonly RecordedRequest[]): RecordedRequest[] =>
    requests.filter((request) => request.method === 'POST' && request.path.endsWith('/chat/completions') && Array.isArray((request.body as { tools?: unknown } | null)?.tools));

  test('codex → opencode: sessions fork --at 3 --to opencode, resumed by the real opencode with turns 1-2, the tool call paired with its result, nothing of turn 3', async () => {
    try {
      const source = await sessionsJson<ShownSession & { path: string }>(['show', sourceId, '--format', 'json', '--home', home]);
      // Tool calls at turns 2 and 3 (the stand-in asks for one on every TOOL_KEYWORD prompt).
      expect(source.messages.flatMap((m) => m.blocks).filter((b) => b.type === 'tool_use')).toHaveLength(2);
      const sourceBytes = await readFile(source.path);

      const before = sessionIds();
      const fork = await sessionsJson<{ agent: string; id: string; path: string; parentId: string; parentAgent: string; keptUserTurns: number; resume: { argv: string[]; cwd: string | null; env: Record<string, string> } }>([
        'fork', sourceId, '--at', '3', '--to', 'opencode', '--json', '--home', home,
      ]);
      expect(fork).toMatchObject({ agent: 'opencode', path: db, parentId: sourceId, parentAgent: 'codex', keptUserTurns: 2 });
      expect(fork.id).toMatch(/^ses_/);
      expect(fork.resume.cwd).toBe(cwd);
      expect(fork.resume.argv).toEqual(['opencode', '-s', fork.id]);
      expect(sessionIds().sort(), 'the hand-off is one new session in opencode.db').toEqual([...before, fork.id].sort());
      expect(rowsOf(earlier), "opencode's other session is untouched").toEqual(earlierRows);
      expect(sha256(await readFile(source.path)), 'the source file is untouched').toBe(sha256(sourceBytes));

      // sessions show reads the new session back with the source's first two turns and the call with its result.
      const shown = await sessionsJson<ShownSession>(['show', fork.id, '--format', 'json', '--home', home]);
      expect(shown).toMatchObject({ agent: 'opencode', forkedFrom: sourceId });
      expect(turnTexts(shown)).toEqual(prompts.slice(0, 2));
      const blocks = shown.messages.flatMap((m) => m.blocks);
      expect(blocks.filter((b) => b.type === 'tool_use').map((b) => b.name)).toEqual([codexDriver.toolName]);
      expect(blocks.filter((b) => b.type === 'tool_result').map((b) => b.output)).toEqual([expect.stringContaining('interop-tool-ran')]);
      expect(blocks.some((b) => b.type === 'reasoning'), 'reasoning is dropped').toBe(false);

      // The real opencode resumes the hand-off, in the session's cwd.
      const handedOff = rowsOf(fork.id);
      const newPrompt = `${tag}-new-t3 Instead, explain the error handling.`;
      const mark = standIn.requests.length;
      expect(await opencode(['-s', fork.id, newPrompt], fork.resume.cwd ?? cwd, `resume of the hand-off ${fork.id}`), 'opencode continued the hand-off under its own id').toBe(fork.id);

      const requests = turnRequests(standIn.since(mark));
      expect(requests.length, 'opencode asked the model').toBeGreaterThan(0);
      const sent = qwenDriver.conversation(requests[0]!.body);
      // The note is a user message of its own (a synthetic part), before prompt 1.
      expect(sent, 'the history opencode sent for the hand-off: the note, turns 1-2 in order, the call paired with its result, then the new prompt').toEqual([
        { kind: 'user', text: expect.stringMatching(new RegExp(`^${escape(NOTE_OPENING)} opencode from ${escape(ADAPTERS.codex.label)} session ${sourceId}: `)) as unknown as string },
        { kind: 'user', text: prompts[0]! },
        { kind: 'assistant', text: ANSWER_PREFIX + prompts[0] },
        { kind: 'user', text: prompts[1]! },
        { kind: 'tool_call', name: codexDriver.toolName },
        { kind: 'tool_result', text: expect.stringContaining('interop-tool-ran') as unknown as string },
        { kind: 'assistant', text: TOOL_FINAL_TEXT },
        { kind: 'user', text: asRecorded(newPrompt) },
      ] satisfies ConversationItem[]);
      expect(pairedCalls(requests[0]!.body), 'every tool call id is answered by a tool message right after it').toEqual({ calls: 1, paired: true });
      for (const request of requests) {
        for (const dropped of [`${tag}-t3`, `${tag}-t4`]) expect(request.raw.includes(dropped), `request #${request.seq} must carry nothing from turn 3 on (found ${dropped})`).toBe(false);
      }

      // opencode appended to the hand-off: no other session, the hand-off's rows unchanged, the new turn in it.
      expect(sessionIds().sort(), 'resuming the hand-off makes no new session').toEqual([...before, fork.id].sort());
      const after = rowsOf(fork.id);
      for (const [id, data] of handedOff) expect(after.get(id), `row ${id} of the hand-off is unchanged`).toBe(data);
      const added = [...after].filter(([id]) => !handedOff.has(id)).map(([, data]) => data);
      expect(added.some((data) => data.includes(newPrompt)), 'the new prompt is a row of the hand-off').toBe(true);
      const afterShown = await sessionsJson<ShownSession>(['show', fork.id, '--format', 'json', '--home', home]);
      expect(turnTexts(afterShown)).toEqual([...prompts.slice(0, 2), asRecorded(newPrompt)]);
    } catch (error) {
      failed = true;
      throw error;
    }
  }, 3 * AGENT_TIMEOUT_MS);
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Chat Completions: each assistant tool call answered by one of the tool messages right after it (same id). */
function pairedCalls(body: unknown): { calls: number; paired: boolean } {
  const messages = (body as { messages?: { role?: string; tool_calls?: { id?: string }[]; tool_call_id?: string }[] }).messages ?? [];
  let calls = 0;
  let paired = true;
  messages.forEach((message, index) => {
    for (const call of message.tool_calls ?? []) {
      calls++;
      const answers: string[] = [];
      for (let next = index + 1; messages[next]?.role === 'tool'; next++) answers.push(messages[next]!.tool_call_id ?? '');
      if (!answers.includes(call.id ?? '')) paired = false;
    }
  });
  return { calls, paired };
}
