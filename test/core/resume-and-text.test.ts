import { describe, expect, it } from 'vitest';
import { DEFAULT_EXEC_TEMPLATES, DEFAULT_RESUME_TEMPLATES, resumeCommand } from '../../src/core/resume.js';
import { oneLine, stripAll, stripControl } from '../../src/core/text.js';
import { checkForkTurn, ForkRangeError } from '../../src/core/errors.js';
import { uuidv4, uuidv7 } from '../../src/core/ids.js';
import { promptOpening } from '../../src/core/model.js';

const codex = { id: '01a200ed-500e-74e1-88bc-7c2f05604fd8', agent: 'codex' as const, path: '/h/.codex/r.jsonl', cwd: '/src/api' };
const claude = { id: '5a1999c3-3fef-4a8c-8969-b584a1892bda', agent: 'claude' as const, path: '/h/.claude/p/x.jsonl', cwd: '/src/api' };
const claw = { id: 'session-1-0', agent: 'claw' as const, path: '/ws/.claw/sessions/s.jsonl', cwd: '/ws' };

describe('resumeCommand', () => {
  it.each([
    [codex, DEFAULT_RESUME_TEMPLATES, {}, ['codex', 'resume', codex.id]],
    [claude, DEFAULT_RESUME_TEMPLATES, {}, ['claude', '--resume', claude.id]],
    [claw, DEFAULT_RESUME_TEMPLATES, {}, ['claw', '--resume', claw.path]],
    [codex, DEFAULT_RESUME_TEMPLATES, { extraArgs: ['--model', 'o3'] }, ['codex', 'resume', '--model', 'o3', codex.id]],
    [codex, DEFAULT_EXEC_TEMPLATES, { prompt: 'go on', extraArgs: ['--skip-git-repo-check'] }, ['codex', 'exec', '--skip-git-repo-check', 'resume', codex.id, 'go on']],
    [claude, DEFAULT_EXEC_TEMPLATES, { prompt: 'go on' }, ['claude', '-p', '--resume', claude.id, 'go on']],
    [claude, { ...DEFAULT_RESUME_TEMPLATES, claude: ['/opt/claude', '--resume={id}'] }, { extraArgs: ['-x'] }, ['/opt/claude', `--resume=${claude.id}`, '-x']],
  ] as const)('%#', (session, templates, options, argv) => {
    expect(resumeCommand(session, templates, options)).toEqual({ argv, cwd: session.cwd, env: {} });
  });

  it('points the agent at the home the session was found in, when that is not the one it looks in by itself', () => {
    const defaultHomes = { codex: '/me/.codex', claude: '/me/.claude' };
    expect(resumeCommand({ ...codex, root: '/x/.codex' }, DEFAULT_RESUME_TEMPLATES, { defaultHomes }).env).toEqual({ CODEX_HOME: '/x/.codex' });
    expect(resumeCommand({ ...claude, root: '/x/.claude' }, DEFAULT_RESUME_TEMPLATES, { defaultHomes }).env).toEqual({ CLAUDE_CONFIG_DIR: '/x/.claude' });
    expect(resumeCommand({ ...codex, root: '/me/.codex' }, DEFAULT_RESUME_TEMPLATES, { defaultHomes }).env).toEqual({});
    expect(resumeCommand({ ...claude, root: '/me/.claude' }, DEFAULT_EXEC_TEMPLATES, { defaultHomes, prompt: 'go' }).env).toEqual({});
    // claw resumes a path: no home to point at
    expect(resumeCommand({ ...claw, root: '/ws' }, DEFAULT_RESUME_TEMPLATES, { defaultHomes }).env).toEqual({});
  });
});

