import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ADAPTER_LIST } from '../../src/core/formats/index.js';
import type { FormatAdapter } from '../../src/core/formats/types.js';
import { LINE_OPENING_BYTES } from '../../src/core/io/contains.js';
import { rawLines } from '../helpers/files.js';

// The native search counts a hit in a line whose opening holds none of its adapter's `nonConversationNeedles` without
// asking `isNonConversationLine` (native/search.c, may_be_rejected). That is only right if the rule never says true
// of such an opening: checked here on every line of the fixtures (real agents' files) and on openings made to take
// each branch of each rule.

const FIXTURES = join(import.meta.dirname, '..', 'fixtures');

/** Every line of every fixture, as openings cut the way the engine cuts them (and shorter, as a line's first bytes). */
async function fixtureOpenings(): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(FIXTURES, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    if ((await stat(path)).size >= 4 * 1024 * 1024) continue;
    const lines = await rawLines(path);
    if (lines.some((line) => line.includes(0))) continue; // a database, an image
    for (const line of lines) for (const cut of [LINE_OPENING_BYTES, 300, 160, 96, 48]) out.push(line.subarray(0, cut).toString('utf8'));
  }
  return out;
}

/** Openings each rule rejects, one or more per branch of its patterns (spacing and order as its patterns allow). */
const REJECTED: Record<string, readonly string[]> = {
  claude: [
    '{"type":"api-request","requestId":"r"}',
    '{ "type" : "api-request-shape", "shape": {} }',
    '{"type":"api-request-blob","blob":"…"}',
    '{"type":"cost-state","total":1}',
    '{"type":"atis-latch"}',
    '{"type":"tools-used","tools":[]}',
    '{"type":"permission-mode","mode":"plan"}',
    ...['environment', 'model', 'deferred_tools_delta', 'agent_listing_delta', 'skill_listing', 'session_context', 'date', 'remote_session_change', 'prompt_snapshot', 'command_permissions'].map(
      (kind) => `{"parentUuid":"p","isSidechain":false,"type":"attachment","attachment": { "type" : "${kind}","content":"x"},"uuid":"u"}`,
    ),
  ],
  codex: [
    '{"timestamp":"2026-01-01T00:00:00.000Z","type":"session_meta","payload":{"id":"x"}}',
    '{"timestamp":"t", "type" : "turn_context","payload":{}}',
    '{"timestamp":"t","type":"response_item","payload":{"type":"message","role":"developer","content":[]}}',
    '{"id":"x","timestamp":"t","instructions":"You are Codex"}',
    ...['<environment_context>', '<user_instructions>', '# AGENTS.md instructions for /w', '<skill>', '<turn_aborted>'].map(
      (text) => `{"timestamp":"t","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"${text}\\nmore"}]}}`,
    ),
  ],
  gemini: [
    '{"$set":{"lastUpdated":"t"}}',
    '{"$rewindTo":"m1"}',
    '{"id":"m1","timestamp":"t","type":"info","content":"x"}',
    '{"id":"m1","type":"error","content":"x"}',
    '{"id":"m1","timestamp":"t","type":"warning","content":"x"}',
    '{"id":"m1","timestamp":"t","type":"user","content":[{"text":"<session_context>\\nThis is"}]}',
    '{"id":"m1","timestamp":"t","type":"user","content":"  <hook_context>x"}',
  ],
  qwen: ['{"uuid":"u","type":"system","subtype":"ui_telemetry","systemPayload":{}}', '{"uuid":"u","parentUuid":null,"type":"system","subtype":"at_command"}'],
  droid: ['{"type":"message","id":"context-1337a0e2-553b-402f-8579-241e3e4bd5ab","timestamp":"t","message":{"role":"user","content":[{"type":"text","text":"<system-reminder>'],
};

const withNeedles = ADAPTER_LIST.filter((adapter): adapter is FormatAdapter & { isNonConversationLine(opening: string): boolean; nonConversationNeedles: readonly string[] } =>
  Boolean(adapter.isNonConversationLine && adapter.nonConversationNeedles),
);
const holdsNeedle = (adapter: (typeof withNeedles)[number], opening: string): boolean => adapter.nonConversationNeedles.some((needle) => opening.includes(needle));

describe("line filters' needles (what the native search may accept a line without asking JS)", () => {
  let openings: string[] = [];
  beforeAll(async () => {
    openings = await fixtureOpenings();
  });

  it('are given for the agents whose rules say what they need, as non-empty ASCII', () => {
    // An adapter with needles shows what its rule rejects in REJECTED, and REJECTED names no other.
    expect(withNeedles.map((adapter) => adapter.agent).sort()).toEqual(Object.keys(REJECTED).sort());
    for (const adapter of withNeedles) {
      expect(adapter.nonConversationNeedles.length).toBeGreaterThan(0);
      for (const needle of adapter.nonConversationNeedles) expect(needle).toMatch(/^[\x20-\x7e]+$/);
    }
    expect(openings.length).toBeGreaterThan(10_000);
  });

  it.each(withNeedles.map((adapter) => [adapter.agent, adapter] as const))('%s: every opening the rule rejects holds a needle', (agent, adapter) => {
    const made = REJECTED[agent] ?? [];
    expect(made.length).toBeGreaterThan(0);
    for (const opening of made) {
      // The made openings do take the rule's branches.
      expect(adapter.isNonConversationLine(opening), opening).toBe(true);
      expect(holdsNeedle(adapter, opening), opening).toBe(true);
    }
    // Every fixture line (of any agent: the rule is a function of the opening alone) it rejects holds one too.
    let rejected = 0;
    for (const opening of openings) {
      if (!adapter.isNonConversationLine(opening)) continue;
      rejected++;
      if (!holdsNeedle(adapter, opening)) expect.fail(`${agent} rejects an opening that holds none of its needles: ${opening.slice(0, 200)}`);
    }
    // Real lines of the agent's own that it rejects are among them (Copilot's rule has no needles and is not here).
    expect(rejected).toBeGreaterThan(0);
  });

  it.each(withNeedles.map((adapter) => [adapter.agent, adapter] as const))('%s: the needles spare most conversation lines a round trip', (_agent, adapter) => {
    // Not a rule of correctness: the needles are worth having when few lines the rule accepts hold one.
    const accepted = openings.filter((opening) => !adapter.isNonConversationLine(opening));
    const asked = accepted.filter((opening) => holdsNeedle(adapter, opening)).length;
    expect(asked / accepted.length).toBeLessThan(0.5);
  });
});
