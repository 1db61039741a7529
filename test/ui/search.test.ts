import Fuse from 'fuse.js';
import { describe, expect, it } from 'vitest';
import { FIRST_PAGE, fold, isCompactSubsequence, isSubsequence, SearchIndex, type MatchRanges } from '../../src/catalog/search.js';
import { catalogSession } from './helpers.js';
import { sessionKey } from '../../src/core/model.js';

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

describe('words and fzf extended syntax', () => {
  const index = new SearchIndex(sessions);
  const keys = (query: string): string[] => index.search(query).map((hit) => hit.key);

  it.each([
    ['request server', 'claude:5a1999c3-bbbb'],
    ['server request', 'claude:5a1999c3-bbbb'],
    ['design caching', 'codex:01a200ed-dddd'],
    ['sidebar ui-polish', 'claude:637c5025-cccc'], // one word in the title, the other in the branch
    ['health api-server main', 'codex:01a200ed-aaaa'],
  ])('each word of %j matches on its own, in any order and any field', (query, key) => {
    expect(keys(query)[0]).toBe(key);
  });

  it('needs every word: one that matches nothing leaves nothing', () => {
    expect(keys('request zebra')).toEqual([]);
  });

  it('highlights every word where it matched', () => {
    const hit = index.search('request server')[0]!;
    expect(matched('Explain the request lifecycle', hit.title)).toBe('request');
    expect(matched(hit.prompt!.text, hit.prompt!.ranges)).toBe('request|server');
  });

  it('reports a prompt as written (case and accents) with the matched words marked in it', () => {
    const hit = new SearchIndex([catalogSession({ id: 'p1', title: 'other', prompts: ['Fix the Café Login now'] })]).search("cafe 'login")[0]!;
    expect(hit.prompt?.text).toBe('Fix the Café Login now');
    expect(matched(hit.prompt!.text, hit.prompt!.ranges)).toBe('Café|Login');
  });

  it("'exact matches the substring only (no fuzzy letters)", () => {
    expect(keys('colapsible')).toContain('claude:637c5025-cccc'); // fuzzy: one letter missing is fine
    expect(keys("'colapsible")).toEqual([]);
    expect(keys("'collapsible")).toEqual(['claude:637c5025-cccc']);
  });

  it('^prefix and suffix$ anchor to the start and end of a field', () => {
    expect(keys('^analyze')).toEqual(['claw:session-1775']);
    expect(keys('^repo')).toEqual([]);
    expect(keys('repo$')).toEqual(['claw:session-1775']);
    expect(keys('^/home/dev/src/web')).toEqual(['claude:637c5025-cccc']);
    expect(keys('^api-health$')).toEqual(['codex:01a200ed-aaaa']);
  });

  it('!word excludes a session that has it in any field', () => {
    expect(keys('api-server')).toEqual(expect.arrayContaining(['codex:01a200ed-aaaa', 'claude:5a1999c3-bbbb']));
    expect(keys('api-server !auth')).toEqual(['codex:01a200ed-aaaa']); // the other's branch is feature/auth
    expect(keys('!src').length).toBe(0);
    expect(keys('!^analyze')).toHaveLength(sessions.length - 1);
    expect(keys('!caching$')).not.toContain('codex:01a200ed-dddd');
  });

  it('a | b matches either', () => {
    expect(keys('sidebar | lifecycle').sort()).toEqual(['claude:5a1999c3-bbbb', 'claude:637c5025-cccc']);
    expect(keys('^/home/dev/src/api ^add | ^explain').sort()).toEqual(['claude:5a1999c3-bbbb', 'codex:01a200ed-aaaa']);
  });

  it('the agent and the model are fields too: plain words, !not, ^start, word$', () => {
    const mixed = new SearchIndex([
      catalogSession({ id: 'q1', agent: 'qwen', title: 'What does the api server do?', model: 'qwen3-coder-plus', cwd: '/w' }),
      catalogSession({ id: 'c1', agent: 'codex', title: 'api health check', model: 'gpt-5.1-codex-max', cwd: '/w' }),
      catalogSession({ id: 'k1', agent: 'claude', title: 'api routes', model: 'claude-sonnet-4-5-20250929', cwd: '/w' }),
      catalogSession({ id: 'o1', agent: 'opencode', title: 'a sidebar', model: 'claude-opus-4-1', cwd: '/w' }),
    ]);
    const found = (query: string): string[] => mixed.search(query).map((hit) => hit.key).sort();
    expect(found('qwen')).toEqual(['qwen:q1']);
    expect(found('api')).toEqual(['claude:k1', 'codex:c1', 'qwen:q1']);
    expect(found('api !codex')).toEqual(['claude:k1', 'qwen:q1']);
    expect(found('^claude')).toEqual(['claude:k1', 'opencode:o1']); // the agent, and opencode's model
    expect(found('^claude api')).toEqual(['claude:k1']);
    expect(found('sonnet')).toEqual(['claude:k1']);
    expect(found("'codex-max")).toEqual(['codex:c1']);
    expect(found('opus-4-1$')).toEqual(['opencode:o1']);
    expect(found('!claude').sort()).toEqual(['codex:c1', 'qwen:q1']);
    const hit = mixed.search('qwen')[0]!;
    expect(matched('qwen', hit.agent)).toBe('qwen');
    expect(matched('qwen3-coder-plus', hit.model)).toBe('qwen');
  });

  it("a host's rows are found by the host's name", () => {
    const remote = new SearchIndex([catalogSession({ id: 'h1', host: 'devbox', title: 'deploy' }), catalogSession({ id: 'l1', title: 'deploy' })]);
    expect(remote.search('devbox deploy').map((hit) => hit.key)).toEqual([sessionKey(catalogSession({ id: 'h1', host: 'devbox' }))]);
  });

  it('a word that is only an operator is nothing yet', () => {
    expect(keys("'")).toEqual([]);
    expect(keys("health '")).toEqual(keys('health'));
  });

  it('typed one key at a time gives what typing at once gives, even where a longer query matches more', () => {
    for (const query of ['api-server !auth', 'sidebar | lifecycle', 'repo$', "'collapsible state"]) {
      const typed = new SearchIndex(sessions);
      let last: string[] = [];
      for (let i = 1; i <= query.length; i++) last = typed.search(query.slice(0, i)).map((hit) => hit.key);
      expect(last).toEqual(keys(query));
    }
  });
});

