/**
 * The read side of an array (length, at, slice, map, findIndex, iteration), whose items are made when read: a query
 * matching 80k sessions hands the list 80k matches per keystroke, of which a screenful is ever shown. An array is a
 * ReadonlyList too.
 */
export interface ReadonlyList<T> extends Iterable<T> {
  readonly length: number;
  at(index: number): T | undefined;
  slice(start?: number, end?: number): T[];
  map<U>(fn: (item: T, index: number) => U): U[];
  findIndex(fn: (item: T, index: number) => boolean): number;
}

export class ListView<T> implements ReadonlyList<T> {
  constructor(
    readonly length: number,
    /** The item at 0 ≤ index < length. */
    private readonly item: (index: number) => T,
  ) {}

  at(index: number): T | undefined {
    const i = index < 0 ? index + this.length : index;
    return i >= 0 && i < this.length ? this.item(i) : undefined;
  }

  slice(start = 0, end = this.length): T[] {
    const from = clamp(start, this.length);
    const to = clamp(end, this.length);
    const out: T[] = [];
    for (let i = from; i < to; i++) out.push(this.item(i));
    return out;
  }

  map<U>(fn: (item: T, index: number) => U): U[] {
    const out: U[] = [];
    for (let i = 0; i < this.length; i++) out.push(fn(this.item(i), i));
    return out;
  }

  findIndex(fn: (item: T, index: number) => boolean): number {
    for (let i = 0; i < this.length; i++) if (fn(this.item(i), i)) return i;
    return -1;
  }

  *[Symbol.iterator](): Iterator<T> {
    for (let i = 0; i < this.length; i++) yield this.item(i);
  }
}

/** Array.prototype.slice's reading of a start or end. */
function clamp(at: number, length: number): number {
  const i = Math.trunc(at);
  return i < 0 ? Math.max(0, length + i) : Math.min(i, length);
}
