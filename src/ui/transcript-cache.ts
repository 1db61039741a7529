import type { Session } from '../core/model.js';
import type { TranscriptItem } from './transcript-layout.js';

/**
 * Loaded transcripts, least recently used first out: a TUI left open for days must not keep every session it
 * ever showed. Bounded by count and by bytes (the sessions' text, a rough proxy for their memory). A transcript
 * bigger than the bound is not kept at all: the screen holds its laid-out items already, and a second copy of a
 * 50k-turn session's messages would double what the TUI holds (it is read again if opened again).
 */
export class TranscriptCache<T = Session> {
  private readonly entries = new Map<string, { readonly version: string; readonly session: T; readonly bytes: number }>();
  private readonly inFlight = new Map<string, Promise<T>>();
  private bytes = 0;

  constructor(
    readonly maxEntries = 12,
    readonly maxBytes = 48 * 1024 * 1024,
  ) {}

  get size(): number {
    return this.entries.size;
  }

  get totalBytes(): number {
    return this.bytes;
  }

  /** The cached transcript for `key` if it was read at this `version` (size and mtime of its files). */
  get(key: string, version: string): T | undefined {
    const entry = this.entries.get(key);
    if (!entry || entry.version !== version) return undefined;
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.session;
  }

  set(key: string, version: string, session: T, bytes: number): void {
    this.delete(key);
    if (bytes > this.maxBytes) return;
    this.entries.set(key, { version, session, bytes });
    this.bytes += bytes;
    for (const [oldest, entry] of this.entries) {
      if (this.entries.size <= this.maxEntries && this.bytes <= this.maxBytes) break;
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

  /** Read through the cache; concurrent requests for the same version share one read. `bytes` may be measured on the result. */
  async load(key: string, version: string, bytes: number | ((session: T) => number), read: () => Promise<T>): Promise<T> {
    const cached = this.get(key, version);
    if (cached) return cached;
    const flightKey = `${key}\0${version}`;
    const running = this.inFlight.get(flightKey);
    if (running) return running;
    const promise = read()
      .then((session) => {
        this.set(key, version, session, typeof bytes === 'number' ? bytes : bytes(session));
        return session;
      })
      .finally(() => this.inFlight.delete(flightKey));
    this.inFlight.set(flightKey, promise);
    return promise;
  }
}

/** Roughly what a transcript's screen items hold in memory: their texts (UTF-16) plus a little per item. */
export function transcriptItemsBytes(items: readonly TranscriptItem[]): number {
  let bytes = 0;
  for (const item of items) bytes += 100 + 2 * (item.kind === 'tool-call' ? item.name.length + item.args.length : item.text.length);
  return bytes;
}

/** Roughly what a transcript holds in memory: its texts (UTF-16) plus a little per message and block. */
export function transcriptBytes(session: Session): number {
  let bytes = 0;
  for (const message of session.messages) {
    bytes += 200;
    for (const block of message.blocks) {
      bytes += 100;
      switch (block.type) {
        case 'text':
          bytes += 2 * block.text.length;
          break;
        case 'tool_use':
          bytes += 2 * (block.name.length + block.input.length);
          break;
        case 'tool_result':
          bytes += 2 * block.output.length;
          break;
        case 'reasoning':
        case 'compaction':
          bytes += 2 * block.summary.length;
          break;
        case 'image':
          bytes += (block.data?.length ?? 0) + 2 * (block.url?.length ?? 0);
          break;
      }
    }
  }
  return bytes;
}
