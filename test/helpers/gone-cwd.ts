import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * Move every session in a fixture home copy that ran in `from` to `to`, a path under the test's own temp dir that
 * the test leaves missing: a test of "the recorded directory is gone" must not depend on what the machine has
 * (`/home/dev/src/…` may exist where the tests run). A Codex paginated fork points into its parent's file by byte
 * offset (`history_base.end_byte_offset`): the offsets are moved by what the rewrite added before them.
 */
export async function moveRecordedCwd(home: string, from: string, to: string): Promise<void> {
  const files: string[] = [];
  for (const entry of await readdir(home, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) files.push(join(entry.parentPath, entry.name));
  }
  const shift = Buffer.byteLength(to) - Buffer.byteLength(from);
  const originals = new Map<string, Buffer>();
  for (const file of files) {
    const data = await readFile(file);
    if (data.includes(from)) originals.set(file, data);
  }
  const movedBefore = (data: Buffer, end: number): number => {
    let count = 0;
    for (let at = data.indexOf(from); at !== -1 && at + Buffer.byteLength(from) <= end; at = data.indexOf(from, at + 1)) count++;
    return count * shift;
  };
  const parentOf = (id: string): Buffer | undefined => [...originals.entries()].find(([file]) => file.endsWith(`${id}.jsonl`))?.[1];
  for (const [file, data] of originals) {
    const text = data.toString('utf8').replaceAll(from, to);
    const rebased = text.replace(
      /"history_base":\{"thread_id":"([^"]+)","end_ordinal_exclusive":(\d+),"end_byte_offset":(\d+)\}/g,
      (whole, thread: string, ordinal: string, offset: string) => {
        const parent = parentOf(thread);
        if (parent === undefined) return whole;
        return `"history_base":{"thread_id":"${thread}","end_ordinal_exclusive":${ordinal},"end_byte_offset":${Number(offset) + movedBefore(parent, Number(offset))}}`;
      },
    );
    await writeFile(file, rebased);
  }
}
