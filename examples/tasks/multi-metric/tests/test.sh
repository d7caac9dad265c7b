#!/bin/bash
# Two metrics, each 0 or 1, and no "reward" key: the task run is scored with no primary reward.
mkdir -p /logs/verifier
python3 /tests/grade.py /app/dedupe.py /logs/verifier/reward.json
