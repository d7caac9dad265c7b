#!/bin/bash
mkdir -p /logs/verifier

reward=1
if [ "$(cat /srv/project/notes.txt 2>/dev/null)" != "override works" ]; then
  echo "FAIL: /srv/project/notes.txt does not say 'override works'"
  reward=0
fi
if [ -e /app/notes.txt ]; then
  echo "FAIL: notes.txt landed in /app, the Dockerfile's WORKDIR, not the task's workdir"
  reward=0
fi
echo "$reward" > /logs/verifier/reward.txt
