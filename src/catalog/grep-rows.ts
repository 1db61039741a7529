// grep's rows: a matching file group becomes the row `list` gives it (the same fold, or the cached row of unchanged
// files), merged with the other files of its conversation and linked to its lineage family, each made once.
import { describeError } from '../core/errors.js';
import { ADAPTERS } from '../core/formats/index.js';
import type { SessionFileGroup } from '../core/formats/types.js';
import { localSessionKey, type Agent, unkeptSessionKey } from '../core/model.js';
import type { CatalogCache } from './cache.js';
import type { FileStamp } from './cache-entry.js';
import type { SniffedLineage, SniffedStamps } from './grep-pool-events.js';
import { conversations, lineageLinker } from './merge-rows.js';
import type { LineageVerdicts } from './lineage-verdicts.js';
import { HeldSessions } from './native-held.js';
import type { PrintedRow, PrintedRows } from './printed-rows.js';
import { cachedRow, toRow, type CatalogSession, type ScanContext } from './scan.js';

/**
 * Every group by the id its file names suggest (other files of a conversation), by its index in discovery order: by
 * agent, then hint, the one index or the indexes in order. A key string per group (`agent:hint`, 100k of them made and
 * hashed: ~0.15 s of the first row at 100k sessions), a map by group object and an array per hint are not made (the
 * last two were another ~0.15 s). `sameIdAs` reads it as a lookup by `localSessionKey` would.
 */
type GroupLookups = Map<Agent, Map<string, number | number[]>>;

/**
 * Rows wanted as printed lines (see GrepOptions.printed): the lines kept beside the walk memo (none without one), how a
 * made row's is made, and how many sessions the search finished so far (the native engine's: the matches' share of
 * them tells a common word from a rare one before most matches are in).
 */
export interface PrintedLines {
  readonly rows?: PrintedRows;
  readonly lineOf: (row: CatalogSession) => string;
  readonly searched?: () => number;
}

/**
 * The rows of one search's matching groups. `groups` is the search's list of every group found, in discovery order
 * (a match names its group by index there); `lineages` what the workers read of each lineage-linked file's head.
 */
export class MatchRows {
  /** What rows look up among the groups: made when a row first needs it, not while the files are being handed over. */
  private readonly lookups: GroupLookups = new Map();
  private lookedUp = 0;
  /** Summaries being made, or made (see `summaryValues`). */
  private readonly summaries = new Map<SessionFileGroup, Promise<CatalogSession | null>>();
  /** Summaries made, by their group: told at once by `summaryNow` (without a promise), or resolved. */
  private readonly summaryValues = new Map<SessionFileGroup, CatalogSession | null>();
  /** The stamps the workers took of a group's files (matching ones, and those whose lineage was asked for). */
  private readonly stampsOf = new Map<SessionFileGroup, SniffedStamps>();
  private cache: Promise<CatalogCache | undefined> | null = null;
  /** The cache once it is loaded (undefined until then): rows made at once (`rowNow`) look it up. */
  private cacheNow: { readonly cache: CatalogCache | undefined } | undefined;
  /** The sessions the search held back whose root uuid it read: their stamps and families are read from it when asked. */
  private readonly held = new HeldSessions();
  /** Every lineage-linked file's lineage (or how to read it), by its group's index, as the search hands them over (not `held`'s). */
  private readonly lineages = new Map<number, SniffedLineage>();
  /** Lineages handed over and not yet read into `indexesByLineage` (read once a family is wanted: `wantFamilies`). */
  private unindexed: (readonly [number, SniffedLineage])[] = [];
  private familiesWanted = false;
  /** Groups that matched so far (`noteMatch`). */
  private matches = 0;
  private readonly indexesByLineage = new Map<string | null, number[]>();
  /** The groups whose head did not show their lineage, as they are indexed. */
  private readonly unsniffedIndexes: number[] = [];
  /**
   * Those groups by the lineage their rows have (once every lineage was handed over), in that order: a group whose
   * lineage the cache told without its row decoded by its index (summarised only if its family is wanted), any other
   * by its summary.
   */
  private unsniffed: Promise<Map<string | undefined, (number | CatalogSession)[]>> | null = null;
  /** `unsniffed` once known. */
  private unsniffedNow: Map<string | undefined, (number | CatalogSession)[]> | undefined;
  private readonly families = new Map<string, Promise<(row: CatalogSession) => CatalogSession>>();
  /** The families made so far (`familyNow`, or `familyOf` resolved): linked at once. */
  private readonly linkers = new Map<string, (row: CatalogSession) => CatalogSession>();
  /** The merged row of a conversation of several files, by its id's and its files' hint's keys (see `row`). */
  private readonly mergedRows = new Map<string, Promise<CatalogSession | null>>();

