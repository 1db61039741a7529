// A walk memo's answers checked by the native engine (native/search.c's answersHold): thousands of stats from C, not
// through Node's fs.
import { nativeEngine } from '../core/native.js';
import type { WalkAnswer } from '../core/io/walk-fs.js';

/** The engine's answersHold calls (see NativeSearchAddon in native-grep.ts). */
interface AnswersAddon {
  answersHold(codes: Uint8Array, numbers: Float64Array, paths: Buffer, reals: Buffer): boolean;
  answersHoldLater?(codes: Uint8Array, numbers: Float64Array, paths: Buffer, reals: Buffer): Promise<boolean>;
}

const nativeSearchAddon = (): AnswersAddon | null => nativeEngine() as AnswersAddon | null;

/** answersHold's code of each answer (native/search.c). */
const ANSWER_CODE = { listed: 1, f: 2, d: 3, o: 4, '-': 5, real: 6, noReal: 7 } as const;

/**
 * Whether every answer a walk memo rests on still holds, checked by the native engine (`walkAnswerHolds` of each, with
 * the same system calls, at a fraction of the main thread's time: thousands of stats from C, not through Node's fs).
 * Null when the engine was not built, or an answer names a path C cannot take as it is (a NUL in it): check in JS.
 */
export function nativeAnswersHold(answers: readonly WalkAnswer[]): boolean | null {
  const native = nativeSearchAddon();
  if (native === null) return null;
  const args = answersArgs(answers);
  return args === null ? null : native.answersHold(...args);
}

/**
 * nativeAnswersHold on one of libuv's threads: the check runs while the main thread goes on (grep reads its walk memo's
 * groups meanwhile, with the engine's threads not started yet: the stats take a core that would be idle). Null as
 * nativeAnswersHold.
 */
export function nativeAnswersHoldLater(answers: readonly WalkAnswer[]): Promise<boolean> | null {
  const native = nativeSearchAddon();
  // An engine built before it had this call (a build folder copied from an older checkout): checked on this thread.
  if (native === null || typeof native.answersHoldLater !== 'function') return null;
  const args = answersArgs(answers);
  return args === null ? null : native.answersHoldLater(...args);
}

/** answersHold's arguments for `answers`, or null when one names a path with a NUL in it. */
function answersArgs(answers: readonly WalkAnswer[]): [Uint8Array, Float64Array, Buffer, Buffer] | null {
  const codes = new Uint8Array(answers.length);
  const numbers = new Float64Array(answers.length * 2);
  const paths: string[] = [];
  const reals: string[] = [];
  for (let at = 0; at < answers.length; at++) {
    const answer = answers[at]!;
    if (answer[1].includes('\0')) return null;
    paths.push(answer[1]);
    if (answer[0] === 'd') {
      codes[at] = ANSWER_CODE.listed;
      numbers[2 * at] = answer[2] ?? Number.NaN;
      numbers[2 * at + 1] = answer[3];
    } else if (answer[0] === 'k') {
      codes[at] = ANSWER_CODE[answer[2]];
    } else if (answer[2] === null) {
      codes[at] = ANSWER_CODE.noReal;
    } else {
      if (answer[2].includes('\0')) return null;
      codes[at] = ANSWER_CODE.real;
      reals.push(answer[2]);
    }
  }
  return [codes, numbers, Buffer.from(`${paths.join('\0')}\0`), Buffer.from(`${reals.join('\0')}\0`)];
}
