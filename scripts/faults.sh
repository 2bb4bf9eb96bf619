#!/usr/bin/env bash
# Real faults on a stack that scripts/stack.sh started (the fault tests of `make test`, and `make chaos`).
#
#   scripts/faults.sh pgbouncer-kill  [dev|test]   SIGKILL PgBouncer (no clean shutdown); restart: stack.sh pgbouncer-start
#   scripts/faults.sh postgres-crash  [dev|test]   pg_ctl stop -m immediate (crash recovery on the next start)
#   scripts/faults.sh postgres-start  [dev|test]   start PostgreSQL again (stack.sh db-up, which is idempotent)
#   scripts/faults.sh postgres-freeze [dev|test]   SIGSTOP the postmaster and every backend: the hung database
#   scripts/faults.sh postgres-thaw   [dev|test]   SIGCONT them
#
# Same profiles, ports and STACK_DIR as scripts/stack.sh. Only processes of this stack (by its pid files) are touched.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
COMMAND=${1:-}
PROFILE=${2:-dev}
# shellcheck source=stack-layout.sh
source "$ROOT/scripts/stack-layout.sh"
# scripts/stack.sh, called for postgres-start, must find the same stack.
export PG_PORT PGBOUNCER_PORT STACK_DIR

log() { printf '[faults:%s] %s\n' "$PROFILE" "$*" >&2; }
as_db() { if [[ $(id -u) -eq 0 ]]; then runuser -u postgres -- "$@"; else "$@"; fi; }

postgres_pids() {
  local postmaster
  postmaster=$(head -n 1 "$DATA_DIR/postmaster.pid" 2>/dev/null) || return 0
  [[ -n "$postmaster" ]] || return 0
  echo "$postmaster"
  pgrep -P "$postmaster" || true
}

case "$COMMAND" in
  pgbouncer-kill)
    pid=$(cat "$RUN_DIR/pgbouncer.pid")
    log "SIGKILL PgBouncer ($pid)"
    kill -KILL "$pid"
    for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    rm -f "$RUN_DIR/pgbouncer.pid"
    ;;
  postgres-crash)
    log "pg_ctl stop -m immediate"
    as_db "$PG_BIN/pg_ctl" -D "$DATA_DIR" -m immediate -w stop >/dev/null
    ;;
  postgres-start)
    "$ROOT/scripts/stack.sh" db-up "$PROFILE"
    ;;
  postgres-freeze)
    pids=$(postgres_pids)
    log "SIGSTOP PostgreSQL ($(echo $pids | wc -w) processes)"
    # shellcheck disable=SC2086
    kill -STOP $pids
    ;;
  postgres-thaw)
    pids=$(postgres_pids)
    log "SIGCONT PostgreSQL"
    # shellcheck disable=SC2086
    kill -CONT $pids
    ;;
  *)
    sed -n '2,10p' "$0" >&2
    exit 2
    ;;
esac
