import type { HandoffSource } from './note.js';

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
}

export interface HandoffWritten {
  readonly id: string;
  readonly path: string;
}
