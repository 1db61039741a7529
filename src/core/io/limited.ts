/**
 * Asynchronous work over many items with at most `limit` operations in flight. Each pending fs call holds native
 * memory (its request, its path copy) until it completes: 80,000 `realpath` or `stat` calls started at once take
 * ~120 MB of malloc'd memory that the allocator keeps after they finish. A bounded number in flight keeps that to
 * a few hundred KB and is no slower: the thread pool runs four at a time whatever is queued.
 */
export async function forEachLimited<T>(items: readonly T[], limit: number, run: (item: T, index: number) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const index = next++;
      await run(items[index]!, index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(Math.max(1, limit), items.length) }, worker));
}

/** `items.map(run)` awaited, in order, with at most `limit` calls in flight. */
export async function mapLimited<T, R>(items: readonly T[], limit: number, run: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  await forEachLimited(items, limit, async (item, index) => {
    out[index] = await run(item);
  });
  return out;
}

/** How many fs calls the catalog's walks keep in flight. */
export const FS_CALLS_IN_FLIGHT = 64;
