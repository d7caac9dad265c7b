#!/bin/bash
# A relative path on purpose: it lands in whatever directory the task starts commands in.
echo "override works" > notes.txt
