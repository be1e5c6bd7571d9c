"""Ring attention, simulated in numpy for the page (no torch.distributed): W virtual devices in a ring.

The sequence of N tokens is cut into chunks; device r owns the queries (and keys, values) of its chunks:
  contiguous  W chunks, device r holds chunk r;
  zigzag      2W chunks, device r holds chunks r and 2W-1-r (one early, one late).
Step s = 0..W-1: device r holds the K/V block of device (r - s) mod W, computes its queries against it and
passes it on to device r + 1 (the transfer overlaps the compute). Each query row keeps the flash-decoding state
(m, ℓ, o) (flashviz.engine.decoding) and merges one block's partial state per step; after W steps it has seen every key,
and o / ℓ equals the single pass. Causal: a key chunk after a query chunk is skipped, so with the contiguous
layout device 0 works on 1 step of W and device W-1 on all of them; zigzag gives every device the same work.

    simulate(q, k, v, world, layout, causal, row) -> RingSim     (q, k, v: (N, d) float64)
    held(world) -> (W steps, W devices) block held;  positions(rank, world, n, layout)
    work_table(world, n, layout, causal) -> (W steps, W devices) visible (query, key) pairs computed
    timeline(world, n, layout, causal, shape, model, overlap=True) -> Timeline (cost model below)

Cost model (per device and step): compute = visible pairs x 4 d B H FLOP / F (two matmuls of 2 FLOP per
multiply-add) + the merge's HBM traffic (read and write the float32 running output, read the block's output) /
HBM bandwidth; transfer = K and V of one shard (2 B H N/W d bytes-per-element) / link bandwidth. A device starts
step s + 1 when its compute of step s is done and the block it receives has arrived; a transfer starts when both
its sender and its receiver have started step s (overlap) or finished its compute (no overlap).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .decoding import State, empty_state, merge, state_from_trace
from ..infra.errors import InputError, check_int
from .online_softmax import MAX_N, apply_mask, exact_attention_row, online_softmax_trace, row_scores

LAYOUTS = ("contiguous", "zigzag")
MAX_W = 16
MAX_TIMELINE_N = 1 << 24        # the cost model's sequences (counts only, nothing of size N is allocated)


def _layout(layout) -> str:
    if layout not in LAYOUTS:
        raise InputError(key="errors.one_of", name="layout", choices=", ".join(LAYOUTS), got=repr(layout))
    return layout


def check(world, n, layout, max_n: int = MAX_N) -> tuple[int, int, int]:
    """(W, N, chunk length); InputError when N does not split evenly."""
    w = check_int("devices W", world, 1, MAX_W)
    n = check_int("N", n, 1, max_n)
    parts = w if _layout(layout) == "contiguous" else 2 * w
    if n % parts:
        raise InputError(key="errors.ring_split", n=n, parts=parts, layout=layout, w=w)
    return w, n, n // parts


def chunks_of(rank: int, world: int, layout: str) -> tuple[int, ...]:
    return (rank,) if _layout(layout) == "contiguous" else (rank, 2 * world - 1 - rank)


def positions(rank: int, world: int, n: int, layout: str) -> np.ndarray:
    """Global token positions owned by device `rank`, in its local order."""
    _, _, c = check(world, n, layout)
    return np.concatenate([np.arange(i * c, (i + 1) * c) for i in chunks_of(rank, world, layout)])


def owner(world: int, n: int, layout: str) -> np.ndarray:
    """(N,) the device owning each token."""
    own = np.empty(n, dtype=np.int64)
    for r in range(world):
        own[positions(r, world, n, layout)] = r
    return own


def held(world: int) -> np.ndarray:
    """(W steps, W devices): the device whose K/V block device r holds at step s, (r - s) mod W."""
    w = check_int("devices W", world, 1, MAX_W)
    s, r = np.meshgrid(np.arange(w), np.arange(w), indexing="ij")
    return (r - s) % w


def work_table(world: int, n: int, layout: str, causal: bool) -> np.ndarray:
    """(W steps, W devices): visible (query, key) pairs device r computes at step s, by chunk pairs
    (a key chunk before the query chunk: c^2; the same chunk: c(c+1)/2; a later one: 0)."""
    w, n, c = check(world, n, layout, MAX_TIMELINE_N)
    out = np.zeros((w, w), dtype=np.int64)
    for s in range(w):
        for r in range(w):
            src = (r - s) % w
            for qc in chunks_of(r, w, layout):
                for kc in chunks_of(src, w, layout):
                    if not causal or kc < qc:
                        out[s, r] += c * c
                    elif kc == qc:
                        out[s, r] += c * (c + 1) // 2
    return out


def imbalance(work: np.ndarray) -> dict:
    """How uneven the work is: idle (device, step) slots, per-device totals, the busiest over the mean, and the
    steps' critical path (sum over steps of the busiest device) over the ideal (total / W)."""
    w = work.shape[1]
    per_device = work.sum(0)
    ideal = work.sum() / w
    return dict(idle=int((work == 0).sum()), per_device=per_device, busiest_over_mean=float(per_device.max() / ideal)
                if ideal else 1.0, critical=int(work.max(1).sum()), critical_over_ideal=float(work.max(1).sum() / ideal)
                if ideal else 1.0)


