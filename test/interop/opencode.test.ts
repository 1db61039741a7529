// opencode (opencode-ai, pinned in agents.ts) against the loopback OpenAI Chat Completions stand-in, through a
// provider whose `options.baseURL` is the stand-in. opencode keeps every session in one SQLite database, so this
// round trip compares database rows where the file-based suites (round-trip.ts) compare file bytes.
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, realpath, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, beforeEach, describe, expect, inject, test } from 'vitest';
import { describeRun, PROJECT_ROOT, runProcess, type ProcessResult } from './agents.js';
import { qwenDriver } from './drivers.js';
import { startModelStandIn, TOOL_KEYWORD, type ModelStandIn, type RecordedRequest } from './model-stand-in.js';
import { opencodeSandboxEnv } from './opencode-config.js';
import { AGENT_TIMEOUT_MS, SCRUBBED_ENV } from './round-trip.js';
import { removeSandbox } from './sandbox-cleanup.js';

const SESSIONS_BIN = join(PROJECT_ROOT, 'bin', 'sessions.js');
const availability = inject('interopTargets').opencode;
if (availability === undefined) throw new Error('no interop target opencode (test/interop/agents.ts)');
const pin = availability.target;

/** `opencode run` quotes a message word that holds a space (it joins its arguments into one message). */
const asRecorded = (prompt: string): string => `"${prompt}"`;

interface ListRow {
  readonly id: string;
  readonly agent: string;
  readonly path: string;
  readonly cwd: string | null;
  readonly userTurns: number;
  readonly firstPrompt: string | null;
  readonly lastPrompt: string | null;
  readonly forkedFrom: string | null;
}

