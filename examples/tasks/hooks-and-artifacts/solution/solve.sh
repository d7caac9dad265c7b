#!/bin/bash
awk 'length($0) <= 4' /app/words.txt > /app/short.txt
awk 'length($0) > 4' /app/words.txt > /app/long.txt
