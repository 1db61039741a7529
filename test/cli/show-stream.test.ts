// `show` streams a transcript (the header from the catalog's row, each message as it is read): its output must be
// exactly what the whole read printed, on every fixture of every agent that streams.
import { appendFile, cp, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveLocations } from '../../src/catalog/locations.js';
import { groupOf, scanCatalog, type CatalogSession, type ScanContext } from '../../src/catalog/scan.js';
import { markdownTranscriptWriter, textTranscriptWriter, transcriptToMarkdown, transcriptToText, writeTranscript } from '../../src/core/export.js';
import { ADAPTERS } from '../../src/core/formats/index.js';
import type { FoldResume } from '../../src/core/formats/types.js';

const FIXTURES = fileURLToPath(new URL('../fixtures/', import.meta.url));
/** Every fixture home holding Claude Code sessions (the agent that streams). */
const HOMES = ['home', 'claude-rules', 'claude-synthetic', 'claude-2.1.330'];

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sessions-show-stream-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** What `show` printed before it streamed: the whole session read, then formatted as one string. */
async function wholeRead(row: CatalogSession, context: ScanContext, format: 'text' | 'md', includeSystem: boolean): Promise<{ text: string; malformed: number }> {
  const read = await ADAPTERS[row.agent].readSession(groupOf(row), context);
  const session = { ...read, forkedFrom: read.forkedFrom ?? row.forkedFrom, subagent: row.subagent ?? read.subagent, subagents: row.subagents };
  return { text: format === 'md' ? transcriptToMarkdown(session, { includeSystem }) : transcriptToText(session, { includeSystem }), malformed: read.malformedLines };
}

async function streamed(row: CatalogSession, context: ScanContext, format: 'text' | 'md', includeSystem: boolean, resume?: FoldResume): Promise<{ text: string; malformed: number; pieces: number; passes: number | null | undefined }> {
  const stream = ADAPTERS[row.agent].streamMessages!(groupOf(row), context, resume)!;
  const writer = format === 'md' ? markdownTranscriptWriter({ includeSystem }) : textTranscriptWriter({ includeSystem });
  const pieces: string[] = [];
  await writeTranscript(writer, row, stream.messages, (text) => {
    pieces.push(text);
  });
  return { text: pieces.join(''), malformed: stream.malformedLines(), pieces: pieces.length, passes: stream.passes?.() };
}

/** The index's fold of a session's file, as the cache saves it for a big file (here saved whatever the size). */
async function savedFoldOf(row: CatalogSession, context: ScanContext): Promise<FoldResume | undefined> {
  const folding = Object.assign(Object.create(context) as ScanContext, { saveFoldFrom: 0 });
  const indexed = await ADAPTERS[row.agent].indexSession(groupOf(row), folding);
  return indexed.resume === undefined ? undefined : { ...indexed.resume, ...(indexed.summary ? { row: indexed.summary } : {}) };
}

async function claudeRows(home: string): Promise<{ rows: CatalogSession[]; context: ScanContext }> {
  const locations = { ...resolveLocations({ home }, { env: {}, homeDir: dir, cwd: dir }), rootsFromCwds: false };
  const { sessions, subagentSessions, context } = await scanCatalog(locations, { agents: ['claude'] });
  return { rows: [...sessions, ...subagentSessions].filter((row) => row.agent === 'claude'), context };
}

