"""The blocks page's traffic summary, above the fold: what the exact counts model (SRAM only, no L2), what Nsight
Compute measured on the H200 at the same N and d, and, computed, when Algorithm 1 moves more bytes than standard
attention (Bc below about 3d/4: it re-reads and rewrites O once per K/V block).

Thin: counts from flashviz.engine.traffic / tiling, bytes from the Nsight recording (flashviz.bench.hbm_dataset through
ui/hardware_more.hbm_recordings); numbers formatted into i18n/traffic.py strings. No chart.
"""
from __future__ import annotations

import streamlit as st

from flashviz.bench import hbm_dataset
from flashviz.i18n import t
from flashviz.engine.roofline import measured_bytes_per_head
from flashviz.engine.tiling import Schedule, TilingConfig, make_config
from flashviz.engine.traffic import standard_counts
from flashviz.ui import hardware_more, pages

NS = "blocks"


def fa1_loses(c: TilingConfig) -> dict | None:
    """Algorithm 1 (FA1 order) against standard attention at these blocks, when it moves more bytes: the byte
    ratio, Bc and the rule of thumb 3d/4 (FA1 ~ 3·Tc·N·d elements of O and Q traffic vs standard's 4·N²)."""
    fa1 = Schedule(c, "fa1").totals().total_bytes
    std = standard_counts(c.n, c.d, elem_bytes=c.elem_bytes).total_bytes
    if fa1 <= std:
        return None
    return dict(ratio=fa1 / std, bc=c.bc, three_quarters=3 * c.d / 4, fa1=fa1, std=std)


def measured_beside(c: TilingConfig) -> dict | None:
    """The newest Nsight recording's naive and fast cells at this N, d and causal (per head), with the SRAM-only
    model's bytes for each: standard attention for naive, FA2 at the kernel's own tiles for fast."""
    recs = hardware_more.hbm_recordings()
    if not recs:
        return None
    cells = {x["impl"]: x for x in hbm_dataset.matching_cells(recs[0], n=c.n, d=c.d, causal=c.causal)}
    if "naive" not in cells or "fast" not in cells:
        return dict(found=False, have=hbm_dataset.recorded_configs(recs[0]),
                    device=recs[0]["provenance"]["device_name"])
    naive, fast = cells["naive"], cells["fast"]
    e = {"float16": 2, "bfloat16": 2, "float32": 4}[fast["dtype"]]
    kcfg = make_config(c.n, c.d, br=min(fast["block_m"], c.n), bc=min(fast["block_n"], c.n), elem_bytes=e,
                       causal=c.causal)
    return dict(found=True, device=recs[0]["provenance"]["device_name"], dtype=fast["dtype"],
                naive=measured_bytes_per_head(naive), fast=measured_bytes_per_head(fast),
                naive_model=standard_counts(c.n, c.d, elem_bytes=e).total_bytes,
                fast_model=Schedule(kcfg, "fa2").totals().total_bytes, br=kcfg.br, bc=kcfg.bc,
                date=recs[0]["provenance"]["created_utc"][:10])


def summary(c: TilingConfig, lang: str) -> None:
    """Two or three computed sentences under the counters."""
    st.caption(t("traffic.model_label", lang))
    lose = fa1_loses(c)
    if lose:
        st.caption(t("traffic.fa1_loses", lang, ratio=f"{lose['ratio']:.2f}", bc=lose["bc"],
                     q=f"{lose['three_quarters']:g}", d=c.d))
    m = measured_beside(c)
    if m and m["found"]:
        st.markdown(t("traffic.measured_beside", lang, device=m["device"], date=m["date"], n=c.n, d=c.d,
                      naive=f"{m['naive'] / 1e6:,.1f}", naive_model=f"{m['naive_model'] / 1e6:,.1f}",
                      fast=f"{m['fast'] / 1e6:,.2f}", fast_model=f"{m['fast_model'] / 1e6:,.2f}",
                      br=m["br"], bc=m["bc"], x=f"{m['naive'] / m['fast']:,.0f}"))
    elif m:
        have = ", ".join(f"N={n} d={d}{' causal' if cz else ''}" for n, d, cz in m["have"])
        st.caption(t("traffic.measured_none", lang, device=m["device"], have=have))
    pages.link("hardware", lang, label=t("traffic.to_hardware", lang, page=pages.title("hardware", lang)))
    st.session_state[f"{NS}.traffic_view"] = dict(fa1_loses=lose, measured=m)          # for tests
