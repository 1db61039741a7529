#!/usr/bin/env node
// The install step (`npm ci`, `npm install`): builds the native full-text search engine (native/search.c, Node-API
// only) with node-gyp, npm's own copy. It is optional: without a C compiler (or with any other build failure) the
// install still succeeds and grep uses its JavaScript engine, with the same results. With SESSIONS_REQUIRE_NATIVE=1
// (CI sets it) a failed build fails the install, so CI always tests the native engine.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const NATIVE = join(ROOT, 'native');
const BUILT = join(NATIVE, 'build', 'Release', 'sessions_search.node');
const required = process.env.SESSIONS_REQUIRE_NATIVE === '1';

/** npm names its node-gyp in lifecycle scripts; run by hand, the one beside this node's npm. */
function nodeGyp() {
  const named = process.env.npm_config_node_gyp;
  if (named && existsSync(named)) return named;
  const besideNode = join(dirname(process.execPath), '..', 'lib', 'node_modules', 'npm', 'node_modules', 'node-gyp', 'bin', 'node-gyp.js');
  return existsSync(besideNode) ? besideNode : null;
}

function fail(why) {
  const message = `sessions: the native search engine was not built (${why}); grep uses its JavaScript engine.`;
  if (required) {
    console.error(`${message}\nSESSIONS_REQUIRE_NATIVE=1: failing the install.`);
    process.exit(1);
  }
  console.warn(message);
  process.exit(0);
}

if (process.env.SESSIONS_SKIP_NATIVE === '1') fail('SESSIONS_SKIP_NATIVE=1');
const gyp = nodeGyp();
if (gyp === null) fail('node-gyp not found');
// This node's own headers when it has them (no download: works offline); else node-gyp's usual ones.
const installed = join(dirname(process.execPath), '..');
const nodedir = process.env.npm_config_nodedir || (existsSync(join(installed, 'include', 'node', 'node_api.h')) ? installed : null);
const result = spawnSync(process.execPath, [gyp, 'rebuild', '--directory', NATIVE, ...(nodedir ? [`--nodedir=${nodedir}`] : [])], { stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' });
if (result.status !== 0 || !existsSync(BUILT)) {
  process.stderr.write(result.stdout ?? '');
  process.stderr.write(result.stderr ?? '');
  fail(result.error ? result.error.message : `node-gyp exited with ${result.status}`);
}
console.log(`sessions: native search engine built (${BUILT.slice(ROOT.length + 1)})`);
