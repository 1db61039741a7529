/**
 * Records GitHub Copilot CLI sessions written by a real Copilot CLI release against the loopback model stand-in
 * (its bring-your-own-model provider, OpenAI Responses, offline mode), for fixtures (test/fixtures/copilot-1.0.102):
 * a multi-turn session with a tool call resumed twice, one in a folder with a non-ASCII name, and `/compact` of a
 * third one.
 *
 *   npx esbuild --bundle --platform=node --format=esm --packages=external test/interop/record-copilot.ts --outfile=.cache/record-copilot.mjs
 *   node .cache/record-copilot.mjs <copilot bin> <out dir>
 *
 * The out dir gets `home/.copilot` (what the agent wrote) and `runs.json` (each run's argv and reported id).
 * Nothing of the machine leaks in: HOME, COPILOT_HOME and the project folders are inside the out dir.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { describeRun, runProcess } from './agents.js';
import { copilotEnvironment, copilotSessionId } from './drivers.js';
import { startModelStandIn, TOOL_KEYWORD } from './model-stand-in.js';

const [bin, outArg] = process.argv.slice(2);
if (bin === undefined || outArg === undefined) {
  process.stderr.write('usage: record-copilot <copilot bin> <out dir>\n');
  process.exit(2);
}
const out = resolve(outArg);
const home = join(out, 'home');
const projects = join(home, 'src');
await mkdir(join(home, '.copilot'), { recursive: true });
const standIn = await startModelStandIn();
const env: NodeJS.ProcessEnv = {
  PATH: process.env.PATH,
  HOME: home,
  LANG: 'C.UTF-8',
  NO_COLOR: '1',
  COPILOT_HOME: join(home, '.copilot'),
  ...copilotEnvironment(standIn.origin),
};
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
  const api = join(projects, 'c-api-server');
  const cafe = join(projects, 'c-café ünïcode');
  const notes = join(projects, 'c-notes');
  for (const dir of [api, cafe, notes]) await mkdir(dir, { recursive: true });

  const main = await copilot('main t1', api, ['-p', '[c] What does the api server do?']);
  await copilot('main t2 (tool)', api, [`--resume=${main!}`, '-p', `[c] ${TOOL_KEYWORD}: show me what the tool prints.`]);
  await copilot('main t3', api, [`--resume=${main!}`, '-p', '[c] Add a health check endpoint.']);

  const unicode = await copilot('unicode t1', cafe, ['-p', '[c] Ça marche? Grüße aus dem Café ☕']);
  await copilot('unicode t2', cafe, [`--resume=${unicode!}`, '-p', '[c] Und noch eine Frage: naïve résumé?']);

  const pair = await copilot('notes t1', notes, ['-p', '[c] Keep notes for me.']);
  await copilot('notes t2', notes, [`--resume=${pair!}`, '-p', '[c] Note: the deploy is on Friday.']);
  // Copilot 1.0.102 runs `/compact` under -p (it does not run `/rename` there: that goes to the model as a prompt).
  await copilot('notes compact', notes, [`--resume=${pair!}`, '-p', '/compact']);
  await copilot('notes t3 after compact', notes, [`--resume=${pair!}`, '-p', '[c] When is the deploy?']);
} finally {
  await standIn.close();
  await writeFile(join(out, 'runs.json'), `${JSON.stringify(runs, null, 2)}\n`);
}
