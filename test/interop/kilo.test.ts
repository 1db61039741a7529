// Kilo Code CLI (@kilocode/cli-linux-x64, pinned in agents.ts) against the loopback OpenAI Chat Completions stand-in,
// through a provider whose `options.baseURL` is the stand-in (kilo-config.ts). Kilo keeps every session in one SQLite
// database (opencode's schema), so this round trip compares database rows where the file-based suites compare bytes;
// it also hands a whole Codex session to Kilo and a whole Kilo session to Claude Code, each resumed by the real target.
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readFile, realpath, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, beforeEach, describe, expect, inject, test } from 'vitest';
import { ADAPTERS } from '../../src/core/formats/index.js';
import { describeRun, PROJECT_ROOT, runProcess, type ProcessResult } from './agents.js';
import { claudeDriver, codexDriver, qwenDriver, type ConversationItem, type Sandbox } from './drivers.js';
import { kiloSandboxEnv } from './kilo-config.js';
import { ANSWER_PREFIX, startModelStandIn, TOOL_FINAL_TEXT, TOOL_KEYWORD, type ModelStandIn, type RecordedRequest } from './model-stand-in.js';
import { AGENT_TIMEOUT_MS, SCRUBBED_ENV } from './round-trip.js';
import { removeSandbox } from './sandbox-cleanup.js';

const SESSIONS_BIN = join(PROJECT_ROOT, 'bin', 'sessions.js');
const NOTE_OPENING = '[sessions] This conversation was handed off to';
const targets = inject('interopTargets');
const availability = targets.kilo;
if (availability === undefined) throw new Error('no interop target kilo (test/interop/agents.ts)');
const pin = availability.target;
const codexBin = targets.codex?.available ? targets.codex.bin : null;
const claudeBin = targets.claude?.available ? targets.claude.bin : null;
/** Kilo runs slower than the others (≈ 20-35 s a turn here): its own budget. */
const KILO_TIMEOUT_MS = 4 * AGENT_TIMEOUT_MS;

/** `kilo run` quotes a message word that holds a space (it joins its arguments into one message), as opencode does. */
const asRecorded = (prompt: string): string => `"${prompt}"`;
/** The block Kilo appends to each prompt it sends (time, cwd, workspace root); the stand-in's answers echo it. */
const withoutEnvironment = (text: string): string => text.replace(/\s*<environment_details>[\s\S]*?<\/environment_details>\s*/g, '');

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

