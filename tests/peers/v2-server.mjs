#!/usr/bin/env node
// A real 2026-07-28 ("modern" era) MCP server built on the official TypeScript server SDK
// (@modelcontextprotocol/server, pinned in package.json), for mcph's integration tests.
//
//   node v2-server.mjs --transport stdio|http --legacy reject|default [--port N] [--ttl-ms N]
//
// --legacy default  serves 2025-era clients too (the SDK's default: stdio pins a legacy
//                   connection after `initialize`; HTTP answers each legacy POST statelessly)
// --legacy reject   modern only: a 2025-era opening gets the unsupported-protocol-version error
// --port N          HTTP port on 127.0.0.1 (default 0: any free port)
// --ttl-ms N        ttlMs on the cacheable results: tools/prompts/resources lists, resources/read
//                   and server/discover (default 2000, cacheScope "public")
//
// HTTP prints "listening on http://127.0.0.1:PORT/mcp" on stdout once it accepts connections.
// Diagnostics go to stderr only (stdout is the stdio transport).
//
// Tools (text content, plus structuredContent where shown):
//   echo {text}            -> text unchanged
//   ask_name               -> MRTR elicitation (form, {name}); "Hello, <name>" {action,name} or "no name: <action>"
//   open_link              -> MRTR elicitation (URL mode, https://example.com/mcph-consent); "link: <action>"
//   summarize {text}       -> MRTR sampling ("Summarize: <text>", maxTokens 100); "summary: <model text>" {summary,model}
//   regional_lookup {region, x-mcp-header Region}
//                          -> "region=<arg> header=<Mcp-Param-Region seen, or (none)>" {region,header}
//   add_tool {name}        -> "added <name>"; tool <name> ("I am <name>") appears, tools/list_changed sent
//   list_calls             -> "<number of tools/list requests answered>" {toolsList}
//   slow {steps,ms}        -> progress notifications "step i" (with a progressToken), then "done";
//                             on cancel "cancelled" (and `cancellations` counts it)
//   slow_task {steps,ms}   -> Tasks extension: a CreateTaskResult (resultType "task") when the request's
//                             clientCapabilities.extensions declare io.modelcontextprotocol/tasks, else inline "done"
//   ask_task               -> Tasks extension: a task input_required from its first tasks/get (elicitation "name", form) that
//                             tasks/update answers; then completed "Hello, <name>" {name, updates}
//   cancellations          -> "<number of cancelled slow calls and tasks>" {cancelled}
// Prompt greet {name} -> user message "Please greet <name>."; resource info://server -> "mcph-v2-peer (<era> era)".
//
// The tools are written once and serve both eras: on 2025-era connections the SDK's legacy
// shim turns an input_required return into real server->client requests (elicitation/create,
// sampling/createMessage) and re-enters the handler with the answers.
import http from 'node:http';
import process from 'node:process';
import {
  McpServer,
  createMcpHandler,
  fromJsonSchema,
  inputRequired,
  inputResponse,
} from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { toNodeHandler } from '@modelcontextprotocol/node';

function parseArgs(argv) {
  const opts = { transport: 'stdio', legacy: 'default', port: 0, ttlMs: 2000 };
  for (let i = 0; i < argv.length; ++i) {
    const flag = argv[i];
    const value = argv[i + 1];
    if (flag === '--transport' && (value === 'stdio' || value === 'http')) opts.transport = value;
    else if (flag === '--legacy' && (value === 'reject' || value === 'default')) opts.legacy = value;
    else if (flag === '--port' && /^\d+$/.test(value ?? '')) opts.port = Number(value);
    else if (flag === '--ttl-ms' && /^\d+$/.test(value ?? '')) opts.ttlMs = Number(value);
    else {
      process.stderr.write(`v2-server: bad argument ${flag} ${value ?? ''}\n` +
        'usage: v2-server.mjs --transport stdio|http --legacy reject|default [--port N] [--ttl-ms N]\n');
      process.exit(2);
    }
    ++i;
  }
  return opts;
}