  constructor(
    private readonly groups: readonly SessionFileGroup[],
    private readonly context: ScanContext,
    private readonly loadCache: (() => Promise<CatalogCache | undefined>) | undefined,
    /**
     * The sessions the search holds back until asked (the native engine's, that matched nothing), added to the held
     * sessions given; those whose lineage JS reads are returned.
     */
    private readonly takeHeldInto?: (into: HeldSessions) => readonly (readonly [number, SniffedLineage, SniffedStamps])[],
    /** What an earlier grep was told of the unsniffed files' lineages (read before the cache is asked), and what this one is told. */
    private readonly verdicts?: LineageVerdicts,
    /** Rows wanted as printed lines: told from the lines an earlier grep printed (`printedNow`), kept for the next (`printedRow`). */
    private readonly printed?: PrintedLines,
  ) {}

  /** The matches noted when the printed lines were read, and the rows they did not tell since: the cache expects only those lookups. */
  private matchesAtPrinted: number | null = null;
  private printedMissed = 0;

  /**
   * The printed row of a matching group, told at once by the lines an earlier grep printed: its one file unchanged
   * since then (the same stamps), its session's name the same, and its row still alone (no other group under its id or
   * its file's hint; `linked`: no other member of its lineage's family either). null when its file was kept as holding no
   * conversation (the same stamps: no row, as the cache says). undefined when not (then `rowNow`, `row`).
   */
  printedNow(index: number, linked: boolean): PrintedRow | null | undefined {
    const printed = this.printed?.rows;
    if (printed === undefined) return undefined;
    if (this.matchesAtPrinted === null) {
      // The matches to expect: as many of every group as of those searched so far.
      const searched = this.printed!.searched?.() ?? 0;
      if (!printed.wanted(searched > this.matches ? (this.matches * this.groups.length) / searched : this.matches)) return undefined;
      this.matchesAtPrinted = this.matches;
    }
    const row = this.toldRow(printed, index, linked);
    if (row === undefined) this.printedMissed++;
    return row;
  }

  private toldRow(printed: PrintedRows, index: number, linked: boolean): PrintedRow | null | undefined {
    const group = this.groups[index]!;
    if (group.paths.length !== 1 || ADAPTERS[group.agent].store !== undefined) return undefined;
    const stamps = this.fileStamps(index);
    if (stamps === undefined) return undefined;
    const row = printed.told(stamps, (agent, id) => this.nameOf(agent, group.root, id));
    // No conversation in the file: no row, whatever else shares its id (a summary of null merges into none).
    if (row === null) {
      this.stampsOf.delete(group);
      return null;
    }
    if (row === undefined || row.agent !== group.agent || !this.aloneUnder(index, group, row.agent, row.id)) return undefined;
    if (linked && row.lineage !== undefined && !this.familyAloneNow(index, row.lineage)) return undefined;
    // As a cached row is (cachedIndex): its group is known under its id.
    this.context.register(group, row.id);
    this.stampsOf.delete(group);
    return row;
  }

