import { execFile } from 'node:child_process';
import { cp, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/**
 * The built CLI (bin, the bundle, the native search engine when built) copied to `dir`, readable by every user; its
 * bin's path. A test that runs `sessions` as another user (as root: nobody, an ssh host's account) runs this copy:
 * the checkout may be one only its owner can read (a clone in a `mktemp -d` folder).
 */
export async function copyBuiltCli(dir: string): Promise<string> {
  await mkdir(dir, { recursive: true });
  for (const part of ['bin', join('dist', 'bundle'), 'package.json']) await cp(join(ROOT, part), join(dir, part), { recursive: true });
  await cp(join(ROOT, 'native', 'build'), join(dir, 'native', 'build'), { recursive: true }).catch(() => undefined);
  await promisify(execFile)('chmod', ['-R', 'a+rX', dir]);
  return join(dir, 'bin', 'sessions.js');
}
