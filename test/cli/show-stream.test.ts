// `show` streams a transcript (the header from the catalog's row, each message as it is read): its output must be
// exactly what the whole read printed, on every fixture of every agent that streams.
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveLocations } from '../../src/catalog/locations.js';
import { groupOf, scanCatalog, type CatalogSession, type ScanContext } from '../../src/catalog/scan.js';
import { markdownTranscriptWriter, textTranscriptWriter, transcriptToMarkdown, transcriptToText, writeTranscript } from '../../src/core/export.js';
import { ADAPTERS } from '../../src/core/formats/index.js';

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

async function streamed(row: CatalogSession, context: ScanContext, format: 'text' | 'md', includeSystem: boolean): Promise<{ text: string; malformed: number; pieces: number }> {
  const stream = ADAPTERS[row.agent].streamMessages!(groupOf(row), context);
  const writer = format === 'md' ? markdownTranscriptWriter({ includeSystem }) : textTranscriptWriter({ includeSystem });
  const pieces: string[] = [];
  await writeTranscript(writer, row, stream.messages, (text) => {
    pieces.push(text);
  });
  return { text: pieces.join(''), malformed: stream.malformedLines(), pieces: pieces.length };
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