CELL_MASKED, CELL_PENDING, CELL_DONE, CELL_CURRENT = 0, 1, 2, 3


def matrix_states(world: int, n: int, layout: str, causal: bool, step: int) -> np.ndarray:
    """(N queries, N keys) by global position: CELL_CURRENT where some device computes the score at `step`,
    CELL_DONE at an earlier step, CELL_PENDING later, CELL_MASKED never (a future key under the causal mask).
    The query row's owner is the device doing the work (owner())."""
    w, n, _ = check(world, n, layout)
    step = check_int("step", step, 0, w - 1)
    own = owner(w, n, layout)
    # the step at which device r holds the block of device o: s = (r - o) mod W
    when = (own[:, None] - own[None, :]) % w
    out = np.where(when < step, CELL_DONE, np.where(when == step, CELL_CURRENT, CELL_PENDING)).astype(np.int8)
    if causal:
        out[np.triu(np.ones((n, n), dtype=bool), 1)] = CELL_MASKED
    return out


# ----------------------------------------------------------------------------- one query row per device

@dataclass(frozen=True, eq=False)
class RingSim:
    world: int
    n: int
    layout: str
    causal: bool
    row: int                    # local row index each device tracks
    chunk: int                  # chunk length
    held: np.ndarray            # (W, W) block held by device r at step s
    work: np.ndarray            # (W, W) visible pairs computed
    tracked: np.ndarray         # (W,) global position of each device's tracked row
    m: np.ndarray               # (W steps, W devices) running m of the tracked row after the step (-inf: none yet)
    l: np.ndarray               # (W steps, W devices) running ℓ
    seen: np.ndarray            # (W steps, W devices) keys the tracked row saw in that step's block
    final: tuple                # W States after the last step
    exact: np.ndarray           # (W, d) softmax(row) @ V in one pass, for each tracked row
    single: tuple = field(default=())   # W single-pass States (online softmax over the whole row, one tile per chunk)

    @property
    def outputs(self) -> np.ndarray:
        return np.stack([s.output for s in self.final])

    def max_error(self) -> float:
        """max |merged o/ℓ - exact| over the tracked rows."""
        return float(np.max(np.abs(self.outputs - self.exact)))


