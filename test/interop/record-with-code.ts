/**
 * Records sessions whose turns edit a file, written by the real Claude Code (file checkpoints) and Codex 0.58.0
 * (ghost commits) against the loopback model stand-in, for `fork --with-code`'s fixtures (test/fixtures/with-code):
 * in a git repository whose first commit holds `notes.txt`, turns 1, 2 and 3 each rewrite `notes.txt`
 * (`version 1`..`version 3`), turn 4 creates `added.txt`, and turn 5 only talks. Before each turn the file is copied
 * to `saved/<agent>/before-turn-N.txt`, so a test can compare the files a fork restores with the real ones.
 *
 *   npx esbuild --bundle --platform=node --format=esm --packages=external test/interop/record-with-code.ts --outfile=.cache/record-with-code.mjs
 *   node .cache/record-with-code.mjs <claude bin> <codex 0.58.0 bin> <out dir>
 *
 * The out dir gets `home/.claude`, `home/.codex`, the repositories under `home/src/` and `runs.json`.
 */
import { copyFile, mkdir, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describeRun, runProcess } from './agents.js';
import { claudeDriver, codexDriver } from './drivers.js';
import { startModelStandIn } from './model-stand-in.js';
import { editScript, editPrompt, gitEnv, makeRepository } from './with-code.js';

const [claudeBin, codexBin, outArg] = process.argv.slice(2);
if (claudeBin === undefined || codexBin === undefined || outArg === undefined) {
  process.stderr.write('usage: record-with-code <claude bin> <codex bin> <out dir>\n');
  process.exit(2);
}
const out = resolve(outArg);
const home = join(out, 'home');
const projects = join(home, 'src');
await mkdir(join(home, '.claude'), { recursive: true });
await mkdir(join(home, '.codex'), { recursive: true });
const standIn = await startModelStandIn({ script: editScript });
const sandbox = { root: out, home, codexHome: join(home, '.codex'), claudeDir: join(home, '.claude'), copilotHome: join(home, '.copilot'), projects, sessionsConfig: join(out, 'sessions-config.json'), env: {} };
const base: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: home, LANG: 'C.UTF-8', NO_COLOR: '1', ...gitEnv(home) };
const runs: { label: string; argv: string[]; sessionId: string | null; code: number | null }[] = [];

async function run(label: string, bin: string, cwd: string, env: NodeJS.ProcessEnv, argv: string[], reported: (stdout: string) => string | null): Promise<string | null> {
  const result = await runProcess(bin, argv, { cwd, env, timeoutMs: 120_000 });
  const sessionId = reported(result.stdout);
  runs.push({ label, argv, sessionId, code: result.code });
  if (result.code !== 0) process.stderr.write(`${describeRun(label, result)}\n`);
  process.stderr.write(`${label}: ${sessionId} (exit ${result.code}, ${result.ms} ms)\n`);
  return sessionId;
}

async function saveBefore(agent: string, repo: string, turn: number): Promise<void> {
  const saved = join(out, 'saved', agent);
  await mkdir(saved, { recursive: true });
  for (const name of ['notes.txt', 'added.txt']) {
    if (existsSync(join(repo, name))) await copyFile(join(repo, name), join(saved, `before-turn-${turn}.${name}`));
  }
}

try {
  const claudeEnv = { ...base, CLAUDE_CONFIG_DIR: join(home, '.claude'), ...(await claudeDriver.prepare(sandbox, standIn.origin)), CLAUDE_CODE_ENABLE_SDK_FILE_CHECKPOINTING: '1' };
  const claudeRepo = await makeRepository(join(projects, 'claude-notes'), base);
  let claudeId: string | null = null;
  for (let turn = 1; turn <= 5; turn++) {
    await saveBefore('claude', claudeRepo, turn);
    const resume: string[] = claudeId === null ? [] : ['--resume', claudeId];
    const argv: string[] = ['-p', '--output-format', 'json', '--permission-mode', 'acceptEdits', '--allowedTools=Write,Edit,Read', ...resume, editPrompt(claudeRepo, turn)];
    claudeId = (await run(`claude t${turn}`, claudeBin, claudeRepo, claudeEnv, argv, (stdout) => claudeDriver.reportedSessionId(stdout))) ?? claudeId;
  }
  await saveBefore('claude', claudeRepo, 6);

  const codexEnv = { ...base, CODEX_HOME: join(home, '.codex'), ...(await codexDriver.prepare(sandbox, standIn.origin)) };
  const codexRepo = await makeRepository(join(projects, 'codex-notes'), base);
  let codexId: string | null = null;
  for (let turn = 1; turn <= 5; turn++) {
    await saveBefore('codex', codexRepo, turn);
    const argv: string[] = codexId === null
      ? ['exec', '--json', '--dangerously-bypass-approvals-and-sandbox', editPrompt(codexRepo, turn)]
      : ['exec', '--json', '--dangerously-bypass-approvals-and-sandbox', 'resume', codexId, editPrompt(codexRepo, turn)];
    codexId = (await run(`codex t${turn}`, codexBin, codexRepo, codexEnv, argv, (stdout) => codexDriver.reportedSessionId(stdout))) ?? codexId;
  }
  await saveBefore('codex', codexRepo, 6);
} finally {
  await standIn.close();
  await writeFile(join(out, 'runs.json'), `${JSON.stringify(runs, null, 2)}\n`);
}
