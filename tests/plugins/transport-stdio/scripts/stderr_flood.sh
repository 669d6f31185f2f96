#!/bin/sh
# Floods stderr with $1 bytes (no reader would keep up if it were not drained), then answers.
head -c "$1" /dev/zero | tr '\0' x >&2
echo '{"done":true}'
exec sleep 30
