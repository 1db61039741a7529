import { isRecord } from '../json.js';
/**
 * Tool-call ids and names for a target API that allows only `[A-Za-z0-9_-]` (Anthropic tool_use ids and names,
 * OpenAI function names): other characters become `_`, an empty one gets a fresh id, and two sources that would
 * collide get distinct ones. A call and its result map to the same id, so they stay paired.
 */
export class SafeIds {
  private readonly byOriginal = new Map<string, string>();
  private readonly taken = new Set<string>();
  private counter = 0;

  constructor(private readonly prefix: string) {}

  of(original: string): string {
    const known = this.byOriginal.get(original);
    if (known !== undefined) return known;
    let id = original.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 64);
    if (id === '') id = `${this.prefix}${++this.counter}`;
    while (this.taken.has(id)) id = `${id.slice(0, 58)}_${++this.counter}`;
    this.byOriginal.set(original, id);
    this.taken.add(id);
    return id;
  }
}

/** A tool name as an API that allows `[A-Za-z0-9_-]{1,64}` takes it. */
export function safeToolName(name: string): string {
  const safe = name.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 64);
  return safe === '' ? 'tool' : safe;
}

/** A tool call's recorded arguments as a JSON object: parsed when they are one, else wrapped as `{input}`. */
export function argumentsObject(input: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(input);
    if (isRecord(value)) return value;
  } catch {
    // not JSON: a freeform tool's input (apply_patch and the like)
  }
  return input === '' ? {} : { input };
}
