#!/bin/bash
# Round 18: one lane-B piece for one seed (run it as `flock /tmp/proceedings-heavy-b.lock results/oopsworld/r18_colour/lane.sh SEED`):
# <= 420 s, never past 19:33 UTC. Runs the pre-registered probes of that seed in order (prereg.md): the colour loss
# (COLOUR=1), then the paint gate (PAINT_GATE=1), each B2 order none, gated heads + paint_attn, reads 200/400/600;
# a finished run is skipped, a cut one resumes in a later piece.
cd /work/wt/oopsworld
r=results/oopsworld/r18_colour; seed=$1
end=$(( $(date -u +%s) + 420 )); stop=$(date -u -d 19:33 +%s); [ $end -gt $stop ] && end=$stop
for run in "s${seed}_colour COLOUR=1" "s${seed}_gate PAINT_GATE=1"; do
  set -- $run  # name option
  [ -f /tmp/oops_r18/$1/read_600.json ] && continue
  [ $(( end - $(date -u +%s) )) -lt 40 ] && { echo "piece over before $1"; break; }
  env $2 SEED=$seed GATED=1 PAINT_ATTN=1 CAP=420 END=$(date -u -d @$end +%T) \
    results/oopsworld/r15_order/piece.sh /tmp/oops_r18/$1 none 200,400,600
  for f in /tmp/oops_r18/$1/read_*.json; do [ -f "$f" ] && cp "$f" $r/$1_$(basename $f); done
done
echo "piece-end $(date -u +%T)"
