#!/usr/bin/env bash
# `make bench`: the overload curve of auth-service behind an imitation of EMQX. Prints figures; asserts nothing.
#
#   1. builds auth-service and the load generator (SKIP_BUILD=1 to reuse the jars; BENCH_JMH=1 adds the JMH jar)
#   2. starts its own PostgreSQL + PgBouncer (own ports and STACK_DIR, never those of `make up` or `make test`),
#      pinned to the CPUs in BENCH_LOAD_CPUS together with the load generator
#   3. starts auth-service as a pod of BENCH_CURVE_CPU vCPU (a cgroup with that CFS quota, pinned to BENCH_AUTH_CPUS;
#      scripts/bench-pods.sh) and measures its capacity with a closed loop of as many callers as it has bcrypt
#      threads (never refused; the old 4-caller measure once beside it)
#   4. the protected service (its defaults) behind the chart's EMQX settings (8 connections x pipelining 1,
#      request_timeout 10 s), devices retrying on a fixed 12 s timer, at BENCH_LOADS x capacity (1 2 4 8 12);
#      then at BENCH_OVERLOAD x (8) behind 64 connections, with backoff-and-jitter devices, and as a step from 1x
#      to BENCH_OVERLOAD x at BENCH_STEP_AT; last, the unprotected service (protections configured away) at
#      BENCH_OVERLOAD x, behind pipelining 100 (the incident's chain) and behind the protected points' pipelining 1
#      (only the protections differ)
#   5. prints one row per run (steady-state goodput / capacity is the headline) and writes target/bench/index.html:
#      the overload curve, every run's goodput per second, and one report.html per run
#   6. the verified-credential fast path, on a service of its own (fast path on, same pinning): the known-device
#      reconnect storm (known-storm: BENCH_KNOWN_DEVICES devices seeded at bcrypt cost BENCH_KNOWN_COST and verified
#      once through the service, then a closed loop at BENCH_KNOWN_USERS callers and open-model steps at
#      BENCH_KNOWN_STEPS x the closed loop's maximum, with pgbench running the service's own credential query on the
#      service's core through the same PgBouncer beside them), and the mixed storm (mixed-storm: 90 % known devices
#      and 10 % never-verified ones at cost 10, at BENCH_MIXED_FACTOR x the bcrypt capacity, 8 connections x
#      pipelining 1); both printed with their ratios and the issue's goals (compare --known-run/--pgbench/--mixed-run)
#   6a. TLS on against off (tls): the protected BENCH_OVERLOAD x storm and the fast path's closed loops on two fresh
#      services started and warmed alike (BENCH_TLS_WARMUP), one serving /mqtt/authn over plain HTTP, one over HTTPS
#      (a leaf of the stack's CA, verified by the load generator with --ca-file); printed as goodput TLS / plain and
#      the handshakes (one per kept-alive connection)
#   6b. pod-shaped (scripts/bench-pods.sh), over HTTPS as the chart's EMQX calls the service (a leaf of the stack's
#      CA; the load generator checks it against that CA and the server name localhost, which it sends as SNI;
#      BENCH_POD_TLS=0: plain HTTP): for each pod size in BENCH_AUTH_CPU a fresh service in a cgroup with that CFS
#      quota, its capacity, and BENCH_OVERLOAD x for BENCH_POD_DURATION (90 s) behind the chart's EMQX pool and behind
#      8 connections (the pod-size table): goodput / capacity in the late window (BENCH_LATE_WINDOW, 40-90 s), the last
#      BENCH_LATE_LAST (30) seconds and the whole storm, the request rate per BENCH_RATE_EVERY (10) seconds
#      (offered/answered/allowed/refused), and the CPU per refused answer over the late window (thread CPU accounting,
#      all threads of the process, TLS included: process - bcrypt threads - allows x the non-bcrypt CPU per allow of
#      a second capacity run after the storms, over the refused answers; refusal-cost.txt beside thread-cpu.txt and
#      windows.txt in each point's directory); BENCH_JFR=1 also records each pod's JVM with JFR (settings=profile) and prints the top frames and
#      thread groups of the late window's execution samples (storm.jfr and jfr-top.txt in the point's directory;
#      needs the JDK's jcmd and jfr). The incident replay: BENCH_INCIDENT_REPLICAS replicas of BENCH_INCIDENT_CPU vCPU
#      behind one EMQX pool at BENCH_INCIDENT_RATE logins/s, protected and unprotected, and a replica started cold in
#      the middle of the storm (its first BENCH_COLD_SHOWN seconds after readiness, per second), over HTTPS as well.
#      The answer floor (after the pod-size table, same pod sizes): CPU per answer of a bare Vert.x server answering
#      the service's 503 and of the service's cheapest answer, at BENCH_FLOOR_RATE requests/s (answer-floor.txt)
#   7. BENCH_JMH=1 only: the JMH bcrypt verify benchmark pinned like the service, and beside it the verification of
#      each legacy scheme a migrated fleet brings (EMQX salted SHA-256, mosquitto-go-auth PBKDF2-SHA512, argon2id);
#      and the refusal path in process (benchmarks/refusal: a retry refused 503 overload before its database read,
#      body bytes to answer bytes, without TLS, HTTP or system calls)
#
# Duration (defaults, 2 cores): build ~1.5 min + stack ~0.2 min + capacity ~0.6 min + 10 points x 72 s (+ ~7 s each
# for seeding that point's devices, the generator's JVM start and the settle pause) + two service restarts with
# warm-up ~0.6 min = about 16 minutes; the fast path's points add ~5 minutes (service start ~0.3, seeding and the
# verify-once pass ~0.7, closed loop ~0.4, pgbench 2 x 10 s, 4 open steps x 20 s, the mixed storm 72 s); the
# TLS twins add ~10 (four service starts, four 40 s warm-ups, two 72 s points, four 20 s closed loops); the
# pod-shaped points add ~23 (per pod size a start, two capacity runs and 2 points of 90 s: ~5.5 each; the incident replay,
# its two cold-replica runs of 180 s and the unprotected restart: ~12); the answer floor ~5 per pod size (two starts,
# two 60 s warm-ups, two 30 s measures). Every run stops by itself (--duration).
#
# Point length: the first timeouts come at request_timeout + 0.5 s; 72 s leaves 5 retry periods (5 x 12 s) after
# them, and a steady-state window (22 s .. end) of 50 s. BENCH_POINT_DURATION shortens it for a quick look (the
# windows are then clamped and say so). The pod-size table's points run BENCH_POD_DURATION (90 s): the population of
# retrying devices, and with it the request rate, grows for the whole storm, so its headline windows end with it
# (40-90 s and the last 30 s); a shorter run cuts the late window at its end, and one shorter than its start has none.
#
# One service for all protected points, no restart between them: a restart costs ~15 s per point (JVM start +
# warm-up) that the 15-minute budget cannot pay for 8 points, and what a restart would reset does not carry over
# anyway: each point uses its own seeded device population (its own client-id prefix), so per-device limiter
# state never crosses points, and BENCH_SETTLE seconds between points let the service drain (a protected service
# holds no queue for longer than its deadline). The unprotected service needs its own start (other configuration).
#
# Environment (defaults in brackets): PG_PORT [55434], PGBOUNCER_PORT [56434], AUTH_PORT [8091],
# STACK_DIR [.local/bench], BENCH_OUT [target/bench], BENCH_POINT_DURATION [72s; BENCH_DURATION is an alias],
# BENCH_CAPACITY_DURATION [20s], BENCH_LOADS ["1 2 4 8 12"], BENCH_OVERLOAD [8], BENCH_STEP_AT [20s],
# BENCH_SETTLE [3, seconds], BENCH_DEVICES [per point: what its arrivals need, +25 %, at least 2000],
# BENCH_REQUEST_TIMEOUT [10s, the incident's and the
# chart's], BENCH_AUTH_CPUS [0], BENCH_LOAD_CPUS [1], BENCH_TOOL_CPUS [= BENCH_LOAD_CPUS], BENCH_JMH [0; 1 runs it],
# BENCH_ONLY [all points; e.g. "protected-8x unprotected-8x" or "known-storm mixed-storm tls" runs just those; the
# capacity run always runs], SKIP_BUILD [0], AUTH_JAR and LOADTEST_JAR [the built jars; point them at copies to bench
# a fixed build], AUTH_NATIVE [empty: the JVM jar; a native executable of auth-service, e.g. `make native`'s
# auth-service/target/native/auth-service-<version>-runner, runs every service of the bench instead of AUTH_JAR, with
# the same heap bound and environment; BENCH_SUBCORE_JIT and BENCH_JFR do not apply to it].
# Pods (scripts/bench-pods.sh): BENCH_AUTH_CPU ["0.25 1": pod sizes of the pod-size table; 2 also works],
# BENCH_CURVE_CPU [1: the pod size of the overload curve and the fast path's points], BENCH_CGROUP [auto; v1, v2, or
# none = taskset only], BENCH_CGROUP_SHARES [262144: cpu.shares of each pod's cgroup, so the pod gets its quota on a
# shared machine, as a node honours a pod's request], BENCH_OLD_CAPACITY_USERS [4: the old capacity measure, shown once], BENCH_INCIDENT_REPLICAS [2],
# BENCH_INCIDENT_CPU [0.25], BENCH_INCIDENT_RATE [50 logins/s], BENCH_INCIDENT_POOL [8], BENCH_COLD_AT [15, seconds
# into the storm], BENCH_COLD_DURATION [180s: a JVM start under a 0.25-vCPU quota took 40-120 s on the busy bench machine], BENCH_COLD_ON_JOIN ["reopen keep"], BENCH_COLD_SHOWN [30, seconds],
# BENCH_POD_TLS [1: the pod-size table and the incident replay over HTTPS, verified; 0: plain HTTP],
# BENCH_POD_CONNECTIONS ["pool 8": the pod-size table's storms, behind the chart's EMQX pool for the size and behind 8
# connections; e.g. "8" runs only the latter], BENCH_POD_DURATION [90s], BENCH_LATE_WINDOW [40-90, seconds into the storm], BENCH_LATE_LAST [30, seconds],
# BENCH_RATE_EVERY [10, seconds], BENCH_JFR [0; 1 records the pod-size table's JVMs, see 6b],
# BENCH_READINESS_PERIOD [5s, the chart's readinessProbe], BENCH_SEED [42: the load generator's random seed in the
# incident replay and the cold replica: the arrivals and the replica each EMQX connection is opened to; seed 42
# spreads the 8 connections 4 + 4, and after the cold replica's reopen 2 + 1 + 5], BENCH_SUBCORE_JIT [c1: a pod below one CPU runs its JVM
# with C1 alone (-XX:TieredStopAtLevel=1), as the chart's JVM images do (authService.jvm.c1BelowOneCpu); tiered: the
# JVM's default JIT], BENCH_FLOOR_RATE [600 requests/s: about the request rate of a 1-vCPU pod's storm by its late
# window], BENCH_FLOOR_WARMUP [40s of closed loop, then 20 s at the rate], BENCH_FLOOR_DURATION [30s]. Replicas listen on AUTH_PORT+1..+3. BENCH_ONLY names:
# pod-0_25, pod-1, pod-2, floor-0_25, floor-1, floor-2, incident-protected, incident-unprotected,
# incident-unprotected-pipelining-100, incident-cold-replica.
# The fast path's points: BENCH_FAST_PATH_KEYS [scripts/stack.sh's development key], BENCH_KNOWN_DEVICES [20000],
# BENCH_KNOWN_COST [4], BENCH_VERIFY_USERS [4, the verify-once pass's callers], BENCH_KNOWN_USERS ["10 20": one
# closed loop each, the best is the maximum; 10 = the service's database pool, beyond which its database lane refuses
# with 503 overload instead of queueing], BENCH_KNOWN_POOL [64 connections x
# pipelining 1], BENCH_KNOWN_DURATION [20s per known-storm run], BENCH_KNOWN_WARMUP [5s, not counted],
# BENCH_KNOWN_STEPS ["0.25 0.5 0.75 1" x the closed-loop maximum] or BENCH_KNOWN_RATES [absolute arrivals/s, e.g.
# "500 1000 2000 4000"; replaces the steps], BENCH_PGBENCH ["simple:10 extended:10", query mode:clients],
# BENCH_PGBENCH_DURATION [10, seconds], BENCH_MIXED_FACTOR [8], BENCH_MIXED_COLD_SHARE [0.1],
# BENCH_MIXED_DURATION [= BENCH_POINT_DURATION]. The TLS twins: BENCH_TLS_WARMUP [40s of closed loop on each fresh
# service before its storm].
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"

