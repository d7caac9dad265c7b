#!/bin/bash
# Runs after the agent, from the task's working directory, before the collect hooks.
set -euo pipefail
mkdir -p /logs/artifacts
# A collection script of one's own must leave this file, even empty.
[ -e /logs/artifacts/model.patch ] || : > /logs/artifacts/model.patch
echo "collected from $(pwd)" > /logs/artifacts/pre.txt