describe.skipIf(!availability.available)(`${pin.packageName}@${pin.version} (the real agent) round trips through sessions`, () => {
  const bin = availability.available ? availability.bin : '';
  let root: string;
  let home: string;
  let db: string;
  let env: NodeJS.ProcessEnv;
  let standIn: ModelStandIn;
  let failed = false;
  let mainId: string;
  let cwd: string;
  let mainBefore: string;
  const prompts = ['zqopencode-main-t1 What does the alpha project do?', `zqopencode-main-t2 ${TOOL_KEYWORD}: show me what the tool prints.`, 'zqopencode-main-t3 Add a health check endpoint.'];

  async function opencode(args: readonly string[], label: string): Promise<{ id: string; result: ProcessResult }> {
    // PWD as a shell sets it: opencode (Bun) records PWD as the session's directory, not getcwd().
    const result = await runProcess(bin, ['run', '--format', 'json', ...args], { cwd, env: { ...env, PWD: cwd }, timeoutMs: AGENT_TIMEOUT_MS });
    if (result.timedOut || result.code !== 0) throw new Error(describeRun(`opencode ${label}`, result));
    let id: string | null = null;
    for (const line of result.stdout.split('\n')) {
      try {
        const event = JSON.parse(line) as { sessionID?: unknown };
        if (typeof event.sessionID === 'string') id ??= event.sessionID;
      } catch {
        // not an event line
      }
    }
    if (id === null) throw new Error(describeRun(`opencode ${label} reported no session`, result));
    return { id, result };
  }

  async function sessionsCli(args: readonly string[], timeoutMs = 60_000): Promise<ProcessResult> {
    return runProcess(process.execPath, [SESSIONS_BIN, ...args], { cwd: root, env, timeoutMs });
  }

  async function sessionsJson<T>(args: readonly string[]): Promise<T> {
    const result = await sessionsCli(args);
    expect(result.code, describeRun(`sessions ${args.join(' ')}`, result)).toBe(0);
    return JSON.parse(result.stdout) as T;
  }

  async function listRows(): Promise<ListRow[]> {
    return (await sessionsJson<ListRow[]>(['list', '--json', '--all', '--home', home])).filter((row) => row.agent === 'opencode');
  }

  /** Every row of a session (session, messages, parts), as a digest: what "unchanged" means in a shared database. */
  function sessionDigest(id: string): string {
    const handle = new Database(db, { readonly: true });
    try {
      const rows = [
        handle.prepare('SELECT * FROM session WHERE id = ?').all(id),
        handle.prepare('SELECT * FROM message WHERE session_id = ? ORDER BY id').all(id),
        handle.prepare('SELECT * FROM part WHERE session_id = ? ORDER BY id').all(id),
      ];
      return createHash('sha256').update(JSON.stringify(rows)).digest('hex');
    } finally {
      handle.close();
    }
  }

  function sessionIds(): string[] {
    const handle = new Database(db, { readonly: true });
    try {
      return (handle.prepare('SELECT id FROM session ORDER BY id').all() as { id: string }[]).map((row) => row.id);
    } finally {
      handle.close();
    }
  }

  /** The requests of the conversation (opencode's agent sends its tools; title generation sends none). */
  function turnRequests(requests: readonly RecordedRequest[]): RecordedRequest[] {
    return requests.filter((request) => request.method === 'POST' && request.path.endsWith('/chat/completions') && Array.isArray((request.body as { tools?: unknown } | null)?.tools));
  }

  function userPrompts(request: RecordedRequest): string[] {
    return qwenDriver.conversation(request.body).flatMap((item) => (item.kind === 'user' ? [item.text] : []));
  }

  beforeAll(async () => {
    standIn = await startModelStandIn();
    root = await realpath(await mkdtemp(join(tmpdir(), 'sessions-interop-opencode-')));
    home = join(root, 'home');
    cwd = join(root, 'projects', 'alpha');
    await mkdir(cwd, { recursive: true });
    db = join(home, '.local', 'share', 'opencode', 'opencode.db');
    env = {};
    for (const [key, value] of Object.entries(process.env)) if (!SCRUBBED_ENV.test(key) && !key.startsWith('OPENCODE')) env[key] = value;
    // Nothing of the machine's: HOME and every XDG folder are in the sandbox (never the real ~/.local/share/opencode).
    Object.assign(env, opencodeSandboxEnv(home, standIn.origin), { SESSIONS_CONFIG: join(root, 'sessions-config.json'), NO_COLOR: '1' });
    // `sessions resume --prompt` runs the product's default exec template with the cached binary's absolute path.
    await writeFile(join(root, 'sessions-config.json'), `${JSON.stringify({ exec: { opencode: [bin, 'run', '{args}', '-s', '{id}', '{prompt}'] } }, null, 2)}\n`);
    try {
      mainId = (await opencode([prompts[0]!], 'new session')).id;
      for (const prompt of prompts.slice(1)) {
        const { id } = await opencode(['-s', mainId, prompt], `resume ${mainId}`);
        if (id !== mainId) throw new Error(`opencode -s ${mainId} continued ${id}`);
      }
    } catch (error) {
      failed = true;
      throw error;
    }
    mainBefore = sessionDigest(mainId);
  }, 6 * AGENT_TIMEOUT_MS);

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
      process.stderr.write(`[interop] kept opencode sandbox (and the stand-in's requests): ${root}\n`);
    } else {
      await removeSandbox(root);
    }
  });

  test('sessions list --json reads the session out of opencode.db: id, cwd, user turns, first and last prompt', async () => {
    const rows = await listRows();
    expect(rows.map((row) => row.id)).toEqual([mainId]);
    expect(rows[0]).toMatchObject({ id: mainId, path: db, cwd, userTurns: 3, firstPrompt: asRecorded(prompts[0]!), lastPrompt: asRecorded(prompts[2]!), forkedFrom: null });
    const shown = await sessionsJson<{ messages: { userTurn: boolean; blocks: { type: string; text?: string; output?: string }[] }[] }>(['show', mainId, '--format', 'json', '--home', home]);
    expect(shown.messages.filter((m) => m.userTurn).map((m) => m.blocks.map((b) => b.text).join(''))).toEqual(prompts.map(asRecorded));
    expect(shown.messages.flatMap((m) => m.blocks).some((b) => b.type === 'tool_result' && b.output?.includes('interop-tool-ran'))).toBe(true);
    const grep = await sessionsCli(['grep', 'interop-tool-ran', '--home', home, '--all']);
    expect(grep.stdout).toContain(mainId);
  });

  test('sessions fork --at 3 writes a session opencode resumes with exactly turns 1-2; the original rows are unchanged', async () => {
    const before = sessionIds();
    const fork = await sessionsJson<{ id: string; path: string; parentId: string; keptUserTurns: number; resume: { argv: string[]; cwd: string | null } }>([
      'fork', mainId, '--at', '3', '--json', '--home', home,
    ]);
    expect(fork).toMatchObject({ path: db, parentId: mainId, keptUserTurns: 2 });
    expect(fork.resume.cwd).toBe(cwd);
    expect(fork.resume.argv).toContain(fork.id);
    expect(sessionIds().sort()).toEqual([...before, fork.id].sort());
    expect(sessionDigest(mainId), 'forking must not touch the original rows').toBe(mainBefore);
    expect((await listRows()).find((row) => row.id === fork.id)).toMatchObject({ cwd, userTurns: 2, firstPrompt: asRecorded(prompts[0]!), lastPrompt: asRecorded(prompts[1]!), forkedFrom: mainId });

    const newPrompt = 'zqopencode-fork-t3 Instead, explain the error handling.';
    const mark = standIn.requests.length;
    const { id } = await opencode(['-s', fork.id, newPrompt], `resume of the fork ${fork.id}`);
    expect(id, 'opencode continued the fork under its own id').toBe(fork.id);
    const requests = turnRequests(standIn.since(mark));
    expect(requests.length, 'opencode asked the model').toBeGreaterThan(0);
    expect(userPrompts(requests[0]!), 'the history opencode sent for the fork: turns 1-2 and the new prompt').toEqual([asRecorded(prompts[0]!), asRecorded(prompts[1]!), asRecorded(newPrompt)]);
    const items = qwenDriver.conversation(requests[0]!.body);
    expect(items.some((item) => item.kind === 'tool_call')).toBe(true);
    expect(items.some((item) => item.kind === 'tool_result' && item.text.includes('interop-tool-ran'))).toBe(true);
    for (const request of requests) expect(request.raw.includes('zqopencode-main-t3'), `request #${request.seq} carries nothing of turn 3`).toBe(false);

    expect(sessionIds().sort(), 'resuming the fork makes no new session').toEqual([...before, fork.id].sort());
    expect((await listRows()).find((row) => row.id === fork.id)).toMatchObject({ userTurns: 3, lastPrompt: asRecorded(newPrompt) });
    expect(sessionDigest(mainId), 'resuming the fork must not touch the original rows').toBe(mainBefore);
  });

  test('sessions resume <id> --prompt continues the original in place: no new session', async () => {
    const dryRun = await sessionsJson<{ argv: string[]; cwd: string | null; env?: Record<string, string> }>(['resume', mainId, '--dry-run', '--json', '--home', home]);
    expect(dryRun.cwd).toBe(cwd);
    expect(dryRun.argv).toContain(mainId);
    const before = sessionIds();
    const newPrompt = 'zqopencode-main-t4 Summarise what we did.';
    const mark = standIn.requests.length;
    const run = await sessionsCli(['resume', mainId, '--home', home, '--prompt', newPrompt], AGENT_TIMEOUT_MS + 30_000);
    expect(run.code, describeRun('sessions resume --prompt', run)).toBe(0);
    const requests = turnRequests(standIn.since(mark));
    expect(requests.length).toBeGreaterThan(0);
    expect(userPrompts(requests[0]!), 'the original resumed with all its turns').toEqual([...prompts, newPrompt].map(asRecorded));
    expect(sessionIds(), 'resuming makes no new session').toEqual(before);
    expect((await listRows()).find((row) => row.id === mainId)).toMatchObject({ userTurns: 4, lastPrompt: asRecorded(newPrompt) });
  });
});
