// The browser as a whole, on a copy of the shared fixture home, through the real catalog and adapters:
// one key per write, polling waits, assertions on what the screen says.
import { appendFile, mkdir, readdir, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { render } from 'ink-testing-library';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ADAPTERS } from '../../src/core/formats/index.js';
import { AGENTS, countUserTurns } from '../../src/core/model.js';
import { ScanContext } from '../../src/catalog/scan.js';
import { App } from '../../src/ui/App.js';
import { KEY_HELP } from '../../src/ui/keymap.js';
import type { TuiDecision } from '../../src/ui/state.js';
import { themeFor } from '../../src/ui/theme.js';
import { writtenAnHourAgo } from '../helpers/files.js';
import { moveRecordedCwd } from '../helpers/gone-cwd.js';
import { fixtureHome, fixtureServices, waitFor } from './helpers.js';

const API_CWD = '/home/dev/src/a-api-server';
const ENTER = '\r';
const ESC = '\u001b';
/** → opens the transcript (Enter resumes). */
const RIGHT = '\u001b[C';
const TAB = '\t';
const CTRL_A = '\u0001';

let home: string;
let dispose: () => Promise<void>;

beforeEach(async () => {
  ({ home, dispose } = await fixtureHome());
});

afterEach(async () => {
  await dispose();
});

/** The clock the app's forks are dated by: a day no fixture file is under, whatever today is. */
const FORK_DAY = new Date(2031, 1, 3, 4, 5, 6);

function start(options: { cwd?: string; columns?: number; rows?: number } = {}) {
  const cwd = options.cwd ?? '/nowhere/in/particular';
  const services = fixtureServices(home, { cwd, env: { PATH: '/usr/bin:/bin' }, now: () => FORK_DAY });
  const decisions: TuiDecision[] = [];
  const rows = options.rows ?? 30;
  const app = render(
    <App
      services={services}
      cwd={cwd}
      homeDir={home}
      columns={options.columns ?? 100}
      rows={rows}
      theme={themeFor({})}
      onDecision={(decision) => decisions.push(decision)}
    />,
  );
  const frame = (): string => app.lastFrame() ?? '';
  const lines = (): string[] => frame().split('\n');
  const see = (text: string | RegExp) =>
    waitFor(() => {
      if (typeof text === 'string' ? !frame().includes(text) : !text.test(frame())) throw new Error(`screen does not show ${String(text)}:\n${frame()}`);
      return frame();
    });
  /** One key per write, then wait for the screen to react to it. */
  const press = async (keys: readonly string[], after?: string | RegExp) => {
    for (const key of keys) {
      const before = app.frames.length;
      app.stdin.write(key);
      await waitFor(() => {
        if (app.frames.length === before) throw new Error('no frame yet');
      }).catch(() => undefined); // some keys change nothing on screen
    }
    if (after) await see(after);
  };
  const type = (text: string, after?: string | RegExp) => press([...text], after);
  return { app, frame, lines, see, press, type, decisions, rows };
}

describe('session list', () => {
  it('lists every conversation newest first, starting in "all" when the current directory has none', async () => {
    const ui = start();
    await ui.see('19 in all directories');
    const frame = ui.frame();
    expect(frame).toContain('no sessions in /nowhere/in/particular: showing all');
    for (const title of ['api-health', 'review MCP tool', 'Make the sidebar collapsible', 'Explain the request lifecycle']) expect(frame).toContain(title);
    const agents = ui.lines().slice(1, 16).map((line) => /^[›\s]\s(codex|claude|claw)\s/.exec(line)?.[1]);
    expect(agents.filter(Boolean).length).toBe(15);
    expect(frame).toMatch(/⋔/); // forks are marked
  });

  it('defaults to the current directory and below; Ctrl-A shows all', async () => {
    const ui = start({ cwd: API_CWD });
    await ui.see(/\d+ in \/home\/dev\/src\/a-api-server/);
    const header = ui.lines()[0]!;
    const here = Number(/(\d+) in \/home/.exec(header)![1]);
    expect(here).toBe(4); // codex api-health and its fork, the claude session and its fork
    expect(ui.frame()).not.toContain('review MCP tool');
    await ui.press([CTRL_A], '19 in all directories');
    expect(ui.frame()).toContain('review MCP tool');
  });

  it('never renders taller than the terminal minus one row', async () => {
    const ui = start({ rows: 24 });
    await ui.see('19 in all directories');
    expect(ui.lines().length).toBeLessThanOrEqual(23);
    await ui.press([RIGHT], 'turn 1/');
    expect(ui.lines().length).toBeLessThanOrEqual(23);
    await ui.press(['?'], 'Transcript');
    expect(ui.lines().length).toBeLessThanOrEqual(23);
    await ui.press([ESC, ESC], '19 in all directories');
    await ui.press([TAB], 'Actions');
    expect(ui.lines().length).toBeLessThanOrEqual(23);
  });
});

