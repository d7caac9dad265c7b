#!/bin/bash
mkdir -p /logs/verifier

fail() {
  echo "FAIL: $1"
  echo 0 > /logs/verifier/reward.txt
  exit 0
}

# ENV from the Dockerfile reaches the verifier too.
[ "$APP_MODE" = production ] || fail "APP_MODE is '$APP_MODE', not production"
[ "$DATA_DIR" = /opt/data ] || fail "DATA_DIR is '$DATA_DIR', not /opt/data"

expected='Stock report
apples 7
figs 6
pears 17
plums 1
hi from the production build'
actual=$(cat /opt/app/report.txt 2>/dev/null) || fail "/opt/app/report.txt is missing"
if [ "$actual" != "$expected" ]; then
  diff <(echo "$expected") <(echo "$actual")
  fail "/opt/app/report.txt is not the report wanted"
fi
echo 1 > /logs/verifier/reward.txt