: "${PG_PORT:=55434}" "${PGBOUNCER_PORT:=56434}" "${AUTH_PORT:=8091}"
: "${STACK_DIR:=$ROOT/.local/bench}" "${BENCH_OUT:=$ROOT/target/bench}"
: "${BENCH_POINT_DURATION:=${BENCH_DURATION:-72s}}" "${BENCH_CAPACITY_DURATION:=20s}"
: "${BENCH_LOADS:=1 2 4 8 12}" "${BENCH_OVERLOAD:=8}" "${BENCH_STEP_AT:=20s}" "${BENCH_SETTLE:=3}"
: "${BENCH_DEVICES:=}" "${BENCH_REQUEST_TIMEOUT:=10s}" "${BENCH_AUTH_CPUS:=0}" "${BENCH_LOAD_CPUS:=1}"
: "${BENCH_JMH:=0}" "${BENCH_ONLY:=}"
: "${BENCH_AUTH_CPU:=0.25 1}" "${BENCH_CURVE_CPU:=1}" "${BENCH_CGROUP:=auto}" "${BENCH_CGROUP_SHARES:=262144}" "${BENCH_OLD_CAPACITY_USERS:=4}"
: "${BENCH_INCIDENT_REPLICAS:=2}" "${BENCH_INCIDENT_CPU:=0.25}" "${BENCH_INCIDENT_RATE:=50}" "${BENCH_INCIDENT_POOL:=8}"
: "${BENCH_SUBCORE_JIT:=c1}"
: "${BENCH_COLD_AT:=15}" "${BENCH_COLD_DURATION:=180s}" "${BENCH_COLD_ON_JOIN:=reopen keep}" "${BENCH_COLD_SHOWN:=30}"
: "${BENCH_READINESS_PERIOD:=5s}" "${BENCH_SEED:=42}"
: "${BENCH_POD_TLS:=1}" "${BENCH_POD_CONNECTIONS:=pool 8}" "${BENCH_POD_DURATION:=90s}" "${BENCH_LATE_WINDOW:=40-90}" "${BENCH_LATE_LAST:=30}"
: "${BENCH_RATE_EVERY:=10}" "${BENCH_JFR:=0}"
: "${BENCH_FLOOR_RATE:=600}" "${BENCH_FLOOR_WARMUP:=40s}" "${BENCH_FLOOR_DURATION:=30s}"
BENCH_ONLY=${BENCH_ONLY//,/ }
: "${BENCH_KNOWN_DEVICES:=20000}" "${BENCH_KNOWN_COST:=4}" "${BENCH_VERIFY_USERS:=4}" "${BENCH_KNOWN_USERS:=10 20}"
: "${BENCH_KNOWN_POOL:=64}" "${BENCH_KNOWN_DURATION:=20s}" "${BENCH_KNOWN_WARMUP:=5s}" "${BENCH_TLS_WARMUP:=40s}"
: "${BENCH_KNOWN_STEPS:=0.25 0.5 0.75 1}" "${BENCH_KNOWN_RATES:=}"
: "${BENCH_PGBENCH:=simple:10 extended:10}" "${BENCH_PGBENCH_DURATION:=10}"
: "${BENCH_MIXED_FACTOR:=8}" "${BENCH_MIXED_COLD_SHARE:=0.1}" "${BENCH_MIXED_DURATION:=$BENCH_POINT_DURATION}"
# The load generator runs beside the database by default; on a machine shared with other work, BENCH_TOOL_CPUS=0,1
# lets it float (its own lag, reported in the table, shows whether it kept up).
: "${BENCH_TOOL_CPUS:=$BENCH_LOAD_CPUS}"
: "${DB_USER:=identity}" "${DB_PASSWORD:=identity-local-dev}" "${DB_NAME:=identity}"
# auth-service connects as its own role (reads credentials, writes fast-path verifiers; stack.sh creates it and puts it
# in PgBouncer's auth file) and migrates the schema as the owner (DB_USER), directly against PostgreSQL.
: "${AUTH_DB_USER:=identity_auth}" "${AUTH_DB_PASSWORD:=identity-auth-local-dev}"
export PG_PORT PGBOUNCER_PORT STACK_DIR DB_USER DB_PASSWORD DB_NAME AUTH_DB_USER AUTH_DB_PASSWORD
# The fast path's key: the fixed development key of scripts/stack.sh (local use only). The service refuses to start
# without a key while the fast path is on; the runs that switch it off pass it anyway (it is then unused).
: "${BENCH_FAST_PATH_KEYS:=$(sed -n 's/^: "${FAST_PATH_KEYS:=\(.*\)}"$/\1/p' "$ROOT/scripts/stack.sh")}"

: "${AUTH_JAR:=$ROOT/auth-service/target/quarkus-app/quarkus-run.jar}"
: "${LOADTEST_JAR:=$ROOT/loadtest/target/loadtest.jar}"
JMH_JAR=$ROOT/benchmarks/bcrypt/target/bcrypt-bench.jar
: "${REFUSAL_JMH_JAR:=$ROOT/benchmarks/refusal/target/refusal-bench.jar}"
PGBENCH_SCRIPT=$ROOT/benchmarks/pgbench/credential-select.sql
PGBENCH=${PGBENCH:-$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)/pgbench}
RUN_DIR=$STACK_DIR/run
LOG_DIR=$STACK_DIR/log
# The database path is TLS-only (scripts/stack.sh): every client verifies the stack's CA and the server's name.
DB_CA=$STACK_DIR/tls/ca.crt
PG_URL="jdbc:postgresql://127.0.0.1:$PG_PORT/$DB_NAME?sslmode=verify-full&sslrootcert=$DB_CA"
AUTH_PID_FILE=$RUN_DIR/bench-auth-service.pid
# One shared password: each population is seeded with one hash (verifying it costs exactly what any cost-10 hash
# costs), so 20 000 devices are registered in seconds instead of 20 minutes of pgcrypto.
PASSWORD=bench-password

