import { dirname, join, resolve } from 'node:path';
import type { RootEnvironment } from './types.js';

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
