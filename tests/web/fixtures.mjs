// The mock server's data (mock_server.mjs), in docs/web.md's shapes: three sessions, the first
// with hostile names (markup, control characters, a 1 MB name), the second its base for a diff,
// the third a running session with a 10k-node tree, the fourth a running session whose tree grows
// at each fetch (growingFrames) until the test stops it (mock_server.mjs's /api/mock/stop).

export const HOSTILE_NAME = "<img src=x onerror=alert(1)>";
export const CONTROL_NAME = "ctl\u0007\u001b[31m\u202eevil\nline";
export const HUGE_NAME = "huge_" + "x".repeat(1 << 20);
export const CHANGED_FRAME = "matmul_kernel";

function job(rank, world) {
  return { rank: String(rank), local_rank: String(rank), world_size: String(world), slurm_job_id: "4242",
    slurm_step_id: "0", pod: "", cuda_visible_devices: String(rank), pod_namespace: "" };
}

function session(id, name, state, records, processes, extra = {}) {
  return {
    id: String(id), name, state, uid: 1000, start_time_unix_ns: "1700000000000000000",
    end_time_unix_ns: state === "RUNNING" ? "0" : "1700000060000000000",
    processes: processes.map((p, i) => ({ process_id: String(id * 10 + i), pid: p.pid, command: p.command,
      exited: state !== "RUNNING", records: String(records), dropped_records: "0", job: p.job })),
    records: String(records), dropped_records: extra.dropped ?? "0", problems: extra.problems ?? [],
    data: "TREE", stop_at_unix_ns: "0", job: extra.job ?? "", admits_new: false, mode: extra.mode ?? "",
    always_on_window: extra.alwaysOn ?? false,
  };
}

export const GROWING = "4";

// growing: { fetches, state } of session 4 (mock_server.mjs keeps it).
export function sessions(runningRecords, growing = { fetches: 0, state: "RUNNING" }) {
  return [
    session(1, "train " + HOSTILE_NAME, "STOPPED", 5000,
      [{ pid: 101, command: "python train.py", job: job(0, 2) }, { pid: 102, command: "python train.py", job: job(1, 2) }],
      { job: "4242", mode: "pcsampling:interval=1024", problems: ["lane 3: " + HOSTILE_NAME] }),
    session(2, "baseline", "STOPPED", 4000, [{ pid: 201, command: "python train.py --base", job: job(0, 1) }]),
    session(3, "big live run", "RUNNING", runningRecords, [{ pid: 301, command: "./bench", job: job(0, 1) }],
      { alwaysOn: true, dropped: "7" }),
    session(4, "growing run", growing.state, 100 * growing.fetches, [{ pid: 401, command: "./grow", job: job(0, 1) }],
      { dropped: String(growing.fetches) }),
  ];
}

// A tree as frames [parent, name, full_name, time_ns, count]; the root first.
function frames1(scale, matmulNs) {
  return [
    [null, "ROOT", "ROOT", 0, 1],
    [0, "train", "train", 0, 1],
    [1, "forward", "forward", 0, 10],
    [2, CHANGED_FRAME, "void " + CHANGED_FRAME + "<float, 128>(float const*, float*)", matmulNs, 10],
    [2, "softmax", "void softmax<float>(float*)", 20000 * scale, 10],
    [2, HOSTILE_NAME, HOSTILE_NAME, 5000 * scale, 3],
    [1, "backward", "backward", 0, 10],
    [6, "matmul_grad", "void matmul_grad<float>(float const*)", 90000 * scale, 10],
    [6, CONTROL_NAME, CONTROL_NAME, 4000 * scale, 2],
    [6, HUGE_NAME, HUGE_NAME, 1000 * scale, 1],
    [0, "idle", "idle", 1000, null],
  ];
}

// Sums children into parents (inclusive times, as protonctl tree prints them).
function nodesFrom(frames) {
  const time = frames.map((f) => f[3]);
  for (let i = frames.length - 1; i > 0; i--) time[frames[i][0]] += time[i];
  return frames.map((f, i) => ({ id: i, parent: f[0], name: f[1], full_name: f[2], time: time[i], count: f[4] }));
}

