#!/usr/bin/env bash
# Start-up time and memory of the services' native executables, as a Markdown table (native.yml appends it to the
# job summary). For each service with a native executable in <service>/target/*-runner:
#   - start it against the test PostgreSQL + PgBouncer (scripts/stack.sh db-up test must be running), with the
#     environment the chart gives it;
#   - "start-up": the time Quarkus reports in its "started in" line, and the wall-clock time until /q/health/ready
#     answers 200;
#   - "RSS": resident memory (VmRSS) once ready, and again after 200 requests on its real path (authn of an unknown
#     device: 200 with the configured deny; reading an unknown device: 404), which is what a pod's memory limit must
#     hold. Every one of those answers must have its expected status, or the script fails: memory measured after
#     errors would say nothing.
#
#   scripts/native-report.sh [summary-file]            the executables (default: stdout; native.yml passes
#                                                      $GITHUB_STEP_SUMMARY)
#   scripts/native-report.sh --images [summary-file]   the same for the native container images
#                                                      device-identity/<service>:$IMAGE_TAG (docker run --network host,
#                                                      as the Dockerfile.native builds them): proves the images start
#                                                      and answer, not only that they build
#
# Environment: PG_PORT / PGBOUNCER_PORT (the test stack's, 55433 / 56433), AUTH_DB_USER / AUTH_DB_PASSWORD
# (scripts/stack.sh's), IMAGE_TAG (native-ci).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
MODE=executables
if [[ "${1:-}" == --images ]]; then MODE=images; shift; fi
OUT=${1:-/dev/stdout}
: "${PG_PORT:=55433}" "${PGBOUNCER_PORT:=56433}" "${IMAGE_TAG:=native-ci}"
# scripts/stack.sh's defaults for auth-service's role.
: "${AUTH_DB_USER:=identity_auth}" "${AUTH_DB_PASSWORD:=identity-auth-local-dev}"
# The test stack is TLS-only: the services verify its PgBouncer and PostgreSQL against the CA it made.
DB_CA=$(PG_PORT=$PG_PORT PGBOUNCER_PORT=$PGBOUNCER_PORT "$ROOT/scripts/stack.sh" db-ca test)
FAST_PATH_KEYS=native-report:$(head -c 32 /dev/urandom | base64 | tr -d '\n')
TOKEN=native-report-token

log() { printf '[native-report] %s\n' "$*" >&2; }

millis() { date +%s%3N; }

rss_mib() { awk '/^VmRSS:/ { printf "%.1f", $2 / 1024 }' "/proc/$1/status"; }

# The environment the chart gives each service, pointed at the test stack: registration-service owns the schema
# and migrates it; auth-service reads as its own role (created by scripts/stack.sh db-up, granted by the migration)
# with a fast-path key of this run's own.
service_env() {
  local service=$1 port=$2
  printf '%s\n' IDENTITY_DB_HOST=127.0.0.1 "IDENTITY_DB_PORT=$PGBOUNCER_PORT" IDENTITY_DB_NAME=identity \
    IDENTITY_DB_SSLMODE=verify-full "IDENTITY_DB_SSLROOTCERT=$DB_CA"
  case "$service" in
    auth-service)
      printf '%s\n' "AUTH_PORT=$port" "IDENTITY_DB_USER=$AUTH_DB_USER" "IDENTITY_DB_PASSWORD=$AUTH_DB_PASSWORD" \
        IDENTITY_SCHEMA_MIGRATE=false "IDENTITY_AUTH_FAST_PATH_KEYS=$FAST_PATH_KEYS" ;;
    *)
      printf '%s\n' "REGISTRATION_PORT=$port" IDENTITY_DB_USER=identity IDENTITY_DB_PASSWORD=identity-local-dev \
        IDENTITY_SCHEMA_HOST=127.0.0.1 "IDENTITY_SCHEMA_PORT=$PG_PORT" IDENTITY_SCHEMA_MIGRATE=true \
        "IDENTITY_AUTH_DB_USER=$AUTH_DB_USER" "REGISTRATION_TOKENS=$TOKEN" ;;
  esac
}

# One request on the service's real path; prints the status code.
real_request() {
  local service=$1 port=$2 i=$3
  case "$service" in
    auth-service)
      curl -s -o /dev/null -w '%{http_code}' --max-time 10 -X POST "http://127.0.0.1:$port/mqtt/authn" \
        -H 'content-type: application/json' \
        -d "{\"clientid\":\"native-report-$i\",\"username\":\"\",\"password\":\"x\",\"peerhost\":\"127.0.0.1\",\"cert_common_name\":\"\"}" ;;
    *)
      curl -s -o /dev/null -w '%{http_code}' --max-time 10 -H "authorization: Bearer $TOKEN" \
        "http://127.0.0.1:$port/v1/devices/native-report-$i" ;;
  esac
}

