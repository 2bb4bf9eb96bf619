#!/usr/bin/env bash
# Start-up time and memory of the services' native executables, as a Markdown table (native.yml appends it to the
# job summary). For each service with a native executable in <service>/target/*-runner:
#   - start it against the test PostgreSQL + PgBouncer (scripts/stack.sh db-up test must be running), with the
#     environment the chart gives it;
#   - "start-up": the time Quarkus reports in its "started in" line, and the wall-clock time until /q/health/ready
#     answers 200;
#   - "RSS": resident memory (VmRSS) once ready, and again after 200 requests on its real path (authn of an unknown
#     device / reading an unknown device), which is what a pod's memory limit must hold.
#
#   scripts/native-report.sh [summary-file]      (default: stdout; native.yml passes $GITHUB_STEP_SUMMARY)
#
# Environment: PG_PORT / PGBOUNCER_PORT (the test stack's, 55433 / 56433).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
OUT=${1:-/dev/stdout}
: "${PG_PORT:=55433}" "${PGBOUNCER_PORT:=56433}"
TOKEN=native-report-token

log() { printf '[native-report] %s\n' "$*" >&2; }

millis() { date +%s%3N; }

rss_mib() { awk '/^VmRSS:/ { printf "%.1f", $2 / 1024 }' "/proc/$1/status"; }

measure() {
  local service=$1 port=$2 binary log pid start ready_ms started rss_ready rss_load status
  binary=$(ls "$ROOT/$service"/target/*-runner 2>/dev/null | head -n 1 || true)
  if [[ -z "$binary" ]]; then
    log "$service: no native executable in $service/target, skipped"
    return
  fi
  log=$(mktemp)
  start=$(millis)
  env AUTH_PORT="$port" REGISTRATION_PORT="$port" \
    IDENTITY_DB_HOST=127.0.0.1 IDENTITY_DB_PORT="$PGBOUNCER_PORT" IDENTITY_DB_NAME=identity \
    IDENTITY_DB_USER=identity IDENTITY_DB_PASSWORD=identity-local-dev \
    IDENTITY_SCHEMA_HOST=127.0.0.1 IDENTITY_SCHEMA_PORT="$PG_PORT" IDENTITY_SCHEMA_MIGRATE=true \
    REGISTRATION_TOKENS="$TOKEN" "$binary" >"$log" 2>&1 &
  pid=$!
  status=000
  for _ in $(seq 1 600); do
    status=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/q/health/ready" || true)
    [[ "$status" == 200 ]] && break
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.05
  done
  ready_ms=$(($(millis) - start))
  if [[ "$status" != 200 ]]; then
    kill "$pid" 2>/dev/null || true
    cat "$log" >&2
    log "$service did not become ready"
    exit 1
  fi
  started=$(sed -n 's/.* started in \([0-9.]*s\)\..*/\1/p' "$log" | head -n 1)
  rss_ready=$(rss_mib "$pid")
  for i in $(seq 1 200); do
    case "$service" in
      auth-service)
        curl -s -o /dev/null -X POST "http://127.0.0.1:$port/mqtt/authn" -H 'content-type: application/json' \
          -d "{\"clientid\":\"native-report-$i\",\"username\":\"\",\"password\":\"x\",\"peerhost\":\"127.0.0.1\",\"cert_common_name\":\"\"}" ;;
      *)
        curl -s -o /dev/null -H "authorization: Bearer $TOKEN" "http://127.0.0.1:$port/v1/devices/native-report-$i" ;;
    esac
  done
  rss_load=$(rss_mib "$pid")
  kill -TERM "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  rm -f "$log"
  printf '| %s | %s | %s ms | %s MiB | %s MiB | %s MiB |\n' "$service" "${started:-?}" "$ready_ms" "$rss_ready" \
    "$rss_load" "$(du -m "$binary" | cut -f1)" >>"$OUT"
}

{
  echo "### Native executables"
  echo
  echo "| service | Quarkus \"started in\" | until ready (wall clock) | RSS when ready | RSS after 200 requests | executable size |"
  echo "|---|---|---|---|---|---|"
} >>"$OUT"
measure auth-service 18081
measure registration-service 18082