  /**
   * A row made (`rowNow`, `row`, `withLineage`) as printed: its line made, and kept for the next grep when its one file
   * is alone in its conversation (and, `linked`, in its lineage's family) and was stamped.
   */
  printedRow(index: number, row: CatalogSession, linked: boolean): PrintedRow {
    const printed = this.printed!;
    const made: PrintedRow = { agent: row.agent, id: row.id, cwd: row.cwd, updatedAt: row.updatedAt, lineage: row.lineage, line: printed.lineOf(row) };
    const group = this.groups[index]!;
    const [path] = group.paths;
    const single = group.paths.length === 1 && row.paths.length === 1 && row.paths[0] === path && ADAPTERS[group.agent].store === undefined;
    if (printed.rows !== undefined && single && row.host === undefined && row.root === group.root && this.aloneUnder(index, group, row.agent, row.id) && (!linked || row.lineage === undefined || this.familyAloneNow(index, row.lineage))) {
      const stamps = this.fileStamps(index);
      if (stamps !== undefined) printed.rows.note(stamps, made, this.nameOf(row.agent, row.root, row.id));
    }
    if (!this.lineages.has(index)) this.stampsOf.delete(group);
    return made;
  }

  /** The name a session's root gives its id now (Codex's session_index.jsonl), null when none or its agent names none. */
  private nameOf(agent: Agent, root: string, id: string): string | null {
    return ADAPTERS[agent].names === undefined ? null : (this.context.names(root).get(id) ?? null);
  }

  /** Whether a lineage's family is this group's alone, told at once: no other group, held session or unsniffed row in it, and no family linked for it yet. */
  private familyAloneNow(index: number, lineage: string): boolean {
    this.familiesWanted = true;
    this.indexLineages();
    void this.unsniffedGroups();
    const unsniffed = this.unsniffedNow;
    if (unsniffed === undefined || this.families.has(lineage)) return false;
    const only = (members: readonly (number | CatalogSession)[] | undefined): boolean => members === undefined || members.every((member) => member === index);
    return only(this.indexesByLineage.get(lineage)) && only(this.held.withLineage(lineage)) && only(unsniffed.get(lineage));
  }

  /**
   * What the search held back so far: the sessions whose root uuid the engine read are indexed by it (`held`), the others
   * noted as if they had been handed over (before any family or row reads them). Rows made at once (`rowNow`,
   * `withLineageNow`) do not ask for them: their maker does, once per batch of rows (asked once per row, a common word's
   * 86k rows at 100k sessions asked the engine ~0.14 s of times).
   */
  takeHeld(): void {
    const unread = this.takeHeldInto?.(this.held);
    if (unread === undefined) return;
    for (const [index, lineage, stamps] of unread) {
      this.noteStamps(index, stamps);
      this.noteLineage(index, lineage);
    }
  }

  /** What the search read of a lineage-linked file's head (every such file's comes before a family is linked). */
  noteLineage(index: number, lineage: SniffedLineage): void {
    this.lineages.set(index, lineage);
    this.unindexed.push([index, lineage]);
    if (this.familiesWanted) this.indexLineages();
  }

  /**
   * A row will be linked to its family: the lineages handed over so far are read now, and from now on as they come,
   * with the summaries of the files whose head did not show theirs (grep asks once every lineage was seen).
   */
  wantFamilies(): void {
    if (this.familiesWanted) return;
    this.takeHeld();
    this.familiesWanted = true;
    this.indexLineages();
  }

  private indexLineages(): void {
    const pending = this.unindexed;
    if (pending.length === 0) return;
    this.unindexed = [];
    for (const [index, lazy] of pending) {
      const sniffed = typeof lazy === 'function' ? lazy() : lazy;
      const same = this.indexesByLineage.get(sniffed);
      if (same === undefined) this.indexesByLineage.set(sniffed, [index]);
      else same.push(index);
      if (sniffed === null) this.unsniffedIndexes.push(index);
    }
  }

  /** A group matched: its row will be looked up (a common word's many lookups read the cache whole at once: `summarise`). */
  noteMatch(): void {
    this.matches++;
  }

  /** The cache lookups rows will make: every match's, or once printed lines were read, those before and the rows they did not tell. */
  private lookupsExpected(): number {
    return this.matchesAtPrinted === null ? this.matches : this.matchesAtPrinted + this.printedMissed;
  }

  noteStamps(index: number, stamps: SniffedStamps): void {
    const group = this.groups[index];
    if (stamps !== null && group !== undefined) this.stampsOf.set(group, stamps);
  }

