#!/bin/bash
# one lane-B piece of the round-16b ovie small run with the ablation rows: at most 690 s of compute and never past
# 13:44:30 UTC, then SIGTERM (the trainer checkpoints); SRC = a copy of src/ taken at the commit that ran
cd /work/wt/ovie
export PYTHONPATH=${SRC:-/tmp/ovie_r16b_src} PROCEEDINGS_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 PROCEEDINGS_RESULTS=/tmp/ovie_r16b_results
flock /tmp/proceedings-heavy-b.lock bash -c '
  left=$(( $(date -u -d "13:44:30" +%s) - $(date -u +%s) )); lim=$(( left < ${1:-690} ? left : ${1:-690} ))
  if [ $lim -lt 60 ]; then echo "too late for a piece: $(date -u)"; exit 3; fi
  echo "piece start $(date -u +%T) limit $lim s"; /usr/bin/time -v timeout -k 20 $lim /work/wt/ovie/.venv/bin/python results/ovie/probes/r16b_ablations.py $2; rc=$?; echo "piece end $(date -u +%T) rc $rc"' _ "$@"
