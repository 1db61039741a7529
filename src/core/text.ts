/**
 * Transcript text is untrusted: remove terminal control sequences (CSI, OSC, DCS, other ESC sequences)
 * and C0/C1 control characters except newline and tab before it reaches a terminal.
 */
export function stripControl(text: string): string {
  // Control characters are exactly what these patterns are about.
  /* eslint-disable no-control-regex */
  return text
    .replace(/\u001b\[[0-?]*[ -/]*[@-~]/g, '')
    .replace(/\u001b[\]PX^_][\s\S]*?(?:\u0007|\u001b\\|$)/g, '')
    .replace(/\u001b[@-Z\\-_]/g, '')
    .replace(/\r\n?/g, '\n')
    .replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, '');
  /* eslint-enable no-control-regex */
}

/** One line for a list row or a tool call: control characters stripped, whitespace collapsed. */
export function oneLine(text: string): string {
  return stripControl(text).replace(/\s+/g, ' ').trim();
}
