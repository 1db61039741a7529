/**
 * Records a Gemini CLI session with `/compress` (issue 28, 2), written by the real CLI against the loopback model
 * stand-in: two prompts (the second runs a tool), `/compress`, then a third prompt. `/compress` runs only in the
 * interactive CLI (under `-p` it is sent to the model as a prompt): it is typed into `gemini --resume ID` in tmux.
 *
 *   npx esbuild --bundle --platform=node --format=esm --packages=external test/interop/record-gemini-compress.ts --outfile=.cache/record-gemini-compress.mjs
 *   node .cache/record-gemini-compress.mjs <gemini bin> <home>
 *
 * The home (the fixtures used /home/dev) gets `.gemini`, the project under `src/` and `runs-gemini-compress.json`.
 */
import { execFileSync } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { describeRun, runProcess } from './agents.js';
import { geminiDriver } from './drivers.js';
import { startModelStandIn, TOOL_KEYWORD } from './model-stand-in.js';

const [bin, outArg] = process.argv.slice(2);
if (bin === undefined || outArg === undefined) {
  process.stderr.write('usage: record-gemini-compress <gemini bin> <home>\n');
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
const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: home, LANG: 'C.UTF-8', NO_COLOR: '1', ...(await geminiDriver.prepare(sandbox, standIn.origin)) };
const runs: { label: string; argv: string[]; sessionId: string | null; code: number | null; stdout: string }[] = [];

async function run(label: string, cwd: string, argv: string[]): Promise<string | null> {
  const result = await runProcess(bin!, argv, { cwd, env, timeoutMs: 90_000 });
  const sessionId = geminiDriver.reportedSessionId(result.stdout);
  runs.push({ label, argv, sessionId, code: result.code, stdout: result.stdout.slice(0, 2000) });
  if (result.code !== 0) process.stderr.write(`${describeRun(label, result)}\n`);
  process.stderr.write(`${label}: ${sessionId} (exit ${result.code}, ${result.ms} ms)\n`);
  return sessionId;
}

const sleep = (ms: number): Promise<void> => new Promise((done) => setTimeout(done, ms));

/** `gemini --resume ID` in a tmux pane: waits for its prompt, types `/compress`, waits for the compression, quits. */
async function compressInteractively(cwd: string, id: string): Promise<void> {
  const name = `gemini-compress-${process.pid}`;
  const tmux = (...args: string[]): string => execFileSync('tmux', args, { encoding: 'utf8' });
  const vars = Object.entries(env).flatMap(([key, value]) => (value === undefined ? [] : ['-e', `${key}=${value}`]));
  tmux('new-session', '-d', '-s', name, '-x', '160', '-y', '50', '-c', cwd, ...vars, bin!, '--resume', id);
  const screen = (): string => tmux('capture-pane', '-p', '-t', name);
  const waitFor = async (what: RegExp, label: string): Promise<void> => {
    for (let tries = 0; tries < 120; tries++) {
      if (what.test(screen())) return;
      await sleep(500);
    }
    throw new Error(`gemini never showed ${label}:\n${screen()}`);
  };
  try {
    await waitFor(/Type your message/, 'its prompt');
    tmux('send-keys', '-t', name, '-l', '/compress');
    await sleep(500);
    tmux('send-keys', '-t', name, 'Enter');
    await waitFor(/compressed|Compress/i, 'the compression');
    await sleep(2000);
    runs.push({ label: '/compress (interactive)', argv: ['--resume', id, '(typed) /compress'], sessionId: id, code: null, stdout: screen() });
  } finally {
    tmux('kill-session', '-t', name);
  }
}

try {
  const api = join(projects, 'g-compress');
  await mkdir(api, { recursive: true });
  const id = await run('t1', api, geminiDriver.newSessionArgs('[g] What does the api server do?'));
  await run('t2 (tool)', api, geminiDriver.resumeArgs(id!, `[g] ${TOOL_KEYWORD}: show me what the tool prints.`));
  await compressInteractively(api, id!);
  await run('t3', api, geminiDriver.resumeArgs(id!, '[g] Add a health check endpoint.'));
} finally {
  await standIn.close();
  await writeFile(join(home, 'runs-gemini-compress.json'), `${JSON.stringify(runs, null, 2)}\n`);
}
