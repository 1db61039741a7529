// Auggie (@augmentcode/auggie, pinned in agents.ts) against the loopback stand-in of Augment's backend
// (augment-backend.ts), its login skipped with a fake AUGMENT_SESSION_AUTH (auggie-config.ts). Auggie rewrites its
// whole session file on every turn, so where the file-based suites check that an agent only appended, this one
// checks that the exchanges already there are unchanged and the new one follows them. It also hands a whole Codex
// session to Auggie and a whole Auggie session to Claude Code, each resumed by the real target.
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readdir, readFile, realpath, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, inject, test } from 'vitest';
import { ADAPTERS } from '../../src/core/formats/index.js';
import { describeRun, PROJECT_ROOT, runProcess, type ProcessResult } from './agents.js';
import { auggiePrintArgs, auggieReportedSessionId, auggieSandboxEnv } from './auggie-config.js';
import { AUGGIE_SHELL_TOOL } from './augment-backend.js';
import { claudeDriver, codexDriver, type ConversationItem, type Sandbox } from './drivers.js';
import { ANSWER_PREFIX, startModelStandIn, TOOL_FINAL_TEXT, TOOL_KEYWORD, type ModelStandIn, type RecordedRequest } from './model-stand-in.js';
import { AGENT_TIMEOUT_MS, SCRUBBED_ENV } from './round-trip.js';
import { removeSandbox } from './sandbox-cleanup.js';

const SESSIONS_BIN = join(PROJECT_ROOT, 'bin', 'sessions.js');
const NOTE_OPENING = '[sessions] This conversation was handed off to';
const targets = inject('interopTargets');
const availability = targets.auggie;
if (availability === undefined) throw new Error('no interop target auggie (test/interop/agents.ts)');
const pin = availability.target;
const codexBin = targets.codex?.available ? targets.codex.bin : null;
const claudeBin = targets.claude?.available ? targets.claude.bin : null;

interface ListRow {
  readonly id: string;
  readonly agent: string;
  readonly path: string;
  readonly cwd: string | null;
  readonly title: string;
  readonly userTurns: number;
  readonly firstPrompt: string | null;
  readonly lastPrompt: string | null;
  readonly forkedFrom: string | null;
}

interface ShownSession {
  readonly agent: string;
  readonly forkedFrom: string | null;
  readonly messages: { role: string; userTurn: boolean; blocks: { type: string; text?: string; name?: string; output?: string }[] }[];
}

interface ForkJson {
  readonly agent: string;
  readonly id: string;
  readonly path: string;
  readonly parentId: string;
  readonly parentAgent?: string;
  readonly keptUserTurns: number;
  readonly resume: { argv: string[]; cwd: string | null; env?: Record<string, string> };
}

interface AugmentNode {
  readonly type?: number;
  readonly content?: string;
  readonly text_node?: { content?: string };
  readonly tool_result_node?: { content?: string };
  readonly tool_use?: { tool_name?: string };
}

interface AugmentExchange {
  readonly request_message?: string;
  readonly request_nodes?: AugmentNode[];
  readonly response_nodes?: AugmentNode[];
}

/** A request's side of an exchange as conversation items: its text nodes (the prompt, a note), its tool results. */
function requestItems(nodes: readonly AugmentNode[], message = ''): ConversationItem[] {
  const items: ConversationItem[] = [];
  for (const node of nodes) {
    if (node.type === 0 && typeof node.text_node?.content === 'string') items.push({ kind: 'user', text: node.text_node.content });
    else if (node.type === 1) items.push({ kind: 'tool_result', text: node.tool_result_node?.content ?? '' });
  }
  return items.length === 0 && message !== '' ? [{ kind: 'user', text: message }] : items;
}

/** An answer's side: its text (the streamed text nodes), its tool calls; thinking left aside. */
function responseItems(nodes: readonly AugmentNode[]): ConversationItem[] {
  const items: ConversationItem[] = [];
  for (const node of nodes) {
    if (node.type === 0 && typeof node.content === 'string') {
      const last = items.at(-1);
      if (last?.kind === 'assistant') items[items.length - 1] = { kind: 'assistant', text: last.text + node.content };
      else items.push({ kind: 'assistant', text: node.content });
    } else if (node.type === 5) items.push({ kind: 'tool_call', name: node.tool_use?.tool_name ?? '' });
  }
  return items;
}

