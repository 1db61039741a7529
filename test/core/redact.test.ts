// `--redact`: secrets of the common published shapes are masked; text that only looks like the start of one stays.
// The secrets are made here from a fixed seed (the right alphabets and lengths, never a real key), so no scanner
// takes this file for a leak.
import { describe, expect, it } from 'vitest';
import { redactMessage, redactSecrets } from '../../src/core/redact.js';

/** `n` characters of `alphabet`, the same on every run. */
function chars(alphabet: string, n: number, seed: number): string {
  let x = seed;
  let out = '';
  for (let i = 0; i < n; i++) {
    x = (x * 1103515245 + 12345) % 2147483648;
    out += alphabet[x % alphabet.length];
  }
  return out;
}
const UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
const ALNUM = `${UPPER}abcdefghijklmnopqrstuvwxyz0123456789`;
const B32 = `${UPPER}234567`;
const B64 = `${ALNUM}/+`;
const URL64 = `${ALNUM}_-`;
const b64url = (text: string): string => Buffer.from(text).toString('base64url');

const SECRETS: ReadonlyArray<readonly [string, string, string]> = [
  ['AWS access key id', `AKIA${chars(B32, 16, 1)}`, 'aws-access-key-id'],
  ['AWS temporary key id', `ASIA${chars(B32, 16, 2)}`, 'aws-access-key-id'],
  ['GitHub classic token', `ghp_${chars(ALNUM, 36, 3)}`, 'github-token'],
  ['GitHub OAuth token', `gho_${chars(ALNUM, 36, 4)}`, 'github-token'],
  ['GitHub app token', `ghs_${chars(ALNUM, 36, 5)}`, 'github-token'],
  ['GitHub fine-grained PAT', `github_pat_${chars(ALNUM, 22, 6)}_${chars(ALNUM, 59, 7)}`, 'github-token'],
  ['OpenAI project key', `sk-proj-${chars(URL64, 156, 8)}`, 'openai-key'],
  ['OpenAI legacy key', `sk-${chars(ALNUM, 48, 9)}`, 'openai-key'],
  ['OpenAI service account key', `sk-svcacct-${chars(URL64, 120, 10)}`, 'openai-key'],
  ['Anthropic API key', `sk-ant-api03-${chars(URL64, 93, 11)}AA`, 'anthropic-key'],
  ['Anthropic admin key', `sk-ant-admin01-${chars(URL64, 93, 12)}AA`, 'anthropic-key'],
  ['JWT', `${b64url('{"alg":"HS256","typ":"JWT"}')}.${b64url('{"sub":"1234567890","name":"dev","iat":1516239022}')}.${chars(URL64, 43, 13)}`, 'jwt'],
];

const PEM_RSA = `-----BEGIN RSA PRIVATE KEY-----\n${chars(B64, 64, 14)}\n${chars(B64, 64, 15)}\n${chars(B64, 20, 16)}==\n-----END RSA PRIVATE KEY-----`;
const PEM_OPENSSH = `-----BEGIN OPENSSH PRIVATE KEY-----\n${chars(B64, 70, 17)}\n${chars(B64, 70, 18)}\n-----END OPENSSH PRIVATE KEY-----`;
const PEM_PKCS8 = `-----BEGIN PRIVATE KEY-----\n${chars(B64, 64, 19)}\n-----END PRIVATE KEY-----`;
const AWS_SECRET = chars(B64, 40, 20);

describe('redactSecrets', () => {
  it.each(SECRETS)('masks a %s in running text', (_label, secret, kind) => {
    const text = `export KEY=${secret}\nthen "${secret}", and (${secret}).`;
    const out = redactSecrets(text);
    expect(out).not.toContain(secret);
    expect(out).toBe(`export KEY=[REDACTED ${kind}]\nthen "[REDACTED ${kind}]", and ([REDACTED ${kind}]).`);
  });

  it.each([
    ['RSA', PEM_RSA],
    ['OpenSSH', PEM_OPENSSH],
    ['PKCS#8', PEM_PKCS8],
  ])('masks a whole PEM private key (%s), header to footer', (_label, pem) => {
    const out = redactSecrets(`key:\n${pem}\nafter`);
    expect(out).toBe('key:\n[REDACTED private-key]\nafter');
  });

  it('masks an AWS secret access key where it is named, keeping the name', () => {
    expect(redactSecrets(`aws_secret_access_key = ${AWS_SECRET}`)).toBe('aws_secret_access_key = [REDACTED aws-secret-key]');
    expect(redactSecrets(`AWS_SECRET_ACCESS_KEY=${AWS_SECRET}`)).toBe('AWS_SECRET_ACCESS_KEY=[REDACTED aws-secret-key]');
    expect(redactSecrets(`{"SecretAccessKey": "${AWS_SECRET}"}`)).toBe('{"SecretAccessKey": "[REDACTED aws-secret-key]"}');
  });

  it('masks secrets inside JSON-escaped tool input and in every kind of block', () => {
    const [, token] = SECRETS[2]!;
    const message = redactMessage({
      role: 'assistant',
      userTurn: false,
      blocks: [
        { type: 'text', text: `use ${token}` },
        { type: 'tool_use', id: 't1', name: 'Bash', input: JSON.stringify({ command: `curl -H "Authorization: token ${token}" api` }) },
        { type: 'tool_result', toolUseId: 't1', output: `GITHUB_TOKEN=${token}`, isError: false },
        { type: 'reasoning', summary: `the token ${token} works`, encrypted: false },
      ],
    });
    expect(JSON.stringify(message)).not.toContain(token);
    expect(JSON.stringify(message).match(/\[REDACTED github-token\]/g)).toHaveLength(4);
  });

  // Near-misses: text that starts like a secret, or a public identifier of the same family.
  it.each([
    ['a Python package', 'pip install sk-learn scikit-learn'],
    ['a short sk- word', 'the sk-1234 ticket and sk-proj-short'],
    ['AKIA in prose', 'AKIA is the prefix of long-term AWS key ids'],
    ['an AKIA-like id too short', `AKIA${chars(B32, 12, 21)}`],
    ['an AKIA-like id with lowercase', `AKIA${chars(ALNUM, 16, 22).toLowerCase()}`],
    ['a ghp_ example too short', 'ghp_xxxxxxxx is a placeholder'],
    ['a GitHub URL', 'https://github.com/openai/codex/pull/1234'],
    ['a git commit hash', '84916b5c1f2e3d4a5b6c7d8e9f0a1b2c3d4e5f60'],
    ['a UUID', '3e88d315-7144-400c-90c6-61cb05f07877'],
    ['a base64 blob not named as a secret', chars(B64, 40, 23)],
    ['a public key', `-----BEGIN PUBLIC KEY-----\n${chars(B64, 64, 24)}\n-----END PUBLIC KEY-----`],
    ['a certificate', `-----BEGIN CERTIFICATE-----\n${chars(B64, 64, 25)}\n-----END CERTIFICATE-----`],
    ['a private key header alone', '-----BEGIN RSA PRIVATE KEY----- (truncated)'],
    ['a dotted version string', 'eyJhbGci.eyJzdWIi.short'],
    ['the words', 'set OPENAI_API_KEY and ANTHROPIC_API_KEY in your shell'],
  ])('leaves %s alone', (_label, text) => {
    expect(redactSecrets(text)).toBe(text);
  });
});
