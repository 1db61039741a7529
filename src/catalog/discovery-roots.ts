/** The folders an agent's sessions are discovered in: its candidate roots and the cwds of other sessions, each once. */
import type { FormatAdapter } from '../core/formats/types.js';
import { FS_CALLS_IN_FLIGHT, mapLimited } from '../core/io/limited.js';
import { walkFs } from '../core/io/walk-fs.js';

/**
 * The folders an agent's sessions are discovered in, of `candidates` (its candidate roots, then for adapters that keep
 * sessions in working directories the cwds other sessions ran in): each once (by real path: a folder reached through
 * a symlink is read once, under its first spelling), when it is one of the agent's roots (default: a directory);
 * discoveryRootsReal gives each with its real path.
 */
export async function discoveryRoots(adapter: FormatAdapter, candidates: readonly string[]): Promise<string[]> {
  return (await discoveryRootsReal(adapter, candidates)).map(({ root }) => root);
}

export async function discoveryRootsReal(adapter: FormatAdapter, candidates: readonly string[]): Promise<{ readonly root: string; readonly real: string }[]> {
  const isRoot = adapter.discovery?.isRoot ?? isDirectory;
  const distinct = await distinctDirectories(candidates);
  const checks = await mapLimited(distinct, FS_CALLS_IN_FLIGHT, ({ path }) => isRoot(path));
  return distinct.filter((_, i) => checks[i]).map(({ path, real }) => ({ root: path, real }));
}

async function isDirectory(path: string): Promise<boolean> {
  try {
    return (await walkFs.stat(path)).isDirectory();
  } catch {
    return false;
  }
}

/**
 * The directories that exist, each once: a workspace reached through a symlink (or a recorded cwd spelled
 * another way) would otherwise have its sessions read twice. The first spelling met is kept.
 */
async function distinctDirectories(paths: Iterable<string>): Promise<{ readonly path: string; readonly real: string }[]> {
  const list = [...paths];
  const real = await mapLimited(list, FS_CALLS_IN_FLIGHT, (path) => walkFs.realpath(path).catch(() => null));
  const seen = new Set<string>();
  const out: { path: string; real: string }[] = [];
  list.forEach((path, i) => {
    const key = real[i];
    if (key === null || key === undefined || seen.has(key)) return;
    seen.add(key);
    out.push({ path, real: key });
  });
  return out;
}

