#!/bin/sh
# Floods stderr, ends it with a recognisable last line, and fails.
head -c "$1" /dev/zero | tr '\0' x >&2
printf '\nfirst of the last lines\nlast words\n' >&2
exit 1
