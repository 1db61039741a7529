/**
 * Records a Gemini CLI session that runs a sub-agent, written by the real CLI against the loopback model stand-in,
 * for test/fixtures/gemini-0.61.0-subagent: a prompt the stand-in answers with `invoke_agent` (the `generalist`
 * sub-agent, whose own requests it answers with `complete_task`), then one more turn with `--resume`.
 *
 *   npx esbuild --bundle --platform=node --format=esm --packages=external test/interop/record-gemini-subagent.ts --outfile=.cache/record-gemini-subagent.mjs
 *   node .cache/record-gemini-subagent.mjs <gemini bin> <home>
 *
 * The home gets `.gemini` (what the CLI wrote) and `src/g-subagent` (the project folder).
 */
import { mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { describeRun, runProcess } from './agents.js';
import { geminiDriver } from './drivers.js';
import { startModelStandIn, SUBAGENT_KEYWORD } from './model-stand-in.js';

const [bin, outArg] = process.argv.slice(2);
if (bin === undefined || outArg === undefined) {
  process.stderr.write('usage: record-gemini-subagent <gemini bin> <home>\n');
  process.exit(2);
}
const home = resolve(outArg);
const standIn = await startModelStandIn();
const sandbox = {
  root: home,
  home,
  codexHome: join(home, '.codex'),
  claudeDir: join(home, '.claude'),
  copilotHome: join(home, '.copilot'),
  projects: join(home, 'src'),
  sessionsConfig: join(home, 'sessions-config.json'),
  env: {},
};
const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: home, LANG: 'C.UTF-8', NO_COLOR: '1', ...(await geminiDriver.prepare(sandbox, standIn.origin)) };
try {
  const project = join(home, 'src', 'g-subagent');
  await mkdir(project, { recursive: true });
  const first = await runProcess(bin, geminiDriver.newSessionArgs(`[g] ${SUBAGENT_KEYWORD}: look into the api server.`), { cwd: project, env, timeoutMs: 90_000 });
  const id = geminiDriver.reportedSessionId(first.stdout);
  if (first.code !== 0 || id === null) throw new Error(describeRun('gemini (sub-agent turn)', first));
  const second = await runProcess(bin, geminiDriver.resumeArgs(id, '[g] Thanks, what next?'), { cwd: project, env, timeoutMs: 90_000 });
  if (second.code !== 0) throw new Error(describeRun('gemini --resume', second));
  process.stderr.write(`${id}: ${standIn.requests.map((request) => request.reply).join(', ')}\n`);
} finally {
  await standIn.close();
}
