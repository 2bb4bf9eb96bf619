#!/usr/bin/env bash
# Verdicts of the kind end-to-end run (.github/workflows/e2e-kind.yml), each against the release k8s/kind.sh installed.
# Every check prints what it measured and exits non-zero when the chain broke a promise, or when it could not see
# what it needs to judge (no pods, no report, no metrics): a check that saw nothing never passes.
#
#   k8s/e2e-checks.sh no-500               no HTTP 5xx other than the designed 503 refusals from auth-service or
#                                          registration-service: their http_server_requests metrics (every pod,
#                                          through port-forward) and, for a container that restarted, its previous
#                                          container's log (the counters died with it)
#   k8s/e2e-checks.sh pgbouncer-refusals   PgBouncer refused no client: no "no more connections allowed" and no
#                                          query_wait_timeout in any PgBouncer pod's log, current and previous
#                                          container
#   k8s/e2e-checks.sh storm-rate           prints the emqtt-bench Job's connects/s per pod (k8s/kind.sh storm reads
#                                          STORM_CONN_RATE): STORM_CAPACITY_SHARE (0.5) of the auth tier's bcrypt
#                                          capacity measured so far in this run (after the load test), over the Job's
#                                          pods; fails when no capacity was measured or it is under 1/s per pod
#   k8s/e2e-checks.sh storm-connected      while the emqtt-bench storm Job runs: every seeded device ends up connected
#                                          to EMQX (live connections summed over the EMQX nodes reach pods x clients)
#                                          before STORM_WAIT_SECONDS run out; on failure it prints auth-service's
#                                          503 answers and their reasons (a refused first CONNECT loses the device)
#   k8s/e2e-checks.sh reconnect-storm      EMQX node loss while the storm Job holds its connections: waits until every
#                                          device is connected, deletes the EMQX pod holding the most, and requires
#                                          every device connected again (counted on the other pods) within a bound
#                                          derived from the auth tier's measured bcrypt capacity, the reconnects served
#                                          by the verified-credential fast path (identity_fastpath_allows_total and
#                                          identity_authn_outcomes_total{result="allow",reason="verified"} grew by
#                                          at least the devices that were cut off), no 5xx answer other than the
#                                          designed 503 refusals meanwhile (a reconnect refused 503 is retried by
#                                          emqtt's timer), and no PgBouncer refusal
#   k8s/e2e-checks.sh loadtest-report      the load generator's summary.json (REPORT_DIR): devices were allowed, none
#                                          was denied, no 5xx but 503, no timeout, transport error or call expired in
#                                          EMQX's queue, no more calls pending at the end than the pool holds in
#                                          flight; report.html exists
#   k8s/e2e-checks.sh revoke-kicks         revocation reaches a live session: a device connected through EMQX with a
#                                          real MQTT client (k8s/jobs/mqtt-session-job.yaml) is revoked through
#                                          registration-service, and EMQX must have dropped it within
#                                          KICK_BOUND_SECONDS of the DELETE's answer (EMQX's REST API, GET
#                                          /api/v5/clients/{clientid}, asked once a second with the API key the
#                                          release bootstraps), and not let it back in (its client reconnects with the
#                                          revoked credentials)
#   k8s/e2e-checks.sh rekey-kicks          the same for a password change (PUT with a new password)
#   k8s/e2e-checks.sh db-failover          CloudNativePG primary loss (k8s/kind.sh DB_MODE=cnpg): while it registers
#                                          devices through registration-service (PUT, every third one revoked with
#                                          DELETE) and logs a known and a revoked device in through auth-service (as
#                                          EMQX does, mutual TLS), it deletes the Cluster's primary pod; then it reads
#                                          every device back (GET). Verdicts: every write answered 2xx is there and
#                                          every DELETE answered 204 is still revoked (0 lost); the revoked device is
#                                          never allowed; every refusal is a 503 with one of the documented reasons
#                                          (backend_unavailable names the database), no other 5xx; another instance is
#                                          primary and writes and logins succeed again within FAILOVER_BOUND_SECONDS.
#                                          Reports the gap (kill to the end of the last refused write) in seconds
#
# Environment: NAMESPACE (identity), RELEASE (device-identity), REPORT_DIR (target/k8s-report), STORM_WAIT_SECONDS
# (270: the storm Job holds its connections HOLD_SECONDS, 420 s), RECONNECT_SLACK_SECONDS (30: emqtt's 5 s reconnect timer, DNS and
# the Service's endpoint update on top of the capacity-derived time), LOADTEST_MAX_PENDING (42: the Job's
# --pool-size x --pipelining), STORM_CAPACITY_SHARE (0.5), STORM_PODS (the storm Job file's completions),
# KICK_BOUND_SECONDS (5), KICK_CONNECT_SECONDS (120: the MQTT client's first connect), FAILOVER_WARMUP_SECONDS (10:
# load before the kill), FAILOVER_BOUND_SECONDS (120: until writes and logins succeed again), FAILOVER_AFTER_SECONDS
# (10: load after the first acknowledged write), LOADTEST_JAR (loadtest/target/loadtest.jar, built by k8s/kind.sh up)
# or LOADTEST (the command that runs the load generator): metrics pages are read through `loadtest metrics`, the
# repository's one Prometheus parser.
#
# Recorded inputs (make test, build-checks' E2eChecksTest): E2E_RECORDED=<dir> makes every cluster read come from
# files in <dir> instead of kubectl, and time virtual (no real sleeps). Files, each optional unless a check needs it:
#   pods-<component>                 pod names, one a line ("name uid" for emqx); empty file = no pods
#   restarts-<pod>-<container>       the container's restartCount (missing = 0)
#   logs-<pod>-<container>[.previous]
#   metrics-<pod>                    /q/metrics text
#   emqx-stats-<pod>                 `emqx ctl broker stats` output
#   job-<job>-completions, job-<job>-clients-per-pod
#   registration-<METHOD>-<clientid> the HTTP status registration-service answered, optionally followed by the
#                                    seconds the call took (port-forward included)
#   registration-tokens              the decoded "tokens" key of the release's registration-tokens Secret
#   emqx-api-client-<clientid>       EMQX's answer to GET /api/v5/clients/<clientid>: the status on the first line,
#                                    the body after it
#   failover-kill                    db-failover: "<epoch seconds> <primary pod deleted>"
#   failover-primary-after           db-failover: the Cluster's primary at the end
#   failover-writes                  db-failover: one answer a line, "<epoch seconds> PUT|DELETE <clientid> <status>
#                                    [<503 reason>]" (status 000: no answer)
#   failover-logins                  db-failover: "<epoch seconds> known|revoked <status> <allow|deny|503 reason>"
#   failover-readback                db-failover: "<clientid> <GET status> <device status>" after the load
# A file <name>.<n> is what the n-th read of <name> returns (the last numbered one is kept for later reads), so a
# sequence of polls can be recorded. Deleting a pod is appended to <dir>/.actions (E2E_ACTIONS overrides).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
COMMAND=${1:-}
: "${NAMESPACE:=identity}" "${RELEASE:=device-identity}" "${REPORT_DIR:=$ROOT/target/k8s-report}"
: "${STORM_WAIT_SECONDS:=270}" "${RECONNECT_SLACK_SECONDS:=30}" "${LOADTEST_MAX_PENDING:=42}"
: "${STORM_CAPACITY_SHARE:=0.5}"
# The services' management port (the chart's management.port): health and metrics, plain HTTP.
: "${MANAGEMENT_PORT:=9000}"
: "${E2E_RECORDED:=}"
STORM_JOB=device-identity-emqtt-bench-conn
STORM_JOB_FILE=$ROOT/k8s/jobs/emqtt-bench-conn-job.yaml
: "${STORM_PODS:=$(sed -n 's/^  completions: *\([0-9]*\)$/\1/p' "$STORM_JOB_FILE")}"

