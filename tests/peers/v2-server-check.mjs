#!/usr/bin/env node
// Drives v2-server.mjs with the official clients, to check the peer itself (not mcph):
//   node v2-server-check.mjs <v2|v1> <stdio|http> <reject|default>
// v2 = @modelcontextprotocol/client 2.4.0 (versionNegotiation auto: modern when offered),
// v1 = @modelcontextprotocol/sdk 1.x (2025 era only). Prints one line per check; exit 0 when
// all passed. For --legacy reject with the v1 client, the expected outcome is a refused connect.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import process from 'node:process';

const [kind, transport, legacy] = process.argv.slice(2);
const here = path.dirname(fileURLToPath(import.meta.url));
const serverJs = path.join(here, 'v2-server.mjs');
const serverArgs = [serverJs, '--transport', transport, '--legacy', legacy, '--ttl-ms', '2000'];
let failures = 0;
const check = (name, ok, detail = '') => {
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${name}${detail ? `: ${detail}` : ''}`);
  if (!ok) ++failures;
};
const textOf = (result) => result.content?.find((c) => c.type === 'text')?.text ?? '';

async function startHttp() {
  const child = spawn(process.execPath, serverArgs, { stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error('server did not print its URL in 10 s')), 10000);
    child.stdout.on('data', (chunk) => {
      out += chunk;
      const m = out.match(/listening on (http:\/\/\S+)/);
      if (m) { clearTimeout(timer); resolve(m[1]); }
    });
    child.on('exit', (code) => reject(new Error(`server exited ${code}`)));
  });
  return { child, url };
}

async function loadClient() {
  if (kind === 'v2') {
    const m = await import('@modelcontextprotocol/client');
    const s = await import('@modelcontextprotocol/client/stdio');
    return { Client: m.Client, Http: m.StreamableHTTPClientTransport, Stdio: s.StdioClientTransport };
  }
  const c = await import('@modelcontextprotocol/sdk/client/index.js');
  const h = await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
  const s = await import('@modelcontextprotocol/sdk/client/stdio.js');
  const t = await import('@modelcontextprotocol/sdk/types.js');
  return { Client: c.Client, Http: h.StreamableHTTPClientTransport, Stdio: s.StdioClientTransport, types: t };
}

async function main() {
  const lib = await loadClient();
  let httpServer;
  let clientTransport;
  if (transport === 'http') {
    httpServer = await startHttp();
    clientTransport = new lib.Http(new URL(httpServer.url));
  } else {
    clientTransport = new lib.Stdio({ command: process.execPath, args: serverArgs, stderr: 'inherit' });
  }
  const options = { capabilities: { elicitation: { form: {}, url: {} }, sampling: {} } };
  if (kind === 'v2') options.versionNegotiation = { mode: 'auto' };
  const client = new lib.Client({ name: `check-${kind}`, version: '1.0.0' }, options);
  const onElicit = async (request) => {
    const params = request.params;
    return params.mode === 'url' ? { action: 'accept' } : { action: 'accept', content: { name: 'Alice' } };
  };
  const onSample = async () => ({ role: 'assistant', content: { type: 'text', text: 'short' }, model: 'fake-model' });
  if (kind === 'v2') {
    client.setRequestHandler('elicitation/create', onElicit);
    client.setRequestHandler('sampling/createMessage', onSample);
  } else {
    client.setRequestHandler(lib.types.ElicitRequestSchema, onElicit);
    client.setRequestHandler(lib.types.CreateMessageRequestSchema, onSample);
  }
  let listChanged = 0;
  const changedSeen = new Promise((resolve) => {
    const onChanged = () => { ++listChanged; resolve(); };
    if (kind === 'v2') client.setNotificationHandler('notifications/tools/list_changed', onChanged);
    else client.setNotificationHandler(lib.types.ToolListChangedNotificationSchema, onChanged);
  });

  try {
    await client.connect(clientTransport);
  } catch (error) {
    const refusedAsExpected = kind === 'v1' && legacy === 'reject';
    check('connect', refusedAsExpected, `${refusedAsExpected ? 'refused as expected' : 'failed'}: ${error.message}`);
    httpServer?.child.kill();
    return;
  }
  const version = client.getNegotiatedProtocolVersion?.() ?? client.transport?.protocolVersion ?? '';
  check('connect', !(kind === 'v1' && legacy === 'reject'), `protocol ${version || '(2025 era)'}`);
  const modern = String(version).startsWith('2026');

  const tools = await client.listTools();
  const names = tools.tools.map((t) => t.name);
  check('tools/list', ['echo', 'ask_name', 'open_link', 'summarize', 'regional_lookup', 'add_tool',
    'list_calls', 'slow', 'slow_task', 'cancellations'].every((n) => names.includes(n)), names.join(','));
  if (modern) check('tools/list ttlMs', tools.ttlMs === 2000, `ttlMs=${tools.ttlMs} cacheScope=${tools.cacheScope}`);

  const echo = await client.callTool({ name: 'echo', arguments: { text: 'hi there' } });
  check('echo', textOf(echo) === 'hi there', textOf(echo));
  // Legacy over HTTP is served statelessly, one instance per POST: there is no channel for the
  // SDK's legacy shim to send elicitation/sampling requests on, so those tools fail cleanly.
  const mrtrServed = modern || transport === 'stdio';
  const expectMrtr = (name, result, want) => {
    if (mrtrServed) check(name, textOf(result) === want, textOf(result));
    else check(`${name} refused (stateless legacy HTTP)`, result.isError === true && /per-request legacy serving/.test(textOf(result)), textOf(result));
  };
  expectMrtr('ask_name', await client.callTool({ name: 'ask_name', arguments: {} }), 'Hello, Alice');
  expectMrtr('open_link', await client.callTool({ name: 'open_link', arguments: {} }), 'link: accept');
  expectMrtr('summarize', await client.callTool({ name: 'summarize', arguments: { text: 'a long text' } }), 'summary: short');
  const region = await client.callTool({ name: 'regional_lookup', arguments: { region: 'eu-west-1' } });
  const wantHeader = modern && transport === 'http' ? 'eu-west-1' : '(none)';
  check('regional_lookup', textOf(region) === `region=eu-west-1 header=${wantHeader}`, textOf(region));

  // Caching: a second listTools within ttlMs is served from the v2 client's cache.
  const before = Number(textOf(await client.callTool({ name: 'list_calls', arguments: {} })));
  await client.listTools();
  const after = Number(textOf(await client.callTool({ name: 'list_calls', arguments: {} })));
  if (kind === 'v2' && modern) check('tools/list cached by client', after === before, `${before} -> ${after}`);
  else check('list_calls counts', after === before + 1, `${before} -> ${after}`);

  let progress = 0;
  const progressOptions = { onprogress: () => { ++progress; } };
  const slowParams = { name: 'slow', arguments: { steps: 3, ms: 50 } };
  const slow = kind === 'v2' ? await client.callTool(slowParams, progressOptions)
                             : await client.callTool(slowParams, undefined, progressOptions);
  // The server writes all 3 progress notifications before the result (checked on the raw wire);
  // both SDK clients may drop the last one on stdio (they dispatch notifications asynchronously
  // and retire the progress handler when the result arrives), so 2 is accepted.
  check('slow with progress', textOf(slow) === 'done' && progress >= 2, `${textOf(slow)} progress=${progress}`);

  // Cancellation: abort a long `slow` call; the server must see it (cancellations counter).
  const abort = new AbortController();
  const cancelOptions = { signal: abort.signal };
  const longParams = { name: 'slow', arguments: { steps: 50, ms: 100 } };
  const pending = (kind === 'v2' ? client.callTool(longParams, cancelOptions)
                                 : client.callTool(longParams, undefined, cancelOptions)).then(() => 'completed', () => 'rejected');
  setTimeout(() => abort.abort('test cancels'), 300);
  const outcome = await pending;
  let cancelled = 0;
  for (let i = 0; i < 30 && cancelled === 0; ++i) {
    cancelled = Number(textOf(await client.callTool({ name: 'cancellations', arguments: {} })));
    if (cancelled === 0) await new Promise((r) => setTimeout(r, 100));
  }
  // Stateless legacy HTTP: notifications/cancelled is a separate POST answered by another
  // per-request instance, and the v1 client keeps the call's own POST open, so the running call
  // never hears of it — only the client side can be checked there.
  if (mrtrServed) check('slow cancelled', outcome === 'rejected' && cancelled >= 1, `client ${outcome}, server saw ${cancelled}`);
  else check('slow cancelled (client side only)', outcome === 'rejected', `client ${outcome}, server saw ${cancelled}`);

  const prompt = await client.getPrompt({ name: 'greet', arguments: { name: 'Bob' } });
  check('prompt greet', prompt.messages[0]?.content?.text === 'Please greet Bob.', prompt.messages[0]?.content?.text);
  const res = await client.readResource({ uri: 'info://server' });
  check('resource info://server', res.contents[0]?.text?.startsWith('mcph-v2-peer ('), res.contents[0]?.text);

  // list_changed: modern clients listen (subscriptions/listen); legacy stdio gets it unsolicited.
  // Legacy over HTTP is stateless (no GET stream), so there is nowhere to deliver it.
  let subscription;
  if (modern) subscription = await client.listen({ toolsListChanged: true });
  const added = await client.callTool({ name: 'add_tool', arguments: { name: 'late_tool' } });
  check('add_tool', textOf(added) === 'added late_tool', textOf(added));
  if (modern || transport === 'stdio') {
    const got = await Promise.race([changedSeen.then(() => true), new Promise((r) => setTimeout(() => r(false), 5000))]);
    check('tools/list_changed delivered', got, `${listChanged} notification(s)`);
  }
  const late = await client.callTool({ name: 'late_tool', arguments: {} });
  check('late_tool', textOf(late) === 'I am late_tool', textOf(late));
  await subscription?.close();
  await client.close();
  httpServer?.child.kill();
}

main().then(() => process.exit(failures ? 1 : 0), (error) => {
  console.log(`FAIL exception: ${error?.stack ?? error}`);
  process.exit(1);
});
