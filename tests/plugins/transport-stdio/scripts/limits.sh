#!/bin/sh
# A line of exactly $1 bytes, then one of $1+1 bytes, then silence.
head -c "$1" /dev/zero | tr '\0' x; echo
head -c "$(($1 + 1))" /dev/zero | tr '\0' y; echo
exec sleep 30
