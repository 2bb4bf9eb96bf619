#!/usr/bin/env bash
# `make bench`: the overload curve of auth-service behind an imitation of EMQX. Prints figures; asserts nothing.
#
#   1. builds auth-service and the load generator (SKIP_BUILD=1 to reuse the jars; BENCH_JMH=1 adds the JMH jar)
#   2. starts its own PostgreSQL + PgBouncer (own ports and STACK_DIR, never those of `make up` or `make test`),
#      pinned to the CPUs in BENCH_LOAD_CPUS together with the load generator
#   3. starts auth-service pinned to BENCH_AUTH_CPUS (default: one core) and measures its capacity with a
#      closed loop that never overloads it
#   4. the protected service (its defaults) behind the chart's EMQX settings (8 connections x pipelining 1,
#      request_timeout 10 s), devices retrying on a fixed 12 s timer, at BENCH_LOADS x capacity (1 2 4 8 12);
#      then at BENCH_OVERLOAD x (8) behind 64 connections, with backoff-and-jitter devices, and as a step from 1x
#      to BENCH_OVERLOAD x at BENCH_STEP_AT; last, the unprotected service (protections configured away,
#      pipelining 100) at BENCH_OVERLOAD x
#   5. prints one row per run (steady-state goodput / capacity is the headline) and writes target/bench/index.html:
#      the overload curve, every run's goodput per second, and one report.html per run
#   6. BENCH_JMH=1 only: the JMH bcrypt verify benchmark pinned like the service
#
# Duration (defaults, 2 cores): build ~1.5 min + stack ~0.2 min + capacity ~0.6 min + 9 points x 72 s (+ ~7 s each
# for seeding that point's devices, the generator's JVM start and the settle pause) + one service restart with
# warm-up ~0.3 min = about 14-15 minutes. Every run stops by itself (--duration).
#
# Point length: the first timeouts come at request_timeout + 0.5 s; 72 s leaves 5 retry periods (5 x 12 s) after
# them, and a steady-state window (22 s .. end) of 50 s. BENCH_POINT_DURATION shortens it for a quick look (the
# windows are then clamped and say so).
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
# BENCH_ONLY [all points; e.g. "protected-8x unprotected-8x" runs just those], SKIP_BUILD [0], AUTH_JAR and
# LOADTEST_JAR [the built jars; point them at copies to bench a fixed build].
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"

: "${PG_PORT:=55434}" "${PGBOUNCER_PORT:=56434}" "${AUTH_PORT:=8091}"
: "${STACK_DIR:=$ROOT/.local/bench}" "${BENCH_OUT:=$ROOT/target/bench}"
: "${BENCH_POINT_DURATION:=${BENCH_DURATION:-72s}}" "${BENCH_CAPACITY_DURATION:=20s}"
: "${BENCH_LOADS:=1 2 4 8 12}" "${BENCH_OVERLOAD:=8}" "${BENCH_STEP_AT:=20s}" "${BENCH_SETTLE:=3}"
: "${BENCH_DEVICES:=}" "${BENCH_REQUEST_TIMEOUT:=10s}" "${BENCH_AUTH_CPUS:=0}" "${BENCH_LOAD_CPUS:=1}"
: "${BENCH_JMH:=0}" "${BENCH_ONLY:=}"
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
RUN_DIR=$STACK_DIR/run
LOG_DIR=$STACK_DIR/log
AUTH_PID_FILE=$RUN_DIR/bench-auth-service.pid
# One shared password: each population is seeded with one hash (verifying it costs exactly what any cost-10 hash
# costs), so 20 000 devices are registered in seconds instead of 20 minutes of pgcrypto.
PASSWORD=bench-password

