import { Box, Text } from 'ink';
import type { CatalogSession } from '../../catalog/scan.js';
import type { SearchHit } from '../../catalog/search.js';
import { oneLine } from '../../core/text.js';
import type { RowColumns } from '../geometry.js';
import { useTheme } from '../theme.js';
import { isLive, relativeTime, tildePath } from '../time.js';
import { Highlighted } from './Highlighted.js';

export interface SessionRowProps {
  readonly session: CatalogSession;
  readonly hit: SearchHit | null;
  readonly selected: boolean;
  readonly columns: RowColumns;
  readonly now: number;
  readonly homeDir: string;
}

/** One conversation on one line: agent, age, title, cwd, branch, turns, fork and live marks. */
export function SessionRow({ session, hit, selected, columns, now, homeDir }: SessionRowProps) {
  const theme = useTheme();
  const title = oneLine(session.title) || '(untitled)';
  const titleRanges = hit ? (session.name && hit.name ? hit.name : hit.title) : undefined;
  const cwd = tildePath(session.cwd, homeDir);
  const cwdShift = session.cwd ? session.cwd.length - cwd.length : 0;
  const live = isLive(session.updatedAt, now);
  const forked = session.forkedFrom !== null || session.fork !== null;
  const turns = `${session.userTurns}${session.userTurnsExact ? '' : '+'}`;
  return (
    <Box height={1} flexShrink={0} width={columns.marker + columns.badge + columns.age + columns.title + columns.cwd + columns.branch + columns.turns + columns.marks}>
      <Box width={columns.marker} flexShrink={0}>
        <Text color={theme.accent} bold>
          {selected ? '›' : ' '}
        </Text>
      </Box>
      <Box width={columns.badge} flexShrink={0}>
        <Text color={theme.agents[session.agent]} inverse={selected} wrap="truncate-end">
          {session.agent}
        </Text>
      </Box>
      <Box width={columns.age} flexShrink={0}>
        <Text color={theme.dim} wrap="truncate-end">
          {relativeTime(session.updatedAt, now)}
        </Text>
      </Box>
      <Box width={columns.title} paddingRight={1} flexShrink={0}>
        <Text wrap="truncate-end" bold={selected} inverse={selected && !theme.color} color={selected ? theme.accent : undefined}>
          <Highlighted text={title} ranges={titleRanges} />
        </Text>
      </Box>
      {columns.cwd > 0 && (
        <Box width={columns.cwd} paddingRight={1} flexShrink={0}>
          <Text wrap="truncate-start" color={theme.dim}>
            <Highlighted text={cwd} ranges={hit?.cwd} shift={cwdShift} />
          </Text>
        </Box>
      )}
      {columns.branch > 0 && (
        <Box width={columns.branch} paddingRight={1} flexShrink={0}>
          <Text wrap="truncate-end" color={theme.dim}>
            <Highlighted text={session.gitBranch ?? ''} ranges={hit?.gitBranch} />
          </Text>
        </Box>
      )}
      <Box width={columns.turns} justifyContent="flex-end" paddingRight={1} flexShrink={0}>
        <Text wrap="truncate-end">{turns}</Text>
      </Box>
      <Box width={columns.marks} flexShrink={0}>
        <Text wrap="truncate-end">
          <Text color={theme.accent}>{forked ? '⋔' : ' '}</Text> {live ? <Text color={theme.live} bold>live</Text> : ''}
        </Text>
      </Box>
    </Box>
  );
}
