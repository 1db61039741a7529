import { Box, Text } from 'ink';
import type { ScanProgress } from '../../catalog/scan.js';
import type { HostStatus } from '../../remote/host-source.js';
import { localTimestamp } from '../time.js';
import { oneLine, safeLine, tildePath } from '../../core/text.js';
import { noticeRows, transcriptHeight } from '../geometry.js';
import { CONTENT_MIN_CHARS, contentQuery, searchSettled, type BrowserState } from '../state.js';
import { useTheme } from '../theme.js';

export interface HeaderProps {
  readonly state: BrowserState;
  readonly width: number;
}

/** The top line: what is listed (scope, counts, sort, query) or which transcript is open and where. */
export function Header({ state, width }: HeaderProps) {
  const theme = useTheme();
  const transcript = state.transcript;
  if (transcript && (state.mode === 'transcript' || state.mode === 'find' || state.mode === 'fork' || state.overlayReturn === 'transcript' || state.confirm?.returnTo === 'transcript' || state.menu?.returnTo === 'transcript')) {
    const layout = transcript.layout;
    const turns = layout ? layout.turnStarts.length : transcript.session.userTurns;
    // How far down the bottom of the screen is (100% once the last line shows).
    const bottom = transcript.top + transcriptHeight(state.size, noticeRows(state.notice, state.size.columns));
    const percent = layout && layout.lineCount > 0 ? Math.min(100, Math.round((bottom / layout.lineCount) * 100)) : 0;
    return (
      <Box width={width} height={1} flexShrink={0}>
        <Text wrap="truncate-end">
          <Text color={theme.accent} bold>
            {'‹ '}
          </Text>
          <Text color={theme.accent}>
            {transcript.partial ? `turn ${transcript.turn}/${turns}+ · reading…` : `turn ${transcript.turn}/${turns}${layout ? ` · ${percent}%` : ''}`}
          </Text>
          <Text color={theme.dim}>
            {` · ${transcript.session.agent}`}
            {transcript.expanded ? ' · outputs expanded' : ''}
            {transcript.showReasoning ? ' · reasoning shown' : ''}
          </Text>
          {transcript.find ? (
            <Text color={theme.match}>{` · "${oneLine(transcript.find)}" ${transcript.findCurrent >= 0 ? transcript.findCurrent + 1 : '–'}/${transcript.findMatches.length}`}</Text>
          ) : null}
          <Text color={theme.dim}>
            {' · '}
          </Text>
          <Text bold>{oneLine(transcript.session.title) || '(untitled)'}</Text>
        </Text>
      </Box>
    );
  }
  const place = state.scope === 'all' ? 'all directories' : safeLine(tildePath(state.cwd, state.homeDir));
  const query = state.query.trim();
  return (
    <Box width={width} height={1} flexShrink={0}>
      <Text wrap="truncate-end">
        <Text color={theme.accent} bold>
          sessions
        </Text>
        {state.loading ? (
          <Text color={theme.dim}>{` · ${indexingProgress(state.loading)}`}</Text>
        ) : (
          <Text>
            {' · '}
            {contentQuery(state.query) !== null ? (
              <Text color={theme.match}>{contentStatus(state)}</Text>
            ) : query ? (
              <Text color={theme.match}>
                {searchSettled(state) ? `${state.rows.length}${state.search?.counted === false ? '+' : ''} matching "${query}"${state.search?.pending ? ' (ranking…)' : ''}` : `searching "${query}"…`}
              </Text>
            ) : (
              `${state.rows.length}`
            )}
            {' in '}
            <Text bold>{place}</Text>
            <Text color={theme.dim}>
              {state.scope === 'cwd' ? ` (Ctrl-A: all ${state.sessions.length})` : ' (Ctrl-A: this directory)'}
              {query && state.hiddenMatches > 0 ? ` · ${state.hiddenMatches} more in all` : ''}
              {` · sort: ${state.sort}`}
            </Text>
            {state.watching ? <Text color={theme.live}>{' · live'}</Text> : ''}
            {state.hosts.map((host) => (
              <Text key={host.name} color={host.status.kind === 'unreachable' ? theme.error : theme.dim}>
                {` · ${safeLine(host.name)}: ${hostStatusText(host.status)}`}
              </Text>
            ))}
          </Text>
        )}
      </Text>
    </Box>
  );
}

/** A host's state in the header: connecting…, syncing…, 12 sessions, unreachable: the reason. */
export function hostStatusText(status: HostStatus): string {
  switch (status.kind) {
    case 'connecting':
      return 'connecting…';
    case 'syncing':
      return 'syncing…';
    case 'ready':
      return `${status.sessions} session${status.sessions === 1 ? '' : 's'}`;
    case 'unreachable':
      // A mirror listed while its host is down: its rows are marked stale; the header says as of when.
      return `unreachable: ${status.reason}${status.stale === undefined ? '' : ` · mirror as of ${status.stale === '' ? 'an unknown time' : localTimestamp(status.stale)}, stale`}`;
  }
}

/** "3 sessions with \"text\" in transcripts (searching…)", or what is missing before it can start. */
function contentStatus(state: BrowserState): string {
  const text = contentQuery(state.query) ?? '';
  if (text.length < CONTENT_MIN_CHARS) return `in transcripts: type ${CONTENT_MIN_CHARS}+ characters after >`;
  const content = state.content?.query === text ? state.content : null;
  if (!content) return `searching transcripts for "${text}"…`;
  // No count of matches: the search reads each file to its first lines with one, not to its end (issue 33).
  const sessions = `${state.rows.length} session${state.rows.length === 1 ? '' : 's'}`;
  const status = content.error ? ` (failed: ${content.error})` : content.done ? '' : ' (searching…)';
  return `${sessions} with "${text}" in transcripts${status}`;
}

/** `indexing 120/10,000 files · 31/2,480 MB…` while the index is built; gone once it is done. */
export function indexingProgress(progress: ScanProgress): string {
  if (progress.total === 0) return 'scanning…';
  const mb = (bytes: number): string => Math.round(bytes / 1e6).toLocaleString('en-US');
  return `indexing ${progress.done.toLocaleString('en-US')}/${progress.total.toLocaleString('en-US')} files · ${mb(progress.bytesDone)}/${mb(progress.bytesTotal)} MB…`;
}
