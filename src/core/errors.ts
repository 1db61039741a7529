/** `--at` outside the turns a fork can keep: nothing is written. */
export class ForkRangeError extends Error {
  constructor(
    readonly atTurn: number,
    readonly min: number,
    readonly max: number,
  ) {
    super(
      max < min
        ? `cannot fork before turn ${atTurn}: the session has fewer than 2 user turns, so no fork would keep anything`
        : `--at ${atTurn} is out of range: valid turns are ${min}..${max} (the fork keeps the turns before it)`,
    );
    this.name = 'ForkRangeError';
  }
}

/** Throw ForkRangeError unless 2 <= atTurn <= userTurns (turn 1 would keep nothing). */
export function checkForkTurn(atTurn: number, userTurns: number): void {
  if (!Number.isInteger(atTurn) || atTurn < 2 || atTurn > userTurns) throw new ForkRangeError(atTurn, 2, userTurns);
}
