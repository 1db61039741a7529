/**
 * Records Qwen Code sessions whose prompt records hold a `<system-reminder>` Qwen Code put there (issue 28, 3): a
 * session started with `--worktree` (the worktree notice goes before the first prompt) and resumed (the worktree
 * context goes before the resumed prompt), against the loopback model stand-in.
 *
 *   npx esbuild --bundle --platform=node --format=esm --packages=external test/interop/record-qwen-reminders.ts --outfile=.cache/record-qwen-reminders.mjs
 *   node .cache/record-qwen-reminders.mjs <qwen bin> <home>
 *
 * The home (the fixtures used /home/dev) gets `.qwen`, the project under `src/` (a git repository: `--worktree`
 * needs one) and `runs-qwen-reminders.json`.
 */
import { execFileSync } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { describeRun, runProcess } from './agents.js';
import { qwenDriver } from './drivers.js';
import { startModelStandIn } from './model-stand-in.js';

const [bin, outArg] = process.argv.slice(2);
if (bin === undefined || outArg === undefined) {
  process.stderr.write('usage: record-qwen-reminders <qwen bin> <home>\n');
  process.exit(2);
}
const home = resolve(outArg);
const projects = join(home, 'src');
const standIn = await startModelStandIn();
const sandbox = {
  root: home,
  home,
  codexHome: join(home, '.codex'),
  claudeDir: join(home, '.claude'),
  copilotHome: join(home, '.copilot'),
  projects,
  sessionsConfig: join(home, 'sessions-config.json'),
  env: {},
};
const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: home, LANG: 'C.UTF-8', NO_COLOR: '1', ...(await qwenDriver.prepare(sandbox, standIn.origin)) };
const runs: { label: string; argv: string[]; sessionId: string | null; code: number | null }[] = [];

async function run(label: string, cwd: string, argv: string[]): Promise<string | null> {
  const result = await runProcess(bin!, argv, { cwd, env, timeoutMs: 90_000 });
  const sessionId = qwenDriver.reportedSessionId(result.stdout);
  runs.push({ label, argv, sessionId, code: result.code });
  if (result.code !== 0) process.stderr.write(`${describeRun(label, result)}\n`);
  process.stderr.write(`${label}: ${sessionId} (exit ${result.code}, ${result.ms} ms)\n`);
  return sessionId;
}

try {
  const repo = join(projects, 'q-reminders');
  await mkdir(repo, { recursive: true });
  const git = (...args: string[]): void => void execFileSync('git', args, { cwd: repo, env: { ...env, GIT_AUTHOR_NAME: 'dev', GIT_AUTHOR_EMAIL: 'dev@example.com', GIT_COMMITTER_NAME: 'dev', GIT_COMMITTER_EMAIL: 'dev@example.com' } });
  git('init', '-q', '-b', 'main');
  await writeFile(join(repo, 'README.md'), '# q-reminders\n');
  git('add', '.');
  git('commit', '-qm', 'start');
  const id = await run('t1 (--worktree)', repo, ['--yolo', '-o', 'json', '--worktree', 'try-it', '-p', '[q] What is in this worktree?']);
  // Qwen Code keeps the session under the worktree's cwd: it resumes from there.
  const worktree = join(repo, '.qwen', 'worktrees', 'try-it');
  await run('t2 (resume)', worktree, qwenDriver.resumeArgs(id!, '[q] And after the resume?'));
  await run('t3 (resume)', worktree, qwenDriver.resumeArgs(id!, '[q] Third and last.'));
} finally {
  await standIn.close();
  await writeFile(join(home, 'runs-qwen-reminders.json'), `${JSON.stringify(runs, null, 2)}\n`);
}
