import { ADAPTERS } from '../formats/index.js';
import type { Agent } from '../model.js';
import { HANDOFF_NOTE_OPENING } from './note-opening.js';

/** Where a handed-off session came from. */
export interface HandoffSource {
  readonly agent: Agent;
  readonly id: string;
  /** The source's user turn the hand-off was cut before (1-based). */
  readonly atTurn: number;
}

/**
 * The one-line note at the start of a handed-off session, for the model and the user: which agent and session the
 * conversation came from, and where it was cut.
 */
export function handoffNote(source: HandoffSource, target: Agent): string {
  const kept = source.atTurn - 1;
  const turns = kept === 1 ? 'user turn 1' : `user turns 1-${kept}`;
  return (
    `${HANDOFF_NOTE_OPENING}${ADAPTERS[target].label} from ${ADAPTERS[source.agent].label} session ${source.id}: ` +
    `${turns} and the answers to them, before its turn ${source.atTurn}; reasoning was not carried over.`
  );
}
