// A home holding sessions of every agent (the fixtures the real CLIs wrote, and the synthetic claw workspace),
// beside the files a mirror must never copy: credentials, settings, tool outputs, workspaces too deep or hidden.
import { copyFile, cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import Database from 'better-sqlite3';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadAgentDatabase } from '../helpers/agent-databases.js';

const FIXTURES = fileURLToPath(new URL('../fixtures/', import.meta.url));

/** An opencode session whose title was changed in the database's write-ahead log only (not checkpointed). */
export const OPENCODE_IN_WAL = { id: 'ses_def8b4415ffelGNy1ujFXhicI4', title: 'renamed in the WAL only' };

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
  '.factory/settings.json',
  '.factory/auth.json',
  '.factory/logs/console.log',
  '.factory/sessions/-home-dev-src-d-api-server/ea64e05b-c101-4a66-a855-13c5b0dfbc39.settings.json',
  '.pi/agent/auth.json',
  '.pi/agent/models.json',
  '.local/share/opencode/auth.json',
  '.local/share/opencode/opencode.db-shm',
  '.local/share/kilo/telemetry-id',
  '.augment/session.json',
  '.augment/settings.json',
  '.augment/task-storage/manifest/manifest',
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
  await cp(join(FIXTURES, 'droid-0.225.2', '.factory'), join(home, '.factory'), { recursive: true, preserveTimestamps: true });
  await cp(join(FIXTURES, 'pi-0.74.2', '.pi'), join(home, '.pi'), { recursive: true, preserveTimestamps: true });
  await cp(join(FIXTURES, 'auggie-0.36.0', '.augment'), join(home, '.augment'), { recursive: true, preserveTimestamps: true });
  await cp(join(FIXTURES, 'claw-synthetic', 'demo'), join(home, 'work', 'demo'), { recursive: true, preserveTimestamps: true });
  const claw = await readFile(join(FIXTURES, 'claw-synthetic/demo/.claw/sessions/session-1776300000000-0.jsonl'));
  await opencodeWithWal(join(home, '.local', 'share', 'opencode'));
  await loadAgentDatabase('kilo', home);
  for (const path of NOT_SESSIONS) {
    await mkdir(dirname(join(home, path)), { recursive: true });
    await writeFile(join(home, path), path.includes('.claw/') ? claw : 'secret\n');
  }
}

/**
 * opencode's database as a running opencode leaves it: the sessions in `opencode.db`, and a newer change still in
 * `opencode.db-wal` (copied while a connection holds it, before any checkpoint folds it into the database).
 */
async function opencodeWithWal(dir: string): Promise<void> {
  const stage = await mkdtemp(join(tmpdir(), 'sessions-opencode-stage-'));
  try {
    const db = join(stage, 'opencode.db');
    const setup = new Database(db);
    setup.pragma('journal_mode = WAL');
    setup.exec(await readFile(join(FIXTURES, 'opencode-1.18.33', 'opencode.sql'), 'utf8'));
    setup.close();
    const live = new Database(db);
    live.pragma('wal_autocheckpoint = 0');
    live.prepare('UPDATE session SET title = ? WHERE id = ?').run(OPENCODE_IN_WAL.title, OPENCODE_IN_WAL.id);
    await mkdir(dir, { recursive: true });
    await copyFile(db, join(dir, 'opencode.db'));
    await copyFile(`${db}-wal`, join(dir, 'opencode.db-wal'));
    live.close();
  } finally {
    await rm(stage, { recursive: true, force: true });
  }
}
