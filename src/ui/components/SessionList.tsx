import { Box, Text } from 'ink';
import { useMemo } from 'react';
import { rowColumns } from '../geometry.js';
import type { ListRow, SortKey } from '../state.js';
import { useTheme } from '../theme.js';
import { SessionRow } from './SessionRow.js';
import { sessionKey } from '../../core/model.js';
import type { ReadonlyList } from '../../core/list-view.js';

export interface SessionListProps {
  readonly rows: ReadonlyList<ListRow>;
  readonly top: number;
  readonly selected: number;
  readonly width: number;
  readonly height: number;
  readonly now: number;
  readonly homeDir: string;
  /** The rows' order, whose time the age column shows. */
  readonly sort: SortKey;
  /** Shown instead of rows when there are none. */
  readonly emptyText: string;
}

/** The visible window of rows; only `height` rows are rendered whatever the list's length. */
export function SessionList({ rows, top, selected, width, height, now, homeDir, sort, emptyText }: SessionListProps) {
  const theme = useTheme();
  const columns = useMemo(() => rowColumns(width), [width]);
  if (rows.length === 0) {
    return (
      <Box width={width} height={height} flexDirection="column" paddingLeft={2} paddingTop={1} overflow="hidden">
        <Text color={theme.dim} wrap="wrap">
          {emptyText}
        </Text>
      </Box>
    );
  }
  const visible = rows.slice(top, top + height);
  return (
    <Box width={width} height={height} flexDirection="column" overflow="hidden">
      {visible.map((row, i) => (
        <SessionRow
          key={sessionKey(row.session)}
          session={row.session}
          hit={row.hit}
          content={row.content}
          selected={top + i === selected}
          columns={columns}
          now={now}
          homeDir={homeDir}
          sort={sort}
        />
      ))}
    </Box>
  );
}
