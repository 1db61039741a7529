import { Box, Text } from 'ink';
import type { ReactNode } from 'react';
import type { TranscriptState } from '../state.js';
import { useTheme, type Theme } from '../theme.js';
import { GUTTER_WIDTH, type TranscriptLine } from '../transcript-layout.js';
import { safeLine } from '../../core/text.js';

export interface TranscriptViewProps {
  readonly transcript: TranscriptState;
  readonly width: number;
  readonly height: number;
}

/** The visible window of a laid-out transcript: `height` lines sliced from the layout, never more. */
export function TranscriptView({ transcript, width, height }: TranscriptViewProps) {
  const theme = useTheme();
  if (transcript.status !== 'ready' || !transcript.layout) {
    return (
      <Box width={width} height={height} paddingLeft={2} paddingTop={1}>
        <Text color={transcript.status === 'error' ? theme.error : theme.dim} wrap="wrap">
          {transcript.status === 'error' ? `cannot read this session: ${safeLine(transcript.error ?? 'unknown error')}` : 'reading the transcript…'}
        </Text>
      </Box>
    );
  }
  const { lines } = transcript.layout;
  const visible = lines.slice(transcript.top, transcript.top + height);
  return (
    <Box width={width} height={height} flexDirection="column" overflow="hidden">
      {visible.length === 0 && <Text color={theme.dim}>(no messages)</Text>}
      {visible.map((line, i) => (
        <LineView
          key={transcript.top + i}
          line={line}
          selectedTurn={line.kind === 'turn' && line.turn === transcript.turn}
          forkable={line.turn >= 2}
          found={transcript.top + i === transcript.findLine}
          find={transcript.find}
          theme={theme}
        />
      ))}
    </Box>
  );
}

interface LineViewProps {
  readonly line: TranscriptLine;
  readonly selectedTurn: boolean;
  readonly forkable: boolean;
  readonly found: boolean;
  readonly find: string;
  readonly theme: Theme;
}

function LineView({ line, selectedTurn, forkable, found, find, theme }: LineViewProps) {
  const style = lineStyle(line, theme);
  return (
    <Box height={1} flexShrink={0}>
      <Box width={GUTTER_WIDTH} flexShrink={0}>
        <Text color={style.color} bold={style.bold}>
          {selectedTurn ? '▶' : line.gutter}
        </Text>
      </Box>
      <Text wrap="truncate-end" {...style} inverse={selectedTurn || (found && !theme.color)}>
        {find ? <FindMarks text={line.text} find={find} theme={theme} /> : line.text}
        {selectedTurn && forkable ? `  · f forks here, keeping ${keptTurns(line.turn - 1)}` : ''}
      </Text>
    </Box>
  );
}

function FindMarks({ text, find, theme }: { readonly text: string; readonly find: string; readonly theme: Theme }) {
  const lower = text.toLowerCase();
  const needle = find.toLowerCase();
  const parts: ReactNode[] = [];
  let at = 0;
  for (let index = lower.indexOf(needle); needle && index >= 0; index = lower.indexOf(needle, at)) {
    if (index > at) parts.push(text.slice(at, index));
    parts.push(
      <Text key={index} backgroundColor={theme.color ? theme.match : undefined} color={theme.color ? 'black' : undefined} underline={!theme.color}>
        {text.slice(index, index + needle.length)}
      </Text>,
    );
    at = index + needle.length;
  }
  if (at < text.length) parts.push(text.slice(at));
  return <>{parts}</>;
}

interface LineStyle {
  readonly color?: string | undefined;
  readonly bold?: boolean;
  readonly dimColor?: boolean;
  readonly italic?: boolean;
}

function lineStyle(line: TranscriptLine, theme: Theme): LineStyle {
  switch (line.kind) {
    case 'turn':
      return { color: theme.user, bold: true };
    case 'user':
      return { color: theme.user };
    case 'assistant':
      return {};
    case 'tool-call':
      return { color: theme.tool };
    case 'tool-output':
      return { dimColor: true };
    case 'tool-error':
      return { color: theme.error };
    case 'more':
      return { color: theme.dim, italic: true };
    case 'reasoning':
      return { color: theme.reasoning, italic: true };
    case 'compaction':
      return { color: theme.accent, bold: line.gutter !== '' };
    case 'fork':
      return { color: theme.accent };
    case 'system':
      return { color: theme.dim, dimColor: !theme.color };
    case 'blank':
      return {};
  }
}

/** "turn 1", "turns 1–4". */
export function keptTurns(kept: number): string {
  return kept === 1 ? 'turn 1' : `turns 1–${kept}`;
}