LOADTEST_GIVEN=${LOADTEST:-}
: "${LOADTEST_JAR:=$ROOT/loadtest/target/loadtest.jar}"
: "${LOADTEST:=java -Xmx64m -XX:TieredStopAtLevel=1 -jar $LOADTEST_JAR}"

log() { printf '[e2e] %s\n' "$*" >&2; }
fail() { log "FAILED: $*"; exit 1; }

# Metrics pages are written here for loadtest metrics to read.
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

# --- cluster access: kubectl, or recorded outputs ----------------------------------------------------------------
if [[ -n "$E2E_RECORDED" ]]; then
  [[ -d "$E2E_RECORDED" ]] || fail "E2E_RECORDED=$E2E_RECORDED is not a directory"
  SEQ_DIR=$WORK/recorded-reads
  mkdir "$SEQ_DIR"
  : "${E2E_ACTIONS:=$E2E_RECORDED/.actions}"
fi

# recorded NAME: prints the recorded file for this read of NAME; fails when nothing is recorded under NAME. The
# read counts live in files, so that reads from subshells ($(...)) count too.
recorded() {
  local name=$1 n k
  n=$(($(cat "$SEQ_DIR/$name" 2>/dev/null || echo 0) + 1))
  echo "$n" >"$SEQ_DIR/$name"
  for ((k = n; k >= 1; k--)); do
    [[ -f "$E2E_RECORDED/$name.$k" ]] && { cat "$E2E_RECORDED/$name.$k"; return; }
  done
  [[ -f "$E2E_RECORDED/$name" ]] || return 1
  cat "$E2E_RECORDED/$name"
}

# The virtual clock lives in a file, so that time spent inside $(...) (a registration call) counts too.
now() { if [[ -n "$E2E_RECORDED" ]]; then cat "$SEQ_DIR/.clock" 2>/dev/null || echo 0; else echo "$SECONDS"; fi; }
pause() { if [[ -n "$E2E_RECORDED" ]]; then echo $(($(now) + $1)) >"$SEQ_DIR/.clock"; else sleep "$1"; fi; }

kube() { kubectl -n "$NAMESPACE" "$@"; }

# pods_of COMPONENT: the release's pods of that component, one name a line (emqx: "name uid").
pods_of() {
  local template='{range .items[*]}{.metadata.name}{"\n"}{end}'
  [[ "$1" == emqx ]] && template='{range .items[*]}{.metadata.name}{" "}{.metadata.uid}{"\n"}{end}'
  if [[ -n "$E2E_RECORDED" ]]; then recorded "pods-$1"; return; fi
  kube get pods -l "app.kubernetes.io/instance=$RELEASE,app.kubernetes.io/component=$1" -o jsonpath="$template"
}

restarts_of() {
  local pod=$1 container=$2 n
  if [[ -n "$E2E_RECORDED" ]]; then
    n=$(recorded "restarts-$pod-$container" 2>/dev/null || echo 0)
  else
    n=$(kube get pod "$pod" -o jsonpath="{.status.containerStatuses[?(@.name==\"$container\")].restartCount}")
  fi
  echo "${n:-0}"
}

# logs_of POD CONTAINER [--previous]
logs_of() {
  local pod=$1 container=$2 previous=${3:-}
  if [[ -n "$E2E_RECORDED" ]]; then
    recorded "logs-$pod-$container${previous:+.previous}"
    return
  fi
  kube logs "$pod" -c "$container" ${previous:+--previous}
}

# Port-forward reaches the container through its own network namespace, so the chart's NetworkPolicies (which only
# let EMQX call auth-service) do not get in the way, and the native images need no curl of their own.
# Each port-forward runs kubectl itself, not the kube function: $! of a backgrounded function is a subshell, and
# killing it would leave the port-forward holding its port for the rest of the run.
LOCAL_PORT=19000
metrics_of() {
  local pod=$1 port=$2 pf page
  if [[ -n "$E2E_RECORDED" ]]; then
    recorded "metrics-$pod" || fail "could not scrape /q/metrics from $pod"
    return
  fi
  LOCAL_PORT=$((LOCAL_PORT + 1))
  kubectl -n "$NAMESPACE" port-forward "pod/$pod" "$LOCAL_PORT:$port" >/dev/null 2>&1 &
  pf=$!
  page=$(mktemp "$WORK/scrape.XXXXXX")
  for _ in $(seq 1 50); do
    loadtest metrics --save "$page" "http://127.0.0.1:$LOCAL_PORT/q/metrics" 2>/dev/null && break
    sleep 0.2
  done
  kill "$pf" 2>/dev/null || true
  wait "$pf" 2>/dev/null || true
  [[ -s "$page" ]] || fail "could not scrape /q/metrics from $pod"
  cat "$page"
}

# The EMQX node's own live connections (each node counts only its own clients); empty when it cannot be asked.
emqx_live_of() {
  local pod=$1
  if [[ -n "$E2E_RECORDED" ]]; then
    recorded "emqx-stats-$pod" 2>/dev/null | awk '$1 == "live_connections.count" { print $NF }' || true
    return
  fi
  kube exec "$pod" -c emqx -- emqx ctl broker stats 2>/dev/null | awk '$1 == "live_connections.count" { print $NF }' || true
}

# job_value JOB completions|clients-per-pod: the Job as applied (k8s/kind.sh storm may have resized it).
job_value() {
  local job=$1 what=$2
  if [[ -n "$E2E_RECORDED" ]]; then recorded "job-$job-$what"; return; fi
  case "$what" in
    completions) kube get job "$job" -o jsonpath='{.spec.completions}' ;;
    clients-per-pod) kube get job "$job" \
      -o jsonpath='{.spec.template.spec.containers[0].env[?(@.name=="CLIENTS_PER_POD")].value}' ;;
  esac
}

delete_pod() {
  if [[ -n "$E2E_RECORDED" ]]; then echo "delete pod $1" >>"$E2E_ACTIONS"; return; fi
  kube delete pod "$1" --wait=false
}

# --- metrics, read by the load generator's Prometheus parser -----------------------------------------------------
loadtest() {
  [[ -n "${LOADTEST_GIVEN:-}" || -f "$LOADTEST_JAR" ]] \
    || fail "$LOADTEST_JAR is missing: build it (mvn -pl loadtest -am package -DskipTests) or set LOADTEST"
  $LOADTEST "$@"
}