# An unknown device: auth-service answers 200 (deny, the default unknownDevice), registration-service 404.
expected_status() { case "$1" in auth-service) echo 200 ;; *) echo 404 ;; esac; }

measure() {
  local service=$1 port=$2 binary= image= log pid container= start ready_ms started rss_ready rss_load status
  local size code unexpected=0 envs=()
  case "$MODE" in
    executables)
      binary=$(ls "$ROOT/$service"/target/*-runner 2>/dev/null | head -n 1 || true)
      if [[ -z "$binary" ]]; then
        log "$service: no native executable in $service/target, skipped"
        return
      fi ;;
    images)
      image=device-identity/$service:$IMAGE_TAG
      if ! docker image inspect "$image" >/dev/null 2>&1; then
        log "$service: no image $image, skipped"
        return
      fi ;;
  esac
  log=$(mktemp)
  mapfile -t envs < <(service_env "$service" "$port")
  start=$(millis)
  if [[ -n "$binary" ]]; then
    env "${envs[@]}" "$binary" >"$log" 2>&1 &
    pid=$!
  else
    # The CA file at the same path inside the container, read-only.
    container=$(docker run -d --rm --network host -v "$DB_CA:$DB_CA:ro" "${envs[@]/#/--env=}" "$image")
    pid=$(docker inspect -f '{{.State.Pid}}' "$container")
  fi
  # The container's process belongs to uid 185: ask docker, not kill -0.
  alive() {
    if [[ -n "$container" ]]; then
      [[ "$(docker inspect -f '{{.State.Running}}' "$container" 2>/dev/null)" == true ]]
    else
      kill -0 "$pid" 2>/dev/null
    fi
  }
  stop() {
    if [[ -n "$container" ]]; then
      docker logs "$container" >"$log" 2>&1 || true
      docker stop -t 10 "$container" >/dev/null 2>&1 || true
    else
      kill -TERM "$pid" 2>/dev/null || true
      wait "$pid" 2>/dev/null || true
    fi
  }
  status=000
  for _ in $(seq 1 600); do
    status=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$((port + 1000))/q/health/ready" || true)
    [[ "$status" == 200 ]] && break
    alive || break
    sleep 0.05
  done
  ready_ms=$(($(millis) - start))
  if [[ "$status" != 200 ]]; then
    stop
    cat "$log" >&2
    log "$service ($MODE) did not become ready"
    exit 1
  fi
  [[ -z "$container" ]] || docker logs "$container" >"$log" 2>&1 || true
  started=$(sed -n 's/.* started in \([0-9.]*s\)\..*/\1/p' "$log" | head -n 1)
  rss_ready=$(rss_mib "$pid")
  for i in $(seq 1 200); do
    code=$(real_request "$service" "$port" "$i" || true)
    if [[ "$code" != "$(expected_status "$service")" ]]; then
      unexpected=$((unexpected + 1))
      ((unexpected > 3)) || log "$service: request $i answered $code, expected $(expected_status "$service")"
    fi
  done
  rss_load=$(rss_mib "$pid")
  stop
  if ((unexpected > 0)); then
    tail -n 40 "$log" >&2
    log "$service ($MODE): $unexpected of 200 requests did not get $(expected_status "$service"); no memory figure from that"
    exit 1
  fi
  rm -f "$log"
  if [[ -n "$binary" ]]; then
    size="$(du -m "$binary" | cut -f1) MiB"
  else
    size=$(docker image inspect -f '{{.Size}}' "$image" | awk '{ printf "%.0f MiB", $1 / 1048576 }')
  fi
  printf '| %s | %s | %s ms | %s MiB | %s MiB | %s |\n' "$service" "${started:-?}" "$ready_ms" "$rss_ready" \
    "$rss_load" "$size" >>"$OUT"
}

if [[ "$MODE" == images ]]; then
  command -v docker >/dev/null 2>&1 || { log "docker is needed for --images"; exit 1; }
  title="Native container images (docker run --network host)" what="image size"
else
  title="Native executables" what="executable size"
fi
{
  echo "### $title"
  echo
  echo "| service | Quarkus \"started in\" | until ready (wall clock) | RSS when ready | RSS after 200 requests | $what |"
  echo "|---|---|---|---|---|---|"
} >>"$OUT"
# registration-service first: it migrates the schema auth-service's role is granted on.
measure registration-service 18082
measure auth-service 18081
