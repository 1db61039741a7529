import { Text } from 'ink';
import { memo } from 'react';
import { sessionRowSegments, type RowInput } from '../row-cells.js';
import { useTheme } from '../theme.js';

export type SessionRowProps = Omit<RowInput, 'theme'>;

/**
 * One conversation on one line: agent, age, title, cwd, branch, turns, fork and live marks. Laid out as text
 * (row-cells.ts), not as a box per column: one layout node per row instead of nine. Memoised: a frame that
 * changes the header or one row (a keystroke, a moved selection) does not lay out the other rows' text again.
 */
export const SessionRow = memo(function SessionRow(props: SessionRowProps) {
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
});
