// The whole conversation (issue 27): a fork at `end` of a session of every registered agent is a new native session
// holding every message, and a hand-off at `end` carries every prompt to the other agent.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { forkSession } from '../../src/app/fork.js';
import type { Here } from '../../src/app/place.js';
import { readTranscript } from '../../src/app/read.js';
import { scanCatalog, type CatalogSession, type ScanContext } from '../../src/catalog/scan.js';
import type { Locations } from '../../src/catalog/locations.js';
import { ADAPTER_LIST, ADAPTERS } from '../../src/core/formats/index.js';
import { HANDOFF_TARGETS } from '../../src/core/handoff/index.js';
import type { Message, Session } from '../../src/core/model.js';
import { DEFAULT_EXEC_TEMPLATES, DEFAULT_RESUME_TEMPLATES } from '../../src/core/resume.js';
import { mirrorLocations, mirrorVariables, remoteHomes } from '../../src/remote/mirror-layout.js';
import { fillEveryAgentHome } from '../remote/every-agent-home.js';

let dir: string;
let home: string;
let locations: Locations;
let context: ScanContext;
let rows: readonly CatalogSession[];
let here: Here;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sessions-whole-'));
  home = join(dir, 'home', 'me');
  await fillEveryAgentHome(home);
  locations = { roots: mirrorLocations('/', remoteHomes([home, ...mirrorVariables().map(() => '')])!).roots, cwd: home, rootsFromCwds: false };
  const scanned = await scanCatalog(locations);
  rows = scanned.sessions;
  context = scanned.context;
  here = { locations, context: () => Promise.resolve(context), defaultHomes: {}, templates: { resume: DEFAULT_RESUME_TEMPLATES, exec: DEFAULT_EXEC_TEMPLATES } };
}, 30_000);

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** What a message says: who, whether it is a prompt, and its text. */
function said(message: Message): [string, boolean, string] {
  return [message.role, message.userTurn, message.blocks.map((block) => (block.type === 'text' ? block.text : block.type)).join('\n')];
}

/** The prompts of a transcript, in order. */
function prompts(session: Session): string[] {
  return session.messages.filter((message) => message.userTurn).map((message) => said(message)[2].trim());
}

/** Each agent's session with the most user turns (the fixtures' own, never one this test wrote). */
function richest(agent: string, among: readonly CatalogSession[]): CatalogSession {
  const own = among.filter((row) => row.agent === agent && row.subagent === undefined && !row.forkedFrom && row.userTurns > 0);
  return own.sort((a, b) => b.userTurns - a.userTurns)[0]!;
}

describe('the whole conversation, for every agent', () => {
  it.each(ADAPTER_LIST.map((adapter) => adapter.agent))('%s: a fork at the end holds every message of the original, and lists every turn', async (agent) => {
    const source = richest(agent, rows);
    expect(source, agent).toBeDefined();
    const original = await readTranscript(source, { kind: 'local' }, here);
    const forked = await forkSession(source, { kind: 'local' }, here, { atTurn: 'end' });
    expect(forked.result).toMatchObject({ agent, parentId: source.id, keptUserTurns: source.userTurns });
    expect(forked.row.userTurns).toBe(source.userTurns);
    const copy = await readTranscript(forked.row, { kind: 'local' }, here);
    // The last answer too: nothing after the last prompt is left behind.
    expect(copy.messages.map(said)).toEqual(original.messages.map(said));
  });

  it.each(ADAPTER_LIST.map((adapter) => adapter.agent))('%s: a hand-off at the end carries every prompt, in order', async (agent) => {
    const source = richest(agent, rows);
    // A target that writes a file of its own in its home (a workspace's or a database's agent needs them to exist).
    const to = HANDOFF_TARGETS.find((target) => target !== agent && ADAPTERS[target].locations.homeFolder !== null && ADAPTERS[target].store === undefined)!;
    const original = await readTranscript(source, { kind: 'local' }, here);
    const handed = await forkSession(source, { kind: 'local' }, here, { atTurn: 'end', to });
    expect(handed.result).toMatchObject({ agent: to, keptUserTurns: prompts(original).length });
    const carried = prompts(await readTranscript(handed.row, { kind: 'local' }, here));
    expect(carried.slice(-prompts(original).length)).toEqual(prompts(original));
  });
});
