#!/bin/sh
":" /*
# Run by sh first, then as JavaScript by the Node it starts. Node 20 reads every certificate of NODE_EXTRA_CA_CERTS's
# bundle before any script runs (80-100 ms of each start for a 220 KB bundle); sessions opens no TLS connection, so
# its own Node starts without the variable, and src/start.ts gives it back to every process sessions starts.
if [ -n "${NODE_EXTRA_CA_CERTS-}" ]; then
  SESSIONS_HELD_NODE_EXTRA_CA_CERTS=$NODE_EXTRA_CA_CERTS
  export SESSIONS_HELD_NODE_EXTRA_CA_CERTS
  unset NODE_EXTRA_CA_CERTS
fi
exec node "$0" "$@"
*/
// CommonJS (bin/package.json): Node starts it without its ES module loader. start() reports its own failures.
require('../dist/bundle/start.cjs').start(process.argv);
