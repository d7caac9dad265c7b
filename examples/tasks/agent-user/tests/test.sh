#!/bin/bash
mkdir -p /logs/verifier
out=/home/builder/out/whoami.txt

reward=1
if [ "$(id -u)" != 0 ]; then
  echo "FAIL: the verifier runs as $(id -un), not root"
  reward=0
fi
if [ "$(cat "$out" 2>/dev/null)" != builder ]; then
  echo "FAIL: $out does not say builder"
  reward=0
fi
if [ "$(stat -c %U "$out" 2>/dev/null)" != builder ]; then
  echo "FAIL: $out is not owned by builder"
  reward=0
fi
echo "$reward" > /logs/verifier/reward.txt
