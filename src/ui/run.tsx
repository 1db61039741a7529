import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { render, useStdout } from 'ink';
import type { CatalogSession } from '../catalog/scan.js';
import type { Locations } from '../catalog/locations.js';
import type { Config } from '../config.js';
import { PROC_DIR } from '../app/in-use.js';
import type { Trash } from '../app/trash.js';
import type { HostContext } from '../remote/host-source.js';
import { App } from './App.js';
import { useTerminalSize } from './hooks/use-terminal-size.js';
import { ENTER_ALT_SCREEN, LEAVE_ALT_SCREEN } from './prepaint.js';
import { createTuiServices, type TuiServices } from './services.js';
import type { Scope, TuiDecision } from './state.js';
import { themeFor, type Theme } from './theme.js';

export type { TuiDecision } from './state.js';

export interface TuiOptions {
  readonly locations: Locations;
  readonly config: Config;
  readonly cwd: string;
  readonly homeDir: string;
  /** The persisted catalog's file (null: no cache); loaded after the first frame, updated by the scan. */
  readonly cachePath?: string | null;
  /** Its first screen, read while the UI code loaded: painted at once. */
  readonly cacheHead?: readonly CatalogSession[] | null;
  /** Start with every session (`sessions --all`) instead of the current directory's. */
  readonly initialScope?: Scope;
  /** The caller already switched to the alternate screen and painted the first rows there (prepaint.ts). */
  readonly screenEntered?: boolean;
  /** Other machines to read over ssh beside this one. */
  readonly hosts?: { readonly names: readonly string[]; readonly context: HostContext; readonly refreshMs: number };
  /** Where deleted sessions go (`sessions rm`'s trash: `--home DIR`'s, `$XDG_DATA_HOME`'s or `~/.local/share`'s). */
  readonly trash?: Trash;
}

/**
 * A full collection of this process's heap. Once the catalog has settled, the garbage of its setup (the warm scan
 * of 100k files, the watcher's folder walk, the search index) leaves V8 with ~100 MB of mostly empty pages that
 * its idle heuristics give back slowly or not at all; one full collection returns most of them. `gc` exists only
 * in a context made after `--expose-gc` is set; undefined when V8 refuses.
 */
function fullCollector(): (() => void) | undefined {
  try {
    setFlagsFromString('--expose-gc');
    const gc: unknown = runInNewContext('gc');
    return typeof gc === 'function' ? () => void (gc as () => void)() : undefined;
  } catch {
    return undefined;
  }
}

const CLEAR_SCREEN = '\u001b[2J\u001b[H';
/** Ink draws from where the cursor is: the top left of the alternate screen, whatever the shell left. */
const CURSOR_HOME = '\u001b[H';

interface SizedAppProps {
  readonly services: TuiServices;
  readonly cwd: string;
  readonly homeDir: string;
  readonly theme: Theme;
  readonly initialScope: Scope | undefined;
  readonly onDecision: (d: TuiDecision) => void;
}

function SizedApp(props: SizedAppProps) {
  const { stdout } = useStdout();
  const size = useTerminalSize(stdout);
  return <App {...props} columns={size.columns} rows={size.rows} />;
}

/**
 * Run the browser until the user quits or picks a session to resume. Returns the decision; the caller
 * (the CLI) runs the agent, so the terminal is fully restored before anything else uses it.
 */
export async function runTui(options: TuiOptions): Promise<TuiDecision> {
  // The browser stays open over a catalog of up to 100k sessions. During a burst of allocation (the scan that
  // validates the cache) V8 lets the heap grow to several times what is live and keeps those pages afterwards:
  // growing by a quarter at a time keeps the peak near what is live (the warm scan of 100k sessions in-process:
  // 647 → 411 MB) for a few more, shorter collections in the background.
  setFlagsFromString('--heap-growing-percent=25');
  const collectGarbage = fullCollector();
  const { stdout, stdin } = process;
  if (!stdin.isTTY || !stdout.isTTY) {
    throw new Error('the interactive browser needs a terminal; use `sessions list` (or --json) in scripts and pipes');
  }
  const services = createTuiServices({
    locations: options.locations,
    config: options.config,
    homeDir: options.homeDir,
    env: process.env,
    cachePath: options.cachePath ?? null,
    cacheHead: options.cacheHead ?? null,
    ...(collectGarbage ? { collectGarbage } : {}),
    ...(options.hosts ? { hosts: options.hosts } : {}),
    procDir: PROC_DIR,
    ...(options.trash ? { trash: options.trash } : {}),
  });
  let decision: TuiDecision = { kind: 'quit' };
  if (!options.screenEntered) stdout.write(ENTER_ALT_SCREEN + CURSOR_HOME);
  // Ink only clears when the terminal narrows; a wider or taller one can keep a stale frame around the new one.
  const clearOnResize = (): void => void stdout.write(CLEAR_SCREEN);
  stdout.on('resize', clearOnResize);
  try {
    const instance = render(
      <SizedApp
        services={services}
        cwd={options.cwd}
        homeDir={options.homeDir}
        theme={themeFor(process.env)}
        initialScope={options.initialScope}
        onDecision={(chosen) => {
          decision = chosen;
        }}
      />,
      // A frame may follow the previous one after 16 ms rather than Ink's 33: a keystroke's echo and its results
      // are two frames. (Ink's incrementalRendering is not used: it misplaced lines after the first screen.)
      { exitOnCtrlC: false, patchConsole: true, maxFps: 60 },
    );
    await instance.waitUntilExit();
  } finally {
    stdout.off('resize', clearOnResize);
    stdout.write(LEAVE_ALT_SCREEN);
  }
  return decision;
}
