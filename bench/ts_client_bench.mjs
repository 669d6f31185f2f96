// ts_client_bench.mjs — the official TypeScript MCP SDK (Client + StdioClientTransport, or
// StreamableHTTPClientTransport with --http URL) against hello-server. Prints one JSON object with
// the same keys as bench-raw-pipe and mcph-bench (see README.md).
//
// --sdk v1 (default): @modelcontextprotocol/sdk 1.x, the 2025 era only.
// --sdk v2: @modelcontextprotocol/client 2.x; --era legacy (default) connects with the plain 2025
// initialize handshake, --era modern pins 2026-07-28 (server/discover, then every request carries
// the _meta envelope and is served statelessly).
//
// The SDKs are loaded from tests/peers/node_modules (pinned by tests/peers/package-lock.json), found
// relative to this script; their CommonJS builds are used (same source as the ESM builds).
//
// usage: node ts_client_bench.mjs [--sdk v1|v2] [--era legacy|modern] [--server PATH] [--http URL]
//                                  [--calls N] [--inflight K] [--echo-calls M] [--echo-bytes B] [--connects C]
//                                  [--warmup W] [--one-shot]
// --one-shot: connect, one add, close, exit (run.sh times the whole process, as for `mcph call`).
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { readFileSync } from 'node:fs';

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(path.join(here, '..', 'tests', 'peers', 'package.json'));
// (the packages' exports do not all map package.json, so read the real one from disk)
const packageVersion = (name) => JSON.parse(
  readFileSync(path.join(here, '..', 'tests', 'peers', 'node_modules', '@modelcontextprotocol', name, 'package.json'), 'utf8'),
).version;

function loadSdk(sdk) {
  if (sdk === 'v2') {
    const { Client, StreamableHTTPClientTransport } = require('@modelcontextprotocol/client');
    const { StdioClientTransport } = require('@modelcontextprotocol/client/stdio');
    return { Client, StdioClientTransport, StreamableHTTPClientTransport, name: '@modelcontextprotocol/client', version: packageVersion('client') };
  }
  const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
  const { StdioClientTransport } = require('@modelcontextprotocol/sdk/client/stdio.js');
  const { StreamableHTTPClientTransport } = require('@modelcontextprotocol/sdk/client/streamableHttp.js');
  return { Client, StdioClientTransport, StreamableHTTPClientTransport, name: '@modelcontextprotocol/sdk', version: packageVersion('sdk') };
}

function parseArgs(argv) {
  const o = {
    server: path.join(here, '..', 'build', 'bin', 'hello-server'),
    sdk: 'v1', era: 'legacy', http: null, calls: 20000, inflight: 16, echoCalls: 50, echoBytes: 1 << 20, connects: 5,
    warmup: 1000, oneShot: false,
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const next = () => {
      if (i + 1 >= argv.length) throw new Error(`${a} needs a value`);
      return argv[++i];
    };
    if (a === '--sdk') o.sdk = next();
    else if (a === '--era') o.era = next();
    else if (a === '--server') o.server = next();
    else if (a === '--http') o.http = next();
    else if (a === '--calls') o.calls = Number(next());
    else if (a === '--inflight') o.inflight = Number(next());
    else if (a === '--echo-calls') o.echoCalls = Number(next());
    else if (a === '--echo-bytes') o.echoBytes = Number(next());
    else if (a === '--connects') o.connects = Number(next());
    else if (a === '--warmup') o.warmup = Number(next());
    else if (a === '--one-shot') o.oneShot = true;
    else throw new Error(`unknown argument ${a}`);
  }
  if (!['v1', 'v2'].includes(o.sdk)) throw new Error('--sdk must be v1 or v2');
  if (!['legacy', 'modern'].includes(o.era)) throw new Error('--era must be legacy or modern');
  if (o.sdk === 'v1' && o.era === 'modern') throw new Error('the v1 SDK speaks the 2025 era only');
  return o;
}

const opts = parseArgs(process.argv.slice(2));
const { Client, StdioClientTransport, StreamableHTTPClientTransport, ...sdk } = loadSdk(opts.sdk);

// Count Node warnings instead of printing them. Over HTTP the SDK (1.32.2) passes one shared
// AbortSignal to every fetch and undici adds a listener to it per request, so Node warns
// (MaxListenersExceededWarning) once per call after 1500 calls; that growth is part of what is
// measured, the warning text is not useful output. Reported as "node_warnings".
let nodeWarnings = 0;
process.removeAllListeners('warning');
process.on('warning', () => { nodeWarnings++; });

async function connect() {
  const options = opts.sdk === 'v2'
    ? { versionNegotiation: { mode: opts.era === 'modern' ? { pin: '2026-07-28' } : 'legacy' } }
    : undefined;
  const client = new Client({ name: 'ts-client-bench', version: '0.1.0' }, options);
  const transport = opts.http
    ? new StreamableHTTPClientTransport(new URL(opts.http))
    : new StdioClientTransport({ command: opts.server, args: [], stderr: 'inherit' });
  await client.connect(transport);  // legacy: initialize + notifications/initialized; modern: server/discover
  return { client, transport };
}

async function disconnect({ client, transport }) {
  // DELETE the session (legacy era; a modern connection has none)
  if (opts.http && opts.era === 'legacy') await transport.terminateSession().catch(() => {});
  await client.close();
}