describe('show streams exactly what the whole read printed', () => {
  for (const name of HOMES) {
    it(`every Claude session of fixtures/${name}, text and Markdown, with and without --system`, async () => {
      const home = join(dir, name);
      await cp(join(FIXTURES, name), home, { recursive: true });
      const locations = { ...resolveLocations({ home }, { env: {}, homeDir: dir, cwd: dir }), rootsFromCwds: false };
      const { sessions, subagentSessions, context } = await scanCatalog(locations, { agents: ['claude'] });
      const rows = [...sessions, ...subagentSessions].filter((row) => row.agent === 'claude');
      expect(rows.length).toBeGreaterThan(0);
      for (const row of rows) {
        for (const format of ['text', 'md'] as const) {
          for (const includeSystem of [false, true]) {
            const old = await wholeRead(row, context, format, includeSystem);
            const now = await streamed(row, context, format, includeSystem);
            expect(now.text, `${row.path} ${format}${includeSystem ? ' --system' : ''}`).toBe(old.text);
            expect(now.malformed).toBe(old.malformed);
          }
        }
      }
    });
  }

  for (const name of HOMES) {
    it(`with the index's saved fold: one pass where the file is one chain, two where it branches (fixtures/${name})`, async () => {
      const home = join(dir, `fold-${name}`);
      await cp(join(FIXTURES, name), home, { recursive: true });
      const { rows, context } = await claudeRows(home);
      const passes: number[] = [];
      for (const row of rows) {
        const resume = await savedFoldOf(row, context);
        if (resume === undefined) continue;
        for (const format of ['text', 'md'] as const) {
          for (const includeSystem of [false, true]) {
            const old = await wholeRead(row, context, format, includeSystem);
            const now = await streamed(row, context, format, includeSystem, resume);
            expect(now.text, `${row.path} ${format}${includeSystem ? ' --system' : ''} (${now.passes} passes)`).toBe(old.text);
            expect(now.malformed).toBe(old.malformed);
            passes.push(now.passes ?? 0);
          }
        }
      }
      expect(passes.length).toBeGreaterThan(0);
      expect(passes.every((n) => n === 1 || n === 2)).toBe(true);
    });
  }

  it('a rewound file is read twice; a linear one once, from its first byte', async () => {
    const home = join(dir, 'branches');
    await cp(join(FIXTURES, 'home'), home, { recursive: true });
    await cp(join(FIXTURES, 'claude-synthetic'), home, { recursive: true });
    const { rows, context } = await claudeRows(home);
    const byPasses = new Map<number, string[]>();
    for (const row of rows) {
      const resume = await savedFoldOf(row, context);
      if (resume === undefined) continue;
      const now = await streamed(row, context, 'text', false, resume);
      expect(now.text).toBe((await wholeRead(row, context, 'text', false)).text);
      byPasses.set(now.passes!, [...(byPasses.get(now.passes!) ?? []), row.id]);
    }
    // 328cfc0d is one chain (a real Claude Code session); synthetic …01 was rewound (its first answer is off the chain).
    expect(byPasses.get(1)).toContain('328cfc0d-0846-4702-9243-c6354d61457d');
    expect(byPasses.get(2)).toContain('5e551011-0000-4000-8000-000000000001');
  });

  it('a file appended since its fold: one pass when the new lines go on from the leaf, two when they rewind', async () => {
    const home = join(dir, 'appended');
    await cp(join(FIXTURES, 'home'), home, { recursive: true });
    const { rows, context } = await claudeRows(home);
    const row = rows.find((r) => r.id.startsWith('328cfc0d'))!;
    const resume = (await savedFoldOf(row, context))!;
    expect((await streamed(row, context, 'text', false, resume)).passes).toBe(1);
    const lines = (await readFile(row.path, 'utf8')).split('\n').filter(Boolean).map((line) => JSON.parse(line) as Record<string, unknown>);
    const chainLines = lines.filter((line) => typeof line.uuid === 'string' && (line.type === 'user' || line.type === 'assistant') && line.isSidechain !== true);
    const leaf = chainLines.at(-1)!;
    const turn = (uuid: string, parentUuid: string, text: string): string =>
      `${JSON.stringify({ ...leaf, type: 'user', uuid, parentUuid, isMeta: undefined, message: { role: 'user', content: text }, timestamp: '2026-11-22T10:00:00.000Z' })}\n`;
    await appendFile(row.path, turn('aaaaaaaa-0000-4000-8000-000000000001', leaf.uuid as string, 'one more question, appended'));
    // The header is the row of the file as it is now; the fold is the one saved before the append.
    const now = async (): Promise<CatalogSession> => (await claudeRows(home)).rows.find((r) => r.id === row.id)!;
    const grown = await streamed(await now(), context, 'text', false, resume);
    expect(grown.passes).toBe(1);
    expect(grown.text).toContain('one more question, appended');
    expect(grown.text).toBe((await wholeRead(await now(), context, 'text', false)).text);
    // A rewind: the next prompt continues from an earlier answer, so the lines after it leave the chain.
    const earlier = chainLines[Math.floor(chainLines.length / 2)]!;
    await appendFile(row.path, turn('aaaaaaaa-0000-4000-8000-000000000002', earlier.uuid as string, 'asked again after a rewind'));
    const rewound = await streamed(await now(), context, 'text', false, resume);
    expect(rewound.passes).toBe(2);
    expect(rewound.text).toContain('asked again after a rewind');
    expect(rewound.text).not.toContain('one more question, appended');
    expect(rewound.text).toBe((await wholeRead(await now(), context, 'text', false)).text);
  });

  it('writes the header before reading the file, then the first message on its own', async () => {
    const home = join(dir, 'first');
    await cp(join(FIXTURES, 'home'), home, { recursive: true });
    const locations = { ...resolveLocations({ home }, { env: {}, homeDir: dir, cwd: dir }), rootsFromCwds: false };
    const { sessions, context } = await scanCatalog(locations, { agents: ['claude'] });
    const row = sessions.find((s) => s.id.startsWith('328cfc0d'))!;
    const { pieces, text } = await streamed(row, context, 'text', false);
    expect(text).toContain('── user · turn 1 ');
    // header, first message, the rest (batched)
    expect(pieces).toBeGreaterThanOrEqual(3);
  });
});

