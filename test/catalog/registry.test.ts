// Every adapter in the registry is found, grepped, watched and given its location flag: an agent added to the
// registry (and to AGENTS) cannot be silently left out of one of them. SAMPLES is a Record<Agent, …>, so a new agent
// does not compile here until it names a real session file of its own.
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Command } from 'commander';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { agentDocTables, withAgentDocTables } from '../../src/agent-docs.js';
import { buildProgram } from '../../src/cli.js';
import type * as Grep from '../../src/catalog/grep.js';
import { locationFlags, locationOptionsFromFlags, resolveLocations, type Locations } from '../../src/catalog/locations.js';
import { scanCatalog } from '../../src/catalog/scan.js';
import { watchCatalog, type CatalogChange, type CatalogWatcher } from '../../src/catalog/watch.js';
import { ADAPTER_LIST, ADAPTERS } from '../../src/core/formats/index.js';
import { AGENTS, type Agent } from '../../src/core/model.js';
import { DEFAULT_EXEC_TEMPLATES, DEFAULT_RESUME_TEMPLATES } from '../../src/core/resume.js';
import { waitFor } from '../ui/helpers.js';
import { grepEngineOption } from '../helpers/grep-engine.js';

const FIXTURES = join(import.meta.dirname, '..', 'fixtures');
const AGENTS_DOC = join(import.meta.dirname, '..', '..', 'docs', 'agents.md');
const LIST_JSON_DOC = join(import.meta.dirname, '..', '..', 'docs', 'list-json.md');
const README = join(import.meta.dirname, '..', '..', 'README.md');

/** One real session of the agent: its fixture file, where it goes below a root given with the agent's flag, its id, a word in it. */
interface AgentSample {
  readonly fixture: string;
  readonly at: string;
  readonly id: string;
  readonly word: string;
}

