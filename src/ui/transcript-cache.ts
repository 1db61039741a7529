import type { Session } from '../core/model.js';

/**
 * Loaded transcripts, least recently used first out: a TUI left open for days must not keep every session it
 * ever showed. Bounded by count and by the sessions' file sizes (a rough proxy for their memory).
 */
export class TranscriptCache {
  private readonly entries = new Map<string, { readonly version: string; readonly session: Session; readonly bytes: number }>();
  private readonly inFlight = new Map<string, Promise<Session>>();
  private bytes = 0;

  constructor(
    readonly maxEntries = 12,
    readonly maxBytes = 256 * 1024 * 1024,
  ) {}

  get size(): number {
    return this.entries.size;
  }

  get totalBytes(): number {
    return this.bytes;
  }

  /** The cached transcript for `key` if it was read at this `version` (size and mtime of its files). */
  get(key: string, version: string): Session | undefined {
    const entry = this.entries.get(key);
    if (!entry || entry.version !== version) return undefined;
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.session;
  }

  set(key: string, version: string, session: Session, bytes: number): void {
    this.delete(key);
    this.entries.set(key, { version, session, bytes });
    this.bytes += bytes;
    for (const [oldest, entry] of this.entries) {
      if (this.entries.size <= 1 || (this.entries.size <= this.maxEntries && this.bytes <= this.maxBytes)) break;
      this.entries.delete(oldest);
      this.bytes -= entry.bytes;
    }
  }

  delete(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    this.bytes -= entry.bytes;
  }

  /** Read through the cache; concurrent requests for the same version share one read. */
  async load(key: string, version: string, bytes: number, read: () => Promise<Session>): Promise<Session> {
    const cached = this.get(key, version);
    if (cached) return cached;
    const flightKey = `${key}\0${version}`;
    const running = this.inFlight.get(flightKey);
    if (running) return running;
    const promise = read()
      .then((session) => {
        this.set(key, version, session, bytes);
        return session;
      })
      .finally(() => this.inFlight.delete(flightKey));
    this.inFlight.set(flightKey, promise);
    return promise;
  }
}