  /** The listed row of a matching session (`index`: its group's in discovery order): its summary, merged with other files of the same conversation. */
  async row(index: number): Promise<CatalogSession | null> {
    this.takeHeld();
    const group = this.groups[index]!;
    const own = await this.summarise(index);
    if (own === null) return null;
    // Resumed copies, replayed forks, a workspace reached by two paths: the same id in other files is one row, as in `list`.
    const hint = idHintOf(group);
    const ownKey = unkeptSessionKey(own);
    const hintKey = hint === null ? null : localSessionKey(group.agent, hint);
    // With a hint the group is among its hint's groups, so the two keys decide the family: its row is merged once, not
    // once per matching file (a conversation of 700 files that all match merged 700 times was most of a grep at 100k),
    // and its family is gathered once too (a set of 700 groups per matching file was half a second at 100k).
    const key = hintKey === null ? null : `${ownKey}\0${hintKey}`;
    let merged = key === null ? undefined : this.mergedRows.get(key);
    if (merged === undefined) {
      const related = this.related(index, group, ownKey, hint);
      // Alone: `conversations([own])` is `[own]` (nothing to merge, no family, no parent among them). No other row needs
      // its summary then, unless its lineage's family does: not kept (80k of them were a fifth of a grep's heap at 100k).
      if (related.size === 1) {
        if (!this.lineages.has(index)) this.forget(group);
        return own;
      }
      const family = [...related].sort((a, b) => a - b);
      merged = Promise.all(family.map((one) => this.summarise(one))).then((rows) => {
        const summaries = rows.filter((s): s is CatalogSession => s !== null && s.agent === own.agent && s.id === own.id);
        return conversations(summaries).find((row) => row.id === own.id) ?? null;
      });
      if (key !== null) this.mergedRows.set(key, merged);
    }
    return merged;
  }

  /**
   * The row `row(index)` gives, made at once when that needs no wait: the cache loaded, the group's files unchanged
   * since it saw them, and no other file of its conversation (nothing to merge). undefined when it cannot (then `row`).
   * A common word's 80k rows at 100k sessions went through half a dozen promises each. What the search held is taken by
   * the caller first (`takeHeld`, once per batch).
   */
  rowNow(index: number): CatalogSession | null | undefined {
    const group = this.groups[index]!;
    const own = this.summaryNow(index);
    if (own === undefined || own === null) return own;
    if (!this.alone(index, group, own)) return undefined;
    if (!this.lineages.has(index)) this.forget(group);
    return own;
  }

  /** Whether `row` would give `own` unmerged: no other group under its id or its files' hint, and no merged row made for them (no key made). */
  private alone(index: number, group: SessionFileGroup, own: CatalogSession): boolean {
    const hint = idHintOf(group);
    // Another machine's row (a key of host and id): as `row` tells it. So is a store's (its groups are not among the
    // lookups). Any other group with a merged row made under its keys has its hint, so is found under it below: a merged
    // row made for another conversation (claw's files of one name at 100k sessions) no longer sends every row this way.
    if (own.host !== undefined || (this.mergedRows.size > 0 && ADAPTERS[group.agent].store !== undefined)) {
      const ownKey = unkeptSessionKey(own);
      return (hint === null || !this.mergedRows.has(`${ownKey}\0${localSessionKey(group.agent, hint)}`)) && this.related(index, group, ownKey, hint).size === 1;
    }
    return this.aloneUnder(index, group, own.agent, own.id);
  }

  /** Whether no group but this one is under a local row's id and under its file's hint. */
  private aloneUnder(index: number, group: SessionFileGroup, agent: Agent, id: string): boolean {
    const hint = idHintOf(group);
    const sameId = this.lookupsNow();
    const underId = sameId.get(agent)?.get(id);
    const underHint = hint === null ? undefined : sameId.get(group.agent)?.get(hint);
    return (underId === undefined || underId === index) && (underHint === undefined || underHint === index);
  }

