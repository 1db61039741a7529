// The catalog watcher on a copy of the fixture home: native file events in, sessions added, updated, removed out.
import { appendFile, mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { resolveLocations } from '../../src/catalog/locations.js';
import { scanCatalog } from '../../src/catalog/scan.js';
import { watchCatalog, type CatalogChange, type CatalogWatcher } from '../../src/catalog/watch.js';
import { fixtureHome, waitFor } from './helpers.js';

let home: string;
let dispose: () => Promise<void>;
let watcher: CatalogWatcher | null = null;

beforeEach(async () => {
  ({ home, dispose } = await fixtureHome());
});

afterEach(async () => {
  await watcher?.close();
  watcher = null;
  await dispose();
});

async function watching() {
  const locations = resolveLocations({ home, roots: { claw: [join(home, 'src')] } }, { env: {}, homeDir: home, cwd: '/nowhere' });
  const { sessions, context } = await scanCatalog(locations);
  const changes: CatalogChange[] = [];
  watcher = watchCatalog(locations, sessions, { context, onChange: (change) => changes.push(change) });
  await watcher.ready;
  return { sessions, changes };
}

const day = (): string => join(home, '.codex', 'sessions', '2026', '11', '22');

it('reports a new Codex rollout as one added session, read through the adapter', async () => {
  const { changes } = await watching();
  const source = join(day(), 'rollout-2026-11-22T01-44-55-01a200ed-8253-74d3-b561-f652765d4d59.jsonl');
  const id = '01a200ed-9999-7000-8000-0000000000aa';
  const text = (await readFile(source, 'utf8')).replaceAll('01a200ed-8253-74d3-b561-f652765d4d59', id);
  await writeFile(join(day(), `rollout-2026-11-22T03-00-00-${id}.jsonl`), text);
  const added = await waitFor(() => {
    const session = changes.flatMap((change) => change.upserted).find((one) => one.id === id);
    if (!session) throw new Error('not reported yet');
    return session;
  });
  expect(added).toMatchObject({ agent: 'codex', cwd: '/home/dev/src/a-ünïcødé-项目', userTurns: 4 });
  expect(changes.flatMap((change) => change.removed)).toEqual([]);
});

it('reports a deleted session file as removed', async () => {
  const { sessions, changes } = await watching();
  const web = sessions.find((session) => session.id === '637c5025-a11d-4fce-bb60-2cbeb9eb07a4')!;
  await rm(web.path);
  await waitFor(() => expect(changes.flatMap((change) => change.removed)).toEqual(['claude:637c5025-a11d-4fce-bb60-2cbeb9eb07a4']));
});

it('reports a Codex rename in session_index.jsonl without re-reading rollouts', async () => {
  const { changes } = await watching();
  const index = join(home, '.codex', 'session_index.jsonl');
  await writeFile(index, `${await readFile(index, 'utf8')}${JSON.stringify({ id: '01a200ed-8253-74d3-b561-f652765d4d59', thread_name: 'unicode-notes', updated_at: new Date().toISOString() })}\n`);
  const renamed = await waitFor(() => {
    const session = changes.flatMap((change) => change.upserted).find((one) => one.name === 'unicode-notes');
    if (!session) throw new Error('not reported yet');
    return session;
  });
  expect(renamed).toMatchObject({ id: '01a200ed-8253-74d3-b561-f652765d4d59', title: 'unicode-notes' });
});

it('reports a turn appended to an existing session (folders are watched, not each file)', async () => {
  const { sessions, changes } = await watching();
  const web = sessions.find((session) => session.id === '637c5025-a11d-4fce-bb60-2cbeb9eb07a4')!;
  const line = {
    parentUuid: '56cde33e-1035-4f69-a36c-5586fc9fb2fa',
    isSidechain: false,
    type: 'user',
    message: { role: 'user', content: 'one more thing: add a keyboard shortcut' },
    uuid: '0b1e2c3d-0000-4000-8000-00000000beef',
    timestamp: '2026-11-22T02:00:00.000Z',
    userType: 'external',
    cwd: '/home/dev/src/a-web-ui',
    sessionId: web.id,
    version: '2.1.197',
  };
  await appendFile(web.path, `${JSON.stringify(line)}\n`);
  const grown = await waitFor(() => {
    const session = changes.flatMap((change) => change.upserted).find((one) => one.id === web.id);
    if (!session) throw new Error('not reported yet');
    return session;
  });
  expect(grown.userTurns).toBe(web.userTurns + 1);
  expect(grown.lastPrompt).toBe('one more thing: add a keyboard shortcut');
});

it('reports a rollout written into a folder created at the same moment (a new day)', async () => {
  const { changes } = await watching();
  const source = join(day(), 'rollout-2026-11-22T01-44-55-01a200ed-8253-74d3-b561-f652765d4d59.jsonl');
  const id = '01a200ed-9999-7000-8000-0000000000bb';
  const text = (await readFile(source, 'utf8')).replaceAll('01a200ed-8253-74d3-b561-f652765d4d59', id);
  const newDay = join(home, '.codex', 'sessions', '2026', '12', '01');
  await mkdir(newDay, { recursive: true });
  await writeFile(join(newDay, `rollout-2026-12-01T09-00-00-${id}.jsonl`), text);
  const added = await waitFor(() => {
    const session = changes.flatMap((change) => change.upserted).find((one) => one.id === id);
    if (!session) throw new Error('not reported yet');
    return session;
  });
  expect(added).toMatchObject({ agent: 'codex', userTurns: 4 });
});

it('reports a Claude fork written by sessions as a fork of its parent, dated when it was made', async () => {
  const { sessions, changes } = await watching();
  const parent = sessions.find((session) => session.id === 'b0304532-bd3a-4d34-9619-62f2487fd2d5')!;
  const { ADAPTERS } = await import('../../src/core/formats/index.js');
  const { groupOf, ScanContext } = await import('../../src/catalog/scan.js');
  // Its lines keep the parent's times, the first of them the parent's first.
  const fork = await ADAPTERS.claude.fork(groupOf(parent), { atTurn: 3 }, new ScanContext());
  const added = await waitFor(() => {
    const session = changes.flatMap((change) => change.upserted).find((one) => one.id === fork.id);
    if (!session) throw new Error('not reported yet');
    return session;
  });
  // dated by its file (what the file system says, not the clock of this test): later than anything its lines say
  const made = new Date((await stat(fork.path)).mtimeMs).toISOString();
  expect(added).toMatchObject({ forkedFrom: parent.id, userTurns: 2, createdAt: made, updatedAt: made });
  expect(made > parent.updatedAt).toBe(true);
  // the parent stays the parent
  expect(changes.flatMap((change) => change.upserted).filter((one) => one.id === parent.id && one.forkedFrom)).toEqual([]);
});
