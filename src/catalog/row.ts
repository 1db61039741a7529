import type { SessionSummary } from '../core/model.js';

/**
 * A listed conversation: the summary plus what is needed to find its files again. Its own module: the scan makes
 * rows and the cache keeps them, and neither imports the other for it.
 */
export interface CatalogSession extends SessionSummary {
  /** The location root it was found under (a CODEX_HOME, a Claude config dir, a claw workspace). */
  readonly root: string;
  /** The ssh destination the session lives on (absent: this machine). */
  readonly host?: string;
  /**
   * For a host read through a local mirror: the folder its files were copied into (a path on the host is
   * this prefix removed). Absent for this machine's sessions and for rows a host's own `sessions` sent.
   */
  readonly mirror?: string;
  /**
   * A mirrored host's row listed while the host cannot be read: when the mirror was last synced whole (ISO 8601;
   * empty when unknown). Absent on a row read now.
   */
  readonly stale?: string;
}
