// `--redact`: API keys, tokens and private keys masked in what a transcript says (prompts, answers, tool calls and
// their output, reasoning), before it is shared. Each pattern is a secret's published shape, anchored so that a
// word that merely starts like one (`sk-learn`, `AKIA` in prose, a short `ghp_` example) stays.
import type { Block, Message } from './model.js';

interface SecretShape {
  readonly kind: string;
  readonly pattern: RegExp;
}

const SHAPES: readonly SecretShape[] = [
  // A PEM private key, whole (RSA, EC, OPENSSH, ENCRYPTED, PKCS#8 …), header to footer.
  { kind: 'private-key', pattern: /-----BEGIN ((?:[A-Z0-9]+ )*)PRIVATE KEY-----[\s\S]*?-----END \1PRIVATE KEY-----/g },
  // Anthropic before OpenAI: both begin with `sk-`.
  { kind: 'anthropic-key', pattern: /\bsk-ant-[A-Za-z0-9]{2,10}-[A-Za-z0-9_-]{32,}/g },
  // OpenAI: `sk-` + 48 characters (legacy), or `sk-proj-` / `sk-svcacct-` / `sk-admin-` + a long tail.
  { kind: 'openai-key', pattern: /\bsk-(?:(?:proj|svcacct|admin|None)-[A-Za-z0-9_-]{40,}|[A-Za-z0-9]{48}\b)/g },
  // GitHub: classic tokens (ghp_, gho_, ghu_, ghs_, ghr_ + 36) and fine-grained PATs (github_pat_ + 82).
  { kind: 'github-token', pattern: /\b(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{82,})\b/g },
  // AWS access key ids (AKIA long-term, ASIA temporary, …).
  { kind: 'aws-access-key-id', pattern: /\b(?:AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16}\b/g },
  // An AWS secret key where it is named (40 characters of base64 alone would also match hashes and ids).
  { kind: 'aws-secret-key', pattern: /\b(aws_?secret_?access_?key|AWS_SECRET_ACCESS_KEY|SecretAccessKey)(["']?\s*[:=]\s*["']?)[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+])/gi },
  // A JWT: three base64url parts, the first two JSON objects (`eyJ` is `{"`).
  { kind: 'jwt', pattern: /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{16,}/g },
];

/** `text` with every secret of a known shape replaced by `[REDACTED <kind>]` (an AWS secret keeps its name). */
export function redactSecrets(text: string): string {
  let out = text;
  for (const shape of SHAPES) {
    out = out.replace(shape.pattern, (...match: string[]) => (shape.kind === 'aws-secret-key' ? `${match[1]}${match[2]}[REDACTED ${shape.kind}]` : `[REDACTED ${shape.kind}]`));
  }
  return out;
}

function redactBlock(block: Block): Block {
  switch (block.type) {
    case 'text':
      return { ...block, text: redactSecrets(block.text) };
    case 'tool_use':
      return { ...block, input: redactSecrets(block.input) };
    case 'tool_result':
      return { ...block, output: redactSecrets(block.output) };
    case 'reasoning':
    case 'compaction':
      return { ...block, summary: redactSecrets(block.summary) };
    case 'image':
      return block;
  }
}

/** A message with every block's text redacted. */
export function redactMessage(message: Message): Message {
  return { ...message, blocks: message.blocks.map(redactBlock) };
}

/** Messages read in batches, redacted as they pass (a streamed transcript is never held whole). */
export async function* redactBatches(batches: AsyncIterable<readonly Message[]>): AsyncIterable<readonly Message[]> {
  for await (const batch of batches) yield batch.map(redactMessage);
}