const opts = parseArgs(process.argv.slice(2));

// State shared by every server instance: over HTTP the SDK builds a fresh instance per request
// (stateless serving), so anything a later request must see lives here, not in the instance.
const state = {
  toolsListServed: 0,     // tools/list requests answered (proves client-side caching)
  slowCancelled: 0,       // `slow` calls that saw their abort signal
  taskUpdates: 0,         // ask_task answers taken by tasks/update
  addedTools: [],         // names added at run time by add_tool
  notifyToolsChanged: () => {},  // set by the serving entry (HTTP: the handler's notifier)
};

// The Tasks extension (io.modelcontextprotocol/tasks, 2026-07-28 wire shapes of
// modelcontextprotocol/ext-tasks): the SDK has no server side for it, so slow_task keeps its tasks
// here (module state: over HTTP tasks/get arrives at another per-request instance).
const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';
const tasks = new Map();  // taskId -> { status, createdAt, lastUpdatedAt, statusMessage, result, timer }
let nextTaskNumber = 0;
const TASK_TTL_MS = 60000;
const TASK_POLL_MS = 100;

function taskView(id) {
  const t = tasks.get(id);
  const view = {
    taskId: id, status: t.status, createdAt: t.createdAt, lastUpdatedAt: t.lastUpdatedAt,
    ttlMs: TASK_TTL_MS, pollIntervalMs: TASK_POLL_MS,
  };
  if (t.statusMessage !== undefined) view.statusMessage = t.statusMessage;
  if (t.status === 'completed') view.result = t.result;
  if (t.status === 'input_required') view.inputRequests = t.inputRequests;
  return view;
}

function startTask(steps, ms) {
  const id = `task-${++nextTaskNumber}`;
  const now = new Date().toISOString();
  const t = { status: 'working', createdAt: now, lastUpdatedAt: now, statusMessage: `step 0/${steps}` };
  tasks.set(id, t);
  let step = 0;
  const tick = () => {
    if (t.status !== 'working') return;
    ++step;
    t.lastUpdatedAt = new Date().toISOString();
    t.statusMessage = `step ${step}/${steps}`;
    if (step < steps) { t.timer = setTimeout(tick, ms); return; }
    t.status = 'completed';
    t.result = { resultType: 'complete', content: [{ type: 'text', text: 'done' }], structuredContent: { steps } };
  };
  t.timer = setTimeout(tick, ms);
  return id;
}

// ask_task: a task that turns input_required at once (an elicitation for a name, key "name"); the
// tasks/update answering it moves it to working, and 100 ms later to completed "Hello, <name>".
// Until then tasks/get keeps listing the request, as an eventually consistent server may.
function startInputTask() {
  const id = `task-${++nextTaskNumber}`;
  const now = new Date().toISOString();
  const t = { status: 'input_required', createdAt: now, lastUpdatedAt: now, statusMessage: 'waiting for a name' };
  t.inputRequests = {
    name: inputRequired.elicit({
      message: 'What is your name?',
      requestedSchema: { type: 'object', properties: { name: { type: 'string', title: 'Name' } }, required: ['name'] },
    }),
  };
  t.onUpdate = (responses) => {
    const answer = responses.name;
    if (!answer || t.status !== 'input_required') return;
    ++state.taskUpdates;
    t.onUpdate = undefined;
    t.timer = setTimeout(() => {
      if (t.status !== 'input_required') return;
      delete t.inputRequests;
      t.status = 'completed';
      t.lastUpdatedAt = new Date().toISOString();
      const name = answer.action === 'accept' ? String(answer.content?.name ?? '') : `(${answer.action})`;
      t.statusMessage = 'answered';
      t.result = { resultType: 'complete', content: [{ type: 'text', text: `Hello, ${name}` }], structuredContent: { name, updates: state.taskUpdates } };
    }, 100);
  };
  tasks.set(id, t);
  return id;
}

