#!/bin/bash
# one lane-B piece of round 19's small record (every arm at 1,200 steps): `r19_piece.sh DEADLINE SEED [LIMIT_S]` runs
# `proceedings reproduce ovie --scale small --seed SEED` under the lane-B lock for at most LIMIT_S (1500) s and never
# past DEADLINE (UTC, HH:MM), then SIGTERM (the trainer checkpoints the arm in training; a rerun resumes). The seed's
# record goes to results/ovie/small/r19_seedSEED/ovie/small.json; SRC = a copy of src/ taken at the commit that runs.
cd /work/wt/ovie
export PYTHONPATH=${SRC:?SRC = a copy of src/ at the commit} PROCEEDINGS_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
export PROCEEDINGS_RESULTS=/work/wt/ovie/results/ovie/small/r19_seed$2
flock /tmp/proceedings-heavy-b.lock bash -c '
  left=$(( $(date -u -d "$1" +%s) - $(date -u +%s) )); lim=$(( left < ${3:-1500} ? left : ${3:-1500} ))
  if [ $lim -lt 60 ]; then echo "too late for a piece: $(date -u)"; exit 3; fi
  echo "piece start $(date -u +%T) limit $lim s"
  /usr/bin/time -v timeout -k 20 $lim /work/wt/ovie/.venv/bin/proceedings reproduce ovie --scale small --seed $2
  rc=$?; echo "piece end $(date -u +%T) rc $rc"' _ "$@"
