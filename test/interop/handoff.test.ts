import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readFile, realpath, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, inject, test } from 'vitest';
import { describeRun, PROJECT_ROOT, runProcess, type InteropAgent, type ProcessResult } from './agents.js';
import { DRIVERS, type ConversationItem, type Sandbox } from './drivers.js';
import { ANSWER_PREFIX, startModelStandIn, TOOL_FINAL_TEXT, TOOL_KEYWORD, type ModelStandIn, type RecordedRequest } from './model-stand-in.js';
import { AGENT_TIMEOUT_MS, SCRUBBED_ENV } from './round-trip.js';
import { ADAPTERS } from '../../src/core/formats/index.js';
import { removeSandbox } from './sandbox-cleanup.js';

/**
 * Issue 13: a conversation made by one real agent, handed off by `sessions fork --to` to another (Codex ↔ Claude
 * Code, Codex → Gemini CLI, Claude Code → Qwen Code, Codex ↔ Factory Droid), and resumed by that real agent against the loopback stand-in. The recorded request must hold turns 1-2's prompts and
 * answers in order, the tool call with its result, nothing of turn 3 on, and the target must append to the new
 * file. A hand-off the target refuses (non-zero exit, another session id) fails here.
 */

const SESSIONS_BIN = join(PROJECT_ROOT, 'bin', 'sessions.js');
const CLI_TIMEOUT_MS = 60_000;
const NOTE_OPENING = '[sessions] This conversation was handed off to';

interface ForkJson {
  readonly agent: string;
  readonly id: string;
  readonly path: string;
  readonly parentId: string;
  readonly parentAgent: string;
  readonly keptUserTurns: number;
  readonly resume: { readonly argv: readonly string[]; readonly cwd: string | null; readonly env: Record<string, string> };
}

interface ShownSession {
  readonly agent: string;
  readonly userTurns: number;
  readonly messages: { role: string; userTurn: boolean; blocks: { type: string; text?: string; name?: string; output?: string; toolUseId?: string; id?: string }[] }[];
}

const sha256 = (data: Buffer): string => createHash('sha256').update(data).digest('hex');

const targets = inject('interopTargets');
/** The agents of this suite, each with its binary when its pin is installed. */
const AGENTS_HERE = ['codex', 'claude', 'gemini', 'qwen', 'droid', 'pi'] as const;
const bins: Partial<Record<InteropAgent, string>> = {};
for (const agent of AGENTS_HERE) {
  const pin = targets[agent];
  if (pin?.available) bins[agent] = pin.bin;
}
const released = (agent: InteropAgent): string => `${targets[agent]?.target.packageName}@${targets[agent]?.target.version}`;
/** Ordered pairs: Codex ↔ Claude Code, and a source of each of them into Gemini CLI and Qwen Code. */
const PAIRS = [
  ['codex', 'claude'],
  ['claude', 'codex'],
  ['codex', 'gemini'],
  ['claude', 'qwen'],
  ['codex', 'droid'],
  ['codex', 'pi'],
] as const;