def simulate(q, k, v, world: int, layout: str, causal: bool, row: int = 0) -> RingSim:
    """Run the ring on (N, d) float64 Q, K, V; every device tracks its local query row `row`."""
    q, k, v = (np.asarray(x, dtype=np.float64) for x in (q, k, v))
    if q.ndim != 2 or k.shape != q.shape or v.shape != q.shape:
        raise InputError(key="errors.ring_qkv", q=str(q.shape), k=str(k.shape), v=str(v.shape))
    w, n, c = check(world, q.shape[0], layout)
    row = check_int("query row (local)", row, 0, n // w - 1)
    h = held(w)
    pos = [positions(r, w, n, layout) for r in range(w)]
    tracked = np.array([p[row] for p in pos])
    m, ell, seen = np.full((w, w), -np.inf), np.zeros((w, w)), np.zeros((w, w), dtype=np.int64)
    final, exact, single = [], [], []
    for r in range(w):
        i = int(tracked[r])
        s_row = apply_mask(row_scores(q[i], k), causal_row=i if causal else None)
        state: State = empty_state(q.shape[1])
        for step in range(w):
            keys = pos[int(h[step, r])]
            block = s_row[keys]
            seen[step, r] = int(np.isfinite(block).sum())
            if seen[step, r]:                        # a block wholly in the future is skipped (idle)
                part = state_from_trace(online_softmax_trace(block, v[keys], len(keys)))
                state = merge(state, part)
            m[step, r], ell[step, r] = state.m, state.l
        final.append(state)
        exact.append(exact_attention_row(s_row, v))
        single.append(state_from_trace(online_softmax_trace(s_row, v, c)))
    return RingSim(w, n, layout, bool(causal), row, c, h, work_table(w, n, layout, causal), tracked, m, ell, seen,
                   tuple(final), np.stack(exact), tuple(single))


# ----------------------------------------------------------------------------- cost model and timeline

@dataclass(frozen=True)
class CostModel:
    flops_per_s: float          # attention compute per device (FLOP/s)
    link_bytes_per_s: float     # one direction of the device-to-device link (bytes/s)
    hbm_bytes_per_s: float      # device memory bandwidth (bytes/s), for the merge
    source: dict                # {"compute"|"link"|"hbm": {"kind": "assumed"|"ring"|"speed", ...where from}}


# Assumptions when nothing is recorded (labelled as such on the page):
#  - compute: the fast kernel's forward on one H200, fp16, d = 128, B = 4, H = 32: 491-507 TFLOP/s in the
#    recorded speed dataset (kernels/fast.py); 500 TFLOP/s.
#  - link: NVLink 4 on the H200 SXM moves 900 GB/s per GPU in both directions together (NVIDIA H200 datasheet),
#    450 GB/s each way; assumed reachable by one ring transfer.
#  - HBM: 4.3 TB/s, the device-to-device copy measured on the H200 (datasheet: 4.8 TB/s).
DEFAULT_MODEL = CostModel(500e12, 450e9, 4.3e12, dict(compute=dict(kind="assumed"), link=dict(kind="assumed"),
                                                        hbm=dict(kind="assumed")))


def model_from_recording(ring_ds: dict | None = None, speed_cell: dict | None = None,
                         base: CostModel = DEFAULT_MODEL) -> CostModel:
    """Parameters from what was measured: compute from the ring recording's 1-GPU forward cells (else a speed
    dataset's fast-kernel cell), link from its transfer-only times (bytes a rank sends per call / time): the
    plain-ring cell (S = 1) at the largest N where there is one, else a chunked one, which sends S (W - 1) blocks."""
    f, link, src = base.flops_per_s, base.link_bytes_per_s, dict(base.source)
    cells = [c for c in (ring_ds or {}).get("cells", []) if c.get("status") == "ok" and c["mode"] == "fwd"]
    one = [c for c in cells if c["world"] == 1 and not c["causal"]] or [c for c in cells if c["world"] == 1]
    if one:
        c = max(one, key=lambda c: c["n"])
        f = c["flops"] / (c["ms"] * 1e-3)
        src["compute"] = dict(kind="ring", n=c["n"])
    elif speed_cell and speed_cell.get("status") == "ok":
        f = speed_cell["flops"] / (speed_cell["ms"] * 1e-3)
        src["compute"] = dict(kind="speed", impl=speed_cell["impl"], n=speed_cell["n"], d=speed_cell["d"])
    comm = [c for c in cells if c["world"] > 1 and c.get("ms_comm") and c.get("step_bytes")]
    if comm:
        s_of = lambda c: c.get("chunks") or 1                                      # noqa: E731
        c = max(comm, key=lambda c: (s_of(c) == 1, c["n"]))
        link = s_of(c) * (c["world"] - 1) * c["step_bytes"] / (c["ms_comm"] * 1e-3)
        src["link"] = dict(kind="ring", n=c["n"], w=c["world"])
    return CostModel(f, link, base.hbm_bytes_per_s, src)


@dataclass(frozen=True, eq=False)
class Timeline:
    compute: np.ndarray         # (W steps, W devices) compute seconds
    start: np.ndarray           # (W, W) compute start
    xfer_start: np.ndarray      # (W-1, W) arrival transfer into device r after step s: start
    xfer_end: np.ndarray        # (W-1, W)
    transfer_s: float           # one step's transfer
    total_s: float              # ring, as modelled
    compute_only_s: float       # the same loop without transfers: busiest device's compute
    comm_only_s: float          # (W - 1) transfers
    overlap: bool

    @property
    def hidden(self) -> float | None:
        """1 - (total - compute only) / transfers only, as the benchmark reports it."""
        return None if self.comm_only_s == 0 else 1.0 - (self.total_s - self.compute_only_s) / self.comm_only_s


def timeline(world: int, n: int, layout: str, causal: bool, *, batch: int, heads: int, d: int, elem_bytes: int,
             model: CostModel = DEFAULT_MODEL, overlap: bool = True) -> Timeline:
    w, n, _ = check(world, n, layout, MAX_TIMELINE_N)
    for name, x in (("batch B", batch), ("heads H", heads), ("head dim d", d), ("element size", elem_bytes)):
        check_int(name, x, 1, 1 << 16)
    n_loc = n // w
    work = work_table(w, n, layout, causal).astype(np.float64)
    merge_s = batch * heads * n_loc * d * (4 + 4 + elem_bytes) / model.hbm_bytes_per_s if w > 1 else 0.0
    comp = work * 4.0 * d * batch * heads / model.flops_per_s + np.where(work > 0, merge_s, 0.0)
    t_x = 2.0 * batch * heads * n_loc * d * elem_bytes / model.link_bytes_per_s if w > 1 else 0.0
    start, xs, xe = np.zeros((w, w)), np.zeros((max(w - 1, 0), w)), np.zeros((max(w - 1, 0), w))
    for s in range(w):
        end = start[s] + comp[s]
        if s + 1 < w:
            prev = np.roll(np.arange(w), 1)                    # device r receives from r - 1
            xs[s] = np.maximum(start[s], start[s][prev]) if overlap else np.maximum(end, end[prev])
            xe[s] = xs[s] + t_x
            start[s + 1] = np.maximum(end, xe[s])
    total = float((start[w - 1] + comp[w - 1]).max())
    return Timeline(comp, start, xs, xe, t_x, total, float(comp.sum(0).max()), (w - 1) * t_x, overlap)



def forward_memory(world: int, n: int, layout: str, causal: bool, *, batch: int, heads: int, d: int,
                   elem_bytes: int, chunks: int = 1) -> dict[str, int]:
    """Bytes one device holds at the peak of the ring forward (flashviz_kernels.ring), by what they are for.

    One GPU (W = 1): q, k, v and the output, plus the float32 log-sum-exp. A ring device, with S the bytes of
    one shard (B H N/W d elements): its q, k, v shards (3 S); the K/V block arriving while it computes (2 S;
    with W > 2 the block it computes on is itself a received one, so 4 S); the output accumulator (S in the
    inputs' dtype at W = 2: the first block's output itself, into which the second merges, one rounding; a float32
    copy of it beyond); one block's output (S); with zigzag and causal masking, the contiguous copies of the
    half-shard slices a step computes on (S: a device that runs all its queries against the early half of a
    block copies that half of K and V for the kernel; the other kind of step copies half its q, S / 2, and its
    block output is half a shard); and the float32 log-sum-exps. Scratch is not counted: the fused merge needs
    none (GPUs run it), the torch merge (CPU, or FLASHVIZ_RING_MERGE=torch) works 64 MiB slabs, and the recorded
    one-GPU forwards also peak 32 MiB above their q, k, v, output and lse; a measured peak should exceed this
    account by such scratch only (tests/pages/test_ring_page.py holds the committed recording to that).

    chunks = S > 1 (the chunked forward, kernels/ring_chunked.py; held to a recording, tests/pages/test_ring_page.py), with
    p = ceil(c / S) rows of each of the rank's layout chunks of c rows (one part; a sub-chunk or slab has one part per
    chunk): receive = two transfer buffers of one key sub-chunk's K and V; accumulator = the output (S, the
    inputs' dtype) and one query slab's float32 accumulator; block_output = one piece's output (p rows); slices
    = the contiguous copy of that piece's q rows the kernel takes, plus, with zigzag and causal masking, the
    copies of p rows of the sub-chunk's K and V; lse: the output's, the slab's and the piece's."""
    w, n, _ = check(world, n, layout, max_n=MAX_TIMELINE_N)
    rows = batch * heads * (n // w)
    shard = rows * d * elem_bytes
    lse = rows * 4
    if w == 1:
        return dict(inputs=3 * shard, output=shard, lse=lse)
    if chunks > 1:
        n_loc, per = n // w, 1 if layout == "contiguous" else 2
        part = -(-(n_loc // per) // chunks)                    # rows of one layout chunk in a sub-chunk, at most
        row = batch * heads * d * elem_bytes                     # bytes of one row of a shard
        acc = batch * heads * per * part * max(4, elem_bytes)    # one float32 (float64) accumulator value per row
        return dict(inputs=3 * shard, receive=2 * 2 * per * part * row, accumulator=shard + acc * d,
                    block_output=part * row,
                    slices=part * row + (2 * part * row if layout == "zigzag" and causal else 0),
                    lse=lse + acc + batch * heads * part * 4)
    return dict(inputs=3 * shard, receive=(2 if w == 2 else 4) * shard,
                accumulator=shard if w == 2 else rows * d * 4, block_output=shard,
                slices=shard if layout == "zigzag" and causal else 0, lse=2 * lse)
