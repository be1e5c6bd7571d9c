"""The 2-D block schedule of FlashAttention and its exact HBM traffic (numpy, no UI).

Symbols as in the FlashAttention paper (Dao et al., 2022), glossed once:
  N       sequence length (N queries against N keys), d the head dim
  M       on-chip SRAM size in elements (bytes / element size). Here M is the shared memory ONE thread block
          (one program) may use, the budget Algorithm 1 sizes its blocks for; the GPU presets give that
          per-block maximum (an SM has a little more, and also a register file).
  Bc, Br  keys per K/V block = ceil(M / 4d), queries per Q block = min(Bc, d)  (clamped to N): the paper's
          rule, used for Algorithm 1. The FA2 order runs with the kernel's own tiles (fa2_block_sizes):
          FlashAttention-2 does not derive its query tile from M, and min(Bc, d) would understate it.
  Tc, Tr  number of K/V blocks ceil(N / Bc) and of Q blocks ceil(N / Br); the last block may be short
  S_ij    the Br x Bc score block Q_i K_j^T: the cell (i, j) of the Tr x Tc grid
  m, l    per-row running max and running sum (the paper's ℓ); L = m + log l, the log-sum-exp (FA2)

On-chip budget (sram_budget): the rule bounds each of Q_i, K_j, V_j, O_i at about M/4 elements; S_ij
(Br x Bc <= d x Bc, since Br <= d) is about M/4 too, and l_i, m_i add 2 Br. So one step holds up to
~5M/4 + 2Br elements: O(M), which is all the paper claims. Real kernels keep S_ij and the O_i
accumulator in registers, next to the shared memory.

What is counted: elements moved between HBM and SRAM, per tensor, exactly as each algorithm does it.
  standard (Algorithm 0)  read Q, K, write S; read S, write P; read P, V, write O.  S, P are N x N.
                          Total 4N^2 + 4Nd. Causal masking does not change it (S is still full).
  FA1 (Algorithm 1)       initialise O, l, m in HBM (writes Nd + 2N); outer loop j = 1..Tc reads K_j, V_j;
                          inner loop i = 1..Tr reads Q_i, O_i, l_i, m_i and writes O_i, l_i, m_i back.
                          Non-causal total: reads 2Nd + Tc(2Nd + 2N), writes (Tc + 1)(Nd + 2N).
  FA2 (our Triton order)  one program per Q block (programs = Tr x B x H): read Q_i once, stream K_j, V_j
                          (inner loop), write O_i and L_i once. Non-causal: reads Nd + 2 Tr N d, writes Nd + N.
                          Every program re-reads K and V from global memory; on a GPU many of those reads hit
                          the L2 cache (programs of one head run at the same time), so this counts an upper
                          bound of the DRAM (HBM) traffic, not a measurement.
Causal: blocks entirely above the diagonal are skipped (no loads, no stores); blocks the diagonal
crosses are computed with a mask ("masked"). In FA1 the outer loop still loads K_j, V_j once per j
(every column has a row block at or below the diagonal).

Totals, closed forms, the Θ expressions, the limits of standard ÷ flash as N grows, sweeps over M and N
and the worked example (with how exact counts relate to Θ) live in flashviz/engine/traffic.py.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import cached_property

import numpy as np

from ..infra.errors import InputError, check_int

MAX_N = 1 << 20                 # longest sequence the counters accept (sweeps); the grid is capped below
MAX_D = 256
MAX_GRID_CELLS = 1 << 22        # Tr x Tc cells for the per-block arrays (block_kind, grid_at)
ORDERS = ("fa1", "fa2")
TENSORS = ("Q", "K", "V", "O", "l", "m", "L", "S", "P")
STATS = ("l", "m", "L")         # per-row statistics, stored at `stats_bytes` (fp32 in real kernels)

# block kinds (Tr, Tc) and grid states at step t
FULL, MASKED, SKIPPED = 0, 1, 2
GRID_PENDING, GRID_DONE, GRID_CURRENT, GRID_SKIPPED = 0, 1, 2, 3

# On-chip memory. M is what one thread block may use: the per-block shared-memory maximum. Sources:
#   A100: NVIDIA Ampere Tuning Guide, "Unified Shared Memory/L1/Texture Cache": 192 KB combined per SM,
#         shared memory 0/8/16/32/64/100/132/164 KB per SM, up to 163 KB per thread block; 108 SMs
#         (NVIDIA A100 Tensor Core GPU Architecture whitepaper; FlashAttention paper, Section 2.1).
#   H100/H200: NVIDIA Hopper Tuning Guide, "Unified Shared Memory/L1/Texture Cache": 256 KB combined per
#         SM, shared memory up to 228 KB per SM, up to 227 KB per thread block; 132 SMs on H100 SXM5
#         (NVIDIA H100 Tensor Core GPU Architecture whitepaper) and on H200 (same GH100 die; 132 SMs
#         measured on our H200). H100 PCIe has 114 SMs.
#   Both: 64K 32-bit registers (256 KB) per SM (the same tuning guides / whitepapers).
AMPERE_GUIDE = "https://docs.nvidia.com/cuda/ampere-tuning-guide/"
HOPPER_GUIDE = "https://docs.nvidia.com/cuda/hopper-tuning-guide/"
GPU_PRESETS: dict[str, dict] = {
    "A100": {"name": "NVIDIA A100", "sms": 108, "l1_shared_kib_per_sm": 192, "shared_kib_per_sm": 164,
             "shared_kib_per_block": 163, "registers_kib_per_sm": 256, "source": f"{AMPERE_GUIDE} ; A100 whitepaper"},
    "H100": {"name": "NVIDIA H100 SXM5", "sms": 132, "l1_shared_kib_per_sm": 256, "shared_kib_per_sm": 228,
             "shared_kib_per_block": 227, "registers_kib_per_sm": 256, "source": f"{HOPPER_GUIDE} ; H100 whitepaper"},
    "H200": {"name": "NVIDIA H200", "sms": 132, "l1_shared_kib_per_sm": 256, "shared_kib_per_sm": 228,
             "shared_kib_per_block": 227, "registers_kib_per_sm": 256,
             "source": f"{HOPPER_GUIDE} ; 132 SMs measured on an H200"},
}
# A worked example of Theorem 2 with A100-like numbers (fp32, M = 100 KiB = 102,400 bytes).
SEED_EXAMPLE = {"n": 1024, "d": 64, "sram_bytes": 100 * 1024, "elem_bytes": 4}
# The FA2-order kernel's own tiles: the teaching kernel's GPU defaults (kernels/api.py), the usual
# FlashAttention-2 choice: 128 query rows (64 when d > 128, to stay within registers), 64 keys.
FA2_BLOCK_M, FA2_BLOCK_M_WIDE, FA2_BLOCK_N = 128, 64, 64
BUFFERS = ("Q", "K", "V", "O", "S", "l", "m")   # what one step of Algorithm 1 holds on chip


def preset_sram_bytes(name: str) -> int:
    """M in bytes for a GPU preset: the most shared memory one thread block may use."""
    if name not in GPU_PRESETS:
        raise InputError(key="errors.unknown_preset", got=repr(name), choices=", ".join(GPU_PRESETS))
    return GPU_PRESETS[name]["shared_kib_per_block"] * 1024


def block_sizes(d: int, sram_elems: int) -> tuple[int, int]:
    """The paper's (Br, Bc) for head dim d and M = sram_elems: Bc = ceil(M / 4d), Br = min(Bc, d)."""
    d = check_int("head dim d", d, 1, MAX_D)
    m = check_int("SRAM size M (elements)", sram_elems, 1)
    if m < 4 * d:
        raise InputError(key="errors.sram_too_small", m=m, d=d, need=4 * d)
    bc = -(-m // (4 * d))
    return min(bc, d), bc


def fa2_block_sizes(d: int) -> tuple[int, int]:
    """The FA2-order kernel's (Br, Bc): 128 x 64, or 64 x 64 when d > 128 (not derived from M)."""
    d = check_int("head dim d", d, 1, MAX_D)
    return (FA2_BLOCK_M if d <= 128 else FA2_BLOCK_M_WIDE), FA2_BLOCK_N


@dataclass(frozen=True)
class IOCounts:
    """HBM traffic in elements per tensor (all of TENSORS as keys; zeros where a tensor is not used)."""

    reads: dict
    writes: dict
    elem_bytes: int = 4
    stats_bytes: int = 4

    def _bytes(self, counts: dict) -> dict:
        return {k: v * (self.stats_bytes if k in STATS else self.elem_bytes) for k, v in counts.items()}

    @property
    def reads_bytes(self) -> dict:
        return self._bytes(self.reads)

    @property
    def writes_bytes(self) -> dict:
        return self._bytes(self.writes)

    @property
    def total_reads(self) -> int:
        return sum(self.reads.values())

    @property
    def total_writes(self) -> int:
        return sum(self.writes.values())

    @property
    def total(self) -> int:
        """HBM accesses in elements, reads + writes (the unit of Theorem 2)."""
        return self.total_reads + self.total_writes

    @property
    def total_bytes(self) -> int:
        return sum(self.reads_bytes.values()) + sum(self.writes_bytes.values())


def make_counts(reads: dict, writes: dict, elem_bytes: int, stats_bytes: int) -> IOCounts:
    full = lambda c: {k: int(c.get(k, 0)) for k in TENSORS}           # noqa: E731
    return IOCounts(full(reads), full(writes), elem_bytes, stats_bytes)


@dataclass(frozen=True)
class TilingConfig:
    """A validated problem: N, d, block sizes, element sizes, causal, and the batch x heads of the launch."""

    n: int
    d: int
    br: int
    bc: int
    elem_bytes: int = 4
    stats_bytes: int = 4
    causal: bool = False
    batch: int = 1
    heads: int = 1
    sram_elems: int | None = None       # M, when the configuration was given one
    rule: str = "pinned"                # where Br, Bc came from: "paper" (from M), "fa2" (the kernel's), "pinned"

    @property
    def tr(self) -> int:
        return -(-self.n // self.br)

    @property
    def tc(self) -> int:
        return -(-self.n // self.bc)

    @property
    def launch_grid(self) -> tuple[int, int]:
        """The Triton grid of the FA2-order kernel: (Tr, B*H); programs = Tr x B x H."""
        return self.tr, self.batch * self.heads

    @property
    def programs(self) -> int:
        return self.tr * self.batch * self.heads

    @property
    def sram_budget(self) -> dict[str, int]:
        """Elements on chip in one step, per buffer (BUFFERS): Q_i, O_i (Br x d), K_j, V_j (Bc x d), S_ij
        (Br x Bc), l_i, m_i (Br each)."""
        br, bc, d = self.br, self.bc, self.d
        return {"Q": br * d, "K": bc * d, "V": bc * d, "O": br * d, "S": br * bc, "l": br, "m": br}

    @property
    def sram_footprint(self) -> int:
        """Elements on chip in one step: the sum of sram_budget."""
        return sum(self.sram_budget.values())


def make_config(n: int, d: int, *, sram_bytes: int | None = None, sram_elems: int | None = None,
                br: int | None = None, bc: int | None = None, elem_bytes: int = 4, stats_bytes: int = 4,
                causal: bool = False, batch: int = 1, heads: int = 1, rule: str = "paper") -> TilingConfig:
    """Validate and build a config from M (bytes or elements) or pinned Br and Bc.

    With M, `rule` picks the blocks: "paper" (Bc = ceil(M/4d), Br = min(Bc, d), for Algorithm 1) or "fa2"
    (the FA2 kernel's tiles, fa2_block_sizes; M is kept for the on-chip budget). Blocks derived this way are
    clamped to N (a big SRAM simply holds the whole sequence); pinned blocks must be 1..N.
    """
    n = check_int("N", n, 1, MAX_N)
    d = check_int("head dim d", d, 1, MAX_D)
    elem_bytes = check_int("element size (bytes)", elem_bytes, 1, 16)
    stats_bytes = check_int("statistics element size (bytes)", stats_bytes, 1, 16)
    batch, heads = check_int("batch B", batch, 1), check_int("heads H", heads, 1)
    given_m = (sram_bytes is not None) + (sram_elems is not None)
    given_b = (br is not None) + (bc is not None)
    if given_m > 1:
        raise InputError(key="errors.sram_twice")
    if given_m and given_b:
        raise InputError(key="errors.m_and_blocks")
    if given_m:
        m = (check_int("SRAM size (bytes)", sram_bytes, 1) // elem_bytes if sram_bytes is not None
             else check_int("SRAM size M (elements)", sram_elems, 1))
        if rule not in ("paper", "fa2"):
            raise InputError(key="errors.one_of", name="block rule", choices="paper, fa2", got=repr(rule))
        br, bc = block_sizes(d, m) if rule == "paper" else fa2_block_sizes(d)
        br, bc = min(br, n), min(bc, n)
    elif given_b == 2:
        m, rule = None, "pinned"
        br, bc = check_int("block size Br", br, 1, n), check_int("block size Bc", bc, 1, n)
    else:
        raise InputError(key="errors.m_or_blocks_named")
    return TilingConfig(n, d, br, bc, elem_bytes, stats_bytes, bool(causal), batch, heads, m, rule)


def config_for_order(cfg: TilingConfig, order: str) -> TilingConfig:
    """The configuration an order runs with: blocks from M follow the paper's rule for Algorithm 1 and the
    kernel's tiles for the FA2 order; pinned blocks are the same for both."""
    if order not in ORDERS:
        raise InputError(key="errors.one_of", name="loop order", choices=", ".join(ORDERS), got=repr(order))
    if cfg.sram_elems is None or cfg.rule == "pinned":
        return cfg
    want = "paper" if order == "fa1" else "fa2"
    if cfg.rule == want:
        return cfg
    br, bc = block_sizes(cfg.d, cfg.sram_elems) if want == "paper" else fa2_block_sizes(cfg.d)
    return replace(cfg, br=min(br, cfg.n), bc=min(bc, cfg.n), rule=want)


@dataclass(frozen=True)
class Step:
    """One inner-loop step: block (i, j) (0-based; the paper's i + 1, j + 1) and the traffic so far."""

    t: int
    i: int
    j: int
    q_rows: tuple[int, int]          # [start, stop) of Q_i
    kv_rows: tuple[int, int]         # [start, stop) of K_j, V_j
    masked: bool                     # the diagonal crosses S_ij (causal)
    on_chip: tuple[str, ...]         # tensors whose blocks sit in SRAM during the step
    loaded: dict                     # elements read from HBM in this step, per tensor
    stored: dict                     # elements written to HBM in this step, per tensor
    cumulative: IOCounts = field(repr=False)   # after this step (FA1: includes the initial writes)


class Schedule:
    """The steps of one loop order ('fa1' or 'fa2') over the non-skipped blocks, as O(Tr + Tc) arrays.

    step(t), cumulative(t) and grid_at(t) are cheap: a binary search plus arithmetic.
    """

    def __init__(self, cfg: TilingConfig, order: str = "fa2"):
        if order not in ORDERS:
            raise InputError(key="errors.one_of", name="loop order", choices=", ".join(ORDERS), got=repr(order))
        self.cfg, self.order = cfg, order
        n, br, bc, tr, tc = cfg.n, cfg.br, cfg.bc, cfg.tr, cfg.tc
        self.tr, self.tc = tr, tc
        if order == "fa1":                                   # column j covers rows imin[j] .. Tr-1
            jj = np.arange(tc, dtype=np.int64)
            self._lo = (jj * bc) // br if cfg.causal else np.zeros(tc, np.int64)     # (Tc,) imin
            count = tr - self._lo
            rows = n - self._lo * br                         # Q rows visited in column j
            self._rows_cum = np.concatenate([[0], np.cumsum(rows)])                  # (Tc+1,)
        else:                                                # row i covers cols 0 .. jmax[i]
            ii = np.arange(tr, dtype=np.int64)
            last_q = np.minimum((ii + 1) * br, n) - 1
            self._hi = last_q // bc if cfg.causal else np.full(tr, tc - 1, np.int64)  # (Tr,) jmax
            count = self._hi + 1
            keys = np.minimum((self._hi + 1) * bc, n)        # K/V rows streamed by program i
            self._keys_cum = np.concatenate([[0], np.cumsum(keys)])                  # (Tr+1,)
        self._start = np.concatenate([[0], np.cumsum(count)])     # first step of each column/row
        self.steps = int(self._start[-1])

    # ------------------------------------------------------------------ per-step arithmetic
    def _check_t(self, t) -> int:
        t = check_int("step", t, 0)
        if t >= self.steps:
            raise InputError(key="errors.int_range", name="step", lo=0, hi=self.steps - 1, got=t)
        return t

    def _ij(self, t: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        outer = np.searchsorted(self._start, t, side="right") - 1
        if self.order == "fa1":
            return self._lo[outer] + (t - self._start[outer]), outer
        return outer, t - self._start[outer]

    def cumulative_arrays(self, t) -> tuple[dict, dict]:
        """Cumulative reads and writes per tensor after steps `t` (array ok); t = -1 is before step 0."""
        t = np.asarray(t, dtype=np.int64)
        n, d, br, bc = self.cfg.n, self.cfg.d, self.cfg.br, self.cfg.bc
        started = t >= 0
        i, j = self._ij(np.maximum(t, 0))
        if self.order == "fa1":
            # Q/O/l/m rows through step t: whole earlier columns + this column down to row block i
            q = np.where(started, self._rows_cum[j] + np.minimum((i + 1) * br, n) - self._lo[j] * br, 0)
            kv = np.where(started, np.minimum((j + 1) * bc, n), 0)          # K_j, V_j once per column
            reads = {"Q": q * d, "O": q * d, "l": q, "m": q, "K": kv * d, "V": kv * d}
            writes = {"O": (n + q) * d, "l": n + q, "m": n + q}            # n: the initialisation
        else:
            q = np.where(started, np.minimum((i + 1) * br, n), 0)          # Q_i at the program's start
            kv = np.where(started, self._keys_cum[i] + np.minimum((j + 1) * bc, n), 0)
            done = np.where(started & (j == self._hi[i]), q, np.where(started, i * br, 0))
            reads = {"Q": q * d, "K": kv * d, "V": kv * d}
            writes = {"O": done * d, "L": done}                            # O_i, L_i at the program's end
        return reads, writes

    def cumulative(self, t: int) -> IOCounts:
        """Traffic after step t (t = -1: before the first step)."""
        t = -1 if t == -1 else self._check_t(t)
        r, w = self.cumulative_arrays(t)
        return make_counts(r, w, self.cfg.elem_bytes, self.cfg.stats_bytes)

    def totals(self) -> IOCounts:
        return self.cumulative(self.steps - 1)

    def step(self, t: int) -> Step:
        """Everything the page shows for step t: the block, its rows, what is on chip, what moved."""
        t = self._check_t(t)
        i, j = (int(x) for x in self._ij(np.int64(t)))
        c = self.cfg
        q0, q1 = i * c.br, min((i + 1) * c.br, c.n)
        k0, k1 = j * c.bc, min((j + 1) * c.bc, c.n)
        now, before = self.cumulative(t), self.cumulative(t - 1)
        loaded = {k: now.reads[k] - before.reads[k] for k in TENSORS if now.reads[k] != before.reads[k]}
        stored = {k: now.writes[k] - before.writes[k] for k in TENSORS if now.writes[k] != before.writes[k]}
        return Step(t, i, j, (q0, q1), (k0, k1), bool(c.causal and k1 - 1 > q0),
                    ("Q", "K", "V", "O", "l", "m", "S"), loaded, stored, now)

    # ------------------------------------------------------------------ per-block arrays (Tr, Tc)
    def _check_grid(self):
        if self.tr * self.tc > MAX_GRID_CELLS:
            raise InputError(key="errors.grid_cap", tr=self.tr, tc=self.tc, cap=MAX_GRID_CELLS)

    @cached_property
    def block_kind(self) -> np.ndarray:
        """(Tr, Tc) int8: FULL, MASKED (the diagonal crosses the block) or SKIPPED (entirely above it)."""
        self._check_grid()
        return block_kinds(self.cfg)

    @cached_property
    def order_index(self) -> np.ndarray:
        """(Tr, Tc) int64: the step at which block (i, j) is computed; -1 if skipped."""
        self._check_grid()
        ii = np.arange(self.tr)[:, None]
        jj = np.arange(self.tc)[None, :]
        if self.order == "fa1":
            idx = self._start[:-1][None, :] + ii - self._lo[None, :]
            return np.where(ii >= self._lo[None, :], idx, -1)
        idx = self._start[:-1][:, None] + jj
        return np.where(jj <= self._hi[:, None], idx, -1)

    def grid_at(self, t: int) -> np.ndarray:
        """(Tr, Tc) int8 states at step t: GRID_PENDING, GRID_DONE, GRID_CURRENT (on chip) or GRID_SKIPPED."""
        t = self._check_t(t)
        idx = self.order_index
        g = np.where(idx < t, GRID_DONE, np.where(idx == t, GRID_CURRENT, GRID_PENDING)).astype(np.int8)
        g[idx < 0] = GRID_SKIPPED
        return g


def block_kinds(cfg: TilingConfig) -> np.ndarray:
    """(Tr, Tc) int8 FULL / MASKED / SKIPPED for a causal config (all FULL otherwise)."""
    ii = np.arange(cfg.tr)[:, None]
    jj = np.arange(cfg.tc)[None, :]
    kind = np.zeros((cfg.tr, cfg.tc), np.int8)
    if cfg.causal:
        q_first, q_last = ii * cfg.br, np.minimum((ii + 1) * cfg.br, cfg.n) - 1
        k_first, k_last = jj * cfg.bc, np.minimum((jj + 1) * cfg.bc, cfg.n) - 1
        kind[np.broadcast_to(k_last > q_first, kind.shape)] = MASKED      # some key after some query
        kind[np.broadcast_to(k_first > q_last, kind.shape)] = SKIPPED     # every key after every query
    return kind
