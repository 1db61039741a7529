import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readFile, realpath, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, inject, test } from 'vitest';
import { describeRun, PROJECT_ROOT, runProcess, type ProcessResult } from './agents.js';
import { DRIVERS, type AgentDriver, type ConversationItem, type Sandbox } from './drivers.js';
import { ANSWER_PREFIX, startModelStandIn, TOOL_FINAL_TEXT, TOOL_KEYWORD, type ModelStandIn } from './model-stand-in.js';
import { removeSandbox } from './sandbox-cleanup.js';

/** One agent process (a turn, with a tool call at most) answered by a loopback stand-in takes about a second. */
export const AGENT_TIMEOUT_MS = 60_000;
const CLI_TIMEOUT_MS = 60_000;
const SESSIONS_BIN = join(PROJECT_ROOT, 'bin', 'sessions.js');

/** Variables of the machine that could point an agent (or `sessions`) at the real homes, accounts or network. */
export const SCRUBBED_ENV = /^(CODEX_|CLAUDE|FACTORY_|DROID_|ANTHROPIC_|OPENAI_|COPILOT_|GH_|GITHUB_|GEMINI_|GOOGLE_|QWEN_|PI_|XDG_|SESSIONS_|npm_|VITEST|NODE_OPTIONS$|HOME$|CI$)/;

interface GeneratedSession {
  readonly label: string;
  readonly id: string;
  readonly cwd: string;
  readonly prompts: readonly string[];
  /** The file the agent created for it. */
  readonly path: string;
}

interface ListRow {
  readonly id: string;
  readonly name: string | null;
  readonly title: string;
  readonly agent: string;
  readonly path: string;
  readonly paths: readonly string[];
  readonly cwd: string | null;
  readonly firstPrompt: string | null;
  readonly lastPrompt: string | null;
  readonly userTurns: number;
  readonly forkedFrom: string | null;
}

interface ForkJson {
  readonly agent: string;
  readonly id: string;
  readonly path: string;
  readonly parentId: string;
  readonly keptUserTurns: number;
  readonly resume: { readonly argv: readonly string[]; readonly cwd: string | null };
}

const sha256 = (data: Buffer): string => createHash('sha256').update(data).digest('hex');

/**
 * The issue-4 round trip for one agent: real sessions written by the real agent, read by `sessions list`/`show`,
 * forked by `sessions fork`, the fork resumed by the agent (which must see exactly turns 1-2), and the original
 * resumed through `sessions resume` (appending in place, its old bytes untouched).
 */
/**
 * What a fork kept before `newPrompt`: prompts 1 and 2 and their answers (the tool turn included), the reasoning
 * as the agent replays it (an opaque blob unaltered: a real API rejects a tampered one), nothing of turn 3 on.
 */
function turnsOneAndTwoThen(prompts: readonly string[], driver: AgentDriver, newPrompt: string): ConversationItem[] {
  const reasoning = driver.replayedReasoning(prompts[0]!);
  return [
    { kind: 'user', text: prompts[0]! },
    ...(reasoning === null ? [] : [reasoning]),
    { kind: 'assistant', text: ANSWER_PREFIX + prompts[0] },
    { kind: 'user', text: prompts[1]! },
    { kind: 'tool_call', name: driver.toolName },
    { kind: 'tool_result', text: expect.stringContaining('interop-tool-ran') as unknown as string },
    { kind: 'assistant', text: TOOL_FINAL_TEXT },
    { kind: 'user', text: newPrompt },
  ];
}

