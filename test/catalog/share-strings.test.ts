import { describe, expect, it } from 'vitest';
import { shareStrings, StringPool } from '../../src/catalog/share-strings.js';
import type { SessionFileGroup } from '../../src/core/formats/types.js';
import type { SessionSummary } from '../../src/core/model.js';

const group: SessionFileGroup = { agent: 'claude', paths: ['/h/.claude/projects/p/a.jsonl'], idHint: 'a', root: '/h/.claude', archived: false };

// What a worker's structured clone hands back: equal strings, arrays of its own.
function summary(over: Partial<SessionSummary> = {}): SessionSummary {
  return {
    id: 'a',
    agent: 'claude',
    path: '/h/.claude/projects/p/a.jsonl',
    paths: ['/h/.claude/projects/p/a.jsonl'],
    cwd: '/work/p',
    title: 'fix the build',
    firstPrompt: 'fix the build',
    lastPrompt: 'thanks',
    name: null,
    userTurns: 2,
    userTurnsExact: true,
    prompts: ['fix the build', 'thanks'],
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt: '2026-01-01T00:05:00.000Z',
    forkedFrom: null,
    fork: null,
    gitBranch: 'main',
    model: 'claude-sonnet-4',
    archived: false,
    usage: null,
    size: 10,
    mtimeMs: 1,
    ...over,
  };
}

describe('a row from a worker takes the main thread’s strings', () => {
  it('keeps every field as it was, with the group’s own paths array', () => {
    const row = summary();
    const shared = shareStrings(row, group, new StringPool());
    expect(shared).toEqual(row);
    expect(shared.paths).toBe(group.paths);
  });

  it('keeps its own paths when they are not the group’s (a fold that found other files)', () => {
    const row = summary({ paths: ['/h/.claude/projects/p/a.jsonl', '/h/.claude/projects/p/b.jsonl'], path: '/h/.claude/projects/p/b.jsonl' });
    const shared = shareStrings(row, group, new StringPool());
    expect(shared).toEqual(row);
    expect(shared.paths).toBe(row.paths);
  });

  it('keeps nulls, and stops pooling past its limit without changing a value', () => {
    const pool = new StringPool(1);
    expect(pool.share(null)).toBeNull();
    expect(pool.share('a')).toBe('a');
    expect(pool.share('b')).toBe('b');
    const row = summary({ cwd: null, model: null, gitBranch: null, firstPrompt: null, lastPrompt: null, prompts: [] });
    expect(shareStrings(row, group, pool)).toEqual(row);
  });
});
