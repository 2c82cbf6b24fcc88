#!/bin/bash
# Round 18: one lane-B piece (run it as `flock /tmp/proceedings-heavy-b.lock results/oopsworld/r18_colour/lane.sh CAP RUN...`):
# <= CAP s, never past 19:33 UTC. RUN = NAME:SEED:OPTION (OPTION COLOUR=1 or PAINT_GATE=1): B2, order none, gated heads +
# paint_attn + the option, reads 200/400/600 (prereg.md); a finished run is skipped, a cut one resumes in a later piece.
# Piece 1: 420 s0_colour:0:COLOUR=1 s0_gate:0:PAINT_GATE=1 (the gate cut after its 200 read).
# Piece 2: 480 s0_gate:0:PAINT_GATE=1 s1_gate:1:PAINT_GATE=1 s1_colour:1:COLOUR=1.
cd /work/wt/oopsworld
r=results/oopsworld/r18_colour; cap=$1; shift
end=$(( $(date -u +%s) + cap )); stop=$(date -u -d 19:33 +%s); [ $end -gt $stop ] && end=$stop
for run in "$@"; do
  IFS=: read name seed option <<< "$run"
  [ -f /tmp/oops_r18/$name/read_600.json ] && continue
  [ $(( end - $(date -u +%s) )) -lt 40 ] && { echo "piece over before $name"; break; }
  env $option SEED=$seed GATED=1 PAINT_ATTN=1 CAP=$cap END=$(date -u -d @$end +%T) \
    results/oopsworld/r15_order/piece.sh /tmp/oops_r18/$name none 200,400,600
  for f in /tmp/oops_r18/$name/read_*.json; do [ -f "$f" ] && cp "$f" $r/${name}_$(basename $f); done
done
echo "piece-end $(date -u +%T)"
