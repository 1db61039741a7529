// `sessions` with no command: the interactive browser. Its first screen is painted from the cache before Ink loads;
// its decision (resume a session) is run here once it has exited.
import { homedir } from 'node:os';
import type { Command } from 'commander';
import { sessionInUse } from '../app/in-use.js';
import type { Here } from '../app/place.js';
import { planResume, type ResumeRequest } from '../app/resume.js';
import type { CatalogSession } from '../catalog/scan.js';
import { loadCacheHead } from '../catalog/cache-head.js';
import { chosenHosts, hostContext } from '../remote/hosts.js';
import { trashOf } from './remove.js';
import { cachePathOf, cwd, env, hereOf, locationsFrom, readConfig, warnMissingLocations, type CommonOptions } from './common.js';
import { PROC_DIR, resumeChecked } from './resume-checked.js';
import { runRemote } from './run-plan.js';

/** Commander's own "unknown command 'x' (Did you mean y?)" error, which its typings do not declare. */
interface CommanderUnknownCommand {
  unknownCommand(): never;
}

export async function browse(_options: unknown, command: Command): Promise<void> {
  // `sessions lst`: a word that is no command reaches the browser's action; say so, as commander does.
  if (command.args.length > 0) (command as Command & CommanderUnknownCommand).unknownCommand();
  const options = command.optsWithGlobals<CommonOptions & { all?: boolean }>();
  const locations = locationsFrom(options);
  warnMissingLocations(options); // before the browser takes the screen: seen again when it quits
  const cachePath = cachePathOf(options, locations);
  // The UI code (Ink, React) loads while the cache's first screen is read and painted as plain text.
  const ui = import('../ui/run.js');
  ui.catch(() => undefined); // awaited below; a failure is reported there
  const initialScope = options.all ? 'all' : 'cwd';
  const [prepaint, cacheHead] = await Promise.all([import('../ui/prepaint.js'), loadCacheHead(cachePath)]);
  const { stdout, stdin } = process;
  const first =
    cacheHead && stdout.isTTY && stdin.isTTY
      ? prepaint.firstScreen({ sessions: cacheHead, columns: stdout.columns, rows: stdout.rows, cwd, homeDir: homedir(), now: Date.now(), scope: initialScope, env })
      : null;
  if (first !== null) stdout.write(prepaint.ENTER_ALT_SCREEN + first);
  let runTui;
  try {
    ({ runTui } = await ui);
  } catch (error) {
    if (first !== null) stdout.write(prepaint.LEAVE_ALT_SCREEN);
    throw error;
  }
  const config = readConfig();
  // The browser always shows this machine; --host (or the config's hosts) adds others, read while it is open.
  const hosts = { names: chosenHosts(options.host, config).hosts, context: hostContext(config, env, homedir(), options.cache !== false), refreshMs: config.hostRefresh * 1000 };
  const decision = await runTui({ locations, config, cwd, homeDir: homedir(), cachePath, cacheHead, initialScope, screenEntered: first !== null, hosts, trash: trashOf(options.home) });
  if (decision.kind === 'resume') {
    const remote = decision.remote;
    process.exitCode = remote
      ? await runRemote(remote.argv)
      : await resumeLocal(decision.session, hereOf({ locations }, config), decision.here ? { here: cwd } : {}, decision.inUseAnswered === true);
  }
}

/**
 * The browser's Enter on this machine's row. The browser asked already when the session looked open in an agent
 * (`answered`: resume it anyway, or it is the fork chosen instead); when it did not (it asked about the directory),
 * the check runs now, as `sessions resume`'s.
 */
async function resumeLocal(session: CatalogSession, here: Here, request: ResumeRequest, answered: boolean): Promise<number> {
  const place = { kind: 'local' } as const;
  const plan = planResume(session, place, here, request);
  const inUse = answered ? null : await sessionInUse(session, { procDir: PROC_DIR });
  return resumeChecked({ session, place }, here, plan, request, inUse);
}
