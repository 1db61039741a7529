import { describe, expect, it } from 'vitest';
import { fold, isSubsequence, SearchIndex, type MatchRanges } from '../../src/catalog/search.js';
import { catalogSession } from './helpers.js';

const sessions = [
  catalogSession({ id: '01a200ed-aaaa', title: 'api-health', name: 'api-health', prompts: ['Add a health check endpoint', 'now run the tests'], cwd: '/home/dev/src/api-server', gitBranch: 'main' }),
  catalogSession({ id: '5a1999c3-bbbb', agent: 'claude', title: 'Explain the request lifecycle', prompts: ['Explain the request lifecycle in this server'], cwd: '/home/dev/src/api-server', gitBranch: 'feature/auth' }),
  catalogSession({ id: '637c5025-cccc', agent: 'claude', title: 'Make the sidebar collapsible', prompts: ['Make the sidebar collapsible', 'also persist the collapsed state'], cwd: '/home/dev/src/web-ui', gitBranch: 'ui-polish' }),
  catalogSession({ id: 'session-1775', agent: 'claw', title: 'analyze this repo', prompts: ['analyze this repo', 'write the report to REPORT.md'], cwd: '/home/dev/src/claw-code', gitBranch: null }),
  catalogSession({ id: '01a200ed-dddd', title: 'Write a long design note about caching', prompts: ['Write a long design note about caching'], cwd: '/home/dev/src/a-ünïcødé-项目', gitBranch: null }),
];

const matched = (text: string, ranges: MatchRanges | undefined): string => (ranges ?? []).map(([start, end]) => text.slice(start, end + 1)).join('|');

describe('SearchIndex', () => {
  const index = new SearchIndex(sessions);

  it('matches nothing for an empty query', () => {
    expect(index.search('')).toEqual([]);
    expect(index.search('   ')).toEqual([]);
  });

  it('ranks a title match first and reports the matched characters', () => {
    const hits = index.search('health');
    expect(hits[0]!.key).toBe('codex:01a200ed-aaaa');
    expect(matched('api-health', hits[0]!.title)).toBe('health');
  });

  it('finds a session by any of its prompts, not only the first, and says which', () => {
    const hits = index.search('persist the collapsed');
    expect(hits.map((hit) => hit.key)).toEqual(['claude:637c5025-cccc']);
    expect(hits[0]!.prompt?.text).toBe('also persist the collapsed state');
  });

  it('finds by cwd, branch and id', () => {
    expect(index.search('web-ui')[0]!.key).toBe('claude:637c5025-cccc');
    expect(index.search('feature/auth')[0]!.key).toBe('claude:5a1999c3-bbbb');
    expect(index.search('session-1775')[0]!.key).toBe('claw:session-1775');
    expect(index.search('5a1999c3')[0]!.key).toBe('claude:5a1999c3-bbbb');
  });

  it('ignores case and diacritics', () => {
    expect(index.search('UNICØDE')[0]!.key).toBe('codex:01a200ed-dddd'); // ü, ï and é fold to u, i and e
  });

  it('gives the same results when a query is narrowed one letter at a time as when typed at once', () => {
    const typed = new SearchIndex(sessions);
    let last: string[] = [];
    for (const query of ['r', 're', 'rep', 'repo', 'repor', 'report']) last = typed.search(query).map((hit) => hit.key);
    expect(last).toEqual(new SearchIndex(sessions).search('report').map((hit) => hit.key));
    expect(last[0]).toBe('claw:session-1775');
  });

  it('re-indexes only what changed: a renamed session is found by its new title, a removed one is gone', () => {
    const live = new SearchIndex(sessions);
    expect(live.search('zebra')).toEqual([]);
    const renamed = { ...sessions[2]!, title: 'zebra stripes' };
    live.setSessions([sessions[0]!, sessions[1]!, renamed, sessions[4]!]);
    expect(live.size).toBe(4);
    expect(live.search('zebra').map((hit) => hit.key)).toEqual(['claude:637c5025-cccc']);
    expect(live.search('analyze this repo')).toEqual([]);
  });

  it('breaks score ties by catalog order (newest first)', () => {
    const twins = [catalogSession({ id: 'new', title: 'same words' }), catalogSession({ id: 'old', title: 'same words' })];
    expect(new SearchIndex(twins).search('same words').map((hit) => hit.key)).toEqual(['codex:new', 'codex:old']);
  });
});

describe('prefilter', () => {
  it('is a subsequence test on folded text', () => {
    expect(isSubsequence('hlth', 'health')).toBe(true);
    expect(isSubsequence('htl', 'health')).toBe(false);
    expect(fold('Ünïcødé 项目')).toBe('unicøde 项目');
  });
});

describe('search speed (a later issue sets the bar; this measures it)', () => {
  it('types a query into 2,000 sessions, each keystroke well under a frame', () => {
    const words = ['refactor', 'auth', 'middleware', 'tests', 'cache', 'sidebar', 'deploy', 'migration', 'parser', 'docs', 'api', 'health'];
    const many = Array.from({ length: 2000 }, (_, i) => {
      const pick = (n: number): string => words[(i * 7 + n * 13) % words.length]!;
      return catalogSession({
        id: `id-${i}`,
        title: `${pick(1)} the ${pick(2)} module ${i}`,
        prompts: Array.from({ length: 5 }, (_, p) => `${pick(p + 3)} ${pick(p + 4)} and check the ${pick(p + 5)} behaviour in detail ${i}`),
        cwd: `/home/dev/src/project-${i % 40}`,
        gitBranch: `feature/${pick(6)}`,
      });
    });
    const index = new SearchIndex(many);
    const times: number[] = [];
    const query = 'refactor auth';
    for (let i = 1; i <= query.length; i++) {
      const start = performance.now();
      index.search(query.slice(0, i));
      times.push(performance.now() - start);
    }
    times.sort((a, b) => a - b);
    const p95 = times[Math.floor(times.length * 0.95)]!;
    console.log(`search over 2000 sessions: median ${times[Math.floor(times.length / 2)]!.toFixed(1)} ms, p95 ${p95.toFixed(1)} ms per keystroke`);
    expect(p95).toBeLessThan(250);
  });
});
