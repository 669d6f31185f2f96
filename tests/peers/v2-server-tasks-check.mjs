#!/usr/bin/env node
// Checks v2-server.mjs's Tasks extension (slow_task, tasks/get, tasks/cancel) on the raw
// 2026-07-28 wire, no SDK client (the v2 client has no Tasks support of its own):
//   node v2-server-tasks-check.mjs <stdio|http>
import { spawn } from 'node:child_process';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import process from 'node:process';

const transport = process.argv[2];
const serverJs = path.join(path.dirname(fileURLToPath(import.meta.url)), 'v2-server.mjs');
let failures = 0;
const check = (name, ok, detail) => {
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${name}${detail === undefined ? '' : `: ${JSON.stringify(detail)}`}`);
  if (!ok) ++failures;
};
const TASKS = 'io.modelcontextprotocol/tasks';
const envelope = (withTasks) => ({
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'tasks-check', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': withTasks ? { extensions: { [TASKS]: {} } } : {},
});
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const bounded = (promise, what) => Promise.race([promise,
  new Promise((_, reject) => setTimeout(() => reject(new Error(`${what}: no answer in 10 s`)), 10000))]);

async function open() {
  const child = spawn(process.execPath, [serverJs, '--transport', transport, '--legacy', 'reject'],
    { stdio: ['pipe', 'pipe', 'inherit'] });
  let nextId = 0;
  if (transport === 'stdio') {
    const waiting = new Map();
    readline.createInterface({ input: child.stdout }).on('line', (line) => {
      const msg = JSON.parse(line);
      if (msg.id !== undefined) waiting.get(msg.id)?.(msg);
    });
    const rpc = (method, params) => {
      const id = ++nextId;
      child.stdin.write(JSON.stringify({ jsonrpc: '2.0', id, method, params }) + '\n');
      return bounded(new Promise((resolve) => waiting.set(id, resolve)), method);
    };
    return { child, rpc };
  }
  const url = await bounded(new Promise((resolve) => {
    let out = '';
    child.stdout.on('data', (d) => { out += d; const m = out.match(/listening on (\S+)/); if (m) resolve(m[1]); });
  }), 'listen');
  const rpc = async (method, params) => {
    const res = await bounded(fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json', accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28', 'mcp-method': method,
        // SEP-2243 Mcp-Name: the tool name for tools/call, the task id for tasks/* (the SDK
        // rejects a tasks/* POST without it: -32020, 400)
        ...((params.name ?? params.taskId) ? { 'mcp-name': params.name ?? params.taskId } : {}),
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: ++nextId, method, params }),
    }), method);
    const body = await res.text();
    const data = body.startsWith('{') ? body : body.split('\n').filter((l) => l.startsWith('data: ')).pop()?.slice(6);
    return JSON.parse(data);
  };
  return { child, rpc };
}

async function main() {
  const { child, rpc } = await open();
  try {
    const discover = await rpc('server/discover', { _meta: envelope(true) });
    check('server/discover advertises the Tasks extension', discover.result?.capabilities?.extensions?.[TASKS] !== undefined,
      discover.result?.capabilities);
    const inline = await rpc('tools/call', { name: 'slow_task', arguments: { steps: 2, ms: 20 }, _meta: envelope(false) });
    check('slow_task without the extension runs inline', inline.result?.resultType === 'complete' &&
      inline.result.structuredContent?.task === false, inline.result);
    const created = await rpc('tools/call', { name: 'slow_task', arguments: { steps: 3, ms: 100 }, _meta: envelope(true) });
    const taskId = created.result?.taskId;
    check('slow_task with the extension returns a task', created.result?.resultType === 'task' &&
      created.result.status === 'working' && typeof taskId === 'string' && created.result.pollIntervalMs === 100, created.result);
    let polled;
    for (let i = 0; i < 50; ++i) {
      polled = await rpc('tasks/get', { taskId, _meta: envelope(true) });
      if (polled.result?.status !== 'working') break;
      await sleep(100);
    }
    check('tasks/get reaches completed with the tool result', polled.result?.status === 'completed' &&
      polled.result.result?.content?.[0]?.text === 'done' && polled.result.statusMessage === 'step 3/3', polled.result);
    const second = await rpc('tools/call', { name: 'slow_task', arguments: { steps: 50, ms: 100 }, _meta: envelope(true) });
    const cancel = await rpc('tasks/cancel', { taskId: second.result?.taskId, _meta: envelope(true) });
    check('tasks/cancel acknowledged', cancel.result?.resultType === 'complete', cancel);
    const afterCancel = await rpc('tasks/get', { taskId: second.result?.taskId, _meta: envelope(true) });
    check('cancelled task reads cancelled', afterCancel.result?.status === 'cancelled', afterCancel.result);
    const count = await rpc('tools/call', { name: 'cancellations', arguments: {}, _meta: envelope(true) });
    check('cancellations counts it', count.result?.structuredContent?.cancelled === 1, count.result?.structuredContent);
    const unknown = await rpc('tasks/get', { taskId: 'no-such-task', _meta: envelope(true) });
    check('unknown task is an error', unknown.error?.code === -32602, unknown.error);
  } finally {
    child.kill();
  }
}

main().then(() => process.exit(failures ? 1 : 0), (error) => {
  console.log(`FAIL exception: ${error?.stack ?? error}`);
  process.exit(1);
});