export function bigFrames(n) {
  // A deterministic 10k-node tree: a few levels of fan-out with kernel leaves.
  const frames = [[null, "ROOT", "ROOT", 0, 1]];
  let seed = 12345;
  const random = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
  while (frames.length < n) {
    const parent = Math.floor(random() * frames.length * 0.3);
    const i = frames.length;
    frames.push([parent, `scope_${i}`, `void ns::scope_${i}<int>(int)`, Math.floor(random() * 100000), 1 + (i % 7)]);
  }
  return frames;
}

// Session 4's tree after `fetches` fetches: each adds a frame "step_K" as the root's first child
// (so every other frame's id moves) and a kernel under outer_0/mid_0, and time grows.
export function growingFrames(fetches) {
  const frames = [[null, "ROOT", "ROOT", 0, 1]];
  for (let k = fetches; k >= 1; k--) frames.push([0, `step_${k}`, `step_${k}`, 1000 * k, 1]);
  for (let i = 0; i < 3; i++) {
    const outer = frames.length;
    frames.push([0, `outer_${i}`, `outer_${i}`, 0, fetches]);
    for (let j = 0; j < 3; j++) {
      const mid = frames.length;
      frames.push([outer, `mid_${i}_${j}`, `mid_${i}_${j}`, 0, fetches]);
      for (let l = 0; l < 2; l++) frames.push([mid, `kernel_${i}_${j}_${l}`, `kernel_${i}_${j}_${l}`, 100 * fetches * (l + 1), fetches]);
      if (i === 0 && j === 0) for (let k = 1; k <= fetches; k++) frames.push([mid, `late_kernel_${k}`, `late_kernel_${k}`, 50 * k, 1]);
    }
  }
  return frames;
}

const trees = new Map();
function treeNodes(id) {
  if (!trees.has(id)) {
    const frames = id === "1" ? frames1(1, 150000) : id === "2" ? frames1(1, 100000) : bigFrames(10000);
    trees.set(id, nodesFrom(frames));
  }
  return trees.get(id);
}

// The columns for a metrics spec: the default (time (ns), count) or "time/ms,count".
function columnsFor(metrics) {
  if (metrics === "" || metrics === undefined || metrics === null) {
    return { columns: ["time (ns)", "count"], cell: (n) => [n.time, n.count], text: (v, c) => String(v) };
  }
  if (metrics === "time/ms,count") {
    return { columns: ["time (ms)", "count"], cell: (n) => [n.time / 1e6, n.count],
      text: (v, c) => (c === 0 ? v.toFixed(3) : String(v)) };
  }
  return null;
}

export function treeAnswer(id, metrics, fullNames, allSessions, growingFetches = 0) {
  const spec = columnsFor(metrics);
  if (!spec) return { status: 400, body: { error: `metrics: unknown metric '${metrics}' (known: time, count)` } };
  const found = allSessions.find((s) => s.id === id);
  if (!found) return { status: 404, body: { error: `session ${id} does not exist` } };
  const nodes = (id === GROWING ? nodesFrom(growingFrames(growingFetches)) : treeNodes(id)).map((n) => {
    const values = spec.cell(n);
    return { id: n.id, parent: n.parent, name: fullNames ? n.full_name : n.name, full_name: n.full_name,
      values, text: values.map((v, c) => (v === null ? "" : spec.text(v, c))) };
  });
  return { status: 200, body: { session: found, columns: spec.columns, nodes, devices: [], notes: [] } };
}

// /api/job's answer for LIVE_JOB: one rank, session 4's growing tree under the spread's place, and
// "running" while session 4 runs (the Job page's live refresh); any other job is a 404.
export const LIVE_JOB = "live-job";

