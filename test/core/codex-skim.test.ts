// The Codex index skims lines a row reads nothing of (tool outputs, events the digest does not read) by their opening
// bytes: each skimmed line must be one whose parse the row would not have used beyond its timestamp (and, for
// review-mode events, its type).
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { skimmedLine } from '../../src/core/formats/codex/collect.js';
import { DIGESTED_EVENTS } from '../../src/core/formats/codex/digest.js';
import { classify } from '../../src/core/formats/codex/lines.js';
import { REVIEW_MODE_EVENTS } from '../../src/core/formats/codex/rules.js';
import { splitLines } from '../../src/core/io/lines.js';

function rollouts(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) rollouts(path, out);
    else if (/^rollout-.*\.jsonl$/.test(name)) out.push(path);
  }
  return out;
}

const ROOT = join(import.meta.dirname, '..', '..');
const FILES = [join(ROOT, 'examples', 'home', '.codex'), ...readdirSync(join(ROOT, 'test', 'fixtures')).map((name) => join(ROOT, 'test', 'fixtures', name, '.codex'))]
  .filter((dir) => existsSync(dir))
  .flatMap((dir) => rollouts(dir));

/** Parsed as the fold would have: what of the line a row reads. */
function rowReads(line: ReturnType<typeof classify>): 'timestamp' | 'review' | 'more' {
  if (line.kind === 'event') return REVIEW_MODE_EVENTS.includes(line.type) ? 'review' : DIGESTED_EVENTS.includes(line.type) ? 'more' : 'timestamp';
  if (line.kind === 'item') return line.type.endsWith('_output') || (line.type === 'message' && line.payload.role === 'developer') ? 'timestamp' : 'more';
  // The digest reads nothing of these kinds (world_state, token_usage_record, …) but the timestamp.
  if (line.kind === 'world_state' || line.kind === 'other') return 'timestamp';
  return 'more';
}

it('skims only lines whose parse a row reads nothing of but the timestamp, on every Codex fixture line', () => {
  expect(FILES.length).toBeGreaterThan(10);
  const skimmedBy = { timestamp: 0, review: 0 };
  for (const path of FILES) {
    for (const raw of splitLines(readFileSync(path))) {
      if (raw.bytes.length === 0) continue;
      const skim = skimmedLine(path, raw);
      let value: unknown;
      try {
        value = JSON.parse(raw.bytes.toString('utf8'));
      } catch {
        continue;
      }
      if (typeof value !== 'object' || value === null || Array.isArray(value)) continue;
      const parsed = classify(path, raw.offset, raw.bytes, value as Record<string, unknown>, raw.offset === 0);
      if (skim === null) continue;
      const reads = rowReads(parsed);
      expect(reads, `${path}@${raw.offset}: ${raw.bytes.toString('utf8', 0, 160)}`).not.toBe('more');
      expect(skim.timestamp).toBe(parsed.timestamp);
      expect(skim.ordinal).toBe(parsed.ordinal);
      if (reads === 'review') expect([skim.kind, skim.type]).toEqual(['event', parsed.type]);
      else expect(skim.kind).toBe('other');
      skimmedBy[reads as 'timestamp' | 'review']++;
    }
  }
  // The fixtures hold many such lines, review-mode events among them: the check is not vacuous.
  expect(skimmedBy.timestamp).toBeGreaterThan(100);
  expect(skimmedBy.review).toBeGreaterThan(0);
});

const line = (text: string) => ({ offset: 0, bytes: Buffer.from(text), terminated: true });

it('parses what it cannot recognise by the opening bytes Codex writes: digested events, other items, other key orders', () => {
  const ts = '"timestamp":"2026-11-22T01:00:00.000Z"';
  expect(skimmedLine('p', line(`{${ts},"type":"event_msg","payload":{"type":"exec_command_end","stdout":"x"}}`))).toMatchObject({ kind: 'other', timestamp: '2026-11-22T01:00:00.000Z' });
  expect(skimmedLine('p', line(`{${ts},"ordinal":42,"type":"response_item","payload":{"type":"function_call_output","output":"x"}}`))).toMatchObject({ kind: 'other', ordinal: 42 });
  expect(skimmedLine('p', line(`{${ts},"type":"event_msg","payload":{"type":"task_complete"}}`))).toMatchObject({ kind: 'event', type: 'task_complete' });
  expect(skimmedLine('p', line(`{${ts},"type":"response_item","payload":{"type":"message","role":"developer","content":[]}}`))).toMatchObject({ kind: 'other' });
  expect(skimmedLine('p', line('{"type":"function_call_output","call_id":"c","output":"x"}'))).toMatchObject({ kind: 'other', timestamp: undefined });
  for (const parsed of [
    `{${ts},"type":"event_msg","payload":{"type":"token_count","info":null}}`,
    `{${ts},"type":"event_msg","payload":{"type":"thread_name_updated","thread_name":"n"}}`,
    `{${ts},"type":"event_msg","payload":{"type":"thread_rolled_back","num_turns":1}}`,
    `{${ts},"type":"response_item","payload":{"type":"message","role":"user","content":[]}}`,
    `{${ts},"type":"response_item","payload":{"type":"function_call","name":"x"}}`,
    `{${ts},"type":"turn_context","payload":{"model":"m"}}`,
    `{${ts},"type":"session_meta","payload":{"id":"x"}}`,
    `{"type":"event_msg",${ts},"payload":{"type":"exec_command_end"}}`,
    `{"timestamp":"2026\\u002d11","type":"world_state","payload":{}}`,
    `{${ts},"ordinal":07,"type":"world_state","payload":{}}`,
    `{${ts},"type":"event_msg","payload":{"stdout":"x","type":"exec_command_end"}}`,
  ]) {
    expect(skimmedLine('p', line(parsed)), parsed).toBeNull();
  }
});