  /** The row linked to its lineage family at once, when the family is known or can be told without a wait (see `withLineage`); else undefined. */
  withLineageNow(row: CatalogSession): CatalogSession | undefined {
    const lineage = row.lineage;
    if (lineage === undefined) return row;
    const made = this.linkers.get(lineage);
    if (made !== undefined || this.families.has(lineage)) return made?.(row);
    const members = this.membersNow(lineage);
    if (members === undefined) return undefined;
    // A family of this row's conversation alone (every one of 37k at 100k sessions) links it to nothing, as
    // lineageLinker would: no linker, promise or map entries are made for it (told again if another row asks).
    if (members.every((member) => member.id === row.id)) return row;
    const link = lineageLinker(members);
    this.linkers.set(lineage, link);
    this.families.set(lineage, Promise.resolve(link));
    return link(row);
  }

  /** The groups of a group's conversation: under its row's id (`ownKey`) and under the id its file names suggest (`hint`), itself among them. */
  private related(index: number, group: SessionFileGroup, ownKey: string, hint: string | null): Set<number> {
    const sameId = this.lookupsNow();
    const indexes = (found: number | number[] | undefined): readonly number[] => (found === undefined ? [] : typeof found === 'number' ? [found] : found);
    // The groups under a key `agent:hint` (no agent's name holds a colon: the key's agent is what precedes its first).
    const colon = ownKey.indexOf(':');
    const sameIdAsOwn = colon === -1 ? [] : indexes(sameId.get(ownKey.slice(0, colon) as Agent)?.get(ownKey.slice(colon + 1)));
    return new Set([index, ...sameIdAsOwn, ...(hint === null ? [] : indexes(sameId.get(group.agent)?.get(hint)))]);
  }

  /**
   * The unsniffed groups by their rows' lineage: told by an earlier grep's verdict for the same stamps, or by the cache's
   * bytes where it can (no row decoded), else summarised.
   */
  private async unsniffedByLineage(indexes: readonly number[]): Promise<Map<string | undefined, (number | CatalogSession)[]>> {
    const cache = await this.loaded();
    const verdicts = this.verdicts;
    const toldLineage = (index: number): { readonly lineage: string | undefined } | null | undefined => {
      const stamps = this.fileStamps(index);
      if (stamps === undefined) return undefined;
      const kept = verdicts?.told(stamps);
      if (kept !== undefined) return kept;
      const told = cache?.cachedLineage(stamps);
      if (told !== undefined) verdicts?.note(stamps, told);
      return told;
    };
    return byLineageOf(indexes, toldLineage, (index) => this.summarise(index));
  }

  /** `unsniffed`, gathered on first use (every lineage was handed over by then). */
  private unsniffedGroups(): Promise<Map<string | undefined, (number | CatalogSession)[]>> {
    if (this.unsniffed === null) {
      const gathering = this.unsniffedByLineage(this.unsniffedIndexes.slice());
      this.unsniffed = gathering;
      gathering.then(
        (byReal) => {
          this.unsniffedNow = byReal;
        },
        () => undefined,
      );
    }
    return this.unsniffed;
  }

  /** Let a group's summary and stamps go (made again if it is asked for again). */
  private forget(group: SessionFileGroup): void {
    this.summaries.delete(group);
    this.summaryValues.delete(group);
    // A printed row's are let go once its line was kept (`printedRow`).
    if (this.printed === undefined) this.stampsOf.delete(group);
  }

  /** The row linked to its lineage family, as `list` links it (Claude Code's --fork-session copies record no parent). */
  async withLineage(row: CatalogSession): Promise<CatalogSession> {
    return row.lineage === undefined ? row : (await this.familyOf(row.lineage))(row);
  }

  private lookupsNow(): GroupLookups {
    for (; this.lookedUp < this.groups.length; this.lookedUp++) {
      const group = this.groups[this.lookedUp]!;
      // A store's conversations (opencode's) are one row each.
      if (ADAPTERS[group.agent].store !== undefined) continue;
      const hint = idHintOf(group);
      if (hint === null) continue;
      let byHint = this.lookups.get(group.agent);
      if (byHint === undefined) this.lookups.set(group.agent, (byHint = new Map()));
      const same = byHint.get(hint);
      if (same === undefined) byHint.set(hint, this.lookedUp);
      else if (typeof same === 'number') byHint.set(hint, [same, this.lookedUp]);
      else same.push(this.lookedUp);
    }
    return this.lookups;
  }

