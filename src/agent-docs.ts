import { ADAPTER_LIST } from './core/formats/index.js';

/*
 * docs/agents.md's per-agent tables, made from the adapter registry: an agent added to the registry shows up in them,
 * and test/catalog/registry.test.ts fails while docs/agents.md still holds the old text (SESSIONS_WRITE_DOCS=1 rewrites it).
 */

/** The tables docs/agents.md holds between `<!-- agents:NAME -->` and `<!-- /agents:NAME -->`. */
export function agentDocTables(): Readonly<Record<'locations' | 'resume', string>> {
  const locations = [
    '| agent | where | options |',
    '| --- | --- | --- |',
    ...ADAPTER_LIST.map((adapter) => `| ${adapter.label} | ${adapter.locations.readme.where} | ${adapter.locations.readme.options} |`),
  ];
  const argv = (parts: readonly string[]): string => `\`${parts.join(' ')}\``;
  const resume = [
    '| agent | interactive (`resume`) | with `--prompt` (`exec`) |',
    '| --- | --- | --- |',
    ...ADAPTER_LIST.map(({ agent, resume: { interactive, exec } }) => {
      const same = interactive.length === exec.length && interactive.every((part, i) => part === exec[i]);
      return `| ${agent} | ${argv(interactive)} | ${same ? 'same' : argv(exec)} |`;
    }),
  ];
  return { locations: locations.join('\n'), resume: resume.join('\n') };
}

/** `doc` (docs/agents.md) with each generated table put between its markers (unchanged when it is already there). */
export function withAgentDocTables(doc: string): string {
  let out = doc;
  for (const [name, table] of Object.entries(agentDocTables())) {
    const open = `<!-- agents:${name} -->`;
    const close = `<!-- /agents:${name} -->`;
    const start = out.indexOf(open);
    const end = out.indexOf(close);
    if (start === -1 || end < start) throw new Error(`docs/agents.md has no ${open} … ${close} section`);
    out = `${out.slice(0, start + open.length)}\n${table}\n${out.slice(end)}`;
  }
  return out;
}
