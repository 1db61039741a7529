// GitHub Copilot CLI in the live catalog: a session folder Copilot creates appears, a turn it appends and a rename
// it writes to workspace.yaml update the row, all while watching (files from the real CLI, test/fixtures/copilot-1.0.102).
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { resolveLocations } from '../../src/catalog/locations.js';
import { scanCatalog } from '../../src/catalog/scan.js';
import { watchCatalog, type CatalogChange, type CatalogWatcher } from '../../src/catalog/watch.js';
import { waitFor } from '../ui/helpers.js';

const FIXTURE = join(import.meta.dirname, '..', 'fixtures', 'copilot-1.0.102', '.copilot', 'session-state');
const UNICODE = '4ae98b21-b659-453b-b037-7ffbe9780750';
const NOTES = '299d94e5-2c5d-4b95-a2e9-f103a94a3ec8';

let temp: string;
let watcher: CatalogWatcher | null = null;

beforeEach(async () => {
  temp = await mkdtemp(join(tmpdir(), 'sessions-copilot-watch-'));
  await mkdir(join(temp, '.copilot', 'session-state'), { recursive: true });
  await cp(join(FIXTURE, UNICODE), join(temp, '.copilot', 'session-state', UNICODE), { recursive: true });
});

afterEach(async () => {
  await watcher?.close();
  watcher = null;
  await rm(temp, { recursive: true, force: true });
});

it('shows a new Copilot session folder, an appended turn and a rename in workspace.yaml while watching', async () => {
  const locations = resolveLocations({ home: temp }, { env: {}, homeDir: join(temp, 'nobody'), cwd: join(temp, 'elsewhere') });
  const { sessions, context } = await scanCatalog(locations, { workers: 0, agents: ['copilot'] });
  expect(sessions.map((s) => s.id)).toEqual([UNICODE]);
  const changes: CatalogChange[] = [];
  watcher = watchCatalog(locations, sessions, { context, onChange: (change) => changes.push(change) });
  await watcher.ready;
  const latest = (id: string) => changes.flatMap((change) => change.upserted).filter((session) => session.id === id).at(-1);

  // Copilot starts a session: a new folder, workspace.yaml and events.jsonl.
  const notes = join(temp, '.copilot', 'session-state', NOTES);
  await mkdir(notes);
  await writeFile(join(notes, 'workspace.yaml'), await readFile(join(FIXTURE, NOTES, 'workspace.yaml')));
  await writeFile(join(notes, 'events.jsonl'), await readFile(join(FIXTURE, NOTES, 'events.jsonl')));
  await waitFor(() => expect(latest(NOTES)).toMatchObject({ agent: 'copilot', userTurns: 3, cwd: '/home/dev/src/c-notes', title: '[c] Keep notes for me.' }));

  // A resumed turn appended to events.jsonl.
  const events = join(temp, '.copilot', 'session-state', UNICODE, 'events.jsonl');
  const prompt = (await readFile(events, 'utf8')).split('\n').find((line) => line.startsWith('{"type":"user.message"'))!.replace('[c] Ça marche? Grüße aus dem Café ☕', 'a third one');
  await writeFile(events, `${prompt}\n`, { flag: 'a' });
  await waitFor(() => expect(latest(UNICODE)).toMatchObject({ userTurns: 3, lastPrompt: 'a third one' }));

  // `/rename` in Copilot's terminal UI rewrites workspace.yaml only.
  const yaml = join(temp, '.copilot', 'session-state', UNICODE, 'workspace.yaml');
  const renamed = (await readFile(yaml, 'utf8')).replace(/^name: .*$/m, 'name: Café notes').replace('user_named: false', 'user_named: true');
  await writeFile(yaml, renamed);
  await waitFor(() => expect(latest(UNICODE)).toMatchObject({ name: 'Café notes', title: 'Café notes', userTurns: 3 }));
});
