/**
 * Records Auggie sessions written by the real CLI against the loopback stand-in (Augment's backend: get-models and
 * chat-stream, augment-backend.ts; the login skipped with AUGMENT_SESSION_AUTH), for fixtures
 * (test/fixtures/auggie-0.36.0): a 4-turn session with a `launch-process` tool call continued with `--resume ID`, a
 * 2-turn session continued with `-c`, and a 1-turn session in a folder with a space and a non-ASCII name.
 *
 *   npx esbuild --bundle --platform=node --format=esm --packages=external test/interop/record-auggie.ts --outfile=.cache/record-auggie.mjs
 *   node .cache/record-auggie.mjs <auggie bin> <home>
 *
 * The home (the fixtures used /home/dev) gets `.augment` (what the agent wrote), the project folders under `src/`,
 * and `runs-auggie.json` (each run's argv and reported id). Nothing of the machine leaks in: HOME and the project
 * folders are that folder, and the environment is PATH, LANG and the stand-in's variables.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { describeRun, runProcess } from './agents.js';
import { auggiePrintArgs, auggieReportedSessionId, auggieSandboxEnv } from './auggie-config.js';
import { startModelStandIn, TOOL_KEYWORD } from './model-stand-in.js';

const [bin, outArg] = process.argv.slice(2);
if (bin === undefined || outArg === undefined) {
  process.stderr.write('usage: record-auggie <auggie bin> <home>\n');
  process.exit(2);
}
const home = resolve(outArg);
const projects = join(home, 'src');
const standIn = await startModelStandIn();
const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, LANG: 'C.UTF-8', NO_COLOR: '1', ...auggieSandboxEnv(home, standIn.origin) };
const runs: { label: string; argv: string[]; sessionId: string | null; code: number | null }[] = [];

async function run(label: string, cwd: string, argv: string[]): Promise<string | null> {
  const result = await runProcess(bin!, argv, { cwd, env, timeoutMs: 90_000 });
  const sessionId = auggieReportedSessionId(result.stdout);
  runs.push({ label, argv, sessionId, code: result.code });
  if (result.code !== 0) process.stderr.write(`${describeRun(label, result)}\n`);
  process.stderr.write(`${label}: ${sessionId} (exit ${result.code}, ${result.ms} ms)\n`);
  return sessionId;
}

try {
  const api = join(projects, 'a-api-server');
  const notes = join(projects, 'a-notes');
  const accents = join(projects, 'a-café 日本');
  for (const dir of [api, notes, accents]) await mkdir(dir, { recursive: true });
  const main = await run('main t1', api, auggiePrintArgs('[a] What does the api server do?'));
  await run('main t2 (tool)', api, auggiePrintArgs(`[a] ${TOOL_KEYWORD}: show me what the tool prints.`, main!));
  await run('main t3', api, auggiePrintArgs('[a] Add a health check endpoint.', main!));
  await run('main t4', api, auggiePrintArgs('[a] Now write a test for it.', main!));
  await run('pair t1', notes, auggiePrintArgs('[a] Keep a list of the open questions.'));
  await run('pair t2 (-c)', notes, ['-c', ...auggiePrintArgs('[a] Add one about the deploy.')]);
  await run('accents t1', accents, auggiePrintArgs('[a] Résumé of the café menu, 日本語 please.'));
} finally {
  await standIn.close();
  await writeFile(join(home, 'runs-auggie.json'), `${JSON.stringify(runs, null, 2)}\n`);
}
