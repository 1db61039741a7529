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
  const visible = transcript.layout.slice(transcript.top, transcript.top + height);
  const current = transcript.findMatches[transcript.findCurrent] ?? null;
  return (
    <Box width={width} height={height} flexDirection="column" overflow="hidden">
      {visible.length === 0 && <Text color={theme.dim}>(no messages)</Text>}
      {visible.map((line, i) => (
        <LineView
          key={transcript.top + i}
          line={line}
          selectedTurn={line.kind === 'turn' && line.turn === transcript.turn}
          forkable={line.turn >= 2}
          currentAt={current && current.line === transcript.top + i ? current.start : -1}
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
  /** Where the current find match starts in this line (-1: not on this line). */
  readonly currentAt: number;
  readonly find: string;
  readonly theme: Theme;
}

function LineView({ line, selectedTurn, forkable, currentAt, find, theme }: LineViewProps) {
  const style = lineStyle(line, theme);
  return (
    <Box height={1} flexShrink={0}>
      <Box width={GUTTER_WIDTH} flexShrink={0}>
        <Text color={style.color} bold={style.bold}>
          {selectedTurn ? '▶' : line.gutter}
        </Text>
      </Box>
      <Text wrap="truncate-end" {...style} inverse={selectedTurn}>
        {find ? <FindMarks text={line.text} find={find} currentAt={currentAt} theme={theme} /> : line.text}
        {selectedTurn && forkable ? `  · f forks here, keeping ${keptTurns(line.turn - 1)}` : ''}
      </Text>
    </Box>
  );
}

/** Every match of the find marked; the current one (n/N) stands out from the others. */
function FindMarks({ text, find, currentAt, theme }: { readonly text: string; readonly find: string; readonly currentAt: number; readonly theme: Theme }) {
  const lower = text.toLowerCase();
  // The positions findMatches counted: folded only when folding keeps the length.
  const haystack = lower.length === text.length ? lower : text;
  const needle = find.toLowerCase();
  const parts: ReactNode[] = [];
  let at = 0;
  for (let index = haystack.indexOf(needle); needle && index >= 0; index = haystack.indexOf(needle, at)) {
    if (index > at) parts.push(text.slice(at, index));
    const current = index === currentAt;
    parts.push(
      <Text
        key={index}
        backgroundColor={theme.color ? (current ? theme.accent : theme.match) : undefined}
        color={theme.color ? 'black' : undefined}
        bold={current}
        inverse={current && !theme.color}
        underline={!theme.color}
      >
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
    case 'files':
      return { color: theme.tool, dimColor: true };
    case 'blank':
      return {};
  }
}

/** "turn 1", "turns 1–4". */
export function keptTurns(kept: number): string {
  return kept === 1 ? 'turn 1' : `turns 1–${kept}`;
}