describe('prefilter', () => {
  it('is a subsequence test on folded text', () => {
    expect(isSubsequence('hlth', 'health')).toBe(true);
    expect(isSubsequence('htl', 'health')).toBe(false);
    expect(fold('Ünïcødé 项目')).toBe('unicøde 项目');
  });
});

describe('incremental ranking', () => {
  const many = Array.from({ length: 600 }, (_, i) =>
    catalogSession({ id: `id-${String(i).padStart(4, '0')}`, title: i % 3 === 0 ? `deploy the parser ${i}` : `refactor module ${i}`, prompts: [`check the cache ${i}`], cwd: `/src/p${i % 7}` }),
  );

  it('ranks a first page at once, the rest in steps, and ends with the same ranking as a full search', () => {
    const index = new SearchIndex(many);
    const run = index.begin('module');
    expect(run.done).toBe(false);
    expect(run.pending).toBeGreaterThan(0);
    expect(run.pending).toBeLessThanOrEqual(600 - FIRST_PAGE);
    const first = run.hits();
    expect(first).toHaveLength(FIRST_PAGE);
    expect(first.every((hit) => hit.title !== undefined)).toBe(true);
    while (!run.step(5));
    expect(run.pending).toBe(0);
    const complete = run.hits().map((hit) => hit.key);
    expect(complete).toEqual(new SearchIndex(many).search('module').map((hit) => hit.key));
    expect(new Set(complete).size).toBe(400);
  });

  it('puts title matches before prompt-only matches in the first page', () => {
    const index = new SearchIndex([
      catalogSession({ id: 'prompt-only', title: 'something else', prompts: ['the widget factory'] }),
      ...Array.from({ length: 300 }, (_, i) => catalogSession({ id: `t${i}`, title: `widget ${i}` })),
    ]);
    const run = index.begin('widget');
    expect(run.hits()).toHaveLength(FIRST_PAGE);
    expect(run.hits().map((hit) => hit.key)).not.toContain('codex:prompt-only');
    expect(index.search('widget').map((hit) => hit.key)).toContain('codex:prompt-only');
  });

  it('requires a subsequence to fall inside one field', () => {
    const index = new SearchIndex([catalogSession({ id: 'x1', title: 'alpha', cwd: '/beta' })]);
    expect(index.search('alpha')).toHaveLength(1);
    expect(index.search('apbt')).toEqual([]);
  });
});

