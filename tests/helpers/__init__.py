"""Helpers the test rooms share (no tests here; a test module imports these, never another test module).
Fixtures live in the conftest.py files instead.

app             AppTest of app.py: open a page with values, clean runs, read a rendered table; the pages in order
browser         `streamlit run app.py` on a free port, Debian's chromium for Playwright, waits for a settled page
speed           the page "Speed and memory" opened, and the cells a faked GPU measures
attn_ref        float64 attention rows and LSE, and the tolerance idiom the kernel tests use
variant_ref     the variants' float64 reference (masks, ALiBi, softcap, GQA), block counts, visible pairs one by one
variant_inputs  the variants' GPU inputs (packed documents, ALiBi slopes, H_kv heads) and tolerances
gpu             inputs, sampled rows and tolerances of the GPU kernel tests
backward        the fused / ws backward against float64 autograd, and its peak extra memory on a GPU
ws              the Gluon kernels' scalar helpers run on the host, and the ptxas report of a compile script
dispatch        which kernel and launch a call gets, with a Hopper pretended where the test needs one
ring, ring_cases, ring_live   forked / spawned ranks, the ring cases and their references, live-bytes accounting
timeline        the proton trace fixture, synthetic timeline cells, the Inside page's numbers counted cycle by cycle
hbm             ncu's CSV fixture, its manifest, and the measured-HBM dataset built from them
zh              English left on a Chinese page
"""
