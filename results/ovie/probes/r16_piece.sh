#!/bin/bash
# one lane-B piece of the round-16 ovie small run (<= 690 s of compute, then SIGTERM: the trainer checkpoints);
# SRC = a copy of src/ taken at the commit that ran (edits between pieces must not reach the run)
cd /work/wt/ovie
export PYTHONPATH=${SRC:-/tmp/ovie_r16_src} PROCEEDINGS_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 PROCEEDINGS_RESULTS=/tmp/ovie_r16_results
flock /tmp/proceedings-heavy-b.lock bash -c '
  if [ $(date +%s) -gt $(date -d "13:32" +%s) ]; then echo "too late for a piece: $(date)"; exit 3; fi
  echo "piece start $(date)"; /usr/bin/time -v timeout -k 20 ${1:-690} /work/wt/ovie/.venv/bin/python results/ovie/probes/r16_pitch_law.py $2; rc=$?; echo "piece end $(date) rc $rc"' _ "$@"