const SAMPLES: Readonly<Record<Agent, AgentSample>> = {
  codex: {
    fixture: 'home/.codex/sessions/2026/11/22/rollout-2026-11-22T01-44-55-01a200ed-8253-74d3-b561-f652765d4d59.jsonl',
    at: 'sessions/2026/11/22/rollout-2026-11-22T01-44-55-01a200ed-8253-74d3-b561-f652765d4d59.jsonl',
    id: '01a200ed-8253-74d3-b561-f652765d4d59',
    word: '01a200ed-8253-74d3-b561-f652765d4d59',
  },
  claude: {
    fixture: 'home/.claude/projects/-home-dev-src-a-web-ui/637c5025-a11d-4fce-bb60-2cbeb9eb07a4.jsonl',
    at: 'projects/-home-dev-src-a-web-ui/637c5025-a11d-4fce-bb60-2cbeb9eb07a4.jsonl',
    id: '637c5025-a11d-4fce-bb60-2cbeb9eb07a4',
    word: 'Make the sidebar collapsible',
  },
  claw: {
    fixture: 'home/src/claw-code/rust/.claw/sessions/session-1775386842352-0.jsonl',
    at: 'ws/.claw/sessions/session-1775386842352-0.jsonl',
    id: 'session-1775386842352-0',
    word: 'doctor --help',
  },
  copilot: {
    fixture: 'copilot-1.0.102/.copilot/session-state/4ae98b21-b659-453b-b037-7ffbe9780750/events.jsonl',
    at: 'session-state/4ae98b21-b659-453b-b037-7ffbe9780750/events.jsonl',
    id: '4ae98b21-b659-453b-b037-7ffbe9780750',
    word: 'naïve résumé',
  },
  gemini: {
    fixture: 'gemini-0.61.0/.gemini/tmp/g-api-server/chats/session-2026-11-25T02-14-c736521c.jsonl',
    at: 'tmp/g-api-server/chats/session-2026-11-25T02-14-c736521c.jsonl',
    id: 'c736521c-9ab4-4a7f-8ac5-565575aa5591',
    word: 'health check endpoint',
  },
  qwen: {
    fixture: 'qwen-0.24.4/.qwen/projects/-home-dev-src-q-caf----/chats/77d4aa70-e81c-4025-9537-2c4526617f71.jsonl',
    at: 'projects/-home-dev-src-q-caf----/chats/77d4aa70-e81c-4025-9537-2c4526617f71.jsonl',
    id: '77d4aa70-e81c-4025-9537-2c4526617f71',
    word: 'Merci, ça suffit',
  },
  // The database the real opencode 1.18.33 wrote (examples/home): one file holding three conversations.
  opencode: {
    fixture: '../../examples/home/.local/share/opencode/opencode.db',
    at: 'opencode.db',
    id: 'ses_def8a5e01ffeSLpJoOndDIcP22',
    word: 'Grüße aus dem Café',
  },
  droid: {
    fixture: 'droid-0.225.2/.factory/sessions/-home-dev-src-d-café 日本/c3c2b345-d819-4284-a975-b7a8dd6b83b6.jsonl',
    at: 'sessions/-home-dev-src-d-café 日本/c3c2b345-d819-4284-a975-b7a8dd6b83b6.jsonl',
    id: 'c3c2b345-d819-4284-a975-b7a8dd6b83b6',
    word: 'Résumé of the café menu',
  },
  // A tree the real pi 0.74.2 wrote: back to its second prompt through navigateTree, then another second prompt.
  pi: {
    fixture: 'pi-0.74.2/.pi/agent/sessions/--home-dev-src-p-tree--/2026-11-28T23-32-40-450Z_01a22480-f382-791d-a9e4-1402703e6259.jsonl',
    at: 'sessions/--home-dev-src-p-tree--/2026-11-28T23-32-40-450Z_01a22480-f382-791d-a9e4-1402703e6259.jsonl',
    id: '01a22480-f382-791d-a9e4-1402703e6259',
    word: 'canary deploy',
  },
  // The database the real Kilo Code CLI 7.7.9 wrote (its dump, loaded): four conversations in one file.
  kilo: {
    fixture: 'contract/kilo/kilo/kilo.db',
    at: 'kilo.db',
    id: 'ses_ddb7254acffemFMX8kqfWtBH2f',
    word: 'naïve résumé',
  },
  // A session the real Auggie 0.36.0 wrote in a folder with a space and a non-ASCII name.
  auggie: {
    fixture: 'auggie-0.36.0/.augment/sessions/213c0147-ddb8-4e42-860b-abd1dd2bff3e.json',
    at: 'sessions/213c0147-ddb8-4e42-860b-abd1dd2bff3e.json',
    id: '213c0147-ddb8-4e42-860b-abd1dd2bff3e',
    word: 'Résumé of the café menu',
  },
};

let temp: string;
let grep: typeof Grep;

beforeAll(async () => {
  // grep's workers are the built grep-worker.js (`npm test` builds first).
  grep = (await import(join(import.meta.dirname, '..', '..', 'dist', 'catalog', 'grep.js'))) as typeof Grep;
});

beforeEach(async () => {
  temp = await mkdtemp(join(tmpdir(), 'sessions-registry-'));
  for (const agent of AGENTS) {
    const target = join(temp, agent, SAMPLES[agent].at);
    await mkdir(dirname(target), { recursive: true });
    await cp(join(FIXTURES, SAMPLES[agent].fixture), target);
  }
});

afterEach(async () => {
  await rm(temp, { recursive: true, force: true });
});

/** Each agent's root named through its own location flag, as the CLI parses it (`{codexHome: [dir], …}`). */
function locationsFromFlags(): Locations {
  const parsed = Object.fromEntries(locationFlags().map((flag) => [flag.attribute, [join(temp, flag.agent)]]));
  return { ...resolveLocations(locationOptionsFromFlags(parsed), { env: {}, homeDir: join(temp, 'nobody'), cwd: join(temp, 'elsewhere') }), rootsFromCwds: false };
}