const percentile = (sorted, p) =>
  sorted.length ? sorted[Math.min(sorted.length - 1, Math.round(p * (sorted.length - 1)))] : 0;

function check(result, what) {
  if (!result || result.isError || !Array.isArray(result.content)) {
    throw new Error(`${what}: unexpected result ${JSON.stringify(result).slice(0, 200)}`);
  }
  return result;
}

// CPU time of the whole Node process (every thread: the event loop, V8's helpers, libuv's pool), in
// µs: the same count as getrusage(RUSAGE_SELF) in the C++ clients.
const cpuUs = () => { const u = process.cpuUsage(); return u.user + u.system; };

async function oneShot() {
  const conn = await connect();
  check(await conn.client.callTool({ name: 'add', arguments: { a: 1, b: 1 } }), 'tools/call add (one-shot)');
  await disconnect(conn);
  process.stdout.write(JSON.stringify({ client: `ts-sdk-${opts.sdk}`, one_shot: true }) + '\n');
}

async function main() {
  if (opts.oneShot) return oneShot();
  // 1. connect + initialize, fresh process / session each time, median.
  const connectMs = [];
  for (let i = 0; i < opts.connects; i++) {
    const t = performance.now();
    const c = await connect();
    connectMs.push(performance.now() - t);
    await disconnect(c);
  }
  connectMs.sort((a, b) => a - b);

  const conn = await connect();
  const { client } = conn;
  const protocolVersion = client.getNegotiatedProtocolVersion?.() ?? conn.transport.protocolVersion ?? '';
  if (opts.era === 'modern' && protocolVersion !== '2026-07-28') throw new Error(`modern era asked, got ${protocolVersion}`);
  // tools/list once, so that callTool validates structuredContent against add's outputSchema, as
  // mcph does.
  await client.listTools();
  for (let i = 0; i < opts.warmup; i++) check(await client.callTool({ name: 'add', arguments: { a: i, b: 1 } }), 'warm-up');

  // 2. sequential tools/call add.
  const lat = new Float64Array(opts.calls);
  const seqCpu0 = cpuUs();
  let t0 = performance.now();
  for (let i = 0; i < opts.calls; i++) {
    const t = performance.now();
    check(await client.callTool({ name: 'add', arguments: { a: i, b: 1 } }), 'tools/call add');
    lat[i] = (performance.now() - t) * 1000;
  }
  const seqS = (performance.now() - t0) / 1000;
  const seqCpuUs = (cpuUs() - seqCpu0) / opts.calls;
  const sortedLat = Array.from(lat).sort((a, b) => a - b);

  // 3. K calls in flight (each finished call starts the next), N in total.
  let started = 0;
  const worker = async () => {
    while (started < opts.calls) {
      const i = started++;
      check(await client.callTool({ name: 'add', arguments: { a: i, b: 1 } }), 'tools/call add (in flight)');
    }
  };
  t0 = performance.now();
  await Promise.all(Array.from({ length: Math.min(opts.inflight, opts.calls) }, worker));
  const inflightS = (performance.now() - t0) / 1000;

  // 4. echo with a large text payload, sequential.
  const payload = 'x'.repeat(opts.echoBytes);
  const echoCpu0 = cpuUs();
  t0 = performance.now();
  for (let i = 0; i < opts.echoCalls; i++) {
    const r = check(await client.callTool({ name: 'echo', arguments: { text: payload } }), 'tools/call echo');
    if (r.content[0].text.length !== opts.echoBytes) throw new Error('echo: payload changed');
  }
  const echoS = (performance.now() - t0) / 1000;
  const echoCpuUs = opts.echoCalls ? (cpuUs() - echoCpu0) / opts.echoCalls : 0;
  await disconnect(conn);

  const out = {
    client: `ts-sdk-${opts.sdk}`,
    sdk_package: sdk.name,
    sdk_version: sdk.version,
    era: opts.era,
    protocol_version: protocolVersion,
    node_version: process.versions.node,
    transport: opts.http ? 'http' : 'stdio',
    connect_ms_median: +percentile(connectMs, 0.5).toFixed(3),
    seq_calls: opts.calls,
    seq_p50_us: +percentile(sortedLat, 0.5).toFixed(2),
    seq_p99_us: +percentile(sortedLat, 0.99).toFixed(2),
    seq_calls_per_s: Math.round(opts.calls / seqS),
    seq_cpu_us: +seqCpuUs.toFixed(2),
    inflight: opts.inflight,
    inflight_calls: opts.calls,
    inflight_calls_per_s: Math.round(opts.calls / inflightS),
    echo_calls: opts.echoCalls,
    echo_payload_bytes: opts.echoBytes,
    // payload bytes both ways (request text + response text), 10^6 bytes per MB
    echo_mb_per_s: opts.echoCalls ? +((2 * opts.echoBytes * opts.echoCalls) / echoS / 1e6).toFixed(1) : 0,
    echo_cpu_us: +echoCpuUs.toFixed(1),
    peak_rss_mb: +(process.resourceUsage().maxRSS / 1024).toFixed(1),
    node_warnings: nodeWarnings,
  };
  process.stdout.write(JSON.stringify(out) + '\n');
}

main().then(
  () => process.exit(0),
  (e) => {
    process.stderr.write(`ts_client_bench: ${e && e.stack ? e.stack : e}\n`);
    process.exit(1);
  },
);
