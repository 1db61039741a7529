// What the native engine's batches and held sessions tell of a session (see call_js and held in native/search.c): the
// fields of its table row, its lineage and its stamps. The sessions it held (searched, matched nothing, their heads'
// lineage sniffed) are kept as it packed them: a rare word's 254 rows at 10k took every one of 4.5k held Claude files
// into JS (an item, a lineage string and a closure each) to link them to their families; now only a family's own are.
import { ADAPTERS } from '../core/formats/index.js';
import type { Agent } from '../core/model.js';
import type { GrepStamp } from './grep-worker.js';
import type { SniffedLineage, SniffedStamps } from './grep-pool-events.js';

export const [T_INDEX, T_STATE, T_STAMPS, T_LINEAGE, T_CWDS, T_NCWDS, T_PROBLEMS, T_NPROBLEMS, T_TOKEN, T_OPENINGS, T_NOPENINGS, FIELDS] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11] as const;

/** A table's lineage field at or below this is a span of the root uuid's bytes, read by the engine (ROOT_SPAN - field). */
const ROOT_SPAN = -3;

/** A batch's or a held call's packed arrays (NativeBatch's first four). */
export interface NativeTable {
  readonly table: Float64Array;
  readonly stamps: Float64Array;
  readonly spans: Float64Array;
  readonly bytes: Buffer;
}

/** A session as a table row names it: its agent and how many files it has. */
export interface TableSession {
  readonly agent: Agent;
  readonly count: number;
}

/** Span `at` of a table's bytes (a cut, no copy). */
function spanOf(packed: NativeTable, at: number): Buffer {
  return packed.bytes.subarray(packed.spans[2 * at]!, packed.spans[2 * at + 1]!);
}

/**
 * What a table row tells of a session whose lineage was sniffed: its lineage and stamps, each read only if its row is
 * wanted (a cut of the table's bytes, no copy; 4 numbers a file in the table meanwhile).
 */
export function sniffedAt(packed: NativeTable, row: number, { agent, count }: TableSession, matchStamps: GrepStamp[] | null): [SniffedLineage, SniffedStamps] {
  const inHead = ADAPTERS[agent].lineageInHead;
  const cut = packed.table[row + T_LINEAGE]!;
  const lineage = cut <= ROOT_SPAN ? spanOf(packed, ROOT_SPAN - cut).toString('utf8') : cut >= 0 && inHead ? () => inHead(spanOf(packed, cut)) ?? null : null;
  const stampsAt = packed.table[row + T_STAMPS]!;
  return [lineage, matchStamps ?? (() => stampsOf(packed.stamps, stampsAt, count))];
}

/** The stamps of `count` files from `from` in a table's stamps (4 numbers a file); null when none were taken. */
export function stampsOf(stamps: Float64Array, from: number, count: number): GrepStamp[] | null {
  if (from < 0) return null;
  const out: GrepStamp[] = [];
  for (let at = from; at < from + count * 4; at += 4) {
    const [size, mtimeMs, length, hash] = [stamps[at]!, stamps[at + 1]!, stamps[at + 2]!, stamps[at + 3]!];
    // fingerprintOf's spelling (src/core/io/lines.ts).
    out.push([size, mtimeMs, `${length.toString(16)}:${hash.toString(16).padStart(8, '0')}`]);
  }
  return out;
}

/** FNV-1a of bytes [start, end) (a root uuid's: a few dozen bytes); -1 when one of them is past ASCII. */
function asciiHashOf(bytes: Uint8Array, start: number, end: number): number {
  let hash = 0x811c9dc5;
  let all = 0;
  for (let at = start; at < end; at++) {
    all |= bytes[at]!;
    hash = Math.imul(hash ^ bytes[at]!, 0x01000193);
  }
  return all < 0x80 ? hash >>> 0 : -1;
}

/**
 * The sessions the engine held, as it packed them (`add`): those whose root uuid it read are only indexed by it (their
 * lineage and stamps read when a family or a row asks); the others' lineages (a cut of the head for JS to read, or
 * none shown) are given back as a batch gives them, to be read as before.
 */
