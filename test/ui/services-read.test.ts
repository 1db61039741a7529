// The TUI's services read a transcript that lives in its own files (Claude Code) at once, without waiting for the
// catalog scan: a big home's warm scan takes seconds, and a session opened meanwhile must show its first screen.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveLocations } from '../../src/catalog/locations.js';
import { scanCatalog } from '../../src/catalog/scan.js';
import { ADAPTERS } from '../../src/core/formats/index.js';
import { FIXTURE_HOME, fixtureServices } from './helpers.js';

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
});
