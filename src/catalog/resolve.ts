import { existsSync, realpathSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import type { CatalogSession } from './scan.js';
import { oneLine, safeLine } from '../core/text.js';

export type Resolution =
  | { readonly kind: 'found'; readonly session: CatalogSession }
  | { readonly kind: 'none'; readonly message: string }
  | { readonly kind: 'ambiguous'; readonly message: string; readonly candidates: readonly CatalogSession[] };

/**
 * Find one session by full id, unique id prefix (like git), a Codex thread name, or a path to one of its files.
 */
export function resolveSession(sessions: readonly CatalogSession[], query: string, cwd: string): Resolution {
  const exact = sessions.filter((s) => s.id === query);
  if (exact.length === 1) return { kind: 'found', session: exact[0]! };
  if (exact.length > 1) return ambiguous(query, exact);

  const byPath = sessionsHoldingPath(sessions, query, cwd);
  if (byPath.length === 1) return { kind: 'found', session: byPath[0]! };

  const lower = query.toLowerCase();
  const byPrefix = query.length > 0 ? sessions.filter((s) => s.id.toLowerCase().startsWith(lower)) : [];
  if (byPrefix.length === 1) return { kind: 'found', session: byPrefix[0]! };
  if (byPrefix.length > 1) return ambiguous(query, byPrefix);

  const byName = sessions.filter((s) => s.name !== null && s.name === query);
  if (byName.length === 1) return { kind: 'found', session: byName[0]! };
  if (byName.length > 1) return ambiguous(query, byName);

  return { kind: 'none', message: `no session matches "${safeLine(query)}"` };
}

/** The sessions one of whose files is the file at `query` (from `cwd`), the same file by its real path; none when no such file exists. */
export function sessionsHoldingPath(sessions: readonly CatalogSession[], query: string, cwd: string): CatalogSession[] {
  const file = resolve(cwd, query);
  if (!existsSync(file)) return [];
  const path = canonical(file);
  const name = basename(path);
  return sessions.filter((s) => s.paths.some((p) => basename(p) === name && canonical(p) === path));
}

function ambiguous(query: string, candidates: readonly CatalogSession[]): Resolution {
  const lines = candidates.map((s) => `  ${safeLine(s.id)}  ${s.agent}  ${oneLine(s.title)}`);
  return {
    kind: 'ambiguous',
    message: `"${safeLine(query)}" matches ${candidates.length} sessions; give more of the id:\n${lines.join('\n')}`,
    candidates,
  };
}

function canonical(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}
