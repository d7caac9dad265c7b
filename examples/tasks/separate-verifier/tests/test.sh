#!/bin/bash
mkdir -p /logs/verifier

fail() {
  echo "FAIL: $1"
  echo 0 > /logs/verifier/reward.txt
  exit 0
}

[ "$(cat /verifier-image.txt 2>/dev/null)" = verifier ] || fail "not running in the image built from tests/Dockerfile"
[ -f /tmp/report.json ] || fail "the artifact /tmp/report.json did not reach the verifier"
python3 -c '
import json, sys
report = json.load(open("/tmp/report.json"))
sys.exit(0 if report == {"status": "ok", "log_files": 3} else 1)
' || fail "/tmp/report.json is not {\"status\": \"ok\", \"log_files\": 3}"
[ -s /logs/artifacts/summary.txt ] || fail "/logs/artifacts/summary.txt is missing or empty"
[ ! -e /tmp/scratch.txt ] || fail "/tmp/scratch.txt leaked from the agent's sandbox"
echo 1 > /logs/verifier/reward.txt
