#!/usr/bin/env bash
# `make bench`: the incident replay and the bcrypt micro-benchmark. Prints figures; asserts nothing.
#
#   1. builds auth-service, the load generator and the JMH benchmark (SKIP_BUILD=1 to reuse the jars)
#   2. starts its own PostgreSQL + PgBouncer (own ports and STACK_DIR, never those of `make up` or `make test`),
#      pinned to the CPUs in BENCH_LOAD_CPUS together with the load generator
#   3. starts auth-service pinned to BENCH_AUTH_CPUS (default: one core) and measures its capacity with a
#      closed loop that never overloads it
#   4. replays the incident at BENCH_OVERLOAD x capacity with devices retrying on a fixed 12 s timer, twice:
#      protections switched off by configuration (and EMQX pipelining 100), then the defaults (pipelining 1);
#      then the protected service once more with devices using exponential backoff + full jitter, and once behind
#      64 EMQX connections instead of 8 (so that the queue is inside the service: see README, "Load tests and
#      benchmarks")
#   5. prints the side-by-side table and writes target/bench/index.html (+ one report per run)
#   6. runs the JMH bcrypt verify benchmark pinned like the service
#
# Environment (defaults in brackets): PG_PORT [55434], PGBOUNCER_PORT [56434], AUTH_PORT [8091],
# STACK_DIR [.local/bench], BENCH_OUT [target/bench], BENCH_DURATION [35s], BENCH_CAPACITY_DURATION [20s],
# BENCH_OVERLOAD [8], BENCH_DEVICES [20000], BENCH_REQUEST_TIMEOUT [10s, the incident's and the chart's],
# BENCH_AUTH_CPUS [0], BENCH_LOAD_CPUS [1], BENCH_TOOL_CPUS [= BENCH_LOAD_CPUS], BENCH_JMH [1; 0 skips it],
# SKIP_BUILD [0].
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"

: "${PG_PORT:=55434}" "${PGBOUNCER_PORT:=56434}" "${AUTH_PORT:=8091}"
: "${STACK_DIR:=$ROOT/.local/bench}" "${BENCH_OUT:=$ROOT/target/bench}"
: "${BENCH_DURATION:=35s}" "${BENCH_CAPACITY_DURATION:=20s}" "${BENCH_OVERLOAD:=8}" "${BENCH_DEVICES:=20000}"
: "${BENCH_REQUEST_TIMEOUT:=10s}" "${BENCH_AUTH_CPUS:=0}" "${BENCH_LOAD_CPUS:=1}" "${BENCH_JMH:=1}"
# The load generator runs beside the database by default; on a machine shared with other work, BENCH_TOOL_CPUS=0,1
# lets it float (its own lag, reported in the table, shows whether it kept up).
: "${BENCH_TOOL_CPUS:=$BENCH_LOAD_CPUS}"
: "${DB_USER:=identity}" "${DB_PASSWORD:=identity-local-dev}" "${DB_NAME:=identity}"
export PG_PORT PGBOUNCER_PORT STACK_DIR DB_USER DB_PASSWORD DB_NAME

AUTH_JAR=$ROOT/auth-service/target/quarkus-app/quarkus-run.jar
LOADTEST_JAR=$ROOT/loadtest/target/loadtest.jar
JMH_JAR=$ROOT/benchmarks/bcrypt/target/bcrypt-bench.jar
RUN_DIR=$STACK_DIR/run
LOG_DIR=$STACK_DIR/log
AUTH_PID_FILE=$RUN_DIR/bench-auth-service.pid
PREFIX=bench-device-
# One shared password: the population is seeded with one hash (verifying it costs exactly what any cost-10 hash
# costs), so 20 000 devices are registered in a second instead of 20 minutes of pgcrypto.
PASSWORD=bench-password

