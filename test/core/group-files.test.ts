import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { claudeAdapter } from '../../src/core/formats/claude/index.js';
import { codexAdapter } from '../../src/core/formats/codex/index.js';

const FIXTURES = fileURLToPath(new URL('../fixtures/', import.meta.url));

// The watcher groups the few files that changed instead of walking the whole root: it must agree with discover.
describe.each([
  ['codex', codexAdapter, join(FIXTURES, 'home', '.codex')],
  ['codex segments and archives', codexAdapter, join(FIXTURES, 'codex-synthetic', '.codex')],
  ['claude', claudeAdapter, join(FIXTURES, 'home', '.claude')],
  ['claude with subagents and sidechains', claudeAdapter, join(FIXTURES, 'claude-synthetic', '.claude')],
] as const)('groupFiles (%s)', (_name, adapter, root) => {
  it('groups every discovered file exactly as discover does', async () => {
    const discovered = await adapter.discover(root, () => undefined);
    const files = discovered.flatMap((group) => group.paths);
    const byId = (a: { idHint: string | null; paths: readonly string[] }, b: { idHint: string | null; paths: readonly string[] }) =>
      `${a.idHint}${a.paths[0]}` < `${b.idHint}${b.paths[0]}` ? -1 : 1;
    expect(adapter.groupFiles!(root, files).sort(byId)).toEqual([...discovered].sort(byId));
  });

  it('leaves out files that are not sessions of the agent', () => {
    expect(adapter.groupFiles!(root, [join(root, 'config.toml'), join(root, 'projects', 'p', 'agent-1.jsonl'), join(root, 'elsewhere', 'x.jsonl')])).toEqual([]);
  });
});