# page: stdin (one metrics page, or several one after another) kept in a file; prints its path.
page() {
  local file
  file=$(mktemp "$WORK/page.XXXXXX")
  cat >"$file"
  echo "$file"
}

# metric_sum SELECTOR... < PAGES: each selector's sum (name, or name{label="value",label=~"regex"}), space-separated.
metric_sum() { loadtest metrics "$(page)" "$@"; }

# 5xx answers other than 503 (overload refusals are the design; everything else 5xx is a defect).
ANSWERED_5XX_NOT_503='http_server_requests_seconds_count{status=~"5(0[0-24-9]|[1-9][0-9])"}'
ANSWERED_503='http_server_requests_seconds_count{status="503"}'
count_5xx_not_503() { metric_sum "$ANSWERED_5XX_NOT_503"; }

# --- the verdicts ------------------------------------------------------------------------------------------------
# Metrics are on each pod's management interface (container port "management", IDENTITY_MANAGEMENT_PORT, 9000 in
# the chart), plain HTTP, not on the API port (docs/security.md#encryption-hop-by-hop).
management_port() { echo "$MANAGEMENT_PORT"; }

no_500() {
  local component pod count previous pods total=0 restarts
  for component in auth-service registration-service; do
    pods=$(pods_of "$component") || fail "cannot list the $component pods"
    [[ -n "$pods" ]] || fail "no $component pod found: nothing to judge"
    for pod in $pods; do
      count=$(metrics_of "$pod" "$(management_port)" | count_5xx_not_503)
      restarts=$(restarts_of "$pod" "$component")
      previous=0
      if ((restarts > 0)); then
        # The counters restarted with the container; its previous log still has every answer (one line each).
        previous=$(logs_of "$pod" "$component" --previous \
          | grep -Ec ' status=(50[0-24-9]|5[1-9][0-9])( |$)|unexpected failure while answering' || true)
      fi
      log "$pod: $count 5xx answers other than 503; restarted $restarts times, $previous in the previous container's log"
      total=$((total + count + previous))
    done
  done
  ((total == 0)) || fail "$total HTTP 5xx answers other than 503 (a defect; see the pods' logs for the stack traces)"
  log "no HTTP 5xx but the designed 503 refusals"
}

pgbouncer_refusals() {
  local pod pods refused waited text total=0
  pods=$(pods_of pgbouncer) || fail "cannot list the PgBouncer pods"
  [[ -n "$pods" ]] || fail "no PgBouncer pod found: nothing to judge"
  for pod in $pods; do
    text=$(logs_of "$pod" pgbouncer) || fail "cannot read $pod's log"
    if (($(restarts_of "$pod" pgbouncer) > 0)); then
      text+=$'\n'$(logs_of "$pod" pgbouncer --previous) || fail "cannot read $pod's previous log"
    fi
    refused=$(grep -c 'no more connections allowed' <<<"$text" || true)
    waited=$(grep -c 'query_wait_timeout' <<<"$text" || true)
    log "$pod: $refused clients refused (max_client_conn), $waited cut off by query_wait_timeout"
    total=$((total + refused + waited))
  done
  ((total == 0)) || fail "PgBouncer refused $total clients: the pools no longer fit (docs/kubernetes.md: the invariants table)"
  log "PgBouncer refused no client"
}

STORM_EXPECTED=0
storm_expected() {
  local deadline=$1 pods per_pod
  until pods=$(job_value "$STORM_JOB" completions 2>/dev/null) && [[ -n "$pods" ]]; do
    (($(now) < deadline)) || fail "the storm Job $STORM_JOB never appeared"
    pause 2
  done
  per_pod=$(job_value "$STORM_JOB" clients-per-pod)
  [[ "$pods" =~ ^[0-9]+$ && "$per_pod" =~ ^[0-9]+$ ]] || fail "cannot read the storm Job's size ($pods x $per_pod)"
  STORM_EXPECTED=$((pods * per_pod))
  ((STORM_EXPECTED > 0)) || fail "the storm Job connects no device"
}

# connected_now [EXCLUDED_UID]: live connections summed over the EMQX pods (a deleted pod's UID left out).
connected_now() {
  local excluded=${1:-} name uid n connected=0 pods
  pods=$(pods_of emqx) || { echo 0; return; }
  while read -r name uid; do
    [[ -n "$name" ]] || continue
    [[ -n "$excluded" && "$uid" == "$excluded" ]] && continue
    n=$(emqx_live_of "$name")
    connected=$((connected + ${n:-0}))
  done <<<"$pods"
  echo "$connected"
}

# wait_connected EXPECTED DEADLINE [EXCLUDED_UID]: 0 once EXPECTED devices are connected, 1 at the deadline.
wait_connected() {
  local expected=$1 deadline=$2 excluded=${3:-} connected
  while :; do
    connected=$(connected_now "$excluded")
    log "EMQX live connections: $connected of $expected storm devices (t=$(now)s)"
    ((connected >= expected)) && return 0
    (($(now) < deadline)) || { MISSING=$((expected - connected)); return 1; }
    pause 10
  done
}

storm_connected() {
  local deadline
  deadline=$(($(now) + STORM_WAIT_SECONDS))
  storm_expected "$deadline"
  if ! wait_connected "$STORM_EXPECTED" "$deadline"; then
    refusal_report
    fail "$MISSING of $STORM_EXPECTED devices with valid credentials were still not connected"
  fi
  log "every storm device is connected"
}

# refusal_report: auth-service's 503 answers so far and their reasons (identity_authn_outcomes_total{result=
# "unavailable"}), summed over its pods: why storm devices may be missing. emqtt-bench 0.6.2 cannot retry a refused
# first CONNECT (the Job's comment), so each such 503 is a device that never connects. Never fails by itself.
refusal_report() {
  local pod pods file text=
  pods=$(pods_of auth-service 2>/dev/null) || true
  for pod in $pods; do
    text+=$(metrics_of "$pod" "$(management_port)" 2>/dev/null)$'\n' || true
  done
  if [[ -z "${text//[$'\n']/}" ]]; then
    log "auth-service's 503 answers: its metrics could not be read"
    return 0
  fi
  file=$(page <<<"$text")
  log "auth-service answered $(loadtest metrics "$file" "$ANSWERED_503" || echo '?') requests with 503;" \
    "reasons: $(loadtest metrics --by reason "$file" 'identity_authn_outcomes_total{result="unavailable"}' \
      | sed 's/ /=/' | paste -sd ' ' - || true)"
}

