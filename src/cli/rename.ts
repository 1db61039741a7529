// `sessions rename ID NAME`: the name written where the agent itself reads it, so its own picker shows it too.
import type { Command } from 'commander';
import { resolveOne } from '../app/list.js';
import { renameSession } from '../app/rename.js';
import { ADAPTER_LIST } from '../core/formats/index.js';
import { safeLine } from '../core/text.js';
import { hereOf, listSetup, readConfig, warn, warnMissingLocations, withLocations, type CommonOptions } from './common.js';

export function renameCommand(program: Command): void {
  withLocations(program.command('rename'))
    .description("name a session the agent's own way: its own picker and sessions list show the name")
    .argument('<id>', 'session id, unique id prefix, name, or path')
    .argument('<name>', 'the new name (one line)')
    .option('--json', 'print the renamed row {agent, id, title, name, path} as JSON')
    .addHelpText(
      'after',
      `
Where the name goes (what the agent's own rename writes; the conversation's lines are never rewritten):
${ADAPTER_LIST.map((adapter) => `  ${adapter.label}: ${adapter.rename?.where ?? 'keeps no name for a session: refused'}`).join('\n')}

Examples:
  sessions rename 01a200ed-60a4 "health endpoint"    name the Codex session (codex resume lists it so)
  sessions rename 5a1999c3 "request lifecycle" --json`,
    )
    .action(async (id: string, name: string, _options: unknown, command: Command) => {
      const options = command.optsWithGlobals<CommonOptions>();
      const config = readConfig();
      const setup = listSetup(options, config);
      if (setup.local) warnMissingLocations(options);
      const found = await resolveOne(setup, id);
      const renamed = await renameSession(found.session, found.place, { ...hereOf(setup, config, found), cache: () => found.cache }, { name });
      await found.cache?.save().catch(() => undefined);
      const { row } = renamed;
      if (options.json) {
        process.stdout.write(`${JSON.stringify({ agent: row.agent, id: row.id, title: row.title, name: row.name ?? null, path: row.path }, null, 2)}\n`);
        return;
      }
      process.stdout.write(`${safeLine(row.id)}\t${safeLine(row.title)}\n`);
      warn(`renamed ${row.agent} session ${safeLine(row.id)}\n`);
    });
}
