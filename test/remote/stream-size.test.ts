// What a host's rows cost on the wire, over a real OpenSSH server (test/remote/sshd.ts): ssh reaches it through a
// relay (ProxyCommand) that counts the bytes the server sends. A host's `sessions` sends its rows as JSON, which
// compresses well: the stream is compressed (it was sent raw, 2.1 MB for 2,000 rows). And a second ask gets only
// the rows that changed since the first (every row was sent again on each list), with the others kept here.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { appendFile, cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOGIN_AS, sshAvailable, TestSshd } from './sshd.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BIN = join(ROOT, 'bin', 'sessions.js');
const FIXTURE_HOME = join(ROOT, 'test', 'fixtures', 'home');
const CODEX_DIR = '.codex/sessions/2026/11/22';
const SOURCE = `${CODEX_DIR}/rollout-2026-11-22T01-58-48-01a200fa-3a58-7971-88f2-72d291066439.jsonl`;
const COPIES = 300;

/**
 * A TCP relay for ssh's ProxyCommand: stdin/stdout to the server; the bytes the server has sent so far, written to a
 * file as they arrive (ssh kills its ProxyCommand when it is done).
 */
const RELAY = `const [host, port, out] = process.argv.slice(2);
const socket = require('net').connect(Number(port), host);
let received = 0;
process.stdin.pipe(socket);
socket.on('data', (chunk) => { received += chunk.length; require('fs').writeFileSync(out, String(received)); process.stdout.write(chunk); });
socket.on('close', () => process.exit(0));
process.stdin.on('end', () => socket.end());`;

const describeSsh = sshAvailable() || process.env.SESSIONS_ALLOW_NO_SSH !== '1' ? describe : describe.skip;

describeSsh(`a host's rows on the wire, ${LOGIN_AS}`, () => {
  let dir: string;
  let sandbox: string;
  let sshd: TestSshd;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'sessions-stream-size-'));
    sandbox = join(dir, 'sandbox');
    await mkdir(join(sandbox, 'local'), { recursive: true });
    sshd = await TestSshd.start(join(dir, 'sshd'), [{ name: 'with-sessions', withSessions: true }], BIN);
    const home = sshd.host('with-sessions').home;
    await mkdir(join(home, CODEX_DIR), { recursive: true });
    // Many sessions: copies of one, each with its own id and prompts (random text: rows that compress as real ones do, not as copies).
    const text = await readFile(join(FIXTURE_HOME, SOURCE), 'utf8');
    const id = '01a200fa-3a58-7971-88f2-72d291066439';
    for (let i = 0; i < COPIES; i++) {
      const copy = `01a200fa-3a58-7971-88f2-${i.toString(16).padStart(12, '0')}`;
      const words = (): string => randomBytes(90).toString('base64');
      await writeFile(join(home, CODEX_DIR, `rollout-2026-11-22T01-58-48-${copy}.jsonl`), text.replaceAll(id, copy).replaceAll('please run ls and summarise the project', words()).replaceAll('second turn, why is that?', words()));
    }
    await cp(join(FIXTURE_HOME, SOURCE), join(home, SOURCE));
    await sshd.handOver();
    await writeFile(join(sandbox, 'relay.cjs'), RELAY);
    const proxy = `ProxyCommand ${process.execPath} ${join(sandbox, 'relay.cjs')} 127.0.0.1 ${sshd.host('with-sessions').port} ${join(sandbox, 'received')}`;
    await writeFile(join(sandbox, 'config.json'), JSON.stringify({ ssh: [...sshd.ssh, '-o', proxy], connectTimeout: 10 }));
  }, 120_000);

  afterAll(async () => {
    await sshd?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  function list(): Promise<{ code: number; stdout: string; stderr: string }> {
    return new Promise((resolve) => {
      execFile(
        process.execPath,
        [BIN, 'list', '--home', join(sandbox, 'local'), '--all', '--json', '--host', 'with-sessions'],
        { cwd: sandbox, maxBuffer: 64 * 1024 * 1024, env: { PATH: process.env.PATH, HOME: sandbox, XDG_CACHE_HOME: join(sandbox, 'cache'), SESSIONS_CONFIG: join(sandbox, 'config.json') } },
        (error, stdout, stderr) => resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
      );
    });
  }

  it("the rows of a host's sessions cross compressed; a second ask brings only what changed", async () => {
    const result = await list();
    expect(result.code, result.stderr).toBe(0);
    const rows = JSON.parse(result.stdout) as unknown[];
    expect(rows.length).toBe(COPIES + 1);
    // What the host's sessions sent: one NDJSON line per row, at least this many bytes.
    const rawBytes = rows.reduce<number>((sum, row) => sum + JSON.stringify(row).length + 1, 0);
    const received = Number(await readFile(join(sandbox, 'received'), 'utf8'));
    expect(received).toBeGreaterThan(0);
    // The whole connection (key exchange and login included) is well under the rows' JSON.
    expect(received).toBeLessThan(rawBytes / 2);
    // One session grows by a turn on the host, another is removed: the next ask sends those alone.
    const home = sshd.host('with-sessions').home;
    const grown = `01a200fa-3a58-7971-88f2-${(7).toString(16).padStart(12, '0')}`;
    const gone = `01a200fa-3a58-7971-88f2-${(8).toString(16).padStart(12, '0')}`;
    const before = (JSON.parse(result.stdout) as { id: string; userTurns: number }[]).find((row) => row.id === grown)!.userTurns;
    const turn = { timestamp: '2026-11-22T02:10:00.000Z', type: 'event_msg', payload: { type: 'user_message', message: 'a third turn' } };
    const message = { timestamp: '2026-11-22T02:10:00.000Z', type: 'response_item', payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'a third turn' }] } };
    await appendFile(join(home, CODEX_DIR, `rollout-2026-11-22T01-58-48-${grown}.jsonl`), `${JSON.stringify(message)}\n${JSON.stringify(turn)}\n`);
    await rm(join(home, CODEX_DIR, `rollout-2026-11-22T01-58-48-${gone}.jsonl`));
    const second = await list();
    expect(second.code, second.stderr).toBe(0);
    const again = JSON.parse(second.stdout) as { id: string; userTurns: number }[];
    const secondBytes = Number(await readFile(join(sandbox, 'received'), 'utf8'));
    expect(again.length).toBe(COPIES);
    expect(again.some((row) => row.id === gone)).toBe(false);
    expect(again.find((row) => row.id === grown)!.userTurns).toBe(before + 1);
    // The rest is what the first ask brought, row for row.
    const unchanged = (rows: { id: string }[]) => rows.filter((row) => row.id !== grown && row.id !== gone).map((row) => JSON.stringify(row)).sort();
    expect(unchanged(again)).toEqual(unchanged(JSON.parse(result.stdout) as { id: string }[]));
    // A fraction of the first ask: the digests of the rows, one changed row, the key exchange.
    expect(secondBytes).toBeLessThan(received / 4);
  }, 120_000);
});