describe('the adapter registry', () => {
  it('has one adapter per agent, under its own name', () => {
    expect(ADAPTER_LIST.map((adapter) => adapter.agent)).toEqual([...AGENTS]);
    for (const agent of AGENTS) expect(ADAPTERS[agent].agent).toBe(agent);
    expect(Object.keys(DEFAULT_RESUME_TEMPLATES).sort()).toEqual([...AGENTS].sort());
    expect(Object.keys(DEFAULT_EXEC_TEMPLATES).sort()).toEqual([...AGENTS].sort());
  });

  it('gives every agent a location flag on every command, and an --agent choice', () => {
    const program = buildProgram();
    const commands: Command[] = [program, ...program.commands];
    const flags = locationFlags();
    expect(new Set(flags.map((flag) => flag.long)).size).toBe(AGENTS.length);
    for (const command of commands) {
      const longs = command.options.map((option) => option.long);
      for (const flag of flags) expect(longs, `${command.name()} ${flag.long}`).toContain(flag.long);
    }
    for (const name of ['list', 'grep']) {
      const agent = program.commands.find((command) => command.name() === name)!.options.find((option) => option.long === '--agent')!;
      expect(agent.argChoices).toEqual([...AGENTS]);
    }
    for (const adapter of ADAPTER_LIST) expect(program.description()).toContain(adapter.label);
  });

  it('docs/agents.md holds the tables made from the registry (SESSIONS_WRITE_DOCS=1 writes them)', async () => {
    const doc = await readFile(AGENTS_DOC, 'utf8');
    const updated = withAgentDocTables(doc);
    if (process.env.SESSIONS_WRITE_DOCS === '1') await writeFile(AGENTS_DOC, updated);
    else expect(doc).toBe(updated);
    for (const adapter of ADAPTER_LIST) expect(agentDocTables().locations).toContain(`| ${adapter.label} |`);
  });

  it("names every agent in README's first paragraph and in the list --json contract's agent values", async () => {
    const readme = await readFile(README, 'utf8');
    const opening = readme.split('\n\n')[1]!;
    const agentRow = (await readFile(LIST_JSON_DOC, 'utf8')).split('\n').find((line) => line.startsWith('| `agent` |'))!;
    for (const adapter of ADAPTER_LIST) {
      expect(opening.replace(/\s+/g, ' '), adapter.label).toContain(adapter.label.replace(/^OpenAI /, ''));
      expect(agentRow, adapter.agent).toContain(`\`"${adapter.agent}"\``);
    }
  });

  it('lists a session of every agent found through its location flag', async () => {
    const { sessions } = await scanCatalog(locationsFromFlags(), { workers: 0 });
    for (const agent of AGENTS) expect(sessions.find((s) => s.id === SAMPLES[agent].id)?.agent, agent).toBe(agent);
  });

  it('greps a session of every agent', async () => {
    for (const agent of AGENTS) {
      const found: string[] = [];
      await grep.grepLocations(locationsFromFlags(), SAMPLES[agent].word, { ...grepEngineOption(), workers: 1, onMatch: (session) => found.push(`${session.agent}:${session.id}`) });
      expect(found, agent).toContain(`${agent}:${SAMPLES[agent].id}`);
    }
  });

  describe('watching', () => {
    let watcher: CatalogWatcher | null = null;
    afterEach(async () => {
      await watcher?.close();
      watcher = null;
    });

    it('re-reads a session of every agent when its file is written', async () => {
      const locations = locationsFromFlags();
      const { sessions, context } = await scanCatalog(locations, { workers: 0 });
      const changes: CatalogChange[] = [];
      watcher = watchCatalog(locations, sessions, { context, onChange: (change) => changes.push(change) });
      await watcher.ready;
      for (const agent of AGENTS) {
        const path = join(temp, agent, SAMPLES[agent].at);
        await writeFile(path, await readFile(path));
      }
      await waitFor(() => {
        const seen = new Set(changes.flatMap((change) => change.upserted).map((session) => `${session.agent}:${session.id}`));
        for (const agent of AGENTS) expect(seen).toContain(`${agent}:${SAMPLES[agent].id}`);
      });
    });
  });
});
