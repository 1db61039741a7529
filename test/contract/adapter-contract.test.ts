// The adapter contract: every adapter of the registry, run against its agent's fixture (test/fixtures/contract/<agent>/),
// must discover, fold the row, read the transcript, fork at every turn, resume, and hand off to and from every other
// agent. A registered agent without a fixture, or an adapter with one of these half done, fails here.
import { mkdir, mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { removeSession, restoreSession } from '../../src/app/remove.js';
import { handoffHomes } from '../../src/catalog/handoff-homes.js';
import { ForkRangeError } from '../../src/core/errors.js';
import { ADAPTER_LIST, ADAPTERS } from '../../src/core/formats/index.js';
import type { FormatAdapter, SessionFileGroup } from '../../src/core/formats/types.js';
import { HANDOFF_TARGETS, handOff } from '../../src/core/handoff/index.js';
import type { Agent, Message, SessionSummary } from '../../src/core/model.js';
import { DEFAULT_EXEC_TEMPLATES, DEFAULT_RESUME_TEMPLATES, resumeCommand } from '../../src/core/resume.js';
import { withReadOnly } from '../../src/core/io/sqlite.js';
import { sha256File } from '../helpers/files.js';
import {
  contextFor,
  contractFixtureAgents,
  copyRoot,
  promptsOf,
  readExpectation,
  recordHolds,
  recordsOf,
  said,
  sessionGroup,
  type ContractExpectation,
} from './fixtures.js';

const NOW = new Date('2026-11-27T09:30:00.000Z');

let tmp: string;
beforeEach(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'sessions-contract-'));
});
afterEach(async () => {
  await rm(tmp, { recursive: true, force: true });
});

describe('contract fixtures', () => {
  it('every registered agent has a fixture, and every fixture is of a registered agent', async () => {
    expect(await contractFixtureAgents()).toEqual(ADAPTER_LIST.map((adapter) => adapter.agent).sort());
  });
});

/** A copy of the agent's fixture root in this test's temp folder, and its session's group. */
async function setUp(adapter: FormatAdapter, expectation: ContractExpectation, into = join(tmp, adapter.agent)): Promise<{ root: string; group: SessionFileGroup }> {
  const root = await copyRoot(adapter.agent, expectation, into);
  return { root, group: await sessionGroup(adapter, root, expectation) };
}

async function rowOf(adapter: FormatAdapter, group: SessionFileGroup, root: string): Promise<SessionSummary> {
  const row = await adapter.readSummary(group, await contextFor(adapter, root));
  if (row === null) throw new Error(`${adapter.agent}: no row for ${group.paths.join(', ')}`);
  return row;
}

