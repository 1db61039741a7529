/**
 * The index's fold with its node table in typed arrays, keyed by the native engine (native/uuid-table.c): the same
 * row and saved fold as ClaudeScan(rowOnly) gives, without a JS string and a Map entry per uuid (a 200 MB session has
 * ~280k nodes: their Map, strings and objects were a third of its fold and most of its GC). Lines the engine
 * describes come with their uuid's, parent's and logical parent's keys; lines JS parses have their strings keyed.
 * Strings are made back only for the nodes a row or a saved fold names (the chain's tail, its root, a title's leaf).
 */
import { type JsonObject } from '../../json.js';
import { promptOpening } from '../../model.js';
import { nativeEngine } from '../../native.js';
import { commandAnsweredAt, type CommandWalkNode } from './rules.js';
import { type ClaudeNode, isClaudeCommandCaveat, isClaudeUserTurn, LEAF_TYPES, MESSAGE_TYPES, messageOf, rawUserText, slashCommandOf, stringOrNull } from './lines.js';
import { userTurnText } from './messages.js';
import { ClaudeScan } from './scan.js';

/** The engine's uuid table (native/uuid-table.c). */
export interface UuidTableEngine {
  uuidTable(): object;
  /** The key of an ASCII string (-1: absent, when not `insert`); without a text, a new key JS keeps the string of. */
  uuidKey(table: object, text?: string, insert?: boolean): number;
  uuidKeyText(table: object, key: number): string | undefined;
  uuidTableFree(table: object): void;
}

/** The engine when it keys uuids (a build from before has no uuidTable: the fold is ClaudeScan's). */
export function uuidTableEngine(): UuidTableEngine | null {
  const engine = nativeEngine() as Partial<UuidTableEngine> | null;
  return typeof engine?.uuidTable === 'function' && typeof engine.uuidKey === 'function' ? (engine as UuidTableEngine) : null;
}

/** A fresh scan for the index's fold: keyed when the engine can, else ClaudeScan's own. */
export function newIndexScan(): ClaudeScan {
  const engine = uuidTableEngine();
  return engine === null ? new ClaudeScan(true) : new KeyedClaudeScan(engine);
}

const SIDECHAIN = 1;
const USER_TURN = 2;
const META = 4;
const CAVEAT = 8;
/** Past ASCII (any UTF-16 unit, lone surrogates too): a string the engine does not key (it keys bytes, JS decoded strings). */
const PAST_ASCII = /[\u0080-\uffff]/;
/** Nodes a table has room for at first (most sessions are small: their tables are made by the thousand). */
const INITIAL_NODES = 64;

/** The nodes: one per line with a uuid, in file order (a repeated uuid is a new node; its key then names the latest). */
class NodeTable {
  count = 0;
  uuidKeys: Int32Array = new Int32Array(INITIAL_NODES);
  parentKeys: Int32Array = new Int32Array(INITIAL_NODES);
  logicalKeys: Int32Array = new Int32Array(INITIAL_NODES);
  offsets: Float64Array = new Float64Array(INITIAL_NODES);
  lengths: Float64Array = new Float64Array(INITIAL_NODES);
  bits: Uint8Array = new Uint8Array(INITIAL_NODES);
  readonly types: string[] = [];
  readonly commands = new Map<number, string>();
  readonly prompts = new Map<number, string>();
  /** By key: the latest node with that uuid, -1 none. */
  latest: Int32Array = new Int32Array(INITIAL_NODES).fill(-1);
  /** Keys with a node (ClaudeScan's nodes.size). */
  distinct = 0;

  constructor(
    readonly engine: UuidTableEngine,
    readonly table: object,
  ) {}

  /** JS's own strings (not ASCII: the engine keys bytes, JS decoded strings), by key and back. */
  private readonly ownKeys = new Map<string, number>();
  private readonly ownTexts = new Map<number, string>();

  keyOf(text: string | null, insert: boolean): number {
    if (text === null) return -1;
    if (!PAST_ASCII.test(text)) return this.engine.uuidKey(this.table, text, insert);
    let key = this.ownKeys.get(text);
    if (key === undefined && insert) {
      key = this.engine.uuidKey(this.table);
      this.ownKeys.set(text, key);
      this.ownTexts.set(key, text);
    }
    return key ?? -1;
  }

  textOf(key: number): string | null {
    return key < 0 ? null : (this.ownTexts.get(key) ?? this.engine.uuidKeyText(this.table, key) ?? null);
  }

  /** The latest node keyed `key`, -1 none. */
  nodeOf(key: number): number {
    return key >= 0 && key < this.latest.length ? this.latest[key]! : -1;
  }

