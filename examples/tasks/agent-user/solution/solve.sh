#!/bin/bash
whoami > /home/builder/out/whoami.txt
