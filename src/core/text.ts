/*
 * The one sanitiser: every string that comes from a session file or a file name goes through one of these
 * before it reaches a terminal (CLI text, Markdown, stderr, the TUI, the pre-painted first screen). JSON
 * output is never sanitised: it must stay exact, and JSON escapes control characters itself.
 */

/* eslint-disable no-control-regex -- control characters are exactly what these patterns are about */
/** CSI, written with ESC [ or as the 8-bit C1 introducer U+009B (a terminal may take either): removed whole. */
const CSI = /(?:\u001b\[|\u009b)[0-?]*[ -/]*[@-~]/g;
/**
 * OSC, DCS, SOS, PM, APC (ESC ] P X ^ _, or U+009D U+0090 U+0098 U+009E U+009F): up to BEL or ST (ESC \\ or U+009C),
 * or to the end when never terminated. Removing only an 8-bit introducer would show its payload.
 */
const STRING_SEQUENCE = /(?:\u001b[\]PX^_]|[\u0090\u0098\u009d-\u009f])[\s\S]*?(?:\u0007|\u001b\\|\u009c|$)/g;
const ESCAPE = /\u001b[ -/]*[0-~]?/g;
/** C0 and C1 controls but tab and newline (CR is handled first). */
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;
/**
 * Every character one of stripControl's patterns needs to match (ESC and CR are controls; the joiner is in
 * U+200B–U+200F): text without any is returned as it is, after one scan instead of eight.
 */
const ANY_STRIPPED = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u2028\u2029\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/;
/* eslint-enable no-control-regex */
/** Bidi controls (embeddings, overrides, isolates, marks): they reorder the rest of a terminal line. */
const BIDI = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
/** Zero-width characters: invisible, and a terminal may give them a column that string-width does not. */
const ZERO_WIDTH = /[\u00ad\u180e\u200b\u200c\u2060-\u2064\ufeff]/g;
/** A zero-width joiner that does not join two pictographs (one emoji, e.g. 👩‍💻, keeps its joiner and its width). */
const LONE_JOINER = /(?<!\p{Extended_Pictographic}\ufe0f?)\u200d|\u200d(?!\p{Extended_Pictographic})/gu;
/** Shown instead of each bidi control, so a spoofed line is visibly marked and keeps its columns. */
export const BIDI_MARK = '\ufffd';

/**
 * Untrusted text with line breaks kept: terminal control sequences (CSI, OSC, DCS, other ESC sequences) and
 * C0/C1 control characters except newline and tab removed, CR/CRLF made newlines, zero-width characters
 * dropped, bidi controls replaced by U+FFFD.
 */
export function stripControl(text: string): string {
  return ANY_STRIPPED.test(text) ? stripAll(text) : text;
}

/** stripControl's patterns, each applied (exported for tests: text without ANY_STRIPPED is what this returns unchanged). */
export function stripAll(text: string): string {
  return text
    .replace(CSI, '')
    .replace(STRING_SEQUENCE, '')
    .replace(ESCAPE, '')
    .replace(/\r\n?|[\u2028\u2029]/g, '\n')
    .replace(CONTROL, '')
    .replace(ZERO_WIDTH, '')
    .replace(LONE_JOINER, '')
    .replace(BIDI, BIDI_MARK);
}

/** Where stripControl removes a whole sequence (CSI, string sequences, other ESC sequences): `[start, end)`, in order. */
export function controlSequenceRanges(text: string): [number, number][] {
  const ranges: [number, number][] = [];
  for (const match of text.matchAll(ANY_SEQUENCE)) ranges.push([match.index, match.index + match[0].length]);
  return ranges;
}

/* eslint-disable no-control-regex -- as above */
const ANY_SEQUENCE = new RegExp(`${CSI.source}|${STRING_SEQUENCE.source}|${ESCAPE.source}`, 'g');
/** What ends a string sequence (BEL, ESC \, U+009C). */
export const STRING_TERMINATOR = /\u0007|\u001b\\|\u009c/;
/** What starts a sequence. */
export const SEQUENCE_INTRODUCER = /[\u001b\u0090\u0098\u009b\u009d-\u009f]/;
/* eslint-enable no-control-regex */

/** One field on one line (an id, a path, a cwd, a branch): sanitised, each line break or tab a space, not trimmed. */
export function safeLine(text: string): string {
  return stripControl(text).replace(/[\n\t]/g, ' ');
}

/** One line for a list row or a tool call: control characters stripped, whitespace collapsed. */
export function oneLine(text: string): string {
  return stripControl(text).replace(/\s+/g, ' ').trim();
}

/** A path with the home directory shown as `~`. */
export function tildePath(path: string | null, homeDir: string): string {
  if (!path) return '';
  if (homeDir && homeDir !== '/' && (path === homeDir || path.startsWith(`${homeDir}/`))) return `~${path.slice(homeDir.length)}`;
  return path;
}

/** Bytes as B, KB or MB (decimal, one digit after the point below 10). */
export function formatSize(bytes: number): string {
  if (bytes < 1000) return `${bytes} B`;
  const [value, unit] = bytes < 1_000_000 ? [bytes / 1000, 'KB'] : [bytes / 1_000_000, 'MB'];
  return `${value < 10 ? value.toFixed(1) : Math.round(value)} ${unit}`;
}
