import Fuse from 'fuse.js';
import { describe, expect, it } from 'vitest';
import { fold, FUSE_OPTIONS, recordFor, SharedFolds, SHORT_OPTIONS, toDoc, type SearchDoc } from '../../src/catalog/search-doc.js';
import { fuseKeeps, fuzzyTest } from '../../src/catalog/search-membership.js';
import { narrows, parseQuery, toExpression, type QueryTerm } from '../../src/catalog/search-query.js';
import { charsOf } from '../../src/catalog/search-doc.js';
import { mayMatch, wordOf } from '../../src/catalog/search-word.js';
import { isCompactSubsequence } from '../../src/catalog/search-prefilter.js';
import { SearchIndex } from '../../src/catalog/search.js';
import type { CatalogSession } from '../../src/catalog/scan.js';
import { catalogSession } from './helpers.js';

// fuseKeeps and fuzzyTest must say what fuse.js says, exactly: the match count is decided by them, the ranking by
// fuse.js. Texts and words are drawn (deterministically) from a few letters so that near misses (one or two
// errors, split words, chunks of long patterns) are frequent.
let seed = 11;
const next = (n: number): number => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % n;
const draw = (length: number, alphabet: string): string => Array.from({ length }, () => alphabet[next(alphabet.length)]).join('');

describe('fuzzyTest: fuse.js bitap, yes or no', () => {
  const options = { keys: ['text'], threshold: 0.3, ignoreLocation: true, useExtendedSearch: true, isCaseSensitive: true, minMatchCharLength: 1, includeMatches: true };

  it.each([
    ['short words and texts', 3, 9, 0, 30],
    ['words of 4 to 12 letters', 4, 9, 4, 60],
    ['words longer than one chunk of 32', 28, 50, 20, 120],
    // Long texts are read around their occurrences of the word's pieces only: in few letters (pieces everywhere,
    // windows joined) and in many (windows apart).
    ['words of 4 to 12 letters in long texts', 4, 9, 60, 400],
    ['words of 4 to 12 letters in long texts of many letters', 4, 9, 60, 400, 'abcdefghijklmnopqrstuvwxyz -'],
  ])('%s', (_, minWord, wordSpread, minText, textSpread, letters = 'pleasrt -') => {
    const texts = Array.from({ length: 200 }, () => draw(minText + next(textSpread), letters));
    const fuse = new Fuse(texts.map((text) => ({ text })), options);
    let kept = 0;
    let dropped = 0;
    for (let w = 0; w < 150; w++) {
      // Half the words taken from a text with a letter or two changed: matches with errors.
      let word = draw(minWord + next(wordSpread), 'pleasrt');
      if (w % 2 === 0) {
        const text = texts[next(texts.length)]!;
        const start = next(Math.max(1, text.length - word.length));
        const chars = [...text.slice(start, start + word.length).replace(/[ -]/g, 'a')];
        for (let e = next(3); e > 0 && chars.length > 1; e--) chars[next(chars.length)] = 'pleasrt'[next(7)]!;
        if (chars.length > 0) word = chars.join('');
      }
      const expected = new Set(fuse.search(`"${word}"`).map((result) => result.refIndex));
      const test = fuzzyTest(word);
      texts.forEach((text, i) => {
        if (text.trim() === '') return; // fuse.js indexes no blank text
        expect(test(text), `${JSON.stringify(word)} in ${JSON.stringify(text)}`).toBe(expected.has(i));
        if (expected.has(i)) kept++;
        else dropped++;
      });
    }
    expect(kept).toBeGreaterThan(50);
    expect(dropped).toBeGreaterThan(200);
  });
});

describe('what a field lacking some of a word\'s characters is spared', () => {
  // mayMatch is a necessary condition: a field it rules out is one fuse.js's test does not keep, for every kind of word.
  it('rules out no field fuse.js\'s test keeps', () => {
    let ruledOut = 0;
    for (let w = 0; w < 300; w++) {
      const raw = draw(1 + next(w % 3 === 0 ? 40 : 9), 'pleasrtx');
      const text = ['', "'", '^', ''][next(4)] + raw + (next(4) === 0 ? '$' : '');
      const term = parseQuery(text, fold).groups[0]![0]!;
      const word = wordOf(term);
      for (let f = 0; f < 40; f++) {
        const field = draw(next(30), 'pleasrtxy -');
        if (mayMatch(word, charsOf(field))) continue;
        ruledOut++;
        const kept = term.kind === 'fuzzy' ? fuzzyTest(term.text)(field) : term.kind === 'include' ? field.includes(term.text) : term.kind === 'prefix' ? field.startsWith(term.text) : term.kind === 'suffix' ? field.endsWith(term.text) : field === term.text;
        expect(kept, `${text} in ${JSON.stringify(field)}`).toBe(false);
      }
    }
    expect(ruledOut).toBeGreaterThan(1000);
  });
});