log() { printf '[bench] %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }
# shellcheck source=scripts/bench-pods.sh
. "$ROOT/scripts/bench-pods.sh"
[[ "$BENCH_SUBCORE_JIT" == c1 || "$BENCH_SUBCORE_JIT" == tiered ]] || die "BENCH_SUBCORE_JIT: c1 or tiered, not $BENCH_SUBCORE_JIT"
[[ "$BENCH_POD_TLS" == 0 || "$BENCH_POD_TLS" == 1 ]] || die "BENCH_POD_TLS: 1 (HTTPS) or 0 (plain HTTP), not $BENCH_POD_TLS"
[[ "$BENCH_JFR" == 0 || "$BENCH_JFR" == 1 ]] || die "BENCH_JFR: 0 or 1, not $BENCH_JFR"
[[ "$BENCH_LATE_WINDOW" =~ ^[0-9]+-[0-9]+$ ]] || die "BENCH_LATE_WINDOW: FROM-TO in seconds (e.g. 40-90), not $BENCH_LATE_WINDOW"
if [[ "$BENCH_JFR" == 1 ]]; then
  command -v jcmd >/dev/null && command -v jfr >/dev/null || die "BENCH_JFR=1 needs the JDK's jcmd and jfr on PATH"
fi
pod_cgroup_detect

# The stack script runs PostgreSQL/PgBouncer; pinning it pins them (children inherit the CPU affinity).
stack() { taskset -c "$BENCH_LOAD_CPUS" "$ROOT/scripts/stack.sh" "$@" dev; }
loadtest() { taskset -c "$BENCH_TOOL_CPUS" java -Xmx1g -jar "$LOADTEST_JAR" "$@"; }
# The figures (rates, devices, pod shapes, notes) are the load generator's: loadtest bench <figure> (BenchArithmetic);
# so are the services' metrics (loadtest metrics URL ARGS...: its Prometheus parser; an unreachable service reads as 0).
figure() { java -Xmx64m -XX:TieredStopAtLevel=1 -jar "$LOADTEST_JAR" bench "$@"; }
figure_metrics() { java -Xmx64m -XX:TieredStopAtLevel=1 -jar "$LOADTEST_JAR" metrics --unreadable-empty "$@" 2>/dev/null; }
# The metrics page of the service at PORT: its management interface (PORT + 1000).
metrics_url() { echo "http://127.0.0.1:$(($1 + 1000))/q/metrics"; }

[[ -n "$BENCH_FAST_PATH_KEYS" ]] || die "no fast-path key: set BENCH_FAST_PATH_KEYS (id:base64key)"
command -v taskset >/dev/null || die "taskset (util-linux) is needed to pin the service to its core"
command -v curl >/dev/null || die "curl is needed"
(( $(nproc) >= 2 )) || log "warning: fewer than 2 CPUs; the service and the load share a core"

# The run list: name pool pipelining retry arrival-factor [step factor]. Protected points first (one service),
# the unprotected one last (its own service start).
PROTECTED_POINTS=()
for f in $BENCH_LOADS; do PROTECTED_POINTS+=("protected-${f}x 8 1 fixed:12s $f"); done
PROTECTED_POINTS+=("protected-pool-64-${BENCH_OVERLOAD}x 64 1 fixed:12s $BENCH_OVERLOAD")
PROTECTED_POINTS+=("protected-backoff-${BENCH_OVERLOAD}x 8 1 backoff:1s..60s $BENCH_OVERLOAD")
PROTECTED_POINTS+=("protected-step-1x-to-${BENCH_OVERLOAD}x 8 1 fixed:12s 1 $BENCH_OVERLOAD")
UNPROTECTED_POINTS=("unprotected-${BENCH_OVERLOAD}x 8 100 fixed:12s $BENCH_OVERLOAD")
# The same unprotected service behind the protected points' EMQX (pipelining 1): the point that differs from
# protected-<n>x in the protections alone, so the headline's comparison changes one thing at a time.
UNPROTECTED_POINTS+=("unprotected-pipelining-1-${BENCH_OVERLOAD}x 8 1 fixed:12s $BENCH_OVERLOAD")
selected() { [[ -z "$BENCH_ONLY" || " ${BENCH_ONLY//,/ } " == *" $1 "* ]]; }  # names separated by spaces or commas

stop_auth() { stop_pod auth-service; }

cleanup() {
  stop_all_pods
  pod_cgroups_remove
  stack db-down >/dev/null 2>&1 || true
}
trap cleanup EXIT

# Starts auth-service as a pod of BENCH_CURVE_CPU vCPU with the given extra environment (KEY=VALUE ...).
start_auth() {
  local name=$1
  shift
  start_pod auth-service "$AUTH_PORT" "$BENCH_CURVE_CPU" "$name" "$@"
}

auth_alive() { [[ -f "$AUTH_PID_FILE" ]] && kill -0 "$(cat "$AUTH_PID_FILE")" 2>/dev/null; }

# Options every run shares; the device population (prefix, size) is per point. COMMON_NO_URL for runs against other
# replicas (--url is repeatable: each one more replica).
COMMON_NO_URL=(--shared-password "$PASSWORD" --request-timeout "$BENCH_REQUEST_TIMEOUT"
        --pg-url "$PG_URL"
        --pgbouncer-admin-url "jdbc:postgresql://127.0.0.1:$PGBOUNCER_PORT/pgbouncer?sslmode=verify-full&sslrootcert=$DB_CA"
        --db-user "$DB_USER" --db-password "$DB_PASSWORD" --db-name "$DB_NAME")
COMMON=(--url "http://127.0.0.1:$AUTH_PORT/mqtt/authn" "${COMMON_NO_URL[@]}")

# Seeds population bench-<name>-1..<count> (one shared hash: a few thousand rows per second).
seed() {
  loadtest seed --devices "$2" --device-prefix "bench-$1-" --shared-password "$PASSWORD" \
    --pg-url "$PG_URL" --db-user "$DB_USER" --db-password "$DB_PASSWORD" \
    >/dev/null 2>"$LOG_DIR/seed-$1.log" || { cat "$LOG_DIR/seed-$1.log" >&2; die "seeding bench-$1- failed"; }
}

# Devices a point needs (loadtest bench devices): arrivals/s x duration, a quarter more; BENCH_DEVICES fixes it.
devices_for() { figure devices --rate "$1" --duration "$BENCH_POINT_DURATION" --devices "$BENCH_DEVICES"; }

# A just-started JVM runs bcrypt interpreted; every service start gets the same short warm-up before it is measured.
warm_up() {
  loadtest run "${COMMON[@]}" --devices "$CAPACITY_DEVICES" --device-prefix bench-capacity- --closed-loop 2 --pool-size 2 --pipelining 1 \
    --duration "${2:-6s}" --service-metrics none --out "$BENCH_OUT/warmup-$1" --label "warm-up" --progress none >/dev/null
}

# Runs one point: name pool pipelining retry factor [step-factor]. Progress lines go to the run's log.
point() {
  local name=$1 pool=$2 pipelining=$3 retry=$4 factor=$5 step=${6:-}
  local rate peak devices step_args=() step_factor=()
  [[ -n "$step" ]] && step_factor=(--step-factor "$step")
  read -r rate peak devices < <(figure point --capacity "$capacity" --factor "$factor" "${step_factor[@]}" \
    --duration "$BENCH_POINT_DURATION" --devices "$BENCH_DEVICES")
  [[ -n "$step" ]] && step_args=(--step-at "$BENCH_STEP_AT" --step-rate "$peak")
  seed "$name" "$devices"
  auth_alive || die "auth-service is not running before $name (log: $LOG_DIR)"
  log "$name: $rate arrivals/s (${factor}x${step:+, ${step}x from $BENCH_STEP_AT}) for $BENCH_POINT_DURATION, pool $pool x pipelining $pipelining, retry $retry"
  loadtest run "${COMMON[@]}" --devices "$devices" --device-prefix "bench-$name-" --rate "$rate" "${step_args[@]}" \
    --pool-size "$pool" --pipelining "$pipelining" --retry "$retry" --duration "$BENCH_POINT_DURATION" \
    --capacity "$capacity" --out "$BENCH_OUT/$name" --label "$name" --progress lines 2>"$LOG_DIR/loadtest-$name.log" &
  local lt=$!
  if [[ -n "${POINT_MARK_AT:-}" ]]; then
    at_second "$lt" "$LOG_DIR/loadtest-$name.log" "$name" "$POINT_MARK_AT"
    point_mark "$name" from
  fi
  wait "$lt" || { tail -n 20 "$LOG_DIR/loadtest-$name.log" >&2; die "$name failed"; }
  [[ -z "${POINT_MARK_AT:-}" ]] || point_mark "$name" to
  RUNS+=(--run "$name=$BENCH_OUT/$name/summary.json")
}

# Returns when the run PID (label LABEL, progress lines in LOG) has closed its second SECOND, or has ended. Follows
# the log with bash builtins (on a busy machine a program started now, even grep, can run seconds late).
at_second() {
  local pid=$1 log_file=$2 mark line part="" state fd
  mark=$(printf '[%s %3d/' "$3" "$4")
  while [[ ! -e "$log_file" ]]; do sleep 0.1; done
  exec {fd}<"$log_file"
  while read -r state 2>/dev/null <"/proc/$pid/stat" && [[ ${state##*) } != Z* ]]; do
    while IFS= read -r -u "$fd" line || { part+=$line; false; }; do
      line=$part$line part=""
      [[ "$line" == "$mark"* ]] && { exec {fd}<&-; return 0; }
    done
    sleep 0.2
  done
  exec {fd}<&-
  return 0
}

# --- the fast path's points: helpers ------------------------------------------------------------------------
# The service's metrics, read by the load generator's parser: values of series (name or name{labels}), or --save/
# --since for the difference over a run (loadtest metrics). An unreachable service reads as 0.
service_metrics() { figure_metrics "$(metrics_url "$AUTH_PORT")" "$@"; }

# One line comparing a TLS run with its plain twin (loadtest bench tls-ratio).
tls_ratio() {
  figure tls-ratio --plain "$1=$BENCH_OUT/$1/summary.json" --tls "$2=$BENCH_OUT/$2/summary.json" --connections "$3"
}

# CPU accounting around one run: cpu_snapshot copies, raw, what /proc says of auth-service, PostgreSQL (postmaster
# and its children), PgBouncer and the two cores, and what `times` says of this script's children (the load
# generator or pgbench: includes its JVM start); loadtest bench cpu-note makes the line of where the time went, per
# answer the service gave (or per pgbench transaction).
CLK_TCK=$(getconf CLK_TCK)
postgres_pids() {
  local postmaster
  postmaster=$(head -n 1 "$STACK_DIR/pg/postmaster.pid" 2>/dev/null) || return 0
  echo "$postmaster" $(pgrep -P "$postmaster" 2>/dev/null)
}
proc_stat() {
  local what=$1 pid
  shift
  # An empty pid would read /proc//stat, which is /proc/stat.
  for pid in "$@"; do [[ $pid =~ ^[0-9]+$ && -r /proc/$pid/stat ]] && echo "$what $(cat "/proc/$pid/stat" 2>/dev/null)"; done
  return 0
}
# `times` first, and in this shell (in a command substitution it would see the subshell's children only).
cpu_snapshot() {
  times >"$1.times"
  {
    echo "time $(date +%s.%N)"
    proc_stat auth "$(cat "$AUTH_PID_FILE" 2>/dev/null)"
    proc_stat postgres $(postgres_pids)
    proc_stat pgbouncer "$(cat "$RUN_DIR/pgbouncer.pid" 2>/dev/null)"
    echo "core_auth $(grep "^cpu${BENCH_AUTH_CPUS%%[,-]*} " /proc/stat)"
    echo "core_load $(grep "^cpu${BENCH_LOAD_CPUS%%[,-]*} " /proc/stat)"
  } >"$1"
}
cpu_begin() { cpu_snapshot "$RUN_DIR/cpu-before"; }
# Right after the run, before anything else starts a JVM of this shell's.
cpu_stop() { cpu_snapshot "$RUN_DIR/cpu-after"; }
# cpu_note LABEL COUNT WHAT TOOL: COUNT answers (WHAT: "answers" or "transactions") in the span; TOOL names the child.
cpu_note() {
  local line
  line=$(figure cpu-note --before "$RUN_DIR/cpu-before" --after "$RUN_DIR/cpu-after" --ticks-per-second "$CLK_TCK" \
    --count "$2" --what "$3" --tool "$4" --label "$1" --auth-cpus "$BENCH_AUTH_CPUS" --load-cpus "$BENCH_LOAD_CPUS")
  NOTES+=("$line")
  log "$line"
}

# Seeds the known devices anew (at BENCH_KNOWN_COST: only the verify-once pass pays it) and has each verified once
# through the service, so that each has a verifier. The writes are asynchronous: waits for the queue to drain, and
# runs a second pass (fast-path allows for the written ones, bcrypt for the rest) if some were dropped.
prepare_known() {
  log "known devices: seeding bench-known-1..$BENCH_KNOWN_DEVICES at bcrypt cost $BENCH_KNOWN_COST (anew)"
  loadtest seed --replace --devices "$BENCH_KNOWN_DEVICES" --device-prefix bench-known- --shared-password "$PASSWORD" \
    --cost "$BENCH_KNOWN_COST" --pg-url "$PG_URL" --db-user "$DB_USER" \
    --db-password "$DB_PASSWORD" >/dev/null 2>"$LOG_DIR/seed-known.log" || { cat "$LOG_DIR/seed-known.log" >&2; die "seeding failed"; }
  local written=0 pass start bcrypts dropped failed
  service_metrics --save "$RUN_DIR/metrics-known-before.prom" >/dev/null
  start=$(date +%s)
  for pass in 1 2; do
    log "known devices: verify-once pass $pass ($BENCH_VERIFY_USERS callers, each device until allowed once)"
    loadtest run "${COMMON[@]}" --devices "$BENCH_KNOWN_DEVICES" --device-prefix bench-known- \
      --closed-loop "$BENCH_VERIFY_USERS" --pool-size "$BENCH_VERIFY_USERS" --pipelining 1 --each-device-once \
      --duration 600s --out "$BENCH_OUT/known-verify-$pass" --label "known-verify-$pass" --progress lines \
      >"$LOG_DIR/loadtest-known-verify-$pass.out" 2>"$LOG_DIR/loadtest-known-verify-$pass.log" \
      || { tail -n 20 "$LOG_DIR/loadtest-known-verify-$pass.log" >&2; die "verify-once pass failed"; }
    service_metrics --until-zero 10s identity_fastpath_write_queue_depth >/dev/null
    written=$(service_metrics --since "$RUN_DIR/metrics-known-before.prom" 'identity_fastpath_writes_total{result="written"}')
    (( written >= BENCH_KNOWN_DEVICES )) && break
    log "known devices: $written of $BENCH_KNOWN_DEVICES verifiers written after pass $pass"
  done
  read -r bcrypts < <(service_metrics --since "$RUN_DIR/metrics-known-before.prom" identity_bcrypt_duration_seconds_count)
  read -r dropped failed < <(service_metrics identity_fastpath_writes_dropped_total 'identity_fastpath_writes_total{result="failed"}')
  KNOWN_NOTE="verify-once: $BENCH_KNOWN_DEVICES devices at bcrypt cost $BENCH_KNOWN_COST verified through the service in $(( $(date +%s) - start )) s ($pass pass(es), $bcrypts bcrypts): $written verifiers written (identity_fastpath_writes_total{result=\"written\"}), dropped $dropped, failed $failed. The cost only changes how long this pass takes: a fast-path allow does no bcrypt, whatever the cost."
  NOTES+=("$KNOWN_NOTE")
  log "$KNOWN_NOTE"
}

# One known-storm run through the EMQX imitation (name, then the run's own options).
known_run() {
  local name=$1
  shift
  local before=$RUN_DIR/metrics-$name.prom note
  service_metrics --save "$before" >/dev/null
  cpu_begin
  loadtest run "${COMMON[@]}" --devices "$BENCH_KNOWN_DEVICES" --device-prefix bench-known- \
    --pool-size "$BENCH_KNOWN_POOL" --pipelining 1 --duration "$BENCH_KNOWN_DURATION" --capacity "$capacity" \
    --out "$BENCH_OUT/$name" --label "$name" --progress lines "$@" 2>"$LOG_DIR/loadtest-$name.log" \
    || { tail -n 20 "$LOG_DIR/loadtest-$name.log" >&2; die "$name failed"; }
  cpu_stop
  cpu_note "$name" "$(service_metrics --since "$before" identity_authn_outcomes_total)" answers "load generator"
  note=$(figure mean-time --label "$name" --before "$before" --metrics "$(metrics_url "$AUTH_PORT")")
  [[ -z "$note" ]] || NOTES+=("$note")
  KNOWN_RUNS+=(--known-run "$name=$BENCH_OUT/$name/summary.json")
}

# pgbench select-only with the service's own credential query, pinned to the service's core(s), through the same
# PgBouncer as identity_auth. Simple protocol: one message per query, what PgBouncer 1.18 in transaction mode is
# best at; extended: Parse/Bind/Execute with an unnamed statement, the protocol the service's driver uses
# (prepareThreshold=0). Prepared (named) statements cannot work through PgBouncer 1.18 in transaction mode.
pgbench_run() {
  local mode=$1 clients=$2 name="pgbench-$1-c$2" transactions
  [[ -x "$PGBENCH" ]] || die "pgbench not found ($PGBENCH; set PGBENCH)"
  log "$name: the credential query, $clients clients, 1 thread, ${BENCH_PGBENCH_DURATION}s, pinned to CPU $BENCH_AUTH_CPUS"
  cpu_begin
  PGSSLMODE=verify-full PGSSLROOTCERT=$DB_CA PGPASSWORD=$AUTH_DB_PASSWORD taskset -c "$BENCH_AUTH_CPUS" "$PGBENCH" -n -M "$mode" -c "$clients" -j 1 \
    -T "$BENCH_PGBENCH_DURATION" -D devices="$BENCH_KNOWN_DEVICES" -f "$PGBENCH_SCRIPT" -h 127.0.0.1 \
    -p "$PGBOUNCER_PORT" -U "$AUTH_DB_USER" "$DB_NAME" >"$BENCH_OUT/$name.txt" 2>&1 \
    || { cat "$BENCH_OUT/$name.txt" >&2; die "$name failed"; }
  cpu_stop
  transactions=$(sed -n 's/^number of transactions actually processed: \([0-9]*\).*/\1/p' "$BENCH_OUT/$name.txt")
  cpu_note "$name" "${transactions:-0}" transactions pgbench
  PGBENCH_RUNS+=(--pgbench "$name=$BENCH_OUT/$name.txt")
}

known_storm() {
  local users rate rates=() closed=()
  for users in $BENCH_KNOWN_USERS; do
    log "known-closed-$users: closed loop, $users callers over $BENCH_KNOWN_POOL connections x pipelining 1, $BENCH_KNOWN_DURATION ($BENCH_KNOWN_WARMUP not counted)"
    known_run "known-closed-$users" --closed-loop "$users" --warmup "$BENCH_KNOWN_WARMUP"
    closed+=(--closed-run "$BENCH_OUT/known-closed-$users/summary.json")
  done
  for p in $BENCH_PGBENCH; do pgbench_run "${p%%:*}" "${p##*:}"; done
  if [[ -n "$BENCH_KNOWN_RATES" ]]; then
    rates=($BENCH_KNOWN_RATES)
  else
    read -r -a rates < <(figure known-rates "${closed[@]}" --steps "$BENCH_KNOWN_STEPS")
  fi
  for rate in "${rates[@]}"; do
    # Each step is a new load-generator JVM. Started cold at full rate it lags for 5-7 s (JIT, its 64 connections)
    # and builds a backlog of its own making that reached into the counted window; so it first sends a quarter of
    # the rate for BENCH_KNOWN_WARMUP (not counted), then steps to the rate: the window measures the service.
    local warm=$(( rate / 4 > 10 ? rate / 4 : 10 ))
    log "known-open-$rate: $rate arrivals/s of known devices (each disconnects when allowed and may come back), $BENCH_KNOWN_DURATION ($warm/s for the first $BENCH_KNOWN_WARMUP, not counted)"
    known_run "known-open-$rate" --rate "$warm" --step-at "$BENCH_KNOWN_WARMUP" --step-rate "$rate" \
      --disconnect-after-allow --retry fixed:12s --steady-state-from "$BENCH_KNOWN_WARMUP"
  done
}

# 90 % known devices (verified before) and 10 % cold ones (seeded now at cost 10, never verified) at
# BENCH_MIXED_FACTOR x the bcrypt capacity, through the chart's EMQX settings (8 connections x pipelining 1), devices
# retrying on the incident's fixed 12 s timer, the steady state as the overload points have it.
mixed_storm() {
  local rate cold_rate cold_devices known_share known_needed
  read -r rate cold_rate known_share cold_devices known_needed < <(figure mixed --capacity "$capacity" \
    --factor "$BENCH_MIXED_FACTOR" --cold-share "$BENCH_MIXED_COLD_SHARE" --duration "$BENCH_MIXED_DURATION" \
    --devices "$BENCH_DEVICES")
  (( known_needed <= BENCH_KNOWN_DEVICES )) || log "warning: the mixed storm's known arrivals may need $known_needed devices (BENCH_KNOWN_DEVICES=$BENCH_KNOWN_DEVICES)"
  log "mixed-storm: seeding $cold_devices cold devices bench-mixed-cold- at bcrypt cost 10 (anew, never verified)"
  loadtest seed --replace --devices "$cold_devices" --device-prefix bench-mixed-cold- --shared-password "$PASSWORD" \
    --pg-url "$PG_URL" --db-user "$DB_USER" --db-password "$DB_PASSWORD" \
    >/dev/null 2>"$LOG_DIR/seed-mixed-cold.log" || { cat "$LOG_DIR/seed-mixed-cold.log" >&2; die "seeding failed"; }
  log "mixed-storm: $rate arrivals/s (${BENCH_MIXED_FACTOR}x capacity): known $known_share, cold $BENCH_MIXED_COLD_SHARE = $cold_rate/s, $BENCH_MIXED_DURATION, pool 8 x pipelining 1, retry fixed:12s"
  loadtest run "${COMMON[@]}" --part "known:bench-known-:$BENCH_KNOWN_DEVICES:$known_share" \
    --part "cold:bench-mixed-cold-:$cold_devices:$BENCH_MIXED_COLD_SHARE" --rate "$rate" --pool-size 8 --pipelining 1 \
    --retry fixed:12s --duration "$BENCH_MIXED_DURATION" --capacity "$capacity" --out "$BENCH_OUT/mixed-storm" \
    --label mixed-storm --progress lines 2>"$LOG_DIR/loadtest-mixed-storm.log" \
    || { tail -n 20 "$LOG_DIR/loadtest-mixed-storm.log" >&2; die "mixed-storm failed"; }
  MIXED_RUNS+=(--mixed-run "mixed-storm=$BENCH_OUT/mixed-storm/summary.json")
}

# --- 1. build -----------------------------------------------------------------------------------------------
started=$(date +%s)
# benchmarks/refusal also holds the answer floor's server.
modules=auth-service,loadtest,benchmarks/refusal
[[ "$BENCH_JMH" == 1 ]] && modules+=,benchmarks/bcrypt
if [[ "${SKIP_BUILD:-0}" != 1 ]]; then
  log "building $modules (mvn package -DskipTests)"
  mvn -B -q -pl "$modules" -am package -DskipTests || die "build failed"
fi
for jar in "$AUTH_JAR" "$LOADTEST_JAR"; do [[ -f "$jar" ]] || die "$jar is missing"; done
[[ -z "${AUTH_NATIVE:-}" || -x "$AUTH_NATIVE" ]] || die "AUTH_NATIVE: $AUTH_NATIVE is not an executable"
[[ -z "${AUTH_NATIVE:-}" ]] || log "auth-service: the native executable $AUTH_NATIVE"
[[ "$BENCH_JMH" != 1 || -f "$JMH_JAR" ]] || die "$JMH_JAR is missing"
[[ -f "$REFUSAL_JMH_JAR" ]] || die "$REFUSAL_JMH_JAR is missing"
rm -rf "$BENCH_OUT"
mkdir -p "$BENCH_OUT"

# --- 2. database ----------------------------------------------------------------------------------------------
stack db-up >/dev/null
mkdir -p "$LOG_DIR"

# Protected: the service's defaults, with the verified-credential fast path off. Unprotected: the same build with
# every guard of the auth path configured away: no deadline, bcrypt on 64 threads at normal priority with a queue of
# 100 000 and no waiting-time rule (an hour's allowance, an hour's interval: like hashing on request threads), no
# early refusal, no per-device limit, no fault tolerance (bulkheads, timeouts, breaker), a 100-connection pool with a
# long acquisition timeout and as many database threads; fast path off too.
#
# Why the fast path is off for all of these: they measure bcrypt's capacity and its admission under overload. The
# capacity loop cycles through the same 2000 devices with the same password, so with the fast path on it would
# measure the fast path after its first pass; in the storms a device whose bcrypt succeeded but whose answer reached
# EMQX too late (the overload case) would have a verifier written, and its retry would be a free fast-path allow
# instead of another bcrypt. The fast path has its own points (known-storm, mixed-storm) on a service of its own.
PROTECTED=(IDENTITY_AUTH_FAST_PATH_ENABLED=false)
UNPROTECTED=(IDENTITY_AUTH_FAST_PATH_ENABLED=false IDENTITY_OVERLOAD_DEADLINE=3600s IDENTITY_OVERLOAD_BCRYPT_CONCURRENCY=64
             IDENTITY_OVERLOAD_BCRYPT_QUEUE=100000 IDENTITY_OVERLOAD_BCRYPT_MAX_WAIT=3600s
             IDENTITY_OVERLOAD_BCRYPT_TARGET_WAIT=3600s IDENTITY_OVERLOAD_BCRYPT_INTERVAL=3600s
             IDENTITY_OVERLOAD_BCRYPT_IDLE_PRIORITY=false IDENTITY_AUTH_ACTIVE_DEVICE_MEMORY=0s
             IDENTITY_AUTH_RATE_LIMIT_ENABLED=false
             QUARKUS_FAULT_TOLERANCE_ENABLED=false QUARKUS_DATASOURCE_JDBC_MAX_SIZE=100
             IDENTITY_OVERLOAD_DATABASE_CONCURRENCY=100 QUARKUS_DATASOURCE_JDBC_ACQUISITION_TIMEOUT=60S)
# The fast path's points: the service's defaults, fast path on (as in production).
FAST_PATH=(IDENTITY_AUTH_FAST_PATH_ENABLED=true)

# --- 3. capacity --------------------------------------------------------------------------------------------
# The closed loop cycles through its devices; 2000 keep each one far below the per-device limit (10 a minute).
CAPACITY_DEVICES=${BENCH_DEVICES:-2000}
start_auth protected "${PROTECTED[@]}"
seed capacity "$CAPACITY_DEVICES"
warm_up protected
# Honest capacity: as many callers as bcrypt threads, never refused, so none pays for refusals; the old measure (4
# callers, who then share the pod with their own refusals) once beside it.
capacity=$(pod_capacity "$AUTH_PORT" "$BENCH_CURVE_CPU" capacity) \
  || die "capacity run got no allows (log: $LOG_DIR/loadtest-capacity.log)"
old_capacity=$(pod_capacity "$AUTH_PORT" "$BENCH_CURVE_CPU" "capacity-$BENCH_OLD_CAPACITY_USERS-callers" "$BENCH_OLD_CAPACITY_USERS") \
  || die "the old capacity measure got no allows (log: $LOG_DIR/loadtest-capacity-$BENCH_OLD_CAPACITY_USERS-callers.log)"
read -r curve_threads _ < <(figure pod --cpu "$BENCH_CURVE_CPU" --cpus "$BENCH_AUTH_CPUS" --machine-cpus "$(nproc)")
CAPACITY_NOTE="capacity of the $BENCH_CURVE_CPU-vCPU pod: $capacity allows/s with $curve_threads caller(s) = bcrypt threads (the ratios' denominator); the old measure, $BENCH_OLD_CAPACITY_USERS callers: $old_capacity allows/s"
log "capacity $capacity allows/s"

# --- 4. the points ------------------------------------------------------------------------------------------
RUNS=()
for p in "${PROTECTED_POINTS[@]}"; do
  read -r name pool pipelining retry factor step <<<"$p"
  selected "$name" || continue
  point "$name" "$pool" "$pipelining" "$retry" "$factor" "$step"
  sleep "$BENCH_SETTLE"
done
for p in "${UNPROTECTED_POINTS[@]}"; do
  read -r name pool pipelining retry factor step <<<"$p"
  selected "$name" || continue
  start_auth unprotected "${UNPROTECTED[@]}"
  warm_up unprotected
  point "$name" "$pool" "$pipelining" "$retry" "$factor" "$step"
done

# --- 4b. the fast path's points -------------------------------------------------------------------------------
# Their own service start: the fast path on. No warm-up of its own: the verify-once pass is one (thousands of
# checks), and every known-storm run leaves its first BENCH_KNOWN_WARMUP out.
KNOWN_RUNS=() PGBENCH_RUNS=() MIXED_RUNS=() NOTES=()
if selected known-storm || selected mixed-storm; then
  start_auth fast-path "${FAST_PATH[@]}"
  prepare_known
  selected known-storm && known_storm
  selected mixed-storm && mixed_storm
fi

# --- 4c. TLS on against off: twins that differ in TLS only -------------------------------------------
# The protected BENCH_OVERLOAD x storm and the fast path's closed loops, each run twice: on a fresh service serving
# plain HTTP (plain-*) and on a fresh one serving HTTPS (tls-*: the chart's default; a leaf of the stack's CA from
# scripts/local-ca.sh, the load generator checking it with --ca-file and the name localhost as EMQX's verify_peer and
# server_name_indication do: tls_leaf and target_of in bench-pods.sh). Both twins start and
# warm up the same way (BENCH_TLS_WARMUP of closed loop: about what the curve's service gets before its first point),
# so that neither inherits code the other's history compiled; the first measured run showed a fresh TLS service
# against a long-warm plain one at 0.66 and 0.69, which was the JIT as much as TLS. EMQX keeps its connections
# alive, so a run pays one handshake per connection (8 or BENCH_KNOWN_POOL); the rest is encryption per message.
TLS_NOTES=()
if selected tls; then
  tls_leaf
  COMMON_PLAIN=("${COMMON[@]}")
  tls_users=$(printf '%s\n' $BENCH_KNOWN_USERS | sort -n | tail -n 1)
  if ! selected known-storm && ! selected mixed-storm; then
    # The known devices and their verifiers, made through a service of their own, so that neither twin's history
    # includes the verify-once pass.
    start_auth fast-path-prepare "${FAST_PATH[@]}"
    prepare_known
  fi
  for twin in plain tls; do
    if [[ $twin == tls ]]; then env_twin=("${TLS_ENV[@]}"); else env_twin=(); fi
    start_auth "protected-$twin" "${PROTECTED[@]}" "${env_twin[@]}"
    # The service's URL as it was started (https://localhost and the stack's CA for the TLS twin; bench-pods.sh).
    mapfile -t twin_target < <(target_of "$AUTH_PORT")
    COMMON=("${twin_target[@]}" "${COMMON_NO_URL[@]}")
    warm_up "protected-$twin" "$BENCH_TLS_WARMUP"
    point "$twin-protected-${BENCH_OVERLOAD}x" 8 1 fixed:12s "$BENCH_OVERLOAD"
    start_auth "fast-path-$twin" "${FAST_PATH[@]}" "${env_twin[@]}"
    # The known devices' verifiers are in the database (same key): a fresh service allows them on the fast path.
    # Both twins get the same fast-path warm-up before they are measured.
    loadtest run "${COMMON[@]}" --devices "$BENCH_KNOWN_DEVICES" --device-prefix bench-known- --closed-loop 10 \
      --pool-size "$BENCH_KNOWN_POOL" --pipelining 1 --duration "$BENCH_TLS_WARMUP" --service-metrics none \
      --out "$BENCH_OUT/warmup-fast-path-$twin" --label warm-up --progress none >/dev/null
    for users in $BENCH_KNOWN_USERS; do
      log "$twin-known-closed-$users: closed loop, $users callers over $BENCH_KNOWN_POOL connections ($twin) x pipelining 1, $BENCH_KNOWN_DURATION ($BENCH_KNOWN_WARMUP not counted)"
      known_run "$twin-known-closed-$users" --closed-loop "$users" --warmup "$BENCH_KNOWN_WARMUP"
    done
  done
  COMMON=("${COMMON_PLAIN[@]}")
  TLS_NOTES+=("$(tls_ratio "plain-protected-${BENCH_OVERLOAD}x" "tls-protected-${BENCH_OVERLOAD}x" 8)")
  TLS_NOTES+=("$(tls_ratio "plain-known-closed-$tls_users" "tls-known-closed-$tls_users" "$BENCH_KNOWN_POOL")")
fi
stop_auth

# --- 4d. pod-shaped: the pod-size table, the answer floor, the incident replay, the cold replica (bench-pods.sh) -
pod_sizes
answer_floor
incident
stop_all_pods

# --- 5. the table -------------------------------------------------------------------------------------------
stack db-down >/dev/null 2>&1 || true
echo
if (( ${#RUNS[@]} > 0 )); then
  echo "Overload curve: auth-service on CPU $BENCH_AUTH_CPUS, EMQX request_timeout $BENCH_REQUEST_TIMEOUT," \
    "$BENCH_POINT_DURATION per point; protected = defaults (fast path off) + 8 connections x pipelining 1 (pool-64:" \
    "64 connections); unprotected = protections off by configuration + pipelining 100; devices retry fixed:12s, or" \
    "backoff:1s..60s with full jitter; step = 1x, then ${BENCH_OVERLOAD}x from $BENCH_STEP_AT"
  echo
fi
if (( ${#KNOWN_RUNS[@]} + ${#MIXED_RUNS[@]} > 0 )); then
  echo "Fast path (on, its own service start, same pinning): known-storm runs over $BENCH_KNOWN_POOL connections x" \
    "pipelining 1, ${BENCH_KNOWN_DURATION} each (${BENCH_KNOWN_WARMUP} not counted); open steps = devices that" \
    "disconnect when allowed and arrive again; mixed-storm = 8 connections x pipelining 1, retry fixed:12s," \
    "$BENCH_MIXED_DURATION; pgbench = the service's credential query (benchmarks/pgbench/credential-select.sql) through" \
    "the same PgBouncer as $AUTH_DB_USER, pinned to CPU $BENCH_AUTH_CPUS"
  echo
fi
(( ${#RUNS[@]} + ${#KNOWN_RUNS[@]} + ${#MIXED_RUNS[@]} + ${#POD_ROWS[@]} + ${#FLOOR_ROWS[@]} + ${#INCIDENT_RUNS[@]} > 0 )) \
  || die "BENCH_ONLY selected no point"
echo "$CAPACITY_NOTE" | tee "$BENCH_OUT/capacity-note.txt"
(( ${#RUNS[@]} + ${#KNOWN_RUNS[@]} + ${#MIXED_RUNS[@]} > 0 )) && java -jar "$LOADTEST_JAR" compare --capacity "$BENCH_OUT/capacity/summary.json" "${RUNS[@]}" "${KNOWN_RUNS[@]}" \
  "${PGBENCH_RUNS[@]}" "${MIXED_RUNS[@]}" --known-cost "$BENCH_KNOWN_COST" --out "$BENCH_OUT" | tee "$BENCH_OUT/table.txt"
if (( ${#NOTES[@]} > 0 )); then
  echo
  echo "Fast path notes: the service on CPU $BENCH_AUTH_CPUS, PostgreSQL + PgBouncer + the load generator on CPU $BENCH_LOAD_CPUS; pgbench pinned like the service."
  printf '%s\n' "${NOTES[@]}" | tee -a "$BENCH_OUT/table.txt"
fi
if (( ${#TLS_NOTES[@]} > 0 )); then
  echo
  echo "TLS on: the same service and storms with /mqtt/authn over HTTPS, the load generator verifying the certificate (--ca-file):"
  printf '%s\n' "${TLS_NOTES[@]}" | tee "$BENCH_OUT/tls.txt"
fi
pod_table | tee "$BENCH_OUT/pod-table.txt"
floor_table | tee "$BENCH_OUT/answer-floor.txt"
incident_table

# --- 6. JMH, one core (opt-in) ------------------------------------------------------------------------------
# jmh JAR NAME WHAT...: the benchmarks of JAR pinned like the service, its results to NAME-jmh.json and .log, and
# its table printed under the lines WHAT.
jmh() {
  local jar=$1 name=$2
  shift 2
  log "JMH ($name), pinned to CPU $BENCH_AUTH_CPUS"
  taskset -c "$BENCH_AUTH_CPUS" java -jar "$jar" -rf json -rff "$BENCH_OUT/$name-jmh.json" >"$BENCH_OUT/$name-jmh.log" 2>&1 \
    || { tail -n 30 "$BENCH_OUT/$name-jmh.log" >&2; die "JMH ($name) failed"; }
  printf '%s\n' "$@"
  sed -n '/^Benchmark /,$p' "$BENCH_OUT/$name-jmh.log"
}
if [[ "$BENCH_JMH" == 1 ]]; then
  echo
  jmh "$JMH_JAR" bcrypt \
    "bcrypt verify at cost 10 per implementation, and each legacy scheme's verify (LegacySchemeVerifyBenchmark), one core" \
    "(JMH average time; 1000 / ms = checks per second per core):"
  jmh "$REFUSAL_JMH_JAR" refusal \
    "A retry refused 503 overload before its database read, in process: body bytes to answer bytes, the outcome" \
    "counted (JMH average time; no TLS, HTTP or system calls: the pod points' CPU per refused answer has those):"
fi

echo
echo "Reports: $BENCH_OUT/index.html (table, overload curve, goodput per second), one report.html per run under $BENCH_OUT/<run>/"
echo "Total time: $(( $(date +%s) - started )) s"
