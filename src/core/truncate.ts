import { NEW_HISTORY, type ForkParent, type InitialHistory } from './history.js';

/** Anything with a user-turn flag can be truncated: normalized messages, or an adapter's raw records. */
export interface TurnMarked {
  readonly userTurn: boolean;
}

/**
 * Keep everything before user turn `k` (0-based); the one truncation every fork uses.
 * Mirrors Codex's `truncate_after_dropping_last_messages`: when no user turn would remain the result is
 * New, not a Forked history of injected context alone. A `k` past the last turn keeps everything.
 */
export function truncateBeforeUserTurn<M extends TurnMarked>(
  messages: readonly M[],
  k: number,
  parent: ForkParent | null = null,
): InitialHistory<M> {
  if (!Number.isInteger(k) || k < 0) throw new RangeError(`user turn index must be a non-negative integer, got ${k}`);
  const cut = indexOfUserTurn(messages, k);
  if (k === 0 || cut === 0) return NEW_HISTORY;
  if (cut === -1) return { kind: 'forked', history: messages.slice(), parent };
  return { kind: 'forked', history: messages.slice(0, cut), parent };
}

/** Drop the last `n` user turns and everything after them (the seed's form): n = 0 keeps all. */
export function dropLastUserTurns<M extends TurnMarked>(
  messages: readonly M[],
  n: number,
  parent: ForkParent | null = null,
): InitialHistory<M> {
  if (!Number.isInteger(n) || n < 0) throw new RangeError(`number of turns to drop must be a non-negative integer, got ${n}`);
  if (n === 0) return { kind: 'forked', history: messages.slice(), parent };
  const turns = messages.reduce((count, m) => count + (m.userTurn ? 1 : 0), 0);
  if (n >= turns) return NEW_HISTORY;
  return truncateBeforeUserTurn(messages, turns - n, parent);
}

/** Index of the k-th (0-based) user turn, or -1 when there are not that many. */
export function indexOfUserTurn(messages: readonly TurnMarked[], k: number): number {
  let seen = 0;
  for (let i = 0; i < messages.length; i++) {
    if (!messages[i]!.userTurn) continue;
    if (seen === k) return i;
    seen++;
  }
  return -1;
}

/**
 * Where a fork before user turn `atTurn` (1-based) cuts `items`: the index of that turn, or the end when there are
 * not that many turns (a fork after the last turn keeps the whole conversation).
 */
export function cutBeforeTurn<T>(items: readonly T[], isUserTurn: (item: T) => boolean, atTurn: number): number {
  let seen = 0;
  const cut = items.findIndex((item) => isUserTurn(item) && ++seen === atTurn);
  return cut === -1 ? items.length : cut;
}