/** Every fixture home holding Codex rollouts (rollbacks, paginated forks, segments, reviews, legacy files). */
const CODEX_HOMES = ['home', 'codex-synthetic', 'codex-rules'];

describe('show of a Codex rollout streams exactly what the whole read printed', () => {
  for (const name of CODEX_HOMES) {
    it(`every Codex session of fixtures/${name}, text and Markdown, with and without --system`, async () => {
      const home = join(dir, `codex-${name}`);
      await cp(join(FIXTURES, name), home, { recursive: true });
      const locations = { ...resolveLocations({ home }, { env: {}, homeDir: dir, cwd: dir }), rootsFromCwds: false };
      const { sessions, subagentSessions, context } = await scanCatalog(locations, { agents: ['codex'] });
      const rows = [...sessions, ...subagentSessions].filter((row) => row.agent === 'codex');
      const passes: (number | null | undefined)[] = [];
      for (const row of rows) {
        // A thread of several files is read whole (`readSession`): nothing to compare.
        if (ADAPTERS.codex.streamMessages!(groupOf(row), context) === null) continue;
        for (const format of ['text', 'md'] as const) {
          for (const includeSystem of [false, true]) {
            const old = await wholeRead(row, context, format, includeSystem);
            const now = await streamed(row, context, format, includeSystem);
            expect(now.text, `${row.path} ${format}${includeSystem ? ' --system' : ''}`).toBe(old.text);
            expect(now.malformed).toBe(old.malformed);
            passes.push(now.passes);
          }
        }
      }
      // Streamed in one pass, except files that record a rollback or a history_base (read whole first).
      expect(passes).toContain(1);
      if (name !== 'codex-rules') expect(passes).toContain(2);
    });
  }

  it('a rollout is written a message at a time: the header first, then the first message on its own', async () => {
    const home = join(dir, 'codex-first');
    await cp(join(FIXTURES, 'home'), home, { recursive: true });
    const locations = { ...resolveLocations({ home }, { env: {}, homeDir: dir, cwd: dir }), rootsFromCwds: false };
    const { sessions, context } = await scanCatalog(locations, { agents: ['codex'] });
    const row = sessions.find((s) => s.id === '01a200ed-8253-74d3-b561-f652765d4d59')!;
    const { pieces, text, passes } = await streamed(row, context, 'text', false);
    expect(passes).toBe(1);
    expect(text).toContain('── user · turn 1 ');
    expect(pieces).toBeGreaterThanOrEqual(3);
  });
});
