import { execFile } from 'node:child_process';
import { cp, mkdir, readdir, readFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** Build leftovers and sources of a native package, which nothing loads at run time (better-sqlite3's are ~25 MB). */
const NOT_RUNTIME = new Set(['deps', 'src', 'obj', 'obj.target', '.deps', 'test']);

/**
 * The built CLI (bin, the bundle, the native search engine when built, and the packages the bundle loads at run
 * time: better-sqlite3, string-width and what they need) copied to `dir`, readable by every user; its bin's path.
 * A test that runs `sessions` as another user (as root: nobody, an ssh host's account) runs this copy: the checkout
 * may be one only its owner can read (a clone in a `mktemp -d` folder).
 */
export async function copyBuiltCli(dir: string): Promise<string> {
  await mkdir(dir, { recursive: true });
  for (const part of ['bin', join('dist', 'bundle'), 'package.json']) await cp(join(ROOT, part), join(dir, part), { recursive: true });
  await cp(join(ROOT, 'native', 'build'), join(dir, 'native', 'build'), { recursive: true }).catch(() => undefined);
  for (const name of await runtimePackages()) {
    await cp(join(ROOT, 'node_modules', name), join(dir, 'node_modules', name), { recursive: true, filter: (path) => !NOT_RUNTIME.has(basename(path)) && !path.endsWith('.a') });
  }
  await promisify(execFile)('chmod', ['-R', 'a+rX', dir]);
  return join(dir, 'bin', 'sessions.js');
}

/** The packages the bundle requires when it runs (`createRequire(import.meta.url)("name")`), with their dependencies. */
async function runtimePackages(): Promise<Set<string>> {
  const bundle = join(ROOT, 'dist', 'bundle');
  const wanted: string[] = [];
  for (const file of await readdir(bundle)) {
    if (!file.endsWith('.js')) continue;
    for (const match of (await readFile(join(bundle, file), 'utf8')).matchAll(/\(import\.meta\.url\)\("([^".][^"]*)"\)/g)) wanted.push(match[1]!);
  }
  const found = new Set<string>();
  while (wanted.length > 0) {
    const name = wanted.pop()!;
    if (found.has(name)) continue;
    found.add(name);
    const manifest = JSON.parse(await readFile(join(ROOT, 'node_modules', name, 'package.json'), 'utf8')) as { dependencies?: Record<string, string> };
    wanted.push(...Object.keys(manifest.dependencies ?? {}));
  }
  return found;
}
