#!/usr/bin/env bash
# Verdicts of the kind end-to-end run (.github/workflows/e2e-kind.yml), each against the release k8s/kind.sh installed.
# Every check prints what it measured and exits non-zero when the chain broke a promise.
#
#   k8s/e2e-checks.sh no-500               no HTTP 500 from auth-service or registration-service (their own
#                                          http_server_requests metrics, scraped from every pod through port-forward)
#   k8s/e2e-checks.sh pgbouncer-refusals   PgBouncer refused no client: no "no more connections allowed
#                                          (max_client_conn)" and no query_wait_timeout in any PgBouncer pod's log
#   k8s/e2e-checks.sh storm-connected      while the emqtt-bench storm Job runs: every seeded device ends up connected
#                                          to EMQX (live connections summed over the EMQX nodes reach pods x clients)
#                                          before the Job's hold time runs out, i.e. none was left rejected after
#                                          its retries
#   k8s/e2e-checks.sh loadtest-report      the load generator's JSON report (REPORT_DIR) says no device with valid
#                                          credentials was finally rejected and no 500 came back; the HTML page exists
#
# Environment: NAMESPACE (identity), RELEASE (device-identity), REPORT_DIR (target/k8s-report), STORM_WAIT_SECONDS
# (270: the storm Job holds its connections 300 s), LOADTEST_REJECTED_JQ / LOADTEST_500_JQ (jq expressions for the
# report fields, see loadtest_report below).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
COMMAND=${1:-}
: "${NAMESPACE:=identity}" "${RELEASE:=device-identity}" "${REPORT_DIR:=$ROOT/target/k8s-report}"
: "${STORM_WAIT_SECONDS:=270}"

log() { printf '[e2e] %s\n' "$*" >&2; }
fail() { log "FAILED: $*"; exit 1; }
pods_of() {
  kubectl -n "$NAMESPACE" get pods -l "app.kubernetes.io/instance=$RELEASE,app.kubernetes.io/component=$1" \
    -o jsonpath='{range .items[*]}{.metadata.name}{"\n"}{end}'
}

# Port-forward reaches the container through its own network namespace, so the chart's NetworkPolicies (which only
# let EMQX call auth-service) do not get in the way, and the native images need no curl of their own.
scrape() {
  local pod=$1 port=$2 local_port=$3 pf metrics
  kubectl -n "$NAMESPACE" port-forward "pod/$pod" "$local_port:$port" >/dev/null 2>&1 &
  pf=$!
  for _ in $(seq 1 50); do
    metrics=$(curl -fsS "http://127.0.0.1:$local_port/q/metrics" 2>/dev/null) && break
    sleep 0.2
  done
  kill "$pf" 2>/dev/null || true
  wait "$pf" 2>/dev/null || true
  [[ -n "${metrics:-}" ]] || fail "could not scrape /q/metrics from $pod"
  printf '%s\n' "$metrics"
}

no_500() {
  local component port pod count total=0 local_port=19000
  for component in auth-service registration-service; do
    case "$component" in auth-service) port=8081 ;; *) port=8082 ;; esac
    for pod in $(pods_of "$component"); do
      local_port=$((local_port + 1))
      count=$(scrape "$pod" "$port" "$local_port" \
        | awk '/^http_server_requests_seconds_count\{/ && /status="500"/ { sum += $NF } END { printf "%d", sum }')
      log "$pod: $count answers with status 500"
      total=$((total + count))
    done
  done
  ((total == 0)) || fail "$total HTTP 500 answers (a 500 is a defect; see the pods' logs for the stack traces)"
  log "no HTTP 500"
}

pgbouncer_refusals() {
  local pod refused waited total=0
  for pod in $(pods_of pgbouncer); do
    refused=$(kubectl -n "$NAMESPACE" logs "$pod" -c pgbouncer | grep -c 'no more connections allowed' || true)
    waited=$(kubectl -n "$NAMESPACE" logs "$pod" -c pgbouncer | grep -c 'query_wait_timeout' || true)
    log "$pod: $refused clients refused (max_client_conn), $waited cut off by query_wait_timeout"
    total=$((total + refused + waited))
  done
  ((total == 0)) || fail "PgBouncer refused $total clients: the pools no longer fit (README: the invariants table)"
  log "PgBouncer refused no client"
}

storm_connected() {
  local job=device-identity-emqtt-bench-conn pods per_pod expected connected pod n deadline
  deadline=$((SECONDS + STORM_WAIT_SECONDS))
  # The Job as applied (k8s/kind.sh storm may have resized it), not as written in k8s/jobs/.
  until kubectl -n "$NAMESPACE" get job "$job" >/dev/null 2>&1; do
    ((SECONDS < deadline)) || fail "the storm Job $job never appeared"
    sleep 2
  done
  pods=$(kubectl -n "$NAMESPACE" get job "$job" -o jsonpath='{.spec.completions}')
  per_pod=$(kubectl -n "$NAMESPACE" get job "$job" \
    -o jsonpath='{.spec.template.spec.containers[0].env[?(@.name=="CLIENTS_PER_POD")].value}')
  expected=$((pods * per_pod))
  while :; do
    connected=0
    for pod in $(pods_of emqx); do
      n=$(kubectl -n "$NAMESPACE" exec "$pod" -c emqx -- emqx ctl broker stats 2>/dev/null \
        | awk '$1 == "live_connections.count" { print $NF }')
      connected=$((connected + ${n:-0}))
    done
    log "EMQX live connections: $connected of $expected storm devices"
    ((connected >= expected)) && { log "every storm device is connected"; return 0; }
    ((SECONDS < deadline)) || break
    sleep 10
  done
  fail "$((expected - connected)) of $expected devices with valid credentials were still not connected after their retries"
}

# The report's field names belong to loadtest/ (its README documents the JSON). The defaults below are this check's
# reading of that contract; override them with LOADTEST_REJECTED_JQ / LOADTEST_500_JQ if the report says it otherwise.
loadtest_report() {
  local json rejected errors
  command -v jq >/dev/null 2>&1 || fail "jq is needed"
  json=$(ls "$REPORT_DIR"/*.json 2>/dev/null | head -n 1)
  [[ -n "$json" ]] || fail "no JSON report in $REPORT_DIR"
  ls "$REPORT_DIR"/*.html >/dev/null 2>&1 || fail "no HTML report in $REPORT_DIR"
  # Every load device has valid credentials (k8s/jobs/loadtest-job.yaml: no wrong-password or unknown share), so
  # any "200 deny" is a valid device rejected; overload answers are retried by the device (backoff) instead.
  rejected=$(jq -e "${LOADTEST_REJECTED_JQ:-[.totals.answers | to_entries[] | select(.key == \"200 deny\") | .value] | add // 0}" "$json") \
    || fail "$json has no answer counts (.totals.answers)"
  errors=$(jq -e "${LOADTEST_500_JQ:-[.totals.answers | to_entries[] | select(.key | startswith(\"500\")) | .value] | add // 0}" "$json") \
    || fail "$json has no answer counts (.totals.answers)"
  log "load test: $rejected devices rejected after their retries, $errors answers with status 500"
  ((rejected == 0)) || fail "$rejected devices with valid credentials were rejected after their retries"
  ((errors == 0)) || fail "$errors answers with status 500"
}

case "$COMMAND" in
  no-500) no_500 ;;
  pgbouncer-refusals) pgbouncer_refusals ;;
  storm-connected) storm_connected ;;
  loadtest-report) loadtest_report ;;
  *) sed -n '2,19p' "$0" >&2; exit 2 ;;
esac