for (const adapter of ADAPTER_LIST) {
  describe(`${adapter.agent} adapter contract`, () => {
    let expectation: ContractExpectation;
    beforeEach(async () => {
      expectation = await readExpectation(adapter.agent);
    });

    it('discovers its files under its root, and the watcher groups them the same way', async () => {
      const root = await copyRoot(adapter.agent, expectation, tmp);
      if (adapter.discovery?.isRoot) expect(await adapter.discovery.isRoot(root)).toBe(true);
      const groups = await adapter.discover(root, () => undefined);
      const relative = (group: SessionFileGroup): string[] => group.paths.map((path) => path.slice(root.length + 1));
      expect(groups.map(relative).sort()).toEqual([...expectation.discovered].map((files) => [...files]).sort());
      expect(groups.every((group) => group.agent === adapter.agent && group.root === root)).toBe(true);
      const regrouped = adapter.groupFiles(root, groups.flatMap((group) => group.paths));
      expect(regrouped.map(relative).sort()).toEqual(groups.map(relative).sort());
    });

    it('folds the row the fixture declares, the same through indexSession', async () => {
      const { root, group } = await setUp(adapter, expectation);
      const { session } = expectation;
      const row = await rowOf(adapter, group, root);
      expect(row).toMatchObject({
        agent: adapter.agent,
        id: session.id,
        userTurns: session.userTurns,
        firstPrompt: session.firstPrompt,
        lastPrompt: session.lastPrompt,
        cwd: session.cwd,
        title: session.title,
      });
      expect(row.id).toMatch(adapter.idShape.pattern);
      const indexed = await adapter.indexSession(group, await contextFor(adapter, root));
      expect(indexed.summary).toMatchObject({ id: session.id, userTurns: session.userTurns, firstPrompt: session.firstPrompt, lastPrompt: session.lastPrompt, title: session.title });
      if (adapter.store) {
        const rows = await adapter.store.readRows({ ...group, idHint: null }, await contextFor(adapter, root));
        expect(rows.find((one) => one.id === session.id)).toMatchObject({ userTurns: session.userTurns, title: session.title });
      }
    });

    it('reads the transcript: every user prompt, whole, in order, however it is read', async () => {
      const { root, group } = await setUp(adapter, expectation);
      const context = await contextFor(adapter, root);
      const transcript = await adapter.readSession(group, context);
      expect(transcript.id).toBe(expectation.session.id);
      expect(promptsOf(transcript.messages)).toEqual(expectation.session.prompts);
      if (adapter.streamMessages) {
        const stream = adapter.streamMessages(group, context);
        if (stream !== null) {
          const streamed: Message[] = [];
          for await (const batch of stream.messages) streamed.push(...batch);
          expect(promptsOf(streamed)).toEqual(expectation.session.prompts);
        }
      }
      if (adapter.readDisplay) {
        const shown: Message[] = [];
        const sink = { message: (message: Message) => shown.push(message), restart: () => shown.splice(0) };
        await adapter.readDisplay(group, context, { clip: { text: 4096, other: 1024 }, sink });
        expect(promptsOf(shown)).toEqual(expectation.session.prompts);
      }
    });

    it('forks before every turn and whole: a new session of the turns before it, the original untouched', async () => {
      const { root, group } = await setUp(adapter, expectation);
      const { session } = expectation;
      const original = await rowOf(adapter, group, root);
      const before = await Promise.all(group.paths.map(sha256File));
      const whole = await adapter.readSession(group, await contextFor(adapter, root));
      for (const atTurn of [1, session.userTurns + 2]) {
        await expect(adapter.fork(group, { atTurn, now: NOW }, await contextFor(adapter, root))).rejects.toBeInstanceOf(ForkRangeError);
      }
      // Up to userTurns + 1: the whole conversation.
      for (let atTurn = 2; atTurn <= session.userTurns + 1; atTurn++) {
        const result = await adapter.fork(group, { atTurn, now: NOW }, await contextFor(adapter, root));
        expect(result).toMatchObject({ agent: adapter.agent, parentId: session.id, keptUserTurns: atTurn - 1 });
        expect(result.id).toMatch(adapter.idShape.pattern);
        expect(result.id).not.toBe(session.id);
        // Re-read as the catalog finds it: a group of its own under the same root.
        const found = (await adapter.discover(root, () => undefined)).filter((one) => one.paths.includes(result.path));
        expect(found, `fork at ${atTurn} is discovered`).toHaveLength(1);
        const forkGroup = adapter.store ? { ...found[0]!, idHint: result.id } : found[0]!;
        const row = await rowOf(adapter, forkGroup, root);
        expect(row).toMatchObject({ id: result.id, userTurns: atTurn - 1, cwd: session.cwd, firstPrompt: session.firstPrompt });
        // Linked to the original: by its parent's id, or (agents whose forks record none) by the lineage they share.
        expect(row.forkedFrom === session.id || (row.lineage !== undefined && row.lineage === original.lineage)).toBe(true);
        const forked = await adapter.readSession(forkGroup, await contextFor(adapter, root));
        expect(promptsOf(forked.messages)).toEqual(session.prompts.slice(0, atTurn - 1));
        expect(said(forked.messages)).toEqual(said(whole.messages, atTurn));
        if (expectation.fork.keeps === 'lines') await expectKeptLines(expectation, group, result, atTurn);
      }
      // A store's file takes the fork's rows (its other conversations are not this one's bytes); any other file is untouched.
      if (!adapter.store) expect(await Promise.all(group.paths.map(sha256File))).toEqual(before);
      expect(await rowOf(adapter, group, root)).toMatchObject({ id: session.id, userTurns: session.userTurns, lastPrompt: session.lastPrompt });
      expect(said((await adapter.readSession(group, await contextFor(adapter, root))).messages)).toEqual(said(whole.messages));
    });

    it('resumes with its own CLI: the session in argv, in its cwd, pointed at its home when it is not the default', async () => {
      const { root, group } = await setUp(adapter, expectation);
      const row = { ...(await rowOf(adapter, group, root)), root };
      const fill = (parts: readonly string[], prompt = ''): string[] =>
        parts.map((part) => part.replaceAll('{id}', row.id).replaceAll('{path}', row.path).replaceAll('{prompt}', prompt));
      const away = resumeCommand(row, DEFAULT_RESUME_TEMPLATES, { defaultHomes: {} });
      expect(away.argv).toEqual(fill(expectation.resume.interactive));
      expect(away.argv.some((arg) => arg.includes(row.id) || arg === row.path), 'the session is named in argv').toBe(true);
      expect(away.cwd).toBe(expectation.session.cwd);
      const env = Object.fromEntries(Object.entries(expectation.resume.env).map(([name, value]) => [name, resolve(value.replaceAll('{root}', root))]));
      expect(away.env).toEqual(env);
      const atHome = resumeCommand(row, DEFAULT_RESUME_TEMPLATES, { defaultHomes: { [adapter.agent]: root } });
      expect(atHome.env).toEqual({});
      const exec = resumeCommand(row, DEFAULT_EXEC_TEMPLATES, { prompt: 'go on --now', extraArgs: ['--x'] });
      expect(exec.argv.filter((arg) => arg !== '--x')).toEqual(fill(expectation.resume.exec, 'go on --now'));
      expect(exec.argv).toContain('--x');
    });

    describe('hands off to and from every other agent', () => {
      for (const other of ADAPTER_LIST.filter((one) => one.agent !== adapter.agent)) {
        it(`to ${other.agent}`, async () => handOffAndReadBack(adapter, other));
        it(`from ${other.agent}`, async () => handOffAndReadBack(other, adapter));
      }
    });

    describe('rename and delete, where the agent supports them', () => {
      it("renames the session where the agent reads names: the row is titled by the new name, the conversation unchanged", async () => {
        const writes = expectation.rename;
        if ('none' in writes) {
          expect(adapter.rename, `${adapter.agent} declares no name field (${writes.none})`).toBeUndefined();
          return;
        }
        expect(adapter.rename, `${adapter.agent} has a rename (its fixture says where the name goes)`).toBeDefined();
        const { root, group } = await setUp(adapter, expectation);
        const { session } = expectation;
        const before = said((await adapter.readSession(group, await contextFor(adapter, root))).messages);
        // Twice: the newest name wins (names are appended or replaced, never merged), whatever its characters.
        for (const name of ['first name', 'Checkout: "fix" the 500 – café ☕']) {
          await adapter.rename!.write(group, session.id, name, NOW);
          const again = await sessionGroup(adapter, root, expectation);
          expect(await rowOf(adapter, again, root)).toMatchObject({ id: session.id, title: name, userTurns: session.userTurns, firstPrompt: session.firstPrompt, lastPrompt: session.lastPrompt });
          const indexed = await adapter.indexSession(again, await contextFor(adapter, root));
          expect(indexed.summary?.title).toBe(name);
          if ('file' in writes) {
            const text = await readFile(join(root, writes.file), 'utf8');
            expect(text).toContain(writes.holds.replaceAll('{name}', JSON.stringify(name).slice(1, -1)));
          } else {
            const title = withReadOnly(join(root, writes.sqlite), (db) => db.prepare(writes.query).pluck().get(session.id));
            expect(title).toBe(name);
          }
        }
        const after = await adapter.readSession(await sessionGroup(adapter, root, expectation), await contextFor(adapter, root));
        expect(promptsOf(after.messages)).toEqual(session.prompts);
        expect(said(after.messages)).toEqual(before);
      });
      it('deletes the session to the trash (no longer discovered), and restores it byte for byte', async () => {
        const { root, group } = await setUp(adapter, expectation);
        const { session } = expectation;
        const row = { ...(await rowOf(adapter, group, root)), root };
        const trash = { dataHome: join(tmp, 'data') };
        const before = await treeHashes(root);
        const rowsBefore = adapter.store ? await adapter.store.rowsOf(row.path, session.id) : null;
        const removed = await removeSession(row, { kind: 'local' }, { trash, procDir: null, now: NOW });
        expect(removed.entry).toMatchObject({ agent: adapter.agent, id: session.id });
        const found = await adapter.discover(root, () => undefined);
        if (adapter.store) {
          const rows = await Promise.all(found.map(async (one) => adapter.store!.readRows(one, await contextFor(adapter, root))));
          expect(rows.flat().map((one) => one.id)).not.toContain(session.id);
        } else {
          expect(found.filter((one) => one.paths.some((path) => group.paths.includes(path)))).toEqual([]);
          for (const path of group.paths) await expect(stat(path)).rejects.toThrow();
          // Only the session's own files left: every other file is where it was, unchanged.
          const left = await treeHashes(root);
          for (const [path, hash] of left) expect(before.get(path), path).toBe(hash);
        }
        const restored = await restoreSession(trash);
        expect(restored.id).toBe(session.id);
        if (adapter.store) expect(await adapter.store.rowsOf(row.path, session.id)).toBe(rowsBefore);
        else expect(await treeHashes(root)).toEqual(before);
        expect(await rowOf(adapter, await sessionGroup(adapter, root, expectation), root)).toMatchObject({ id: session.id, userTurns: session.userTurns, title: session.title });
        await expect(restoreSession(trash)).rejects.toThrow(/no session deleted/);
      });
    });
  });
}

