import type { Agent } from '../model.js';

/** Where a handed-off session came from. */
export interface HandoffSource {
  readonly agent: Agent;
  readonly id: string;
  /** The source's user turn the hand-off was cut before (1-based). */
  readonly atTurn: number;
}

/** What every target writer is told besides the conversation. */
export interface HandoffWrite {
  readonly source: HandoffSource;
  /** The session's working directory: the target's home for it is chosen by it, and the agent resumes in it. */
  readonly cwd: string;
  readonly gitBranch: string | null;
  readonly model: string | null;
  readonly note: string;
  readonly now: Date;
  readonly branchName?: string;
  /** The new session's id, made beforehand by the writer's `newId` (`fork --with-code --to`: the worktree is named after it first). */
  readonly id?: string;
}

export interface HandoffWritten {
  readonly id: string;
  readonly path: string;
}

/** Records as the bytes of a JSONL file, one buffer per line (a long session never becomes one giant string). */
export function jsonLines(records: readonly unknown[]): Buffer[] {
  return records.map((record) => Buffer.from(`${JSON.stringify(record)}\n`, 'utf8'));
}

/** A hand-off that cannot be written (no cwd, no home for the target): nothing was written. */
export class HandoffError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'HandoffError';
  }
}

/** The home a writer writes into: `home`, else a HandoffError saying `agent` has none (nothing was written). */
export function requireHome(home: string | undefined, agent: Agent): string {
  if (home === undefined) throw new HandoffError(`no ${agent} home to write the new session in`);
  return home;
}
