#!/bin/bash
# Round-18 piece on lane B: one lock hold running one script of this folder, e.g. `r18_run.sh r18_paper_start.py`.
# It does not start after 19:15 UTC and is killed (the python process itself) at 19:30 or after 12 minutes.
cd /work/wt/moca
export PYTHONPATH=$PWD/src PROCEEDINGS_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
stop=$(date -u -d "19:30" +%s); last_start=$(date -u -d "19:15" +%s)
echo "=== $1 queued $(date -u +%T)"
flock /tmp/proceedings-heavy-b.lock bash -c "echo lock \$(date -u +%T); now=\$(date -u +%s); [ \$now -gt $last_start ] && { echo no time; exit 3; }; left=\$(( $stop - \$now )); [ \$left -gt 715 ] && left=715; exec timeout -s KILL \$left .venv/bin/python results/moca/probes/$1"
echo "=== $1 rc $? end $(date -u +%T)"