  add(uuidKey: number, parentKey: number, logicalKey: number, type: string, offset: number, length: number, bits: number): number {
    if (this.count === this.bits.length) this.grow();
    const id = this.count++;
    this.uuidKeys[id] = uuidKey;
    this.parentKeys[id] = parentKey;
    this.logicalKeys[id] = logicalKey;
    this.offsets[id] = offset;
    this.lengths[id] = length;
    this.bits[id] = bits;
    this.types.push(type);
    if (uuidKey >= this.latest.length) {
      const latest = new Int32Array(Math.max(uuidKey + 1, this.latest.length * 2)).fill(-1);
      latest.set(this.latest);
      this.latest = latest;
    }
    if (this.latest[uuidKey]! < 0) this.distinct++;
    this.latest[uuidKey] = id;
    return id;
  }

  private grow(): void {
    const size = this.bits.length * 2;
    const ints = (from: Int32Array): Int32Array => {
      const to = new Int32Array(size);
      to.set(from);
      return to;
    };
    const doubles = (from: Float64Array): Float64Array => {
      const to = new Float64Array(size);
      to.set(from);
      return to;
    };
    this.uuidKeys = ints(this.uuidKeys);
    this.parentKeys = ints(this.parentKeys);
    this.logicalKeys = ints(this.logicalKeys);
    this.offsets = doubles(this.offsets);
    this.lengths = doubles(this.lengths);
    const bits = new Uint8Array(size);
    bits.set(this.bits);
    this.bits = bits;
  }
}

/** A node of the table as a ClaudeNode (the chain a row and a saved fold are made of), its strings made when read. */
class KeyedNode implements ClaudeNode {
  constructor(
    private readonly nodes: NodeTable,
    readonly id: number,
  ) {}

  get uuid(): string {
    return this.nodes.textOf(this.nodes.uuidKeys[this.id]!)!;
  }
  get parentUuid(): string | null {
    return this.nodes.textOf(this.nodes.parentKeys[this.id]!);
  }
  get logicalParentUuid(): string | null {
    return this.nodes.textOf(this.nodes.logicalKeys[this.id]!);
  }
  get type(): string {
    return this.nodes.types[this.id]!;
  }
  get sidechain(): boolean {
    return (this.nodes.bits[this.id]! & SIDECHAIN) !== 0;
  }
  get offset(): number {
    return this.nodes.offsets[this.id]!;
  }
  get length(): number {
    return this.nodes.lengths[this.id]!;
  }
  get value(): null {
    return null;
  }
  get userTurn(): boolean {
    return (this.nodes.bits[this.id]! & USER_TURN) !== 0;
  }
  get meta(): boolean {
    return (this.nodes.bits[this.id]! & META) !== 0;
  }
  get caveat(): boolean {
    return (this.nodes.bits[this.id]! & CAVEAT) !== 0;
  }
  get command(): string | null {
    return this.nodes.commands.get(this.id) ?? null;
  }
  get prompt(): string | undefined {
    return this.nodes.prompts.get(this.id);
  }
  get anchorTurns(): undefined {
    return undefined;
  }
}

/** ClaudeScan(rowOnly) with its nodes in a NodeTable: what it learns, and the chain it gives, are the same. */
export class KeyedClaudeScan extends ClaudeScan {
  private readonly table: NodeTable;
  /** The last leaf candidate (ClaudeScan's candidates.at(-1)), -1 none. */
  private leaf = -1;
  /** What commandAnsweredAt reads of a node, one object reused. */
  private readonly walked = { type: '', meta: false, command: null as string | null };

  constructor(engine: UuidTableEngine) {
    super(true);
    this.table = new NodeTable(engine, engine.uuidTable());
  }

  /** The engine's table, for lineFields to key described lines with. */
  get uuids(): object {
    return this.table.table;
  }

  /** A line JS parsed: its strings keyed. */
  override addValue(value: JsonObject, offset: number, length: number): void {
    const uuid = stringOrNull(value.uuid);
    const keys = this.table;
    if (uuid === null) this.addKeyed(value, offset, length, -1, -1, -1);
    else this.addKeyed(value, offset, length, keys.keyOf(uuid, true), keys.keyOf(stringOrNull(value.parentUuid), true), keys.keyOf(stringOrNull(value.logicalParentUuid), true));
  }

