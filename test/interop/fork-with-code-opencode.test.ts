// `sessions fork ID --at 3 --with-code` on an opencode session the real opencode (pinned in agents.ts) just wrote
// against the model stand-in: turns 1, 2 and 3 each rewrite notes.txt through its bash tool (the test keeps a copy
// from before each turn), opencode snapshotting the working tree into its own repository as each answer begins. The
// fork's worktree must hold the file as it was before turn 3, byte for byte, and opencode, resuming the fork, must run
// there: its request names the worktree as its directory, its bash call prints it and edits the worktree's notes.txt,
// its new messages go into the fork's rows. The user's repository is the same before and after.
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, realpath, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { describeRun, PROJECT_ROOT, runProcess, type ProcessResult } from './agents.js';
import { qwenDriver } from './drivers.js';
import { startModelStandIn, type ModelStandIn, type RecordedRequest } from './model-stand-in.js';
import { opencodeSandboxEnv } from './opencode-config.js';
import { SCRUBBED_ENV } from './round-trip.js';
import { editPrompt, editScript, FORK_EDIT_CONTENT, FORK_EDIT_PROMPT, gitEnv, makeRepository, notesAt } from './with-code.js';
import { removeSandbox } from './sandbox-cleanup.js';

const SESSIONS_BIN = join(PROJECT_ROOT, 'bin', 'sessions.js');
const availability = inject('interopTargets').opencode;
if (availability === undefined) throw new Error('no interop target opencode (test/interop/agents.ts)');
const pin = availability.target;
const TURN_TIMEOUT_MS = 180_000;

