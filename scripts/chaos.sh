#!/usr/bin/env bash
# `make chaos`: real faults and hostile input under a steady mixed load, one fault at a time, on its own stack
# (STACK_DIR .local/chaos, PostgreSQL 55435, PgBouncer 56435, auth-service 8093, registration-service 8094: never
# what `make up`, `make test` or `make bench` run). Prints a table and writes target/chaos/summary.json and
# report.html. About 6-8 minutes on 2 cores (build included unless SKIP_BUILD=1).
#
# Load (scripts/chaos/probe.py, all the time): known devices reconnecting and new devices logging in against
# auth-service, and a stream of PUT, PUT, DELETE per client id against registration-service whose answers are all
# recorded. Faults, each in its own window with the load running: PgBouncer SIGKILL (restart after 10 s);
# PostgreSQL pg_ctl -m immediate (restart after 10 s); PostgreSQL SIGSTOP 15 s then SIGCONT; PgBouncer's
# max_client_conn taken by another client for 15 s; registration-service SIGKILL mid-burst then restart;
# auth-service SIGTERM under load then restart; a registration burst during a login storm. Then the adversary
# (scripts/chaos/adversary.py: lockout of known devices, a wrong-password spray, a flood of invented ids, wrong passwords
# for rows of bcrypt cost 14 under CPU contention and the cold logins' recovery after it; run it alone with
# CHAOS_ONLY=adversary), many devices behind one address (scripts/chaos/nat.py; alone with CHAOS_ONLY=nat), live
# abuse (scripts/chaos/abuse.py) and a search of every log for every secret of the run. scripts/chaos/analyse.py computes the table from the recorded answers and the database.
#
# The failover phase runs only when named (CHAOS_ONLY=failover; it needs the replicated database, so it runs alone):
# the database is then three PostgreSQL members under Patroni behind HAProxy (scripts/stack-ha.sh; ports HA_PG_PORTS
# [55451-55453], HA_REST_PORTS [58451-58453], ETCD_PORT/ETCD_PEER_PORT [52451/52452], HA_PROXY_PORT [55450],
# HA_STANDBY_PORT [55454]) and auth-service reads from the synchronous standby under identity-core StandbyReads' rule.
# Under the probe's load, a login storm, revoked devices presenting their old password and cold logins
# (scripts/chaos/failover.py), the leader is SIGKILLed (Patroni and postmaster), later the new leader too, then both
# come back; analyse.py judges it (docs/database-ha.md).
#
# Environment: PG_PORT, PGBOUNCER_PORT, AUTH_PORT, REGISTRATION_PORT, STACK_DIR, CHAOS_OUT [target/chaos],
# SKIP_BUILD [0], CHAOS_ONLY [all faults; e.g. "pgbouncer-kill postgres-freeze", "adversary", "abuse"], CHAOS_DEVICES [200],
# CHAOS_RECOVERY_GOAL [5 s], CHAOS_IDLE [5000], CHAOS_MEMORY_LIMIT_MIB [512], CHAOS_AUTH_CPUS [0] and CHAOS_LOAD_CPUS [1]
# (the adversary phase's split of the cores; "none" keeps everything unpinned), CHAOS_DATABASE_NICE [-5] (the
# database's and PgBouncer's nice value during the adversary), CHAOS_CGROUP [auto; none: the services run in this
# shell's cgroup] and CHAOS_SERVICE_SHARES [1024 x cores] (each service's cgroup, as a pod's; see start_service).
# Exits 1 when a promise is broken.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
: "${PG_PORT:=55435}" "${PGBOUNCER_PORT:=56435}" "${AUTH_PORT:=8093}" "${REGISTRATION_PORT:=8094}"
: "${STACK_DIR:=$ROOT/.local/chaos}" "${CHAOS_OUT:=$ROOT/target/chaos}" "${CHAOS_ONLY:=}" "${CHAOS_DEVICES:=200}"
# The promises' numbers: recovery after each database repair, idle connections held open, and the resident memory
# a service may reach during the abuse (the chart's memory limit for a service container).
: "${CHAOS_RECOVERY_GOAL:=5}" "${CHAOS_IDLE:=5000}" "${CHAOS_MEMORY_LIMIT_MIB:=512}"
# The adversary phase runs auth-service alone on CHAOS_AUTH_CPUS (a pod of that many cores) and everything else (the
# database, PgBouncer, registration-service, the probe, the attackers and the legitimate devices' generator) on
# CHAOS_LOAD_CPUS, as make bench does: in production the attacker's CPU is not the pod's, and on 2 shared cores the
# attackers' own Python took the CPU that bcrypt (SCHED_IDLE) needed, so the spray and flood verdicts measured the
# generator more than the service (docs/faults.md, "The adversary").
# PostgreSQL and PgBouncer run at nice CHAOS_DATABASE_NICE meanwhile, above the generator and registration-service's
# bcrypt on that core: in production the database has CPU of its own, and at the same priority the generator slowed
# its steps past the lane's 25 ms allowance, which refused the known devices' reads as "stalled"; a generator niced
# below everything instead starved the legitimate devices it also runs (docs/faults.md).
: "${CHAOS_AUTH_CPUS:=0}" "${CHAOS_LOAD_CPUS:=1}" "${CHAOS_DATABASE_NICE:=-5}"
: "${CHAOS_CGROUP:=auto}" "${CHAOS_SERVICE_SHARES:=$(( 1024 * $(nproc) ))}"
# The login storm the registration burst meets: known devices at this rate (allows/s), on the fast path.
: "${CHAOS_STORM_RATE:=200}"
# The failover phase: its login storm's rate (known devices, fast path), and the goal for the time from a leader's
# SIGKILL to the first cold login allowed (Patroni's ttl 10 s + loop_wait 2 s, HAProxy's 1 s check, the breaker).
: "${CHAOS_FAILOVER_STORM_RATE:=100}" "${CHAOS_FAILOVER_GOAL:=15}"
: "${DB_USER:=identity}" "${DB_PASSWORD:=identity-local-dev}" "${DB_NAME:=identity}"
: "${AUTH_DB_USER:=identity_auth}" "${AUTH_DB_PASSWORD:=identity-auth-local-dev}"
export PG_PORT PGBOUNCER_PORT STACK_DIR DB_USER DB_PASSWORD DB_NAME AUTH_DB_USER AUTH_DB_PASSWORD
# Phases that run only when CHAOS_ONLY names them.
named() { [[ " $CHAOS_ONLY " == *" $1 "* ]]; }
STANDBY_ENV=()
if named failover; then
  : "${HA_PG_PORTS:=55451 55452 55453}" "${HA_REST_PORTS:=58451 58452 58453}" "${ETCD_PORT:=52451}" "${ETCD_PEER_PORT:=52452}"
  : "${HA_PROXY_PORT:=55450}" "${HA_STANDBY_PORT:=55454}"
  # stack.sh then starts the replicated database, and PG_PORT (migrations, psql) is HAProxy's: the leader.
  export DB_HA=1 HA_PG_PORTS HA_REST_PORTS ETCD_PORT ETCD_PEER_PORT HA_PROXY_PORT HA_STANDBY_PORT
  export PG_PORT=$HA_PROXY_PORT
  STANDBY_ENV=(IDENTITY_DB_STANDBY_READS_ENABLED=true IDENTITY_DB_STANDBY_HOST=127.0.0.1
    IDENTITY_DB_STANDBY_PORT="$HA_STANDBY_PORT")
