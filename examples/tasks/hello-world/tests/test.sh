#!/bin/bash
# The verifier line real container-format tasks use. They install uv from the network first; here
# the sandbox's tool layer has the real uv, which installs the pinned pytest from PyPI (through the
# host's package cache) and runs it with the sandbox's own Python, the nearest to 3.13 it has.
mkdir -p /logs/verifier

uvx -p 3.13 -w pytest==8.4.1 -w pytest-json-ctrf==0.3.5 pytest --ctrf /logs/verifier/ctrf.json /tests/test_outputs.py -rA

if [ $? -eq 0 ]; then
  echo 1 > /logs/verifier/reward.txt
else
  echo 0 > /logs/verifier/reward.txt
fi