export function defineRoundTripSuite(key: string): void {
  const availability = inject('interopTargets')[key];
  if (availability === undefined) throw new Error(`no interop target ${key} (test/interop/agents.ts)`);
  const pin = availability.target;
  const agent = pin.agent;
  // opencode's and Kilo's sessions are rows of a database; Auggie rewrites its whole session file on every turn.
  if (agent === 'opencode' || agent === 'kilo' || agent === 'auggie') throw new Error(`${agent} has its own round trip (${agent}.test.ts)`);
  const driver = DRIVERS[agent];
  const tag = `zq${agent}`;

  describe.skipIf(!availability.available)(`${pin.packageName}@${pin.version} (the real agent) round trips through sessions`, () => {
    const bin = availability.available ? availability.bin : '';
    let sandbox: Sandbox;
    let standIn: ModelStandIn;
    const generated: Record<'main' | 'single' | 'pair', GeneratedSession> = {} as never;
    /** The 4-turn session's file as the agent left it, before anything `sessions` did. */
    let mainBefore: { bytes: Buffer; hash: string };
    let failed = false;

    const mainPrompts = [
      `${tag}-main-t1 What does the alpha project do?`,
      `${tag}-main-t2 ${TOOL_KEYWORD}: show me what the tool prints.`,
      `${tag}-main-t3 Add a health check endpoint.`,
      `${tag}-main-t4 Now write a test for it.`,
    ];

    async function runAgent(args: readonly string[], cwd: string, label: string): Promise<ProcessResult> {
      const result = await runProcess(bin, args, { cwd, env: sandbox.env, timeoutMs: AGENT_TIMEOUT_MS });
      if (result.timedOut || result.code !== 0) throw new Error(describeRun(`${agent} ${label}`, result));
      return result;
    }

    async function sessionsCli(args: readonly string[], cwd = sandbox.root, timeoutMs = CLI_TIMEOUT_MS): Promise<ProcessResult> {
      return runProcess(process.execPath, [SESSIONS_BIN, ...args], { cwd, env: sandbox.env, timeoutMs });
    }

    async function sessionsJson<T>(args: readonly string[]): Promise<T> {
      const result = await sessionsCli(args);
      expect(result.code, describeRun(`sessions ${args.join(' ')}`, result)).toBe(0);
      try {
        return JSON.parse(result.stdout) as T;
      } catch {
        throw new Error(`sessions ${args.join(' ')} printed no JSON:\n${describeRun('sessions', result)}`);
      }
    }

    async function listRows(): Promise<ListRow[]> {
      const rows = await sessionsJson<ListRow[]>(['list', '--json', '--all', '--home', sandbox.home]);
      return rows.filter((row) => row.agent === agent);
    }

    /** A new session (first prompt) plus one resumed turn per further prompt; checks each run's id and file. */
    async function generate(label: string, cwd: string, prompts: readonly string[]): Promise<GeneratedSession> {
      const before = await driver.sessionFiles(sandbox);
      const first = await runAgent(driver.newSessionArgs(prompts[0]!), cwd, `new session (${label})`);
      const id = driver.reportedSessionId(first.stdout);
      if (!id) throw new Error(`${agent} reported no session id for ${label}:\n${describeRun(agent, first)}`);
      const created = (await driver.sessionFiles(sandbox)).filter((path) => !before.includes(path));
      if (created.length !== 1 || !(driver.fileIsNamedFor ?? ((path: string, sid: string) => path.includes(sid)))(created[0]!, id)) {
        throw new Error(`${agent} new session ${id} (${label}) should create exactly one file named by its id (or in a folder so named); new files: ${JSON.stringify(created)}`);
      }
      const path = created[0]!;
      for (const prompt of prompts.slice(1)) {
        const resumed = await runAgent(driver.resumeArgs(id, prompt), cwd, `resume ${id} (${label})`);
        const reported = driver.reportedSessionId(resumed.stdout);
        if (reported !== id) throw new Error(`${agent} resume of ${id} reported session ${reported}:\n${describeRun(agent, resumed)}`);
      }
      const after = await driver.sessionFiles(sandbox);
      if (after.length !== before.length + 1) throw new Error(`${agent} resuming ${label} created files: ${JSON.stringify(after.filter((p) => !before.includes(p)))}`);
      return { label, id, cwd, prompts, path };
    }

    beforeAll(async () => {
      standIn = await startModelStandIn();
      const root = await realpath(await mkdtemp(join(tmpdir(), `sessions-interop-${agent}-`)));
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
        COPILOT_HOME: base.copilotHome,
        XDG_CONFIG_HOME: join(home, '.config'),
        XDG_CACHE_HOME: join(home, '.cache'),
        XDG_DATA_HOME: join(home, '.local', 'share'),
        XDG_STATE_HOME: join(home, '.local', 'state'),
        SESSIONS_CONFIG: base.sessionsConfig,
        NO_COLOR: '1',
      });
      sandbox = { ...base, env };
      Object.assign(env, await driver.prepare(sandbox, standIn.origin));
      // `sessions resume --prompt` runs the product's default exec template with the cached binary's absolute path.
      await writeFile(base.sessionsConfig, `${JSON.stringify({ exec: { [agent]: driver.execTemplate(bin) } }, null, 2)}\n`);

      const alpha = join(base.projects, 'alpha');
      const spaced = join(base.projects, 'beta with space');
      const gamma = join(base.projects, 'gamma');
      for (const dir of [alpha, spaced, gamma]) await mkdir(dir, { recursive: true });
      try {
        generated.main = await generate('main', alpha, mainPrompts);
        generated.single = await generate('single', spaced, [`${tag}-single-t1 Hello from a directory with a space.`]);
        generated.pair = await generate('pair', gamma, [`${tag}-pair-t1 First question.`, `${tag}-pair-t2 Second question.`]);
      } catch (error) {
        failed = true;
        throw error;
      }
      const bytes = await readFile(generated.main.path);
      mainBefore = { bytes, hash: sha256(bytes) };
    });

    beforeEach(({ onTestFailed }) => {
      onTestFailed(() => {
        failed = true;
      });
    });

    afterAll(async () => {
      await standIn?.close();
      if (!sandbox) return;
      // A failure keeps the evidence: the agent's files and every request body it sent.
      if (failed || process.env.SESSIONS_INTEROP_KEEP === '1') {
        // Everything the agent sent, for reading by hand: one request per line.
        const lines = (standIn?.requests ?? []).map((request) => JSON.stringify({ seq: request.seq, path: request.path, reply: request.reply, body: request.body }));
        await writeFile(join(sandbox.root, 'stand-in-requests.jsonl'), `${lines.join('\n')}\n`);
        process.stderr.write(`[interop] kept ${agent} sandbox (and the stand-in's requests): ${sandbox.root}\n`);
      } else {
        await removeSandbox(sandbox.root);
      }
    });

    test('sessions list --json reports every session the agent wrote: id, path, cwd, user turns, first and last prompt', async () => {
      const rows = await listRows();
      for (const session of Object.values(generated)) {
        const matching = rows.filter((row) => row.id === session.id);
        expect(matching, `list rows for ${session.label} session ${session.id}`).toHaveLength(1);
        expect(matching[0]).toMatchObject({
          id: session.id,
          agent,
          path: session.path,
          cwd: session.cwd,
          userTurns: session.prompts.length,
          firstPrompt: session.prompts[0],
          lastPrompt: session.prompts.at(-1),
          forkedFrom: null,
        });
      }
      // One row per conversation: no duplicates, no rows for the agent's side files.
      expect(rows.map((row) => row.id).sort()).toEqual(Object.values(generated).map((s) => s.id).sort());

      // The same from CODEX_HOME / CLAUDE_CONFIG_DIR alone (no location flags).
      const fromEnv = await sessionsCli(['list', '--json', '--all']);
      expect(fromEnv.code, describeRun('sessions list --json --all', fromEnv)).toBe(0);
      const envIds = (JSON.parse(fromEnv.stdout) as ListRow[]).filter((row) => row.agent === agent).map((row) => row.id);
      expect(envIds.sort()).toEqual(Object.values(generated).map((s) => s.id).sort());
    });

    test('sessions show (replay) reads the 4-turn session: the prompts in order, answers, reasoning, the tool call and its result', async () => {
      const session = await sessionsJson<{
        id: string;
        userTurns: number;
        messages: { role: string; userTurn: boolean; blocks: { type: string; text?: string; name?: string; output?: string; summary?: string; encrypted?: boolean }[] }[];
      }>(['show', generated.main.id, '--format', 'json', '--home', sandbox.home]);
      expect(session.id).toBe(generated.main.id);
      expect(session.userTurns).toBe(4);
      const userTexts = session.messages
        .filter((message) => message.userTurn)
        .map((message) => message.blocks.filter((block) => block.type === 'text').map((block) => block.text).join('\n'));
      expect(userTexts).toEqual(mainPrompts);
      const blocks = session.messages.flatMap((message) => message.blocks);
      const texts = blocks.filter((block) => block.type === 'text').map((block) => block.text);
      expect(texts).toContain(ANSWER_PREFIX + mainPrompts[0]);
      expect(texts).toContain(TOOL_FINAL_TEXT);
      expect(blocks.filter((block) => block.type === 'tool_use').map((block) => block.name)).toEqual([driver.toolName]);
      expect(blocks.filter((block) => block.type === 'reasoning')).toContainEqual(driver.shownReasoning(mainPrompts[0]!));
      const results = blocks.filter((block) => block.type === 'tool_result');
      expect(results).toHaveLength(1);
      expect(results[0]!.output).toContain('interop-tool-ran');
    });

    test('sessions fork --at 3 writes a fork the agent resumes with exactly turns 1-2, appending to the fork file', async () => {
      const main = generated.main;
      const filesBefore = await driver.sessionFiles(sandbox);
      const fork = await sessionsJson<ForkJson>(['fork', main.id, '--at', '3', '--json', '--home', sandbox.home]);
      // Soft: a wrong detail here should not hide what the agent does with the fork below.
      expect.soft(fork).toMatchObject({ agent, parentId: main.id, keptUserTurns: 2 });
      expect.soft(fork.id).not.toBe(main.id);
      expect.soft(fork.resume.cwd).toBe(main.cwd);
      // `codex resume ID`, `claude --resume ID`, `copilot --resume=ID`: the id is an argument or part of one.
      expect.soft(fork.resume.argv.some((arg) => arg === fork.id || arg.endsWith(`=${fork.id}`)), JSON.stringify(fork.resume.argv)).toBe(true);
      const filesAfterFork = await driver.sessionFiles(sandbox);
      expect.soft(filesAfterFork.filter((path) => !filesBefore.includes(path)), 'the fork is one new session file').toEqual([fork.path]);
      expect.soft(sha256(await readFile(main.path)), 'forking must not touch the original file').toBe(mainBefore.hash);

      const listedFork = (await listRows()).find((row) => row.id === fork.id);
      expect.soft(listedFork, `sessions list shows the fork ${fork.id}`).toMatchObject({
        path: fork.path,
        cwd: main.cwd,
        userTurns: 2,
        firstPrompt: mainPrompts[0],
        lastPrompt: mainPrompts[1],
        forkedFrom: main.id,
      });

      // The real agent resumes the fork, in the fork's recorded cwd (Claude looks sessions up by it).
      const forkBytes = await readFile(fork.path);
      const newPrompt = `${tag}-fork-t3 Instead, explain the error handling.`;
      const mark = standIn.requests.length;
      const resumed = await runAgent(driver.resumeArgs(fork.id, newPrompt), fork.resume.cwd ?? main.cwd, `resume of the fork ${fork.id}`);
      expect(driver.reportedSessionId(resumed.stdout), 'the agent continued the fork under its own id').toBe(fork.id);

      const requests = driver.turnRequests(standIn.since(mark));
      expect(requests.length, 'the agent asked the model at least once').toBeGreaterThan(0);
      expect(driver.conversation(requests[0]!.body), 'the history the agent sent for the fork: turns 1-2 and the new prompt').toEqual(
        turnsOneAndTwoThen(mainPrompts, driver, newPrompt),
      );
      for (const request of requests) {
        for (const dropped of [`${tag}-main-t3`, `${tag}-main-t4`]) {
          expect(request.raw.includes(dropped), `request #${request.seq} must carry nothing from turn 3 on (found ${dropped})`).toBe(false);
        }
      }

      const filesAfterResume = await driver.sessionFiles(sandbox);
      expect(filesAfterResume, 'resuming the fork creates no new file').toEqual(filesAfterFork);
      const forkAfter = await readFile(fork.path);
      expect(forkAfter.length, 'the agent appended to the fork file').toBeGreaterThan(forkBytes.length);
      expect(sha256(forkAfter.subarray(0, forkBytes.length)), 'the fork file kept its bytes; the agent only appended').toBe(sha256(forkBytes));
      expect(forkAfter.subarray(forkBytes.length).toString('utf8')).toContain(newPrompt);
      expect(sha256(await readFile(main.path)), 'resuming the fork must not touch the original file').toBe(mainBefore.hash);

      const listedAfter = (await listRows()).find((row) => row.id === fork.id);
      expect(listedAfter).toMatchObject({ path: fork.path, userTurns: 3, firstPrompt: mainPrompts[0], lastPrompt: newPrompt });
    });

    test.skipIf(!driver.agentForkArgs)("a fork the agent made itself is listed with its parent, and sessions fork of it resumes with exactly turns 1-2", async () => {
      const main = generated.main;
      const filesBefore = await driver.sessionFiles(sandbox);
      const agentForkPrompt = `${tag}-agentfork-t5 Take another direction.`;
      const made = await runAgent(driver.agentForkArgs!(main.id, agentForkPrompt), main.cwd, `fork of ${main.id}`);
      const childId = driver.reportedSessionId(made.stdout);
      expect(childId, describeRun(`${agent} fork`, made)).toBeTruthy();
      expect(childId).not.toBe(main.id);
      const created = (await driver.sessionFiles(sandbox)).filter((path) => !filesBefore.includes(path));
      expect(created, 'the agent wrote one new file for its fork').toHaveLength(1);
      const childPath = created[0]!;
      expect((driver.fileIsNamedFor ?? ((path: string, sid: string) => path.includes(sid)))(childPath, childId!)).toBe(true);
      expect(sha256(await readFile(main.path)), "the agent's fork left the parent file alone").toBe(mainBefore.hash);

      const child = (await listRows()).find((row) => row.id === childId);
      expect.soft(child, `sessions list shows the agent's fork ${childId}`).toMatchObject({
        path: childPath,
        cwd: main.cwd,
        userTurns: 5,
        firstPrompt: mainPrompts[0],
        forkedFrom: main.id,
      });
      // Claude Code 2.1.197 ends a --fork-session file with a `last-prompt` record naming the FIRST prompt (its
      // leafUuid is right, its text is not); lastPrompt must still be the conversation's last prompt. Soft, so
      // that it does not hide whether the fork below round-trips.
      expect.soft(child?.lastPrompt, `sessions list --json: lastPrompt of the agent's own fork ${childId} (${childPath})`).toBe(agentForkPrompt);

      // Fork the agent's fork (for Codex 0.16x that means reading its history out of the parent's file).
      const fork = await sessionsJson<ForkJson>(['fork', childId!, '--at', '3', '--json', '--home', sandbox.home]);
      expect.soft(fork).toMatchObject({ agent, parentId: childId, keptUserTurns: 2 });
      const newPrompt = `${tag}-fork2-t3 Back to turn three, differently.`;
      const mark = standIn.requests.length;
      const resumed = await runAgent(driver.resumeArgs(fork.id, newPrompt), fork.resume.cwd ?? main.cwd, `resume of the fork ${fork.id}`);
      expect(driver.reportedSessionId(resumed.stdout)).toBe(fork.id);
      const requests = driver.turnRequests(standIn.since(mark));
      expect(requests.length).toBeGreaterThan(0);
      expect(driver.conversation(requests[0]!.body), 'the history the agent sent for the fork of its fork').toEqual(
        turnsOneAndTwoThen(mainPrompts, driver, newPrompt),
      );
      for (const request of requests) {
        for (const dropped of [`${tag}-main-t3`, `${tag}-main-t4`, `${tag}-agentfork-t5`]) {
          expect(request.raw.includes(dropped), `request #${request.seq} must carry nothing from turn 3 on (found ${dropped})`).toBe(false);
        }
      }
      expect(sha256(await readFile(main.path)), 'no fork touched the original file').toBe(mainBefore.hash);
    });

    test.skipIf(!driver.slashCommandArgs)("the agent's own /rename and /compact: the row takes the name, the turns stay the user's, show marks the compaction", async () => {
      const pair = generated.pair;
      const name = `${tag} renamed pair`;
      await runAgent(driver.slashCommandArgs!(pair.id, `/rename ${name}`), pair.cwd, `/rename of ${pair.id}`);
      await runAgent(driver.slashCommandArgs!(pair.id, '/compact'), pair.cwd, `/compact of ${pair.id}`);
      // Claude Code 2.1.330 renames under -p (a custom-title line and a sidecar); 2.1.197 answers "/rename isn't available in this environment".
      const renamed = (await readFile(pair.path, 'utf8')).includes('"type":"custom-title"');
      const row = (await listRows()).find((r) => r.id === pair.id);
      expect(row, `sessions list shows ${pair.id} after /rename and /compact`).toMatchObject({
        userTurns: 2,
        firstPrompt: pair.prompts[0],
        lastPrompt: pair.prompts[1],
        name: renamed ? name : null,
        title: renamed ? name : pair.prompts[0],
      });
      const shown = await sessionsJson<{ userTurns: number; messages: { userTurn: boolean; blocks: { type: string; text?: string }[] }[] }>([
        'show', pair.id, '--format', 'json', '--home', sandbox.home,
      ]);
      expect(shown.userTurns).toBe(2);
      expect(shown.messages.some((message) => message.blocks.some((block) => block.type === 'compaction')), 'a compaction marker').toBe(true);
      const typed = shown.messages.filter((message) => !message.userTurn).flatMap((message) => message.blocks.filter((block) => block.type === 'text').map((block) => block.text));
      expect(typed, 'the local commands, shown as typed').toEqual(expect.arrayContaining(renamed ? [`/rename ${name}`, '/compact'] : ['/compact']));
    });

    test('sessions resume <id> --prompt continues the original in place: same file, no new file, old bytes intact', async () => {
      const main = generated.main;
      const dryRun = await sessionsJson<{ argv: string[]; cwd: string | null }>(['resume', main.id, '--dry-run', '--json', '--home', sandbox.home]);
      expect(dryRun.cwd).toBe(main.cwd);
      expect(dryRun.argv.some((arg) => arg === main.id || arg.endsWith(`=${main.id}`)), JSON.stringify(dryRun.argv)).toBe(true);

      const filesBefore = await driver.sessionFiles(sandbox);
      const sizeBefore = (await stat(main.path)).size;
      const newPrompt = `${tag}-main-t5 Summarise what we did.`;
      const mark = standIn.requests.length;
      // Run from elsewhere: `sessions` must take the agent to the session's recorded cwd itself.
      const run = await sessionsCli(
        ['resume', main.id, '--home', sandbox.home, '--prompt', newPrompt, '--', ...driver.passThroughArgs],
        sandbox.root,
        AGENT_TIMEOUT_MS + 30_000,
      );
      expect(run.code, describeRun(`sessions resume ${main.id} --prompt …`, run)).toBe(0);

      const requests = driver.turnRequests(standIn.since(mark));
      expect(requests.length, 'the agent asked the model').toBeGreaterThan(0);
      const prompts = driver.conversation(requests[0]!.body).flatMap((item) => (item.kind === 'user' ? [item.text] : []));
      expect(prompts, 'the original resumed with all its turns').toEqual([...mainPrompts, newPrompt]);

      expect(await driver.sessionFiles(sandbox), 'resuming creates no new file').toEqual(filesBefore);
      const after = await readFile(main.path);
      expect(after.length, 'the original file grew').toBeGreaterThan(sizeBefore);
      expect(sha256(after.subarray(0, mainBefore.bytes.length)), "the original's bytes from before any fork are unchanged").toBe(mainBefore.hash);
      expect(after.subarray(sizeBefore).toString('utf8')).toContain(newPrompt);

      const listed = (await listRows()).find((row) => row.id === main.id);
      expect(listed).toMatchObject({ path: main.path, userTurns: 5, lastPrompt: newPrompt });
    });
  });
}
