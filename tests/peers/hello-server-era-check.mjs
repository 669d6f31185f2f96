#!/usr/bin/env node
// Checks hello-server (examples/hello-server, the benchmark's server) on the raw wire in both
// eras, over stdio and its HTTP endpoint:
//   node hello-server-era-check.mjs <hello-server binary>
// 2025 era: initialize negotiates a 2025 revision and results carry no 2026 fields; HTTP still
// wants the session. 2026-07-28: server/discover answers the era probe; a request whose _meta
// names 2026-07-28 is served with no initialize and no session, with resultType (and ttlMs /
// cacheScope on cacheable results); another revision in _meta is -32022; over HTTP a
// MCP-Protocol-Version header that disagrees with _meta is 400 / -32020.
import { spawn } from 'node:child_process';
import readline from 'node:readline';
import process from 'node:process';

const binary = process.argv[2];
if (!binary) { console.error('usage: hello-server-era-check.mjs <hello-server>'); process.exit(2); }
let failures = 0;
const check = (name, ok, detail) => {
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${name}${detail === undefined ? '' : `: ${typeof detail === 'string' ? detail : JSON.stringify(detail)}`}`);
  if (!ok) ++failures;
};
const META = 'io.modelcontextprotocol/protocolVersion';
const envelope = (version = '2026-07-28') => ({
  [META]: version,
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'era-check', version: '1' },
});
const withTimeout = (promise, ms, what) => Promise.race([promise,
  new Promise((_, reject) => setTimeout(() => reject(new Error(`${what}: no answer in ${ms} ms`)), ms))]);

async function stdioChecks() {
  const child = spawn(binary, [], { stdio: ['pipe', 'pipe', 'inherit'] });
  const waiting = new Map();
  readline.createInterface({ input: child.stdout }).on('line', (line) => {
    const msg = JSON.parse(line);
    waiting.get(msg.id)?.(msg);
  });
  let nextId = 0;
  const rpc = (method, params) => {
    const id = ++nextId;
    child.stdin.write(JSON.stringify({ jsonrpc: '2.0', id, method, params }) + '\n');
    return withTimeout(new Promise((resolve) => waiting.set(id, resolve)), 5000, `stdio ${method}`);
  };
  // Modern first, on a fresh process: no initialize at all.
  const discover = await rpc('server/discover', { _meta: envelope() });
  check('stdio server/discover', discover.result?.resultType === 'complete' &&
    JSON.stringify(discover.result.supportedVersions) === '["2026-07-28"]' && discover.result.ttlMs === 0 &&
    discover.result.cacheScope === 'private' && discover.result.capabilities?.tools !== undefined, discover.result);
  const add = await rpc('tools/call', { name: 'add', arguments: { a: 2, b: 3 }, _meta: envelope() });
  check('stdio modern tools/call add', add.result?.resultType === 'complete' && add.result.structuredContent?.sum === 5 &&
    add.result._meta?.['io.modelcontextprotocol/serverInfo']?.name === 'hello-mcp', add.result);
  const list = await rpc('tools/list', { _meta: envelope() });
  check('stdio modern tools/list', list.result?.resultType === 'complete' && list.result.ttlMs === 0 &&
    Array.isArray(list.result.tools), { resultType: list.result?.resultType, ttlMs: list.result?.ttlMs });
  const ping = await rpc('ping', { _meta: envelope() });
  check('stdio modern ping', ping.result?.resultType === 'complete', ping.result);
  const wrong = await rpc('tools/list', { _meta: envelope('2027-01-01') });
  check('stdio unknown revision in _meta', wrong.error?.code === -32022 && wrong.error.data?.requested === '2027-01-01' &&
    wrong.error.data?.supported?.[0] === '2026-07-28', wrong.error);
  // Legacy on the same process: unchanged.
  const init = await rpc('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } });
  check('stdio initialize', init.result?.protocolVersion === '2025-11-25' && init.result.resultType === undefined, init.result?.protocolVersion);
  const init26 = await rpc('initialize', { protocolVersion: '2026-07-28', capabilities: {}, clientInfo: { name: 'x', version: '1' } });
  check('stdio initialize never negotiates 2026-07-28', init26.result?.protocolVersion === '2025-11-25', init26.result?.protocolVersion);
  const legacyAdd = await rpc('tools/call', { name: 'add', arguments: { a: 2, b: 3 } });
  check('stdio legacy tools/call add', legacyAdd.result?.structuredContent?.sum === 5 && legacyAdd.result.resultType === undefined, legacyAdd.result);
  child.stdin.end();
  await withTimeout(new Promise((resolve) => child.on('exit', resolve)), 5000, 'stdio exit');
}

async function httpChecks() {
  const child = spawn(binary, ['--http', '--port', '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    const url = await withTimeout(new Promise((resolve) => {
      let out = '';
      child.stdout.on('data', (d) => { out += d; const m = out.match(/listening on (\S+)/); if (m) resolve(m[1]); });
    }), 5000, 'http listen');
    let nextId = 0;
    const post = async (method, params, headers = {}) => {
      const res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
        body: JSON.stringify({ jsonrpc: '2.0', id: ++nextId, method, params }),
      });
      return { status: res.status, session: res.headers.get('mcp-session-id'), body: await res.json().catch(() => null) };
    };
    const modernHeaders = { 'mcp-protocol-version': '2026-07-28' };
    const discover = await post('server/discover', { _meta: envelope() }, modernHeaders);
    check('http server/discover, no session', discover.status === 200 && discover.session === null &&
      discover.body?.result?.supportedVersions?.[0] === '2026-07-28', { status: discover.status, session: discover.session });
    const add = await post('tools/call', { name: 'add', arguments: { a: 4, b: 5 }, _meta: envelope() }, modernHeaders);
    check('http modern tools/call add, no session', add.status === 200 && add.body?.result?.resultType === 'complete' &&
      add.body.result.structuredContent?.sum === 9, { status: add.status, result: add.body?.result });
    const mismatch = await post('tools/list', { _meta: envelope() }, { 'mcp-protocol-version': '2025-11-25' });
    check('http header disagrees with _meta', mismatch.status === 400 && mismatch.body?.error?.code === -32020, mismatch);
    const wrong = await post('tools/list', { _meta: envelope('2027-01-01') });
    check('http unknown revision in _meta', wrong.status === 400 && wrong.body?.error?.code === -32022 &&
      wrong.body.error.data?.requested === '2027-01-01' && wrong.body.error.data?.supported?.[0] === '2026-07-28', wrong.body?.error);
    const legacyNoSession = await post('tools/list', {});
    check('http legacy request still needs a session', legacyNoSession.status === 400, legacyNoSession.status);
    const init = await post('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } });
    check('http initialize gives a session', init.status === 200 && init.session !== null, init.status);
    const legacy = await post('tools/call', { name: 'add', arguments: { a: 1, b: 1 } },
      { 'mcp-session-id': init.session, 'mcp-protocol-version': '2025-11-25' });
    check('http legacy tools/call in the session', legacy.body?.result?.structuredContent?.sum === 2 &&
      legacy.body.result.resultType === undefined, legacy.body?.result);
  } finally {
    child.kill();
  }
}

try {
  await stdioChecks();
  await httpChecks();
} catch (error) {
  check('exception', false, error?.stack ?? String(error));
}
process.exit(failures ? 1 : 0);
