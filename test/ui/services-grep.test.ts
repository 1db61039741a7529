// The browser's content search in its services: before the scan is done the folders are walked; once it is (the watcher
// ready or not yet), the rows' own files are searched and each hit names its row (by key); a session the watcher re-read
// since (its file grew by the text) is searched as it is now. The same sessions either way.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sessionKey } from '../../src/core/model.js';
import type { CatalogSession } from '../../src/catalog/scan.js';
import type { TuiServices } from '../../src/ui/services.js';
import type { ContentHit } from '../../src/ui/state.js';
import { fixtureHome, fixtureServices, waitFor } from './helpers.js';

let home: string;
let dispose: () => Promise<void>;
let stop: (() => void) | null = null;

beforeEach(async () => {
  ({ home, dispose } = await fixtureHome());
});
afterEach(async () => {
  stop?.();
  stop = null;
  await dispose();
});

function search(services: TuiServices, text: string): Promise<ContentHit[]> {
  return new Promise((resolve, reject) => {
    const hits: ContentHit[] = [];
    services.grep!(
      text,
      (hit) => hits.push(hit),
      (error) => (error === null ? resolve(hits) : reject(new Error(error))),
    );
  });
}

/** The rows hits name: by key, else by the first path a row has (the reducer's rule). */
function rowsOf(hits: readonly ContentHit[], rows: readonly CatalogSession[]): string[] {
  const byKey = new Map(rows.map((row) => [sessionKey(row), row]));
  const byPath = new Map(rows.flatMap((row) => row.paths.map((path) => [path, row] as const)));
  const found = hits.map((hit) => (hit.key !== undefined ? byKey.get(hit.key) : hit.paths.map((path) => byPath.get(path)).find((row) => row !== undefined)));
  return [...new Set(found.filter((row) => row !== undefined).map((row) => sessionKey(row)))].sort();
}

describe('TUI services: content search', () => {
  it('walks until the scan is done, then searches the rows it holds (the watcher ready or not); the same sessions', async () => {
    const services = fixtureServices(home);
    // Not scanned yet: the folders are walked (a hit names its files).
    const walked = await search(services, 'health');
    expect(walked.some((hit) => hit.key === undefined)).toBe(true);
    const { sessions } = await services.scan(() => undefined);
    // Scanned, the watcher not started: no walk (at 100k sessions it took 25-50 s), the rows' files are searched.
    const early = await search(services, 'health');
    expect(early.every((hit) => hit.key !== undefined && hit.matches === 0)).toBe(true);
    expect(rowsOf(early, sessions)).toEqual(rowsOf(walked, sessions));
    let changes: CatalogSession[] = [];
    const ready = new Promise<void>((resolve) => {
      stop = services.watch(sessions, (change) => (changes = [...changes, ...change.upserted]), resolve);
    });
    await ready;
    const listed = await search(services, 'health');
    expect(listed.every((hit) => hit.key !== undefined && hit.matches === 0)).toBe(true);
    // No snippet is read by the search (the rows on screen read theirs), but for the Codex fork that holds the text only
    // in the turns it inherits from its parent's file: its own files would give the snippet reader none.
    const withSnippet = listed.filter((hit) => hit.snippet !== null);
    expect(withSnippet.map((hit) => hit.key)).toEqual(['codex:01a200ed-5c85-77b2-b5d4-279df852ebe4']);
    expect(withSnippet[0]!.snippet!.match.toLowerCase()).toBe('health');
    expect(rowsOf(listed, sessions)).toEqual(rowsOf(walked, sessions));
    expect(rowsOf(listed, sessions).length).toBeGreaterThan(1);
    // Each hit's paths are its row's: the snippet reader reads those.
    const byKey = new Map(sessions.map((row) => [sessionKey(row), row]));
    for (const hit of listed) expect(hit.paths).toEqual(byKey.get(hit.key!)!.paths);

    // A new session holding the word: once the watcher listed it, a search finds it (the catalog the search takes is
    // the scan's with the watcher's changes).
    const day = join(home, '.codex', 'sessions', '2026', '11', '22');
    const id = '01a200ed-9999-7000-8000-0000000000ab';
    const source = await readFile(join(day, 'rollout-2026-11-22T01-44-55-01a200ed-8253-74d3-b561-f652765d4d59.jsonl'), 'utf8');
    expect(source.toLowerCase()).not.toContain('health');
    const line = JSON.stringify({ timestamp: '2026-11-22T09:00:00.000Z', type: 'response_item', payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'a health check at last' }] } });
    await writeFile(join(day, `rollout-2026-11-22T03-00-00-${id}.jsonl`), `${source.replaceAll('01a200ed-8253-74d3-b561-f652765d4d59', id)}${line}\n`);
    await waitFor(() => expect(changes.map((row) => row.id)).toContain(id));
    const after = await search(services, 'health');
    const added = changes.find((row) => row.id === id)!;
    expect(rowsOf(after, [...sessions, added])).toEqual([...rowsOf(listed, sessions), sessionKey(added)].sort());
  });
});
