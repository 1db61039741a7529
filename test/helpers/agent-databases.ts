// The databases the real opencode 1.18.33 and Kilo Code CLI 7.7.9 wrote, kept as SQL dumps: the agent makes its
// database (its schema is its own), and a hand-off or a fork only adds to it, so tests load the dump first.
import { mkdir, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';

const FIXTURES = fileURLToPath(new URL('../fixtures/', import.meta.url));

export const DATABASE_DUMPS = {
  opencode: { dump: join(FIXTURES, 'opencode-1.18.33', 'opencode.sql'), folder: join('.local', 'share', 'opencode'), db: 'opencode.db' },
  kilo: { dump: join(FIXTURES, 'kilo-7.7.9', 'kilo.sql'), folder: join('.local', 'share', 'kilo'), db: 'kilo.db' },
} as const;

export type DatabaseAgent = keyof typeof DATABASE_DUMPS;

/** The agent's database loaded from its dump under `home` (as the agent keeps it, in WAL mode); its path. */
export async function loadAgentDatabase(agent: DatabaseAgent, home: string): Promise<string> {
  const { dump, folder, db } = DATABASE_DUMPS[agent];
  const path = join(home, folder, db);
  await mkdir(dirname(path), { recursive: true });
  const handle = new Database(path);
  try {
    handle.pragma('journal_mode = WAL');
    handle.exec(await readFile(dump, 'utf8'));
  } finally {
    handle.close();
  }
  return path;
}
