// Rename, delete and its undo in the real browser over a fixture home (the real services): keys in, files checked.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { render } from 'ink-testing-library';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { App } from '../../src/ui/App.js';
import { themeFor } from '../../src/ui/theme.js';
import { sha256File } from '../helpers/files.js';
import { fixtureHome, fixtureServices, waitFor } from './helpers.js';

const ENTER = '\r';
const TAB = '\t';
const DOWN = '\u001b[B';
const CTRL_R = '\u0012';

let home: string;
let dispose: () => Promise<void>;

beforeEach(async () => {
  ({ home, dispose } = await fixtureHome());
});

afterEach(async () => {
  await dispose();
});

function start() {
  const services = fixtureServices(home, { cwd: '/nowhere', env: { PATH: '/usr/bin:/bin' } });
  const app = render(<App services={services} cwd="/nowhere" homeDir={home} columns={120} rows={30} theme={themeFor({})} onDecision={() => undefined} />);
  const frame = (): string => app.lastFrame() ?? '';
  const see = (check: (frame: string) => boolean, what: string) =>
    waitFor(() => {
      if (!check(frame())) throw new Error(`screen does not show ${what}:\n${frame()}`);
      return frame();
    });
  const press = async (keys: readonly string[]) => {
    for (const key of keys) {
      const before = app.frames.length;
      app.stdin.write(key);
      await waitFor(() => {
        if (app.frames.length === before) throw new Error('no frame yet');
      }).catch(() => undefined);
    }
  };
  return { app, frame, see, press };
}

describe('rename and delete in the browser', () => {
  it('Tab → rename… writes the name where Codex reads it, and the row shows it', async () => {
    const ui = start();
    await ui.see((f) => f.includes('api-health'), 'the list');
    await ui.press([...'api-health']);
    await ui.see((f) => f.includes('search: api-health'), 'the query');
    await ui.press([TAB]);
    // A letter that arrives with the Tab (a paste) runs nothing: it is typed once the menu is on screen.
    await ui.see((f) => f.includes('rename…'), 'the menu');
    await ui.press(['n']);
    await ui.see((f) => f.includes('Rename codex session'), 'the rename prompt');
    // The prompt starts with the session's name, to edit: Ctrl-U clears it.
    await ui.see((f) => f.includes('name: api-health'), 'the current name');
    await ui.press(['\u0015', ...'health checks', ENTER]);
    await ui.see((f) => f.includes('renamed codex session'), 'the notice');
    const index = await readFile(join(home, '.codex', 'session_index.jsonl'), 'utf8');
    expect(index.trim().split('\n').at(-1)).toContain('"thread_name":"health checks"');
    await ui.press(['\u001b']);
    await ui.see((f) => f.split('\n').some((line) => /codex .* health checks /.test(line)), 'the row titled by its new name');
  });

  it('Tab → delete asks, y moves the session to the trash, Ctrl-R puts it back byte for byte', async () => {
    const ui = start();
    await ui.see((f) => f.includes('api-health'), 'the list');
    await ui.press([...'api-health']);
    await ui.see((f) => f.includes('search: api-health'), 'the query');
    const rollouts = async (): Promise<string[]> => (await readdir(join(home, '.codex', 'sessions'), { recursive: true })).filter((name) => name.endsWith('.jsonl')).sort();
    const before = await rollouts();
    const hashes = await Promise.all(before.map((name) => sha256File(join(home, '.codex', 'sessions', name))));
    await ui.press([TAB]);
    await ui.see((f) => f.includes('delete: move to the trash'), 'the menu');
    // The row's items: resume, read, fork, rename, delete.
    await ui.press([DOWN, DOWN, DOWN, DOWN, ENTER]);
    await ui.see((f) => f.includes('to the trash?'), 'the question');
    await ui.press(['y']);
    await ui.see((f) => f.includes('Ctrl-R undo'), 'the notice');
    const after = await rollouts();
    expect(after.length).toBe(before.length - 1);
    expect(await readdir(join(home, '.local', 'share', 'Trash', 'files'))).toHaveLength(1);
    await ui.press([CTRL_R]);
    await ui.see((f) => f.includes('restored codex session'), 'the restore');
    expect(await rollouts()).toEqual(before);
    expect(await Promise.all(before.map((name) => sha256File(join(home, '.codex', 'sessions', name))))).toEqual(hashes);
  });
});