describe('help', () => {
  it('Tab then ? lists every key, the search syntax and content search among them, whole at 80×24', async () => {
    const ui = start({ columns: 80, rows: 24 });
    await ui.see('19 in all directories');
    await ui.press([TAB], 'help: every key');
    await ui.press(['?'], 'Transcript');
    const frame = ui.frame();
    expect(ui.lines().length).toBeLessThanOrEqual(23);
    for (const group of KEY_HELP) {
      expect(frame).toContain(group.title);
      // each key and what it does on one line, neither cut
      for (const entry of group.keys) expect(ui.lines().some((line) => line.includes(`${entry.keys.padEnd(16)}${entry.what}`))).toBe(true);
    }
    expect(frame).toContain('Ctrl-G  >x');
    expect(frame).toContain("'x ^x x$");
    await ui.press([ESC], '19 in all directories');
    expect(ui.decisions).toEqual([]);
  });
});

describe('search', () => {
  it('narrows as each letter is typed, puts the best match first and highlights it', async () => {
    const ui = start();
    await ui.see('19 in all directories');
    await ui.type('health', '2 matching');
    const rows = ui.lines().slice(1, 3);
    expect(rows[0]).toMatch(/^›.*api-health/);
    expect(rows[1]).toMatch(/Add a health check endpoint/);
    expect(ui.frame()).toContain('match  [a] Add a health check endpoint'); // the preview says which prompt matched
    await ui.press([ESC], '19 in all directories');
  });

  it('finds a session by a later prompt, its cwd or its id', async () => {
    const ui = start();
    await ui.see('19 in all directories');
    await ui.type('which name', /1 matching/);
    expect(ui.lines()[1]).toContain('api-health');
    await ui.press(['\u0015'], '19 in all directories'); // Ctrl-U clears the typed text
    await ui.type('data pipeline', /\d+ matching/);
    expect(ui.lines()[1]).toContain('run ls and explain the layout');
  });
});

