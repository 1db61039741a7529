import { statSync } from 'node:fs';
import { cp } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CatalogCache } from '../../src/catalog/cache.js';
import type { FileStamp } from '../../src/catalog/cache-entry.js';
import { resolveLocations } from '../../src/catalog/locations.js';
import { scanCatalog, type CatalogSession } from '../../src/catalog/scan.js';
import { headFingerprint } from '../../src/core/io/lines.js';

const FIXTURES = fileURLToPath(new URL('../fixtures/', import.meta.url));

/** The stamps a cache lookup is asked with, for these files as they are now. */
export function stampsOf(paths: readonly string[]): FileStamp[] {
  return paths.map((path) => {
    const info = statSync(path);
    return [path, info.size, info.mtimeMs, headFingerprint(path)];
  });
}

/**
 * The fixture home `name` copied into `dir` under `as`, scanned with its cache saved beside it (as `list` does); again
 * on each `rescan`. Its sessions, cache path and home.
 */
export async function cachedHome(dir: string, name: string, as: string) {
  const home = join(dir, as);
  await cp(join(FIXTURES, name), home, { recursive: true });
  const locations = { ...resolveLocations({ home, roots: { claw: [join(home, 'src')] } }, { env: {}, homeDir: home, cwd: home }), rootsFromCwds: false };
  const cachePath = join(dir, `${as}.cache.jsonl`);
  const rescan = async (): Promise<CatalogSession[]> => {
    const cache = await CatalogCache.load(cachePath);
    const result = await scanCatalog(locations, { cache });
    await cache.save();
    return [...result.sessions, ...result.subagentSessions];
  };
  return { sessions: await rescan(), cachePath, home, rescan };
}
