"""flashviz.infra: the ground every other room stands on (no engine, measurement, chart or page imports).

errors (typed exceptions, localized), units (sizes and dtypes), literal (outside text shown as text), cache
(process-wide caches of read-only objects), runqueue (one line for slow runs), runlog (server-side run times),
images (PNG / SVG through kaleido and one Chromium per process), procs (/proc reads about its helper
processes), serve (a class behind HAProxy).
"""
