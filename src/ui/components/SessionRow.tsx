import { Text } from 'ink';
import type { CatalogSession } from '../../catalog/scan.js';
import type { SearchHit } from '../../catalog/search.js';
import type { RowColumns } from '../geometry.js';
import { sessionRowSegments } from '../row-cells.js';
import { useTheme } from '../theme.js';

export interface SessionRowProps {
  readonly session: CatalogSession;
  readonly hit: SearchHit | null;
  readonly selected: boolean;
  readonly columns: RowColumns;
  readonly now: number;
  readonly homeDir: string;
}

/**
 * One conversation on one line: agent, age, title, cwd, branch, turns, fork and live marks. Laid out as text
 * (row-cells.ts), not as a box per column: one layout node per row keeps the first frame and keystrokes cheap.
 */
export function SessionRow(props: SessionRowProps) {
  const theme = useTheme();
  const segments = sessionRowSegments({ ...props, theme });
  return (
    <Text wrap="truncate-end">
      {segments.map((segment, i) =>
        segment.color === undefined && !segment.bold && !segment.inverse && !segment.underline ? (
          segment.text
        ) : (
          <Text key={i} color={segment.color} bold={segment.bold ?? false} inverse={segment.inverse ?? false} underline={segment.underline ?? false}>
            {segment.text}
          </Text>
        ),
      )}
    </Text>
  );
}
