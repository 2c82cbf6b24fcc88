#!/bin/bash
# one lane piece (<= CAP s, default 840; never past END UTC, default 11:29): runs "OUT ORDER READS" triples in turn;
# a cut run resumes (round 16: GATED=1 END=13:45 CAP=360 under the lane-A lock)
cd /work/wt/oopsworld
export PYTHONPATH=$PWD/src PROCEEDINGS_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
cap=${CAP:-840}; left=$(( $(date -u -d "${END:-11:29}" +%s) - $(date -u +%s) )); [ $left -gt $cap ] && left=$cap
echo "lock $(date -u +%T), left $left s, load $(cut -d' ' -f1-3 /proc/loadavg)"
end=$(( $(date -u +%s) + left ))
while [ $# -ge 3 ]; do
  l=$(( end - $(date -u +%s) )); [ $l -lt 30 ] && { echo "cut: no time for $1"; break; }
  echo "== $2 -> $1 ($3) $(date -u +%T)"
  /usr/bin/time -f "time: wall %e s, user %U s, sys %S s" timeout -s KILL $l .venv/bin/python results/oopsworld/r15_order/order.py "$1" "$2" "$3" 2>&1 \
    | tr '\r' '\n' | grep -E "^\{|wall|recolor|setup|time:|Error|error|Traceback|line "
  shift 3
done
echo "done $(date -u +%T), load $(cut -d' ' -f1-3 /proc/loadavg)"