/** The conversation one `/chat-stream` request carries: its chat history, then its own nodes. */
function sentConversation(request: RecordedRequest): ConversationItem[] {
  const body = request.body as { chat_history?: AugmentExchange[]; nodes?: AugmentNode[] };
  const items: ConversationItem[] = [];
  for (const exchange of body.chat_history ?? []) items.push(...requestItems(exchange.request_nodes ?? [], exchange.request_message), ...responseItems(exchange.response_nodes ?? []));
  items.push(...requestItems(body.nodes ?? []));
  return items;
}

/** Auggie's conversation requests (a silent one, such as a title, is not the conversation). */
const turnRequests = (requests: readonly RecordedRequest[]): RecordedRequest[] =>
  requests.filter((request) => request.method === 'POST' && request.path === '/chat-stream' && (request.body as { silent?: unknown } | null)?.silent !== true);

const sha256 = (data: Buffer): string => createHash('sha256').update(data).digest('hex');

describe.skipIf(!availability.available)(`${pin.packageName}@${pin.version} (the real agent) round trips through sessions`, () => {
  const bin = availability.available ? availability.bin : '';
  let root: string;
  let sandbox: Sandbox;
  let standIn: ModelStandIn;
  let failed = false;
  let mainId: string;
  let mainPath: string;
  let mainBefore: string;
  let cwd: string;
  const prompts = ['zqauggie-main-t1 What does the alpha project do?', `zqauggie-main-t2 ${TOOL_KEYWORD}: show me what the tool prints.`, 'zqauggie-main-t3 Add a health check endpoint.'];

  const sessionsDir = (): string => join(sandbox.home, '.augment', 'sessions');
  const sessionFiles = async (): Promise<string[]> => (await readdir(sessionsDir())).filter((name) => name.endsWith('.json')).sort();
  /**
   * The exchanges of a session file, in order: the requests and answers themselves. Auggie annotates the entries
   * around them when it saves a resumed session (`isHistorySummary: false`, `historySummaryVersion: 0` on the last
   * one), so "kept" means the exchanges, not the entries' bookkeeping.
   */
  const chatHistory = async (path: string): Promise<unknown[]> => (JSON.parse(await readFile(path, 'utf8')) as { chatHistory: { exchange: unknown }[] }).chatHistory.map((entry) => entry.exchange);

  /** One turn of `auggie --print` in `dir` (a new session, or `--resume ID`), and the session id it reports. */
  async function auggie(prompt: string, dir: string, label: string, resumeId?: string): Promise<string> {
    const result = await runProcess(bin, auggiePrintArgs(prompt, resumeId), { cwd: dir, env: sandbox.env, timeoutMs: AGENT_TIMEOUT_MS });
    if (result.timedOut || result.code !== 0) throw new Error(describeRun(`auggie ${label}`, result));
    const id = auggieReportedSessionId(result.stdout);
    if (id === null) throw new Error(describeRun(`auggie ${label} reported no session`, result));
    return id;
  }

  async function run(program: string, args: readonly string[], dir: string, label: string): Promise<ProcessResult> {
    const result = await runProcess(program, args, { cwd: dir, env: sandbox.env, timeoutMs: AGENT_TIMEOUT_MS });
    if (result.timedOut || result.code !== 0) throw new Error(describeRun(label, result));
    return result;
  }

  async function sessionsCli(args: readonly string[], timeoutMs = 60_000): Promise<ProcessResult> {
    return runProcess(process.execPath, [SESSIONS_BIN, ...args], { cwd: root, env: sandbox.env, timeoutMs });
  }

  async function sessionsJson<T>(args: readonly string[]): Promise<T> {
    const result = await sessionsCli(args);
    expect(result.code, describeRun(`sessions ${args.join(' ')}`, result)).toBe(0);
    return JSON.parse(result.stdout) as T;
  }

  async function listRows(): Promise<ListRow[]> {
    return (await sessionsJson<ListRow[]>(['list', '--json', '--all', '--home', sandbox.home])).filter((row) => row.agent === 'auggie');
  }

  const turnTexts = (shown: ShownSession): string[] => shown.messages.filter((m) => m.userTurn).map((m) => m.blocks.filter((b) => b.type === 'text').map((b) => b.text).join('\n'));

  beforeAll(async () => {
    standIn = await startModelStandIn();
    root = await realpath(await mkdtemp(join(tmpdir(), 'sessions-interop-auggie-')));
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
    cwd = join(base.projects, 'alpha');
    for (const dir of [base.codexHome, base.claudeDir, cwd]) await mkdir(dir, { recursive: true });
    const env: NodeJS.ProcessEnv = {};
    for (const [key, value] of Object.entries(process.env)) if (!SCRUBBED_ENV.test(key) && !key.startsWith('AUGMENT_')) env[key] = value;
    // Nothing of the machine's: HOME is the sandbox's (never the real ~/.augment), the backend the stand-in.
    Object.assign(env, auggieSandboxEnv(home, standIn.origin), { CODEX_HOME: base.codexHome, CLAUDE_CONFIG_DIR: base.claudeDir, SESSIONS_CONFIG: base.sessionsConfig, NO_COLOR: '1' });
    sandbox = { ...base, env };
    if (codexBin) Object.assign(env, await codexDriver.prepare(sandbox, standIn.origin));
    if (claudeBin) Object.assign(env, await claudeDriver.prepare(sandbox, standIn.origin));
    // `sessions resume --prompt` runs the product's default exec template with the cached binary's absolute path.
    await writeFile(base.sessionsConfig, `${JSON.stringify({ exec: { auggie: [bin, '{args}', '--resume', '{id}', '--print', '{prompt}'] } }, null, 2)}\n`);
    try {
      mainId = await auggie(prompts[0]!, cwd, 'new session');
      for (const prompt of prompts.slice(1)) {
        const id = await auggie(prompt, cwd, `resume ${mainId}`, mainId);
        if (id !== mainId) throw new Error(`auggie --resume ${mainId} continued ${id}`);
      }
    } catch (error) {
      failed = true;
      throw error;
    }
    mainPath = join(sessionsDir(), `${mainId}.json`);
    mainBefore = sha256(await readFile(mainPath));
  }, 4 * AGENT_TIMEOUT_MS);

  beforeEach(({ onTestFailed }) => {
    onTestFailed(() => {
      failed = true;
    });
  });

  afterAll(async () => {
    await standIn?.close();
    if (!root) return;
    if (failed || process.env.SESSIONS_INTEROP_KEEP === '1') {
      const lines = (standIn?.requests ?? []).map((request) => JSON.stringify({ seq: request.seq, path: request.path, reply: request.reply, body: request.body }));
      await writeFile(join(root, 'stand-in-requests.jsonl'), `${lines.join('\n')}\n`);
      process.stderr.write(`[interop] kept the auggie sandbox (and the stand-in's requests): ${root}\n`);
    } else {
      await removeSandbox(root);
    }
  });

  test('sessions list --json and show read the session Auggie wrote: id, cwd, turns, prompts, the first prompt as title, the tool call and its result', async () => {
    const rows = await listRows();
    expect(rows.map((row) => row.id)).toEqual([mainId]);
    expect(rows[0]).toMatchObject({ id: mainId, path: mainPath, cwd, userTurns: 3, title: prompts[0], firstPrompt: prompts[0], lastPrompt: prompts[2], forkedFrom: null });
    const shown = await sessionsJson<ShownSession>(['show', mainId, '--format', 'json', '--home', sandbox.home]);
    expect(turnTexts(shown)).toEqual(prompts);
    const blocks = shown.messages.flatMap((m) => m.blocks);
    expect(blocks.filter((b) => b.type === 'tool_use').map((b) => b.name)).toEqual([AUGGIE_SHELL_TOOL]);
    expect(blocks.some((b) => b.type === 'tool_result' && b.output?.includes('interop-tool-ran'))).toBe(true);
    const grep = await sessionsCli(['grep', 'interop-tool-ran', '--home', sandbox.home, '--all']);
    expect(grep.stdout).toContain(mainId);
  });

  test('sessions fork --at 3 writes a session Auggie resumes with exactly turns 1-2 and the tool call with its result; the new exchange lands in the fork', async () => {
    const before = await sessionFiles();
    const fork = await sessionsJson<ForkJson>(['fork', mainId, '--at', '3', '--json', '--home', sandbox.home]);
    expect(fork).toMatchObject({ agent: 'auggie', path: join(sessionsDir(), `${fork.id}.json`), parentId: mainId, keptUserTurns: 2 });
    expect(fork.resume).toMatchObject({ argv: ['auggie', '--resume', fork.id], cwd });
    expect(await sessionFiles()).toEqual([...before, `${fork.id}.json`].sort());
    expect(sha256(await readFile(mainPath)), 'forking must not touch the original file').toBe(mainBefore);
    expect((await listRows()).find((row) => row.id === fork.id)).toMatchObject({ cwd, userTurns: 2, firstPrompt: prompts[0], lastPrompt: prompts[1], forkedFrom: mainId });

    const forked = await chatHistory(fork.path);
    const newPrompt = 'zqauggie-fork-t3 Instead, explain the error handling.';
    const mark = standIn.requests.length;
    expect(await auggie(newPrompt, cwd, `resume of the fork ${fork.id}`, fork.id), 'Auggie continued the fork under its own id').toBe(fork.id);
    const requests = turnRequests(standIn.since(mark));
    expect(requests.length, 'Auggie asked the model').toBeGreaterThan(0);
    expect((requests[0]!.body as { conversation_id?: string }).conversation_id).toBe(fork.id);
    expect(sentConversation(requests[0]!), 'the history Auggie sent for the fork: turns 1-2, the call paired with its result, the new prompt').toEqual([
      { kind: 'user', text: prompts[0]! },
      { kind: 'assistant', text: ANSWER_PREFIX + prompts[0] },
      { kind: 'user', text: prompts[1]! },
      { kind: 'tool_call', name: AUGGIE_SHELL_TOOL },
      { kind: 'tool_result', text: expect.stringContaining('interop-tool-ran') as unknown as string },
      { kind: 'assistant', text: TOOL_FINAL_TEXT },
      { kind: 'user', text: newPrompt },
    ] satisfies ConversationItem[]);
    for (const request of requests) expect(request.raw.includes('zqauggie-main-t3'), `request #${request.seq} carries nothing of turn 3`).toBe(false);

    expect(await sessionFiles(), 'resuming the fork makes no new file').toEqual([...before, `${fork.id}.json`].sort());
    const after = await chatHistory(fork.path);
    expect(after.slice(0, forked.length), "the fork's exchanges are unchanged").toEqual(forked);
    expect(JSON.stringify(after.slice(forked.length)), 'the new exchange is in the fork file').toContain(newPrompt);
    expect((await listRows()).find((row) => row.id === fork.id)).toMatchObject({ userTurns: 3, lastPrompt: newPrompt, forkedFrom: mainId });
    expect(sha256(await readFile(mainPath)), 'resuming the fork must not touch the original file').toBe(mainBefore);
  });

  test('sessions resume <id> --prompt continues the original in place: the same file, its exchanges kept, no new file', async () => {
    const dryRun = await sessionsJson<{ argv: string[]; cwd: string | null }>(['resume', mainId, '--dry-run', '--json', '--home', sandbox.home]);
    expect(dryRun).toMatchObject({ argv: ['auggie', '--resume', mainId], cwd });
    const files = await sessionFiles();
    const kept = await chatHistory(mainPath);
    const newPrompt = 'zqauggie-main-t4 Summarise what we did.';
    const mark = standIn.requests.length;
    const run = await sessionsCli(['resume', mainId, '--home', sandbox.home, '--prompt', newPrompt], AGENT_TIMEOUT_MS + 30_000);
    expect(run.code, describeRun('sessions resume --prompt', run)).toBe(0);
    const requests = turnRequests(standIn.since(mark));
    expect(requests.length).toBeGreaterThan(0);
    expect(sentConversation(requests[0]!).flatMap((item) => (item.kind === 'user' ? [item.text] : [])), 'the original resumed with all its turns').toEqual([...prompts, newPrompt]);
    expect(await sessionFiles(), 'resuming makes no new file').toEqual(files);
    expect((await chatHistory(mainPath)).slice(0, kept.length)).toEqual(kept);
    expect((await listRows()).find((row) => row.id === mainId)).toMatchObject({ userTurns: 4, lastPrompt: newPrompt });
    mainBefore = sha256(await readFile(mainPath));
  }, AGENT_TIMEOUT_MS + 60_000);

  test.skipIf(!codexBin)('codex → auggie, the whole session: sessions fork --to auggie, resumed by the real Auggie with the note, every turn, the call paired with its result', async () => {
    const tag = 'zqhandoff-codex-to-auggie';
    const source = [`${tag}-t1 What does the beta project do?`, `${tag}-t2 ${TOOL_KEYWORD}: show me what the tool prints.`, `${tag}-t3 Now write a test for it.`];
    const dir = join(sandbox.projects, 'codex-to-auggie ü');
    await mkdir(dir, { recursive: true });
    const first = await run(codexBin!, codexDriver.newSessionArgs(source[0]!), dir, 'codex new session');
    const sourceId = codexDriver.reportedSessionId(first.stdout);
    if (!sourceId) throw new Error(describeRun('codex reported no session id', first));
    for (const prompt of source.slice(1)) expect(codexDriver.reportedSessionId((await run(codexBin!, codexDriver.resumeArgs(sourceId, prompt), dir, `codex resume ${sourceId}`)).stdout)).toBe(sourceId);
    const sourcePath = (await sessionsJson<{ path: string }>(['show', sourceId, '--format', 'json', '--home', sandbox.home])).path;
    const sourceBytes = await readFile(sourcePath);

    const before = await sessionFiles();
    const fork = await sessionsJson<ForkJson>(['fork', sourceId, '--to', 'auggie', '--json', '--home', sandbox.home]);
    expect(fork).toMatchObject({ agent: 'auggie', path: join(sessionsDir(), `${fork.id}.json`), parentId: sourceId, parentAgent: 'codex', keptUserTurns: 3 });
    expect(fork.resume).toMatchObject({ argv: ['auggie', '--resume', fork.id], cwd: dir });
    expect(await sessionFiles(), 'the hand-off is one new session file').toEqual([...before, `${fork.id}.json`].sort());
    expect(await readFile(sourcePath), 'the source file is untouched').toEqual(sourceBytes);
    expect(turnTexts(await sessionsJson<ShownSession>(['show', fork.id, '--format', 'json', '--home', sandbox.home]))).toEqual(source);

    const handedOff = await chatHistory(fork.path);
    const newPrompt = `${tag}-t4 Instead, explain the error handling.`;
    const mark = standIn.requests.length;
    expect(await auggie(newPrompt, dir, `resume of the hand-off ${fork.id}`, fork.id), 'Auggie continued the hand-off under its own id').toBe(fork.id);
    const requests = turnRequests(standIn.since(mark));
    expect(requests.length, 'Auggie asked the model').toBeGreaterThan(0);
    expect(sentConversation(requests[0]!), 'the note, every turn in order, the call paired with its result, then the new prompt').toEqual([
      { kind: 'user', text: expect.stringMatching(new RegExp(`^${escape(NOTE_OPENING)} ${escape(ADAPTERS.auggie.label)} from ${escape(ADAPTERS.codex.label)} session ${sourceId}: `)) as unknown as string },
      { kind: 'user', text: source[0]! },
      { kind: 'assistant', text: ANSWER_PREFIX + source[0] },
      { kind: 'user', text: source[1]! },
      { kind: 'tool_call', name: codexDriver.toolName },
      { kind: 'tool_result', text: expect.stringContaining('interop-tool-ran') as unknown as string },
      { kind: 'assistant', text: TOOL_FINAL_TEXT },
      { kind: 'user', text: source[2]! },
      { kind: 'assistant', text: ANSWER_PREFIX + source[2] },
      { kind: 'user', text: newPrompt },
    ] satisfies ConversationItem[]);
    expect(await sessionFiles(), 'resuming the hand-off makes no new file').toEqual([...before, `${fork.id}.json`].sort());
    expect((await chatHistory(fork.path)).slice(0, handedOff.length), "the hand-off's exchanges are unchanged").toEqual(handedOff);
    expect(turnTexts(await sessionsJson<ShownSession>(['show', fork.id, '--format', 'json', '--home', sandbox.home]))).toEqual([...source, newPrompt]);
  }, 6 * AGENT_TIMEOUT_MS);

  test.skipIf(!claudeBin)('auggie → claude, the whole session: sessions fork --to claude, resumed by the real Claude Code with every turn and the launch-process call paired with its result', async () => {
    const shownSource = await sessionsJson<ShownSession>(['show', mainId, '--format', 'json', '--home', sandbox.home]);
    const turns = turnTexts(shownSource);
    expect(turns.length).toBeGreaterThanOrEqual(3);
    const fork = await sessionsJson<ForkJson>(['fork', mainId, '--to', 'claude', '--json', '--home', sandbox.home]);
    expect(fork).toMatchObject({ agent: 'claude', parentId: mainId, parentAgent: 'auggie', keptUserTurns: turns.length });
    expect(fork.resume.cwd).toBe(cwd);
    expect(sha256(await readFile(mainPath)), 'the Auggie session is untouched').toBe(mainBefore);
    const handoffBytes = await readFile(fork.path);

    const newPrompt = 'zqhandoff-auggie-to-claude-new Instead, explain the error handling.';
    const mark = standIn.requests.length;
    const resumed = await run(claudeBin!, claudeDriver.resumeArgs(fork.id, newPrompt), fork.resume.cwd ?? cwd, `claude resume of the hand-off ${fork.id}`);
    expect(claudeDriver.reportedSessionId(resumed.stdout), 'Claude Code continued the hand-off under its own id').toBe(fork.id);
    const requests = claudeDriver.turnRequests(standIn.since(mark));
    expect(requests.length, 'Claude Code asked the model').toBeGreaterThan(0);
    const expected: ConversationItem[] = [];
    for (const message of shownSource.messages) {
      for (const block of message.blocks) {
        if (message.userTurn && block.type === 'text') expected.push({ kind: 'user', text: block.text! });
        else if (message.role === 'assistant' && block.type === 'text') expected.push({ kind: 'assistant', text: block.text! });
        else if (block.type === 'tool_use') expected.push({ kind: 'tool_call', name: block.name! });
        else if (block.type === 'tool_result') expected.push({ kind: 'tool_result', text: block.output! });
      }
    }
    // Claude Code sends the note (a meta line) in the same user message as the first prompt.
    const [firstPrompt, ...rest] = expected;
    expect(firstPrompt).toEqual({ kind: 'user', text: turns[0] });
    const sent = claudeDriver.conversation(requests[0]!.body);
    expect(sent, 'the history Claude Code sent: every Auggie turn in order, the call paired with its result, then the new prompt').toEqual([
      { kind: 'user', text: expect.stringMatching(new RegExp(`^${escape(NOTE_OPENING)}[^\\n]*\\n+${escape(turns[0]!)}$`)) as unknown as string },
      ...rest,
      { kind: 'user', text: newPrompt },
    ]);
    expect(sent.filter((item) => item.kind === 'tool_call')).toEqual([{ kind: 'tool_call', name: AUGGIE_SHELL_TOOL }]);
    expect(requests[0]!.raw, 'the note naming the source reached the model').toContain(`${NOTE_OPENING} ${ADAPTERS.claude.label} from ${ADAPTERS.auggie.label} session ${mainId}`);
    const after = await readFile(fork.path);
    expect(after.subarray(0, handoffBytes.length).equals(handoffBytes), 'the hand-off kept its bytes; Claude Code only appended').toBe(true);
    expect(after.subarray(handoffBytes.length).toString('utf8')).toContain(newPrompt);
  }, 3 * AGENT_TIMEOUT_MS);
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