describe.skipIf(!availability.available)(`${pin.packageName}@${pin.version}: fork --at 3 --with-code, resumed by the real agent in the worktree`, () => {
  const bin = availability.available ? availability.bin : '';
  let root: string;
  let home: string;
  let env: NodeJS.ProcessEnv;
  let standIn: ModelStandIn;

  beforeAll(async () => {
    standIn = await startModelStandIn({ script: editScript });
    root = await realpath(await mkdtemp(join(tmpdir(), 'sessions-interop-with-code-opencode-')));
    home = join(root, 'home');
    await mkdir(home, { recursive: true });
    await writeFile(join(home, '.gitconfig'), '');
    env = {};
    for (const [key, value] of Object.entries(process.env)) if (!SCRUBBED_ENV.test(key) && !key.startsWith('OPENCODE') && !key.startsWith('GIT_')) env[key] = value;
    Object.assign(env, opencodeSandboxEnv(home, standIn.origin), gitEnv(home), { NO_COLOR: '1' });
  });

  afterAll(async () => {
    await standIn?.close();
    if (root) await removeSandbox(root);
  });

  async function run(command: string, args: readonly string[], cwd: string, label: string): Promise<ProcessResult> {
    // PWD as a shell sets it: opencode (Bun) records PWD as the session's directory.
    const result = await runProcess(command, args, { cwd, env: { ...env, PWD: cwd }, timeoutMs: TURN_TIMEOUT_MS });
    if (result.timedOut || result.code !== 0) throw new Error(describeRun(label, result));
    return result;
  }

  async function opencode(cwd: string, args: readonly string[], label: string): Promise<string> {
    const result = await run(bin, ['run', '--format', 'json', ...args], cwd, label);
    for (const line of result.stdout.split('\n')) {
      try {
        const event = JSON.parse(line) as { sessionID?: unknown };
        if (typeof event.sessionID === 'string') return event.sessionID;
      } catch {
        // not an event line
      }
    }
    throw new Error(describeRun(`${label} reported no session`, result));
  }

  function rows(id: string | null): { ids: string[]; digest: string; messages: number; directory: string | null } {
    const handle = new Database(join(home, '.local', 'share', 'opencode', 'opencode.db'), { readonly: true });
    try {
      const ids = (handle.prepare('SELECT id FROM session ORDER BY id').all() as { id: string }[]).map((row) => row.id);
      const all = [handle.prepare('SELECT * FROM session WHERE id = ?').all(id), handle.prepare('SELECT * FROM message WHERE session_id = ? ORDER BY id').all(id), handle.prepare('SELECT * FROM part WHERE session_id = ? ORDER BY id').all(id)];
      const messages = (handle.prepare('SELECT count(*) AS n FROM message WHERE session_id = ?').get(id) as { n: number }).n;
      const directory = (handle.prepare('SELECT directory FROM session WHERE id = ?').get(id) as { directory: string } | undefined)?.directory ?? null;
      return { ids, digest: createHash('sha256').update(JSON.stringify(all)).digest('hex'), messages, directory };
    } finally {
      handle.close();
    }
  }

  /** The conversation's requests (opencode's agent sends its tools; title generation sends none). */
  const turnRequests = (requests: readonly RecordedRequest[]): RecordedRequest[] =>
    requests.filter((request) => request.method === 'POST' && request.path.endsWith('/chat/completions') && Array.isArray((request.body as { tools?: unknown } | null)?.tools));

  /** What the user has in a repository: status, stashes, branches (but the fork's) and their commits, HEAD, the index, the files. */
  async function userState(git: (...args: string[]) => Promise<string>, repo: string): Promise<unknown> {
    const files: Record<string, string> = {};
    for (const name of (await readdir(repo)).filter((name) => name !== '.git')) files[name] = await readFile(join(repo, name), 'utf8');
    return {
      status: await git('status', '--porcelain=v1', '--untracked-files=all'),
      stash: await git('stash', 'list'),
      branches: (await git('for-each-ref', '--format=%(refname) %(objectname)', 'refs/heads', 'refs/stash')).split('\n').filter((line) => !line.startsWith('refs/heads/sessions/')),
      head: await git('rev-parse', 'HEAD'),
      symbolic: await git('symbolic-ref', 'HEAD'),
      index: await git('ls-files', '--stage'),
      files,
    };
  }

  it('gives the worktree the file as it was before turn 3, and opencode resumes the fork there', async () => {
    const repo = await makeRepository(join(root, 'src', 'notes'), env);
    const git = async (...args: string[]): Promise<string> => (await run('git', args, repo, `git ${args.join(' ')}`)).stdout;
    await writeFile(join(repo, 'README.md'), '# notes, stashed edit\n');
    await git('stash', 'push', '--quiet', '-m', "the user's stash");
    await git('branch', 'feature');
    const saved: Buffer[] = [];
    let id: string | null = null;
    for (let turn = 1; turn <= 3; turn++) {
      saved[turn] = await readFile(join(repo, 'notes.txt'));
      id = await opencode(repo, [...(id === null ? [] : ['-s', id]), editPrompt(repo, turn)], `opencode turn ${turn}`);
      expect(await readFile(join(repo, 'notes.txt'), 'utf8')).toBe(notesAt(turn));
    }
    await writeFile(join(repo, 'scratch.txt'), "untracked, the user's\n");
    expect(saved[3]!.toString()).toBe(notesAt(2));
    const before = await userState(git, repo);
    const original = rows(id);

    const forked = await run(process.execPath, [SESSIONS_BIN, 'fork', id!, '--at', '3', '--with-code', '--json', '--home', home], root, 'sessions fork --with-code');
    const fork = JSON.parse(forked.stdout) as { id: string; keptUserTurns: number; worktree: { dir: string; branch: string; cwd: string }; resume: { cwd: string } };
    expect(fork.keptUserTurns).toBe(2);
    const dir = fork.worktree.dir;
    expect(fork.worktree).toMatchObject({ dir: join(root, 'src', `notes-${fork.id}`), branch: `sessions/${fork.id}`, cwd: dir });
    expect(fork.resume.cwd).toBe(dir);
    expect((await git('for-each-ref', '--format=%(refname:short)', 'refs/heads/sessions/')).trim()).toBe(`sessions/${fork.id}`);
    expect(await readFile(join(dir, 'notes.txt'))).toEqual(saved[3]);
    expect(existsSync(join(dir, 'scratch.txt'))).toBe(false);
    expect(await userState(git, repo)).toEqual(before);
    const forkRows = rows(fork.id);
    expect(forkRows.directory).toBe(dir);

    // The real agent resumes the fork where `sessions` says it runs.
    const mark = standIn.requests.length;
    expect(await opencode(fork.resume.cwd, ['-s', fork.id, FORK_EDIT_PROMPT], 'opencode resumes the fork')).toBe(fork.id);
    const turns = turnRequests(standIn.since(mark));
    expect(turns.length).toBeGreaterThanOrEqual(2);
    // opencode states its directory in the system prompt of every request.
    for (const request of turns) expect(request.raw).toContain(`Working directory: ${dir}`);
    const final = qwenDriver.conversation(turns.at(-1)!.body);
    const toolResult = final.findLast((item) => item.kind === 'tool_result');
    expect(toolResult?.kind === 'tool_result' ? toolResult.text : '').toContain(dir);
    expect(await readFile(join(dir, 'notes.txt'), 'utf8')).toBe(FORK_EDIT_CONTENT);
    expect(await readFile(join(repo, 'notes.txt'), 'utf8')).toBe(notesAt(3));
    expect(turns.some((request) => request.raw.includes('turn 3: EDIT-THE-FILE'))).toBe(false);
    // The new messages are the fork's; the original's rows are as they were; no other session appeared.
    const after = rows(fork.id);
    expect(after.messages).toBeGreaterThan(forkRows.messages);
    expect(after.directory).toBe(dir);
    expect(rows(id).digest).toBe(original.digest);
    expect(after.ids).toEqual([...original.ids, fork.id].sort());
    expect(await userState(git, repo)).toEqual(before);
  }, 900_000);
});
