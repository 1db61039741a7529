import { isoTimestamp } from '../../time.js';

// Small helpers

export function stringField(object: Record<string, unknown>, key: string): string | null {
  const value = object[key];
  return typeof value === 'string' && value !== '' ? value : null;
}

export function numberField(object: Record<string, unknown>, key: string): number {
  const value = object[key];
  return typeof value === 'number' && Number.isFinite(value) ? value : 0;
}

export function nonNegativeInteger(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : undefined;
}

export function timeOf(value: unknown): number | undefined {
  if (typeof value !== 'string' && typeof value !== 'number') return undefined;
  const time = new Date(value).getTime();
  return Number.isNaN(time) ? undefined : time;
}

export function isoOrUndefined(value: unknown): string | undefined {
  return isoTimestamp(value) ?? undefined;
}