export class HeldSessions {
  private readonly tables: NativeTable[] = [];
  /** Each held session's place by its index: table + 1 (0: not held here), and its row in that table. */
  private tableOf: Int32Array = new Int32Array(0);
  private rowOf: Int32Array = new Int32Array(0);
  private countOf: Int32Array = new Int32Array(0);
  /** The sessions whose root uuid the engine read, by a hash of its bytes. */
  private readonly byRoot = new Map<number, number | number[]>();

  /**
   * A held call's table: `sessionOf` names each row's session (undefined: not one the search waits for, skipped). The
   * sessions whose lineage JS reads, or whose uuid is past ASCII, are returned with their stamps (read when asked).
   */
  add(packed: NativeTable, sessionOf: (index: number) => TableSession | undefined): [number, SniffedLineage, SniffedStamps][] {
    const { table } = packed;
    const at = this.tables.push(packed);
    const unread: [number, SniffedLineage, SniffedStamps][] = [];
    for (let row = 0; row < table.length; row += FIELDS) {
      const index = table[row + T_INDEX]!;
      const session = sessionOf(index);
      if (session === undefined) continue;
      const cut = table[row + T_LINEAGE]!;
      const span = ROOT_SPAN - cut;
      // A uuid past ASCII is compared as the string it decodes to (its bytes might not be that string's): as a batch's.
      const hash = cut > ROOT_SPAN ? -1 : asciiHashOf(packed.bytes, packed.spans[2 * span]!, packed.spans[2 * span + 1]!);
      if (hash === -1) {
        unread.push([index, ...sniffedAt(packed, row, session, null)]);
        continue;
      }
      this.place(index, at, row, session.count);
      const same = this.byRoot.get(hash);
      if (same === undefined) this.byRoot.set(hash, index);
      else if (typeof same === 'number') this.byRoot.set(hash, [same, index]);
      else same.push(index);
    }
    return unread;
  }

  /** The indexed sessions whose root uuid is `lineage`, in the order they were held. */
  withLineage(lineage: string): readonly number[] {
    const wanted = Buffer.from(lineage);
    const same = this.byRoot.get(asciiHashOf(wanted, 0, wanted.length));
    if (same === undefined) return [];
    return (typeof same === 'number' ? [same] : same).filter((index) => {
      const packed = this.tables[this.tableOf[index]! - 1]!;
      return spanOf(packed, ROOT_SPAN - packed.table[this.rowOf[index]! + T_LINEAGE]!).equals(wanted);
    });
  }

  /** The root uuid the engine read of a session it held and indexed (undefined: not one of them). */
  rootAt(index: number): string | undefined {
    const table = index < this.tableOf.length ? this.tableOf[index]! : 0;
    if (table === 0) return undefined;
    const packed = this.tables[table - 1]!;
    return spanOf(packed, ROOT_SPAN - packed.table[this.rowOf[index]! + T_LINEAGE]!).toString('latin1');
  }

  /** The stamps the engine took of a session it held and indexed (undefined: not one of them; null: none taken). */
  stampsAt(index: number): readonly GrepStamp[] | null | undefined {
    const table = index < this.tableOf.length ? this.tableOf[index]! : 0;
    if (table === 0) return undefined;
    const packed = this.tables[table - 1]!;
    return stampsOf(packed.stamps, packed.table[this.rowOf[index]! + T_STAMPS]!, this.countOf[index]!);
  }

  private place(index: number, table: number, row: number, count: number): void {
    if (index >= this.tableOf.length) {
      const size = Math.max(index + 1, this.tableOf.length * 2, 1024);
      const grown = (from: Int32Array): Int32Array => {
        const to = new Int32Array(size);
        to.set(from);
        return to;
      };
      [this.tableOf, this.rowOf, this.countOf] = [grown(this.tableOf), grown(this.rowOf), grown(this.countOf)];
    }
    this.tableOf[index] = table;
    this.rowOf[index] = row;
    this.countOf[index] = count;
  }
}
