#!/bin/bash
# one lane-B piece (<= 14 min, never past 11:29 UTC): runs "OUT ORDER READS" triples in turn; a cut run resumes
cd /work/wt/oopsworld
export PYTHONPATH=$PWD/src PROCEEDINGS_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
left=$(( $(date -u -d "11:29" +%s) - $(date -u +%s) )); [ $left -gt 840 ] && left=840
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
