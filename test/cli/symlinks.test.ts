// Symlinks in agent homes: a fork or hand-off written into a project folder that is a symlink (a Claude Code or Qwen
// Code project folder linked elsewhere) says where it landed; a symlink to nothing is reported by its path.
import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, readdir, rename, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BIN = join(ROOT, 'bin', 'sessions.js');
/** The sample home's Claude Code session recorded in /home/dev/src/b-api-server (4 turns). */
const CLAUDE_SESSION = '4908739e-7140-40f4-bd05-9ab21cdf9519';

let sandbox: string;
let home: string;

function run(args: readonly string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args, '--home', home, '--no-cache'], { cwd: sandbox, env: { PATH: process.env.PATH, HOME: home, XDG_CACHE_HOME: join(sandbox, 'cache'), XDG_CONFIG_HOME: join(sandbox, 'config') } }, (error, stdout, stderr) =>
      resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

/** Move `folder` elsewhere and leave a symlink to it in its place; the real folder's path. */
async function linkAway(folder: string): Promise<string> {
  const real = join(sandbox, 'elsewhere', folder.slice(home.length + 1).replaceAll('/', '_'));
  await mkdir(dirname(real), { recursive: true });
  await rename(folder, real);
  await symlink(real, folder);
  return real;
}

beforeEach(async () => {
  sandbox = await mkdtemp(join(tmpdir(), 'sessions-fork-symlink-'));
  home = join(sandbox, 'home');
  await cp(join(ROOT, 'examples', 'home'), home, { recursive: true });
});
afterEach(async () => {
  await rm(sandbox, { recursive: true, force: true });
});

it('a Claude Code fork in a symlinked project folder names the link and the file it wrote', async () => {
  const projects = join(home, '.claude', 'projects');
  const folder = join(projects, (await readdir(projects)).find((name) => name.endsWith('b-api-server'))!);
  const real = await linkAway(folder);
  const forked = await run(['fork', CLAUDE_SESSION, '--at', '2']);
  expect(forked.code, forked.stderr).toBe(0);
  const [id] = forked.stdout.trim().split('\n');
  expect(forked.stderr).toContain(`${folder} is a symlink: the new session was written through it, to ${join(real, `${id}.jsonl`)}`);
  expect(await readdir(real)).toContain(`${id}.jsonl`);
});

it('a hand-off into a symlinked Qwen Code project folder says where it wrote; one into a plain folder says nothing of it', async () => {
  const plain = await run(['fork', CLAUDE_SESSION, '--at', '2', '--to', 'qwen']);
  expect(plain.code, plain.stderr).toBe(0);
  expect(plain.stderr).not.toContain('symlink');
  const written = plain.stdout.trim().split('\n')[1]!;
  // projects/<folder>/chats/<id>.jsonl: link the project folder away, then hand off again.
  const folder = dirname(dirname(written));
  const real = await linkAway(folder);
  const linked = await run(['fork', CLAUDE_SESSION, '--at', '2', '--to', 'qwen']);
  expect(linked.code, linked.stderr).toBe(0);
  const [id] = linked.stdout.trim().split('\n');
  expect(linked.stderr).toContain(`${folder} is a symlink: the new session was written through it, to ${join(real, 'chats', `${id}.jsonl`)}`);
});

it('Copilot CLI: a dangling session-state, session folder or events.jsonl symlink is reported by path; a symlinked session folder is listed', async () => {
  const state = join(home, '.copilot', 'session-state');
  const [first] = (await readdir(state)).sort();
  // A session folder linked elsewhere is a session like any other.
  await linkAway(join(state, first!));
  await symlink(join(sandbox, 'gone'), join(state, '0199c0de-0000-7000-8000-000000000009'));
  await mkdir(join(state, '0199c0de-0000-7000-8000-00000000000a'));
  await symlink(join(sandbox, 'gone.jsonl'), join(state, '0199c0de-0000-7000-8000-00000000000a', 'events.jsonl'));
  const listed = await run(['list', '--all', '--json', '--agent', 'copilot']);
  expect(listed.code, listed.stderr).toBe(0);
  expect((JSON.parse(listed.stdout) as { id: string }[]).map((row) => row.id)).toContain(first);
  expect(listed.stderr).toContain(`${join(state, '0199c0de-0000-7000-8000-000000000009')}: not listed: a symlink to a missing target`);
  expect(listed.stderr).toContain(`${join(state, '0199c0de-0000-7000-8000-00000000000a', 'events.jsonl')}: not listed: a symlink to a missing target`);

  // session-state itself dangling: list says so, and a hand-off into it names the path.
  await rm(state, { recursive: true, force: true });
  await symlink(join(sandbox, 'gone-state'), state);
  const none = await run(['list', '--all', '--agent', 'copilot']);
  expect(none.stderr).toContain(`${state}: not read: a symlink to a missing target`);
  const handed = await run(['fork', CLAUDE_SESSION, '--to', 'copilot']);
  expect(handed.code).toBe(1);
  expect(handed.stderr).toContain(`sessions: ${state} (a symlink to a missing target): no such file or directory`);
});
