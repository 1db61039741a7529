import type { SessionSummary } from '../core/model.js';

/**
 * A listed conversation: the summary plus what is needed to find its files again. Its own module: the scan makes
 * rows and the cache keeps them, and neither imports the other for it.
 */
export interface CatalogSession extends SessionSummary {
  /** The location root it was found under (a CODEX_HOME, a Claude config dir, a claw workspace). */
  readonly root: string;
}
