#!/bin/sh
# Closes its stdin, says so, and stays alive: writes to it must fail with EPIPE, not SIGPIPE.
exec 0<&-
echo '{"ready":true}'
exec sleep 30
