/**
 * Gemini API content parts (`{text}`, `{text, thought: true}`, `{functionCall}`, `{functionResponse}`, …) as the
 * normalized blocks: Gemini CLI and Qwen Code (a Gemini CLI fork) both record messages as such parts.
 */
import type { Block, ImageBlock } from '../../model.js';
import { isRecord, type JsonObject } from '../../json.js';

/** A PartListUnion (a string, one part, or a list of strings and parts) as a list of part objects. */
export function partList(content: unknown): JsonObject[] {
  if (typeof content === 'string') return [{ text: content }];
  if (Array.isArray(content)) return content.flatMap((part) => (typeof part === 'string' ? [{ text: part }] : isRecord(part) ? [part] : []));
  return isRecord(content) ? [content] : [];
}

/** The text of the parts that are plain text (not thoughts), joined as Gemini CLI joins them (no separator). */
export function partsText(content: unknown): string {
  return partList(content)
    .filter((part) => typeof part.text === 'string' && part.thought !== true)
    .map((part) => part.text as string)
    .join('');
}

/** True when the parts carry a function response (a tool's result sent back to the model). */
export function hasFunctionResponse(content: unknown): boolean {
  return partList(content).some((part) => isRecord(part.functionResponse));
}

/** A function response's output as text: `response.output` when it is a string, else the response as JSON. */
export function functionResponseOutput(response: unknown): string {
  if (isRecord(response)) {
    if (typeof response.output === 'string') return response.output;
    if (typeof response.error === 'string') return response.error;
  }
  return typeof response === 'string' ? response : JSON.stringify(response ?? null);
}

/** A tool call's arguments as the JSON text the model sent. */
export function argsText(args: unknown): string {
  return typeof args === 'string' ? args : JSON.stringify(args ?? {});
}

/**
 * Blocks of a model message's parts: text (consecutive text parts joined), thoughts (reasoning; `encrypted` when a
 * thought signature came with it), function calls (tool uses).
 */
export function modelPartBlocks(content: unknown): Block[] {
  const blocks: Block[] = [];
  for (const part of partList(content)) {
    if (typeof part.text === 'string' && part.thought === true) {
      blocks.push({ type: 'reasoning', summary: part.text, encrypted: typeof part.thoughtSignature === 'string' });
    } else if (typeof part.text === 'string') {
      // A streamed answer arrives as several text parts: one text.
      const last = blocks.at(-1);
      if (last?.type === 'text') blocks[blocks.length - 1] = { type: 'text', text: last.text + part.text };
      else if (part.text.length > 0) blocks.push({ type: 'text', text: part.text });
    } else if (isRecord(part.functionCall)) {
      const call = part.functionCall;
      blocks.push({ type: 'tool_use', id: typeof call.id === 'string' ? call.id : '', name: typeof call.name === 'string' ? call.name : '', input: argsText(call.args) });
    }
  }
  return blocks;
}

/** Tool-result blocks of the function responses among the parts. */
export function functionResponseBlocks(content: unknown, isError = false): Block[] {
  const blocks: Block[] = [];
  for (const part of partList(content)) {
    if (!isRecord(part.functionResponse)) continue;
    const response = part.functionResponse;
    blocks.push({
      type: 'tool_result',
      toolUseId: typeof response.id === 'string' ? response.id : '',
      output: functionResponseOutput(response.response),
      isError: isError || (isRecord(response.response) && typeof response.response.error === 'string'),
    });
  }
  return blocks;
}

/** Image blocks of a prompt's parts: `inlineData` (base64 bytes) and `fileData` (a URI) whose type is an image. */
export function imageBlocks(content: unknown): ImageBlock[] {
  const images: ImageBlock[] = [];
  for (const part of partList(content)) {
    const inline = part.inlineData;
    if (isRecord(inline) && typeof inline.data === 'string' && isImageType(inline.mimeType)) {
      images.push({ type: 'image', mediaType: inline.mimeType as string, data: inline.data, url: null });
    }
    const file = part.fileData;
    if (isRecord(file) && typeof file.fileUri === 'string' && isImageType(file.mimeType)) {
      images.push({ type: 'image', mediaType: file.mimeType as string, data: null, url: file.fileUri });
    }
  }
  return images;
}

function isImageType(mimeType: unknown): boolean {
  return typeof mimeType === 'string' && mimeType.startsWith('image/');
}

/** An image as a Gemini API part: inline bytes as `inlineData`; one given only by URL as a text naming it. */
export function imagePart(image: ImageBlock): JsonObject {
  if (image.data !== null) return { inlineData: { mimeType: image.mediaType ?? 'image/png', data: image.data } };
  return { text: `[image: ${image.url ?? 'not recorded'}]` };
}