export function jobAnswer(job, metrics, fullNames, allSessions, growing) {
  if (job !== LIVE_JOB) {
    return { status: 404, body: { error: `no node has a session of job ${job}: mock: no session of job ${job} here` } };
  }
  const tree = treeAnswer(GROWING, metrics, fullNames, allSessions, growing.fetches);
  if (tree.status !== 200) return tree;
  return { status: 200, body: { ...tree.body, job, metric: tree.body.columns[0],
    ranks: [{ rank: "0", host: "mock", session: GROWING }], sessions: [tree.body.session], problems: [],
    verdict: null, no_verdict: "the mock makes no verdict", running: growing.state === "RUNNING" } };
}

// A minus B, frame by frame (sessions 1 and 2 have the same frames).
export function diffAnswer(a, b, metrics, fullNames, allSessions) {
  const left = treeAnswer(a, metrics, fullNames, allSessions);
  if (left.status !== 200) return left;
  const right = treeAnswer(b, metrics, fullNames, allSessions);
  if (right.status !== 200) return right;
  if (right.body.nodes.length !== left.body.nodes.length) {
    return { status: 400, body: { error: `the mock diffs only sessions 1 and 2, not ${a} and ${b}` } };
  }
  const spec = columnsFor(metrics);
  const nodes = left.body.nodes.map((n, i) => {
    const values = n.values.map((v, c) => (v === null || right.body.nodes[i].values[c] === null ? null : v - right.body.nodes[i].values[c]));
    return { ...n, values, text: values.map((v, c) => (v === null ? "" : spec.text(v, c))) };
  });
  return { status: 200, body: { ...left.body, base: right.body.session, nodes } };
}

// /api/top and /api/stalls (docs/web.md): session 1 ran two kernels on an H100 (one with a
// verdict, one with the hostile name and none) and was PC-sampled, with the hostile name in a
// line's path; the others have neither kernels nor samples, as a session on a machine without a
// GPU.
const TOP_COLUMNS = ["TIME (ms)", "TIME %", "COUNT", "AVG (us)", "TFLOP/s", "GB/s", "BOUND", "% OF PEAK", "NAME"];
const H100_PEAKS = "device 0 (arch 90, 132 SMs, 5120-bit bus): H100 SXM datasheet peaks FP8 1978.9, " +
  "FP16 989.4, TF32 494.7, FP64 66.9 TFLOP/s, 3350.0 GB/s";

function topKernel(name, fullName, timeNs, share, count, tflop, gbyte, bound, percent, noVerdict) {
  const one = (v) => (v === null ? "-" : v.toFixed(1));
  return { name, full_name: fullName, time_ns: timeNs, share, count, average_ns: timeNs / count,
    tflop_per_s: tflop, gbyte_per_s: gbyte, bound, percent_of_peak: percent, no_verdict: noVerdict,
    text: [(timeNs / 1e6).toFixed(3), (100 * share).toFixed(1), String(count), (timeNs / 1e3 / count).toFixed(3),
      one(tflop), one(gbyte), bound ?? "-", one(percent), name] };
}

export function topAnswer(id, fullNames, allSessions) {
  const found = allSessions.find((s) => s.id === id);
  if (!found) return { status: 404, body: { error: `session ${id} does not exist` } };
  const body = { session: found, columns: TOP_COLUMNS, kernels: [], device_lines: [],
    note: "no GPU kernels in this profile", device_columns: ["PID", "DEVICE", "NAME", "ARCH", "SMS",
      "CLOCK (MHz)", "MEMORY CLOCK (MHz)", "BUS (bits)", "MEMORY (GiB)", "USE"], devices: [] };
  if (id !== "1") return { status: 200, body };
  const matmul = fullNames ? "void " + CHANGED_FRAME + "<float, 128>(float const*, float*)" : CHANGED_FRAME;
  body.kernels = [
    topKernel(matmul, "void " + CHANGED_FRAME + "<float, 128>(float const*, float*)", 2e8, 0.8, 700, 494.7, 335,
      "compute", 50, null),
    topKernel(HOSTILE_NAME, HOSTILE_NAME, 5e7, 0.2, 4, null, null, null, null,
      "no flops of a known width (flops8 to flops64) and no bytes"),
  ];
  body.device_lines = [H100_PEAKS];
  body.note = null;
  body.devices = [{ text: ["101", "0", "NVIDIA H100 80GB HBM3", "sm_90", "132", "1980", "2619", "5120", "79.2", "ran work"],
    peaks: H100_PEAKS }];
  return { status: 200, body };
}

