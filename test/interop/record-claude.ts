/**
 * Records Claude Code sessions written by a real Claude Code release against the loopback model stand-in, for
 * fixtures (test/fixtures/claude-2.1.330): a multi-turn session with a tool call, a `--fork-session` of it,
 * `/rename` and `/compact` under `-p`, and a slash command that starts model work (`/init`).
 *
 *   npx esbuild --bundle --platform=node --format=esm --packages=external test/interop/record-claude.ts --outfile=.cache/record-claude.mjs
 *   node .cache/record-claude.mjs <claude bin> <out dir>
 *
 * The out dir gets `home/.claude` (what the agent wrote) and `runs.json` (each run's argv and reported id).
 * Nothing of the machine leaks in: HOME, the config dir and the project folders are inside the out dir.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { describeRun, runProcess } from './agents.js';
import { startModelStandIn, TOOL_KEYWORD } from './model-stand-in.js';

const [bin, outArg] = process.argv.slice(2);
if (bin === undefined || outArg === undefined) {
  process.stderr.write('usage: record-claude <claude bin> <out dir>\n');
  process.exit(2);
}
const out = resolve(outArg);
const home = join(out, 'home');
const projects = join(home, 'src');
await mkdir(join(home, '.claude'), { recursive: true });
const standIn = await startModelStandIn();
const env: NodeJS.ProcessEnv = {
  PATH: process.env.PATH,
  HOME: home,
  LANG: 'C.UTF-8',
  NO_COLOR: '1',
  CLAUDE_CONFIG_DIR: join(home, '.claude'),
  ANTHROPIC_BASE_URL: standIn.origin,
  ANTHROPIC_API_KEY: 'stand-in-key',
  CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
  DISABLE_TELEMETRY: '1',
  DISABLE_ERROR_REPORTING: '1',
  DISABLE_AUTOUPDATER: '1',
};
const runs: { label: string; argv: string[]; sessionId: string | null; code: number | null }[] = [];

async function claude(label: string, cwd: string, args: string[]): Promise<string | null> {
  const argv = ['-p', '--output-format', 'json', '--allowedTools=Bash', ...args];
  const result = await runProcess(bin!, argv, { cwd, env, timeoutMs: 90_000 });
  let sessionId: string | null = null;
  try {
    sessionId = (JSON.parse(result.stdout.trim()) as { session_id?: string }).session_id ?? null;
  } catch {
    // not JSON
  }
  runs.push({ label, argv, sessionId, code: result.code });
  if (result.code !== 0) process.stderr.write(`${describeRun(label, result)}\n`);
  process.stderr.write(`${label}: ${sessionId} (exit ${result.code}, ${result.ms} ms)\n`);
  return sessionId;
}

try {
  const api = join(projects, 'b-api-server');
  const tools = join(projects, 'b-tools');
  await mkdir(api, { recursive: true });
  await mkdir(tools, { recursive: true });

  const main = await claude('main t1', api, ['[b] What does the api server do?']);
  await claude('main t2 (tool)', api, ['--resume', main!, `[b] ${TOOL_KEYWORD}: show me what the tool prints.`]);
  await claude('main t3', api, ['--resume', main!, '[b] Add a health check endpoint.']);
  await claude('fork-session', api, ['--resume', main!, '--fork-session', '[b] Write a test for the health check instead.']);
  await claude('rename', api, ['--resume', main!, '/rename api health (2.1.330)']);
  await claude('compact', api, ['--resume', main!, '/compact']);
  await claude('main t4 after compact', api, ['--resume', main!, '[b] Now document the endpoint.']);

  const init = await claude('init', tools, ['/init']);
  await claude('init t2', tools, ['--resume', init!, '[b] Thanks, that is all.']);
} finally {
  await standIn.close();
  await writeFile(join(out, 'runs.json'), `${JSON.stringify(runs, null, 2)}\n`);
}
