// A line of hundreds of MB (one tool output, one event, a whole Gemini chat document) is clipped as it is read, a chunk
// at a time: only the kept bytes are held, never the line. The same marks as clip.ts (`\u0000<bytes left out>\u0000` at
// the end of a cut string), so the readers parse and unmark the line as they do a clipped one.
import { AsyncLocalStorage } from 'node:async_hooks';
import { openRegular } from './regular.js';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const LOWER_U = 0x75;
/** The bytes before a cut looked at to keep it off an escape or a character (`\uD83D\uDE00` is 12). */
const LOOK_BACK = 12;

/** Lines longer than `from` bytes are clipped while read: each JSON string value kept to `keep` bytes (about). */
export interface GiantLines {
  readonly from: number;
  readonly keep: number;
}

/** What `show`, the browser and the MCP server read with: a line over 16 MiB keeps 1 MiB of each string. */
export const GIANT_LINES: GiantLines = { from: 16 << 20, keep: 1 << 20 };

const giantLines = new AsyncLocalStorage<GiantLines>();

/** Run `read` with every line read in it (readLineBatches, whole chat documents) clipped when giant. */
export function readingGiantLinesClipped<T>(read: () => T, lines: GiantLines = GIANT_LINES): T {
  return giantLines.run(lines, read);
}

/** The giant-line clip of the read running now, if any (forks and hand-offs read outside it: byte for byte). */
export function giantLineClip(): GiantLines | undefined {
  return giantLines.getStore();
}

/**
 * A JSON text fed in chunks, each string value longer than `keep` bytes cut (on a character and escape boundary)
 * and ended with a mark of the bytes left out. Holds only what it keeps.
 */
export class StreamingClipper {
  private readonly out: Buffer[] = [];
  private inString = false;
  private dropping = false;
  /** The next byte is escaped (the chunk before ended inside a backslash run of odd length). */
  private escaped = false;
  /** Bytes of the current string's content seen (kept) so far. */
  private kept = 0;
  private dropped = 0;
  /** The last bytes handed on, for a cut near a chunk's start. */
  private tail: Buffer = Buffer.alloc(0);
  private size = 0;

  constructor(private readonly keep: number) {}

  /** The bytes held so far (what the line will be, give or take the strings still open). */
  get heldBytes(): number {
    return this.size;
  }

  push(chunk: Buffer): void {
    let i = 0;
    let run = 0;
    const n = chunk.length;
    while (i < n) {
      if (!this.inString) {
        const open = chunk.indexOf(QUOTE, i);
        if (open === -1) break;
        this.inString = true;
        this.kept = 0;
        this.escaped = false;
        i = open + 1;
        continue;
      }
      if (this.escaped) {
        // The escaped byte belongs to the string whatever it is.
        this.escaped = false;
        if (this.dropping) this.dropped++;
        else this.kept++;
        i++;
        continue;
      }
      const close = chunk.indexOf(QUOTE, i);
      const end = close === -1 ? n : close;
      if (!this.dropping) {
        const room = this.keep - this.kept;
        if (end - i <= room) {
          // The string's bytes up to `end` are all kept.
          i = this.keepTo(chunk, i, close);
          continue;
        }
        // The cut: `room` bytes on, or a little further, where it splits no character and no escape.
        let cut = i + Math.max(0, room);
        while (cut < end && !this.safeAt(chunk, run, cut)) cut++;
        if (cut === end) {
          // No place to cut before the string (or the chunk) ends: all of it kept, the cut tried again after it.
          i = this.keepTo(chunk, i, close);
          continue;
        }
        this.emit(chunk.subarray(run, cut));
        run = cut;
        this.kept += cut - i;
        this.dropping = true;
        this.dropped = 0;
        i = cut;
        continue;
      }
      // Dropping: up to the closing quote (an escaped quote is content).
      if (close === -1) {
        this.escaped = oddBackslashRun(chunk, n, i);
        this.dropped += n - i;
        i = n;
        run = n;
        continue;
      }
      if (oddBackslashRun(chunk, close, i)) {
        this.dropped += close + 1 - i;
        i = close + 1;
        run = i;
        continue;
      }
      this.dropped += close - i;
      this.emit(Buffer.from(`\\u0000${this.dropped}\\u0000`, 'latin1'));
      this.dropping = false;
      this.inString = false;
      run = close;
      i = close + 1;
    }
    // What is left of the chunk after its last cut is kept, unless it is the rest of a string being dropped.
    if (!this.dropping) this.emit(chunk.subarray(run, n));
  }

