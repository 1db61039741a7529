/** The legacy single-object JSON, scanned structurally so that a head or tail slice yields whole messages. */
import { CLOSE_BRACE, CLOSE_BRACKET, COLON, COMMA, decodeString, OPEN_BRACE, OPEN_BRACKET, parseSpan, QUOTE, skipWhitespace, stringEnd, valueEnd, type Span } from '../../io/json-bytes.js';
import { type JsonObject } from '../../json.js';
import { applyLegacyTop, ClawDoc, compactionMarker, normalizeMessage } from './records.js';
import { objectOf } from './values.js';

// ---------------------------------------------------------------------------------------------------------
// Legacy single-object JSON, scanned structurally so that a head or tail slice yields whole messages

export interface LegacyLayout {
  /** Complete top-level values other than `messages`. */
  readonly keys: Map<string, Span>;
  /** Complete elements of the `messages` array, in order. */
  readonly messages: Span[];
  messagesArray: boolean;
  /** The object was closed: everything in it was seen. */
  complete: boolean;
  /** Index just past the closing brace when complete (claw may have appended JSONL lines after it). */
  end: number;
}

/** Scan a legacy object from its start: top-level values and message elements that are whole in `buf`. */
export function scanLegacyHead(buf: Buffer, final: boolean): LegacyLayout | null {
  let i = skipWhitespace(buf, 0);
  if (buf[i] !== OPEN_BRACE) return null;
  const layout: LegacyLayout = { keys: new Map(), messages: [], messagesArray: false, complete: false, end: buf.length };
  i = skipWhitespace(buf, i + 1);
  if (buf[i] === CLOSE_BRACE) {
    layout.complete = true;
    layout.end = i + 1;
    return layout;
  }
  while (i < buf.length && buf[i] === QUOTE) {
    const keyEnd = stringEnd(buf, i);
    if (keyEnd === -1) return layout;
    const key = decodeString(buf, i, keyEnd);
    if (key === null) return layout;
    i = skipWhitespace(buf, keyEnd);
    if (buf[i] !== COLON) return layout;
    i = skipWhitespace(buf, i + 1);
    if (i >= buf.length) return layout;
    if (key === 'messages' && buf[i] === OPEN_BRACKET) {
      layout.messagesArray = true;
      i = skipWhitespace(buf, i + 1);
      if (buf[i] === CLOSE_BRACKET) {
        i++;
      } else {
        for (;;) {
          const end = valueEnd(buf, i, false);
          if (end === -1) return layout;
          layout.messages.push({ start: i, end });
          i = skipWhitespace(buf, end);
          if (buf[i] === COMMA) {
            i = skipWhitespace(buf, i + 1);
            continue;
          }
          if (buf[i] !== CLOSE_BRACKET) return layout;
          i++;
          break;
        }
      }
    } else {
      const end = valueEnd(buf, i, final);
      if (end === -1) return layout;
      layout.keys.set(key, { start: i, end });
      i = end;
    }
    i = skipWhitespace(buf, i);
    if (buf[i] === COMMA) {
      i = skipWhitespace(buf, i + 1);
      continue;
    }
    if (buf[i] === CLOSE_BRACE) {
      layout.complete = true;
      layout.end = i + 1;
    }
    return layout;
  }
  return layout;
}

/** Top-level values of a scanned layout, parsed. */
export function layoutTop(buf: Buffer, layout: LegacyLayout): JsonObject {
  const top: JsonObject = {};
  for (const [key, span] of layout.keys) top[key] = parseSpan(buf, span.start, span.end);
  return top;
}

export function addLegacyLayout(doc: ClawDoc, buf: Buffer, layout: LegacyLayout): void {
  const top = layoutTop(buf, layout);
  applyLegacyTop(doc, top);
  const compaction = objectOf(top.compaction);
  if (compaction) doc.messages.push(compactionMarker(compaction));
  for (const span of layout.messages) doc.addMessage(normalizeMessage(parseSpan(buf, span.start, span.end)));
}
