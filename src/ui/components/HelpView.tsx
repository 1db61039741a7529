import { Box, Text } from 'ink';
import { KEY_HELP } from '../keymap.js';
import { useTheme } from '../theme.js';

export interface HelpViewProps {
  readonly width: number;
  readonly height: number;
}

/** Columns a key group needs to read well side by side with the other: its keys, then what they do. */
const GROUP_WIDTH = 38;
/** The keys' column: the longest keys (`PgUp PgDn Space`) and a space. */
const KEYS_WIDTH = 16;

/** Every key, grouped by screen; side by side when there is room. */
export function HelpView({ width, height }: HelpViewProps) {
  const theme = useTheme();
  const sideBySide = width >= 2 * GROUP_WIDTH + 2;
  const groupWidth = sideBySide ? Math.floor((width - 2) / 2) : width - 2;
  return (
    <Box width={width} height={height} flexDirection={sideBySide ? 'row' : 'column'} overflow="hidden" paddingLeft={2}>
      {KEY_HELP.map((group) => (
        <Box key={group.title} flexDirection="column" width={groupWidth} flexShrink={0} paddingRight={1}>
          <Box height={1} flexShrink={0}>
            <Text bold color={theme.accent}>
              {group.title}
            </Text>
          </Box>
          {group.keys.map((entry) => (
            <Box key={entry.keys} height={1} flexShrink={0}>
              <Box width={KEYS_WIDTH} flexShrink={0}>
                <Text bold wrap="truncate-end">
                  {entry.keys}
                </Text>
              </Box>
              <Text wrap="truncate-end">{entry.what}</Text>
            </Box>
          ))}
        </Box>
      ))}
    </Box>
  );
}
