// `sessions rm ID` and `sessions restore [ID]`: a session moved to the trash whole, and put back byte for byte.
import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import type { Command } from 'commander';
import { PROC_DIR } from '../app/in-use.js';
import { resolveOne } from '../app/list.js';
import { deletedSessions, removeSession, restoreSession, type Trash, type TrashEntry } from '../app/remove.js';
import { safeLine } from '../core/text.js';
import { env, listSetup, readConfig, warn, warnMissingLocations, withLocations, type CommonOptions } from './common.js';

/** `--home DIR`'s `.local/share`, else `$XDG_DATA_HOME` (an absolute one), else `~/.local/share`: where the freedesktop trash is. */
export function trashOf(home: string | undefined): Trash {
  if (home !== undefined) return { dataHome: join(resolve(home), '.local', 'share') };
  const data = env.XDG_DATA_HOME;
  return { dataHome: data !== undefined && isAbsolute(data) ? data : join(homedir(), '.local', 'share') };
}

function entryJson(entry: TrashEntry): Record<string, unknown> {
  return { agent: entry.agent, id: entry.id, title: entry.title, deletedAt: entry.deletedAt, paths: entry.items.map((item) => item.original), trashed: entry.items.map((item) => item.trashed), ...(entry.rows ? { store: entry.rows.store } : {}) };
}

export function removeCommands(program: Command): void {
  withLocations(program.command('rm'))
    .description("move a session to the trash: its files and folders whole, or its rows of the agent's database")
    .argument('<id>', 'session id, unique id prefix, name, or path')
    .option('--force', 'delete it even though a running process holds its files open')
    .option('--json', 'print {agent, id, title, deletedAt, paths, trashed, store} as JSON')
    .addHelpText(
      'after',
      `
Files and folders go to the freedesktop trash ($XDG_DATA_HOME/Trash, default ~/.local/share/Trash, with
--home DIR DIR/.local/share/Trash: files/ and
info/*.trashinfo, so a desktop's trash shows them too), the session's folder of sub-agents and sidecars with
its file; an opencode session's rows leave opencode.db in one transaction and are kept in
$XDG_DATA_HOME/sessions/trash/. \`sessions restore\` puts the last one (or one by id) back, byte for byte.
A session a running process holds open (an agent still in it) is refused unless --force.

Examples:
  sessions rm 01a200ed-60a4             move the Codex session to the trash
  sessions rm 5a1999c3 --json`,
    )
    .action(async (id: string, _options: unknown, command: Command) => {
      const options = command.optsWithGlobals<CommonOptions & { force?: boolean }>();
      const config = readConfig();
      const setup = listSetup(options, config);
      if (setup.local) warnMissingLocations(options);
      const found = await resolveOne(setup, id);
      const removed = await removeSession(found.session, found.place, { trash: trashOf(options.home), force: options.force === true, procDir: PROC_DIR });
      if (removed.warning !== undefined) warn(`sessions: warning: ${removed.warning}\n`);
      const { entry } = removed;
      if (options.json) {
        process.stdout.write(`${JSON.stringify(entryJson(entry), null, 2)}\n`);
        return;
      }
      process.stdout.write(`${safeLine(entry.id)}\n`);
      warn(`moved ${entry.agent} session ${safeLine(entry.id)} to the trash (${entry.rows ? 'its rows' : entry.items.map((item) => safeLine(item.trashed)).join(', ')}); undo: sessions restore ${safeLine(entry.id)}\n`);
    });

  // The location options, as on every command: --home DIR is the home whose trash is read (the others are not used).
  withLocations(program.command('restore'))
    .description('put a session deleted with rm back where it was, byte for byte (without ID: the last one deleted)')
    .argument('[id]', 'the deleted session id, or a unique prefix of it')
    .option('--list', 'list the deleted sessions that can be restored, oldest first')
    .option('--json', 'print the restored session (or, with --list, every one) as JSON')
    .addHelpText(
      'after',
      `
With --home DIR, the trash of DIR/.local/share (as rm --home DIR used). Refused, with nothing moved, when a file is back in the session's place or (opencode) the session is in
opencode.db again.

Examples:
  sessions restore --list               the sessions deleted with sessions rm
  sessions restore                      put back the session deleted last`,
    )
    .action(async (id: string | undefined, _options: unknown, command: Command) => {
      const options = command.optsWithGlobals<CommonOptions & { list?: boolean }>();
      const trash = trashOf(options.home);
      if (options.list) {
        const entries = await deletedSessions(trash);
        if (options.json) process.stdout.write(`${JSON.stringify(entries.map(entryJson), null, 2)}\n`);
        else for (const entry of entries) process.stdout.write(`${entry.deletedAt}  ${entry.agent.padEnd(8)} ${safeLine(entry.id)}  ${safeLine(entry.title)}\n`);
        return;
      }
      const entry = await restoreSession(trash, id);
      if (options.json) {
        process.stdout.write(`${JSON.stringify(entryJson(entry), null, 2)}\n`);
        return;
      }
      process.stdout.write(`${safeLine(entry.id)}\n`);
      warn(`restored ${entry.agent} session ${safeLine(entry.id)}\n`);
    });
}
