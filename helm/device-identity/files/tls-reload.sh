#!/bin/sh
# tls-reload.sh: makes a running server serve certificate files that were renewed in place, without a restart.
# PostgreSQL and PgBouncer read their key and certificate only at start and on a reload; cert-manager
# renews the Secret and the kubelet swaps the mounted files, so someone has to ask for the reload.
#
#   tls-reload.sh PERIOD_SECONDS COMMAND FILE...
#
# Every PERIOD_SECONDS it fingerprints the content of FILE... (read through the symlinks a Secret volume swaps
# atomically). When the fingerprint differs from the one the server last loaded and every file is readable and not
# empty, it runs COMMAND with sh -c (PostgreSQL: SELECT pg_reload_conf(); PgBouncer: RELOAD on its console) and
# remembers the new fingerprint once COMMAND succeeded; a failed COMMAND is run again at the next period. The files
# present at start are taken as loaded. Only file names and outcomes are logged, never content. TERM or INT: exit 0.
# POSIX sh and cksum only: it runs in the Alpine images of PostgreSQL and PgBouncer, and in `make test`
# (build-checks TlsReloadScriptTest, against the real servers).
set -u

log() { printf '[tls-reload] %s %s\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$*"; }
usage() {
  printf 'usage: tls-reload.sh PERIOD_SECONDS COMMAND FILE...\n' >&2
  exit 2
}

[ "$#" -ge 3 ] || usage
period=$1
command=$2
shift 2
case "$period" in '' | *[!0-9]*) usage ;; esac
[ "$period" -ge 1 ] || usage

# The files' fingerprint, or nothing while one of them is missing, unreadable or empty (a renewal half written).
fingerprint() {
  for file in "$@"; do
    [ -r "$file" ] && [ -s "$file" ] || return 1
  done
  cat -- "$@" | cksum
}

trap 'log "stopping"; exit 0' TERM INT

loaded=$(fingerprint "$@") || {
  log "cannot read $* at start"
  loaded=""
}
log "watching $* every ${period}s"
while :; do
  sleep "$period" &
  wait $!
  now=$(fingerprint "$@") || continue
  [ "$now" = "$loaded" ] && continue
  if output=$(sh -c "$command" 2>&1); then
    loaded=$now
    log "certificate files changed: reloaded"
  else
    log "certificate files changed, but the reload failed (retried in ${period}s): $output"
  fi
done
