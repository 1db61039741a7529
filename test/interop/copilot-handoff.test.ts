import { createHash } from 'node:crypto';
import { cp, mkdir, mkdtemp, readdir, readFile, realpath, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, test } from 'vitest';
import { describeRun, PROJECT_ROOT, runProcess } from './agents.js';
import { copilotDriver, copilotEnvironment } from './drivers.js';
import { ANSWER_PREFIX, startModelStandIn, TOOL_FINAL_TEXT, type ModelStandIn } from './model-stand-in.js';
import { AGENT_TIMEOUT_MS, SCRUBBED_ENV } from './round-trip.js';
import { removeSandbox } from './sandbox-cleanup.js';

/**
 * A conversation written by the real Claude Code 2.1.330 (test/fixtures/claude-2.1.330: its turn 2 runs Bash)
 * handed to GitHub Copilot CLI by `sessions fork --to copilot --at 3`, then continued through `sessions resume
 * --prompt` by the real Copilot CLI against the loopback stand-in: the request must hold the note, turns 1-2's
 * prompts and answers in order, the call with its result, nothing of turn 3 on; Copilot must append to the new
 * session's events.jsonl and make no other session.
 */

const SESSIONS_BIN = join(PROJECT_ROOT, 'bin', 'sessions.js');
const SOURCE = '4908739e-7140-40f4-bd05-9ab21cdf9519';
const PROMPTS = ['[b] What does the api server do?', '[b] RUN-THE-TOOL: show me what the tool prints.'];
const DROPPED = '[b] Add a health check endpoint.';

const pin = inject('interopTargets').copilot;
const sha256 = (data: Buffer): string => createHash('sha256').update(data).digest('hex');

describe.skipIf(pin?.available !== true)(`hand-off from Claude Code 2.1.330 to ${pin?.target.packageName}@${pin?.target.version} (the real CLI)`, () => {
  const bin = pin?.available ? pin.bin : '';
  let root: string;
  let standIn: ModelStandIn;
  let env: NodeJS.ProcessEnv;
  let failed = false;

  beforeAll(async () => {
    standIn = await startModelStandIn();
    root = await realpath(await mkdtemp(join(tmpdir(), 'sessions-interop-copilot-handoff-')));
    const home = join(root, 'home');
    await cp(join(PROJECT_ROOT, 'test', 'fixtures', 'claude-2.1.330', '.claude'), join(home, '.claude'), { recursive: true });
    await mkdir(join(home, '.copilot'), { recursive: true });
    env = {};
    for (const [key, value] of Object.entries(process.env)) if (!SCRUBBED_ENV.test(key)) env[key] = value;
    Object.assign(env, {
      HOME: home,
      CLAUDE_CONFIG_DIR: join(home, '.claude'),
      COPILOT_HOME: join(home, '.copilot'),
      XDG_CONFIG_HOME: join(home, '.config'),
      XDG_CACHE_HOME: join(home, '.cache'),
      XDG_DATA_HOME: join(home, '.local', 'share'),
      XDG_STATE_HOME: join(home, '.local', 'state'),
      SESSIONS_CONFIG: join(root, 'sessions-config.json'),
      NO_COLOR: '1',
      ...copilotEnvironment(standIn.origin),
    });
    // `sessions resume --prompt` runs the product's exec template with the cached binary's absolute path.
    await writeFile(join(root, 'sessions-config.json'), `${JSON.stringify({ exec: { copilot: copilotDriver.execTemplate(bin) } }, null, 2)}\n`);
  });

  afterAll(async () => {
    await standIn?.close();
    if (!root) return;
    if (failed || process.env.SESSIONS_INTEROP_KEEP === '1') process.stderr.write(`[interop] kept copilot hand-off sandbox: ${root}\n`);
    else await removeSandbox(root);
  });

  test('Copilot resumes the hand-off with the note and exactly turns 1-2, appending to the new session', async () => {
    try {
      const sessions = (args: readonly string[]) => runProcess(process.execPath, [SESSIONS_BIN, ...args], { cwd: root, env, timeoutMs: AGENT_TIMEOUT_MS + 30_000 });
      const forked = await sessions(['fork', SOURCE, '--at', '3', '--to', 'copilot', '--json']);
      expect(forked.code, describeRun('sessions fork --to copilot', forked)).toBe(0);
      const fork = JSON.parse(forked.stdout) as { agent: string; id: string; path: string; parentId: string; resume: { argv: string[]; env: Record<string, string> } };
      expect(fork).toMatchObject({ agent: 'copilot', parentId: SOURCE, resume: { argv: ['copilot', `--resume=${fork.id}`] } });
      const before = await readFile(fork.path);
      const state = join(env.COPILOT_HOME!, 'session-state');
      // Session folders (Copilot also keeps `.session-operation-locks` there).
      const sessionFolders = async (): Promise<string[]> => (await readdir(state)).filter((name) => !name.startsWith('.'));
      const folders = await sessionFolders();

      const newPrompt = 'zqcopilot-handoff-t3 Go on from here.';
      const mark = standIn.requests.length;
      // The source's cwd (/home/dev/src/b-api-server) is not on this machine: --here runs Copilot where we are.
      const resumed = await sessions(['resume', fork.id, '--here', '--prompt', newPrompt, '--', ...copilotDriver.passThroughArgs]);
      expect(resumed.code, describeRun(`sessions resume ${fork.id}`, resumed)).toBe(0);

      const requests = copilotDriver.turnRequests(standIn.since(mark));
      expect(requests.length).toBeGreaterThan(0);
      const conversation = copilotDriver.conversation(requests[0]!.body);
      expect(conversation).toEqual([
        { kind: 'user', text: expect.stringContaining('[sessions] This conversation was handed off to GitHub Copilot CLI from Claude Code session') as unknown as string },
        { kind: 'user', text: PROMPTS[0] },
        { kind: 'assistant', text: ANSWER_PREFIX + PROMPTS[0] },
        { kind: 'user', text: PROMPTS[1] },
        { kind: 'tool_call', name: 'Bash' },
        { kind: 'tool_result', text: expect.stringContaining('interop-tool-ran') as unknown as string },
        { kind: 'assistant', text: TOOL_FINAL_TEXT },
        { kind: 'user', text: newPrompt },
      ]);
      for (const request of requests) expect(request.raw.includes(DROPPED), `request #${request.seq} carries nothing of turn 3`).toBe(false);

      expect(await sessionFolders(), 'no other session folder').toEqual(folders);
      expect(folders).toEqual([fork.id]);
      const after = await readFile(fork.path);
      expect(after.length).toBeGreaterThan(before.length);
      expect(sha256(after.subarray(0, before.length)), 'Copilot only appended').toBe(sha256(before));
      expect(after.subarray(before.length).toString('utf8')).toContain(newPrompt);
    } catch (error) {
      failed = true;
      throw error;
    }
  });
});