describe('transcript', () => {
  /** Every Codex rollout under the home, relative to its sessions folder. */
  async function sessionFiles(): Promise<string[]> {
    const root = join(home, '.codex', 'sessions');
    return (await readdir(root, { recursive: true, withFileTypes: true }))
      .filter((entry) => entry.isFile())
      .map((entry) => relative(root, join(entry.parentPath, entry.name)))
      .sort();
  }

  async function openApiHealth() {
    const ui = start();
    await ui.see('19 in all directories');
    await ui.type('api-health');
    await ui.press([RIGHT], 'turn 1/5');
    return ui;
  }

  it('numbers user turns, shows tool calls collapsed, and ] [ G g move between turns', async () => {
    const ui = await openApiHealth();
    expect(ui.frame()).toContain('▶ turn 1');
    expect(ui.frame()).toContain('[a] Add a health check endpoint');
    await ui.press([']'], 'turn 2/5');
    expect(ui.frame()).toContain('» exec_command');
    expect(ui.frame()).toMatch(/… \d+ more lines \(e expands\)/);
    await ui.press(['e'], 'outputs expanded');
    expect(ui.frame()).not.toMatch(/more lines \(e expands\)/);
    await ui.press(['G'], 'turn 5/5');
    await ui.press(['['], /turn [45]\/5/);
    await ui.press(['g'], 'turn 1/5');
    await ui.press([ESC], 'in all directories');
  });

  it('reads a huge tool output clipped and says how much of it was not read', async () => {
    const id = '01a200ed-0000-7000-8000-00000000c11b';
    const at = '2026-11-22T09:00:00.000Z';
    const output = `${'build step ok\n'.repeat(100_000)}build failed`;
    const lines = [
      { timestamp: at, type: 'session_meta', payload: { id, timestamp: at, cwd: '/home/dev/src/big' } },
      { timestamp: at, type: 'response_item', payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'run the huge build' }] } },
      { timestamp: at, type: 'response_item', payload: { type: 'function_call', name: 'shell', arguments: '{"cmd":"make"}', call_id: 'c1' } },
      { timestamp: at, type: 'response_item', payload: { type: 'function_call_output', call_id: 'c1', output } },
      { timestamp: at, type: 'response_item', payload: { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'it failed at the end' }] } },
    ];
    await writeFile(join(home, '.codex', 'sessions', '2026', '11', '22', `rollout-2026-11-22T09-00-00-${id}.jsonl`), `${lines.map((line) => JSON.stringify(line)).join('\n')}\n`);
    const ui = start();
    await ui.see('20 in all directories');
    await ui.type('huge build', /1 matching/);
    await ui.press([RIGHT], 'turn 1/1');
    await ui.see('↳ build step ok');
    expect(ui.frame()).toMatch(/… \d+ more lines \(e expands\)/);
    // 1.5 MB of JSON string written, 4 KiB of it read: the rest is announced, not shown
    expect(ui.frame()).toContain('… 1.5 MB more not read (sessions show prints it whole)');
    expect(ui.frame()).toContain('it failed at the end');
    await ui.press(['e'], 'outputs expanded');
    expect(ui.frame()).not.toContain('build failed');
  });

  it("shows a user's 33 KB prompt whole, and / finds its last words", async () => {
    const id = '01a200ed-0000-7000-8000-00000000b16b';
    const at = '2026-11-22T09:00:00.000Z';
    const pasted = `please read this log\n${'a pasted line of the build log\n'.repeat(1100)}and tell me why the final zebra step broke`;
    const lines = [
      { timestamp: at, type: 'session_meta', payload: { id, timestamp: at, cwd: '/home/dev/src/big' } },
      { timestamp: at, type: 'response_item', payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text: pasted }] } },
      { timestamp: at, type: 'event_msg', payload: { type: 'user_message', message: pasted, images: [] } },
      { timestamp: at, type: 'response_item', payload: { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'the zebra step lacks a file' }] } },
    ];
    await writeFile(join(home, '.codex', 'sessions', '2026', '11', '22', `rollout-2026-11-22T09-00-00-${id}.jsonl`), `${lines.map((line) => JSON.stringify(line)).join('\n')}\n`);
    const ui = start();
    await ui.see('20 in all directories');
    await ui.type('please read this log', /1 matching/);
    await ui.press([RIGHT], 'turn 1/1');
    expect(ui.frame()).not.toContain('more not read');
    await ui.press(['/'], 'find:');
    await ui.type('final zebra');
    await ui.press([ENTER], '"final zebra" 1/1');
    expect(ui.frame()).toContain('and tell me why the final zebra step broke');
  });

  it('finds text inside the transcript', async () => {
    const ui = await openApiHealth();
    await ui.press(['/'], 'find:');
    await ui.type('auth test');
    await ui.press([ENTER], 'turn 3/5');
  });

  it('forks before turn 3: the prompt shows that turn, Enter writes a new session and selects it', async () => {
    const ui = await openApiHealth();
    await ui.press(['f'], 'Fork: all 5 turns, the whole conversation'); // turn 1: nothing before it, so all of it
    await ui.press([ESC], 'turn 1/5');
    await ui.press([']', ']'], 'turn 3/5');
    await ui.press(['f'], 'Fork before turn 3: [a] why did the auth test fail?');
    expect(ui.frame()).toContain('(↑↓: all 5 turns)');
    expect(ui.frame()).toContain('keeps turns 1–2');
    await ui.type('b1');
    await ui.see('Branch name (optional): b1');
    await ui.press([ENTER], 'forked before turn 3 (kept 2 turns)');
    expect(ui.frame()).toMatch(/resume it: cd \/home\/dev\/src\/a-api-server && codex resume [0-9a-f-]{36}/);
    const id = /codex resume ([0-9a-f-]{36})/.exec(ui.frame())![1]!;
    // the fork is selected in the list: its id is in the preview
    await ui.see(`id     ${id}`);
    expect(ui.lines().find((line) => line.startsWith('›'))).toMatch(/codex/);
    // and the file, under the day of the clock the services were given, holds exactly the first two user turns
    const files = (await sessionFiles()).filter((name) => name.includes(id));
    expect(files).toEqual([join('2031', '02', '03', `rollout-2031-02-03T04-05-06-${id}.jsonl`)]);
    const context = new ScanContext();
    const path = join(home, '.codex', 'sessions', files[0]!);
    const forked = await ADAPTERS.codex.readSession({ agent: 'codex', paths: [path], idHint: id, root: join(home, '.codex'), archived: false }, context);
    expect(countUserTurns(forked.messages)).toBe(2);
  });

  it('Tab in the fork prompt hands the Codex session off to Claude Code: a new Claude session in the cwd\'s project folder, selected', async () => {
    const ui = await openApiHealth();
    await ui.press([']', ']'], 'turn 3/5');
    await ui.press(['f'], 'Fork before turn 3');
    // at 100 columns every agent and every key the prompt takes are on screen, none cut off
    expect(ui.frame()).toMatch(new RegExp(`Continue in: +${AGENTS.join(' +')} +\\(Tab\\) +│`));
    expect(ui.frame()).toMatch(/Branch name \(optional\): +· Enter forks · Esc cancels +│/);
    await ui.press(['\t'], 'Hand off to claude before turn 3: [a] why did the auth test fail?');
    expect(ui.frame()).toContain('A new claude session, handed off from codex, keeps turns 1–2');
    await ui.press([ENTER], 'handed off to claude before turn 3 (kept 2 turns)');
    const id = /claude --resume ([0-9a-f-]{36})/.exec(ui.frame())![1]!;
    expect(ui.frame()).toContain(`cd ${API_CWD} && `);
    await ui.see(`id     ${id}`);
    expect(ui.lines().find((line) => line.startsWith('›'))).toMatch(/claude/);
    const path = join(home, '.claude', 'projects', '-home-dev-src-a-api-server', `${id}.jsonl`);
    const handed = await ADAPTERS.claude.readSession({ agent: 'claude', paths: [path], idHint: id, root: join(home, '.claude'), archived: false }, new ScanContext());
    expect(handed.messages.filter((message) => message.userTurn).map((message) => message.blocks.map((block) => (block.type === 'text' ? block.text : '')).join(''))).toEqual([
      '[a] Add a health check endpoint to the API server (a-variant)',
      '[a] now run the tests and list the failures',
    ]);
  });

  it('a Claude fork shows as a fork at once (⋔, "from" in the preview) and sorts as new', async () => {
    const ui = start();
    await ui.see('19 in all directories');
    await ui.type('b0304532');
    await ui.press([RIGHT], 'turn 1/3');
    await ui.press([']', ']'], 'turn 3/3');
    await ui.press(['f'], 'Fork before turn 3');
    await ui.press([ENTER], 'forked before turn 3 (kept 2 turns)');
    const id = /claude --resume ([0-9a-f-]{36})/.exec(ui.frame())![1]!;
    await ui.see(`id     ${id}`);
    await ui.see('fork   from b0304532-bd3a-4d34-9619-62f2487fd2d5');
    const lines = ui.lines();
    // the top row (newer than every fixture session: dated when it was made), selected, marked as a fork
    expect(lines[1]).toMatch(/^› claude .*⋔/);
  });

  it('Esc cancels the fork prompt and writes nothing', async () => {
    const ui = await openApiHealth();
    const before = await sessionFiles();
    await ui.press([']'], 'turn 2/5');
    await ui.press(['f'], 'Fork before turn 2');
    await ui.press([ESC], '] [ turn');
    expect(ui.frame()).not.toContain('Fork before');
    expect(await sessionFiles()).toEqual(before);
  });
});