describe('stripControl', () => {
  it.each([
    ['plain\ttext\nnext', 'plain\ttext\nnext'],
    ['\u001b[31mred\u001b[0m', 'red'],
    ['title\u001b]0;pwned\u0007 after', 'title after'],
    ['\u001b]8;;http://x\u001b\\link\u001b]8;;\u001b\\', 'link'],
    ['bell\u0007 back\b\u009b2J', 'bell back'],
    // 8-bit C1 introducers: the whole sequence goes, not only the introducer (its payload was shown: `31m0;C1TITLE`)
    ['a\u009b31mred\u009b0m b', 'ared b'],
    ['a\u009d0;C1TITLE\u0007b', 'ab'],
    ['a\u009d0;C1TITLE\u009cb', 'ab'],
    ['a\u0090q$sec\u001b\\b', 'ab'],
    ['a\u009f app \u009cb\u009e pm \u009cc\u0098 sos \u009cd', 'abcd'],
    ['a\u009d8;;http://x\u009clink\u009d8;;\u009c', 'alink'],
    ['never ended\u009d0;title', 'never ended'],
    ['crlf\r\nline', 'crlf\nline'],
  ])('%j', (input, expected) => {
    expect(stripControl(input)).toBe(expected);
  });

  it('returns text as it is only when none of its patterns would change it: every BMP character, alone and in company', () => {
    // stripAll: the whole pipeline, without stripControl's early return.
    const full = stripAll;
    let changed = 0;
    for (let code = 0; code <= 0xffff; code++) {
      if (code >= 0xd800 && code <= 0xdfff) continue;
      const c = String.fromCharCode(code);
      for (const text of [c, `a${c}b`, `👩${c}💻`]) {
        if (stripControl(text) !== full(text)) expect.fail(`U+${code.toString(16)} in ${JSON.stringify(text)}`);
      }
      if (full(`a${c}b`) !== `a${c}b`) changed++;
    }
    // The characters some pattern removes or replaces (C0 and C1 controls, zero-width and bidi characters).
    expect(changed).toBeGreaterThan(60);
  });

  it('oneLine collapses whitespace', () => {
    expect(oneLine('  a\n\n b\t c  ')).toBe('a b c');
  });
});

describe('checkForkTurn', () => {
  it.each([
    [2, 4, true],
    [4, 4, true],
    [1, 4, false],
    // The turn after the last: every turn, the whole conversation.
    [5, 4, true],
    [6, 4, false],
    [2, 1, true],
    [2, 0, false],
    [2.5, 4, false],
  ])('at %s of %s turns', (at, turns, ok) => {
    if (ok) expect(() => checkForkTurn(at, turns)).not.toThrow();
    else expect(() => checkForkTurn(at, turns)).toThrow(ForkRangeError);
  });

  it('says the valid range', () => {
    expect(() => checkForkTurn(7, 4)).toThrow('valid turns are 2..5');
    expect(() => checkForkTurn(2, 0)).toThrow('the session has no user turn');
  });
});

describe('ids', () => {
  it('uuidv7 is time ordered with version 7 and the RFC variant', () => {
    const a = uuidv7(1_700_000_000_000);
    const b = uuidv7(1_700_000_000_001);
    expect(a).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(a.slice(0, 13).replace('-', '')).toBe((1_700_000_000_000).toString(16).padStart(12, '0'));
    expect(a < b).toBe(true);
  });

  it('uuidv4 has version 4', () => {
    expect(uuidv4()).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });
});

describe('promptOpening', () => {
  /** The contract, computed apart: blanks collapsed; past 200 units, whole graphemes while they fit in 199, then `…`. */
  const reference = (text: string, max = 200): string => {
    const line = text.replace(/\s+/g, ' ').trim();
    if (line.length <= max) return line;
    let out = '';
    for (const { segment } of new Intl.Segmenter(undefined, { granularity: 'grapheme' }).segment(line)) {
      if (out.length + segment.length > max - 1) break;
      out += segment;
    }
    return `${out.trimEnd()}…`;
  };
  it.each([
    ['short text with  runs\n\nof blanks'],
    [`${' '.repeat(5000)}hello   world`],
    ['x'.repeat(3000)],
    ['x'.repeat(200)],
    ['x'.repeat(201)],
    [`${'x'.repeat(200)}${' '.repeat(3000)}`],
    [`${'x'.repeat(200)}${' '.repeat(3000)}y`],
    ['word '.repeat(1000)],
    [`${'\n'.repeat(1599)}z${' y'.repeat(300)}`],
    [`${'a'.repeat(1599)} ${'b'.repeat(10)}`],
    [''],
    // a letter and its combining accent across the cut, a surrogate pair, a flag, a ZWJ sequence
    [`${'x'.repeat(198)}e\u0301${'x'.repeat(10)}`],
    [`${'x'.repeat(197)}e\u0301\u0301${'x'.repeat(10)}`],
    [`${'x'.repeat(198)}🎉${'x'.repeat(10)}`],
    [`${'x'.repeat(197)}🇫🇷${'x'.repeat(10)}`],
    [`${'x'.repeat(193)}👩‍👩‍👧‍👦${'x'.repeat(10)}`],
    ['🎉'.repeat(150)],
    [`x${'🎉'.repeat(150)}`],
    ['日本語のプロンプト'.repeat(40)],
  ])('collapses blanks and cuts past 200 units between two characters, with …, reading only the opening of long texts (%#)', (text) => {
    const opening = promptOpening(text);
    expect(opening).toBe(reference(text));
    expect(opening.length).toBeLessThanOrEqual(200);
    expect(opening).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/); // no half surrogate pair
  });
});