log() { printf '[bench] %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }
# The stack script runs PostgreSQL/PgBouncer; pinning it pins them (children inherit the CPU affinity).
stack() { taskset -c "$BENCH_LOAD_CPUS" "$ROOT/scripts/stack.sh" "$@" dev; }
loadtest() { taskset -c "$BENCH_TOOL_CPUS" java -Xmx1g -jar "$LOADTEST_JAR" "$@"; }

command -v taskset >/dev/null || die "taskset (util-linux) is needed to pin the service to its core"
command -v curl >/dev/null || die "curl is needed"
(( $(nproc) >= 2 )) || log "warning: fewer than 2 CPUs; the service and the load share a core"

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
  log "starting auth-service ($name) on 127.0.0.1:$AUTH_PORT, pinned to CPU $BENCH_AUTH_CPUS"
  (
    export IDENTITY_DB_HOST=127.0.0.1 IDENTITY_DB_PORT=$PGBOUNCER_PORT IDENTITY_DB_NAME=$DB_NAME
    export IDENTITY_DB_USER=$DB_USER IDENTITY_DB_PASSWORD=$DB_PASSWORD IDENTITY_SCHEMA_PORT=$PG_PORT
    export IDENTITY_SCHEMA_MIGRATE=true AUTH_HOST=127.0.0.1 AUTH_PORT=$AUTH_PORT
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

COMMON=(--url "http://127.0.0.1:$AUTH_PORT/mqtt/authn" --devices "$BENCH_DEVICES" --device-prefix "$PREFIX"
        --shared-password "$PASSWORD" --request-timeout "$BENCH_REQUEST_TIMEOUT"
        --pg-url "jdbc:postgresql://127.0.0.1:$PG_PORT/$DB_NAME"
        --pgbouncer-admin-url "jdbc:postgresql://127.0.0.1:$PGBOUNCER_PORT/pgbouncer"
        --db-user "$DB_USER" --db-password "$DB_PASSWORD" --db-name "$DB_NAME")

# A just-started JVM runs bcrypt interpreted; every service start gets the same short warm-up before it is measured.
warm_up() {
  loadtest run "${COMMON[@]}" --closed-loop 2 --pool-size 2 --pipelining 1 --duration 6s \
    --out "$BENCH_OUT/warmup-$1" --label "warm-up" --progress none >/dev/null
}

# --- 1. build -----------------------------------------------------------------------------------------------
started=$(date +%s)
if [[ "${SKIP_BUILD:-0}" != 1 ]]; then
  log "building auth-service, loadtest and bcrypt-bench (mvn package -DskipTests)"
  mvn -B -q -pl auth-service,loadtest,benchmarks/bcrypt -am package -DskipTests || die "build failed"
fi
for jar in "$AUTH_JAR" "$LOADTEST_JAR" "$JMH_JAR"; do [[ -f "$jar" ]] || die "$jar is missing"; done
rm -rf "$BENCH_OUT"
mkdir -p "$BENCH_OUT"

# --- 2. database ----------------------------------------------------------------------------------------------
stack db-up >/dev/null
mkdir -p "$LOG_DIR"

# Protected: the service's defaults. Unprotected: the same build with every guard of the auth path configured
# away: no deadline, bcrypt on 64 threads with a queue of 100 000 (like hashing on request threads), no
# per-device limit, no circuit breaker, a 100-connection pool with a long acquisition timeout.
PROTECTED=()
UNPROTECTED=(IDENTITY_OVERLOAD_DEADLINE=3600s IDENTITY_OVERLOAD_BCRYPT_CONCURRENCY=64
             IDENTITY_OVERLOAD_BCRYPT_QUEUE=100000 IDENTITY_AUTH_RATE_LIMIT_ENABLED=false
             QUARKUS_FAULT_TOLERANCE_ENABLED=false QUARKUS_DATASOURCE_JDBC_MAX_SIZE=100
             QUARKUS_DATASOURCE_JDBC_ACQUISITION_TIMEOUT=60S)

# --- 3. capacity --------------------------------------------------------------------------------------------
start_auth capacity "${PROTECTED[@]}"
log "seeding ${PREFIX}1..$BENCH_DEVICES"
loadtest seed --devices "$BENCH_DEVICES" --device-prefix "$PREFIX" --shared-password "$PASSWORD" \
  --pg-url "jdbc:postgresql://127.0.0.1:$PG_PORT/$DB_NAME" --db-user "$DB_USER" --db-password "$DB_PASSWORD"
warm_up capacity
log "capacity: closed loop, 4 callers, pipelining 1, $BENCH_CAPACITY_DURATION (first 5 s not counted)"
loadtest run "${COMMON[@]}" --closed-loop 4 --pool-size 4 --pipelining 1 --duration "$BENCH_CAPACITY_DURATION" \
  --warmup 5s --out "$BENCH_OUT/capacity" --label capacity
# The first "goodput" in summary.json is the run's total (the per-second series comes after it).
capacity=$(grep -o '"goodput" : [0-9.]*' "$BENCH_OUT/capacity/summary.json" | head -n 1 | awk '{print $3}')
rate=$(awk -v c="$capacity" -v f="$BENCH_OVERLOAD" 'BEGIN { r = c * f; if (r < 1) r = 1; printf "%.0f", r }')
log "capacity $capacity allows/s -> offered arrival rate $rate/s (${BENCH_OVERLOAD}x)"

# --- 4. the incident, three ways ----------------------------------------------------------------------------
storm() {
  local name=$1 pool=$2 pipelining=$3 retry=$4
  shift 4
  start_auth "$name" "$@"
  warm_up "$name"
  log "$name: $rate arrivals/s for $BENCH_DURATION, pool $pool x pipelining $pipelining, retry $retry"
  loadtest run "${COMMON[@]}" --rate "$rate" --pool-size "$pool" --pipelining "$pipelining" --retry "$retry" \
    --duration "$BENCH_DURATION" --out "$BENCH_OUT/$name" --label "$name"
  stop_auth
}
storm unprotected 8 100 fixed:12s "${UNPROTECTED[@]}"
storm protected 8 1 fixed:12s "${PROTECTED[@]}"
storm protected-backoff 8 1 backoff:1s..60s "${PROTECTED[@]}"
storm protected-pool-64 64 1 fixed:12s "${PROTECTED[@]}"

# --- 5. the table -------------------------------------------------------------------------------------------
stack db-down >/dev/null 2>&1 || true
echo
echo "Incident replay: auth-service on CPU $BENCH_AUTH_CPUS, offered ${BENCH_OVERLOAD}x capacity, EMQX request_timeout" \
  "$BENCH_REQUEST_TIMEOUT, $BENCH_DURATION per run (unprotected = protections off by configuration + pipelining 100;" \
  "protected = defaults + pipelining 1; devices retry fixed:12s, or backoff:1s..60s with full jitter;" \
  "the last column is the protected service behind 64 EMQX connections instead of 8)"
echo
java -jar "$LOADTEST_JAR" compare --capacity "$BENCH_OUT/capacity/summary.json" \
  --run "unprotected=$BENCH_OUT/unprotected/summary.json" \
  --run "protected=$BENCH_OUT/protected/summary.json" \
  --run "protected-backoff=$BENCH_OUT/protected-backoff/summary.json" \
  --run "protected-pool-64=$BENCH_OUT/protected-pool-64/summary.json" \
  --out "$BENCH_OUT" | tee "$BENCH_OUT/table.txt"

# --- 6. bcrypt verify, one core -----------------------------------------------------------------------------
if [[ "$BENCH_JMH" == 1 ]]; then
  echo
  log "JMH: one bcrypt verify at cost 10 per implementation, pinned to CPU $BENCH_AUTH_CPUS"
  taskset -c "$BENCH_AUTH_CPUS" java -jar "$JMH_JAR" -rf json -rff "$BENCH_OUT/bcrypt-jmh.json" \
    >"$BENCH_OUT/bcrypt-jmh.log" 2>&1 || { tail -n 30 "$BENCH_OUT/bcrypt-jmh.log" >&2; die "JMH failed"; }
  echo "bcrypt verify, cost 10, one core (JMH average time; 1000 / ms = checks per second per core):"
  sed -n '/^Benchmark /,$p' "$BENCH_OUT/bcrypt-jmh.log"
fi

echo
echo "Reports: $BENCH_OUT/index.html (table + goodput chart), one report.html per run under $BENCH_OUT/<run>/"
echo "Total time: $(( $(date +%s) - started )) s"
