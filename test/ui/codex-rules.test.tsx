// The browser on Codex files that need the real-world reading rules (test/fixtures/codex-rules): sub-agent
// rollouts are not rows, an IDE prompt reads as its request in the transcript, a review is not a turn.
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { render } from 'ink-testing-library';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { resolveLocations } from '../../src/catalog/locations.js';
import { scanCatalog } from '../../src/catalog/scan.js';
import { watchCatalog, type CatalogChange, type CatalogWatcher } from '../../src/catalog/watch.js';
import { App } from '../../src/ui/App.js';
import { themeFor } from '../../src/ui/theme.js';
import { fixtureServices, ROOT, waitFor } from './helpers.js';

let dir: string;
let home: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sessions-ui-codex-rules-'));
  home = join(dir, 'home');
  await cp(join(ROOT, 'test', 'fixtures', 'codex-rules'), home, { recursive: true });
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

function start() {
  const services = fixtureServices(home, { env: { PATH: '/usr/bin:/bin' } });
  const app = render(<App services={services} cwd="/nowhere" homeDir={home} columns={110} rows={30} theme={themeFor({})} onDecision={() => undefined} />);
  const frame = (): string => app.lastFrame() ?? '';
  const see = (text: string | RegExp) =>
    waitFor(() => {
      if (typeof text === 'string' ? !frame().includes(text) : !text.test(frame())) throw new Error(`screen does not show ${String(text)}:\n${frame()}`);
      return frame();
    });
  const press = async (key: string, after: string | RegExp) => {
    app.stdin.write(key);
    await see(after);
  };
  return { frame, see, press };
}

describe('Codex reading rules in the browser', () => {
  it('lists sub-agents under their parent, not as rows, and shows an IDE prompt as its request', async () => {
    const ui = start();
    await ui.see('4 in all directories');
    expect(ui.frame()).not.toContain('Review the current code changes');
    expect(ui.frame()).not.toContain('find every caller of parseHeader');
    expect(ui.frame()).toContain('write a haiku about rollouts'); // the TypeScript-era rollout is a row
    // Newest first: the review session, the empty one, then the IDE session.
    await ui.press('\u001b[B', /›.*\(no prompt\)/);
    await ui.press('\u001b[B', /›.*Explain what parseHeader does/);
    await ui.press('\u001b[C', 'turn 1/3');
    const screen = await ui.see('Explain what parseHeader does with an empty line');
    expect(screen).not.toContain('Context from my IDE setup');
    expect(screen).not.toContain('<image name=');
    expect(screen).toContain('sub-agents: 0199d1e0-0000-7000-8000-000000000105');
  });

  it('counts the turns of a reviewed session as the user typed them', async () => {
    const ui = start();
    await ui.see('4 in all directories');
    await ui.press('\u001b[C', /turn 1\/2/);
    expect(ui.frame()).toContain('add input validation to the signup form');
  });
});

describe('a sub-agent rollout written while the browser is open', () => {
  let watcher: CatalogWatcher | null = null;
  afterEach(async () => {
    await watcher?.close();
    watcher = null;
  });

  it('updates its parent row (subagents) and adds no row of its own', async () => {
    const day = join(home, '.codex', 'sessions', '2026', '03', '10');
    const reviewer = join(day, 'rollout-2026-03-10T12-02-00-0199d1e0-0000-7000-8000-000000000104.jsonl');
    const text = await readFile(reviewer, 'utf8');
    await rm(reviewer);
    const locations = resolveLocations({ home }, { env: {}, homeDir: home, cwd: '/nowhere' });
    const { sessions, context } = await scanCatalog(locations);
    expect(sessions.find((s) => s.id === '0199d1e0-0000-7000-8000-000000000103')?.subagents).toBeUndefined();
    const changes: CatalogChange[] = [];
    watcher = watchCatalog(locations, sessions, { context, onChange: (change) => changes.push(change) });
    await watcher.ready;
    await writeFile(reviewer, text);
    const parent = await waitFor(() => {
      const found = changes.flatMap((change) => change.upserted).find((one) => one.id === '0199d1e0-0000-7000-8000-000000000103');
      if (!found) throw new Error('not reported yet');
      return found;
    });
    expect(parent.subagents).toEqual(['0199d1e0-0000-7000-8000-000000000104']);
    expect(changes.flatMap((change) => change.upserted).map((one) => one.id)).not.toContain('0199d1e0-0000-7000-8000-000000000104');
  });
});
