#!/bin/sh
# A server that ignores stdin EOF and SIGTERM, with a grandchild that does the same.
# Prints {"pid":<self>,"grandchild":<pid>} so the test can check both die.
trap '' TERM
( trap '' TERM; while :; do sleep 0.1; done ) &
echo "{\"pid\":$$,\"grandchild\":$!}"
while :; do sleep 0.1; done