describe.skipIf(!availability.available)(`${pin.packageName}@${pin.version} (the real agent) round trips through sessions`, () => {
  const bin = availability.available ? availability.bin : '';
  let root: string;
  let sandbox: Sandbox;
  let db: string;
  let standIn: ModelStandIn;
  let failed = false;
  let mainId: string;
  let cwd: string;
  let mainBefore: string;
  const prompts = ['zqkilo-main-t1 What does the alpha project do?', `zqkilo-main-t2 ${TOOL_KEYWORD}: show me what the tool prints.`, 'zqkilo-main-t3 Add a health check endpoint.'];

  /** `kilo run --format json ARGS` in `dir`, and the session id its events name. */
  async function kilo(args: readonly string[], dir: string, label: string): Promise<string> {
    // PWD as a shell sets it: Kilo (Bun, as opencode) records PWD as the session's directory, not getcwd().
    const result = await runProcess(bin, ['run', '--format', 'json', ...args], { cwd: dir, env: { ...sandbox.env, PWD: dir }, timeoutMs: KILO_TIMEOUT_MS });
    if (result.timedOut || result.code !== 0) throw new Error(describeRun(`kilo ${label}`, result));
    for (const line of result.stdout.split('\n')) {
      try {
        const event = JSON.parse(line) as { sessionID?: unknown };
        if (typeof event.sessionID === 'string') return event.sessionID;
      } catch {
        // not an event line
      }
    }
    throw new Error(describeRun(`kilo ${label} reported no session`, result));
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
    return (await sessionsJson<ListRow[]>(['list', '--json', '--all', '--home', sandbox.home])).filter((row) => row.agent === 'kilo');
  }

  function query<T>(sql: string, ...args: unknown[]): T[] {
    const handle = new Database(db, { readonly: true });
    try {
      return handle.prepare(sql).all(...args) as T[];
    } finally {
      handle.close();
    }
  }

  /** Every row of a session (session, messages, parts), as a digest: what "unchanged" means in a shared database. */
  function sessionDigest(id: string): string {
    const rows = [query('SELECT * FROM session WHERE id = ?', id), query('SELECT * FROM message WHERE session_id = ? ORDER BY id', id), query('SELECT * FROM part WHERE session_id = ? ORDER BY id', id)];
    return createHash('sha256').update(JSON.stringify(rows)).digest('hex');
  }

  /** The message and part rows of one session by id: what "Kilo only appended" is checked against. */
  function rowsOf(id: string): Map<string, string> {
    const rows = new Map<string, string>();
    for (const row of query<{ id: string; data: string }>('SELECT id, data FROM message WHERE session_id = ?', id)) rows.set(row.id, row.data);
    for (const row of query<{ id: string; data: string }>('SELECT id, data FROM part WHERE session_id = ?', id)) rows.set(row.id, row.data);
    return rows;
  }

  const sessionIds = (): string[] => query<{ id: string }>('SELECT id FROM session ORDER BY id').map((row) => row.id);

  /** Kilo's conversation requests: its agent sends its tools (a title or summary request sends none). */
  const turnRequests = (requests: readonly RecordedRequest[]): RecordedRequest[] =>
    requests.filter((request) => request.method === 'POST' && request.path.endsWith('/chat/completions') && Array.isArray((request.body as { tools?: unknown } | null)?.tools));

  /** The conversation Kilo sent, the environment block it appends (and the stand-in echoes) taken out, its reasoning left aside. */
  const sentConversation = (request: RecordedRequest): ConversationItem[] =>
    qwenDriver
      .conversation(request.body)
      .filter((item) => item.kind !== 'reasoning')
      .map((item) => (item.kind === 'user' || item.kind === 'assistant' ? { ...item, text: withoutEnvironment(item.text) } : item));

  const userPrompts = (request: RecordedRequest): string[] => sentConversation(request).flatMap((item) => (item.kind === 'user' ? [item.text] : []));
  const turnTexts = (shown: ShownSession): string[] => shown.messages.filter((m) => m.userTurn).map((m) => m.blocks.filter((b) => b.type === 'text').map((b) => b.text).join('\n'));

  beforeAll(async () => {
    standIn = await startModelStandIn();
    root = await realpath(await mkdtemp(join(tmpdir(), 'sessions-interop-kilo-')));
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
    db = join(home, '.local', 'share', 'kilo', 'kilo.db');
    const env: NodeJS.ProcessEnv = {};
    for (const [key, value] of Object.entries(process.env)) if (!SCRUBBED_ENV.test(key) && !key.startsWith('KILO')) env[key] = value;
    // Nothing of the machine's: HOME and every XDG folder are in the sandbox (never the real ~/.local/share/kilo).
    Object.assign(env, kiloSandboxEnv(home, standIn.origin), { CODEX_HOME: base.codexHome, CLAUDE_CONFIG_DIR: base.claudeDir, SESSIONS_CONFIG: base.sessionsConfig, NO_COLOR: '1' });
    sandbox = { ...base, env };
    if (codexBin) Object.assign(env, await codexDriver.prepare(sandbox, standIn.origin));
    if (claudeBin) Object.assign(env, await claudeDriver.prepare(sandbox, standIn.origin));
    // `sessions resume --prompt` runs the product's default exec template with the cached binary's absolute path.
    await writeFile(base.sessionsConfig, `${JSON.stringify({ exec: { kilo: [bin, 'run', '{args}', '-s', '{id}', '{prompt}'] } }, null, 2)}\n`);
    try {
      mainId = await kilo([prompts[0]!], cwd, 'new session');
      for (const prompt of prompts.slice(1)) {
        const id = await kilo(['-s', mainId, prompt], cwd, `resume ${mainId}`);
        if (id !== mainId) throw new Error(`kilo run -s ${mainId} continued ${id}`);
      }
    } catch (error) {
      failed = true;
      throw error;
    }
    mainBefore = sessionDigest(mainId);
  }, 4 * KILO_TIMEOUT_MS);

  beforeEach(({ onTestFailed }) => {
    onTestFailed(() => {
      failed = true;
    });
  });

  afterAll(async () => {
    await standIn?.close();
    if (!root) return;
    if (failed || process.env.SESSIONS_INTEROP_KEEP === '1') {
      const lines = (standIn?.requests ?? []).map((request) => JSON.stringify({ seq: request.seq, path: request.path, body: request.body }));
      await writeFile(join(root, 'stand-in-requests.jsonl'), `${lines.join('\n')}\n`);
      process.stderr.write(`[interop] kept the kilo sandbox (and the stand-in's requests): ${root}\n`);
    } else {
      await removeSandbox(root);
    }
  });

  test('sessions list --json reads the session out of kilo.db: id, cwd, user turns, prompts (without the environment block), the first prompt as title', async () => {
    const rows = await listRows();
    expect(rows.map((row) => row.id)).toEqual([mainId]);
    expect(rows[0]).toMatchObject({ id: mainId, path: db, cwd, userTurns: 3, title: asRecorded(prompts[0]!), firstPrompt: asRecorded(prompts[0]!), lastPrompt: asRecorded(prompts[2]!), forkedFrom: null });
    const shown = await sessionsJson<ShownSession>(['show', mainId, '--format', 'json', '--home', sandbox.home]);
    expect(turnTexts(shown)).toEqual(prompts.map(asRecorded));
    expect(shown.messages.flatMap((m) => m.blocks).some((b) => b.type === 'tool_result' && b.output?.includes('interop-tool-ran'))).toBe(true);
    const grep = await sessionsCli(['grep', 'interop-tool-ran', '--home', sandbox.home, '--all']);
    expect(grep.stdout).toContain(mainId);
  });

  test('sessions fork --at 3 writes a session Kilo resumes with exactly turns 1-2 and the tool call with its result; the original rows are unchanged', async () => {
    const before = sessionIds();
    const fork = await sessionsJson<ForkJson>(['fork', mainId, '--at', '3', '--json', '--home', sandbox.home]);
    expect(fork).toMatchObject({ path: db, parentId: mainId, keptUserTurns: 2 });
    expect(fork.resume.cwd).toBe(cwd);
    expect(fork.resume.argv).toEqual(['kilo', '-s', fork.id]);
    expect(sessionIds().sort()).toEqual([...before, fork.id].sort());
    expect(sessionDigest(mainId), 'forking must not touch the original rows').toBe(mainBefore);
    expect((await listRows()).find((row) => row.id === fork.id)).toMatchObject({ cwd, userTurns: 2, firstPrompt: asRecorded(prompts[0]!), lastPrompt: asRecorded(prompts[1]!), forkedFrom: mainId });

    const forked = rowsOf(fork.id);
    const newPrompt = 'zqkilo-fork-t3 Instead, explain the error handling.';
    const mark = standIn.requests.length;
    expect(await kilo(['-s', fork.id, newPrompt], cwd, `resume of the fork ${fork.id}`), 'Kilo continued the fork under its own id').toBe(fork.id);
    const requests = turnRequests(standIn.since(mark));
    expect(requests.length, 'Kilo asked the model').toBeGreaterThan(0);
    expect(sentConversation(requests[0]!), 'the history Kilo sent for the fork: turns 1-2, the call paired with its result, the new prompt').toEqual([
      { kind: 'user', text: asRecorded(prompts[0]!) },
      { kind: 'assistant', text: ANSWER_PREFIX + asRecorded(prompts[0]!) },
      { kind: 'user', text: asRecorded(prompts[1]!) },
      { kind: 'tool_call', name: 'bash' },
      { kind: 'tool_result', text: expect.stringContaining('interop-tool-ran') as unknown as string },
      { kind: 'assistant', text: TOOL_FINAL_TEXT },
      { kind: 'user', text: asRecorded(newPrompt) },
    ] satisfies ConversationItem[]);
    for (const request of requests) expect(request.raw.includes('zqkilo-main-t3'), `request #${request.seq} carries nothing of turn 3`).toBe(false);

    expect(sessionIds().sort(), 'resuming the fork makes no new session').toEqual([...before, fork.id].sort());
    const after = rowsOf(fork.id);
    for (const [id, data] of forked) expect(after.get(id), `row ${id} of the fork is unchanged`).toBe(data);
    expect([...after].filter(([id]) => !forked.has(id)).some(([, data]) => data.includes(newPrompt)), 'the new prompt is a row of the fork').toBe(true);
    expect((await listRows()).find((row) => row.id === fork.id)).toMatchObject({ userTurns: 3, lastPrompt: asRecorded(newPrompt) });
    expect(sessionDigest(mainId), 'resuming the fork must not touch the original rows').toBe(mainBefore);
  });

  test('sessions resume <id> --prompt continues the original in place: no new session', async () => {
    const dryRun = await sessionsJson<{ argv: string[]; cwd: string | null; env?: Record<string, string> }>(['resume', mainId, '--dry-run', '--json', '--home', sandbox.home]);
    expect(dryRun.cwd).toBe(cwd);
    expect(dryRun.argv).toContain(mainId);
    const before = sessionIds();
    const newPrompt = 'zqkilo-main-t4 Summarise what we did.';
    const mark = standIn.requests.length;
    const run = await sessionsCli(['resume', mainId, '--home', sandbox.home, '--prompt', newPrompt], KILO_TIMEOUT_MS + 30_000);
    expect(run.code, describeRun('sessions resume --prompt', run)).toBe(0);
    const requests = turnRequests(standIn.since(mark));
    expect(requests.length).toBeGreaterThan(0);
    expect(userPrompts(requests[0]!), 'the original resumed with all its turns').toEqual([...prompts, newPrompt].map(asRecorded));
    expect(sessionIds(), 'resuming makes no new session').toEqual(before);
    expect((await listRows()).find((row) => row.id === mainId)).toMatchObject({ userTurns: 4, lastPrompt: asRecorded(newPrompt) });
  }, KILO_TIMEOUT_MS + 60_000);

  test.skipIf(!codexBin)('codex → kilo, the whole session: sessions fork --to kilo, resumed by the real Kilo with every turn, the call paired with its result', async () => {
    const tag = 'zqhandoff-codex-to-kilo';
    const source = [`${tag}-t1 What does the beta project do?`, `${tag}-t2 ${TOOL_KEYWORD}: show me what the tool prints.`, `${tag}-t3 Now write a test for it.`];
    const dir = join(sandbox.projects, 'codex-to-kilo ü');
    await mkdir(dir, { recursive: true });
    const first = await run(codexBin!, codexDriver.newSessionArgs(source[0]!), dir, 'codex new session');
    const sourceId = codexDriver.reportedSessionId(first.stdout);
    if (!sourceId) throw new Error(describeRun('codex reported no session id', first));
    for (const prompt of source.slice(1)) expect(codexDriver.reportedSessionId((await run(codexBin!, codexDriver.resumeArgs(sourceId, prompt), dir, `codex resume ${sourceId}`)).stdout)).toBe(sourceId);
    const sourcePath = (await sessionsJson<{ path: string }>(['show', sourceId, '--format', 'json', '--home', sandbox.home])).path;
    const sourceBytes = await readFile(sourcePath);

    const before = sessionIds();
    const others = new Map(before.map((id) => [id, sessionDigest(id)]));
    const fork = await sessionsJson<ForkJson>(['fork', sourceId, '--to', 'kilo', '--json', '--home', sandbox.home]);
    expect(fork).toMatchObject({ agent: 'kilo', path: db, parentId: sourceId, parentAgent: 'codex', keptUserTurns: 3 });
    expect(fork.resume).toMatchObject({ argv: ['kilo', '-s', fork.id], cwd: dir });
    expect(sessionIds().sort(), 'the hand-off is one new session in kilo.db').toEqual([...before, fork.id].sort());
    for (const [id, digest] of others) expect(sessionDigest(id), `Kilo's session ${id} is untouched`).toBe(digest);
    expect(await readFile(sourcePath), 'the source file is untouched').toEqual(sourceBytes);
    const shown = await sessionsJson<ShownSession>(['show', fork.id, '--format', 'json', '--home', sandbox.home]);
    expect(shown).toMatchObject({ agent: 'kilo', forkedFrom: sourceId });
    expect(turnTexts(shown)).toEqual(source);

    const handedOff = rowsOf(fork.id);
    const newPrompt = `${tag}-t4 Instead, explain the error handling.`;
    const mark = standIn.requests.length;
    expect(await kilo(['-s', fork.id, newPrompt], dir, `resume of the hand-off ${fork.id}`), 'Kilo continued the hand-off under its own id').toBe(fork.id);
    const requests = turnRequests(standIn.since(mark));
    expect(requests.length, 'Kilo asked the model').toBeGreaterThan(0);
    expect(sentConversation(requests[0]!), 'the note, every turn in order, the call paired with its result, then the new prompt').toEqual([
      { kind: 'user', text: expect.stringMatching(new RegExp(`^${escape(NOTE_OPENING)} ${escape(ADAPTERS.kilo.label)} from ${escape(ADAPTERS.codex.label)} session ${sourceId}: `)) as unknown as string },
      { kind: 'user', text: source[0]! },
      { kind: 'assistant', text: ANSWER_PREFIX + source[0] },
      { kind: 'user', text: source[1]! },
      { kind: 'tool_call', name: codexDriver.toolName },
      { kind: 'tool_result', text: expect.stringContaining('interop-tool-ran') as unknown as string },
      { kind: 'assistant', text: TOOL_FINAL_TEXT },
      { kind: 'user', text: source[2]! },
      { kind: 'assistant', text: ANSWER_PREFIX + source[2] },
      { kind: 'user', text: asRecorded(newPrompt) },
    ] satisfies ConversationItem[]);
    expect(sessionIds().sort(), 'resuming the hand-off makes no new session').toEqual([...before, fork.id].sort());
    const after = rowsOf(fork.id);
    for (const [id, data] of handedOff) expect(after.get(id), `row ${id} of the hand-off is unchanged`).toBe(data);
    expect(turnTexts(await sessionsJson<ShownSession>(['show', fork.id, '--format', 'json', '--home', sandbox.home]))).toEqual([...source, asRecorded(newPrompt)]);
  }, 6 * KILO_TIMEOUT_MS);

  test.skipIf(!claudeBin)('kilo → claude, the whole session: sessions fork --to claude, resumed by the real Claude Code with every turn and the bash call paired with its result', async () => {
    const shownSource = await sessionsJson<ShownSession>(['show', mainId, '--format', 'json', '--home', sandbox.home]);
    const turns = turnTexts(shownSource);
    expect(turns.length).toBeGreaterThanOrEqual(3);
    const before = sessionDigest(mainId);
    const fork = await sessionsJson<ForkJson>(['fork', mainId, '--to', 'claude', '--json', '--home', sandbox.home]);
    expect(fork).toMatchObject({ agent: 'claude', parentId: mainId, parentAgent: 'kilo', keptUserTurns: turns.length });
    expect(fork.resume.cwd).toBe(cwd);
    expect(sessionDigest(mainId), 'the Kilo session is untouched').toBe(before);
    const handoffBytes = await readFile(fork.path);
    // No environment block reached the hand-off's prompts: Kilo adds it per request, and it is never the user's.
    expect(turnTexts(await sessionsJson<ShownSession>(['show', fork.id, '--format', 'json', '--home', sandbox.home]))).toEqual(turns);

    const newPrompt = 'zqhandoff-kilo-to-claude-new Instead, explain the error handling.';
    const mark = standIn.requests.length;
    const resumed = await run(claudeBin!, claudeDriver.resumeArgs(fork.id, newPrompt), fork.resume.cwd ?? cwd, `claude resume of the hand-off ${fork.id}`);
    expect(claudeDriver.reportedSessionId(resumed.stdout), 'Claude Code continued the hand-off under its own id').toBe(fork.id);
    const requests = claudeDriver.turnRequests(standIn.since(mark));
    expect(requests.length, 'Claude Code asked the model').toBeGreaterThan(0);
    // What Kilo's session says, agent-neutral: prompts, answers (the stand-in's, which echo Kilo's environment block), the call and its result.
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
    expect(sent, 'the history Claude Code sent: every Kilo turn in order, the bash call paired with its result, then the new prompt').toEqual([
      { kind: 'user', text: expect.stringMatching(new RegExp(`^${escape(NOTE_OPENING)}[^\\n]*\\n+${escape(turns[0]!)}$`)) as unknown as string },
      ...rest,
      { kind: 'user', text: newPrompt },
    ]);
    expect(sent.filter((item) => item.kind === 'tool_call')).toEqual([{ kind: 'tool_call', name: 'bash' }]);
    expect(requests[0]!.raw, 'the note naming the source reached the model').toContain(`${NOTE_OPENING} ${ADAPTERS.claude.label} from ${ADAPTERS.kilo.label} session ${mainId}`);
    const after = await readFile(fork.path);
    expect(after.subarray(0, handoffBytes.length).equals(handoffBytes), 'the hand-off kept its bytes; Claude Code only appended').toBe(true);
    expect(after.subarray(handoffBytes.length).toString('utf8')).toContain(newPrompt);
  }, 3 * AGENT_TIMEOUT_MS);
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
