/** Naming a session as Qwen Code's `/rename` does: a `custom_title` system record appended to the chat, after its leaf. */
import { randomUUID } from 'node:crypto';
import { appendLines } from '../../io/atomic.js';
import type { AgentRename } from '../types.js';
import { livePath, qwenChain, readQwenFile } from './session.js';

export const qwenRename: AgentRename = {
  where: 'a `{"type":"system","subtype":"custom_title","systemPayload":{"customTitle":NAME,"titleSource":"manual"}}` record appended to the chat file, as `/rename` writes',
  async write(group, id, name, now) {
    const path = livePath(group);
    const file = await readQwenFile(path);
    const leaf = qwenChain(file.records).at(-1) ?? file.records.at(-1);
    await appendLines(path, [
      JSON.stringify({
        uuid: randomUUID(),
        parentUuid: leaf?.uuid ?? null,
        sessionId: id,
        timestamp: now.toISOString(),
        type: 'system',
        subtype: 'custom_title',
        ...(leaf?.value.cwd === undefined ? {} : { cwd: leaf.value.cwd }),
        ...(leaf?.value.version === undefined ? {} : { version: leaf.value.version }),
        systemPayload: { customTitle: name, titleSource: 'manual' },
      }),
    ]);
  },
};
