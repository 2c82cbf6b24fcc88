#!/bin/bash
# Round-16 probes on lane B, one probe per lock hold (args like diagnose or train:half:1500; PROBE_INIT and
# STAGE2 pass through).
# None starts after 13:30 UTC; none runs past 13:44 or 10 minutes.
cd /work/wt/motionforcing
export PYTHONPATH=$PWD/src PROCEEDINGS_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
unset PROCEEDINGS_MOTIONFORCING_MAX_MINUTES PROBE_SMOKE_STEPS PROBE_OUT
mkdir -p /tmp/mf_r16
stop=$(date -u -d "13:44" +%s); last_start=$(date -u -d "13:30" +%s)
for p in "$@"; do
  name=${p//:/_}${PROBE_INIT:+_init_$PROBE_INIT}
  echo "=== $p queued $(date -u +%T)"
  flock /tmp/proceedings-heavy-b.lock bash -c "echo lock \$(date -u +%T); now=\$(date -u +%s); [ \$now -gt $last_start ] && { echo no time; exit 3; }; left=\$(( $stop - \$now )); [ \$left -gt 600 ] && left=600; timeout -s KILL \$left /usr/bin/time -v .venv/bin/python results/motionforcing/probes/r16_probe.py ${p//:/ }" > /tmp/mf_r16/probe_$name.log 2>&1
  echo "=== $p rc $? end $(date -u +%T)"
  tr '\r' '\n' < /tmp/mf_r16/probe_$name.log | grep -E "^lock|Elapsed|User time|System time"
done