describe('isCompactSubsequence', () => {
  it.each([
    ['apihlth', 'api-health', true],
    ['hlth', 'health', true],
    ['rate', '/home/dev/src/a-separate-project', true],
    ['rate', 'r/home/dev/src/a/t/project/e', false],
    ['rtlr', 'rate limiter', false],
    ['ab', 'ba', false],
  ])('%s in %s', (needle, haystack, expected) => {
    expect(isCompactSubsequence(needle, haystack)).toBe(expected);
  });
});

describe('the count of a search, known before the ranking is over', () => {
  // Words drawn from a small vocabulary so that queries find exact words, words split over a field (compact
  // subsequences fuse.js may reject), prompt line starts (`^word` fuse.js tests per prompt) and nothing.
  const words = ['deploy', 'parser', 'cache', 'module', 'widget', 'health', 'login', 'rate', 'limiter', 'sidebar'];
  const catalog = Array.from({ length: 2200 }, (_, i) => {
    const w = (k: number): string => words[(i * 7 + k * 3) % words.length]!;
    return catalogSession({
      id: `id-${String(i).padStart(5, '0')}`,
      title: i % 5 === 0 ? `${w(1)}-${w(2)}` : `${w(1)} the ${w(2)} ${i}`,
      prompts: [`${w(3)} then ${w(4)}`, `and\n${w(5)} at line start`],
      cwd: `/src/${w(6)}-p${i % 9}`,
      gitBranch: i % 4 === 0 ? `feat/${w(7)}` : null,
    });
  });
  // `dploy`, `prser`, `halth`: compact subsequences found exactly with one letter missing (`ploy`), counted
  // without waiting for fuse.js's score.
  const queries = ['d', 'de', 'dpl', 'cache', 'parser deploy', 'dplyprs', "'widget", '^rate', '^limiter', 'login$', 'at line start', 'health !cache', 'sidebar | module', 'xyzzy', 'feat', 'p3', 'hlth lgn', 'dploy', 'prser lmiter'];

  it.each(queries)('%s: the count equals what the full ranking finds, and the rows then are every match', (query) => {
    const index = new SearchIndex(catalog);
    const full = index.search(query).map((hit) => hit.key);
    const run = index.begin(query);
    while (run.count === null) run.step(1);
    expect(run.count).toBe(full.length);
    const listed = [...run.hits(), ...run.unrankedHits()].map((hit) => hit.key);
    expect(new Set(listed)).toEqual(new Set(full));
    expect(listed).toHaveLength(full.length);
    // What the list is handed: the same hits, the unranked ones made as they are read.
    expect(run.matches().map((hit) => hit.key)).toEqual(listed);
    run.step(0.5);
    expect(run.matches().map((hit) => hit.key)).toEqual([...run.hits(), ...run.unrankedHits()].map((hit) => hit.key));
    while (!run.step(5));
    expect(run.count).toBe(full.length);
    expect(run.unrankedHits()).toEqual([]);
    expect(run.hits().map((hit) => hit.key)).toEqual(full);
  });

  it('the matches handed out stay what they were when the catalog changes after (a session removed, another renamed)', () => {
    const index = new SearchIndex(catalog);
    const run = index.begin('deploy');
    while (run.count === null) run.step(1);
    const matches = run.matches();
    const before = matches.map((hit) => [hit.key, hit.session?.title]);
    expect(before.length).toBeGreaterThan(FIRST_PAGE);
    const last = matches.at(matches.length - 1)!;
    index.setSessions(catalog.filter((session) => sessionKey(session) !== last.key).map((session, i) => (i === 0 ? { ...session, title: 'renamed' } : session)));
    expect(matches.map((hit) => [hit.key, hit.session?.title])).toEqual(before);
    expect(index.search('deploy').map((hit) => hit.key)).not.toContain(last.key);
  });

  it.each(['dploy', 'prser lmiter', 'halth'])('%s: counted at once, and every match one fuse.js scored', (query) => {
    const index = new SearchIndex(catalog);
    const full = index.search(query);
    expect(full.length).toBeGreaterThan(0);
    expect(full.every((hit) => hit.score < 1)).toBe(true); // none kept without fuse.js (see exactPromptMatch)
    // Slices of a ticking clock: the count is known once the walk is over, before fuse.js scores anything past
    // the first page (it used to score every such candidate first).
    let ticks = 0;
    const run = new SearchIndex(catalog, () => (ticks += 0.5)).begin(query);
    while (run.count === null) run.step(1);
    expect(run.count).toBe(full.length);
    expect(run.hits().length).toBeLessThanOrEqual(FIRST_PAGE);
    expect(full.length).toBeGreaterThan(FIRST_PAGE);
  });
});

