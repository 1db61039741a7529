#!/usr/bin/env node
// `npm run interop:latest`: the interop suite (test/interop) against the newest published Codex CLI, Claude Code,
// Gemini CLI and Qwen Code, printed as a table. A report, not a gate: CI runs the pinned releases (test/interop/agents.ts); a new
// release must not break a landing. With --update-docs the table replaces the marked block of docs/compatibility.md.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const DOCS = join(ROOT, 'docs', 'compatibility.md');
const BEGIN = '<!-- interop:latest begin -->';
const END = '<!-- interop:latest end -->';

/** The interop targets a newest release stands in for (keys of test/interop/agents.ts), and their packages. */
const TARGETS = [
  { key: 'codex', name: 'OpenAI Codex CLI', packageName: '@openai/codex', file: 'codex.test.ts' },
  { key: 'claude', name: 'Claude Code', packageName: '@anthropic-ai/claude-code', file: 'claude.test.ts' },
  { key: 'copilot', name: 'GitHub Copilot CLI', packageName: '@github/copilot', file: 'copilot.test.ts' },
  { key: 'gemini', name: 'Gemini CLI', packageName: '@google/gemini-cli', file: 'gemini.test.ts' },
  { key: 'qwen', name: 'Qwen Code', packageName: '@qwen-code/qwen-code', file: 'qwen.test.ts' },
  { key: 'opencode', name: 'opencode', packageName: 'opencode-ai', file: 'opencode.test.ts' },
  { key: 'droid', name: 'Factory Droid', packageName: '@factory/cli-linux-x64', file: 'droid.test.ts' },
  { key: 'kilo', name: 'Kilo Code CLI', packageName: '@kilocode/cli-linux-x64', file: 'kilo.test.ts' },
  { key: 'auggie', name: 'Auggie', packageName: '@augmentcode/auggie', file: 'auggie.test.ts' },
];

function pinnedVersion(key) {
  const source = readFileSync(join(ROOT, 'test', 'interop', 'agents.ts'), 'utf8');
  return new RegExp(`target\\('${key}', '[a-z]+', '([^']+)'\\)`).exec(source)?.[1] ?? '?';
}

function newestVersion(packageName) {
  const result = spawnSync('npm', ['view', packageName, 'version'], { encoding: 'utf8', env: { ...process.env, npm_config_update_notifier: 'false' } });
  const version = result.stdout.trim();
  if (result.status !== 0 || !/^[0-9A-Za-z.+-]+$/.test(version)) throw new Error(`npm view ${packageName} version failed: ${result.stderr.trim()}`);
  return version;
}

const updateDocs = process.argv.includes('--update-docs');
const targets = TARGETS.map((target) => ({ ...target, pinned: pinnedVersion(target.key), newest: newestVersion(target.packageName) }));
const work = mkdtempSync(join(tmpdir(), 'sessions-interop-latest-'));
const output = join(work, 'results.json');
const versions = targets.map((target) => `${target.key}=${target.newest}`).join(',');
process.stderr.write(`interop:latest: ${versions}\n`);
const run = spawnSync(
  process.execPath,
  [join(ROOT, 'node_modules', 'vitest', 'vitest.mjs'), 'run', '--config', 'vitest.interop.config.ts', '--reporter=default', '--reporter=json', `--outputFile.json=${output}`],
  { cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit'], env: { ...process.env, SESSIONS_INTEROP_VERSIONS: versions } },
);

let results = null;
try {
  results = JSON.parse(readFileSync(output, 'utf8'));
} catch {
  // the setup failed (an install, say): no results file
}
rmSync(work, { recursive: true, force: true });

const rows = targets.map((target) => {
  const file = results?.testResults?.find((entry) => basename(entry.name) === target.file);
  const tests = file?.assertionResults ?? [];
  const passed = tests.filter((test) => test.status === 'passed').length;
  const failedTests = tests.filter((test) => test.status === 'failed').map((test) => test.title);
  const outcome = file === undefined ? `not run (vitest exited ${run.status})` : failedTests.length === 0 && passed > 0 ? 'pass' : passed === 0 && failedTests.length === 0 ? 'skipped' : 'FAIL';
  return { ...target, passed, failed: failedTests.length, failedTests, outcome };
});

const date = new Date().toISOString().slice(0, 10);
const table = [
  `Last run ${date} (\`npm run interop:latest\`):`,
  '',
  '| agent | pinned (CI) | newest on npm | result | tests passed | tests failed |',
  '| --- | --- | --- | --- | --- | --- |',
  ...rows.map((row) => `| ${row.name} (\`${row.packageName}\`) | ${row.pinned} | ${row.newest} | ${row.outcome} | ${row.passed} | ${row.failed} |`),
  ...rows.flatMap((row) => row.failedTests.map((title) => `- ${row.name} ${row.newest} failed: ${title}`)),
].join('\n');
process.stdout.write(`\n${table}\n`);

if (updateDocs) {
  const docs = readFileSync(DOCS, 'utf8');
  const start = docs.indexOf(BEGIN);
  const end = docs.indexOf(END);
  if (start === -1 || end < start) throw new Error(`${DOCS} has no ${BEGIN} … ${END} block`);
  writeFileSync(DOCS, `${docs.slice(0, start + BEGIN.length)}\n${table}\n${docs.slice(end)}`);
  process.stderr.write(`interop:latest: wrote the table into ${DOCS}\n`);
}
