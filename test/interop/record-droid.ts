/**
 * Records Factory Droid sessions written by the real CLI against the loopback model stand-in (a custom model,
 * `generic-chat-completion-api`, whose base URL is the stand-in; Factory's own API pointed at the stand-in too, which
 * answers 404), for fixtures (test/fixtures/droid-0.225.2): a 4-turn session with a tool call (continued with
 * `exec -s`), a 1-turn session in a folder with a space and a non-ASCII name, and Droid's own `exec --fork` of the
 * first with one more turn.
 *
 *   npx esbuild --bundle --platform=node --format=esm --packages=external test/interop/record-droid.ts --outfile=.cache/record-droid.mjs
 *   node .cache/record-droid.mjs <droid bin> <home>
 *
 * The home (the fixtures used /home/dev) gets `.factory` (what the agent wrote), the project folders under `src/`,
 * and `runs-droid.json` (each run's argv and reported id). Nothing of the machine leaks in: HOME and the project
 * folders are that folder, and the environment is PATH, LANG and the stand-in's variables.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { describeRun, runProcess } from './agents.js';
import { droidDriver, prepareDroid } from './drivers.js';
import { startModelStandIn, TOOL_KEYWORD } from './model-stand-in.js';

const [bin, outArg] = process.argv.slice(2);
if (bin === undefined || outArg === undefined) {
  process.stderr.write('usage: record-droid <droid bin> <home>\n');
  process.exit(2);
}
const home = resolve(outArg);
const projects = join(home, 'src');
const standIn = await startModelStandIn();
const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: home, LANG: 'C.UTF-8', NO_COLOR: '1', ...(await prepareDroid(home, standIn.origin)) };
const runs: { label: string; argv: string[]; sessionId: string | null; code: number | null }[] = [];

async function run(label: string, cwd: string, argv: string[]): Promise<string | null> {
  const result = await runProcess(bin!, argv, { cwd, env, timeoutMs: 90_000 });
  const sessionId = droidDriver.reportedSessionId(result.stdout);
  runs.push({ label, argv, sessionId, code: result.code });
  if (result.code !== 0) process.stderr.write(`${describeRun(label, result)}\n`);
  process.stderr.write(`${label}: ${sessionId} (exit ${result.code}, ${result.ms} ms)\n`);
  return sessionId;
}

try {
  const api = join(projects, 'd-api-server');
  const accents = join(projects, 'd-café 日本');
  await mkdir(api, { recursive: true });
  await mkdir(accents, { recursive: true });
  const main = await run('main t1', api, droidDriver.newSessionArgs('[d] What does the api server do?'));
  await run('main t2 (tool)', api, droidDriver.resumeArgs(main!, `[d] ${TOOL_KEYWORD}: show me what the tool prints.`));
  await run('main t3', api, droidDriver.resumeArgs(main!, '[d] Add a health check endpoint.'));
  await run('main t4', api, droidDriver.resumeArgs(main!, '[d] Now write a test for it.'));
  await run('accents t1', accents, droidDriver.newSessionArgs('[d] Résumé of the café menu, 日本語 please.'));
  await run('fork', api, droidDriver.agentForkArgs!(main!, '[d] Document the endpoint instead.'));
} finally {
  await standIn.close();
  await writeFile(join(home, 'runs-droid.json'), `${JSON.stringify(runs, null, 2)}\n`);
}
