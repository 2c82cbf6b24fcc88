#!/bin/bash
# lane-A piece 2: resume mob_T (digits) for at most 500 s, then sample its latest checkpoint (probe); ends by 16:44:30
cd /work/wt/mobta && export PYTHONPATH=$PWD/src PROCEEDINGS_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
left=$(( $(date -u -d "16:44:30" +%s) - $(date -u +%s) ))
echo "piece start $(date -u +%T) left $left s"
train=$(( left - 260 < 500 ? left - 260 : 500 ))
if [ $train -ge 60 ]; then
  /usr/bin/time -v timeout -s TERM -k 10 $train .venv/bin/python results/mobta/r17_digits/oracle_digits.py train
  echo "train end $(date -u +%T) rc $?"
fi
left=$(( $(date -u -d "16:44:30" +%s) - $(date -u +%s) ))
if [ $left -lt 120 ]; then echo "no time left for the probe"; exit 3; fi
/usr/bin/time -v timeout -s TERM -k 10 $left .venv/bin/python results/mobta/r17_digits/oracle_digits.py probe
echo "piece end $(date -u +%T) rc $?"
