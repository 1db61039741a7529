// The grep tests run the built modules (their workers are the built grep-worker.js): dist/ must be there.
import { access } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const DIST = fileURLToPath(new URL('../../dist/', import.meta.url));

/** A module of the build, by its path under dist/ (`importBuilt<typeof Grep>('catalog', 'grep.js')`). */
export async function importBuilt<T>(...path: string[]): Promise<T> {
  await access(join(DIST, 'catalog', 'grep-worker.js')).catch(() => {
    throw new Error('dist/ is missing: run `npm run build` first (npm test does)');
  });
  return (await import(join(DIST, ...path))) as T;
}