describe('resume', () => {
  it('Enter on a session whose directory is gone asks, and y resumes it here', async () => {
    await moveRecordedCwd(home, API_CWD, join(home, '..', 'gone', 'a-api-server'));
    await writtenAnHourAgo(home); // rewritten just now, yet not open in an agent
    const ui = start();
    await ui.see('19 in all directories');
    await ui.type('api-health', /\d+ matching/);
    await ui.press([ENTER], 'no longer exists');
    expect(ui.frame()).toContain('Resume it in the current directory (/nowhere/in/particular) instead?');
    await ui.press(['y']);
    await waitFor(() => expect(ui.decisions).toHaveLength(1));
    expect(ui.decisions[0]).toMatchObject({ kind: 'resume', here: true, session: { title: 'api-health', agent: 'codex' } });
  });

  it('from a transcript, Tab and Enter resume the session read', async () => {
    await moveRecordedCwd(home, API_CWD, join(home, '..', 'gone', 'a-api-server'));
    await writtenAnHourAgo(home); // rewritten just now, yet not open in an agent
    const ui = start();
    await ui.see('19 in all directories');
    await ui.type('api-health', /\d+ matching/);
    await ui.press([RIGHT], 'turn 1/5');
    await ui.press([TAB], 'resume in codex');
    await ui.press([ENTER], 'no longer exists');
    await ui.press([ENTER]);
    await waitFor(() => expect(ui.decisions).toHaveLength(1));
    expect(ui.decisions[0]).toMatchObject({ kind: 'resume', here: true, session: { title: 'api-health', agent: 'codex' } });
  });

  it('q is typed; Esc clears the query, then quits with no decision to resume', async () => {
    const ui = start();
    await ui.see('19 in all directories');
    await ui.type('q', 'search: q');
    await ui.press([ESC], '19 in all directories');
    expect(ui.decisions).toEqual([]);
    await ui.press([ESC]);
    await waitFor(() => expect(ui.decisions).toEqual([{ kind: 'quit' }]));
  });
});