# storm_rate: connects/s per storm pod from the bcrypt capacity measured in this run (see the header). A device
# whose first CONNECT is refused is lost for good, and the fast path cannot serve a device that never connected:
# every storm CONNECT costs a full bcrypt, so the storm gets a share of the capacity, the rest being the margin for
# hashes slower than the measured mean and for whatever else the auth tier is answering.
storm_rate() {
  local capacity rate
  capacity=$(snapshot | bcrypt_capacity)
  awk -v c="$capacity" 'BEGIN { exit !(c > 0) }' || fail "no bcrypt capacity measured (identity_bcrypt_* metrics): run after the load test"
  [[ "$STORM_PODS" =~ ^[1-9][0-9]*$ ]] || fail "cannot read the storm Job's pods ($STORM_PODS) from $STORM_JOB_FILE"
  rate=$(awk -v c="$capacity" -v share="$STORM_CAPACITY_SHARE" -v pods="$STORM_PODS" 'BEGIN { printf "%d", c * share / pods }')
  ((rate >= 1)) || fail "bcrypt capacity $capacity/s: $STORM_CAPACITY_SHARE of it is under 1 connect/s for each of $STORM_PODS pods"
  log "bcrypt capacity $capacity/s measured; storm at $STORM_CAPACITY_SHARE of it: $STORM_PODS pods x $rate connects/s"
  echo "$rate"
}

# snapshot: the metrics of every auth-service and registration-service pod, each after a "# pod NAME COMPONENT"
# line. Counters are compared between two snapshots.
snapshot() {
  local component pod pods
  for component in auth-service registration-service; do
    pods=$(pods_of "$component") || fail "cannot list the $component pods"
    [[ -n "$pods" || "$component" != auth-service ]] || fail "no auth-service pod found: nothing to judge"
    for pod in $pods; do
      echo "# pod $pod $component"
      metrics_of "$pod" "$(management_port)"
    done
  done
}

# bcrypt checks per second the auth tier completes at most: per auth-service pod, its bcrypt concurrency over its
# measured mean hash time (identity_bcrypt_duration_seconds), summed over the pods. Each pod's page is the lines
# after its "# pod NAME auth-service" line, up to the next "# pod" line.
bcrypt_capacity() {
  local line file= concurrency sum count capacity=0
  while IFS= read -r line; do
    if [[ "$line" == "# pod "* ]]; then
      file=
      [[ "$line" == *" auth-service" ]] && file=$(mktemp "$WORK/pod.XXXXXX")
    elif [[ -n "$file" ]]; then
      printf '%s\n' "$line" >>"$file"
    fi
  done
  for file in "$WORK"/pod.*; do
    [[ -f "$file" ]] || continue
    read -r concurrency sum count < <(loadtest metrics "$file" identity_bcrypt_concurrency \
      identity_bcrypt_duration_seconds_sum identity_bcrypt_duration_seconds_count) \
      || fail "cannot read an auth-service pod's bcrypt metrics (loadtest metrics)"
    rm -f "$file"
    capacity=$(awk -v total="$capacity" -v c="$concurrency" -v s="$sum" -v n="$count" \
      'BEGIN { print (n > 0 && s > 0) ? total + c / (s / n) : total }')
  done
  printf '%.1f' "$capacity"
}

VERIFIED_ALLOW='identity_authn_outcomes_total{result="allow",reason="verified"}'

reconnect_storm() {
  local deadline capacity victim victim_uid lost bound before after fast verified errors refused
  deadline=$(($(now) + STORM_WAIT_SECONDS))
  storm_expected "$deadline"
  wait_connected "$STORM_EXPECTED" "$deadline" \
    || fail "before the node loss: $MISSING of $STORM_EXPECTED devices never connected"
  log "every storm device is connected; measuring the auth tier before the node loss"

  before=$(snapshot)
  capacity=$(bcrypt_capacity <<<"$before")
  awk -v c="$capacity" 'BEGIN { exit !(c > 0) }' || fail "no bcrypt capacity measured (identity_bcrypt_* metrics)"

  read -r victim victim_uid lost < <(pods_of emqx | while read -r name uid; do
    [[ -n "$name" ]] && echo "$name $uid $(emqx_live_of "$name")"; done | sort -k3,3nr | head -n 1) || true
  [[ -n "${victim:-}" && "${lost:-0}" -gt 0 ]] || fail "no EMQX pod holds a storm connection"
  # Even if every reconnect needed a full bcrypt check: twice the time the tier needs to hash them all, plus the
  # reconnect timer (emqtt retries every 5 s) and the Service's endpoint update.
  bound=$(awk -v lost="$lost" -v c="$capacity" -v slack="$RECONNECT_SLACK_SECONDS" \
    'BEGIN { t = 2 * lost / c; printf "%d", (t == int(t) ? t : int(t) + 1) + slack }')
  log "deleting EMQX pod $victim ($lost of $STORM_EXPECTED devices); bcrypt capacity $capacity/s: every device must be back within $bound s"
  delete_pod "$victim"
  pause 2
  wait_connected "$STORM_EXPECTED" "$(($(now) + bound))" "$victim_uid" \
    || fail "$MISSING of $STORM_EXPECTED devices were not connected again within $bound s of losing $victim"

  after=$(snapshot)
  read -r fast verified errors refused < <(loadtest metrics --since "$(page <<<"$before")" "$(page <<<"$after")" \
    identity_fastpath_allows_total "$VERIFIED_ALLOW" "$ANSWERED_5XX_NOT_503" "$ANSWERED_503") \
    || fail "cannot read the services' metrics (loadtest metrics)"
  log "reconnects: $fast fast-path allows, $verified verified allows, $refused designed 503 refusals (retried by" \
    "emqtt's timer), $errors other 5xx answers, for $lost devices cut off"
  ((errors == 0)) || fail "$errors 5xx answers other than 503 during the reconnect storm"
  ((fast >= lost)) || fail "only $fast of the $lost reconnects were served by the fast path (identity_fastpath_allows_total)"
  ((verified >= lost)) || fail "only $verified of the $lost reconnects counted as allow/verified (identity_authn_outcomes_total)"
  pgbouncer_refusals
  log "EMQX node loss: every device reconnected within $bound s through the fast path"
}

loadtest_report() {
  local json value allows denied errors5xx
  command -v jq >/dev/null 2>&1 || fail "jq is needed"
  json=$REPORT_DIR/summary.json
  [[ -f "$json" ]] || fail "no summary.json in $REPORT_DIR"
  [[ -f "$REPORT_DIR/report.html" ]] || fail "no report.html in $REPORT_DIR"
  jq -e '.totals.answers | type == "object"' "$json" >/dev/null 2>&1 || fail "$json has no answer counts (.totals.answers)"
  # field FILTER: a number from the report; a missing field fails (a renamed field must not read as zero).
  field() { jq -e "$1 | numbers" "$json" 2>/dev/null || fail "$json has no number at $1"; }
  allows=$(field '.totals.allows_in_time')
  denied=$(jq '[.totals.answers | to_entries[] | select(.key == "200 deny") | .value] | add // 0' "$json")
  errors5xx=$(jq '[(.totals.answers, .totals.answers_after_timeout) | to_entries[]
      | select((.key | test("^5[0-9][0-9] ")) and (.key | startswith("503 ") | not)) | .value] | add // 0' "$json")
  log "load test: $allows allows in time, $denied denied, $errors5xx 5xx but 503, $(field .totals.timeouts) timeouts," \
    "$(field .totals.transport_errors) transport errors, $(field .totals.expired_in_queue) expired in EMQX's queue," \
    "$(field .totals.pending_at_end) pending at the end, $(field .totals.devices_connected) devices connected"
  ((allows > 0)) || fail "no device was ever allowed"
  value=$(field .totals.devices_connected); ((value > 0)) || fail "no device ended up connected"
  # Every load device has valid credentials (k8s/jobs/loadtest-job.yaml: no wrong-password or unknown share), so
  # any "200 deny" is a valid device rejected; overload answers (503) are retried by the device (backoff) instead.
  ((denied == 0)) || fail "$denied answers denied a device with valid credentials"
  ((errors5xx == 0)) || fail "$errors5xx 5xx answers other than 503"
  value=$(field .totals.timeouts); ((value == 0)) || fail "$value calls ended in EMQX's timeout"
  value=$(field .totals.transport_errors); ((value == 0)) || fail "$value transport errors"
  value=$(field .totals.expired_in_queue); ((value == 0)) || fail "$value calls expired in EMQX's queue"
  value=$(field .totals.population_exhausted); ((value == 0)) || fail "$value arrivals found no free device (population too small)"
  value=$(field .totals.pending_at_end)
  ((value <= LOADTEST_MAX_PENDING)) || fail "$value calls still pending at the end (more than the $LOADTEST_MAX_PENDING the pool holds in flight)"
  log "load test verdict: passed"
}

