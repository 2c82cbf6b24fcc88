#!/bin/bash
# Round 17: one lane-A piece (run it under `flock /tmp/proceedings-heavy.lock`): <= 300 s, never past 16:44 UTC.
# Runs the pre-registered probes in order (prereg.md), skipping finished ones; a cut run resumes in the next piece.
cd /work/wt/oopsworld
r=results/oopsworld/r17_colour
end=$(( $(date -u +%s) + 300 )); stop=$(date -u -d 16:44 +%s); [ $end -gt $stop ] && end=$stop
for run in "s0_gp 0 1 none 200,400,600" "s1_gp 1 1 none 200,400,600" "s0_p 0 0 none 200,400,600" \
           "s1_p 1 0 none 200,400,600" "s0_gp_blocked 0 1 blocked 200,220,250,300,600" \
           "s1_gp_blocked 1 1 blocked 200,600" "s0_gp_1200 0 1 none 600,1200"; do
  set -- $run  # name seed gated order reads
  [ -f /tmp/oops_r17/$1/read_${5##*,}.json ] && continue
  [ $(( end - $(date -u +%s) )) -lt 40 ] && { echo "piece over before $1"; break; }
  SEED=$2 GATED=$3 PAINT_ATTN=1 CAP=300 END=$(date -u -d @$end +%T) \
    results/oopsworld/r15_order/piece.sh /tmp/oops_r17/$1 $4 $5
  for f in /tmp/oops_r17/$1/read_*.json; do [ -f "$f" ] && cp "$f" $r/$1_$(basename $f); done
done
echo "piece-end $(date -u +%T)"
