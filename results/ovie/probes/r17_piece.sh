#!/bin/bash
# one lane-B piece of round 17's A+B / A+C rows: `r17_piece.sh SEED [LIMIT_S]` (never past 16:44 UTC; see piece.sh)
SRC=${SRC:-/tmp/ovie_r17_src} exec "$(dirname "$0")/piece.sh" 16:44 r17_mix.py "$@"
