"""The benchmark harness behind `scripts/bench.py`, one module per mode.

`store` builds the synthetic stores, `measure` times and summarises, and each mode has its
own module: `hot` (the default run, written to docs/performance.md), `stale`
(`--only-stale`), `dashboard` (`--dashboard`), `reads` and `reads_table` (`--reads`).
"""

import os

# The default install: BM25 alone. With the semantic extra, `add`'s near-duplicate check
# would also compare vectors, and the synthetic summaries (random hex words) look alike.
# Set here, before any mode imports orbit_learnings.
os.environ.setdefault("ORBIT_SEMANTIC", "0")
