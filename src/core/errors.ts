import { isRecord } from './json.js';
/** `--at` outside the turns a fork can keep: nothing is written. */
export class ForkRangeError extends Error {
  constructor(
    readonly atTurn: number,
    readonly min: number,
    readonly max: number,
  ) {
    super(
      max < min
        ? `cannot fork before turn ${atTurn}: the session has no user turn, so no fork would keep anything`
        : `--at ${atTurn} is out of range: valid turns are ${min}..${max} (the fork keeps the turns before it; ${max} or end: every turn)`,
    );
    this.name = 'ForkRangeError';
  }
}

/**
 * Throw ForkRangeError unless 2 <= atTurn <= userTurns + 1: turn 1 would keep nothing, and userTurns + 1 (the turn
 * after the last) keeps every turn, the whole conversation.
 */
export function checkForkTurn(atTurn: number, userTurns: number): void {
  if (!Number.isInteger(atTurn) || atTurn < 2 || atTurn > userTurns + 1) throw new ForkRangeError(atTurn, 2, userTurns + 1);
}

/** A Node error's `code` (ENOENT, EACCES, …), if it has one. */
export function errorCode(error: unknown): string | undefined {
  return isRecord(error) && typeof error.code === 'string' ? error.code : undefined;
}

/** An error's message as is. */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** An error in the words a user should read: permission problems and missing files said plainly. */
export function describeError(error: unknown): string {
  const code = errorCode(error);
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied';
  if (code === 'ENOENT') return 'no such file or directory';
  if (code === 'EISDIR') return 'is a directory';
  return errorMessage(error);
}

/** A session this tool can read but cannot fork (a format no agent release resumes), or a branch it does not hold: nothing is written. */
export class UnsupportedForkError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UnsupportedForkError';
  }
}

/** `fork --with-code` of a turn whose files cannot be had as they were (nothing recorded, a snapshot gone): nothing is written. */
export class NoCodeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'NoCodeError';
  }
}

/**
 * Throw unless a fork with the code can be made before `atTurn`: a turn 2..userTurns, whose files were recorded when it
 * was typed (after the last turn there is no snapshot: the files are the ones on disk).
 */
export function checkCodeTurn(atTurn: number, userTurns: number): void {
  checkForkTurn(atTurn, userTurns);
  if (atTurn > userTurns) throw new NoCodeError(`--with-code forks before a turn, with the files as they were when it was typed: give --at 2..${userTurns} (after the last turn the files are the ones on disk now)`);
}