/**
 * Line by line, a fork keeps the original's bytes: with the fork's id read as the original's (and the declared metadata
 * keys out), its lines are the original's from `dropsHead` on, in order, up to where the cut turn starts.
 */
async function expectKeptLines(expectation: ContractExpectation, group: SessionFileGroup, result: { id: string; path: string }, atTurn: number): Promise<void> {
  if (expectation.fork.keeps !== 'lines') return;
  const { dropsHead, addsRecords, metadataKeys = [] } = expectation.fork;
  const original = recordsOf(await readFile(group.paths.at(-1)!, 'utf8'), metadataKeys);
  const fork = recordsOf((await readFile(result.path, 'utf8')).replaceAll(result.id, expectation.session.id), metadataKeys);
  const kept: number[] = [];
  let added = 0;
  for (const record of fork) {
    const at = original.indexOf(record, (kept.at(-1) ?? -1) + 1);
    if (at < 0) added++;
    else kept.push(at);
  }
  expect(added, `lines a fork at ${atTurn} adds`).toBe(addsRecords);
  const cut = dropsHead + kept.length;
  expect(kept, `a fork at ${atTurn} keeps lines ${dropsHead}..${cut - 1} in order`).toEqual(Array.from({ length: kept.length }, (_, i) => dropsHead + i));
  const prompts = expectation.session.prompts;
  // The cut is where the turn starts: the prompts before it are in the kept lines, its own is after them.
  for (const prompt of prompts.slice(0, atTurn - 1)) expect(original.slice(dropsHead, cut).some((record) => recordHolds(record, prompt)), prompt).toBe(true);
  const cutTurn = prompts[atTurn - 1];
  if (cutTurn === undefined) return; // the whole conversation: no turn after the cut
  expect(original.slice(cut).some((record) => recordHolds(record, cutTurn))).toBe(true);
  expect(original.slice(dropsHead, cut).some((record) => recordHolds(record, cutTurn))).toBe(false);
}

