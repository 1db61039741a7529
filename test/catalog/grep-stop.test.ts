// The browser's content search: grep hands over matching file groups (no rows), and stops when asked.
// Runs the built module: its workers are the built grep-worker.js (`npm test` builds first).
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import type * as Grep from '../../src/catalog/grep.js';
import { resolveLocations } from '../../src/catalog/locations.js';
import { importBuilt } from '../helpers/built-dist.js';
import { grepEngineOption } from '../helpers/grep-engine.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const HOME = join(ROOT, 'test', 'fixtures', 'home');
let grep: typeof Grep;

beforeAll(async () => {
  grep = await importBuilt<typeof Grep>('catalog', 'grep.js');
});

const locations = () => resolveLocations({ home: HOME, roots: { claw: [join(HOME, 'src')] } }, { env: {}, homeDir: HOME, cwd: '/nowhere' });

describe('grep for the browser', () => {
  it('hands over each matching file group with its count and snippet, and summarises nothing', async () => {
    const found: { paths: readonly string[]; matches: number; match: string | undefined }[] = [];
    const rows: unknown[] = [];
    const result = await grep.grepLocations(locations(), 'auth test', { ...grepEngineOption(),
      ignoreCase: true,
      count: true,
      context: 20,
      onMatch: (row) => rows.push(row),
      onFiles: (group, what) => found.push({ paths: group.paths, matches: what.matches, match: what.snippet?.match }),
    });
    expect(rows).toEqual([]);
    expect(result.matched).toBe(found.length);
    expect(found.map((one) => [one.paths.some((path) => path.includes('01a200ed-500e')), one.matches, one.match])).toContainEqual([true, 7, 'auth test']);
  });

  it('stops when its signal is aborted: nothing more is reported, and the promise settles', async () => {
    const controller = new AbortController();
    let after = 0;
    let first = 0;
    await grep.grepLocations(locations(), 'a', { ...grepEngineOption(),
      count: true,
      workers: 1,
      signal: controller.signal,
      onMatch: () => undefined,
      onFiles: () => {
        if (controller.signal.aborted) after++;
        else {
          first++;
          controller.abort();
        }
      },
    });
    expect(first).toBe(1);
    expect(after).toBe(0);
  });
});
