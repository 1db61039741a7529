/**
 * Records a GitHub Copilot CLI session whose main agent runs a sub-agent (its `task` tool), written by the real
 * Copilot CLI against the loopback model stand-in (issue 28, 4): the sub-agent's events carry `parentToolCallId`.
 *
 *   npx esbuild --bundle --platform=node --format=esm --packages=external test/interop/record-copilot-subagent.ts --outfile=.cache/record-copilot-subagent.mjs
 *   node .cache/record-copilot-subagent.mjs <copilot bin> <out dir>
 *
 * The out dir gets `home/.copilot` and `runs.json`.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { describeRun, runProcess } from './agents.js';
import { copilotEnvironment, copilotSessionId } from './drivers.js';
import { startModelStandIn, SUBAGENT_KEYWORD } from './model-stand-in.js';

const [bin, outArg] = process.argv.slice(2);
if (bin === undefined || outArg === undefined) {
  process.stderr.write('usage: record-copilot-subagent <copilot bin> <out dir>\n');
  process.exit(2);
}
const out = resolve(outArg);
const home = join(out, 'home');
await mkdir(join(home, '.copilot'), { recursive: true });
const standIn = await startModelStandIn();
const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: home, LANG: 'C.UTF-8', NO_COLOR: '1', COPILOT_HOME: join(home, '.copilot'), ...copilotEnvironment(standIn.origin) };
const runs: { label: string; argv: string[]; sessionId: string | null; code: number | null }[] = [];

async function copilot(label: string, cwd: string, args: string[]): Promise<string | null> {
  const argv = ['--allow-all-tools', '--output-format', 'json', ...args];
  const result = await runProcess(bin!, argv, { cwd, env, timeoutMs: 150_000 });
  const sessionId = copilotSessionId(result.stdout);
  runs.push({ label, argv, sessionId, code: result.code });
  if (result.code !== 0) process.stderr.write(`${describeRun(label, result)}\n`);
  process.stderr.write(`${label}: ${sessionId} (exit ${result.code}, ${result.ms} ms)\n`);
  return sessionId;
}

try {
  const api = join(home, 'src', 'c-subagent');
  await mkdir(api, { recursive: true });
  const main = await copilot('t1 (sub-agent)', api, ['-p', `[c] ${SUBAGENT_KEYWORD}: have a helper look at the api server.`]);
  await copilot('t2', api, [`--resume=${main!}`, '-p', '[c] Thanks. Now add a health check.']);
} finally {
  await standIn.close();
  await writeFile(join(out, 'runs.json'), `${JSON.stringify(runs, null, 2)}\n`);
}