  /** Group `index`'s stamps as the cache takes them (taken from the workers' or the held sessions' when a row needs them). */
  private fileStamps(index: number): readonly FileStamp[] | undefined {
    const group = this.groups[index]!;
    const taken = this.stampsOf.get(group) ?? this.held.stampsAt(index);
    const stamps = typeof taken === 'function' ? taken() : taken;
    if (stamps === null || stamps === undefined || stamps.length !== group.paths.length) return undefined;
    return stamps.map(([size, mtimeMs, fingerprint], at): FileStamp => [group.paths[at]!, size, mtimeMs, fingerprint]);
  }

  private loaded(): Promise<CatalogCache | undefined> {
    const load = this.loadCache;
    return (this.cache ??= (load ? load().catch(() => undefined) : Promise.resolve(undefined)).then((cache) => {
      this.cacheNow = { cache };
      return cache;
    }));
  }

  private summarise(index: number): Promise<CatalogSession | null> {
    const group = this.groups[index]!;
    const made = this.summaryValues.get(group);
    if (made !== undefined) return Promise.resolve(made);
    let summary = this.summaries.get(group);
    if (summary === undefined) {
      const making = this.loaded().then(async (loaded) => {
        loaded?.expectLookups(this.lookupsExpected());
        const stamps = this.fileStamps(index);
        const value = await summaryOf(group, this.context, loaded, stamps);
        if (this.summaries.get(group) === making) this.summaryValues.set(group, value);
        // Folded or cached as no conversation (a failure is reported, not cached): kept as none, as `summaryNow` keeps it.
        if (value === null && stamps !== undefined && loaded?.lookup(stamps) === null) this.keepNone(group, stamps);
        return value;
      });
      summary = making;
      this.summaries.set(group, summary);
    }
    return summary;
  }

  /**
   * A group's summary (`summarise`'s) when it is made, or can be made at once: its files unchanged since the loaded
   * cache saw them. undefined while it is being made, or when it must be read.
   */
  private summaryNow(index: number): CatalogSession | null | undefined {
    const group = this.groups[index]!;
    const made = this.summaryValues.get(group);
    if (made !== undefined || this.summaries.has(group)) return made;
    const loaded = this.cacheNow;
    if (loaded === undefined) {
      void this.loaded();
      return undefined;
    }
    if (loaded.cache === undefined) return undefined;
    loaded.cache.expectLookups(this.lookupsExpected());
    let row: CatalogSession | null | undefined;
    try {
      row = cachedRow(group, this.context, loaded.cache, this.fileStamps(index));
    } catch {
      // Told by `summarise`, which reports it.
      return undefined;
    }
    if (row !== undefined) this.summaryValues.set(group, row);
    if (row === null) {
      const stamps = this.fileStamps(index);
      if (stamps !== undefined) this.keepNone(group, stamps);
    }
    return row;
  }

  /** A single file the cache holds as no conversation for these stamps: kept with the printed lines (the next grep looks up none). */
  private keepNone(group: SessionFileGroup, stamps: readonly FileStamp[]): void {
    if (group.paths.length === 1) this.printed?.rows?.noteNone(stamps);
  }

  /**
   * Every session of a lineage (the root uuid their heads share, or found by summarising those whose head did
   * not show it), as a linker (`lineageLinker`): made once per lineage, so linking is linear in the number of
   * sessions whatever the family sizes and however many match.
   */
  private familyOf(lineage: string): Promise<(row: CatalogSession) => CatalogSession> {
    let family = this.families.get(lineage);
    if (family !== undefined) return family;
    this.takeHeld();
    this.familiesWanted = true;
    this.indexLineages();
    const known = this.indexesByLineage;
    const summariseAt = (index: number): Promise<CatalogSession | null> => this.summarise(index);
    const unsniffed = this.unsniffedGroups().then((byReal) => Promise.all((byReal.get(lineage) ?? []).map((one) => (typeof one === 'number' ? summariseAt(one) : one))));
    family = Promise.all([Promise.all([...(known.get(lineage) ?? []), ...this.held.withLineage(lineage)].map(summariseAt)), unsniffed]).then(([sniffed, others]) => {
      const link = lineageLinker([...sniffed, ...others].filter((s): s is CatalogSession => s !== null && s.lineage === lineage));
      this.linkers.set(lineage, link);
      return link;
    });
    this.families.set(lineage, family);
    return family;
  }

