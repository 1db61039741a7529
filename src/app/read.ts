// Reading a transcript where its session lives: this machine's files, a mirror of a host's, or the host's own
// `sessions show`.
import type { CatalogCache } from '../catalog/cache.js';
import { groupOf, savedFold, type CatalogSession } from '../catalog/scan.js';
import { ADAPTERS } from '../core/formats/index.js';
import type { DisplaySink, MessageStream, ReadSessionOptions } from '../core/formats/types.js';
import { unmarkMessages, type ClipLimits } from '../core/io/clip.js';
import { readingGiantLinesClipped } from '../core/io/clip-stream.js';
import type { Message, Session } from '../core/model.js';
import { onHost } from '../remote/mirror-layout.js';
import { HostActionError, readWithHostSessions, showWithHostSessions } from '../remote/host-sessions.js';
import type { Here, Place } from './place.js';

/**
 * The whole active transcript (`options.clip`: long strings cut, for a screen). A host's names its files where they
 * are, on the host.
 */
export async function readTranscript(session: CatalogSession, place: Place, here: Pick<Here, 'context'>, options: ReadSessionOptions = {}): Promise<Session> {
  const adapter = ADAPTERS[session.agent];
  switch (place.kind) {
    case 'local': {
      // A transcript in its own files is read at once: the TUI need not wait for its catalog scan.
      const context = await here.context({ alone: adapter.readsAlone === true });
      return unmarked(await readingGiantLinesClipped(() => adapter.readSession(groupOf(session), context, options)));
    }
    case 'mirror': {
      const context = place.mirror.context;
      if (context === null) throw new HostActionError(`${place.host}: the mirror is not indexed yet`);
      const read = unmarked(await readingGiantLinesClipped(() => adapter.readSession(groupOf(session), context, options)));
      return { ...read, ...onHost({ path: read.path, paths: read.paths, mirror: place.mirror.dir }) };
    }
    case 'host':
      return readWithHostSessions(place.host, place.settings, session.id);
  }
}

/** Whether `readForDisplay` can read this session (its agent reads a screen's transcript as a stream, here); else `readTranscript`. */
export function readsForDisplay(session: CatalogSession, place: Place): boolean {
  return place.kind === 'local' && ADAPTERS[session.agent].readDisplay !== undefined;
}

/**
 * The transcript clipped for a screen, each message handed to `sink` as it is read (a big transcript is never held
 * whole), for a session `readsForDisplay` accepts.
 */
export async function readForDisplay(session: CatalogSession, place: Place, here: Pick<Here, 'context'>, options: { readonly clip: ClipLimits; readonly sink: DisplaySink }): Promise<void> {
  const adapter = ADAPTERS[session.agent];
  if (!readsForDisplay(session, place) || adapter.readDisplay === undefined) throw new Error(`${session.path}: not read for display as a stream`);
  const context = await here.context({ alone: adapter.readsAlone === true });
  await readingGiantLinesClipped(() => adapter.readDisplay!(groupOf(session), context, options));
}

/**
 * Display reads clip giant lines (clip-stream.ts): a transcript read with `show`, by the browser or the MCP server has
 * no line of over 16 MiB held whole. Their marks are taken out here (readers take out only those of `options.clip`).
 */
function unmarked(session: Session): Session {
  return { ...session, messages: unmarkMessages(session.messages) };
}

/** A stream whose reads clip giant lines, its messages unmarked. */
async function* clippedBatches(batches: AsyncIterable<readonly Message[]>): AsyncGenerator<readonly Message[]> {
  const iterator = batches[Symbol.asyncIterator]();
  try {
    for (;;) {
      const next = await readingGiantLinesClipped(() => iterator.next());
      if (next.done === true) return;
      yield unmarkMessages(next.value);
    }
  } finally {
    await iterator.return?.();
  }
}

/** What `show` prints: a host's own output, messages streamed as they are read, or the transcript read whole. */
export type ShowSource =
  | { readonly kind: 'printed'; readonly text: string }
  | { readonly kind: 'stream'; readonly stream: MessageStream }
  | { readonly kind: 'session'; readonly session: Session };

/**
 * The transcript for `show` in `format`: a host with `sessions` prints it itself (its files are there); a session
 * of this machine whose agent streams its messages is read a batch at a time (from the index's saved fold of the
 * file: the scan that resolved it has just brought it up to date); anything else is read whole, with the row's
 * lineage.
 */
export async function showTranscript(
  session: CatalogSession,
  place: Place,
  here: Pick<Here, 'context'>,
  options: { readonly format: 'text' | 'md' | 'json' | 'html'; readonly system: boolean; readonly cache?: CatalogCache },
): Promise<ShowSource> {
  // A host's `sessions` prints text, Markdown or JSON: a page is made here from its JSON.
  if (place.kind === 'host') return { kind: 'printed', text: await showWithHostSessions(place.host, place.settings, session.id, options.format === 'html' ? 'json' : options.format, options.system) };
  const adapter = ADAPTERS[session.agent];
  if (place.kind === 'local' && options.format !== 'json' && adapter.streamMessages !== undefined) {
    const fold = options.cache === undefined ? undefined : await savedFold(options.cache, session.paths);
    const stream = adapter.streamMessages(groupOf(session), await here.context(), fold);
    if (stream !== null) return { kind: 'stream', stream: { ...stream, messages: clippedBatches(stream.messages) } };
  }
  const full = await readTranscript(session, place, here);
  return { kind: 'session', session: { ...full, forkedFrom: full.forkedFrom ?? session.forkedFrom, subagent: session.subagent ?? full.subagent, subagents: session.subagents } };
}
