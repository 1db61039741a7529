import type { Dirent } from 'node:fs';
import { walkFs } from '../io/walk-fs.js';
import { dirname, join, resolve } from 'node:path';
import { describeError, errorCode } from '../errors.js';
import type { ReportProblem, RootEnvironment } from './types.js';

/** The roots of an agent that keeps its sessions in one home folder: DIR/<folder> under `--home DIR`, else $VARIABLE, else ~/<folder>. */
export function homeFolderRoots(folder: string, variable: string | null, environment: RootEnvironment): string[] {
  const { home, env, homeDir, abs } = environment;
  if (home !== undefined) return [join(home, folder)];
  const value = variable === null ? undefined : env[variable];
  return [value ? abs(value) : join(homeDir, folder)];
}

/** A directory and all its ancestors, nearest first. */
export function selfAndAncestors(dir: string): string[] {
  const out: string[] = [];
  for (let current = resolve(dir); ; current = dirname(current)) {
    out.push(current);
    if (dirname(current) === current) break;
  }
  return out;
}

/**
 * A folder's entries sorted by name (discovery is in the same order on every run and machine); a folder that is
 * missing or not a folder has none, any other failure is reported and has none.
 */
export async function listDir(dir: string, report: ReportProblem): Promise<Dirent[]> {
  try {
    return (await walkFs.readdir(dir)).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  } catch (error) {
    const code = errorCode(error);
    if (code !== 'ENOENT' && code !== 'ENOTDIR') report({ path: dir, message: describeError(error) });
    return [];
  }
}
