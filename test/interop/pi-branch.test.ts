// `sessions fork --leaf`: the branch pi's /tree left behind, forked and resumed by the real pi (issue 30). pi writes a
// tree (three prompts, then back to the second through `navigateTree`, what /tree runs, and another prompt there);
// `sessions fork --leaf <the old branch's last entry> --at 3` must give pi exactly that branch's first two turns.
import { mkdir, mkdtemp, realpath, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { describeRun, PROJECT_ROOT, runProcess } from './agents.js';
import { DRIVERS, type Sandbox } from './drivers.js';
import { startModelStandIn, type ModelStandIn } from './model-stand-in.js';
import { AGENT_TIMEOUT_MS, SCRUBBED_ENV } from './round-trip.js';
import { removeSandbox } from './sandbox-cleanup.js';

const availability = inject('interopTargets').pi!;
const driver = DRIVERS.pi;
const SESSIONS_BIN = join(PROJECT_ROOT, 'bin', 'sessions.js');

// `/tree` from a command (pi's TUI is where /tree is typed): back to the prompt holding the argument.
const TREE_EXTENSION = `export default function (pi) {
  pi.registerCommand('tree-to', {
    description: 'navigate the session tree to the prompt holding the argument',
    handler: async (args, ctx) => {
      const target = ctx.sessionManager.getEntries().find((entry) => entry.type === 'message' && entry.message.role === 'user' && JSON.stringify(entry.message.content).includes(args.trim()));
      if (!target) throw new Error('no prompt holds ' + args);
      await ctx.navigateTree(target.id, { summarize: true });
    },
  });
}
`;

describe.skipIf(!availability.available)(`pi ${availability.target.version}: fork another branch of a tree (--leaf)`, () => {
  const bin = availability.available ? availability.bin : '';
  let standIn: ModelStandIn;
  let sandbox: Sandbox;
  let project: string;

  const run = async (command: string, args: readonly string[], cwd: string) => {
    const result = await runProcess(command, args, { cwd, env: sandbox.env, timeoutMs: AGENT_TIMEOUT_MS });
    if (result.timedOut || result.code !== 0) throw new Error(describeRun(`${command} ${args.join(' ')}`, result));
    return result;
  };

  beforeAll(async () => {
    standIn = await startModelStandIn();
    const root = await realpath(await mkdtemp(join(tmpdir(), 'sessions-interop-pi-branch-')));
    const home = join(root, 'home');
    const base = { root, home, codexHome: join(home, '.codex'), claudeDir: join(home, '.claude'), copilotHome: join(home, '.copilot'), projects: join(root, 'projects'), sessionsConfig: join(root, 'sessions-config.json') };
    const env: NodeJS.ProcessEnv = {};
    for (const [key, value] of Object.entries(process.env)) if (!SCRUBBED_ENV.test(key)) env[key] = value;
    Object.assign(env, { HOME: home, XDG_CONFIG_HOME: join(home, '.config'), XDG_CACHE_HOME: join(home, '.cache'), XDG_DATA_HOME: join(home, '.local', 'share'), SESSIONS_CONFIG: base.sessionsConfig, NO_COLOR: '1' });
    sandbox = { ...base, env };
    Object.assign(env, await driver.prepare(sandbox, standIn.origin));
    await writeFile(base.sessionsConfig, '{}\n');
    project = join(base.projects, 'tree');
    await mkdir(project, { recursive: true });
  });

  afterAll(async () => {
    await standIn?.close();
    if (sandbox) await removeSandbox(sandbox.root);
  });

  it('the real pi resumes the fork of the branch left behind with exactly its first two turns', async () => {
    const first = await run(bin, driver.newSessionArgs('zqbranch-t1 Plan the migration.'), project);
    const id = driver.reportedSessionId(first.stdout)!;
    expect(id).toBeTruthy();
    await run(bin, driver.resumeArgs(id, 'zqbranch-t2 Use a blue-green deploy.'), project);
    await run(bin, driver.resumeArgs(id, 'zqbranch-t3 Write the runbook.'), project);
    const extension = join(sandbox.root, 'tree-to.js');
    await writeFile(extension, TREE_EXTENSION);
    await run(bin, ['--mode', 'json', '-e', extension, '--session', id, '-p', '/tree-to zqbranch-t2', 'zqbranch-t2b Use a canary deploy instead.'], project);

    // The row is the branch pi resumes; the transcript names the other branch's last entry.
    const shown = await run(process.execPath, [SESSIONS_BIN, 'show', id, '--system', '--home', sandbox.home], sandbox.root);
    expect(shown.stdout).toContain('zqbranch-t2b');
    const leaf = /sessions fork --leaf ([0-9a-f]{8})\)/.exec(shown.stdout)?.[1];
    expect(leaf, shown.stdout).toBeDefined();

    const forked = await run(process.execPath, [SESSIONS_BIN, 'fork', id, '--leaf', leaf!, '--at', '3', '--json', '--home', sandbox.home], sandbox.root);
    const fork = JSON.parse(forked.stdout) as { id: string; keptUserTurns: number };
    expect(fork.keptUserTurns).toBe(2);

    const mark = standIn.requests.length;
    await run(bin, driver.resumeArgs(fork.id, 'zqbranch-t4 And the rollback plan?'), project);
    const requests = driver.turnRequests(standIn.since(mark));
    expect(requests.length).toBeGreaterThan(0);
    const prompts = driver.conversation(requests[0]!.body).flatMap((item) => (item.kind === 'user' ? [item.text] : []));
    expect(prompts).toEqual(['zqbranch-t1 Plan the migration.', 'zqbranch-t2 Use a blue-green deploy.', 'zqbranch-t4 And the rollback plan?']);
    const answers = driver.conversation(requests[0]!.body).filter((item) => item.kind === 'assistant');
    expect(answers).toHaveLength(2);
  });
});
