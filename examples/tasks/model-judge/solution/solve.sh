#!/bin/bash
cat > /app/poem.txt <<'POEM'
Grey waves fold and break
salt wind carries gull voices
the tide pulls them home
POEM
