import { ADAPTERS } from '../formats/index.js';
import type { Agent } from '../model.js';
import { HANDOFF_NOTE_OPENING } from './note-opening.js';
import type { HandoffSource } from './types.js';

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
