// A line of over 16 MiB (one tool output) is read clipped by `show` and by the index, as it is read (clip-stream.ts):
// the transcript around it is whole, the cut string ends with a note of what was left out, and a fork still copies
// the line byte for byte. (What it saves in memory is measured by `npm run bench -- --only giant-line`.)
import { execFile } from 'node:child_process';
import { cp, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BIN = join(ROOT, 'bin', 'sessions.js');
const SESSION = '4908739e-7140-40f4-bd05-9ab21cdf9519';
/** Over the 16 MiB a giant line starts at. */
const OUTPUT_BYTES = 20 << 20;

let sandbox: string;
let home: string;
let file: string;

function run(args: readonly string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args, '--home', home, '--no-cache'], { maxBuffer: 256 << 20, env: { PATH: process.env.PATH, HOME: home, XDG_CACHE_HOME: join(sandbox, 'cache'), XDG_CONFIG_HOME: join(sandbox, 'config') } }, (error, stdout, stderr) =>
      resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

beforeAll(async () => {
  sandbox = await mkdtemp(join(tmpdir(), 'sessions-giant-line-'));
  home = join(sandbox, 'home');
  await cp(join(ROOT, 'examples', 'home', '.claude'), join(home, '.claude'), { recursive: true });
  const projects = join(home, '.claude', 'projects');
  const folder = join(projects, (await readdir(projects)).find((name) => name.endsWith('b-api-server'))!);
  file = join(folder, `${SESSION}.jsonl`);
  // The tool's output (the tool_result block and Claude Code's toolUseResult copy of it) made 20 MiB of lines.
  const lines = (await readFile(file, 'utf8')).split('\n');
  const at = lines.findIndex((line) => line.includes('"tool_result"'));
  const record = JSON.parse(lines[at]!) as { message: { content: { type: string; content: unknown }[] }; toolUseResult?: { stdout?: string } };
  const output = `first line of the output\n${'y\n'.repeat(OUTPUT_BYTES / 2)}last line of the output`;
  record.message.content.find((block) => block.type === 'tool_result')!.content = output;
  if (record.toolUseResult) record.toolUseResult.stdout = output;
  lines[at] = JSON.stringify(record);
  await writeFile(file, lines.join('\n'));
});
afterAll(async () => {
  await rm(sandbox, { recursive: true, force: true });
});

it('show prints the turns around a giant line and the start of its output, with a note of what it left out', async () => {
  const listed = await run(['list', '--all', '--json', '--agent', 'claude']);
  expect(listed.code, listed.stderr).toBe(0);
  expect((JSON.parse(listed.stdout) as { id: string; userTurns: number }[]).find((row) => row.id === SESSION)?.userTurns).toBe(4);
  const shown = await run(['show', SESSION]);
  expect(shown.code, shown.stderr).toBe(0);
  for (let turn = 1; turn <= 4; turn++) expect(shown.stdout).toContain(`── user · turn ${turn} `);
  expect(shown.stdout).toContain('first line of the output');
  expect(shown.stdout).not.toContain('last line of the output');
  // The bytes left out are counted as the file holds them (JSON-escaped: a newline is two bytes).
  expect(shown.stdout).toMatch(/\[… 30 MB more not shown: a line of over 16 MiB is read clipped\]/);
  expect(shown.stdout.length).toBeLessThan(8 << 20);
  // Markdown and the page say the same.
  expect((await run(['show', SESSION, '--format', 'md'])).stdout).toMatch(/_\[… \d+ MB more not shown: a line of over 16 MiB is read clipped\]_/);
  expect((await run(['show', SESSION, '--format', 'html'])).stdout).toMatch(/<p class="clipped">\[… \d+ MB more not shown/);
});

it('a fork copies the giant line whole', async () => {
  const forked = await run(['fork', SESSION, '--at', '4']);
  expect(forked.code, forked.stderr).toBe(0);
  const path = forked.stdout.trim().split('\n')[1]!;
  const copy = await readFile(path, 'utf8');
  expect(copy).toContain('last line of the output');
  expect((await stat(path)).size).toBeGreaterThan(OUTPUT_BYTES);
});
