/** Naming a session as opencode does (`/rename`, the session's title): its `session.title` row, updated in one transaction. */
import { openForWriting } from '../../io/sqlite.js';
import type { AgentRename } from '../types.js';
import type { OpencodeDialect } from './dialect.js';

export const opencodeRename = (dialect: OpencodeDialect): AgentRename => ({
  where: `the \`title\` of its row in the \`session\` table of \`${dialect.dbName}\` (what ${dialect.label}'s session list shows)`,
  write: (group, id, name) =>
    new Promise<void>((resolve) => {
    const path = group.paths[0];
    if (path === undefined) throw new Error(`a ${dialect.label} session has no database`);
    const db = openForWriting(path);
    try {
      const update = db.transaction(() => db.prepare('UPDATE session SET title = ? WHERE id = ?').run(name, id).changes);
      if (update.immediate() !== 1) throw new Error(`${path}: no ${dialect.label} session ${id}`);
    } finally {
      db.close();
    }
    resolve();
  }),
});
