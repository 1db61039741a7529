// The TUI's services read a transcript that lives in its own files (Claude Code) at once, without waiting for the
// catalog scan: a big home's warm scan takes seconds, and a session opened meanwhile must show its first screen.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveLocations } from '../../src/catalog/locations.js';
import { ADAPTERS } from '../../src/core/formats/index.js';
import { groupOf, scanCatalog } from '../../src/catalog/scan.js';
import { DISPLAY_CLIP_LIMITS } from '../../src/core/io/clip.js';
import { buildTranscriptItems, transcriptHeader, withCodeMarks, type TranscriptItem } from '../../src/ui/transcript-layout.js';
import { turnFiles } from '../../src/app/turn-files.js';
import { FIXTURE_HOME, fixtureServices } from './helpers.js';

const FIXTURES = join(FIXTURE_HOME, '..');

describe('TUI services: loadSession', () => {
  it('reads a Claude transcript before the catalog scan has run', async () => {
    const locations = resolveLocations({ home: FIXTURE_HOME, roots: { claw: [join(FIXTURE_HOME, 'src')] } }, { env: {}, homeDir: FIXTURE_HOME, cwd: '/nowhere' });
    const { sessions } = await scanCatalog(locations, { agents: ['claude'] });
    const row = sessions.find((s) => s.id.startsWith('328cfc0d'))!;
    expect(ADAPTERS.claude.readsAlone).toBe(true);
    // scan() is never called on these services: a read that waited for its context would never end.
    const services = fixtureServices(FIXTURE_HOME);
    const starts: number[] = [];
    const session = await services.loadSession(row, (messages) => starts.push(messages.length));
    expect(session.id).toBe(row.id);
    expect(session.messages.filter((m) => m.userTurn)).toHaveLength(row.userTurns);
  });

  // Claude's items are made as its lines are read (no message held); every other agent's from the session read whole.
  for (const name of ['home', 'claude-rules', 'claude-synthetic', 'claude-2.1.330']) {
    it(`the transcript's items are those of the session read whole (fixtures/${name}, every agent)`, async () => {
      const home = join(FIXTURES, name);
      const locations = resolveLocations({ home, roots: { claw: [join(home, 'src')] } }, { env: {}, homeDir: home, cwd: '/nowhere' });
      const { sessions, subagentSessions, context } = await scanCatalog(locations);
      const services = fixtureServices(home);
      await services.scan(() => undefined); // agents that read with the scan's context wait for it
      let claude = 0;
      let marked = 0;
      for (const row of [...sessions, ...subagentSessions]) {
        const read = await ADAPTERS[row.agent].readSession(groupOf(row), context, { clip: DISPLAY_CLIP_LIMITS });
        const items = buildTranscriptItems({ ...transcriptHeader(read, row), messages: read.messages });
        // Turns marked with what the agent recorded of their files (Claude Code's snapshots in the fixtures).
        const whole = ADAPTERS[row.agent].checkpoints ? withCodeMarks(items, await turnFiles(row, context)) : items;
        const starts: (readonly TranscriptItem[])[] = [];
        expect(await services.loadTranscript!(row, (items) => starts.push(items)), row.path).toEqual(whole);
        if (row.agent === 'claude') claude++;
        marked += whole.filter((item) => item.kind === 'turn' && item.code?.recorded).length;
      }
      expect(claude).toBeGreaterThan(0);
      // The synthetic Claude session records file-history snapshots: its turns are marked.
      if (name === 'claude-synthetic') expect(marked).toBeGreaterThan(0);
    });
  }
});