  /** The clipped text: valid JSON when the input was (an unclosed string, a cut line, stays as cut). */
  end(): Buffer {
    return Buffer.concat(this.out);
  }

  /**
   * Keep the string's bytes from `i` to the quote at `close` (-1: to the chunk's end); an escaped quote is content,
   * an unescaped one ends the string. Where to go on from.
   */
  private keepTo(chunk: Buffer, i: number, close: number): number {
    const end = close === -1 ? chunk.length : close;
    this.kept += end - i;
    if (close === -1) {
      this.escaped = oddBackslashRun(chunk, end, i);
      return end;
    }
    if (oddBackslashRun(chunk, close, i)) this.kept++;
    else this.inString = false;
    return close + 1;
  }

  /** Whether a string may be cut before `chunk[at]`: not inside a UTF-8 character, an escape or a surrogate pair. */
  private safeAt(chunk: Buffer, run: number, at: number): boolean {
    if ((chunk[at]! & 0xc0) === 0x80) return false;
    const near = chunk.subarray(Math.max(run, at - LOOK_BACK), at);
    // Fewer bytes of this run than the look-back: those before it were handed on (the tail of what was kept).
    const view = near.length >= LOOK_BACK ? near : Buffer.concat([this.tail, near]).subarray(-LOOK_BACK);
    const last = view.length;
    if (oddBackslashRun(view, last, 0)) return false;
    for (let back = 1; back <= 4 && back < last; back++) {
      const u = last - back;
      if (view[u] === LOWER_U && oddBackslashRun(view, u, 0)) return false;
    }
    if (last >= 6 && view[last - 6] === BACKSLASH && view[last - 5] === LOWER_U && !oddBackslashRun(view, last - 6, 0)) {
      const code = Number.parseInt(view.toString('latin1', last - 4, last), 16);
      if (code >= 0xd800 && code <= 0xdbff) return false;
    }
    return true;
  }

  private emit(bytes: Buffer): void {
    if (bytes.length === 0) return;
    // A copy: a view would keep the whole chunk it was read in.
    const copy = Buffer.from(bytes);
    this.out.push(copy);
    this.size += copy.length;
    this.tail = Buffer.concat([this.tail, copy.subarray(-LOOK_BACK)]).subarray(-LOOK_BACK);
  }
}

/** Whether the backslashes just before `at` (not before `from`) are an odd run: the byte at `at` is escaped. */
function oddBackslashRun(bytes: Buffer, at: number, from: number): boolean {
  let count = 0;
  for (let k = at - 1; k >= from && bytes[k] === BACKSLASH; k--) count++;
  return count % 2 === 1;
}

const DOCUMENT_CHUNK = 1 << 20;

/**
 * A file that is one JSON document (a Gemini CLI `session-*.json` chat): read whole, or in a display read, when it is
 * bigger than a giant line, clipped a chunk at a time as a giant line is.
 */
export async function readJsonDocument(path: string): Promise<Buffer> {
  const giant = giantLineClip();
  const handle = await openRegular(path);
  try {
    const { size } = await handle.stat();
    if (giant === undefined || size <= giant.from) return await handle.readFile();
    const clipper = new StreamingClipper(giant.keep);
    const chunk = Buffer.allocUnsafe(DOCUMENT_CHUNK);
    for (let position = 0; ; ) {
      const { bytesRead } = await handle.read(chunk, 0, chunk.length, position);
      if (bytesRead === 0) break;
      clipper.push(chunk.subarray(0, bytesRead));
      position += bytesRead;
    }
    return clipper.end();
  } finally {
    await handle.close().catch(() => undefined);
  }
}
