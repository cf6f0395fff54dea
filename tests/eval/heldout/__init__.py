"""The held-out evaluation set: written blind (by someone who saw neither the code nor
the tuning set), in the schema of `tests/eval/realistic/` (see README.md here).

Never tune on it: `scripts/eval_search.py --set heldout` (and `make eval`) report its
figures once per change; no parameter is chosen by them.
"""

from __future__ import annotations

from pathlib import Path

from tests.eval.realistic import EvalSet
from tests.eval.realistic import load as load_folder

HERE = Path(__file__).resolve().parent


def load() -> EvalSet:
    return load_folder(HERE)
