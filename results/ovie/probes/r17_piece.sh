#!/bin/bash
# one lane-B piece of round 17's A+B / A+C rows: `r17_piece.sh SEED [LIMIT_S]`, at most LIMIT_S (690) s of compute and
# never past 16:44 UTC, then SIGTERM (the trainer checkpoints; a rerun resumes); SRC = a copy of src/ taken at the commit
cd /work/wt/ovie
export PYTHONPATH=${SRC:-/tmp/ovie_r17_src} PROCEEDINGS_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
flock /tmp/proceedings-heavy-b.lock bash -c '
  left=$(( $(date -u -d "16:44" +%s) - $(date -u +%s) )); lim=$(( left < ${2:-690} ? left : ${2:-690} ))
  if [ $lim -lt 60 ]; then echo "too late for a piece: $(date -u)"; exit 3; fi
  echo "piece start $(date -u +%T) limit $lim s"; /usr/bin/time -v timeout -k 20 $lim /work/wt/ovie/.venv/bin/python results/ovie/probes/r17_mix.py $1; rc=$?; echo "piece end $(date -u +%T) rc $rc"' _ "$@"