  /**
   * The members `familyOf` links a lineage's rows to, at once, when every member's summary can be told at once
   * (`summaryNow`), once the unsniffed groups' lineages are known; undefined when not (then `familyOf`).
   */
  private membersNow(lineage: string): CatalogSession[] | undefined {
    this.familiesWanted = true;
    this.indexLineages();
    void this.unsniffedGroups();
    const unsniffed = this.unsniffedNow;
    if (unsniffed === undefined) return undefined;
    const members: CatalogSession[] = [];
    for (const one of [...(this.indexesByLineage.get(lineage) ?? []), ...this.held.withLineage(lineage), ...(unsniffed.get(lineage) ?? [])]) {
      const member = typeof one === 'number' ? this.summaryNow(one) : one;
      if (member === undefined) return undefined;
      if (member !== null && member.lineage === lineage) members.push(member);
    }
    return members;
  }
}

/**
 * The rows a search reported, each conversation once (as `unkeptSessionKey` tells them apart: machine, agent, id), by
 * agent (another machine's by machine and agent) then id: no key string is made per row (80k at 100k sessions).
 */
export class ReportedRows {
  private readonly ids = new Map<string, Set<string>>();

  has(row: ReportedRow): boolean {
    return this.ids.get(placeOf(row))?.has(row.id) === true;
  }

  add(row: ReportedRow): void {
    const place = placeOf(row);
    const ids = this.ids.get(place);
    if (ids === undefined) this.ids.set(place, new Set([row.id]));
    else ids.add(row.id);
  }
}

/** What tells a reported row's conversation apart (a made row's or a printed line's). */
type ReportedRow = Pick<CatalogSession, 'agent' | 'id' | 'host'>;

/** A row's agent, or its machine and agent (no agent's name holds a NUL). */
function placeOf(row: ReportedRow): string {
  return row.host === undefined ? row.agent : `${row.host}\u0000${row.agent}`;
}

/** What `unsniffed` holds (see there). */
async function byLineageOf(
  indexes: readonly number[],
  toldLineage: (index: number) => { readonly lineage: string | undefined } | null | undefined,
  summariseAt: (index: number) => Promise<CatalogSession | null>,
): Promise<Map<string | undefined, (number | CatalogSession)[]>> {
  // Told by the cache (null: no conversation in the files), or summarised (all at once, as before): in the groups' order.
  const told = indexes.map((index) => {
    const lineage = toldLineage(index);
    return lineage === undefined ? summariseAt(index) : lineage;
  });
  const byReal = new Map<string | undefined, (number | CatalogSession)[]>();
  for (let at = 0; at < indexes.length; at++) {
    const one = told[at]!;
    let lineage: string | undefined;
    let member: number | CatalogSession;
    if (one instanceof Promise) {
      const row = await one;
      if (row === null) continue;
      [lineage, member] = [row.lineage, row];
    } else if (one === null) continue;
    else [lineage, member] = [one.lineage, indexes[at]!];
    const same = byReal.get(lineage);
    if (same === undefined) byReal.set(lineage, [member]);
    else same.push(member);
  }
  return byReal;
}

async function summaryOf(group: SessionFileGroup, context: ScanContext, cache: CatalogCache | undefined, stamps: readonly FileStamp[] | undefined): Promise<CatalogSession | null> {
  try {
    // The same row pipeline as `list` (every line folded, or the cached row of unchanged files): grep rows and
    // list rows never disagree.
    return await toRow(group, context, cache, stamps);
  } catch (error) {
    context.report({ path: group.paths[group.paths.length - 1] ?? group.root, message: describeError(error) });
    return null;
  }
}

/** The id a group's file names suggest (see FormatAdapter.nameIdHint). */
export function idHintOf(group: SessionFileGroup): string | null {
  return group.idHint ?? ADAPTERS[group.agent].nameIdHint?.(group) ?? null;
}
