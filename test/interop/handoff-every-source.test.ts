// Issue 28, 5: a whole conversation of every agent (its contract fixture, written by its real CLI; claw's is synthetic:
// there is no claw CLI to run) handed off to Codex 0.169 and to Claude Code 2.1.330, then resumed by the real target
// against the loopback stand-in. The target must accept the file (a non-UUID source id, opencode's `ses_…` or claw's
// `session-…`, made Codex refuse it), continue it under the new id, and send the model every prompt of the source in
// order, the note naming the source, every tool call paired with its result, then the new prompt.
import { mkdir, mkdtemp, readFile, realpath, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, inject, test } from 'vitest';
import { ADAPTER_LIST, ADAPTERS } from '../../src/core/formats/index.js';
import { handOff } from '../../src/core/handoff/index.js';
import type { Agent, Session } from '../../src/core/model.js';
import { contextFor, copyRoot, readExpectation, sessionGroup } from '../contract/fixtures.js';
import { describeRun, runProcess } from './agents.js';
import { DRIVERS, type ConversationItem, type Sandbox } from './drivers.js';
import { startModelStandIn, type ModelStandIn } from './model-stand-in.js';
import { AGENT_TIMEOUT_MS, SCRUBBED_ENV } from './round-trip.js';
import { removeSandbox } from './sandbox-cleanup.js';

const NOTE_OPENING = '[sessions] This conversation was handed off to';
const TARGETS = ['codex', 'claude'] as const;
const targets = inject('interopTargets');
const bins: Partial<Record<(typeof TARGETS)[number], string>> = {};
for (const agent of TARGETS) {
  const pin = targets[agent];
  if (pin?.available) bins[agent] = pin.bin;
}

/** The source session of `agent`'s contract fixture, read by its adapter from a copy under `into`. */
async function contractSession(agent: Agent, into: string): Promise<Session> {
  const adapter = ADAPTERS[agent];
  const expectation = await readExpectation(agent);
  const root = await copyRoot(agent, expectation, into);
  const session = await adapter.readSession(await sessionGroup(adapter, root, expectation), await contextFor(adapter, root));
  expect(session.messages.filter((m) => m.userTurn).length, `${agent}'s fixture`).toBe(expectation.session.userTurns);
  return session;
}

describe.skipIf(!bins.codex && !bins.claude)(`a whole conversation of every agent handed off to ${TARGETS.map((t) => `${targets[t]?.target.packageName}@${targets[t]?.target.version}`).join(' and ')} (the real CLIs)`, () => {
  let sandbox: Sandbox;
  let standIn: ModelStandIn;
  let failed = false;

  beforeAll(async () => {
    standIn = await startModelStandIn();
    const root = await realpath(await mkdtemp(join(tmpdir(), 'sessions-interop-every-source-')));
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
      NO_COLOR: '1',
    });
    sandbox = { ...base, env };
    for (const agent of TARGETS) if (bins[agent]) Object.assign(env, await DRIVERS[agent].prepare(sandbox, standIn.origin));
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
      process.stderr.write(`[interop] kept the sandbox (and the stand-in's requests): ${sandbox.root}\n`);
    } else {
      await removeSandbox(sandbox.root);
    }
  });

  for (const to of TARGETS) {
    for (const from of ADAPTER_LIST.map((adapter) => adapter.agent).filter((agent) => agent !== to)) {
      test.skipIf(!bins[to])(`${from} → ${to}: the whole conversation, resumed by the real ${to} with every prompt, the note and each call paired with its result`, async () => {
        const source = await contractSession(from, join(sandbox.root, 'sources', `${from}-to-${to}`));
        const cwd = join(sandbox.projects, `${from}-to-${to}`);
        await mkdir(cwd, { recursive: true });
        const turns = source.messages.filter((m) => m.userTurn).length;
        // The source's cwd is a recorded one (/home/dev/src/…): the hand-off is made for a cwd that exists here.
        const written = await handOff({ ...source, cwd }, { atTurn: turns + 1, to, now: new Date() }, { codex: sandbox.codexHome, claude: sandbox.claudeDir });
        expect(written.keptUserTurns).toBe(turns);
        const before = await readFile(written.path);

        const driver = DRIVERS[to];
        const newPrompt = `zqevery-${from}-to-${to} What did we do so far?`;
        const mark = standIn.requests.length;
        const result = await runProcess(bins[to]!, driver.resumeArgs(written.id, newPrompt), { cwd, env: sandbox.env, timeoutMs: AGENT_TIMEOUT_MS });
        expect(result.code, describeRun(`${to} resume of the hand-off from ${from}`, result)).toBe(0);
        expect(driver.reportedSessionId(result.stdout), `${to} continued the hand-off under its own id`).toBe(written.id);

        const requests = driver.turnRequests(standIn.since(mark));
        expect(requests.length, `${to} asked the model`).toBeGreaterThan(0);
        const sent = driver.conversation(requests[0]!.body);
        const prompts = source.messages.filter((m) => m.userTurn).map((m) => m.blocks.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('\n'));
        const users = sent.filter((item): item is Extract<ConversationItem, { kind: 'user' }> => item.kind === 'user').map((item) => item.text);
        // Codex sends the note as a developer message; Claude Code joins it (a meta line) with the first prompt.
        const firstSent = to === 'claude' ? users[0]!.replace(new RegExp(`^${escape(NOTE_OPENING)}[^\\n]*\\n+`), '') : users[0]!;
        expect([firstSent, ...users.slice(1)].map(normal), `every prompt of the ${from} session, in order, then the new one`).toEqual([...prompts, newPrompt].map(normal));
        expect(requests[0]!.raw, 'the note naming the source reached the model').toContain(`${NOTE_OPENING} ${ADAPTERS[to].label} from ${ADAPTERS[from].label} session ${source.id}`);
        const calls = source.messages.flatMap((m) => m.blocks).filter((b) => b.type === 'tool_use').length;
        expect(sent.filter((item) => item.kind === 'tool_call'), `${from}'s tool calls`).toHaveLength(calls);
        sent.forEach((item, index) => {
          if (item.kind === 'tool_call') expect(sent[index + 1]?.kind, `the call ${item.name} is followed by its result`).toBe('tool_result');
        });
        const after = await readFile(written.path);
        expect(after.subarray(0, before.length).equals(before), `${to} only appended to the hand-off`).toBe(true);
        expect(after.subarray(before.length).toString('utf8')).toContain(newPrompt);
      });
    }
  }
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** A prompt as compared: the agents trim the text they send. */
function normal(text: string): string {
  return text.trim();
}
