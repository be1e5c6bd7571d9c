"""Helpers the test rooms share (no tests here; a test module imports these, never another test module).

app         AppTest of app.py: open a page with values, clean runs, read a rendered table
browser     `streamlit run app.py` on a free port, Debian's chromium for Playwright, waits for a settled page
attn_ref    float64 attention rows and LSE, and the tolerance idiom the kernel tests use
variant_ref the variants' float64 reference (masks, ALiBi, softcap, GQA) and its block counts
dispatch    which kernel and launch a call gets, with a Hopper pretended where the test needs one
ring, ring_cases, ring_live   forked / spawned ranks, the ring cases and their references, live-bytes accounting
timeline    the proton trace fixture and synthetic timeline cells
zh          English left on a Chinese page
"""
