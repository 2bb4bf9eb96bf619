#!/usr/bin/env bash
# `make test-busy`: the identity-core and auth-service suites (unit, @QuarkusTest, @QuarkusIntegrationTest) while
# stress-ng keeps every core busy at normal priority, as on a CI runner or developer machine where other work runs.
# A test whose verdict depends on a quiet machine (a real-clock wait against one of the service's limits) fails here.
# stress-ng is stopped when the tests end, whatever their outcome, and on Ctrl-C.
#
# Environment: TEST_PG_PORT / TEST_PGBOUNCER_PORT (55433 / 56433, the test stack of `make test`), MVN (mvn -B),
# BUSY_MODULES (identity-core,auth-service), BUSY_TIMEOUT (stress-ng stops by itself after this: 3600s).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
: "${TEST_PG_PORT:=55433}" "${TEST_PGBOUNCER_PORT:=56433}" "${MVN:=mvn -B}"
: "${BUSY_MODULES:=identity-core,auth-service}" "${BUSY_TIMEOUT:=3600s}"

log() { printf '[test-busy] %s\n' "$*" >&2; }
command -v stress-ng >/dev/null 2>&1 || { log "error: stress-ng is missing: run 'make install-deps'"; exit 1; }

PG_PORT=$TEST_PG_PORT PGBOUNCER_PORT=$TEST_PGBOUNCER_PORT scripts/stack.sh db-up test

# One CPU hog per online core (--cpu 0), at the tests' own priority. SIGTERM to the parent stops every worker it
# forked; --timeout stops it even if this script is killed outright.
stress-ng --cpu 0 --cpu-method matrixprod --timeout "$BUSY_TIMEOUT" --quiet &
STRESS=$!
stop_stress() {
  kill -TERM "$STRESS" 2>/dev/null || true
  wait "$STRESS" 2>/dev/null || true
  log "stress-ng stopped"
}
trap stop_stress EXIT
trap 'exit 130' INT TERM
log "stress-ng (pid $STRESS) keeps $(nproc) cores busy; running $BUSY_MODULES"

start=$SECONDS
status=0
# shellcheck disable=SC2086 # MVN is a command line
$MVN verify -pl "$BUSY_MODULES" -am -Dtest.pg.port="$TEST_PG_PORT" -Dtest.pgbouncer.port="$TEST_PGBOUNCER_PORT" \
  -Dtest.db.ca="$(PG_PORT=$TEST_PG_PORT PGBOUNCER_PORT=$TEST_PGBOUNCER_PORT scripts/stack.sh db-ca test)" || status=$?
log "the suites ended with status $status after $((SECONDS - start)) s on a busy machine"
exit "$status"