# --- revocation reaches live sessions ---------------------------------------------------------------
: "${KICK_BOUND_SECONDS:=5}" "${KICK_CONNECT_SECONDS:=120}"

# registration_api METHOD CLIENT_ID [PASSWORD]: the HTTP status of PUT (with that password; username = client id)
# or DELETE /v1/devices/CLIENT_ID, through a port-forward to registration-service with the release's token.
registration_api() {
  local method=$1 id=$2 password=${3:-} token pf status= body= took=
  token=$(registration_token) || exit 1
  if [[ -n "$E2E_RECORDED" ]]; then
    # "<status> [<seconds the call took>]"
    read -r status took < <(recorded "registration-$method-$id") || true
    [[ -z "${took:-}" ]] || pause "$took"
    echo "${status:-000}"
    return
  fi
  [[ "$method" == PUT ]] && body=$(printf '{"username":"%s","password":"%s"}' "$id" "$password")
  # With tls.enabled the API is HTTPS only: verified against the release's CA, for the Service's own name, which
  # --connect-to sends to the port-forward.
  local host="$RELEASE-registration-service.$NAMESPACE.svc" scheme=http tls=() ca
  if [[ "$(kube get configmap "$RELEASE-registration-service" -o jsonpath='{.data.IDENTITY_TLS_ENABLED}')" == true ]]; then
    scheme=https
    ca=$(mktemp)
    kube get secret "$RELEASE-registration-service-tls" -o jsonpath='{.data.ca\.crt}' | base64 -d >"$ca" \
      || fail "cannot read registration-service's CA"
    tls=(--cacert "$ca")
  fi
  LOCAL_PORT=$((LOCAL_PORT + 1))
  kubectl -n "$NAMESPACE" port-forward "svc/$RELEASE-registration-service" "$LOCAL_PORT:8082" >/dev/null 2>&1 &
  pf=$!
  for _ in $(seq 1 50); do
    status=$(curl -sS "${tls[@]}" --connect-to "$host:8082:127.0.0.1:$LOCAL_PORT" -o /dev/null -w '%{http_code}' \
      -X "$method" -H "Authorization: Bearer $token" ${body:+-H 'Content-Type: application/json' --data "$body"} \
      "$scheme://$host:8082/v1/devices/$id" 2>/dev/null) \
      && [[ "$status" != 000 ]] && break
    sleep 0.2
  done
  kill "$pf" 2>/dev/null || true
  wait "$pf" 2>/dev/null || true
  echo "${status:-000}"
}

# mqtt_session_job CLIENT_ID PASSWORD: the session Job's manifest for that device, as mqtt_session_start applies it.
mqtt_session_job() {
  sed -e "s/DEVICE_PASSWORD/$2/g" -e "s/DEVICE_ID/$1/g" -e "s/device-identity-emqx/$RELEASE-emqx/" \
    "$ROOT/k8s/jobs/mqtt-session-job.yaml"
}

mqtt_session_start() {
  local id=$1 password=$2
  if [[ -n "$E2E_RECORDED" ]]; then echo "start mqtt session $id" >>"$E2E_ACTIONS"; return; fi
  mqtt_session_job "$id" "$password" | kube apply -f - >/dev/null
}

mqtt_session_stop() {
  if [[ -n "$E2E_RECORDED" ]]; then echo "stop mqtt session $1" >>"$E2E_ACTIONS"; return; fi
  kube delete job "device-identity-mqtt-session-$1" --wait=false >/dev/null 2>&1 || true
}

