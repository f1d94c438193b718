"""The legibility lab's report generator (kept here beside the other generators).

    .venv/bin/python bench/legibility_report.py [--out reports] [--lines 40] [--seed 0]

The code lives in :mod:`snapshot.legibility.report`, so ``snapshot report``
runs the same lab from an installed package.
"""

from __future__ import annotations

import sys

from snapshot.legibility.report import main

if __name__ == "__main__":
    sys.exit(main())
