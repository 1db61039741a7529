import { Box, Text } from 'ink';
import { useTheme } from '../theme.js';
import { safeLine } from '../../core/text.js';

export interface StatusViewProps {
  readonly lines: readonly string[];
  readonly width: number;
  readonly height: number;
}

/** A body that says what is going on: scanning (with progress), nothing found (and where it looked). */
export function StatusView({ lines, width, height }: StatusViewProps) {
  const theme = useTheme();
  return (
    <Box width={width} height={height} flexDirection="column" overflow="hidden" paddingLeft={2} paddingTop={1}>
      {lines.map((line, i) => (
        <Text key={i} wrap="truncate-end" color={i === 0 ? undefined : theme.dim} bold={i === 0}>
          {safeLine(line)}
        </Text>
      ))}
    </Box>
  );
}