describe('live updates', () => {
  it('a session written while the browser is open appears, and one gaining a turn moves to the top, keeping the query', async () => {
    const ui = start();
    await ui.see('19 in all directories');
    await ui.see('· live');
    // a brand-new Claude Code session
    const project = join(home, '.claude', 'projects', '-home-dev-src-watched');
    await mkdir(project, { recursive: true });
    const id = '9d0c4d2e-1111-4222-8333-944455556666';
    const now = new Date().toISOString();
    const line = (value: object): string => `${JSON.stringify(value)}\n`;
    await writeFile(
      join(project, `${id}.jsonl`),
      line({ parentUuid: null, isSidechain: false, type: 'user', message: { role: 'user', content: 'watch me appear' }, uuid: 'u-1', timestamp: now, cwd: '/home/dev/src/watched', sessionId: id, version: '2.1.197', gitBranch: 'main' }) +
        line({ parentUuid: 'u-1', isSidechain: false, type: 'assistant', message: { id: 'm-1', role: 'assistant', model: 'stand-in', content: [{ type: 'text', text: 'here I am' }] }, uuid: 'a-1', timestamp: now, cwd: '/home/dev/src/watched', sessionId: id }),
    );
    await ui.see('20 in all directories');
    expect(ui.lines()[1]).toMatch(/claude .*watch me appear.*live/);

    // with a query typed, a session gaining a turn still updates and the query stays
    await ui.type('sidebar', /1 matching/);
    const web = join(home, '.claude', 'projects', '-home-dev-src-a-web-ui', '637c5025-a11d-4fce-bb60-2cbeb9eb07a4.jsonl');
    const later = new Date().toISOString();
    const session = '637c5025-a11d-4fce-bb60-2cbeb9eb07a4';
    const leaf = '56cde33e-1035-4f69-a36c-5586fc9fb2fa'; // the fixture's active leaf
    const prompt = 'and make the sidebar remember its state';
    // what Claude Code appends for one more turn: the prompt, the answer, the last-prompt marker
    await appendFile(
      web,
      line({ parentUuid: leaf, isSidechain: false, type: 'user', message: { role: 'user', content: prompt }, uuid: 'u-2', timestamp: later, cwd: '/home/dev/src/a-web-ui', sessionId: session }) +
        line({ parentUuid: 'u-2', isSidechain: false, type: 'assistant', message: { id: 'm-2', role: 'assistant', model: 'stand-in', content: [{ type: 'text', text: 'done' }] }, uuid: 'a-2', timestamp: later, cwd: '/home/dev/src/a-web-ui', sessionId: session }) +
        line({ type: 'last-prompt', lastPrompt: prompt, leafUuid: 'a-2', sessionId: session }),
    );
    await ui.see(/claude .*Make the sidebar collapsible.*\s2\s+live/);
    expect(ui.frame()).toContain('search: sidebar');
  });
});

