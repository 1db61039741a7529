// A Gemini CLI sub-agent's chat appearing while watching (files from the real CLI, test/fixtures/gemini-0.61.0-subagent):
// the watcher follows chats/<parent id>/ and nests the new chat under its parent's row instead of listing it.
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { resolveLocations } from '../../src/catalog/locations.js';
import { scanCatalog } from '../../src/catalog/scan.js';
import { watchCatalog, type CatalogChange, type CatalogWatcher } from '../../src/catalog/watch.js';
import { waitFor } from '../ui/helpers.js';

const FIXTURE = join(import.meta.dirname, '..', 'fixtures', 'gemini-0.61.0-subagent', '.gemini', 'tmp', 'g-subagent');
const PARENT = 'ed3e7d8a-9f8c-4f75-a996-1dc4e64d7587';
const SUB = 'c7256c1f-3bf9-481a-8e69-8c0c9a09c6fd';

let temp: string;
let watcher: CatalogWatcher | null = null;

beforeEach(async () => {
  temp = await mkdtemp(join(tmpdir(), 'sessions-gemini-watch-'));
  const project = join(temp, '.gemini', 'tmp', 'g-subagent');
  await mkdir(join(project, 'chats'), { recursive: true });
  await cp(join(FIXTURE, '.project_root'), join(project, '.project_root'));
  await cp(join(FIXTURE, 'chats', 'session-2026-11-25T05-30-ed3e7d8a.jsonl'), join(project, 'chats', 'session-2026-11-25T05-30-ed3e7d8a.jsonl'));
});

afterEach(async () => {
  await watcher?.close();
  watcher = null;
  await rm(temp, { recursive: true, force: true });
});

it('a sub-agent chat written while watching is nested under its parent row, not listed', async () => {
  const locations = resolveLocations({ home: temp }, { env: {}, homeDir: join(temp, 'nobody'), cwd: join(temp, 'elsewhere') });
  const { sessions, context } = await scanCatalog(locations, { workers: 0, agents: ['gemini'] });
  expect(sessions.map((s) => [s.id, s.subagents ?? []])).toEqual([[PARENT, []]]);
  const changes: CatalogChange[] = [];
  watcher = watchCatalog(locations, sessions, { context, onChange: (change) => changes.push(change) });
  await watcher.ready;

  // Gemini CLI starts the sub-agent: a folder named by the parent's id, the sub-agent's chat in it.
  const folder = join(temp, '.gemini', 'tmp', 'g-subagent', 'chats', PARENT);
  await mkdir(folder);
  await writeFile(join(folder, `${SUB}.jsonl`), await readFile(join(FIXTURE, 'chats', PARENT, `${SUB}.jsonl`)));
  await waitFor(() => expect(changes.flatMap((change) => change.upserted).filter((s) => s.id === PARENT).at(-1)?.subagents).toEqual([SUB]));
  expect(changes.flatMap((change) => change.upserted).some((s) => s.id === SUB), 'the sub-agent is no row of its own').toBe(false);
});