describe.skipIf(!PAIRS.some(([from, to]) => bins[from] && bins[to]))(`hand-off between ${AGENTS_HERE.map(released).join(', ')} (the real agents)`, () => {
  let sandbox: Sandbox;
  let standIn: ModelStandIn;
  let failed = false;

  beforeAll(async () => {
    standIn = await startModelStandIn();
    const root = await realpath(await mkdtemp(join(tmpdir(), 'sessions-interop-handoff-')));
    const home = join(root, 'home');
    const base: Omit<Sandbox, 'env'> = {
      root,
      home,
      codexHome: join(home, '.codex'),
      claudeDir: join(home, '.claude'),
      copilotHome: join(home, '.copilot'),
      projects: join(root, 'projects'),
      sessionsConfig: join(root, 'sessions-config.json'),
    };
    for (const dir of [base.codexHome, base.claudeDir, base.projects]) await mkdir(dir, { recursive: true });
    const env: NodeJS.ProcessEnv = {};
    for (const [key, value] of Object.entries(process.env)) if (!SCRUBBED_ENV.test(key)) env[key] = value;
    Object.assign(env, {
      HOME: home,
      CODEX_HOME: base.codexHome,
      CLAUDE_CONFIG_DIR: base.claudeDir,
      XDG_CONFIG_HOME: join(home, '.config'),
      XDG_CACHE_HOME: join(home, '.cache'),
      XDG_DATA_HOME: join(home, '.local', 'share'),
      XDG_STATE_HOME: join(home, '.local', 'state'),
      SESSIONS_CONFIG: base.sessionsConfig,
      NO_COLOR: '1',
    });
    sandbox = { ...base, env };
    // Every agent in one world: each finds the others' hand-offs in its own home.
    for (const agent of AGENTS_HERE) if (bins[agent]) Object.assign(env, await DRIVERS[agent].prepare(sandbox, standIn.origin));
    await writeFile(base.sessionsConfig, '{}\n');
  });

  beforeEach(({ onTestFailed }) => {
    onTestFailed(() => {
      failed = true;
    });
  });

  afterAll(async () => {
    await standIn?.close();
    if (!sandbox) return;
    if (failed || process.env.SESSIONS_INTEROP_KEEP === '1') {
      const lines = (standIn?.requests ?? []).map((request) => JSON.stringify({ seq: request.seq, path: request.path, reply: request.reply, body: request.body }));
      await writeFile(join(sandbox.root, 'stand-in-requests.jsonl'), `${lines.join('\n')}\n`);
      process.stderr.write(`[interop] kept the hand-off sandbox (and the stand-in's requests): ${sandbox.root}\n`);
    } else {
      await removeSandbox(sandbox.root);
    }
  });

  async function runAgent(agent: InteropAgent, args: readonly string[], cwd: string, label: string): Promise<ProcessResult> {
    const result = await runProcess(bins[agent]!, args, { cwd, env: sandbox.env, timeoutMs: AGENT_TIMEOUT_MS });
    if (result.timedOut || result.code !== 0) throw new Error(describeRun(`${agent} ${label}`, result));
    return result;
  }

  async function sessionsJson<T>(args: readonly string[]): Promise<T> {
    const result = await runProcess(process.execPath, [SESSIONS_BIN, ...args], { cwd: sandbox.root, env: sandbox.env, timeoutMs: CLI_TIMEOUT_MS });
    expect(result.code, describeRun(`sessions ${args.join(' ')}`, result)).toBe(0);
    return JSON.parse(result.stdout) as T;
  }

  /** A session made by the real agent: a new session with the first prompt, one resumed turn per further prompt. */
  async function generate(agent: InteropAgent, cwd: string, prompts: readonly string[]): Promise<{ id: string; path: string }> {
    const driver = DRIVERS[agent];
    const before = await driver.sessionFiles(sandbox);
    const first = await runAgent(agent, driver.newSessionArgs(prompts[0]!), cwd, 'new session');
    const id = driver.reportedSessionId(first.stdout);
    if (!id) throw new Error(`${agent} reported no session id:\n${describeRun(agent, first)}`);
    for (const prompt of prompts.slice(1)) {
      const resumed = await runAgent(agent, driver.resumeArgs(id, prompt), cwd, `resume ${id}`);
      expect(driver.reportedSessionId(resumed.stdout)).toBe(id);
    }
    const created = (await driver.sessionFiles(sandbox)).filter((path) => !before.includes(path));
    expect(created, `${agent} wrote one file for its session`).toHaveLength(1);
    expect(basename(created[0]!)).toContain(id);
    return { id, path: created[0]! };
  }

  for (const [from, to] of PAIRS) {
    test.skipIf(!bins[from] || !bins[to])(`${from} → ${to}: sessions fork --at 3 --to ${to}, resumed by the real ${to} with turns 1-2, the tool call paired with its result, nothing of turn 3`, async () => {
      const tag = `zqhandoff-${from}-to-${to}`;
      const prompts = [
        `${tag}-t1 What does the alpha project do?`,
        `${tag}-t2 ${TOOL_KEYWORD}: show me what the tool prints.`,
        `${tag}-t3 ${TOOL_KEYWORD}: run it once more.`,
        `${tag}-t4 Now write a test for it.`,
      ];
      const cwd = join(sandbox.projects, `${from}-to-${to} ü`);
      await mkdir(cwd, { recursive: true });
      const source = await generate(from, cwd, prompts);
      const sourceBefore = await readFile(source.path);
      const sourceShown = await sessionsJson<ShownSession>(['show', source.id, '--format', 'json', '--home', sandbox.home]);
      // The source has tool calls at turns 2 and 3 (the stand-in asks for one on every TOOL_KEYWORD prompt).
      expect(sourceShown.messages.flatMap((m) => m.blocks).filter((b) => b.type === 'tool_use')).toHaveLength(2);

      const targetDriver = DRIVERS[to];
      const filesBefore = await targetDriver.sessionFiles(sandbox);
      const fork = await sessionsJson<ForkJson>(['fork', source.id, '--at', '3', '--to', to, '--json', '--home', sandbox.home]);
      expect(fork).toMatchObject({ agent: to, parentId: source.id, parentAgent: from, keptUserTurns: 2 });
      expect(fork.resume.cwd).toBe(cwd);
      expect(fork.resume.argv).toContain(fork.id);
      expect((await targetDriver.sessionFiles(sandbox)).filter((path) => !filesBefore.includes(path)), `the hand-off is one new file in ${to}'s home`).toEqual([fork.path]);
      expect(sha256(await readFile(source.path)), 'the source file is untouched').toBe(sha256(sourceBefore));

      // sessions show reads the new session back with the source's first two turns.
      const shown = await sessionsJson<ShownSession>(['show', fork.id, '--format', 'json', '--home', sandbox.home]);
      const turnTexts = (s: ShownSession): string[] => s.messages.filter((m) => m.userTurn).map((m) => m.blocks.filter((b) => b.type === 'text').map((b) => b.text).join('\n'));
      expect(shown.agent).toBe(to);
      expect(turnTexts(shown)).toEqual(prompts.slice(0, 2));

      // The real target agent resumes the hand-off, in the session's cwd.
      const handoffBytes = await readFile(fork.path);
      const newPrompt = `${tag}-new-t3 Instead, explain the error handling.`;
      const mark = standIn.requests.length;
      const resumed = await runAgent(to, targetDriver.resumeArgs(fork.id, newPrompt), fork.resume.cwd ?? cwd, `resume of the hand-off ${fork.id}`);
      expect(targetDriver.reportedSessionId(resumed.stdout), `${to} continued the hand-off under its own id`).toBe(fork.id);

      const requests: RecordedRequest[] = targetDriver.turnRequests(standIn.since(mark));
      expect(requests.length, `${to} asked the model`).toBeGreaterThan(0);
      const sent = targetDriver.conversation(requests[0]!.body);
      // Codex sends the note as a developer message. Claude Code sends it (a meta line) in the same user message as the
      // first prompt; so do Gemini CLI (a user message) and Qwen Code (a notification record): both join consecutive
      // user contents into one. Droid sends its hidden context message (the note) as a user message of its own.
      const opening = openingFor(to, prompts[0]!);
      expect(sent, `the history ${to} sent for the hand-off: turns 1-2 in order, the call paired with its result, then the new prompt`).toEqual([
        ...opening,
        { kind: 'assistant', text: ANSWER_PREFIX + prompts[0] },
        { kind: 'user', text: prompts[1]! },
        { kind: 'tool_call', name: DRIVERS[from].toolName },
        { kind: 'tool_result', text: expect.stringContaining('interop-tool-ran') as unknown as string },
        { kind: 'assistant', text: TOOL_FINAL_TEXT },
        { kind: 'user', text: newPrompt },
      ]);
      expect(requests[0]!.raw, 'the note naming the source reached the model').toContain(`${NOTE_OPENING} ${ADAPTERS[to].label} from ${ADAPTERS[from].label} session ${source.id}`);
      expect(pairedIds(to, requests[0]!.body), 'every tool call id has its result right after it').toEqual({ calls: 1, paired: true });
      for (const request of requests) {
        for (const dropped of [`${tag}-t3`, `${tag}-t4`]) {
          expect(request.raw.includes(dropped), `request #${request.seq} must carry nothing from turn 3 on (found ${dropped})`).toBe(false);
        }
      }

      expect(await targetDriver.sessionFiles(sandbox), `resuming the hand-off creates no other ${to} file`).toEqual([...filesBefore, fork.path].sort());
      const after = await readFile(fork.path);
      expect(after.length, `${to} appended to the hand-off file`).toBeGreaterThan(handoffBytes.length);
      expect(sha256(after.subarray(0, handoffBytes.length)), 'the hand-off kept its bytes; the agent only appended').toBe(sha256(handoffBytes));
      expect(after.subarray(handoffBytes.length).toString('utf8')).toContain(newPrompt);
      const afterShown = await sessionsJson<ShownSession>(['show', fork.id, '--format', 'json', '--home', sandbox.home]);
      expect(turnTexts(afterShown)).toEqual([...prompts.slice(0, 2), newPrompt]);
    });
  }

  // Issue 27, 3 and issue 28, 5: `sessions fork ID --to AGENT` with no --at hands off every turn.
  for (const [from, to] of [
    ['claude', 'codex'],
    ['codex', 'claude'],
    ['codex', 'droid'],
    ['droid', 'claude'],
    ['codex', 'pi'],
    ['pi', 'claude'],
  ] as const) {
    test.skipIf(!bins[from] || !bins[to])(`${from} → ${to}: sessions fork --to ${to} with no --at, resumed by the real ${to} with every turn`, async () => {
      const tag = `zqwhole-${from}-to-${to}`;
      const prompts = [`${tag}-t1 What does the alpha project do?`, `${tag}-t2 ${TOOL_KEYWORD}: show me what the tool prints.`, `${tag}-t3 Now write a test for it.`];
      const cwd = join(sandbox.projects, `whole ${from}-to-${to}`);
      await mkdir(cwd, { recursive: true });
      const source = await generate(from, cwd, prompts);
      const fork = await sessionsJson<ForkJson>(['fork', source.id, '--to', to, '--json', '--home', sandbox.home]);
      expect(fork).toMatchObject({ agent: to, parentId: source.id, parentAgent: from, keptUserTurns: 3 });
      const newPrompt = `${tag}-new-t4 And what is left to do?`;
      const mark = standIn.requests.length;
      const targetDriver = DRIVERS[to];
      const resumed = await runAgent(to, targetDriver.resumeArgs(fork.id, newPrompt), fork.resume.cwd ?? cwd, `resume of the whole hand-off ${fork.id}`);
      expect(targetDriver.reportedSessionId(resumed.stdout)).toBe(fork.id);
      const requests = targetDriver.turnRequests(standIn.since(mark));
      const sent = targetDriver.conversation(requests[0]!.body);
      const opening = openingFor(to, prompts[0]!);
      expect(sent, `every turn of the ${from} session, then the new prompt`).toEqual([
        ...opening,
        { kind: 'assistant', text: ANSWER_PREFIX + prompts[0] },
        { kind: 'user', text: prompts[1]! },
        { kind: 'tool_call', name: DRIVERS[from].toolName },
        { kind: 'tool_result', text: expect.stringContaining('interop-tool-ran') as unknown as string },
        { kind: 'assistant', text: TOOL_FINAL_TEXT },
        { kind: 'user', text: prompts[2]! },
        { kind: 'assistant', text: ANSWER_PREFIX + prompts[2] },
        { kind: 'user', text: newPrompt },
      ]);
      expect(requests[0]!.raw).toContain(`${NOTE_OPENING} ${ADAPTERS[to].label} from ${ADAPTERS[from].label} session ${source.id}`);
    });
  }
});