  /** A line with its uuid's, parent's and logical parent's keys (-1: null); ClaudeScan.addValue's rules. */
  addKeyed(value: JsonObject, offset: number, length: number, uuidKey: number, parentKey: number, logicalKey: number): void {
    const type = typeof value.type === 'string' ? value.type : '';
    const sidechain = value.isSidechain === true;
    this.addLine(value, type, sidechain);
    if (uuidKey < 0) return;
    if (!sidechain && MESSAGE_TYPES.has(type)) this.messageLines++;
    const nodes = this.table;
    const parent = nodes.nodeOf(parentKey);
    const userTurn = type === 'user' && isClaudeUserTurn(value, parent >= 0 && (nodes.bits[parent]! & CAVEAT) !== 0);
    const command = type === 'user' ? slashCommandOf(rawUserText(messageOf(value)?.content)) : null;
    const bits = (sidechain ? SIDECHAIN : 0) | (userTurn ? USER_TURN : 0) | (value.isMeta === true ? META : 0) | (isClaudeCommandCaveat(value) ? CAVEAT : 0);
    const id = nodes.add(uuidKey, parentKey, logicalKey, type, offset, length, bits);
    if (command !== null) nodes.commands.set(id, command);
    // A slash command becomes a turn when the model answers it (markAnswered): its prompt is kept too.
    if (userTurn || command !== null) nodes.prompts.set(id, promptOpening(userTurnText(value)));
    if (type === 'assistant' && !sidechain) this.markAnswered(id);
    if (!sidechain && LEAF_TYPES.has(type)) this.leaf = id;
  }

  /** The node of a line that is not a user line (never a turn, a command or a caveat), its scalars already read. */
  addNode(type: string, sidechain: boolean, meta: boolean, offset: number, length: number, uuidKey: number, parentKey: number, logicalKey: number): void {
    if (uuidKey < 0) return;
    if (!sidechain && MESSAGE_TYPES.has(type)) this.messageLines++;
    const id = this.table.add(uuidKey, parentKey, logicalKey, type, offset, length, (sidechain ? SIDECHAIN : 0) | (meta ? META : 0));
    if (type === 'assistant' && !sidechain) this.markAnswered(id);
    if (!sidechain && LEAF_TYPES.has(type)) this.leaf = id;
  }

  private markAnswered(answer: number): void {
    const nodes = this.table;
    const parentOf = (node: number): number | undefined => {
      const parent = nodes.nodeOf(nodes.parentKeys[node]!);
      return parent < 0 ? undefined : parent;
    };
    const walked = this.walked;
    const fields = (node: number): CommandWalkNode => {
      walked.type = nodes.types[node]!;
      walked.meta = (nodes.bits[node]! & META) !== 0;
      walked.command = nodes.commands.get(node) ?? null;
      return walked;
    };
    const command = commandAnsweredAt(answer, parentOf, fields);
    if (command !== null) nodes.bits[command]! |= USER_TURN;
  }

  override hasNode(uuid: string): boolean {
    return this.table.nodeOf(this.table.keyOf(uuid, false)) >= 0;
  }

  override activeChain(): ClaudeNode[] {
    return this.leaf < 0 ? [] : this.chainOf(this.leaf).chain;
  }

  override chainFrom(leaf: ClaudeNode): { chain: ClaudeNode[]; complete: boolean } {
    if (!(leaf instanceof KeyedNode)) throw new Error('a keyed scan walks from its own nodes');
    return this.chainOf(leaf.id);
  }

  /** ClaudeScan.chainFrom over the table. */
  private chainOf(leaf: number): { chain: ClaudeNode[]; complete: boolean } {
    const { chain, complete } = this.walkChainOf(leaf, null) ?? this.walkChainOf(leaf, new Set())!;
    return { chain: chain.map((id) => new KeyedNode(this.table, id)), complete };
  }

  private walkChainOf(leaf: number, seen: Set<number> | null): { chain: number[]; complete: boolean } | null {
    const nodes = this.table;
    const chain: number[] = [];
    let complete = true;
    for (let node = leaf; node >= 0; ) {
      if (seen === null) {
        if (chain.length > nodes.distinct) return null;
      } else {
        const key = nodes.uuidKeys[node]!;
        if (seen.has(key)) break;
        seen.add(key);
      }
      chain.push(node);
      const parentKey = nodes.parentKeys[node]!;
      const next = parentKey >= 0 ? parentKey : nodes.logicalKeys[node]!;
      if (next < 0) break;
      node = nodes.nodeOf(next);
      if (node < 0) complete = false;
    }
    return { chain: chain.reverse(), complete };
  }

  /** The engine's memory back (~15 MB for a 200 MB session): nothing is read of the scan's nodes after. */
  release(): void {
    this.table.engine.uuidTableFree(this.table.table);
  }
}
