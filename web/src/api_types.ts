// The shapes of protonctl ui's JSON answers (docs/web.md, "API"). Everything in them came from
// protond and, before that, from profiled programs: names are untrusted text, and every field is
// checked where it is read (tree.ts, the views), not trusted because of these types.

export interface Job {
  rank?: string;
  local_rank?: string;
  world_size?: string;
  slurm_job_id?: string;
  slurm_step_id?: string;
  pod?: string;
  cuda_visible_devices?: string;
  pod_namespace?: string;
}

export interface SessionProcess {
  process_id?: string;
  pid?: number;
  command?: string;
  exited?: boolean;
  records?: string; // 64-bit integers arrive as strings (protobuf's JSON mapping)
  dropped_records?: string;
  job?: Job;
}

export interface Session {
  id: string;
  name?: string;
  state?: string;
  uid?: number;
  start_time_unix_ns?: string;
  end_time_unix_ns?: string;
  processes?: SessionProcess[];
  records?: string;
  dropped_records?: string;
  problems?: string[];
  data?: string;
  stop_at_unix_ns?: string;
  job?: string;
  admits_new?: boolean;
  mode?: string;
  always_on_window?: boolean;
}

export interface SessionsAnswer {
  sessions: Session[];
}

// One node of /api/tree and /api/diff, as sent.
export interface WireNode {
  id: number;
  parent: number | null;
  name: string;
  full_name: string;
  values: (number | null)[];
  text: string[];
}

export interface TreeAnswer {
  session?: Session; // /api/tree and /api/diff; not /api/job
  base?: Session; // /api/diff only
  columns: string[];
  nodes: WireNode[];
  devices?: unknown[];
  notes?: string[];
  range?: string; // /api/range-diff only: which windows each range is, and what moved
  base_range?: string;
  shifts?: string;
}

// One always-on window of /api/history: what `protonctl history` prints of it, as values.
export interface HistoryWindow {
  session: string;
  kind?: string; // "window", or "hour" or "day" for a merged period
  who: string;
  pids: number[];
  job: string;
  running: boolean;
  start_time_unix_ns: string;
  end_time_unix_ns: string;
  length_ns: number;
  records: string;
  gpu_time_ns: number;
  gpu_busy: number | null; // a fraction; null where protonctl history prints "-"
  top_kernel: string | null;
  top_kernel_share: number | null;
  // The rank the others waited for at their NCCL calls, as protonctl history's LATE says it
  // ("rank 1 +10.2 ms"); null where it prints "-".
  late: string | null;
  summarized: boolean; // false while it runs (protond sums a window up when it stops)
}

export interface HistoryAnswer {
  windows: HistoryWindow[];
  total_windows: number;
  note?: string; // when no window is selected: protonctl history's line
}

// One rank of /api/job: where its column came from.
export interface JobRank {
  rank: string; // its RANK; "" when it had none
  host: string; // the node it was read from (this node's socket)
  session: string;
}

// /api/job: `protonctl tree --job`'s spread over the ranks (columns: the metric's total, min,
// median, max, slowest rank, ranks) and `protonctl job`'s verdict, or why there is none.
export interface JobAnswer extends TreeAnswer {
  job: string;
  metric: string;
  ranks: JobRank[];
  sessions: Session[];
  problems: string[];
  verdict: string | null;
  no_verdict: string | null;
  running: boolean; // a session of the job still runs
}

// One kernel of /api/top: `protonctl top`'s row as numbers, and its cells as text.
export interface TopKernel {
  name: string;
  full_name: string;
  time_ns: number;
  share: number; // of all GPU time, 0..1
  count: number;
  average_ns: number | null;
  tflop_per_s: number | null;
  gbyte_per_s: number | null;
  bound: "compute" | "memory" | null; // null: no verdict, and no_verdict says why
  percent_of_peak: number | null;
  no_verdict: string | null;
  text: string[];
}

// One device of /api/top: `protonctl devices`' row, and the peaks `protonctl top` uses for it.
export interface TopDevice {
  text: string[];
  peaks: string;
}

export interface TopAnswer {
  session: Session;
  columns: string[];
  kernels: TopKernel[];
  device_lines: string[];
  note: string | null; // "no GPU kernels in this profile"
  device_columns: string[];
  devices: TopDevice[];
}

export interface StallReason {
  reason: string;
  samples: number;
  share: number; // of the stalled samples, 0..1
}

// A sampled SASS instruction of a line (/api/stalls with sass=1).
export interface StalledInstruction {
  offset: string;
  sass: string; // "" where protond had no text (instruction_notes says why)
  samples: number;
  stalled: number;
  reasons: StallReason[];
  reasons_text: string;
}

export interface StalledLine {
  line: string;
  stalled: number;
  share: number;
  samples: number;
  reasons: StallReason[];
  text: string[];
  instructions?: StalledInstruction[]; // with sass=1
}

export interface StallsAnswer {
  session: Session;
  columns: string[];
  lines: StalledLine[];
  note: string | null; // "no PC samples in this profile ..."
  instruction_notes?: string[];
}
