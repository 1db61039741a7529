// `sessions fork ID --at 3 --with-code` on sessions the real agents just wrote against the model stand-in: turns 1, 2
// and 3 each rewrite notes.txt (the test keeps a copy from before each turn); the fork's worktree must hold the file as
// it was before turn 3, byte for byte, and the real CLI, resuming the fork, must run there: its request names the
// worktree as its directory, its shell tool prints it and edits the worktree's notes.txt, its new lines go into the
// fork's file. The user's repository (status, stashes, branches, HEAD, files) is the same before and after.
// Claude Code 2.1.330 records file checkpoints under `claude -p` with CLAUDE_CODE_ENABLE_SDK_FILE_CHECKPOINTING=1.
// Codex records ghost commits only up to its 0.5x releases (0.169.0 lists its `undo` feature as removed and skips
// `ghost_snapshot` lines when reading): the Codex half runs the second pinned release, codex-0.58.0.
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, realpath, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { describeRun, PROJECT_ROOT, runProcess, type ProcessResult } from './agents.js';
import { claudeDriver, codexDriver, type AgentDriver, type Sandbox } from './drivers.js';
import { startModelStandIn, type ModelStandIn, type RecordedRequest } from './model-stand-in.js';
import { SCRUBBED_ENV } from './round-trip.js';
import { editPrompt, editScript, FORK_EDIT_CONTENT, FORK_EDIT_PROMPT, gitEnv, makeRepository, notesAt } from './with-code.js';
import { removeSandbox } from './sandbox-cleanup.js';

const targets = inject('interopTargets');
const SESSIONS_BIN = join(PROJECT_ROOT, 'bin', 'sessions.js');
const TURN_TIMEOUT_MS = 90_000;

interface Case {
  readonly key: string;
  readonly driver: AgentDriver;
  /** argv of a new session (resume: null) or of a resumed one, for a prompt. */
  readonly argv: (resume: string | null, prompt: string) => string[];
  /** Extra environment for the agent (Claude Code's file checkpoints under -p). */
  readonly env: NodeJS.ProcessEnv;
  /**
   * Where the resumed agent says it runs: Claude Code in its request (an `Environment update` naming the worktree after
   * the system prompt's first one); Codex 0.58 in the `turn_context` it appends (its request restates no environment).
   */
  readonly ranIn: (request: RecordedRequest, appended: string) => string | null;
}

const claudeArgs = ['-p', '--output-format', 'json', '--permission-mode', 'acceptEdits', '--allowedTools=Write,Edit,Read,Bash'];
const codexArgs = ['exec', '--json', '--dangerously-bypass-approvals-and-sandbox'];

/** The cwd of the last `turn_context` line Codex appended. */
function codexCwd(_request: RecordedRequest, appended: string): string | null {
  const contexts = appended.split('\n').filter((line) => line.includes('"type":"turn_context"')).map((line) => (JSON.parse(line) as { payload: { cwd?: string } }).payload.cwd);
  return contexts.at(-1) ?? null;
}

