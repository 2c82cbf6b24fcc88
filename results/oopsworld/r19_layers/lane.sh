#!/bin/bash
# Round 19: one lane-A piece (run it as `flock /tmp/proceedings-heavy.lock results/oopsworld/r19_layers/lane.sh CAP RUN...`):
# <= CAP s, never past 23:33 UTC. RUN = NAME:SEED: B2, order none, gated heads + paint_attn + 3 supervised object layers
# + ramp (LAYER_W=0.25), reads 200/400/600 (prereg.md); a finished run is skipped, a cut one resumes in a later piece.
cd /work/wt/oopsworld
r=results/oopsworld/r19_layers; cap=$1; shift
end=$(( $(date -u +%s) + cap )); stop=$(date -u -d 23:33 +%s); [ $end -gt $stop ] && end=$stop
for run in "$@"; do
  IFS=: read name seed <<< "$run"
  [ -f /tmp/oops_r19/$name/read_600.json ] && continue
  [ $(( end - $(date -u +%s) )) -lt 40 ] && { echo "piece over before $name"; break; }
  env SEED=$seed GATED=1 PAINT_ATTN=1 LAYERS=3 RAMP=1 LAYER_W=0.25 CAP=$cap END=$(date -u -d @$end +%T) \
    results/oopsworld/r15_order/piece.sh /tmp/oops_r19/$name none 200,400,600
  for f in /tmp/oops_r19/$name/read_*.json; do [ -f "$f" ] && cp "$f" $r/${name}_$(basename $f); done
done
echo "piece-end $(date -u +%T)"
