#!/bin/bash
# Round-17 probe piece on lane B: one lock hold running the given scripts of this folder in turn, e.g.
# `r17_run.sh "r17_probe.py full 600"` or `r17_run.sh "r17_probe.py local 600" "r17_sampler.py full local"`.
# None starts after 16:30 UTC; none runs past 16:44 or 12 minutes.
cd /work/wt/moca
export PYTHONPATH=$PWD/src PROCEEDINGS_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
stop=$(date -u -d "16:44" +%s); last_start=$(date -u -d "16:30" +%s)
steps=""
for s in "$@"; do steps="$steps /usr/bin/time -v .venv/bin/python results/moca/probes/$s &&"; done
echo "=== $* queued $(date -u +%T)"
flock /tmp/proceedings-heavy-b.lock bash -c "echo lock \$(date -u +%T); now=\$(date -u +%s); [ \$now -gt $last_start ] && { echo no time; exit 3; }; left=\$(( $stop - \$now )); [ \$left -gt 715 ] && left=715; timeout -s KILL \$left bash -c '$steps true'"
echo "=== $* rc $? end $(date -u +%T)"