# write_token TOKENS: the bearer token of the first entry of a registration-tokens value that may write devices.
# An entry is "<id>:<scopes>:<token>" (scopes joined by '+', case-insensitive; the token is everything after the
# second colon) or a bare token, which grants every scope: registration-service's BearerTokens reads them so.
write_token() {
  local entry scopes
  local -a entries
  IFS=, read -ra entries <<<"$1"
  for entry in "${entries[@]}"; do
    entry=$(printf '%s' "$entry" | sed -e 's/^[[:space:]]*//' -e 's/[[:space:]]*$//')
    [[ -n "$entry" ]] || continue
    if [[ "$entry" != *:* ]]; then printf '%s\n' "$entry"; return 0; fi
    scopes=${entry#*:}
    scopes=${scopes%%:*}
    scopes=${scopes// /}
    if [[ "+${scopes,,}+" == *"+write+"* && "$entry" == *:*:* ]]; then
      printf '%s\n' "${entry#*:*:}" | sed -e 's/^[[:space:]]*//'
      return 0
    fi
  done
  return 1
}

# registration_token: the bearer token the revocation verdicts call registration-service with.
registration_token() {
  local tokens
  if [[ -n "$E2E_RECORDED" ]]; then
    tokens=$(recorded registration-tokens) || fail "no registration-tokens recorded"
  else
    tokens=$(kube get secret "$RELEASE-registration-tokens" -o jsonpath='{.data.tokens}' | base64 -d) \
      || fail "cannot read the Secret $RELEASE-registration-tokens"
  fi
  write_token "$tokens" || fail "no entry of $RELEASE-registration-tokens grants the write scope"
}

# probe_password LABEL: a fresh password for a probe device, within registration-service's policy (at least its
# minimum length, 22 by default; at most 72 UTF-8 bytes): 32 hex digits after the label.
probe_password() {
  printf 'e2e-%s-%s\n' "$1" "$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')"
}

# EMQX's REST API through one port-forward to the release's dashboard Service, opened once by the verdict's own shell
# (not inside a $(...), whose exit would close it again) and closed when the verdict exits:
# HTTPS on 18084 with tls.enabled (verified against the CA of EMQX's certificate, for the Service's own name), else
# HTTP on 18083; basic auth with the API key the release bootstraps into EMQX (the Secret <release>-emqx-api).
EMQX_API=()
EMQX_API_URL=
EMQX_API_PF=
emqx_api_open() {
  [[ -z "$EMQX_API_URL" ]] || return 0
  local port scheme=http host="$RELEASE-emqx-dashboard.$NAMESPACE.svc" key secret ca
  port=$(kube get service "$RELEASE-emqx-dashboard" -o jsonpath='{.spec.ports[?(@.name=="dashboard")].port}') \
    || fail "cannot read the Service $RELEASE-emqx-dashboard"
  key=$(kube get secret "$RELEASE-emqx-api" -o jsonpath='{.data.key}' | base64 -d) \
    && secret=$(kube get secret "$RELEASE-emqx-api" -o jsonpath='{.data.secret}' | base64 -d) \
    || fail "cannot read EMQX's API key (the Secret $RELEASE-emqx-api)"
  EMQX_API=(-u "$key:$secret")
  if [[ "$port" == 18084 ]]; then
    scheme=https
    ca=$(mktemp)
    kube get secret "$RELEASE-emqx-tls" -o jsonpath='{.data.ca\.crt}' | base64 -d >"$ca" || fail "cannot read EMQX's CA"
    EMQX_API+=(--cacert "$ca")
  fi
  LOCAL_PORT=$((LOCAL_PORT + 1))
  kubectl -n "$NAMESPACE" port-forward "svc/$RELEASE-emqx-dashboard" "$LOCAL_PORT:$port" >/dev/null 2>&1 &
  EMQX_API_PF=$!
  trap 'kill "$EMQX_API_PF" 2>/dev/null || true' EXIT
  EMQX_API+=(--connect-to "$host:$port:127.0.0.1:$LOCAL_PORT")
  EMQX_API_URL="$scheme://$host:$port"
}

# emqx_client CLIENT_ID: EMQX's answer to GET /api/v5/clients/CLIENT_ID, the status on the first line and the body
# after it. The cluster answers for every node: 200 while any node holds the client, 404 CLIENTID_NOT_FOUND after.
emqx_client() {
  local id=$1 answer
  if [[ -n "$E2E_RECORDED" ]]; then recorded "emqx-api-client-$id"; return; fi
  [[ -n "$EMQX_API_URL" ]] || fail "EMQX's API was not opened before asking about $id"
  for _ in $(seq 1 50); do
    answer=$(curl -sS --max-time 5 "${EMQX_API[@]}" -w '\n%{http_code}' "$EMQX_API_URL/api/v5/clients/$id" 2>/dev/null) \
      && [[ "${answer##*$'\n'}" != 000 ]] && break
    sleep 0.2
  done
  printf '%s\n%s\n' "${answer##*$'\n'}" "${answer%$'\n'*}"
}

# client_connected CLIENT_ID: 0 while EMQX reports a connected client of that id; 1 once it reports none (404, or a
# session kept without a connection). Any other answer fails the verdict rather than reading as "not connected".
client_connected() {
  local id=$1 answer status
  answer=$(emqx_client "$id") || fail "cannot ask EMQX's API about $id"
  status=$(head -n 1 <<<"$answer")
  case "$status" in
    200) grep -Eq '"connected" *: *true' <<<"$answer" ;;
    404) return 1 ;;
    000 | "") fail "EMQX's API did not answer about $id" ;;
    *) fail "EMQX's API answered $status about $id" ;;
  esac
}

# session_kicked revoke|rekey: a connected device, revoked or re-keyed, is off EMQX within KICK_BOUND_SECONDS.
session_kicked() {
  local mode=$1 id="e2e-$1-probe" deadline start elapsed status expected
  local password second
  password=$(probe_password "$1-first")
  second=$(probe_password "$1-second")
  [[ -n "$E2E_RECORDED" ]] || emqx_api_open
  status=$(registration_api PUT "$id" "$password")
  [[ "$status" == 200 || "$status" == 201 ]] || fail "registering $id answered $status"
  mqtt_session_start "$id" "$password"
  deadline=$(($(now) + KICK_CONNECT_SECONDS))
  until client_connected "$id"; do
    (($(now) < deadline)) || { mqtt_session_stop "$id"; fail "the MQTT client of $id never connected to EMQX"; }
    pause 2
  done
  log "$id is connected to EMQX; ${mode}ing it"
  if [[ "$mode" == revoke ]]; then
    status=$(registration_api DELETE "$id"); expected=204
  else
    status=$(registration_api PUT "$id" "$second"); expected=200
  fi
  # The bound runs from the answer: the kick is the service's work after it, not the port-forward's before it.
  start=$(now)
  [[ "$status" == "$expected" ]] || { mqtt_session_stop "$id"; fail "the $mode of $id answered $status, not $expected"; }
  while client_connected "$id"; do
    elapsed=$(($(now) - start))
    ((elapsed < KICK_BOUND_SECONDS)) \
      || { mqtt_session_stop "$id"; fail "$id was still connected to EMQX $elapsed s after its $mode (bound ${KICK_BOUND_SECONDS} s)"; }
    pause 1
  done
  elapsed=$(($(now) - start))
  log "EMQX dropped $id within $elapsed s of its $mode"
  # Its client reconnects with the old password: that must be refused, so the device stays off.
  pause 3
  if client_connected "$id"; then
    mqtt_session_stop "$id"
    fail "$id is connected again after its $mode: the old credentials were accepted"
  fi
  mqtt_session_stop "$id"
  [[ "$mode" != rekey ]] || registration_api DELETE "$id" >/dev/null || true
  log "$mode reaches the live session: dropped within $elapsed s (bound ${KICK_BOUND_SECONDS} s) and kept off"
}

revoke_kicks() { session_kicked revoke; }
rekey_kicks() { session_kicked rekey; }

# --- the database loses its primary (CloudNativePG) --------------------------------------------------------------
: "${FAILOVER_WARMUP_SECONDS:=10}" "${FAILOVER_BOUND_SECONDS:=120}" "${FAILOVER_AFTER_SECONDS:=10}"
FAILOVER_REASONS="overload deadline backend_unavailable"

# The bodies the failover load sends (E2eWorkflowInputsTest hands them to the services' own parsers).
failover_put_body() { printf '{"username":"%s","password":"%s"}' "$1" "$2"; }
failover_authn_body() { printf '{"clientid":"%s","username":"%s","password":"%s","peerhost":"10.244.0.250"}' "$1" "$1" "$2"; }

# cnpg_primary: the pod the Cluster reports as its primary.
cnpg_primary() {
  kube get clusters.postgresql.cnpg.io "$RELEASE-postgresql" -o jsonpath='{.status.currentPrimary}'
}

# failover_forward VAR SERVICE PORT: a port-forward kept for the whole verdict (closed by the EXIT trap); sets the
# array VAR to the curl arguments that reach SERVICE:PORT under its own name, verified against the CA of SERVICE's
# certificate, followed by the base URL.
FAILOVER_PFS=()
failover_forward() {
  local -n out=$1
  local service=$2 port=$3 host ca
  host="$RELEASE-$service.$NAMESPACE.svc"
  ca="$FAILOVER_TMP/$service-ca.crt"
  kube get secret "$RELEASE-$service-tls" -o jsonpath='{.data.ca\.crt}' | base64 -d >"$ca" \
    || fail "cannot read $service's CA (the Secret $RELEASE-$service-tls)"
  LOCAL_PORT=$((LOCAL_PORT + 1))
  kubectl -n "$NAMESPACE" port-forward "svc/$RELEASE-$service" "$LOCAL_PORT:$port" >/dev/null 2>&1 &
  FAILOVER_PFS+=($!)
  for _ in $(seq 1 50); do
    (exec 3<>"/dev/tcp/127.0.0.1/$LOCAL_PORT") 2>/dev/null && break
    sleep 0.2
  done
  out=(--cacert "$ca" --connect-to "$host:$port:127.0.0.1:$LOCAL_PORT" "https://$host:$port")
}

