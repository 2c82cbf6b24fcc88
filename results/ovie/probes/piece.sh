#!/bin/bash
# one lane-B piece of a probe: `piece.sh DEADLINE SCRIPT SEED [LIMIT_S]` runs results/ovie/probes/SCRIPT SEED under the
# lane-B lock for at most LIMIT_S (690) s and never past DEADLINE (UTC, HH:MM), then SIGTERM (the trainer checkpoints;
# a rerun resumes); SRC = a copy of src/ taken at the commit that runs
cd /work/wt/ovie
export PYTHONPATH=${SRC:?SRC = a copy of src/ at the commit} PROCEEDINGS_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
flock /tmp/proceedings-heavy-b.lock bash -c '
  left=$(( $(date -u -d "$1" +%s) - $(date -u +%s) )); lim=$(( left < ${4:-690} ? left : ${4:-690} ))
  if [ $lim -lt 60 ]; then echo "too late for a piece: $(date -u)"; exit 3; fi
  echo "piece start $(date -u +%T) limit $lim s"; /usr/bin/time -v timeout -k 20 $lim /work/wt/ovie/.venv/bin/python results/ovie/probes/$2 $3; rc=$?; echo "piece end $(date -u +%T) rc $rc"' _ "$@"