describe('an open transcript', () => {
  it('shows a turn appended to its Claude file while it is open, and forks before it', async () => {
    const ui = start();
    await ui.see('· live');
    await ui.type('sidebar', /1 matching/);
    await ui.press([RIGHT], 'turn 1/1');
    const session = '637c5025-a11d-4fce-bb60-2cbeb9eb07a4';
    const web = join(home, '.claude', 'projects', '-home-dev-src-a-web-ui', `${session}.jsonl`);
    const leaf = '56cde33e-1035-4f69-a36c-5586fc9fb2fa'; // the fixture's active leaf
    const later = new Date().toISOString();
    const line = (value: object): string => `${JSON.stringify(value)}\n`;
    await appendFile(
      web,
      line({ parentUuid: leaf, isSidechain: false, type: 'user', message: { role: 'user', content: 'and remember the state' }, uuid: 'u-2', timestamp: later, cwd: '/home/dev/src/a-web-ui', sessionId: session }) +
        line({ parentUuid: 'u-2', isSidechain: false, type: 'assistant', message: { id: 'm-2', role: 'assistant', model: 'stand-in', content: [{ type: 'text', text: 'remembered' }] }, uuid: 'a-2', timestamp: later, cwd: '/home/dev/src/a-web-ui', sessionId: session }),
    );
    // The watcher's report, then a re-read at most every 2 s: polled, with room for a loaded machine. A reader at
    // the end follows it.
    await waitFor(() => {
      if (!/turn 2\/2/.test(ui.frame())) throw new Error(`no second turn yet:\n${ui.frame()}`);
    }, { timeout: 15_000 });
    expect(ui.frame()).toContain('and remember the state');
    expect(ui.frame()).toContain('remembered');
    await ui.press(['f'], 'Fork before turn 2: and remember the state');
    expect(ui.frame()).toContain('keeps turn 1 and its answer');
  }, 30_000);
});

describe('states', () => {
  it('says where it looked when there are no sessions', async () => {
    await dispose();
    ({ home, dispose } = await fixtureHome());
    const { rm } = await import('node:fs/promises');
    await rm(join(home, '.codex'), { recursive: true });
    await rm(join(home, '.claude'), { recursive: true });
    await rm(join(home, 'src'), { recursive: true });
    await mkdir(join(home, '.codex')); // an empty home, beside one that is not there
    const ui = start();
    await ui.see('No sessions found. Looked in:');
    const lines = ui.lines().map((line) => line.trimEnd());
    expect(lines).toContain('    ~/.codex/sessions and archived_sessions (Codex)');
    expect(lines).toContain('    ~/.claude/projects (Claude Code) — does not exist');
  });
});