log() { printf '[bench] %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }
# The stack script runs PostgreSQL/PgBouncer; pinning it pins them (children inherit the CPU affinity).
stack() { taskset -c "$BENCH_LOAD_CPUS" "$ROOT/scripts/stack.sh" "$@" dev; }
loadtest() { taskset -c "$BENCH_TOOL_CPUS" java -Xmx1g -jar "$LOADTEST_JAR" "$@"; }

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
selected() { [[ -z "$BENCH_ONLY" || " $BENCH_ONLY " == *" $1 "* ]]; }

stop_auth() {
  if [[ -f "$AUTH_PID_FILE" ]]; then
    local pid
    pid=$(cat "$AUTH_PID_FILE")
    if kill -0 "$pid" 2>/dev/null; then
      kill -TERM "$pid" 2>/dev/null || true
      for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
      kill -KILL "$pid" 2>/dev/null || true
    fi
    rm -f "$AUTH_PID_FILE"
  fi
}

cleanup() {
  stop_auth
  stack db-down >/dev/null 2>&1 || true
}
trap cleanup EXIT

# Starts auth-service pinned to its core with the given extra environment (KEY=VALUE ...).
start_auth() {
  local name=$1
  shift
  stop_auth
  mkdir -p "$RUN_DIR" "$LOG_DIR"
  log "starting auth-service ($name) on 127.0.0.1:$AUTH_PORT, pinned to CPU $BENCH_AUTH_CPUS"
  (
    export IDENTITY_DB_HOST=127.0.0.1 IDENTITY_DB_PORT=$PGBOUNCER_PORT IDENTITY_DB_NAME=$DB_NAME
    export IDENTITY_DB_USER=$AUTH_DB_USER IDENTITY_DB_PASSWORD=$AUTH_DB_PASSWORD IDENTITY_SCHEMA_PORT=$PG_PORT
    export IDENTITY_SCHEMA_MIGRATE=true IDENTITY_SCHEMA_USER=$DB_USER IDENTITY_SCHEMA_PASSWORD=$DB_PASSWORD
    export IDENTITY_AUTH_DB_USER=$AUTH_DB_USER IDENTITY_AUTH_FAST_PATH_KEYS=$BENCH_FAST_PATH_KEYS
    export AUTH_HOST=127.0.0.1 AUTH_PORT=$AUTH_PORT
    # One line per answer would cost the pinned core more than some answers do.
    export QUARKUS_LOG_CATEGORY__IO_DEVICEIDENTITY_OUTCOME__LEVEL=WARN
    exec env "$@" taskset -c "$BENCH_AUTH_CPUS" java -Xmx512m -jar "$AUTH_JAR"
  ) >"$LOG_DIR/auth-service-$name.log" 2>&1 &
  echo $! >"$AUTH_PID_FILE"
  for _ in $(seq 1 240); do
    curl -fsS "http://127.0.0.1:$AUTH_PORT/q/health/ready" >/dev/null 2>&1 && return 0
    kill -0 "$(cat "$AUTH_PID_FILE")" 2>/dev/null || { tail -n 30 "$LOG_DIR/auth-service-$name.log" >&2; die "auth-service exited"; }
    sleep 0.5
  done
  die "auth-service did not become ready (log: $LOG_DIR/auth-service-$name.log)"
}

auth_alive() { [[ -f "$AUTH_PID_FILE" ]] && kill -0 "$(cat "$AUTH_PID_FILE")" 2>/dev/null; }

# Options every run shares; the device population (prefix, size) is per point.
COMMON=(--url "http://127.0.0.1:$AUTH_PORT/mqtt/authn"
        --shared-password "$PASSWORD" --request-timeout "$BENCH_REQUEST_TIMEOUT"
        --pg-url "jdbc:postgresql://127.0.0.1:$PG_PORT/$DB_NAME"
        --pgbouncer-admin-url "jdbc:postgresql://127.0.0.1:$PGBOUNCER_PORT/pgbouncer"
        --db-user "$DB_USER" --db-password "$DB_PASSWORD" --db-name "$DB_NAME")

# Seeds population bench-<name>-1..<count> (one shared hash: a few thousand rows per second).
seed() {
  loadtest seed --devices "$2" --device-prefix "bench-$1-" --shared-password "$PASSWORD" \
    --pg-url "jdbc:postgresql://127.0.0.1:$PG_PORT/$DB_NAME" --db-user "$DB_USER" --db-password "$DB_PASSWORD" \
    >/dev/null 2>"$LOG_DIR/seed-$1.log" || { cat "$LOG_DIR/seed-$1.log" >&2; die "seeding bench-$1- failed"; }
}

# Devices a point needs: every arrival takes an idle device (failed ones wait to retry, allowed ones stay
# connected), so arrivals/s x duration, plus a quarter for the Poisson spread; BENCH_DEVICES fixes the number.
devices_for() {
  local peak=$1 duration_s
  duration_s=$(awk -v d="$BENCH_POINT_DURATION" 'BEGIN { if (d ~ /ms$/) print int(d / 1000); else if (d ~ /m$/) print d * 60; else print d + 0 }')
  if [[ -n "$BENCH_DEVICES" ]]; then echo "$BENCH_DEVICES"; return; fi
  awk -v r="$peak" -v d="$duration_s" 'BEGIN { n = int(r * d * 1.25) + 1; if (n < 2000) n = 2000; print n }'
}

# A just-started JVM runs bcrypt interpreted; every service start gets the same short warm-up before it is measured.
warm_up() {
  loadtest run "${COMMON[@]}" --devices "$CAPACITY_DEVICES" --device-prefix bench-capacity- --closed-loop 2 --pool-size 2 --pipelining 1 \
    --duration 6s --service-metrics none --out "$BENCH_OUT/warmup-$1" --label "warm-up" --progress none >/dev/null
}

# Runs one point: name pool pipelining retry factor [step-factor]. Progress lines go to the run's log.
point() {
  local name=$1 pool=$2 pipelining=$3 retry=$4 factor=$5 step=${6:-}
  local rate peak devices step_args=()
  rate=$(awk -v c="$capacity" -v f="$factor" 'BEGIN { r = c * f; if (r < 0.5) r = 0.5; printf "%.1f", r }')
  peak=$rate
  if [[ -n "$step" ]]; then
    peak=$(awk -v c="$capacity" -v f="$step" 'BEGIN { r = c * f; if (r < 0.5) r = 0.5; printf "%.1f", r }')
    step_args=(--step-at "$BENCH_STEP_AT" --step-rate "$peak")
  fi
  devices=$(devices_for "$peak")
  seed "$name" "$devices"
  auth_alive || die "auth-service is not running before $name (log: $LOG_DIR)"
  log "$name: $rate arrivals/s (${factor}x${step:+, ${step}x from $BENCH_STEP_AT}) for $BENCH_POINT_DURATION, pool $pool x pipelining $pipelining, retry $retry"
  loadtest run "${COMMON[@]}" --devices "$devices" --device-prefix "bench-$name-" --rate "$rate" "${step_args[@]}" \
    --pool-size "$pool" --pipelining "$pipelining" --retry "$retry" --duration "$BENCH_POINT_DURATION" \
    --capacity "$capacity" --out "$BENCH_OUT/$name" --label "$name" --progress lines 2>"$LOG_DIR/loadtest-$name.log" \
    || { tail -n 20 "$LOG_DIR/loadtest-$name.log" >&2; die "$name failed"; }
  RUNS+=(--run "$name=$BENCH_OUT/$name/summary.json")
}

# --- 1. build -----------------------------------------------------------------------------------------------
started=$(date +%s)
modules=auth-service,loadtest
[[ "$BENCH_JMH" == 1 ]] && modules+=,benchmarks/bcrypt
if [[ "${SKIP_BUILD:-0}" != 1 ]]; then
  log "building $modules (mvn package -DskipTests)"
  mvn -B -q -pl "$modules" -am package -DskipTests || die "build failed"
fi
for jar in "$AUTH_JAR" "$LOADTEST_JAR"; do [[ -f "$jar" ]] || die "$jar is missing"; done
[[ "$BENCH_JMH" != 1 || -f "$JMH_JAR" ]] || die "$JMH_JAR is missing"
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

# --- 3. capacity --------------------------------------------------------------------------------------------
# The closed loop cycles through its devices; 2000 keep each one far below the per-device limit (10 a minute).
CAPACITY_DEVICES=${BENCH_DEVICES:-2000}
start_auth protected "${PROTECTED[@]}"
seed capacity "$CAPACITY_DEVICES"
warm_up protected
log "capacity: closed loop, 4 callers, pipelining 1, $BENCH_CAPACITY_DURATION (first 5 s not counted)"
loadtest run "${COMMON[@]}" --devices "$CAPACITY_DEVICES" --device-prefix bench-capacity- --closed-loop 4 --pool-size 4 --pipelining 1 \
  --duration "$BENCH_CAPACITY_DURATION" --warmup 5s --out "$BENCH_OUT/capacity" --label capacity \
  --progress lines 2>"$LOG_DIR/loadtest-capacity.log"
# summary.json's first "goodput" is steady_state.goodput: for a closed loop, the counted run after its warm-up.
capacity=$(grep -o '"goodput" : [0-9.]*' "$BENCH_OUT/capacity/summary.json" | head -n 1 | awk '{print $3}')
awk -v c="$capacity" 'BEGIN { exit !(c > 0) }' || die "capacity run got no allows (log: $LOG_DIR/loadtest-capacity.log)"
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
stop_auth

# --- 5. the table -------------------------------------------------------------------------------------------
stack db-down >/dev/null 2>&1 || true
echo
echo "Overload curve: auth-service on CPU $BENCH_AUTH_CPUS, EMQX request_timeout $BENCH_REQUEST_TIMEOUT," \
  "$BENCH_POINT_DURATION per point; protected = defaults + 8 connections x pipelining 1 (pool-64: 64 connections);" \
  "unprotected = protections off by configuration + pipelining 100; devices retry fixed:12s, or backoff:1s..60s" \
  "with full jitter; step = 1x, then ${BENCH_OVERLOAD}x from $BENCH_STEP_AT"
echo
(( ${#RUNS[@]} > 0 )) || die "BENCH_ONLY selected no point"
java -jar "$LOADTEST_JAR" compare --capacity "$BENCH_OUT/capacity/summary.json" "${RUNS[@]}" --out "$BENCH_OUT" \
  | tee "$BENCH_OUT/table.txt"

# --- 6. bcrypt verify, one core (opt-in) --------------------------------------------------------------------
if [[ "$BENCH_JMH" == 1 ]]; then
  echo
  log "JMH: one bcrypt verify at cost 10 per implementation, pinned to CPU $BENCH_AUTH_CPUS"
  taskset -c "$BENCH_AUTH_CPUS" java -jar "$JMH_JAR" -rf json -rff "$BENCH_OUT/bcrypt-jmh.json" \
    >"$BENCH_OUT/bcrypt-jmh.log" 2>&1 || { tail -n 30 "$BENCH_OUT/bcrypt-jmh.log" >&2; die "JMH failed"; }
  echo "bcrypt verify, cost 10, one core (JMH average time; 1000 / ms = checks per second per core):"
  sed -n '/^Benchmark /,$p' "$BENCH_OUT/bcrypt-jmh.log"
fi

echo
echo "Reports: $BENCH_OUT/index.html (table, overload curve, goodput per second), one report.html per run under $BENCH_OUT/<run>/"
echo "Total time: $(( $(date +%s) - started )) s"