describe('narrows: when the last query\'s candidates hold every match of the next', () => {
  it('not when a fuzzy word grows to three letters or more (subsequences of short fields count, in a window a letter widens)', () => {
    expect(narrows('dp', 'dpl', fold)).toBe(false);
    expect(narrows('x dp', 'x dplo', fold)).toBe(false);
    expect(narrows('dep', 'depl', fold)).toBe(false);
    expect(narrows('dep', 'dep p', fold)).toBe(true);
    expect(narrows("'dep", "'depl", fold)).toBe(true);
    expect(narrows('de', 'de p', fold)).toBe(true);
    expect(narrows('d', 'de', fold)).toBe(true);
    expect(narrows("'de", "'dep", fold)).toBe(true);
    expect(narrows('de', 'de$', fold)).toBe(true);
  });
});

describe('fuseKeeps: the documents fuse.js keeps for a query', () => {
  const words = ['deploy', 'parser', 'cache', 'module', 'widget', 'rate', 'limiter', 'sidebar'];
  const pick = (): string => words[next(words.length)]!;
  // Misspelt words, split words and runs of letters: most fields are near misses of the queries' words.
  const phrase = (): string => Array.from({ length: 1 + next(4) }, () => (next(3) === 0 ? draw(3 + next(6), 'deploymatrcsh') : pick())).join(next(2) ? ' ' : '-');
  const sessionOf = (i: number): CatalogSession => {
    const prompts = Array.from({ length: next(4) }, () => (next(5) === 0 ? ' ' : phrase()));
    const title = next(2) ? (prompts[0] ?? phrase()) : phrase();
    // A few sessions with text past Latin-1: the haystack keeps them apart (search-haystack.ts).
    if (next(7) === 0) prompts.push(`ünï ${phrase()} 项目`);
    return catalogSession({ id: `id-${i}-${draw(4, 'abcdef0123')}`, title, name: next(5) === 0 ? phrase() : null, prompts, cwd: `/src/${phrase()}`, gitBranch: next(3) === 0 ? `feat/${phrase()}` : null });
  };
  const sessions = Array.from({ length: 400 }, (_, i) => sessionOf(i));
  const docs: SearchDoc[] = sessions.map((session, i) => toDoc(session, `k${i}`, i, new SharedFolds()));
  const queries = [
    'deploy', 'dploy', 'deplyo', 'parsr', 'cahce', 'modul', 'widgte', 'rte', 'limitter', 'sidbar', 'deploymatrcsh',
    'dep parse', "'cache dploy", '^deploy', '^cach', 'limiter$', 'modle$', '^widget$', 'rate | sidbar', 'dploy !cache', 'xyzzyq',
    'a-very-long-pattern-of-more-than-thirty-two-letters-deploy',
  ];

  it.each(queries)('%s', (text) => {
    const query = parseQuery(text, fold);
    for (const [broad, options] of [[false, FUSE_OPTIONS], [true, SHORT_OPTIONS]] as const) {
      const index = Fuse.parseIndex<SearchDoc>({ keys: Fuse.createIndex(options.keys ?? [], [] as SearchDoc[]).keys, records: docs.map((doc, slot) => recordFor(options, doc, slot)) });
      const expected = new Set(query.groups.length === 0 ? [] : new Fuse(docs, options, index).search(toExpression(query)).map((result) => result.refIndex));
      const found = new Set(docs.flatMap((doc, slot) => (query.groups.length > 0 && fuseKeeps(doc, query, broad) ? [slot] : [])));
      expect(found, `${text}, ${broad ? 'short fields' : 'every field'}`).toEqual(expected);
    }
  });

  // The count is what the walk over the catalog decides (the prefilter, over the haystack's sweeps for a pool of most
  // of the catalog, then fuseKeeps): every query's matches must be what fuse.js keeps over every session, less those
  // holding an excluded word in some field. The same after the catalog changed (the haystack answers for what it
  // holds and asks the changed sessions themselves) and once it is built again.
  describe('the matches of a search: what fuse.js keeps over the whole catalog', () => {
    const queries = ['deploy', 'dploy', 'deplyo', 'parsr', 'cahce', 'modul', 'widgte', 'limitter', 'sidbar', 'deploymatrcsh', 'dep parse', "'cache dploy", '^deploy', 'limiter$', 'rate | sidbar', 'dploy !cache', 'xyzzyq', 'ünï', '项目', 'dep', 'mat'];
    const fields = (session: CatalogSession): string[] => [session.title, session.name ?? '', ...session.prompts, session.cwd ?? '', session.gitBranch ?? '', session.id, session.agent, session.model ?? ''].map(fold);
    const shortFields = (session: CatalogSession): string[] => [session.title, session.name ?? '', session.cwd ?? '', session.gitBranch ?? '', session.id, session.agent, session.model ?? ''].map(fold);
    // A plain word must also be in the session's text, or (fuzzy, three letters or more) a compact subsequence of a
    // short field: the search's own rule (search.ts), which fuse.js alone does not make.
    const inText = (session: CatalogSession, term: QueryTerm): boolean =>
      (term.kind !== 'fuzzy' && term.kind !== 'include') || fields(session).some((field) => field.includes(term.text)) || (term.kind === 'fuzzy' && term.text.length > 2 && shortFields(session).some((field) => isCompactSubsequence(term.text, field)));
    const expected = (catalog: readonly CatalogSession[], text: string): string[] => {
      const query = parseQuery(text, fold);
      const catalogDocs = catalog.map((session, i) => toDoc(session, `k${i}`, i, new SharedFolds()));
      const kept = new Fuse(catalogDocs, FUSE_OPTIONS).search(toExpression(query)).map((result) => catalog[result.refIndex]!);
      return kept
        .filter((session) => query.groups.every((group) => group.some((term) => inText(session, term))))
        .filter((session) => !query.excluded.some((term) => fields(session).some((field) => field.includes(term.text))))
        .map((session) => session.id)
        .sort();
    };
    const found = (index: SearchIndex, text: string): string[] => {
      const run = index.begin(text);
      while (run.count === null) run.step(5);
      const ids = run.matches().map((hit) => hit.session!.id).sort();
      expect(ids).toHaveLength(run.count);
      return ids;
    };
    const check = (index: SearchIndex, catalog: readonly CatalogSession[]): void => {
      for (const text of queries) expect(found(index, text), text).toEqual(expected(catalog, text));
    };

    it('over the haystack built for the catalog', () => {
      check(new SearchIndex(sessions), sessions);
    });

    // Typed one key at a time, each query narrows the last one's candidates (a pool too small to sweep: each
    // document asked), and the fields sessions share are asked once per group of them: sessions here share a few
    // cwds and branches, one of which holds a query's letters in order.
    it('typed one key at a time, over sessions sharing their cwds and branches', () => {
      const cwds = ['/src/deploy-tools', '/src/d-e-p-l-o-y', '/work/sidebar', `/src/${phrase()}`, `/src/${phrase()}`];
      const branches = ['main', 'feat/dploy', 'fix/limiter', null];
      const catalog = Array.from({ length: 300 }, (_, i) => ({ ...sessionOf(500 + i), cwd: cwds[next(cwds.length)]!, gitBranch: branches[next(branches.length)]! }));
      const index = new SearchIndex(catalog);
      for (const text of ['deploy', 'dploy', 'deplyo', 'limitter', 'sidbar', 'dep parse', 'dploy !cache', 'mat']) {
        for (let i = 1; i <= text.length; i++) {
          const prefix = text.slice(0, i);
          if (prefix.endsWith(' ') || prefix.endsWith('!')) continue;
          expect(found(index, prefix), prefix).toEqual(expected(catalog, prefix));
        }
      }
    });

    // A word of three letters or more is also a subsequence of a short field within twice its length and two: a
    // letter more widens that window, so `depl` keeps a title whose `dep` spans one letter too many for `dep`.
    it('typed one key at a time, a longer word finds what its prefix’s window left out', () => {
      const catalog = [catalogSession({ id: 'wide', title: 'dxpl', cwd: '/src/dxxxexxxpl', prompts: [] }), ...sessions.slice(0, 50)];
      const index = new SearchIndex(catalog);
      for (const prefix of ['d', 'de', 'dep', 'depl']) expect(found(index, prefix), prefix).toEqual(expected(catalog, prefix));
      expect(found(index, 'depl')).toContain('wide');
    });

    it('after turns appended, sessions added, renamed and removed, and once the haystack is built again', () => {
      const index = new SearchIndex(sessions);
      let catalog = sessions;
      // A watched append: a session's row with one more prompt; a new session; a removal; a new title.
      catalog = catalog.map((session, i) => (i === 3 ? { ...session, prompts: [...session.prompts, 'now deploy the widget'] } : i === 5 ? { ...session, title: 'sidebar deploy' } : session));
      catalog = [sessionOf(400), ...catalog.filter((_, i) => i !== 7)];
      index.setSessions(catalog);
      check(index, catalog);
      expect(found(index, 'widget').includes(sessions[3]!.id)).toBe(true);
      expect(found(index, 'sidebar')).toContain(sessions[5]!.id);
      // Enough changes that the haystack is built again: every session new.
      catalog = catalog.map((session, i) => ({ ...session, prompts: [...session.prompts, phrase()], id: `${session.id}-${i}` }));
      index.setSessions(catalog);
      check(index, catalog);
    });
  });
});