export const STALL_LINE = `/src/${HOSTILE_NAME}.py:42@matmul_kernel`;

function reasons(list, stalled) {
  return list.map(([reason, samples]) => ({ reason, samples, share: samples / stalled }));
}

function stallLine(line, stalled, share, samples, reasonList, instructions) {
  const reasonText = reasonList.map(([r, s]) => `${r} ${Math.round(100 * s / stalled)}%`).join(", ");
  return { line, stalled, share, samples, reasons: reasons(reasonList, stalled),
    text: [String(stalled), (100 * share).toFixed(1), String(samples), reasonText, line], instructions };
}

function instruction(offset, sass, samples, reasonList) {
  const stalled = reasonList.reduce((sum, [, s]) => sum + s, 0);
  return { offset, sass, samples, stalled, reasons: reasons(reasonList, stalled),
    reasons_text: reasonList.map(([r, s]) => `${r} ${Math.round(100 * s / stalled)}%`).join(", ") };
}

export function stallsAnswer(id, sass, allSessions) {
  const found = allSessions.find((s) => s.id === id);
  if (!found) return { status: 404, body: { error: `session ${id} does not exist` } };
  const body = { session: found, columns: ["STALLED", "STALLED %", "SAMPLES", "TOP REASONS", "LINE"], lines: [],
    note: "no PC samples in this profile (record them with --mode pcsampling)" };
  if (id !== "1") return { status: 200, body };
  body.note = null;
  body.lines = [
    stallLine(STALL_LINE, 90, 0.9, 100, [["long_scoreboard", 80], ["wait", 10]], [
      instruction("0x0b00", "LDG.E R2, desc[UR8][R2.64]", 12, [["wait", 10]]),
      instruction("0x0b10", "LEA R4, P0, R2, UR10, 0x2", 86, [["long_scoreboard", 80]]),
      instruction("0x0b20", "", 2, []),
    ]),
    stallLine("/src/train.py:50@softmax", 10, 0.1, 30, [["wait", 10]], [
      instruction("0x0040", "FADD R1, R2, R3", 30, [["wait", 10]]),
    ]),
  ];
  if (!sass) for (const line of body.lines) delete line.instructions;
  else body.instruction_notes = ["1 instructions without SASS text: the shim did not hold their cubin"];
  return { status: 200, body };
}

// The always-on windows of HISTORY_PID since the mock started: one of 300 ms every second, as
// `protond --always-on --always-on-window 300ms --always-on-period 1s` makes them, each listed
// once it has stopped, so that only the open-ended range (no `until`) keeps the History page
// refreshing. /api/history's answer (cli/ui/history_json.h) for `pid`; a new window appears each
// second, so the page has something to refresh.
export const HISTORY_PID = "4242";
export function historyAnswer(startedMs, nowMs, pid) {
  const windows = [];
  for (let start = startedMs; start + 300 <= nowMs; start += 1000) {
    const startNs = BigInt(start) * 1000000n;
    windows.push({ session: String(100 + windows.length), who: `pid ${HISTORY_PID}: python train.py`,
      pids: [Number(HISTORY_PID)], job: "", running: false, start_time_unix_ns: String(startNs),
      end_time_unix_ns: String(startNs + 300000000n), length_ns: 300 * 1e6,
      records: String(250 + windows.length), gpu_time_ns: 0, gpu_busy: null, top_kernel: null,
      top_kernel_share: null, late: null, summarized: true });
  }
  const selected = pid === null || pid === HISTORY_PID ? windows : [];
  const answer = { windows: selected, total_windows: windows.length };
  if (selected.length === 0) answer.note = `none of the ${windows.length} always-on windows matches`;
  return { status: 200, body: answer };
}