function knownTask(taskId) {
  if (!tasks.has(taskId)) throw Object.assign(new Error(`Unknown task ${taskId}`), { code: -32602 });
  return taskId;
}

function registerTaskHandlers(server) {
  const byId = { params: fromJsonSchema({ type: 'object', properties: { taskId: { type: 'string' } }, required: ['taskId'] }) };
  server.server.setRequestHandler('tasks/get', byId, async ({ taskId }) => taskView(knownTask(taskId)));
  server.server.setRequestHandler('tasks/cancel', byId, async ({ taskId }) => {
    const t = tasks.get(knownTask(taskId));
    if (t.status === 'working' || t.status === 'input_required') {
      clearTimeout(t.timer);
      t.status = 'cancelled';
      t.lastUpdatedAt = new Date().toISOString();
      ++state.slowCancelled;
    }
    return {};
  });
  // ask_task takes its answer here; slow_task asks for no input. Unknown keys are ignored (spec).
  server.server.setRequestHandler('tasks/update', {
    params: fromJsonSchema({ type: 'object', properties: { taskId: { type: 'string' }, inputResponses: { type: 'object' } }, required: ['taskId'] }),
  }, async ({ taskId, inputResponses }, c) => {
    const t = tasks.get(knownTask(taskId));
    // The SDK lifts inputResponses out of the params into the request context (as for MRTR).
    if (t.onUpdate) t.onUpdate(c?.mcpReq?.inputResponses ?? inputResponses ?? {});
    return {};
  });
}

const jsonSchema = (properties, required = []) =>
  fromJsonSchema({ type: 'object', properties, required, additionalProperties: false });
const text = (value, structuredContent) =>
  structuredContent === undefined
    ? { content: [{ type: 'text', text: value }] }
    : { content: [{ type: 'text', text: value }], structuredContent };

function registerAddedTool(server, name) {
  server.registerTool(name, { description: `Added at run time by add_tool; returns "I am ${name}"` },
    async () => text(`I am ${name}`));
}