/** What a target sends the model before the second item of a hand-off: the note and the first prompt, as the target joins them. */
function openingFor(to: InteropAgent, firstPrompt: string): ConversationItem[] {
  if (to === 'codex') return [{ kind: 'user', text: firstPrompt }];
  const note = expect.stringMatching(new RegExp(`^${escape(NOTE_OPENING)}`)) as unknown as string;
  // Droid and pi send the note as a user message of their own, before the first prompt's (pi: a custom_message).
  if (to === 'droid' || to === 'pi') return [{ kind: 'user', text: note }, { kind: 'user', text: firstPrompt }];
  return [{ kind: 'user', text: expect.stringMatching(new RegExp(`^${escape(NOTE_OPENING)}[^\\n]*\\n+${escape(firstPrompt)}$`)) as unknown as string }];
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Tool calls in a request and whether each is followed at once by its result (same id). */
function pairedIds(agent: InteropAgent, body: unknown): { calls: number; paired: boolean } {
  let calls = 0;
  let paired = true;
  if (agent === 'codex') {
    const input = ((body as { input?: { type?: string; call_id?: string }[] }).input ?? []).filter((item) => item.type !== 'reasoning');
    input.forEach((item, index) => {
      if (item.type !== 'function_call') return;
      calls++;
      const next = input[index + 1];
      if (next?.type !== 'function_call_output' || next.call_id !== item.call_id) paired = false;
    });
  } else if (agent === 'gemini') {
    // A model content's function calls, answered by the next (user) content's function responses of the same ids.
    const contents = (body as { contents?: { role?: string; parts?: { functionCall?: { id?: string }; functionResponse?: { id?: string } }[] }[] }).contents ?? [];
    contents.forEach((content, index) => {
      for (const part of content.parts ?? []) {
        if (!part.functionCall) continue;
        calls++;
        const next = contents[index + 1];
        if (next?.role !== 'user' || !(next.parts ?? []).some((p) => p.functionResponse?.id === part.functionCall!.id)) paired = false;
      }
    });
  } else if (agent === 'qwen' || agent === 'droid' || agent === 'pi') {
    // Chat completions: an assistant message's tool_calls, each answered by one of the tool messages right after it.
    const messages = (body as { messages?: { role?: string; tool_calls?: { id?: string }[]; tool_call_id?: string }[] }).messages ?? [];
    messages.forEach((message, index) => {
      for (const toolCall of message.tool_calls ?? []) {
        calls++;
        const answers: string[] = [];
        for (let next = index + 1; messages[next]?.role === 'tool'; next++) answers.push(messages[next]!.tool_call_id ?? '');
        if (!answers.includes(toolCall.id ?? '')) paired = false;
      }
    });
  } else {
    const messages = (body as { messages?: { role?: string; content?: unknown }[] }).messages ?? [];
    const conversation = messages.filter((message) => message.role !== 'system');
    conversation.forEach((message, index) => {
      const uses = Array.isArray(message.content) ? (message.content as { type?: string; id?: string }[]).filter((part) => part.type === 'tool_use') : [];
      for (const use of uses) {
        calls++;
        const next = conversation[index + 1];
        const results = Array.isArray(next?.content) ? (next.content as { type?: string; tool_use_id?: string }[]) : [];
        if (next?.role !== 'user' || !results.some((part) => part.type === 'tool_result' && part.tool_use_id === use.id)) paired = false;
      }
    });
  }
  return { calls, paired };
}
