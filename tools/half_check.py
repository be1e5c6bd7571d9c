"""Is HALF right on this triton? `FLASHVIZ_UNVERIFIED=1 python -m tools.half_check --out FILE` (CUDA only).

HALF (kernels/_ws_half.py) runs, in a causal launch, a band edge's key tile that one consumer sees half of as that
half. kernels/gates.py opens it per triton version ("ws-half"); this tool is the evidence for a version it stays
closed on. Causal d = 128 and d = 64, square and ragged, with and without a window, every OVERLAP x PINGPONG
schedule at d = 128, persistent (programs 1 and 3: several tiles per program, each query block on its own program)
and one tile per program, each against float64. Per run the largest error and the (head, query block, consumer)
slices off by more than 0.02, with the tile's place in its program's walk (i: its Q slot is i % 2). A CUDA fault
ends the process's context: the runs after it are listed as not run. Writes JSON with the record header."""
from __future__ import annotations

import argparse
import json
import os

BM, SCALE, BAD = 128, 0.088, 2e-2


def reference(q, k, v, left: int):
    """float64 bottom-right causal attention, a window's left side when left >= 0; rows that see nothing are 0."""
    import torch
    q, k, v = q.double(), k.double(), v.double()
    nq, nk = q.shape[2], k.shape[2]
    r = torch.arange(nq, device=q.device)[:, None] + (nk - nq)
    j = torch.arange(nk, device=q.device)[None, :]
    mask = (j <= r) & ((j >= r - left) if left >= 0 else True)
    s = (q @ k.transpose(-1, -2) * SCALE).masked_fill(~mask, float("-inf"))
    return torch.softmax(s, -1).nan_to_num(0.0) @ v


def bad_slices(err, nq: int, heads: int, programs: int | None) -> list[dict]:
    """The 64-row consumer slices whose largest error is over BAD; i: the tile's place in its program's walk
    (head-major, query blocks last to first: kernels/_ws_order.py persistent_tile with one head per group)."""
    nqb, out = (nq + BM - 1) // BM, []
    for t in range(heads * nqb):
        bh, qb = t // nqb, nqb - 1 - t % nqb
        for c in range(2):
            lo = qb * BM + 64 * c
            if lo < nq and (e := float(err[0, bh, lo:min(lo + 64, nq)].max())) > BAD:
                out.append(dict(head=bh, block=qb, consumer=c, err=round(e, 3),
                                i=None if programs is None else t // programs))
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True)
    args = ap.parse_args(argv)
    import torch

    from flashviz_kernels import ws
    from tools.tune_record import record_header
    record = record_header("half_check", list(argv) if argv is not None else __import__("sys").argv[1:],
                           unverified_env=os.environ.get("FLASHVIZ_UNVERIFIED", ""))
    record.update(batch=1, heads=2)
    runs = ((128, False, True), (128, True, True), (128, False, False), (128, True, False), (64, False, True))
    dead = None
    torch.manual_seed(0)
    for d, ov, pp in runs:
        for nq, nk, left in ((1024, 1024, -1), (1500, 1700, -1), (1024, 1024, 512), (1536, 1536, 700)):
            for programs in (None, 1, 3, 2 * ((nq + BM - 1) // BM)):
                row = dict(d=d, nq=nq, nk=nk, window=left, overlap=ov, pingpong=pp, persistent=programs is not None,
                           programs=programs)
                if dead:
                    record["rows"].append(dict(row, status="not run", error=dead))
                    continue
                try:
                    q, k, v = (torch.randn(1, 2, n, d, device="cuda", dtype=torch.float16) for n in (nq, nk, nk))
                    o, _ = ws.forward(q, k, v, causal=True, sm_scale=SCALE, block_m=BM, block_n=128, num_warps=4,
                                      num_stages=2, overlap=ov, pingpong=pp, window_left=left,
                                      persistent=programs is not None, programs=programs,
                                      groups=1 if programs else None, half=True)
                    err = (o.double() - reference(q, k, v, left)).abs().amax(-1)
                    row.update(status="ok", max_err=float(err.nan_to_num(float("inf")).max()),
                               bad=bad_slices(err, nq, 2, programs))
                except Exception as e:  # noqa: BLE001 - a CUDA fault poisons the context: the rest do not run
                    row.update(status="error", error=f"{type(e).__name__}: {str(e).splitlines()[0][:160]}")
                    if "illegal" in str(e) or "CUDA error" in str(e):
                        dead = f"after {row['error']}"
                record["rows"].append(row)
                print({k: v for k, v in row.items() if k != "bad"}, len(row.get("bad", [])), "bad", flush=True)
    with open(args.out, "w", encoding="utf-8") as f:
        json.dump(record, f, indent=1)


if __name__ == "__main__":
    main()
