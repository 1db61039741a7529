/** Compact age for a list row: `now`, `42s`, `5m`, `3h`, `2d`, `3w`, `5mo`, `2y`. */
export function relativeTime(iso: string, now: number): string {
  const then = Date.parse(iso);
  if (Number.isNaN(then)) return '?';
  const seconds = Math.max(0, Math.round((now - then) / 1000));
  if (seconds < 10) return 'now';
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m`;
  const hours = Math.floor(minutes / 60);
  if (hours < 24) return `${hours}h`;
  const days = Math.floor(hours / 24);
  if (days < 14) return `${days}d`;
  if (days < 60) return `${Math.floor(days / 7)}w`;
  if (days < 365) return `${Math.floor(days / 30)}mo`;
  return `${Math.floor(days / 365)}y`;
}

/** Sessions written to in the last minute carry a "live" marker. */
export const LIVE_WINDOW_MS = 60_000;

export function isLive(iso: string, now: number): boolean {
  const then = Date.parse(iso);
  return !Number.isNaN(then) && now - then < LIVE_WINDOW_MS && now - then > -LIVE_WINDOW_MS;
}

/** `2026-11-22 14:02` in local time. */
export function localTimestamp(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return '';
  const pad = (n: number): string => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

