#!/bin/bash
mkdir -p /logs/verifier

fail() {
  echo "FAIL: $1"
  echo 0 > /logs/verifier/reward.txt
  exit 0
}

[ "$(cat /logs/artifacts/pre.txt 2>/dev/null)" = "collected from /app" ] \
  || fail "pre_artifacts.sh did not run from /app"
[ -e /logs/artifacts/model.patch ] || fail "/logs/artifacts/model.patch is missing"
listing=/logs/artifacts/listing.txt
[ -f "$listing" ] || fail "the collect hook after the failing one did not run"
for name in short.txt long.txt; do
  grep -qx "$name" "$listing" || fail "the listing of /app has no $name"
done
[ "$(cat /app/short.txt)" = $'fig\nkiwi\nplum' ] || fail "/app/short.txt is wrong"
[ "$(cat /app/long.txt)" = $'banana\napricot\ncherry' ] || fail "/app/long.txt is wrong"
echo 1 > /logs/verifier/reward.txt
