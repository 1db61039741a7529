import type { FileHandle } from 'node:fs/promises';
import { openRegular } from './regular.js';
import { giantLineClip, StreamingClipper } from './clip-stream.js';

const NEWLINE = 0x0a;
const CR = 0x0d;
const WINDOW_BYTES = 1 << 20;

/**
 * Lines of a file read by their start offsets, through one window of the file: lines asked for in file order
 * (a transcript's chain, found by a first pass) are read sequentially, a MiB at a time, whatever their number.
 */
export class LineAtReader {
  private window = Buffer.allocUnsafeSlow(WINDOW_BYTES);
  private start = 0;
  private length = 0;
  /** The window ends at the end of the file. */
  private atEnd = false;

  private constructor(private readonly handle: FileHandle) {}

  static async open(path: string): Promise<LineAtReader> {
    return new LineAtReader(await openRegular(path));
  }

  /**
   * The line starting at `offset`, terminator (LF or CRLF) excluded; a last line without a newline runs to the end
   * of the file. Valid until the next call (it is a view of the window).
   */
  async lineAt(offset: number): Promise<Buffer> {
    if (offset < this.start || offset >= this.start + this.length) await this.fill(offset, WINDOW_BYTES);
    for (;;) {
      const from = offset - this.start;
      const nl = this.window.indexOf(NEWLINE, from);
      if (nl !== -1 && nl < this.length) return this.trimmed(from, nl);
      if (this.atEnd) return this.trimmed(from, this.length);
      // A giant line in a display read (clip-stream.ts): clipped as it is read, never held whole.
      const giant = giantLineClip();
      if (giant !== undefined && this.start + this.length - offset > giant.from) return this.clippedLineAt(offset, giant.keep);
      // The line runs past the window: read again from its start, with room for twice as much.
      const longer = Math.max(WINDOW_BYTES, 2 * (this.start + this.length - offset));
      await this.fill(offset, longer);
    }
  }

  private async clippedLineAt(offset: number, keep: number): Promise<Buffer> {
    const clipper = new StreamingClipper(keep);
    this.window = Buffer.allocUnsafeSlow(WINDOW_BYTES);
    for (let position = offset; ; ) {
      const { bytesRead } = await this.handle.read(this.window, 0, WINDOW_BYTES, position);
      const read = this.window.subarray(0, bytesRead);
      const nl = read.indexOf(NEWLINE);
      clipper.push(nl === -1 ? read : read.subarray(0, nl));
      if (nl !== -1 || bytesRead === 0) break;
      position += bytesRead;
    }
    // The window holds no line now: the next call reads it again.
    this.start = 0;
    this.length = 0;
    this.atEnd = false;
    const line = clipper.end();
    return line.length > 0 && line[line.length - 1] === CR ? line.subarray(0, line.length - 1) : line;
  }

  async close(): Promise<void> {
    await this.handle.close();
  }

  private trimmed(from: number, end: number): Buffer {
    return this.window.subarray(from, end > from && this.window[end - 1] === CR ? end - 1 : end);
  }

  private async fill(offset: number, size: number): Promise<void> {
    if (this.window.length < size) this.window = Buffer.allocUnsafeSlow(size);
    let filled = 0;
    while (filled < size) {
      const { bytesRead } = await this.handle.read(this.window, filled, size - filled, offset + filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    this.start = offset;
    this.length = filled;
    this.atEnd = filled < size;
  }
}
