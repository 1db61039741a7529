/** Already in the form toISOString writes (what Codex and Claude Code record): nothing to convert. */
const CANONICAL_ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

/** A recorded time (ISO string or epoch milliseconds) as `toISOString` writes it; null when it is not a date. */
export function isoTimestamp(value: unknown): string | null {
  if (typeof value === 'string' && CANONICAL_ISO.test(value)) return value;
  if (typeof value !== 'string' && typeof value !== 'number') return null;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? null : date.toISOString();
}