/** The last `Primary working directory: X` of Claude Code's request (the system prompt's, then any environment update). */
function claudeCwd(request: RecordedRequest): string | null {
  return [...request.raw.matchAll(/Primary working directory: ([^\s"\\]+)/g)].at(-1)?.[1] ?? null;
}

const CASES: readonly Case[] = [
  {
    key: 'claude',
    driver: claudeDriver,
    argv: (resume, prompt) => [...claudeArgs, ...(resume === null ? [] : ['--resume', resume]), prompt],
    env: { CLAUDE_CODE_ENABLE_SDK_FILE_CHECKPOINTING: '1' },
    ranIn: claudeCwd,
  },
  {
    key: 'codex-0.58.0',
    driver: codexDriver,
    argv: (resume, prompt) => (resume === null ? [...codexArgs, prompt] : [...codexArgs, 'resume', resume, prompt]),
    env: {},
    ranIn: codexCwd,
  },
];

/** What the user has in a repository: status, stashes, branches and their commits, HEAD, the index, the files. */
async function userState(git: (...args: string[]) => Promise<string>, repo: string): Promise<unknown> {
  const files: Record<string, string> = {};
  for (const name of (await readdir(repo)).filter((name) => name !== '.git')) files[name] = await readFile(join(repo, name), 'utf8');
  return {
    status: await git('status', '--porcelain=v1', '--untracked-files=all'),
    stash: await git('stash', 'list'),
    // The fork's own branch, sessions/<fork id>, is the one ref --with-code adds (checked on its own).
    branches: (await git('for-each-ref', '--format=%(refname) %(objectname)', 'refs/heads', 'refs/stash')).split('\n').filter((line) => !line.startsWith('refs/heads/sessions/')),
    head: await git('rev-parse', 'HEAD'),
    symbolic: await git('symbolic-ref', 'HEAD'),
    index: await git('ls-files', '--stage'),
    files,
  };
}

for (const testCase of CASES) {
  const availability = targets[testCase.key];
  if (availability === undefined) throw new Error(`no interop target ${testCase.key} (test/interop/agents.ts)`);
  const pin = availability.target;

  describe.skipIf(!availability.available)(`${pin.packageName}@${pin.version}: fork --at 3 --with-code, resumed by the real agent in the worktree`, () => {
    const bin = availability.available ? availability.bin : '';
    let root: string;
    let home: string;
    let env: NodeJS.ProcessEnv;
    let standIn: ModelStandIn;

    beforeAll(async () => {
      standIn = await startModelStandIn({ script: editScript });
      root = await realpath(await mkdtemp(join(tmpdir(), `sessions-interop-with-code-${pin.agent}-`)));
      home = join(root, 'home');
      const sandbox: Sandbox = { root, home, codexHome: join(home, '.codex'), claudeDir: join(home, '.claude'), copilotHome: join(home, '.copilot'), projects: join(root, 'src'), sessionsConfig: join(root, 'sessions-config.json'), env: {} };
      for (const dir of [sandbox.codexHome, sandbox.claudeDir, sandbox.projects]) await mkdir(dir, { recursive: true });
      await writeFile(join(home, '.gitconfig'), '');
      env = {};
      for (const [key, value] of Object.entries(process.env)) if (!SCRUBBED_ENV.test(key) && !key.startsWith('GIT_')) env[key] = value;
      Object.assign(env, {
        HOME: home,
        CODEX_HOME: sandbox.codexHome,
        CLAUDE_CONFIG_DIR: sandbox.claudeDir,
        XDG_CONFIG_HOME: join(home, '.config'),
        XDG_CACHE_HOME: join(home, '.cache'),
        XDG_DATA_HOME: join(home, '.local', 'share'),
        XDG_STATE_HOME: join(home, '.local', 'state'),
        NO_COLOR: '1',
        ...gitEnv(home),
        ...(await testCase.driver.prepare(sandbox, standIn.origin)),
        ...testCase.env,
      });
    });

    afterAll(async () => {
      await standIn?.close();
      if (root) await removeSandbox(root);
    });

    async function run(command: string, args: readonly string[], cwd: string, label: string): Promise<ProcessResult> {
      const result = await runProcess(command, args, { cwd, env, timeoutMs: TURN_TIMEOUT_MS });
      if (result.timedOut || result.code !== 0) throw new Error(describeRun(label, result));
      return result;
    }

    it('gives the worktree the file as it was before turn 3, and the agent resumes the fork there', async () => {
      const repo = await makeRepository(join(root, 'src', 'notes'), env);
      const git = async (...args: string[]): Promise<string> => (await run('git', args, repo, `git ${args.join(' ')}`)).stdout;
      // The user's own state, which nothing may touch: a stash, a second branch, an untracked file.
      await writeFile(join(repo, 'README.md'), '# notes, stashed edit\n');
      await git('stash', 'push', '--quiet', '-m', 'the user\'s stash');
      await git('branch', 'feature');
      const saved: Buffer[] = [];
      let id: string | null = null;
      for (let turn = 1; turn <= 3; turn++) {
        saved[turn] = await readFile(join(repo, 'notes.txt'));
        const result = await run(bin, testCase.argv(id, editPrompt(repo, turn)), repo, `${pin.agent} turn ${turn}`);
        id = testCase.driver.reportedSessionId(result.stdout) ?? id;
        expect(id, describeRun(`${pin.agent} turn ${turn}`, result)).not.toBeNull();
        expect(await readFile(join(repo, 'notes.txt'), 'utf8')).toBe(notesAt(turn));
      }
      await writeFile(join(repo, 'scratch.txt'), 'untracked, the user\'s\n');
      expect(saved[3]!.toString()).toBe(notesAt(2));
      const before = await userState(git, repo);
      const filesBefore = (await testCase.driver.sessionFiles({ codexHome: join(home, '.codex'), claudeDir: join(home, '.claude') } as Sandbox)).sort();

      const forked = await run(process.execPath, [SESSIONS_BIN, 'fork', id!, '--at', '3', '--with-code', '--json'], root, 'sessions fork --with-code');
      const fork = JSON.parse(forked.stdout) as { id: string; path: string; keptUserTurns: number; worktree: { dir: string; branch: string; cwd: string }; resume: { cwd: string } };
      expect(fork.keptUserTurns).toBe(2);
      const dir = fork.worktree.dir;
      expect(fork.worktree).toMatchObject({ dir: join(root, 'src', `notes-${fork.id}`), branch: `sessions/${fork.id}`, cwd: dir });
      expect(fork.resume.cwd).toBe(dir);
      expect((await git('for-each-ref', '--format=%(refname:short)', 'refs/heads/sessions/')).trim()).toBe(`sessions/${fork.id}`);
      expect(await readFile(join(dir, 'notes.txt'))).toEqual(saved[3]);
      expect(existsSync(join(dir, 'scratch.txt'))).toBe(false);
      expect(await userState(git, repo)).toEqual(before);
      const forkBytes = await readFile(fork.path);

      // The real agent resumes the fork where `sessions` says it runs.
      const mark = standIn.requests.length;
      const resumed = await run(bin, testCase.argv(fork.id, FORK_EDIT_PROMPT), fork.resume.cwd, `${pin.agent} resumes the fork`);
      expect(testCase.driver.reportedSessionId(resumed.stdout)).toBe(fork.id);
      const turns = testCase.driver.turnRequests(standIn.since(mark));
      expect(turns.length).toBeGreaterThanOrEqual(2);
      // The shell call the stand-in asked for ran in the worktree: it printed it, and edited the worktree's file.
      const final = testCase.driver.conversation(turns.at(-1)!.body);
      const toolResult = final.findLast((item) => item.kind === 'tool_result');
      expect(toolResult?.kind === 'tool_result' ? toolResult.text : '').toContain(dir);
      expect(await readFile(join(dir, 'notes.txt'), 'utf8')).toBe(FORK_EDIT_CONTENT);
      expect(await readFile(join(repo, 'notes.txt'), 'utf8')).toBe(notesAt(3));
      // Nothing of turn 3 reached the model, and the new lines went into the fork's own file.
      expect(turns.some((request) => request.raw.includes('turn 3: EDIT-THE-FILE'))).toBe(false);
      const grown = await readFile(fork.path);
      expect(grown.length).toBeGreaterThan(forkBytes.length);
      expect(grown.subarray(0, forkBytes.length)).toEqual(forkBytes);
      const appended = grown.subarray(forkBytes.length).toString('utf8');
      expect(appended).toContain('EDIT-HERE notes.txt');
      expect(testCase.ranIn(turns.at(-1)!, appended)).toBe(dir);
      const filesAfter = (await testCase.driver.sessionFiles({ codexHome: join(home, '.codex'), claudeDir: join(home, '.claude') } as Sandbox)).sort();
      expect(filesAfter).toEqual([...filesBefore, fork.path].sort());
      expect(await userState(git, repo)).toEqual(before);
    }, 600_000);
  });
}
