/**
 * Records Gemini CLI and Qwen Code sessions written by the real CLIs against the loopback model stand-in, for
 * fixtures (test/fixtures/gemini-*, test/fixtures/qwen-*) and the sample home: a multi-turn session with a tool
 * call (continued with `--resume`), a session in a folder with a non-ASCII name, and Qwen Code's own
 * `--fork-session`.
 *
 *   npx esbuild --bundle --platform=node --format=esm --packages=external test/interop/record-gemini-qwen.ts --outfile=.cache/record-gemini-qwen.mjs
 *   node .cache/record-gemini-qwen.mjs gemini <gemini bin> <home>
 *   node .cache/record-gemini-qwen.mjs qwen <qwen bin> <home>
 *
 * The home (the fixtures used /home/dev) gets `.gemini` or `.qwen` (what the agent wrote), the project folders
 * under `src/`, and `runs-<agent>.json` (each run's argv and reported id). Nothing of the machine leaks in: HOME
 * and the project folders are that folder.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { describeRun, runProcess } from './agents.js';
import { geminiDriver, qwenDriver } from './drivers.js';
import { startModelStandIn, TOOL_KEYWORD } from './model-stand-in.js';

const [agent, bin, outArg] = process.argv.slice(2);
if ((agent !== 'gemini' && agent !== 'qwen') || bin === undefined || outArg === undefined) {
  process.stderr.write('usage: record-gemini-qwen gemini|qwen <bin> <home>\n');
  process.exit(2);
}
const driver = agent === 'gemini' ? geminiDriver : qwenDriver;
const home = resolve(outArg);
const out = home;
const projects = join(home, 'src');
const standIn = await startModelStandIn();
const sandbox = {
  root: out,
  home,
  codexHome: join(home, '.codex'),
  claudeDir: join(home, '.claude'),
  copilotHome: join(home, '.copilot'),
  projects,
  sessionsConfig: join(out, 'sessions-config.json'),
  env: {},
};
const env: NodeJS.ProcessEnv = {
  PATH: process.env.PATH,
  HOME: home,
  LANG: 'C.UTF-8',
  NO_COLOR: '1',
  ...(await driver.prepare(sandbox, standIn.origin)),
};
const runs: { label: string; argv: string[]; sessionId: string | null; code: number | null }[] = [];

async function run(label: string, cwd: string, argv: string[]): Promise<string | null> {
  const result = await runProcess(bin!, argv, { cwd, env, timeoutMs: 90_000 });
  const sessionId = driver.reportedSessionId(result.stdout);
  runs.push({ label, argv, sessionId, code: result.code });
  if (result.code !== 0) process.stderr.write(`${describeRun(label, result)}\n`);
  process.stderr.write(`${label}: ${sessionId} (exit ${result.code}, ${result.ms} ms)\n`);
  return sessionId;
}

try {
  const api = join(projects, `${agent[0]}-api-server`);
  const accents = join(projects, `${agent[0]}-café-日本`);
  await mkdir(api, { recursive: true });
  await mkdir(accents, { recursive: true });
  const tag = `[${agent[0]}]`;

  const main = await run('main t1', api, driver.newSessionArgs(`${tag} What does the api server do?`));
  await run('main t2 (tool)', api, driver.resumeArgs(main!, `${tag} ${TOOL_KEYWORD}: show me what the tool prints.`));
  await run('main t3', api, driver.resumeArgs(main!, `${tag} Add a health check endpoint.`));
  const other = await run('accents t1', accents, driver.newSessionArgs(`${tag} Résumé of the café menu, 日本語 please.`));
  await run('accents t2', accents, driver.resumeArgs(other!, `${tag} Merci, ça suffit.`));
  if (agent === 'qwen') await run('fork-session', api, driver.agentForkArgs!(main!, `${tag} Write a test for the health check instead.`));
  if (agent === 'gemini') {
    // A resume in a later minute than the file's name: Gemini CLI 0.61 then also leaves a start-up-only
    // `session-<that minute>-<id8>.jsonl` (in the same minute it appends its start-up records to the session).
    const started = new Date().toISOString().slice(0, 16);
    while (new Date().toISOString().slice(0, 16) === started) await new Promise((done) => setTimeout(done, 1000));
    await run('main t4 (a later minute)', api, driver.resumeArgs(main!, `${tag} Now document the endpoint.`));
  }
} finally {
  await standIn.close();
  await writeFile(join(out, `runs-${agent}.json`), `${JSON.stringify(runs, null, 2)}\n`);
}