describe('a session of many turns', () => {
  it('is found by a word in a prompt fuse.js does not rank by, after the sessions it ranked, showing that prompt', () => {
    const prompts = Array.from({ length: 200 }, (_, i) => (i === 100 ? 'rename the quokka module' : `step ${i} of the plan`));
    const long = catalogSession({ id: 'long-one', title: 'a long session', prompts });
    const short = catalogSession({ id: 'short-one', title: 'quokka sightings' });
    const index = new SearchIndex([long, short]);
    const hits = index.search('quokka');
    expect(hits.map((hit) => hit.key)).toEqual(['codex:short-one', 'codex:long-one']);
    expect(hits[1]!.prompt).toEqual({ text: 'rename the quokka module', ranges: [[11, 16]] });
    const run = index.begin('quokka');
    while (run.count === null) run.step(1);
    expect(run.count).toBe(2);
  });
});

describe('what fuse.js keeps of a short word (the prefilter counts on it)', () => {
  // matchTier drops a short word's subsequence candidates unscored: fuse.js, with the options search.ts gives it
  // (threshold 0.3, no location, extended search, the word quoted), keeps a word of three letters or fewer only
  // where it is a substring. If fuse.js ever scores otherwise, this fails.
  const fields = ['pipeline', 'the parser', 'apple', 'plate', 'p-l-e', 'thesis', 'th', 'tahini', '/src/p12/x', 'simple', 'pale', 'tsih'];
  const fuse = new Fuse(fields.map((text) => ({ text })), { keys: ['text'], threshold: 0.3, ignoreLocation: true, useExtendedSearch: true, isCaseSensitive: true, minMatchCharLength: 1 });
  it.each(['ple', 'thi', 'th', 'p', 'pe', 'sis', 'abc', 'ale'])('%s', (word) => {
    const found = fuse.search(`"${word}"`).map((result) => fields[result.refIndex]).sort();
    expect(found).toEqual(fields.filter((text) => text.includes(word)).sort());
  });
  it('while a longer word is kept with an error', () => {
    expect(fuse.search('"pxle"').map((result) => fields[result.refIndex])).toContain('pale');
  });
  // matchTier counts a word of four letters or more at once where it is found with one letter missing: fuse.js
  // must keep every such text. Texts and words drawn (deterministically) from a few letters, so that variants
  // are found often.
  it('keeps a word of four letters or more wherever it is found with one letter missing', () => {
    let seed = 7;
    const next = (n: number): number => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % n;
    const draw = (length: number, alphabet: string): string => Array.from({ length }, () => alphabet[next(alphabet.length)]).join('');
    const texts = Array.from({ length: 300 }, () => draw(8 + next(40), 'pleasrt '));
    const many = new Fuse(texts.map((text) => ({ text })), { keys: ['text'], threshold: 0.3, ignoreLocation: true, useExtendedSearch: true, isCaseSensitive: true, minMatchCharLength: 1 });
    let checked = 0;
    for (let w = 0; w < 400; w++) {
      const word = draw(4 + next(6), 'pleasrt');
      const variants = [...word].map((_, i) => word.slice(0, i) + word.slice(i + 1));
      const kept = new Set(many.search(`"${word}"`).map((result) => result.refIndex));
      texts.forEach((text, i) => {
        if (!variants.some((variant) => text.includes(variant))) return;
        checked++;
        expect(kept.has(i), `${word} in ${JSON.stringify(text)}`).toBe(true);
      });
    }
    expect(checked).toBeGreaterThan(500);
  });
});
