#!/bin/bash
# Round-15 probes on lane B, one variant per lock hold; none starts before 10:50 or after 11:21, none runs past 11:30.
cd /work/wt/motionforcing
export PYTHONPATH=$PWD/src PROCEEDINGS_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
unset PROCEEDINGS_MOTIONFORCING_MAX_MINUTES PROBE_SMOKE_STEPS PROBE_OUT
first=$(date -u -d "10:50" +%s); stop=$(date -u -d "11:30" +%s); last_start=$(date -u -d "11:21" +%s)
while [ $(date -u +%s) -lt $first ]; do sleep 10; done
for v in "$@"; do
  [ -f /tmp/mf_r15/$v.json ] && { echo "=== $v done already"; continue; }
  echo "=== $v queued $(date -u +%T)"
  flock /tmp/proceedings-heavy-b.lock bash -c "echo lock \$(date -u +%T); now=\$(date -u +%s); [ \$now -gt $last_start ] && { echo no time; exit 3; }; left=\$(( $stop - \$now )); [ \$left -gt 600 ] && left=600; timeout -s KILL \$left /usr/bin/time -v .venv/bin/python /tmp/mf_r15/probe.py $v" > /tmp/mf_r15/probe_$v.log 2>&1
  echo "=== $v rc $? end $(date -u +%T)"
  tr '\r' '\n' < /tmp/mf_r15/probe_$v.log | grep -E "^lock|abs_rel|control_err|Elapsed|User time|System time"
done
