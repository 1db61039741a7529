import { join } from 'node:path';
import { errorCode } from '../../errors.js';
import { jsonObjects, newLineStats, splitLines } from '../../io/lines.js';
import { readRegularFile } from '../../io/regular.js';
import { stringField, timeOf } from './fields.js';

// Names

/** Thread names from `<root>/session_index.jsonl` (`{id, thread_name, updated_at}`), newest `updated_at` wins. */
export async function readCodexNames(root: string): Promise<Map<string, string>> {
  let data: Buffer;
  try {
    data = await readRegularFile(join(root, 'session_index.jsonl'));
  } catch (error) {
    if (errorCode(error) === 'ENOENT' || errorCode(error) === 'ENOTDIR') return new Map();
    throw error;
  }
  const newest = new Map<string, { readonly at: number; readonly name: string | null }>();
  const stats = newLineStats();
  for (const { value } of jsonObjects(splitLines(data), stats)) {
    const id = stringField(value, 'id');
    if (!id) continue;
    const raw = value.thread_name;
    const name = typeof raw === 'string' && raw.trim() !== '' ? raw : null;
    const at = timeOf(value.updated_at) ?? Number.NEGATIVE_INFINITY;
    const previous = newest.get(id);
    // Equal times: the later line was written later.
    if (!previous || at >= previous.at) newest.set(id, { at, name });
  }
  const names = new Map<string, string>();
  for (const [id, entry] of newest) if (entry.name !== null) names.set(id, entry.name);
  return names;
}