# failover_call OUT_BODY CURL_ARGS...: the HTTP status (000: no answer), the body into OUT_BODY.
failover_call() {
  local body=$1
  shift
  curl -sS --max-time 10 -o "$body" -w '%{http_code}' "$@" 2>/dev/null || true
}

# failover_reason BODY_FILE: the "reason" of a JSON answer, or "-".
failover_reason() { sed -n 's/.*"reason" *: *"\([^"]*\)".*/\1/p' "$1" 2>/dev/null | head -n 1 | grep . || echo -; }

# failover_collect DIR: the live run; writes the files failover_judge reads (see the header) into DIR.
failover_collect() {
  local dir=$1 token primary after_kill deadline stop known_pw revoked_pw id status body who result i
  local -a reg auth client
  FAILOVER_TMP=$(mktemp -d)
  trap 'kill "${FAILOVER_PFS[@]}" 2>/dev/null || true; rm -rf "$FAILOVER_TMP"' EXIT
  token=$(registration_token) || exit 1
  failover_forward reg registration-service 8082
  failover_forward auth auth-service 8081
  # auth-service requires EMQX's client certificate (mutual TLS), as the load-test Job presents it.
  kube get secret "$RELEASE-emqx-client-tls" -o jsonpath='{.data.tls\.crt}' | base64 -d >"$FAILOVER_TMP/client.crt" \
    && kube get secret "$RELEASE-emqx-client-tls" -o jsonpath='{.data.tls\.key}' | base64 -d >"$FAILOVER_TMP/client.key" \
    || fail "cannot read EMQX's client certificate (the Secret $RELEASE-emqx-client-tls)"
  client=(--cert "$FAILOVER_TMP/client.crt" --key "$FAILOVER_TMP/client.key")
  reg_call() { # ANSWER_FILE METHOD ID [BODY]
    failover_call "$1" -X "$2" -H "Authorization: Bearer $token" \
      ${4:+-H 'Content-Type: application/json' --data "$4"} "${reg[@]:0:4}" "${reg[4]}/v1/devices/$3"
  }
  body=$FAILOVER_TMP/answer
  known_pw=$(probe_password failover-known)
  revoked_pw=$(probe_password failover-revoked)
  status=$(reg_call "$body" PUT e2e-failover-known "$(failover_put_body e2e-failover-known "$known_pw")")
  [[ "$status" == 20[01] ]] || fail "registering e2e-failover-known answered $status"
  status=$(reg_call "$body" PUT e2e-failover-revoked "$(failover_put_body e2e-failover-revoked "$revoked_pw")")
  [[ "$status" == 20[01] ]] || fail "registering e2e-failover-revoked answered $status"
  status=$(reg_call "$body" DELETE e2e-failover-revoked)
  [[ "$status" == 204 ]] || fail "revoking e2e-failover-revoked answered $status"

  stop=$FAILOVER_TMP/stop
  (
    i=0
    while [[ ! -f "$stop" ]]; do
      i=$((i + 1)); id="e2e-failover-$RANDOM$RANDOM-$i"; body=$FAILOVER_TMP/writes-answer
      status=$(reg_call "$body" PUT "$id" "$(failover_put_body "$id" "$(probe_password failover-write)")")
      echo "$EPOCHREALTIME PUT $id $status $(failover_reason "$body")" >>"$dir/failover-writes"
      if [[ "$status" == 20[01] ]] && ((i % 3 == 0)); then
        status=$(reg_call "$body" DELETE "$id")
        echo "$EPOCHREALTIME DELETE $id $status $(failover_reason "$body")" >>"$dir/failover-writes"
      fi
      sleep 0.2
    done
  ) &
  local writer=$!
  (
    while [[ ! -f "$stop" ]]; do
      for who in known revoked; do
        body=$FAILOVER_TMP/logins-answer
        if [[ "$who" == known ]]; then
          status=$(failover_call "$body" "${client[@]}" -X POST -H 'Content-Type: application/json' \
            --data "$(failover_authn_body e2e-failover-known "$known_pw")" "${auth[@]:0:4}" "${auth[4]}/mqtt/authn")
        else
          status=$(failover_call "$body" "${client[@]}" -X POST -H 'Content-Type: application/json' \
            --data "$(failover_authn_body e2e-failover-revoked "$revoked_pw")" "${auth[@]:0:4}" "${auth[4]}/mqtt/authn")
        fi
        if [[ "$status" == 200 ]]; then
          result=$(sed -n 's/.*"result" *: *"\([^"]*\)".*/\1/p' "$body" | head -n 1)
        else
          result=$(failover_reason "$body")
        fi
        echo "$EPOCHREALTIME $who $status ${result:--}" >>"$dir/failover-logins"
      done
      sleep 0.2
    done
  ) &
  local logins=$!

  sleep "$FAILOVER_WARMUP_SECONDS"
  primary=$(cnpg_primary) && [[ -n "$primary" ]] || fail "the Cluster $RELEASE-postgresql reports no primary"
  log "deleting the primary $primary under load"
  echo "$EPOCHREALTIME $primary" >"$dir/failover-kill"
  delete_pod "$primary"
  deadline=$((SECONDS + FAILOVER_BOUND_SECONDS))
  # A write in flight at the kill may still be acknowledged: back means a write acknowledged once another instance
  # is primary.
  until [[ "$(cnpg_primary 2>/dev/null)" =~ ^.+$ && "$(cnpg_primary 2>/dev/null)" != "$primary" ]]; do
    ((SECONDS < deadline)) || break
    sleep 1
  done
  after_kill=$(wc -l <"$dir/failover-writes")
  until tail -n +"$((after_kill + 1))" "$dir/failover-writes" | awk '$4 ~ /^20[0-9]$/ { found = 1 } END { exit !found }'; do
    ((SECONDS < deadline)) || break
    sleep 1
  done
  sleep "$FAILOVER_AFTER_SECONDS"
  touch "$stop"
  wait "$writer" "$logins" || true
  cnpg_primary >"$dir/failover-primary-after" || true
  # Read back every device a PUT was acknowledged for (a refused read is asked again: it proves nothing either way).
  awk '$2 == "PUT" && $4 ~ /^20[0-9]$/ { print $3 }' "$dir/failover-writes" | sort -u | while read -r id; do
    for _ in 1 2 3 4 5; do
      status=$(reg_call "$body" GET "$id")
      [[ "$status" == 200 || "$status" == 404 ]] && break
      sleep 1
    done
    echo "$id $status $(sed -n 's/.*"status" *: *"\([^"]*\)".*/\1/p' "$body" | head -n 1 | grep . || echo -)"
  done >"$dir/failover-readback"
}

# failover_judge DIR: the verdicts on what failover_collect recorded (make test: on recorded samples).
failover_judge() {
  local dir=$1 kill_t primary after writes acked_puts acked_deletes lost unrevoked allowed other_5xx unknown_503
  local recovered_write recovered_login gap unanswered reasons during
  for f in failover-kill failover-writes failover-logins failover-readback failover-primary-after; do
    [[ -f "$dir/$f" ]] || fail "no $f recorded: nothing to judge"
  done
  read -r kill_t primary <"$dir/failover-kill"
  [[ -n "${primary:-}" ]] || fail "no primary was deleted"
  after=$(head -n 1 "$dir/failover-primary-after")
  [[ -n "$after" && "$after" != "$primary" ]] || fail "the primary is still ${after:-unknown} after deleting $primary: no failover"
  acked_puts=$(awk '$2 == "PUT" && $4 ~ /^20[0-9]$/' "$dir/failover-writes" | wc -l)
  acked_deletes=$(awk '$2 == "DELETE" && $4 == 204' "$dir/failover-writes" | wc -l)
  ((acked_puts > 0)) || fail "no registration was acknowledged: nothing to judge"
  awk -v k="$kill_t" '$1 < k && $2 == "PUT" && $4 ~ /^20[0-9]$/ { f = 1 } END { exit !f }' "$dir/failover-writes" \
    || fail "no write was acknowledged before the kill: the load did not run"
  # 0 lost: an acknowledged PUT's device is there; an acknowledged DELETE's device is revoked (none is written after).
  lost=$(awk 'NR == FNR { got[$1] = $2 " " $3; next }
    $2 == "PUT" && $4 ~ /^20[0-9]$/ && !(($3) in seen) { seen[$3] = 1; split(got[$3], g, " "); if (g[1] != 200) n++ }
    END { print n + 0 }' "$dir/failover-readback" "$dir/failover-writes")
  unrevoked=$(awk 'NR == FNR { state[$1] = $3; next } $2 == "DELETE" && $4 == 204 && state[$3] != "revoked" { n++ }
    END { print n + 0 }' "$dir/failover-readback" "$dir/failover-writes")
  allowed=$(awk '$2 == "revoked" && $3 == 200 && $4 == "allow"' "$dir/failover-logins" | wc -l)
  other_5xx=$(cat "$dir/failover-writes" "$dir/failover-logins" | awk '$0 ~ /^[0-9.]+ (PUT|DELETE) / { s = $4 } $0 !~ /^[0-9.]+ (PUT|DELETE) / { s = $3 }
    s ~ /^5[0-9][0-9]$/ && s != 503 { n++ } END { print n + 0 }')
  unknown_503=$(cat "$dir/failover-writes" "$dir/failover-logins" | awk -v known="$FAILOVER_REASONS" '
    BEGIN { split(known, k, " "); for (i in k) ok[k[i]] = 1 }
    $0 ~ /^[0-9.]+ (PUT|DELETE) / && $4 == 503 && !($5 in ok) { n++ }
    $0 !~ /^[0-9.]+ (PUT|DELETE) / && $3 == 503 && !($4 in ok) { n++ } END { print n + 0 }')
  reasons=$(cat "$dir/failover-writes" "$dir/failover-logins" | awk '
    $0 ~ /^[0-9.]+ (PUT|DELETE) / && $4 == 503 { c[$5]++ } $0 !~ /^[0-9.]+ (PUT|DELETE) / && $3 == 503 { c[$4]++ }
    END { for (r in c) printf "%s%s=%d", (n++ ? " " : ""), r, c[r]; if (!n) printf "none" }')
  unanswered=$(awk '$4 == "000"' "$dir/failover-writes" | wc -l)
  unanswered=$((unanswered + $(awk '$3 == "000"' "$dir/failover-logins" | wc -l)))
  gap=$(awk -v k="$kill_t" '$1 > k && $4 !~ /^20[0-9]$/ { last = $1 } END { printf "%.1f", (last ? last - k : 0) }' "$dir/failover-writes")
  # Back: acknowledged after the gap (a write in flight at the kill may be acknowledged before the refusals start).
  recovered_write=$(awk -v t="$kill_t" -v g="$gap" '$1 > t + g && $4 ~ /^20[0-9]$/ { print $1; exit }' "$dir/failover-writes")
  recovered_login=$(awk -v t="$kill_t" -v g="$gap" '$1 > t + g && $2 == "known" && $3 == 200 && $4 == "allow" { print $1; exit }' \
    "$dir/failover-logins")
  during=$(awk -v k="$kill_t" -v g="$gap" '$1 > k && $1 <= k + g && $2 == "known" && $4 == "allow"' "$dir/failover-logins" | wc -l)
  log "primary $primary deleted, $after promoted; $acked_puts registrations and $acked_deletes revocations acknowledged:" \
    "$lost lost, $unrevoked not revoked; revoked device allowed $allowed times; 503 reasons: $reasons;" \
    "$other_5xx other 5xx; $unanswered unanswered calls"
  log "gap: writes refused for $gap s after the kill; the known device was allowed $during times within it"
  ((lost == 0)) || fail "$lost acknowledged registrations are missing after the failover"
  ((unrevoked == 0)) || fail "$unrevoked acknowledged revocations are not revoked after the failover"
  ((allowed == 0)) || fail "the revoked device was allowed $allowed times"
  ((other_5xx == 0)) || fail "$other_5xx 5xx answers other than 503 during the failover"
  ((unknown_503 == 0)) || fail "$unknown_503 503 answers without a documented reason ($FAILOVER_REASONS)"
  [[ -n "$recovered_write" ]] || fail "no write was acknowledged after the kill: the database did not come back"
  [[ -n "$recovered_login" ]] || fail "the known device was never allowed after the kill"
  log "database failover: nothing acknowledged lost, the revoked device stayed revoked, only 503 during a gap of $gap s"
}

db_failover() {
  local dir
  if [[ -n "$E2E_RECORDED" ]]; then
    failover_judge "$E2E_RECORDED"
    return
  fi
  dir=$REPORT_DIR/db-failover
  rm -rf "$dir" && mkdir -p "$dir"
  failover_collect "$dir"
  failover_judge "$dir"
}

# Sourced (by build-checks' tests, to run single functions on what the workflow would send), it only defines them.
[[ "${BASH_SOURCE[0]}" == "$0" ]] || return 0

case "$COMMAND" in
  no-500) no_500 ;;
  pgbouncer-refusals) pgbouncer_refusals ;;
  storm-rate) storm_rate ;;
  storm-connected) storm_connected ;;
  reconnect-storm) reconnect_storm ;;
  loadtest-report) loadtest_report ;;
  revoke-kicks) revoke_kicks ;;
  rekey-kicks) rekey_kicks ;;
  db-failover) db_failover ;;
  *) awk 'NR > 1 && !/^#/ { exit } NR > 1' "$0" >&2; exit 2 ;;
esac
