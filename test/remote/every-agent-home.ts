// A home holding sessions of every agent (the fixtures the real CLIs wrote, and the synthetic claw workspace),
// beside the files a mirror must never copy: credentials, settings, tool outputs, workspaces too deep or hidden.
import { cp, mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const FIXTURES = fileURLToPath(new URL('../fixtures/', import.meta.url));

/** Files under the home that are not sessions: none of them may reach a mirror. */
export const NOT_SESSIONS = [
  '.codex/auth.json',
  '.codex/config.toml',
  '.claude/.credentials.json',
  '.claude/settings.json',
  '.claude/projects/-home-dev/notes.txt',
  '.copilot/config.json',
  '.copilot/session-state/333c8c0f-07a6-4837-b155-dfba325e902c/checkpoints/index.md',
  '.gemini/oauth_creds.json',
  '.gemini/tmp/g-caf/logs.json',
  '.qwen/settings.json',
  '.ssh/id_ed25519',
  // claw workspaces findClawWorkspaces does not walk into: hidden, skipped, deeper than 4 levels.
  '.hidden/.claw/sessions/session-1776900000000-0.jsonl',
  'work/node_modules/pkg/.claw/sessions/session-1776900000001-0.jsonl',
  'a/b/c/d/e/.claw/sessions/session-1776900000002-0.jsonl',
];

/** Fill `home` with every agent's sessions and the files of NOT_SESSIONS. */
export async function fillEveryAgentHome(home: string): Promise<void> {
  await mkdir(home, { recursive: true });
  await cp(join(FIXTURES, 'home'), home, { recursive: true, preserveTimestamps: true });
  await cp(join(FIXTURES, 'copilot-1.0.102', '.copilot'), join(home, '.copilot'), { recursive: true, preserveTimestamps: true });
  await cp(join(FIXTURES, 'gemini-0.61.0', '.gemini'), join(home, '.gemini'), { recursive: true, preserveTimestamps: true });
  await cp(join(FIXTURES, 'qwen-0.24.4', '.qwen'), join(home, '.qwen'), { recursive: true, preserveTimestamps: true });
  await cp(join(FIXTURES, 'claw-synthetic', 'demo'), join(home, 'work', 'demo'), { recursive: true, preserveTimestamps: true });
  const claw = await readFile(join(FIXTURES, 'claw-synthetic/demo/.claw/sessions/session-1776300000000-0.jsonl'));
  for (const path of NOT_SESSIONS) {
    await mkdir(dirname(join(home, path)), { recursive: true });
    await writeFile(join(home, path), path.includes('.claw/') ? claw : 'secret\n');
  }
}