function buildServer(ctx) {
  const cache = { ttlMs: opts.ttlMs, cacheScope: 'public' };
  const server = new McpServer(
    { name: 'mcph-v2-peer', version: '2.4.0' },
    {
      capabilities: {
        tools: { listChanged: true },
        prompts: { listChanged: true },
        resources: { listChanged: true },
        extensions: { [TASKS_EXTENSION]: {} },
      },
      cacheHints: {
        'tools/list': cache, 'prompts/list': cache, 'resources/list': cache,
        'resources/templates/list': cache, 'resources/read': cache, 'server/discover': cache,
      },
    });

  server.registerTool('echo', {
    description: 'Returns its text argument unchanged',
    inputSchema: jsonSchema({ text: { type: 'string' } }, ['text']),
  }, async ({ text: value }) => text(value));

  // Multi-round-trip elicitation, form mode: the first round asks, the retry carries the answer.
  server.registerTool('ask_name', {
    description: 'Asks the user for a name (elicitation, form mode) and greets them',
  }, async (c) => {  // a tool without inputSchema gets the context as its only argument
    const answer = inputResponse(c.mcpReq.inputResponses, 'name');
    if (answer.kind !== 'elicit') {
      return inputRequired({
        inputRequests: {
          name: inputRequired.elicit({
            message: 'What is your name?',
            requestedSchema: {
              type: 'object',
              properties: { name: { type: 'string', title: 'Name' } },
              required: ['name'],
            },
          }),
        },
      });
    }
    if (answer.action !== 'accept') return text(`no name: ${answer.action}`, { action: answer.action });
    const name = String(answer.content?.name ?? '');
    return text(`Hello, ${name}`, { action: 'accept', name });
  });

  // Multi-round-trip elicitation, URL mode (the 2026 shape: no elicitationId, no -32042 error).
  server.registerTool('open_link', {
    description: 'Asks the user to open a URL (elicitation, URL mode)',
  }, async (c) => {
    const answer = inputResponse(c.mcpReq.inputResponses, 'consent');
    if (answer.kind !== 'elicit') {
      return inputRequired({
        inputRequests: {
          consent: inputRequired.elicitUrl({
            message: 'Please open this page to continue',
            url: 'https://example.com/mcph-consent',
          }),
        },
      });
    }
    return text(`link: ${answer.action}`, { action: answer.action });
  });

  // Multi-round-trip sampling.
  server.registerTool('summarize', {
    description: "Asks the client's model to summarize the text (sampling)",
    inputSchema: jsonSchema({ text: { type: 'string' } }, ['text']),
  }, async ({ text: value }, c) => {
    const answer = inputResponse(c.mcpReq.inputResponses, 'summary');
    if (answer.kind !== 'sampling') {
      return inputRequired({
        inputRequests: {
          summary: inputRequired.createMessage({
            messages: [{ role: 'user', content: { type: 'text', text: `Summarize: ${value}` } }],
            maxTokens: 100,
          }),
        },
      });
    }
    const content = Array.isArray(answer.result.content) ? answer.result.content[0] : answer.result.content;
    const summary = content?.type === 'text' ? content.text : `(${content?.type ?? 'no'} content)`;
    return text(`summary: ${summary}`, { summary, model: answer.result.model ?? '' });
  });

  // SEP-2243: the client mirrors `region` into the Mcp-Param-Region header (HTTP, modern era);
  // the SDK checks header and argument agree before the handler runs. The tool reports both.
  server.registerTool('regional_lookup', {
    description: 'Returns the region argument and the Mcp-Param-Region header it arrived with',
    inputSchema: jsonSchema({ region: { type: 'string', 'x-mcp-header': 'Region' } }, ['region']),
  }, async ({ region }, c) => {
    const header = c.http?.req?.headers.get('mcp-param-region') ?? null;
    return text(`region=${region} header=${header ?? '(none)'}`, { region, header });
  });

  server.registerTool('add_tool', {
    description: 'Adds a tool with the given name; listeners get notifications/tools/list_changed',
    inputSchema: jsonSchema({ name: { type: 'string', pattern: '^[A-Za-z0-9_.-]{1,64}$' } }, ['name']),
  }, async ({ name }) => {
    if (!state.addedTools.includes(name)) {
      state.addedTools.push(name);
      // On stdio this instance is the connection's: registering on it sends list_changed
      // itself (legacy: unsolicited; modern: to subscriptions/listen streams).
      if (opts.transport === 'stdio') registerAddedTool(server, name);
      state.notifyToolsChanged();
    }
    return text(`added ${name}`, { tools: [...state.addedTools] });
  });

  server.registerTool('list_calls', {
    description: 'How many tools/list requests this server process has answered',
  }, async () => text(String(state.toolsListServed), { toolsList: state.toolsListServed }));

  // Long-running, with progress, cancellable (notifications/cancelled or dropping the request).
  server.registerTool('slow', {
    description: 'Sends `steps` progress notifications `ms` apart, then returns "done"; cancellable',
    inputSchema: jsonSchema({
      steps: { type: 'integer', minimum: 1, maximum: 100 },
      ms: { type: 'integer', minimum: 1, maximum: 10000 },
    }),
  }, async ({ steps = 5, ms = 200 }, c) => {
    const token = c.mcpReq._meta?.progressToken;
    for (let i = 1; i <= steps; ++i) {
      const aborted = await new Promise((resolve) => {
        if (c.mcpReq.signal.aborted) return resolve(true);
        const timer = setTimeout(() => resolve(false), ms);
        c.mcpReq.signal.addEventListener('abort', () => { clearTimeout(timer); resolve(true); }, { once: true });
      });
      if (aborted) {
        ++state.slowCancelled;
        process.stderr.write(`v2-server: slow cancelled at step ${i}\n`);
        return text('cancelled', { cancelledAtStep: i });
      }
      if (token !== undefined) {
        await c.mcpReq.notify({
          method: 'notifications/progress',
          params: { progressToken: token, progress: i, total: steps, message: `step ${i}` },
        });
      }
    }
    return text('done', { steps });
  });

  // Task-returning (Tasks extension) when the request's client capabilities declare it; for any
  // other client the same work runs inline, like `slow` (a task is never returned unasked).
  server.registerTool('slow_task', {
    description: 'Runs `steps` steps `ms` apart as a task (tasks/get shows "step i/n"); cancellable with tasks/cancel',
    inputSchema: jsonSchema({
      steps: { type: 'integer', minimum: 1, maximum: 100 },
      ms: { type: 'integer', minimum: 1, maximum: 10000 },
    }),
  }, async ({ steps = 5, ms = 200 }, c) => {
    const declared = c.mcpReq.envelope?.['io.modelcontextprotocol/clientCapabilities']?.extensions?.[TASKS_EXTENSION];
    if (declared === undefined) {
      await new Promise((resolve) => setTimeout(resolve, steps * ms));
      return text('done', { steps, task: false });
    }
    const id = startTask(steps, ms);
    return { resultType: 'task', ...taskView(id) };
  });

  server.registerTool('ask_task', {
    description: 'A task that asks for a name (input_required, answered with tasks/update), then greets',
  }, async (c) => {
    const declared = c.mcpReq.envelope?.['io.modelcontextprotocol/clientCapabilities']?.extensions?.[TASKS_EXTENSION];
    if (declared === undefined) return { ...text('tasks extension not declared'), isError: true };
    // Created working (the SDK's tools/call result check takes a CreateTaskResult with
    // inputRequests for a malformed input_required result); the first tasks/get shows the question.
    const id = startInputTask();
    const t = tasks.get(id);
    t.status = 'working';
    const created = { resultType: 'task', ...taskView(id) };
    t.status = 'input_required';
    return created;
  });

  server.registerTool('cancellations', {
    description: 'How many `slow` calls were cancelled',
  }, async () => text(String(state.slowCancelled), { cancelled: state.slowCancelled }));

  for (const name of state.addedTools) registerAddedTool(server, name);
  registerTaskHandlers(server);

  server.registerPrompt('greet', {
    description: 'A greeting for the given name',
    argsSchema: jsonSchema({ name: { type: 'string' } }, ['name']),
  }, async ({ name }) => ({
    messages: [{ role: 'user', content: { type: 'text', text: `Please greet ${name}.` } }],
  }));

  server.registerResource('info', 'info://server', {
    description: 'What this server is', mimeType: 'text/plain',
  }, async (uri) => ({
    contents: [{ uri: uri.href, mimeType: 'text/plain', text: `mcph-v2-peer (${ctx?.era ?? 'unknown'} era)` }],
  }));

  // Count tools/list by wrapping the SDK's own handler: McpServer installs it, and there is no
  // public hook on a served list (Protocol keeps its handlers in `_requestHandlers`).
  const handlers = server.server._requestHandlers;
  const listTools = handlers.get('tools/list');
  handlers.set('tools/list', (request, c) => { ++state.toolsListServed; return listTools(request, c); });
  return server;
}

const onerror = (error) => process.stderr.write(`v2-server: ${error?.message ?? error}\n`);

if (opts.transport === 'stdio') {
  serveStdio(buildServer, { legacy: opts.legacy === 'reject' ? 'reject' : 'serve', onerror });
} else {
  const handler = createMcpHandler(buildServer, {
    legacy: opts.legacy === 'reject' ? 'reject' : 'stateless',
    onerror,
  });
  state.notifyToolsChanged = () => handler.notify.toolsChanged();
  const node = toNodeHandler(handler, { onerror });
  const httpServer = http.createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    if (path !== '/mcp') { res.writeHead(404).end('not found\n'); return; }
    node(req, res).catch(onerror);
  });
  httpServer.listen(opts.port, '127.0.0.1', () => {
    process.stdout.write(`listening on http://127.0.0.1:${httpServer.address().port}/mcp\n`);
  });
  const stop = () => { handler.close().finally(() => httpServer.close(() => process.exit(0))); };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}
