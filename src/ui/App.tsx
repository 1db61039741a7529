import { useApp, useInput } from 'ink';
import { useEffect, useReducer } from 'react';
import { Screen } from './components/Screen.js';
import { listGeometry } from './geometry.js';
import { useCatalog } from './hooks/use-catalog.js';
import { useClock } from './hooks/use-clock.js';
import { useContentSearch } from './hooks/use-content-search.js';
import { useContentSnippets } from './hooks/use-content-snippets.js';
import { useForkRunner } from './hooks/use-fork-runner.js';
import { useHosts } from './hooks/use-hosts.js';
import { usePreviewLoader } from './hooks/use-preview-loader.js';
import { useForkThenResume, useResumeCheck } from './hooks/use-resume-check.js';
import { useSearch } from './hooks/use-search.js';
import { useTranscriptLoader } from './hooks/use-transcript-loader.js';
import { useWriteRunner } from './hooks/use-write-runner.js';
import { browserReducer, firstState } from './reducer.js';
import type { TuiServices } from './services.js';
import type { Scope, TuiDecision } from './state.js';
import { ThemeContext, type Theme } from './theme.js';

export interface AppProps {
  readonly services: TuiServices;
  readonly cwd: string;
  readonly homeDir: string;
  readonly columns: number;
  readonly rows: number;
  readonly theme: Theme;
  /** 'all' starts with every session; by default the current directory's (or all, when it has none). */
  readonly initialScope?: Scope | undefined;
  readonly onDecision: (decision: TuiDecision) => void;
  /** The clock for ages and "live" markers (tests pin it). */
  readonly now?: () => number;
}

const CLOCK_INTERVAL_MS = 5_000;

/** The container: one reducer, one useInput, the hooks that talk to the outside world, and the pure Screen. */
export function App({ services, cwd, homeDir, columns, rows, theme, initialScope, onDecision, now = Date.now }: AppProps) {
  const [state, dispatch] = useReducer(browserReducer, undefined, () =>
    firstState({ size: { columns, rows }, cwd, homeDir, now: now(), scope: initialScope ?? 'cwd', hosts: services.hosts?.names ?? [] }, services.cached()),
  );
  const { exit } = useApp();

  useInput((input, key) => {
    services.noteActivity?.();
    dispatch({ type: 'key', input, key });
  });

  useEffect(() => {
    dispatch({ type: 'resize', size: { columns, rows } });
  }, [columns, rows]);

  useCatalog(services, dispatch);
  useHosts(services, state.hostsRefresh, dispatch);
  useSearch(state.sessions, state.query, dispatch);
  const geometry = listGeometry(state.size);
  useContentSearch(services, state.query, dispatch, geometry.listHeight);
  useContentSnippets(services, state, dispatch);
  useTranscriptLoader(services, state.transcript?.key ?? null, state.transcript?.session ?? null, dispatch);
  const selected = state.rows.at(state.selected)?.session ?? null;
  const previewShown = state.transcript === null && geometry.preview.placement !== 'none';
  usePreviewLoader(services, selected, previewShown, dispatch);
  useForkRunner(services, state.fork, dispatch);
  useWriteRunner(services, state.rename, state.pendingWrite, dispatch);
  useResumeCheck(services, state.resumeRequest, dispatch);
  useForkThenResume(services, state.forkThenResume, dispatch);
  useClock(now, CLOCK_INTERVAL_MS, dispatch);

  useEffect(() => {
    if (!state.decision) return;
    onDecision(state.decision);
    exit();
  }, [state.decision, onDecision, exit]);

  return (
    <ThemeContext.Provider value={theme}>
      <Screen state={state} lookedIn={services.lookedIn} />
    </ThemeContext.Provider>
  );
}
