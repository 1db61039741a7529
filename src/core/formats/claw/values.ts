/** Small readers of claw's values: paths, times, strings, numbers. */
import { walkFs } from '../../io/walk-fs.js';
import { basename } from 'node:path';
import { isRecord, type JsonObject } from '../../json.js';
import { livePath } from '../group-files.js';
export { livePath };

// ---------------------------------------------------------------------------------------------------------
// Small helpers


export function fileStem(path: string): string {
  return basename(path).replace(/\.jsonl?$/, '');
}

export function msFromSessionName(name: string): number | null {
  const match = SESSION_MS.exec(name);
  return match ? Number(match[1]) : null;
}

export function isoOf(ms: number): string {
  const date = new Date(ms);
  return Number.isNaN(date.getTime()) ? new Date(0).toISOString() : date.toISOString();
}

export function objectOf(value: unknown): JsonObject | null {
  return isRecord(value) ? value : null;
}

export function stringOf(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}

export function msOf(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : null;
}

export function numberOf(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : 0;
}

export function textOf(value: unknown): string {
  return typeof value === 'string' ? value : value === undefined ? '' : JSON.stringify(value);
}

export function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  const object = objectOf(value);
  if (!object) return value;
  return Object.fromEntries(
    Object.keys(object)
      .sort()
      .map((key) => [key, sortKeys(object[key])]),
  );
}

export function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export async function isDirectory(path: string): Promise<boolean> {
  try {
    return (await walkFs.stat(path)).isDirectory();
  } catch {
    return false;
  }
}

/** claw ids and file names: `session-<ms>-<counter>` (older builds: `session-<ms>`). */
export const SESSION_MS = /^session-(\d{10,16})(?:-\d+)?$/;
