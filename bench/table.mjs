// bench/table.mjs — the tables of bench/run.sh from the JSON lines its clients left in WORK.
//
// usage: node table.mjs WORK REPEATS LOAD_AT_START ELAPSED_S SCALE(0|1) TRANSPORT...
//   WORK/<transport>.<client>.<r>  one JSON object per client run (bench-raw-pipe, mcph-bench, TS)
//   WORK/cli.<client>.<r>          one-shot figures ({oneshot_ms, oneshot_rss_mb})
//   WORK/mapped.<SxT>.<r>          mcph-bench --mapped SxT
//   WORK/scale.json                bench/scale.sh (stdio servers)
//   WORK/scale-http.json           bench/scale.sh --http (with run.sh --http)
//   WORK/scale-sse.json            bench/scale.sh --sse (with run.sh --http, where the npm peers are)
//   WORK/scale-ws.json             bench/scale.sh --ws (the same)
//   WORK/failures                  one line per client that failed
// Values are the medians over the repeats; a ratio is the median of the per-repeat ratios of two
// clients run in the same repeat (paired), not the quotient of the two medians.
import fs from 'node:fs';
import os from 'node:os';

const [dir, repeatsArg, loadStart, elapsed, scaleArg, ...transports] = process.argv.slice(2);
const repeats = Number(repeatsArg);
const read = (f) => {
  try {
    return JSON.parse(fs.readFileSync(`${dir}/${f}`, 'utf8') || '{}');
  } catch {
    return {};
  }
};
const median = (xs) => {
  const v = xs.filter((x) => typeof x === 'number' && Number.isFinite(x)).sort((a, b) => a - b);
  if (!v.length) return undefined;
  return v.length % 2 ? v[(v.length - 1) / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
};
const range = (n) => Array.from({ length: n }, (_, i) => i + 1);
const fmt = (v) => (v === undefined ? '-' : Math.abs(v) >= 100 ? String(Math.round(v)) : String(+v.toFixed(2)));
const fmtRatio = (v) => (v === undefined ? '-' : v.toFixed(2) + 'x');

const clients = ['raw', 'rawm', 'mcph', 'mcphm', 'ts', 'ts2', 'ts2m'];
const heads = ['floor 2025', 'floor 2026', 'mcph 2025', 'mcph 2026', 'TS v1', 'TS v2 2025', 'TS v2 2026'];
// Each client is compared with the floor of its own era.
const floorOf = { mcph: 'raw', mcphm: 'rawm', ts: 'raw', ts2: 'raw', ts2m: 'rawm' };
const ratioCols = [['mcph', 'mcph 2025/floor'], ['mcphm', 'mcph 2026/floor'], ['ts', 'TS v1/floor'], ['ts2m', 'TS v2 2026/floor']];

// The rows of issue #16, with its goal for mcph ÷ floor (min: at least; max: at most; none: shown
// for reading, no goal). `mcphKey`: mcph's figure when it has an API the others do not (request_async).
// `floorKey`: the floor's figure when it must do more to match what mcph does (connect with the
// lists); the TS clients have no figure there (their connect does not list), nor where `noTs`.
const rows = [
  ['stdio', 'sequential calls/s', 'seq_calls_per_s', 'higher', { min: 0.9 }],
  ['stdio', '16 in flight, request_async (calls/s)', 'inflight_calls_per_s', 'higher', { min: 1.0 }, 'inflight_async_calls_per_s'],
  ['stdio', '16 in flight, futures (calls/s)', 'inflight_calls_per_s', 'higher', { min: 0.8 }],
  ['stdio', '1 MiB echo, payload both ways (MB/s)', 'echo_mb_per_s', 'higher', { min: 0.85 }],
  ['stdio', 'client CPU per sequential call (us)', 'seq_cpu_us', 'lower', { max: 1.3 }],
  ['stdio', 'client CPU per 1 MiB echo call (us)', 'echo_cpu_us', 'lower', {}],
  ['stdio', 'sequential p50 (us)', 'seq_p50_us', 'lower', {}],
  ['stdio', 'sequential p99 (us)', 'seq_p99_us', 'lower', {}],
  ['stdio', 'Host::call_tool by mapped name p50 (us)', 'seq_p50_us', 'lower', {}, 'host_seq_p50_us'],
  ['stdio', 'connect, median (ms)', 'connect_ms_median', 'lower', {}],
  ['stdio', 'connect, floor also lists tools/resources/prompts (ms)', 'connect_ms_median', 'lower', {}, undefined, 'connect_lists_ms_median'],
  ['stdio', 'client peak RSS (MB)', 'peak_rss_mb', 'lower', { max: 1.5 }],
  ['http', 'sequential calls/s', 'seq_calls_per_s', 'higher', { min: 0.85 }],
  ['http', '16 in flight, futures (calls/s)', 'inflight_calls_per_s', 'higher', { min: 0.7 }],
  ['http', '16 in flight, request_async (calls/s)', 'inflight_calls_per_s', 'higher', {}, 'inflight_async_calls_per_s'],
  ['http', '1 MiB echo, payload both ways (MB/s)', 'echo_mb_per_s', 'higher', { min: 0.85 }],
  ['http', 'client CPU per sequential call (us)', 'seq_cpu_us', 'lower', { max: 1.5 }],
  ['http', 'client CPU per 1 MiB echo call (us)', 'echo_cpu_us', 'lower', { max: 2.0 }],
  ['http', 'sequential p50 (us)', 'seq_p50_us', 'lower', {}],
  ['http', 'sequential p99 (us)', 'seq_p99_us', 'lower', {}],
  ['http', 'connect, median (ms)', 'connect_ms_median', 'lower', { max: 1.5 }],
  ['http', 'connect, floor also lists tools/resources/prompts (ms)', 'connect_ms_median', 'lower', { max: 1.5 }, undefined, 'connect_lists_ms_median'],
  ['http', 'client peak RSS (MB)', 'peak_rss_mb', 'lower', { max: 1.5 }],
  // mcph 2025 with the session's GET stream open (hello-server --get-stream; run.sh's mcphget
  // runs), against the same floor: the floor needs no stream to make its calls.
  ['http', 'sequential calls/s, GET stream open', 'seq_calls_per_s', 'higher', {}, undefined, undefined, true, 'mcphget'],
  ['http', 'client CPU per sequential call, GET stream open (us)', 'seq_cpu_us', 'lower', {}, undefined, undefined, true, 'mcphget'],
  ['cli', 'one-shot start -> 1 call -> exit, stdio (ms)', 'oneshot_ms', 'lower', { max: 2.0 }],
  ['cli', 'one-shot peak RSS (MB)', 'oneshot_rss_mb', 'lower', {}],
  // The same call with three remote servers configured and not reached: the floor and the TS
  // clients read no config, so mcph is held to the plain floor (TS: no figure).
  ['cli', 'one-shot, 3 remote servers also configured (ms)', 'oneshot_ms', 'lower', { max: 2.0 }, 'oneshot_mixed_ms', undefined, true],
  ['cli', 'one-shot peak RSS, 3 remote servers also configured (MB)', 'oneshot_rss_mb', 'lower', {}, 'oneshot_mixed_rss_mb', undefined, true],
];

const goalText = (g) => (g.min !== undefined ? `>=${g.min}` : g.max !== undefined ? `<=${g.max}x` : '-');
const meets = (g, r) => (r === undefined ? undefined : g.min !== undefined ? r >= g.min : r <= g.max);
// yes: both mcph eras meet the goal; no: neither; otherwise the era that does.
function met(g, r2025, r2026) {
  if (g.min === undefined && g.max === undefined) return '-';
  const a = meets(g, r2025), b = meets(g, r2026);
  if (a === undefined && b === undefined) return '-';
  if (a !== false && b !== false) return 'yes';
  if (a === false && b === false) return 'no';
  return a ? '2025 only' : '2026 only';
}

function printTable(header, body) {
  const widths = header.map((_, i) => Math.max(...[header, ...body].map((r) => String(r[i]).length)));
  const line = (r) => r.map((c, i) => (i < 2 ? String(c).padEnd(widths[i]) : String(c).padStart(widths[i]))).join(' | ');
  console.log(line(header));
  console.log(widths.map((w) => '-'.repeat(w)).join('-|-'));
  for (const r of body) console.log(line(r));
  console.log('');
}

// ---- the rows ----------------------------------------------------------------------
const shown = new Set([...transports, 'cli']);
const body = [];
for (const [t, label, key, better, goal, mcphKey, floorKey, noTs, mcphRun] of rows) {
  if (!shown.has(t)) continue;
  // mcphRun: the row's mcph 2025 figure comes from those runs; mcph 2026 has none.
  const file = (c, r) => read(`${t}.${mcphRun && c === 'mcph' ? mcphRun : c}.${r}`);
  const keyOf = (c) => (c.startsWith('mcph') && mcphKey ? mcphKey : c.startsWith('raw') && floorKey ? floorKey : key);
  const value = (c, r) =>
    ((floorKey || noTs) && c.startsWith('ts')) || (mcphRun && c === 'mcphm') ? undefined : file(c, r)[keyOf(c)];
  const medians = clients.map((c) => median(range(repeats).map((r) => value(c, r))));
  const ratios = ratioCols.map(([c]) => median(range(repeats).map((r) => {
    const a = value(c, r), b = value(floorOf[c], r);
    return a === undefined || b === undefined || !b ? undefined : a / b;
  })));
  body.push([t, label, better, ...medians.map(fmt), ...ratios.map(fmtRatio), goalText(goal), met(goal, ratios[0], ratios[1])]);
}
console.log(`issue #16 rows: values are medians of ${repeats} repeat(s); ratios are paired (median of the per-repeat ratios), each client over the floor of its era; goal and met are for mcph / floor`);
printTable(['transport', 'row', 'better', ...heads, ...ratioCols.map(([, h]) => h), 'goal', 'met'], body);

// ---- calls by mapped name --------------------------------------------------------------------
const shapes = ['1x5', '1x500', '50x20'];
const mappedBody = [];
for (const shape of shapes) {
  const runs = range(repeats).map((r) => read(`mapped.${shape}.${r}`));
  if (!runs.some((o) => o.mapped_servers)) continue;
  const m = (k) => median(runs.map((o) => o[k]));
  const cpuRatio = median(runs.map((o) => (o.session_call_cpu_us ? o.host_call_cpu_us / o.session_call_cpu_us : undefined)));
  const cpuDelta = median(runs.map((o) => (o.mapped_servers ? o.host_call_cpu_us - o.session_call_cpu_us : undefined)));
  const [s, t] = shape.split('x');
  mappedBody.push([`${s} server(s) x ${t} tools`, `${Number(s) * Number(t)}`, fmt(m('host_call_p50_us')), fmt(m('session_call_p50_us')),
    fmt(m('host_call_cpu_us')), fmt(m('session_call_cpu_us')), fmt(cpuDelta), fmtRatio(cpuRatio), '<=1.1x',
    cpuRatio === undefined ? '-' : cpuRatio <= 1.1 ? 'yes' : 'no']);
}
if (mappedBody.length) {
  console.log('calls by mapped name: Host::call_tool("mcp__<server>__<tool>") next to ClientSession::call_tool(<tool>) on the same');
  console.log('fake-mcp-server(s) (--tools-file), every server approved (tools pinned, rug-pull guard on), alternating blocks');
  console.log('of 500 calls in one process; goal: the host adds one lookup, i.e. host CPU / session CPU <= 1.1x at any tool count');
  printTable(['servers x tools', 'tools', 'Host p50 (us)', 'session p50 (us)', 'Host CPU/call (us)', 'session CPU/call (us)',
    'Host-session CPU (us)', 'Host/session CPU', 'goal', 'met'], mappedBody);
}

// ---- scale ---------------------------------------------------------------------------------
// `what`: the servers of scale.sh's config; `idle`: the setting after which their threads retire.
function printScale(file, what, idle) {
  const s = read(file);
  console.log(`scale: \`mcph status --json\` over N configured ${what}, bench/scale.sh; no goal figure in the issue`);
  const per = (v) => (s.servers && v !== undefined ? (v / s.servers).toFixed(2) : '-');
  printTable(['servers', 'connected', 'wall (s)', 'host peak RSS (MB)', 'peak threads', 'threads/server', 'peak fds', 'fds/server'],
    [[fmt(s.servers), fmt(s.connected), fmt(s.wall_s), fmt(s.peak_rss_mb), fmt(s.peak_threads), per(s.peak_threads),
      fmt(s.peak_fds), per(s.peak_fds)]]);
  console.log(`the same servers held by \`mcph shell\`, every one connected, after ${fmt(s.idle_s)} s idle (${idle}: 2 s)`);
  printTable(['servers', 'connected', 'host RSS (MB)', 'threads', 'threads/server', 'fds', 'fds/server'],
    [[fmt(s.servers), fmt(s.idle_connected), fmt(s.idle_rss_mb), fmt(s.idle_threads), per(s.idle_threads),
      fmt(s.idle_fds), per(s.idle_fds)]]);
}
if (scaleArg === '1') {
  printScale('scale.json', 'stdio servers (fake-mcp-server)', 'stdio readerIdleMs');
  if (fs.existsSync(`${dir}/scale-http.json`)) {
    console.log();
    printScale('scale-http.json', 'Streamable HTTP servers (all on one hello-server --http)', 'http loopIdleMs');
  }
  if (fs.existsSync(`${dir}/scale-sse.json`)) {
    console.log();
    printScale('scale-sse.json', 'legacy SSE servers (all on one server-everything)', 'sse loopIdleMs');
  }
  if (fs.existsSync(`${dir}/scale-ws.json`)) {
    console.log();
    printScale('scale-ws.json', 'WebSocket servers (all on one supergateway + server-everything)', 'ws loopIdleMs');
  }
}

// ---- what ran, where -----------------------------------------------------------------------
for (const c of ['mcph', 'mcphm', 'ts', 'ts2', 'ts2m']) {
    const o = read(`${transports[0]}.${c}.1`);
    const what = o.sdk_version
      ? `${o.client}: ${o.sdk_package} ${o.sdk_version}, ${o.era} era (protocol ${o.protocol_version || 'initialize'}), node ${o.node_version}`
      : o.protocol_version ? `mcph: ${o.era} era (protocol ${o.protocol_version})` : '';
    if (what) console.log(what);
}
for (const t of transports)
  for (const c of ['ts', 'ts2', 'ts2m']) {
    const w = median(range(repeats).map((r) => read(`${t}.${c}.${r}`).node_warnings));
    if (w) console.log(`${t} ${c}: ${w} Node warnings suppressed a run (median; see README)`);
  }
const cpu = os.cpus();
console.log(`machine: ${cpu.length} x ${cpu[0]?.model ?? '?'}, ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB, ${os.type()} ${os.release()}`);
console.log(`date: ${new Date().toISOString()}; run took ${elapsed} s`);
console.log(`load average at the start: ${loadStart}; at the end: ${fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`);
const failures = fs.existsSync(`${dir}/failures`) ? fs.readFileSync(`${dir}/failures`, 'utf8').split('\n').filter(Boolean) : [];
console.log(`failed clients: ${failures.length}`);
for (const f of failures) console.log(`  ${f}`);