/** Hand the source fixture's session off to `target` in temp homes, and read it back as the target finds it. */
async function handOffAndReadBack(source: FormatAdapter, target: FormatAdapter): Promise<void> {
  const sourceExpectation = await readExpectation(source.agent);
  const { root, group } = await setUp(source, sourceExpectation, join(tmp, 'source'));
  const session = await source.readSession(group, await contextFor(source, root));
  const cwd = join(tmp, 'work', 'project ü');
  await mkdir(cwd, { recursive: true });
  // The target's home is a copy of its fixture root (a store the agent must have made is there already).
  const roots = Object.fromEntries(ADAPTER_LIST.map((one) => [one.agent, [] as string[]])) as Record<Agent, string[]>;
  roots[target.agent] = [await copyRoot(target.agent, await readExpectation(target.agent), join(tmp, 'home'))];
  const homes = handoffHomes({ roots, cwd });
  const atTurn = sourceExpectation.session.userTurns;
  expect(HANDOFF_TARGETS, `${target.agent} takes a hand-off (its writer)`).toContain(target.agent);
  const result = await handOff({ ...session, cwd }, { atTurn, to: target.agent, now: NOW }, homes);
  expect(result).toMatchObject({ agent: target.agent, parentId: session.id, keptUserTurns: atTurn - 1 });
  // An agent without a home keeps sessions in the workspace: the cwd is where it looks (as the app does).
  const targetRoot = homes[target.agent] ?? cwd;
  const found = (await target.discover(targetRoot, () => undefined)).filter((one) => one.paths.includes(result.path));
  expect(found, `${target.agent} finds the hand-off under ${targetRoot}`).toHaveLength(1);
  const backGroup = target.store ? { ...found[0]!, idHint: result.id } : found[0]!;
  const back = await target.readSession(backGroup, await contextFor(target, targetRoot));
  expect(back).toMatchObject({ agent: target.agent, id: result.id, cwd });
  expect(promptsOf(back.messages)).toEqual(sourceExpectation.session.prompts.slice(0, atTurn - 1));
  expect(dirname(result.path).startsWith(targetRoot)).toBe(true);
}

/** Every file under `dir` (relative path → sha256). */
async function treeHashes(dir: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) out.set(join(entry.parentPath, entry.name).slice(dir.length + 1), await sha256File(join(entry.parentPath, entry.name)));
  }
  return new Map([...out].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

// ADAPTERS is the registry's other face: it must hold exactly the listed adapters.
describe('the registry', () => {
  it('ADAPTERS and ADAPTER_LIST hold the same adapters', () => {
    expect(Object.values(ADAPTERS)).toEqual(expect.arrayContaining([...ADAPTER_LIST]));
    expect(Object.keys(ADAPTERS).sort()).toEqual(ADAPTER_LIST.map((adapter) => adapter.agent).sort());
  });
});
