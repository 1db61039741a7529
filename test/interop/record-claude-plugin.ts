/**
 * Records a Claude Code 2.1.330 session that runs a plugin's slash commands (issue 28, 6), written by the real CLI
 * against the loopback model stand-in: a plugin `codex` loaded with `--plugin-dir` whose `/codex:setup` is a plain
 * command and `/codex:review` has `disable-model-invocation: true` (as openai/codex-plugin-cc's do), between typed
 * prompts.
 *
 *   npx esbuild --bundle --platform=node --format=esm --packages=external test/interop/record-claude-plugin.ts --outfile=.cache/record-claude-plugin.mjs
 *   node .cache/record-claude-plugin.mjs <claude bin> <out dir>
 *
 * The out dir gets `home/.claude`, the plugin under `home/plugins/codex` and `runs.json`.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { describeRun, runProcess } from './agents.js';
import { startModelStandIn } from './model-stand-in.js';

const [bin, outArg] = process.argv.slice(2);
if (bin === undefined || outArg === undefined) {
  process.stderr.write('usage: record-claude-plugin <claude bin> <out dir>\n');
  process.exit(2);
}
const out = resolve(outArg);
const home = join(out, 'home');
const plugin = join(home, 'plugins', 'codex');
await mkdir(join(home, '.claude'), { recursive: true });
await mkdir(join(plugin, '.claude-plugin'), { recursive: true });
await mkdir(join(plugin, 'commands'), { recursive: true });
await writeFile(join(plugin, '.claude-plugin', 'plugin.json'), `${JSON.stringify({ name: 'codex', version: '0.0.1', description: 'stand-in plugin' })}\n`);
await writeFile(join(plugin, 'commands', 'setup.md'), '---\ndescription: Check whether Codex is ready\nargument-hint: "[--enable-review-gate]"\nallowed-tools: Bash(node:*)\n---\n\nSay whether the Codex CLI is ready. Arguments: $ARGUMENTS\n');
await writeFile(join(plugin, 'commands', 'review.md'), '---\ndescription: Run a Codex review\nargument-hint: "[--wait]"\ndisable-model-invocation: true\nallowed-tools: Read, Bash(git:*)\n---\n\nReview the working tree. Raw arguments: `$ARGUMENTS`\n');
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
  const argv = ['-p', '--output-format', 'json', '--plugin-dir', plugin, ...args];
  const result = await runProcess(bin!, argv, { cwd, env, timeoutMs: 90_000 });
  let sessionId: string | null = null;
  try {
    sessionId = (JSON.parse(result.stdout.trim()) as { session_id?: string }).session_id ?? null;
  } catch {
    // not JSON
  }
  runs.push({ label, argv: argv.map((arg) => arg.replace(out, '<out>')), sessionId, code: result.code });
  if (result.code !== 0) process.stderr.write(`${describeRun(label, result)}\n`);
  process.stderr.write(`${label}: ${sessionId} (exit ${result.code}, ${result.ms} ms)\n`);
  return sessionId;
}

try {
  const api = join(home, 'src', 'b-plugin');
  await mkdir(api, { recursive: true });
  const id = await claude('t1', api, ['[b] What does the api server do?']);
  await claude('/codex:setup', api, ['--resume', id!, '/codex:setup --enable-review-gate']);
  await claude('/codex:review', api, ['--resume', id!, '/codex:review --wait']);
  await claude('t4', api, ['--resume', id!, '[b] Thanks, that is all.']);
} finally {
  await standIn.close();
  await writeFile(join(out, 'runs.json'), `${JSON.stringify(runs, null, 2)}\n`);
}