fi
# Secrets of this run only: random, so that a hit in a log can only come from this run.
TOKEN=chaos-token-$(head -c 18 /dev/urandom | base64 | tr -dc 'A-Za-z0-9')
FAST_PATH_KEY="chaos-1:$(head -c 32 /dev/urandom | base64)"
DEVICE_PASSWORD=chaos-device-$(head -c 12 /dev/urandom | base64 | tr -dc 'A-Za-z0-9')
RUN_DIR=$STACK_DIR/run
LOG_DIR=$STACK_DIR/log
EVENTS=$CHAOS_OUT/events.jsonl
FAULTS=$CHAOS_OUT/faults.jsonl
AUTH_JAR=$ROOT/auth-service/target/quarkus-app/quarkus-run.jar
REG_JAR=$ROOT/registration-service/target/quarkus-app/quarkus-run.jar
# The load generator reads the services' metrics for this script and adversary.py (its Prometheus parser, the one
# in the repository): loadtest metrics URL SELECTOR...
LOADTEST_JAR=$ROOT/loadtest/target/loadtest.jar
LOADTEST="java -Xmx64m -XX:TieredStopAtLevel=1 -jar $LOADTEST_JAR"
loadtest() { $LOADTEST "$@"; }

log() { printf '[chaos] %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }
stack() { "$ROOT/scripts/stack.sh" "$@" dev; }
faults() { "$ROOT/scripts/faults.sh" "$@" dev; }
now() { date +%s.%N; }
mark() { printf '{"fault":"%s","event":"%s","t":%s}\n' "$1" "$2" "$(now)" >>"$FAULTS"; }
ALL_FAULTS="pgbouncer-kill postgres-crash postgres-freeze pgbouncer-max-client-conn registration-sigkill auth-sigterm
  burst-during-storm"
selected() { [[ -z "$CHAOS_ONLY" || " $CHAOS_ONLY " == *" $1 "* ]]; }
expected_faults() {
  for f in $ALL_FAULTS; do selected "$f" && printf '%s ' "$f"; done
  named failover && printf 'failover '
  return 0
}
# The database path is TLS-only (scripts/stack.sh): every client verifies the stack's CA and the server's name.
DB_CA=$STACK_DIR/tls/ca.crt
psql_db() { PGSSLMODE=verify-full PGSSLROOTCERT=$DB_CA PGPASSWORD=$DB_PASSWORD psql -X -q -At -h 127.0.0.1 -p "$PG_PORT" -U "$DB_USER" -d "$DB_NAME" "$@"; }

# The command prefix that starts auth-service: empty, or taskset for the adversary phase (pin_for_adversary).
AUTH_LAUNCH=()
# Each service runs in a cgroup of its own, as each pod does (cpu.shares / cpu.weight: CHAOS_SERVICE_SHARES, a request
# of every core), and is scheduled against the database, the load and each other as one group. That is what keeps
# bcrypt's SCHED_IDLE threads (docs/overload.md) harmless: a JVM stops every thread at a safepoint (a GC, a deoptimised
# method) and waits until each running thread reaches one. In a cgroup of its own, an idle-policy thread is then the
# group's only runnable thread and gets the group's share at once; in the machine's root cgroup it waits for a core no
# normal task of any other process wants, and the whole service stood still for up to 0.65 s at a time while the
# database members restarted beside it (JVM safepoint log, "Reaching safepoint"), which its lanes then refused as
# this service's overload. Where no writable cgroup exists (or CHAOS_CGROUP=none) the services run in this shell's.
service_cgroup() { # name: prints the directory of its cgroup, made once; nothing without one
  local dir
  [[ "$CHAOS_CGROUP" != none ]] || return 0
  if [[ -w /sys/fs/cgroup/cpu && -f /sys/fs/cgroup/cpu/cpu.shares ]]; then
    dir=/sys/fs/cgroup/cpu/device-identity-chaos-$$-$1
    mkdir -p "$dir" 2>/dev/null && echo "$CHAOS_SERVICE_SHARES" >"$dir/cpu.shares" 2>/dev/null && echo "$dir"
  elif grep -qw cpu /sys/fs/cgroup/cgroup.subtree_control 2>/dev/null; then
    dir=/sys/fs/cgroup/device-identity-chaos-$$-$1
    # cpu.weight 100 is cpu.shares 1024.
    mkdir -p "$dir" 2>/dev/null && echo "$(( CHAOS_SERVICE_SHARES * 100 / 1024 ))" >"$dir/cpu.weight" 2>/dev/null \
      && echo "$dir"
  fi
  return 0
}
remove_service_cgroups() {
  local dir
  for dir in /sys/fs/cgroup/cpu/device-identity-chaos-$$-* /sys/fs/cgroup/device-identity-chaos-$$-*; do
    [[ -d "$dir" ]] || continue
    for _ in $(seq 1 50); do rmdir "$dir" 2>/dev/null && break; sleep 0.1; done
  done
  return 0
}
start_service() { # name port env...
  local name=$1 port=$2 jar attempt launch=() cgroup
  shift 2
  jar=$([[ $name == auth-service ]] && echo "$AUTH_JAR" || echo "$REG_JAR")
  [[ $name == auth-service ]] && launch=("${AUTH_LAUNCH[@]}")
  cgroup=$(service_cgroup "$name")
  # A service that exits while starting is started again, twice at most: on a machine busy with other work its first
  # connection (a SCRAM login, then Flyway) can outlast the pool's acquisition timeout, which is no fault under test.
  for attempt in 1 2 3; do
    (
      [[ -z "$cgroup" ]] || echo "$BASHPID" >"$cgroup/cgroup.procs" || log "NOTE: $name could not join $cgroup"
      export IDENTITY_DB_HOST=127.0.0.1 IDENTITY_DB_PORT=$PGBOUNCER_PORT IDENTITY_DB_NAME=$DB_NAME
      export IDENTITY_SCHEMA_PORT=$PG_PORT IDENTITY_DB_SSLMODE=verify-full IDENTITY_DB_SSLROOTCERT=$DB_CA
      exec env "$@" "${launch[@]}" java -Xmx384m -jar "$jar"
    ) >>"$LOG_DIR/$name.log" 2>&1 &
    echo $! >"$RUN_DIR/chaos-$name.pid"
    for _ in $(seq 1 240); do
      # Health is on the management interface: the main port + 1000 by default (docs/configuration.md).
      curl -fsS "http://127.0.0.1:$((port + 1000))/q/health/ready" >/dev/null 2>&1 && return 0
      kill -0 "$(cat "$RUN_DIR/chaos-$name.pid")" 2>/dev/null || break
      sleep 0.25
    done
    kill -0 "$(cat "$RUN_DIR/chaos-$name.pid")" 2>/dev/null && die "$name did not become ready"
    log "$name exited while starting (attempt $attempt of 3)"
  done
  tail -n 30 "$LOG_DIR/$name.log" >&2
  die "$name exited"
}
start_registration() {
  start_service registration-service "$REGISTRATION_PORT" REGISTRATION_PORT="$REGISTRATION_PORT" REGISTRATION_HOST=127.0.0.1 \
    IDENTITY_MANAGEMENT_HOST=127.0.0.1 \
    IDENTITY_SCHEMA_MIGRATE=true REGISTRATION_TOKENS="$TOKEN" IDENTITY_AUTH_DB_USER="$AUTH_DB_USER" \
    IDENTITY_DB_USER="$DB_USER" IDENTITY_DB_PASSWORD="$DB_PASSWORD" SHUTDOWN_DELAY=1S
}
start_auth() {
  start_service auth-service "$AUTH_PORT" AUTH_PORT="$AUTH_PORT" AUTH_HOST=127.0.0.1 IDENTITY_MANAGEMENT_HOST=127.0.0.1 IDENTITY_SCHEMA_MIGRATE=false \
    IDENTITY_DB_USER="$AUTH_DB_USER" IDENTITY_DB_PASSWORD="$AUTH_DB_PASSWORD" IDENTITY_AUTH_FAST_PATH_KEYS="$FAST_PATH_KEY" \
    SHUTDOWN_DELAY=2S "${STANDBY_ENV[@]}"
}
signal_service() { # name signal
  local pid
  pid=$(cat "$RUN_DIR/chaos-$1.pid")
  kill "-$2" "$pid" 2>/dev/null || true
  for _ in $(seq 1 200); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.1; done
  kill -KILL "$pid" 2>/dev/null || true
}
stop_all() {
  [[ -f "$CHAOS_OUT/stop" ]] || touch "$CHAOS_OUT/stop" 2>/dev/null || true
  for name in auth-service registration-service; do
    [[ -f "$RUN_DIR/chaos-$name.pid" ]] && kill -0 "$(cat "$RUN_DIR/chaos-$name.pid")" 2>/dev/null \
      && signal_service "$name" TERM
  done
  faults postgres-thaw >/dev/null 2>&1 || true
  stack db-down >/dev/null 2>&1 || true
  remove_service_cgroups
}
trap stop_all EXIT
# Moves a process and every thread of it, and its children (PostgreSQL's backends), onto CPUS.
pin_tree() { # pid cpus
  local child
  [[ -n "$1" ]] && kill -0 "$1" 2>/dev/null || return 0
  taskset -a -p -c "$2" "$1" >/dev/null 2>&1 || true
  for child in $(pgrep -P "$1" || true); do pin_tree "$child" "$2"; done
}
# The adversary phase's layout (CHAOS_AUTH_CPUS, CHAOS_LOAD_CPUS above): auth-service restarted on its own cores,
# so that the JVM sizes itself (bcrypt threads, event loops) for them as in a pod, and everything else moved off them.
pin_for_adversary() {
  if [[ "$CHAOS_AUTH_CPUS" == none || "$CHAOS_LOAD_CPUS" == none ]] || ! command -v taskset >/dev/null; then
    log "NOTE: the adversary runs unpinned (CHAOS_AUTH_CPUS=none or no taskset): attackers and services share the cores"
    return 0
  fi
  taskset -c "$CHAOS_AUTH_CPUS" true 2>/dev/null && taskset -c "$CHAOS_LOAD_CPUS" true 2>/dev/null \
    || die "CHAOS_AUTH_CPUS=$CHAOS_AUTH_CPUS or CHAOS_LOAD_CPUS=$CHAOS_LOAD_CPUS names a CPU this machine does not have"
  log "adversary layout: auth-service on CPU $CHAOS_AUTH_CPUS, everything else on CPU $CHAOS_LOAD_CPUS"
  pin_layout "$CHAOS_LOAD_CPUS"
  database_nice "$CHAOS_DATABASE_NICE" || log "NOTE: could not renice the database to $CHAOS_DATABASE_NICE (needs root)"
  signal_service auth-service TERM
  AUTH_LAUNCH=(taskset -c "$CHAOS_AUTH_CPUS")
  start_auth
  ADVERSARY_PINNED=1
}
# PostgreSQL (the postmaster and its backends; later backends inherit it) and PgBouncer at nice N.
database_nice() { # n
  local pid pids
  pids="$(head -n 1 "$STACK_DIR/pg/postmaster.pid" 2>/dev/null) $(cat "$RUN_DIR/pgbouncer.pid" 2>/dev/null)"
  for pid in $pids; do pids="$pids $(pgrep -P "$pid" || true)"; done
  # shellcheck disable=SC2086 # one pid a word
  renice -n "$1" -p $pids >/dev/null 2>&1
}
# Every process of the run (this shell and its children: the services, the probe; the database and PgBouncer) onto CPUS.
pin_layout() { # cpus
  pin_tree "$(head -n 1 "$STACK_DIR/pg/postmaster.pid" 2>/dev/null)" "$1"
  pin_tree "$(cat "$RUN_DIR/pgbouncer.pid" 2>/dev/null)" "$1"
  pin_tree "$$" "$1"
}
# After the adversary every process may use every core again, so that the abuse that follows runs as before.
ADVERSARY_PINNED=
unpin_after_adversary() {
  [[ -n "$ADVERSARY_PINNED" ]] || return 0
  pin_layout "0-$(( $(nproc) - 1 ))"
  database_nice 0 || true
}

command -v curl >/dev/null || die "curl is needed"
command -v python3 >/dev/null || die "python3 is needed"
started=$(date +%s)
if [[ "${SKIP_BUILD:-0}" != 1 ]]; then
  log "building auth-service, registration-service and the load generator (mvn package -DskipTests)"
  mvn -B -q -pl auth-service,registration-service,loadtest -am package -DskipTests || die "build failed"
fi
[[ -f "$LOADTEST_JAR" ]] || die "$LOADTEST_JAR is missing (it reads the services' metrics)"
rm -rf "$CHAOS_OUT" "$LOG_DIR"
mkdir -p "$CHAOS_OUT" "$RUN_DIR" "$LOG_DIR"
stack db-up >/dev/null
log "registration-service on $REGISTRATION_PORT, auth-service on $AUTH_PORT, each in a cgroup of its own:" \
  "$(service_cgroup auth-service | grep -q . && echo "cpu.shares $CHAOS_SERVICE_SHARES" || echo "none (CHAOS_CGROUP=$CHAOS_CGROUP or none writable)")"
start_registration
start_auth

log "registering $CHAOS_DEVICES known devices"
python3 "$ROOT/scripts/chaos/abuse.py" register-known --port "$REGISTRATION_PORT" --token "$TOKEN" \
  --count "$CHAOS_DEVICES" --password "$DEVICE_PASSWORD" >"$CHAOS_OUT/known.txt" 2>>"$LOG_DIR/abuse.log"
[[ -s "$CHAOS_OUT/known.txt" ]] || die "no known device could be registered"

# Known devices are ones that have connected before: each logs in once (a bcrypt each, two at a time) so that its
# verifier is stored and the load below reconnects them as a storm would, on the fast path.
log "known devices log in once"
python3 "$ROOT/scripts/chaos/abuse.py" login-known --port "$AUTH_PORT" --known "$CHAOS_OUT/known.txt" \
  2>>"$LOG_DIR/abuse.log" || die "the known devices' first login failed"

if named failover; then
  # Revoked before any kill, through the API (204 each), after their verifier was stored: they must stay denied.
  head -n 30 "$CHAOS_OUT/known.txt" >"$CHAOS_OUT/revoked.txt"
  while read -r cid _; do
    [[ $(curl -s -o /dev/null -w '%{http_code}' -X DELETE -H "Authorization: Bearer $TOKEN" \
      "http://127.0.0.1:$REGISTRATION_PORT/v1/devices/$cid") == 204 ]] || die "revoking $cid was not answered 204"
  done <"$CHAOS_OUT/revoked.txt"
  tail -n +31 "$CHAOS_OUT/known.txt" >"$CHAOS_OUT/known-live.txt" && mv "$CHAOS_OUT/known-live.txt" "$CHAOS_OUT/known.txt"
  # Cold devices: registered, never logged in (the known devices' bcrypt string, written straight into the table).
  cold_prefix=chaos-failover-cold-$(date +%s)-
  known_hash=$(psql_db -c "SELECT password_hash FROM device_credentials WHERE client_id = 'chaos-known-0'")
  psql_db -c "INSERT INTO device_credentials (client_id, password_hash) SELECT '$cold_prefix' || g, '$known_hash'
    FROM generate_series(0, 1999) g"
  for i in $(seq 0 1999); do echo "$cold_prefix$i $DEVICE_PASSWORD"; done >"$CHAOS_OUT/failover-cold.txt"
fi

python3 "$ROOT/scripts/chaos/probe.py" --auth-port "$AUTH_PORT" --reg-port "$REGISTRATION_PORT" --token "$TOKEN" \
  --known "$CHAOS_OUT/known.txt" --out "$EVENTS" --stop "$CHAOS_OUT/stop" 2>"$LOG_DIR/probe.log" &
PROBE=$!
sleep 8
mark baseline start; sleep 1; mark baseline end

window() { # name: fault functions follow; a settle pause after each
  log "fault: $1"
}
if selected pgbouncer-kill; then
  window pgbouncer-kill; mark pgbouncer-kill fault; faults pgbouncer-kill 2>/dev/null
  sleep 10; mark pgbouncer-kill repair; stack pgbouncer-start >/dev/null 2>&1; mark pgbouncer-kill ready; sleep 12; mark pgbouncer-kill end
fi
if selected postgres-crash; then
  window postgres-crash; mark postgres-crash fault; faults postgres-crash 2>/dev/null
  sleep 10; mark postgres-crash repair; faults postgres-start >/dev/null 2>&1; mark postgres-crash ready; sleep 12; mark postgres-crash end
fi
if selected postgres-freeze; then
  window postgres-freeze; mark postgres-freeze fault; faults postgres-freeze 2>/dev/null
  sleep 15; mark postgres-freeze repair; faults postgres-thaw 2>/dev/null; mark postgres-freeze ready; sleep 12; mark postgres-freeze end
fi
if selected pgbouncer-max-client-conn; then
  window pgbouncer-max-client-conn
  python3 "$ROOT/scripts/chaos/abuse.py" hold-connections --port "$PGBOUNCER_PORT" --count 260 --seconds 15 \
    --mark "$FAULTS" --name pgbouncer-max-client-conn 2>>"$LOG_DIR/abuse.log"
  sleep 12; mark pgbouncer-max-client-conn end
fi
if selected registration-sigkill; then
  window registration-sigkill
  python3 "$ROOT/scripts/chaos/abuse.py" put-burst --port "$REGISTRATION_PORT" --token "$TOKEN" --count 300 \
    --out "$EVENTS" 2>>"$LOG_DIR/abuse.log" &
  burst=$!
  sleep 1.5; mark registration-sigkill fault; signal_service registration-service KILL
  wait "$burst" || true
  mark registration-sigkill repair; start_registration; sleep 5; mark registration-sigkill end
fi
if selected auth-sigterm; then
  window auth-sigterm; mark auth-sigterm fault; signal_service auth-service TERM
  mark auth-sigterm repair; start_auth; sleep 5; mark auth-sigterm end
fi
if selected burst-during-storm; then
  window burst-during-storm
  mark burst-during-storm storm-start
  python3 "$ROOT/scripts/chaos/abuse.py" login-storm --port "$AUTH_PORT" --known "$CHAOS_OUT/known.txt" --seconds 16 --rate "$CHAOS_STORM_RATE" \
    --out "$CHAOS_OUT/storm.jsonl" 2>>"$LOG_DIR/abuse.log" &
  storm=$!
  sleep 8; mark burst-during-storm fault
  python3 "$ROOT/scripts/chaos/abuse.py" put-burst --port "$REGISTRATION_PORT" --token "$TOKEN" --count 300 \
    --out "$EVENTS" 2>>"$LOG_DIR/abuse.log" || true
  mark burst-during-storm repair
  wait "$storm" || true
  mark burst-during-storm end
fi
# Waits (at most $2 s) until the replicated database has a leader and a synchronous standby.
await_sync_standby() { # label seconds
  local deadline=$((SECONDS + $2)) port
  while ((SECONDS < deadline)); do
    for port in $HA_REST_PORTS; do
      [[ $(curl -s -o /dev/null -w '%{http_code}' --max-time 2 --cacert "$DB_CA" "https://127.0.0.1:$port/sync") == 200 ]] \
        && return 0
    done
    sleep 0.5
  done
  log "$1: no synchronous standby within $2 s"
}
if named failover; then
  log "failover: the leader SIGKILLed, later the new leader too, then both back, under writes and a login storm"
  ha() { "$ROOT/scripts/stack-ha.sh" "$@"; }
  python3 "$ROOT/scripts/chaos/failover.py" --port "$AUTH_PORT" --revoked "$CHAOS_OUT/revoked.txt" \
    --cold "$CHAOS_OUT/failover-cold.txt" --out "$CHAOS_OUT/failover.jsonl" --stop "$CHAOS_OUT/stop" \
    2>>"$LOG_DIR/abuse.log" &
  python3 "$ROOT/scripts/chaos/abuse.py" login-storm --port "$AUTH_PORT" --known "$CHAOS_OUT/known.txt" --seconds 130 \
    --rate "$CHAOS_FAILOVER_STORM_RATE" --out "$CHAOS_OUT/storm.jsonl" 2>>"$LOG_DIR/abuse.log" &
  storm=$!
  sleep 10
  first=$(ha leader | cut -d' ' -f1)
  [[ -n "$first" ]] || die "the replicated database has no leader"
  mark failover fault; ha kill "$first"; log "failover: killed the leader $first"
  sleep 35
  second=$(ha leader | cut -d' ' -f1)
  [[ -n "$second" ]] || log "failover: no new leader 35 s after the kill"
  mark failover second-kill; [[ -z "$second" ]] || ha kill "$second"; log "failover: killed the new leader ${second:-none}"
  sleep 30
  mark failover repair; ha start "$first"; [[ -z "$second" ]] || ha start "$second"
  log "failover: $first and ${second:-nobody} started again"
  await_sync_standby failover 120
  mark failover ready; sleep 15; mark failover end
  wait "$storm" || true
  ha list >"$CHAOS_OUT/failover-members.txt" 2>&1 || true
fi
if selected adversary; then
  log "adversary: lockout of 50 known devices, a spray over 2000 registered ids, a flood of invented ids, 20 cost-14 rows"
  # The spray's targets and the devices that log in for the first time during it share one bcrypt string (the known
  # devices' password, cost 10), written straight into the table: 3 500 PUTs would take minutes of bcrypt. The cold
  # devices are this phase's own and this run's own (the database outlives a run: a previous run's rows carry its
  # password and verifiers), registered now, after every other phase, so each of them is really cold: registered,
  # active, never verified, with the right password. Older runs' adversary rows go first.
  adversary_run=$(date +%s)
  spray_prefix=chaos-spray-$adversary_run-
  cold_prefix=chaos-cold-$adversary_run-
  expensive_prefix=chaos-expensive-$adversary_run-
  known_hash=$(psql_db -c "SELECT password_hash FROM device_credentials WHERE client_id = 'chaos-known-0'")
  psql_db -c "DELETE FROM device_credentials WHERE client_id LIKE 'chaos-spray-%' OR client_id LIKE 'chaos-cold-%'
    OR client_id LIKE 'chaos-expensive-%'"
  psql_db -c "INSERT INTO device_credentials (client_id, password_hash) SELECT '$spray_prefix' || g, '$known_hash'
    FROM generate_series(0, 1999) g"
  psql_db -c "INSERT INTO device_credentials (client_id, password_hash) SELECT '$cold_prefix' || g, '$known_hash'
    FROM generate_series(0, 2999) g"
  for i in $(seq 0 2999); do echo "$cold_prefix$i $DEVICE_PASSWORD"; done >"$CHAOS_OUT/cold.txt"
  # Rows as dear as the import accepts (bcrypt cost 14: 16 x a cost-10 check), one hash for all, made once from a
  # password nobody sends: the attacker's guesses are all wrong, and what is measured is what they cost.
  psql_db -c "INSERT INTO device_credentials (client_id, password_hash) SELECT '$expensive_prefix' || g,
    '\$2b\$14\$FvM7t64SwbjHvl5ZihcdxOW.cJPMGSvjM82nd4TixmlEXwQVLIo8y' FROM generate_series(0, 19) g"
  # Ten of the victims lose their verifier: their next login during the attack is a cold check.
  psql_db -c "UPDATE device_credentials SET verifier_key_id = NULL, verifier = NULL
    WHERE client_id IN (SELECT 'chaos-known-' || g FROM generate_series(0, 9) g)"
  pin_for_adversary
  # The expensive rows' attack runs with auth-service's CPUs busy 80 % of the time (adversary.py --contention-duty):
  # a cost-14 hash then takes 7-8 s of wall time, as it did on the shared machine where the attack was found.
  contention_cpus=$([[ -n "$ADVERSARY_PINNED" ]] && echo "$CHAOS_AUTH_CPUS" || true)
  python3 "$ROOT/scripts/chaos/adversary.py" --port "$AUTH_PORT" --known "$CHAOS_OUT/known.txt" \
    --cold "$CHAOS_OUT/cold.txt" --out "$CHAOS_OUT/adversary.jsonl" --victims 50 --spray-prefix "$spray_prefix" \
    --spray-count 2000 --flood-rate 3000 --warm-seconds 20 --expensive-prefix "$expensive_prefix" --expensive-count 20 \
    --contention-cpus "$contention_cpus" --loadtest "$LOADTEST" 2>>"$LOG_DIR/abuse.log" || log "adversary run failed"
  # Whose reads the lane refused, and why (share=known|other, cause=...), and bcrypt's refusals: for the notes.
  loadtest metrics --each --unreadable-empty "http://127.0.0.1:$((AUTH_PORT + 1000))/q/metrics" \
    identity_database_refused_total identity_bcrypt_refused_total identity_bcrypt_duration_seconds_count \
    identity_bcrypt_unit_duration identity_bcrypt_unit_duration_seconds identity_bcrypt_refusing_idle \
    >"$CHAOS_OUT/adversary-metrics.txt" 2>>"$LOG_DIR/abuse.log" || true
  known_refused=$(loadtest metrics --each --non-zero "$CHAOS_OUT/adversary-metrics.txt" \
    'identity_database_refused_total{share="known"}' 2>>"$LOG_DIR/abuse.log" | tr '\n' ' ' || true)
  log "after the adversary, the known devices' database refusals: ${known_refused:-none}"
  unpin_after_adversary
fi
# NAT: many devices behind one address (scripts/chaos/nat.py): an attacker failing under one id beside 10 cold
# logins, a reconnect storm with 5 % stale passwords, and a flood of invented ids beside fast-path logins, each from an
# address of its own. The cold devices are this run's own rows (the known devices' cost-10 bcrypt string, written
# straight into the table), as in the adversary phase; auth-service is restarted on its own core, so every budget is
# fresh. nat_verdict joins the run's verdict.
nat_verdict=0
if selected nat; then
  log "nat: 1 attacker + 10 cold devices behind one address, a storm with 5 % stale devices, a flood from one address"
  nat_prefix=chaos-nat-$(date +%s)-
  known_hash=$(psql_db -c "SELECT password_hash FROM device_credentials WHERE client_id = 'chaos-known-0'")
  psql_db -c "DELETE FROM device_credentials WHERE client_id LIKE 'chaos-nat-%'"
  psql_db -c "INSERT INTO device_credentials (client_id, password_hash) SELECT '$nat_prefix' || g, '$known_hash'
    FROM generate_series(0, 110) g"
  for i in $(seq 0 110); do echo "$nat_prefix$i $DEVICE_PASSWORD"; done >"$CHAOS_OUT/nat-cold.txt"
  pin_for_adversary
  python3 "$ROOT/scripts/chaos/nat.py" --port "$AUTH_PORT" --known "$CHAOS_OUT/known.txt" \
    --cold "$CHAOS_OUT/nat-cold.txt" --out "$CHAOS_OUT/nat.jsonl" --stale-devices 100 --flood-rate 3000 \
    >"$CHAOS_OUT/nat.txt" 2>>"$LOG_DIR/abuse.log" || nat_verdict=1
  loadtest metrics --each --unreadable-empty "http://127.0.0.1:$((AUTH_PORT + 1000))/q/metrics" \
    identity_authn_outcomes_total >"$CHAOS_OUT/nat-metrics.txt" 2>>"$LOG_DIR/abuse.log" || true
  cat "$CHAOS_OUT/nat.txt" >&2
  unpin_after_adversary
fi
if selected abuse; then
  log "live abuse: fuzzed bodies, idle connections, slowloris, oversized headers, wrong bearer tokens"
  mark abuse start
  python3 "$ROOT/scripts/chaos/abuse.py" hostile --auth-port "$AUTH_PORT" --reg-port "$REGISTRATION_PORT" \
    --token "$TOKEN" --corpus "$ROOT" --out "$CHAOS_OUT/abuse.json" --idle "$CHAOS_IDLE" \
    --auth-pid "$(cat "$RUN_DIR/chaos-auth-service.pid")" --reg-pid "$(cat "$RUN_DIR/chaos-registration-service.pid")" \
    2>>"$LOG_DIR/abuse.log" || log "abuse run failed"
  mark abuse end
fi
sleep 2
touch "$CHAOS_OUT/stop"
wait "$PROBE" || true

# What the database holds, before it stops: every chaos row, the ids with more than one row, a sample of hashes.
psql_db -F ' ' -c "SELECT client_id, status FROM device_credentials WHERE client_id LIKE 'chaos-%'" >"$CHAOS_OUT/rows.txt"
psql_db -c "SELECT count(*) FROM (SELECT client_id FROM device_credentials GROUP BY client_id HAVING count(*) > 1) d" \
  >"$CHAOS_OUT/duplicates.txt"
psql_db -c "SELECT password_hash FROM device_credentials WHERE client_id LIKE 'chaos-%' LIMIT 50" >"$CHAOS_OUT/.hashes"
stop_all
trap - EXIT
secrets=("$TOKEN" "$FAST_PATH_KEY" "${FAST_PATH_KEY#*:}" "$DEVICE_PASSWORD" "$DB_PASSWORD" "$AUTH_DB_PASSWORD"
         chaos-registration-pw- new-device-password)
# Kept beside the stack's other credentials (userlist.txt), out of target/, so that a run can be judged again and
# recorded as the verdict's samples (build-checks/src/test/resources/chaos-samples/record.py).
SECRETS=$RUN_DIR/chaos-secrets
(umask 077; printf '%s\n' "${secrets[@]}" >"$SECRETS"; cat "$CHAOS_OUT/.hashes" >>"$SECRETS")
rm -f "$CHAOS_OUT/.hashes"
abuse_flag=()
selected abuse || abuse_flag=(--no-abuse)
failover_flag=()
named failover && failover_flag=(--failover-named)
adversary_flag=(--expensive)
selected adversary || adversary_flag=(--no-adversary)
# The verdict: analyse.py exits 1 when a promise is broken (each one printed as PASS or FAIL under the table).
verdict=0
python3 "$ROOT/scripts/chaos/analyse.py" --events "$EVENTS" --faults "$FAULTS" --abuse "$CHAOS_OUT/abuse.json" \
  --storm "$CHAOS_OUT/storm.jsonl" --failover "$CHAOS_OUT/failover.jsonl" --adversary "$CHAOS_OUT/adversary.jsonl" --secrets "$SECRETS" --logs "$LOG_DIR" --rows "$CHAOS_OUT/rows.txt" \
  --duplicates "$CHAOS_OUT/duplicates.txt" --out "$CHAOS_OUT" --elapsed "$(( $(date +%s) - started ))" \
  --recovery-goal "$CHAOS_RECOVERY_GOAL" --memory-limit-mib "$CHAOS_MEMORY_LIMIT_MIB" \
  --expected-faults "$(expected_faults)" "${abuse_flag[@]}" "${adversary_flag[@]}" "${failover_flag[@]}" \
  --failover-goal "$CHAOS_FAILOVER_GOAL" || verdict=$?
[[ "$nat_verdict" == 0 ]] || verdict=1
exit "$verdict"
