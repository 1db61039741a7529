// Shared by the UI tests: catalog rows and transcripts built in code, a polling wait, fixture homes in temp dirs.
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { resolveLocations } from '../../src/catalog/locations.js';
import type { CatalogSession } from '../../src/catalog/scan.js';
import type { Message, Session } from '../../src/core/model.js';
import { DEFAULT_EXEC_TEMPLATES, DEFAULT_RESUME_TEMPLATES } from '../../src/core/resume.js';
import { createTuiServices, type TuiServices } from '../../src/ui/services.js';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const FIXTURE_HOME = join(ROOT, 'test', 'fixtures', 'home');

export function catalogSession(partial: Partial<CatalogSession> & Pick<CatalogSession, 'id'>): CatalogSession {
  const path = partial.path ?? `/sessions/${partial.id}.jsonl`;
  return {
    agent: 'codex',
    path,
    paths: [path],
    cwd: '/home/dev/src/api',
    title: `session ${partial.id}`,
    firstPrompt: `first prompt of ${partial.id}`,
    lastPrompt: `last prompt of ${partial.id}`,
    name: null,
    userTurns: 3,
    userTurnsExact: true,
    prompts: [`first prompt of ${partial.id}`],
    createdAt: '2026-11-01T10:00:00.000Z',
    updatedAt: '2026-11-01T10:00:00.000Z',
    forkedFrom: null,
    fork: null,
    gitBranch: 'main',
    model: 'gpt-5',
    archived: false,
    usage: null,
    size: 1000,
    mtimeMs: 0,
    root: '/sessions',
    ...partial,
  };
}

export function userTurn(text: string): Message {
  return { role: 'user', userTurn: true, blocks: [{ type: 'text', text }] };
}

export function assistant(text: string): Message {
  return { role: 'assistant', userTurn: false, blocks: [{ type: 'text', text }] };
}

/** A transcript of `turns` exchanges; turn N asks "question N" and is answered "answer N". */
export function transcriptOf(session: CatalogSession, turns: number, extra: (turn: number) => Message[] = () => []): Session {
  const messages: Message[] = [];
  for (let turn = 1; turn <= turns; turn++) messages.push(userTurn(`question ${turn}`), ...extra(turn), assistant(`answer ${turn}`));
  return { ...session, messages, malformedLines: 0 };
}

/** Poll until `check` stops throwing (no fixed sleeps: the UI settles when it settles). */
export async function waitFor<T>(check: () => T, { timeout = 5000, interval = 10 } = {}): Promise<T> {
  const deadline = Date.now() + timeout;
  for (;;) {
    try {
      return check();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, interval));
    }
  }
}

/** A copy of the fixture home (never the machine's own ~/.codex or ~/.claude); remove it with `dispose`. */
export async function fixtureHome(): Promise<{ readonly home: string; readonly dispose: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'sessions-ui-'));
  const home = join(dir, 'home');
  await cp(FIXTURE_HOME, home, { recursive: true });
  return { home, dispose: () => rm(dir, { recursive: true, force: true }) };
}

/** The real services over a fixture home (claw workspaces under its src/), default resume templates, no config file. */
export function fixtureServices(
  home: string,
  options: { readonly cwd?: string; readonly env?: Readonly<Record<string, string>>; readonly now?: () => Date; readonly collectGarbage?: () => void } = {},
): TuiServices {
  const locations = resolveLocations({ home, roots: { claw: [join(home, 'src')] } }, { env: {}, homeDir: home, cwd: options.cwd ?? '/nowhere' });
  return createTuiServices({
    locations,
    config: { resume: DEFAULT_RESUME_TEMPLATES, exec: DEFAULT_EXEC_TEMPLATES, source: null },
    homeDir: home,
    env: options.env ?? {},
    ...(options.now ? { now: options.now } : {}),
    ...(options.collectGarbage ? { collectGarbage: options.collectGarbage } : {}),
  });
}
