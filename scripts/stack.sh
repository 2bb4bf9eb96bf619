#!/usr/bin/env bash
# The local stack: PostgreSQL and PgBouncer on loopback, and the services on top of them.
#
#   scripts/stack.sh install                 install what is missing (PgBouncer, PostgreSQL server and client) with
#                                            apt-get: as root, else through sudo -n, else names the command to run
#   scripts/stack.sh db-up [dev|test]        start PostgreSQL + PgBouncer, create the role and database
#   scripts/stack.sh db-down [dev|test]      stop them
#   scripts/stack.sh pgbouncer-stop|pgbouncer-start [dev|test]
#   scripts/stack.sh check-ports             exit 1 naming every port `up` would bind that is taken (make up's first step)
#   scripts/stack.sh up                      db-up, build what changed, start (or restart) the services, migrate, seed
#   scripts/stack.sh restart                 stop the services and `up` again (the database keeps running)
#   scripts/stack.sh down                    stop everything `up` started
#   scripts/stack.sh status [dev|test]
#   scripts/stack.sh db-ca [dev|test]        print the CA file the stack's PostgreSQL and PgBouncer certificates chain
#                                            to (what IDENTITY_DB_SSLROOTCERT / PGSSLROOTCERT point at)
#
# `up` builds only when a source or pom is newer than a service's jar (FORCE_BUILD=1 always, SKIP_BUILD=1 never),
# and restarts a running service whose jar or environment changed since it started (NO_RESTART=1 keeps it and says
# so). The services bind BIND_HOST (127.0.0.1; 0.0.0.0 for an EMQX in a container). EXTERNAL_DB=1 uses an existing
# PostgreSQL instead of the bundled one: DB_HOST/DB_PORT (what the services query: PgBouncer or PostgreSQL),
# DB_SCHEMA_HOST/DB_SCHEMA_PORT (PostgreSQL itself, for the migration; default DB_HOST/DB_PORT), DB_NAME, DB_USER,
# DB_PASSWORD, and auth-service's role AUTH_DB_USER/AUTH_DB_PASSWORD. REGISTRATION_TOKENS (comma-separated
# <id>:<scopes>:<token>) sets registration-service's accepted tokens. READY_WAIT (60, seconds) is how long `up` waits
# for each service to report ready: a JVM's start and auth-service's warm-up on a busy machine may need more.
#
# TLS=1 (the default) serves both services over HTTPS with certificates from scripts/local-ca.sh: one CA per stack
# directory ($STACK_DIR/tls/ca.crt, created on first `up` and kept), leaves for auth-service, registration-service
# and EMQX's client certificate; curl them with --cacert "$STACK_DIR/tls/ca.crt". TLS=0 serves plain HTTP. Health
# and metrics are on each service's management interface, plain HTTP, on its port + 1000 (9081, 9082), bound to
# BIND_HOST as the API is (IDENTITY_MANAGEMENT_HOST).
#
# Profiles keep `make up` and `make test` apart: dev uses ports 55432/56432, test 55433/56433 (all overridable:
# PG_PORT, PGBOUNCER_PORT, AUTH_PORT, REGISTRATION_PORT). State lives under .local/<profile>/ (STACK_DIR; under
# /tmp when root runs a checkout the postgres user cannot reach), and so do the ports a running stack was started
# with (STACK_DIR/ports): `status` and `down` find them without the overrides. PORT_OFFSET=n shifts the four dev
# defaults by n (a second checkout beside the first). Every port `up` and `restart` will bind is checked before
# anything starts or stops (the database, the build, a service): the taken ones are named in one message, with their
# holders and one command to copy that moves them all.
# PostgreSQL and PgBouncer refuse to run as root, so as root they run as the 'postgres' system user.
# The database path is TLS-only: db-up makes the stack's CA and the servers' certificates under
# STACK_DIR/tls (scripts/local-ca.sh); PostgreSQL runs ssl=on and refuses plaintext TCP (pg_hba hostssl only),
# PgBouncer refuses plaintext clients (client_tls_sslmode=require) and verifies PostgreSQL (server_tls_sslmode=
# verify-full), and every client here (the services, psql, pgbench) uses sslmode=verify-full against STACK_DIR/tls/ca.crt.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
COMMAND=${1:-}
PROFILE=${2:-dev}

# shellcheck source=stack-layout.sh
source "$ROOT/scripts/stack-layout.sh"
# shellcheck source=packages.sh
source "$ROOT/scripts/packages.sh"
: "${AUTH_PORT:=8081}" "${REGISTRATION_PORT:=8082}" "${DEMO_DEVICES:=100}" "${BIND_HOST:=127.0.0.1}" "${TLS:=1}"
: "${READY_WAIT:=60}"
# The services' management interface (health, metrics): their port + 1000, the services' own default, set
# explicitly so that the readiness wait below and the services agree (docs/configuration.md).
MANAGEMENT_OFFSET=1000
: "${DB_NAME:=identity}" "${DB_USER:=identity}" "${DB_PASSWORD:=identity-local-dev}" "${EXTERNAL_DB:=0}"
# auth-service's own role (reads credentials, writes fast-path verifiers; the V2 migration grants exactly that).
: "${AUTH_DB_USER:=identity_auth}" "${AUTH_DB_PASSWORD:=identity-auth-local-dev}"
# The fast path's key for local use only: fixed so that verifiers survive `make down`/`make up`; anyone reading this
# file has it, so never use it outside this machine (the chart generates a random one into a Secret).
: "${FAST_PATH_KEYS:=dev-1:ZGV2ZWxvcG1lbnQtb25seS1mYXN0LXBhdGgta2V5LW5vdC1hLXNlY3JldA==}"
# Where the services query (PgBouncer) and migrate (PostgreSQL itself): the bundled ones unless EXTERNAL_DB=1.
if [[ "$EXTERNAL_DB" == 1 ]]; then
  : "${DB_HOST:?EXTERNAL_DB=1 needs DB_HOST (and DB_PORT, DB_PASSWORD, AUTH_DB_PASSWORD; see docs/local.md, \"Your own PostgreSQL\")}"
  : "${DB_PORT:=5432}"
else
  DB_HOST=127.0.0.1 DB_PORT=$PGBOUNCER_PORT DB_SCHEMA_HOST=127.0.0.1 DB_SCHEMA_PORT=$PG_PORT
  IDENTITY_DB_SSLROOTCERT=$DB_CA_FILE
fi
: "${DB_SCHEMA_HOST:=$DB_HOST}" "${DB_SCHEMA_PORT:=$DB_PORT}"
# How the services, psql and pgbench reach the database: TLS with the server's certificate and name checked. Your
# own PostgreSQL (EXTERNAL_DB=1) needs IDENTITY_DB_SSLROOTCERT, its CA; IDENTITY_DB_SSLMODE=disable is the explicit
# opt-out for one that has no TLS.
: "${IDENTITY_DB_SSLMODE:=verify-full}" "${IDENTITY_DB_SSLROOTCERT:=}"
# libpq (psql, pgbench) reads the same two settings from its own variables.
db_client_tls() {
  export PGSSLMODE=$IDENTITY_DB_SSLMODE
  [[ -z "$IDENTITY_DB_SSLROOTCERT" ]] || export PGSSLROOTCERT=$IDENTITY_DB_SSLROOTCERT
}
# Unix sockets of PostgreSQL and PgBouncer: $SOCKET_DIR/.s.PGSQL.<port>. A socket path may be at most 107 bytes
# (sun_path is 108 with the NUL; PostgreSQL refuses a longer one at start), and a deep checkout (GitHub:
# /home/runner/work/<repo>/<repo>/.local/test/run) gets close, so a too-long RUN_DIR moves the sockets to a short
# directory of their own under /tmp, one per stack directory and profile. psql and pgbouncer use $SOCKET_DIR.
socket_dir() {
  local socket=/.s.PGSQL.$PG_PORT
  ((${#PGBOUNCER_PORT} <= ${#PG_PORT})) || socket=/.s.PGSQL.$PGBOUNCER_PORT
  if ((${#RUN_DIR} + ${#socket} <= 107)); then
    printf '%s' "$RUN_DIR"
  else
    printf '/tmp/di-%s-%s' "$(printf '%s' "$STACK_DIR" | md5sum | cut -c1-12)" "$PROFILE"
  fi
}
SOCKET_DIR=$(socket_dir)

log() { printf '[stack:%s] %s\n' "$PROFILE" "$*" >&2; }
die() { log "error: $*"; exit 1; }

is_root() { [[ $(id -u) -eq 0 ]]; }

# Runs a command as the user that owns the database processes.
as_db() {
  if is_root; then runuser -u postgres -- "$@"; else "$@"; fi
}

install() {
  local missing=()
  command -v pgbouncer >/dev/null 2>&1 || missing+=(pgbouncer)
  [[ -n "$PG_BIN" && -x "$PG_BIN/postgres" ]] || missing+=(postgresql)
  command -v psql >/dev/null 2>&1 || missing+=(postgresql-client)
  if ((${#missing[@]})); then
    install_packages "[stack:$PROFILE]" "${missing[@]}" || exit 1
    # Debian starts a system PgBouncer on 6432 and a cluster on 5432; ours run on their own ports beside them.
    PG_BIN=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)
  fi
  if is_root && ! id postgres >/dev/null 2>&1; then
    useradd --system --home-dir /var/lib/postgresql --shell /bin/bash postgres
  fi
}

prepare_dirs() {
  mkdir -p "$STACK_DIR" "$RUN_DIR" "$LOG_DIR" "$SOCKET_DIR"
  # The sockets' directory is for the database's user only (also one made by an older stack.sh): no other OS user
  # reaches PostgreSQL's or PgBouncer's socket at all, whatever pg_hba.conf says.
  chmod 700 "$RUN_DIR" "$SOCKET_DIR"
  if is_root; then
    chown -R postgres: "$STACK_DIR"
    chown postgres: "$SOCKET_DIR"
    # The database user must be able to reach the state directory through every parent.
    as_db test -w "$STACK_DIR" || die "user postgres cannot write $STACK_DIR; set STACK_DIR to a reachable path"
  fi
}

pg_running() { as_db "$PG_BIN/pg_ctl" -D "$DATA_DIR" status >/dev/null 2>&1; }

# Whether something listens on 127.0.0.1:<port>.
port_taken() { (: <>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# Who listens on a port, for a message: " by java (pid 4242, in /home/me/other-checkout)" when ss can tell. The working
# directory names the other checkout whose stack holds it.
port_holder() {
  local holder pid
  holder=$(ss -Hltnp "sport = :$1" 2>/dev/null | grep -o 'users:(("[^"]*",pid=[0-9]*' | head -n 1 \
    | sed 's/users:(("\([^"]*\)",pid=\([0-9]*\)/\1 \2/') || true
  [[ -n "$holder" ]] || return 0
  pid=${holder##* }
  printf ' by %s (pid %s%s)' "${holder% *}" "$pid" "$(readlink "/proc/$pid/cwd" 2>/dev/null | sed 's/^/, in /')"
}

# Whether a running service of this stack was started on <port> (its API or management port): the port is its own,
# kept by `up` or freed by `restart` before the service starts again.
service_holds() {
  local name=$1 port=$2 own
  own=$(printf '%s' "${name%-service}" | tr '[:lower:]' '[:upper:]')
  service_running "$name" && grep -qxE "(${own}_PORT|IDENTITY_MANAGEMENT_PORT)=$port" "$RUN_DIR/$name.config" 2>/dev/null
}

# The ports <command> (up, restart, db-up) is about to bind, one "<port> <variable> <what>" per line: those of the bundled database that
# is not running yet, and both services' API and management ports unless the service already holds them.
wanted_ports() {
  if [[ "$EXTERNAL_DB" != 1 ]]; then
    pg_running || printf '%s PG_PORT PostgreSQL\n' "$PG_PORT"
    pgbouncer_running || printf '%s PGBOUNCER_PORT PgBouncer\n' "$PGBOUNCER_PORT"
  fi
  [[ "$PROFILE" == dev && "$1" != db-up ]] || return 0
  local name port variable
  for name in registration-service auth-service; do
    variable=$(printf '%s' "${name%-service}" | tr '[:lower:]' '[:upper:]')_PORT
    port=${!variable}
    service_holds "$name" "$port" || printf '%s %s %s\n' "$port" "$variable" "$name"
    service_holds "$name" "$((port + MANAGEMENT_OFFSET))" \
      || printf '%s %s %s\n' "$((port + MANAGEMENT_OFFSET))" "$variable" "$name's management interface"
  done
}

# Every port <command> will bind is checked before it starts or stops anything (before the database, the build, and
# `restart`'s stop): all taken ones are named in one message, with their holders, and one command to copy that moves
# them by an offset under which every one of them is free. A port held by this stack's own process is no conflict.
check_ports() {
  local command=$1 line port variable what conflicts=() moved=() offset=0 candidate ok
  local -a wanted
  mapfile -t wanted < <(wanted_ports "$command")
  for line in "${wanted[@]}"; do
    read -r port variable what <<<"$line"
    [[ "$what" != *management* ]] || variable="$variable + $MANAGEMENT_OFFSET"
    port_taken "$port" && conflicts+=("  $port for $what ($variable) is taken$(port_holder "$port")")
  done
  ((${#conflicts[@]})) || return 0
  # The variables to move: all of the wanted ones' (a whole stack moves together), shifted by the smallest multiple
  # of 100 that finds every shifted port free (multiples of 100 keep clear of the test, bench and chaos stacks' ports).
  local -A variables=()
  for line in "${wanted[@]}"; do read -r port variable what <<<"$line"; variables[$variable]=1; done
  for candidate in 100 200 300 400 500 600 700 800 900; do
    ok=1
    for line in "${wanted[@]}"; do
      read -r port variable what <<<"$line"
      port_taken "$((port + candidate))" && { ok=0; break; }
    done
    ((ok)) && { offset=$candidate; break; }
  done
  local suggestion
  if [[ "$PROFILE" == test ]]; then
    suggestion="make test-db-up TEST_PG_PORT=$((PG_PORT + offset)) TEST_PGBOUNCER_PORT=$((PGBOUNCER_PORT + offset)) (make test takes the same two)"
  elif [[ "$command" == up && ${#variables[@]} == 4 ]] && at_default_offset; then
    suggestion="make up PORT_OFFSET=$((${PORT_OFFSET:-0} + offset))"
  else
    for variable in PG_PORT PGBOUNCER_PORT AUTH_PORT REGISTRATION_PORT; do
      [[ -z "${variables[$variable]:-}" ]] || moved+=("$variable=$((${!variable} + offset))")
    done
    suggestion="make $command ${moved[*]}"
    [[ "$command" != db-up ]] || suggestion="${moved[*]} scripts/stack.sh db-up"
  fi
  ((offset)) || suggestion="(no offset up to 900 finds them all free: choose free ports) $suggestion"
  log "error: ${#conflicts[@]} of the ports this stack would listen on are taken; nothing was started or stopped:"
  printf '%s\n' "${conflicts[@]}" >&2
  log "move them with: $suggestion"
  [[ "$PROFILE" == test ]] || log "(make status, make down and make restart then find the new ports by themselves)"
  exit 1
}

# Whether the four ports are the dev defaults shifted by PORT_OFFSET (0 when unset): then PORT_OFFSET moves them all.
at_default_offset() {
  local default name
  for default in "${DEV_PORTS[@]}"; do
    name=${default%%=*}
    [[ "${!name}" == "$((${default#*=} + ${PORT_OFFSET:-0}))" ]] || return 1
  done
}

# The stack's TLS material (scripts/local-ca.sh): the CA (kept), and a server certificate for PostgreSQL and one for
# PgBouncer, issued when missing, when they no longer chain to the CA, or within 30 days of their end. Keys are the
# database user's, mode 600: PostgreSQL refuses a key that others can read. Prints the names it (re)issued.
prepare_tls() {
  "$ROOT/scripts/local-ca.sh" ca "$TLS_DIR" >/dev/null
  local name
  for name in postgres pgbouncer; do
    if [[ ! -s "$TLS_DIR/$name.key" ]] || ! openssl x509 -checkend $((30 * 86400)) -noout -in "$TLS_DIR/$name.crt" >/dev/null 2>&1 \
        || ! openssl verify -CAfile "$DB_CA_FILE" "$TLS_DIR/$name.crt" >/dev/null 2>&1; then
      log "issuing the $name server certificate ($TLS_DIR/$name.crt, signed by $DB_CA_FILE)"
      "$ROOT/scripts/local-ca.sh" issue "$TLS_DIR" "$name" >/dev/null
      printf '%s\n' "$name"
    fi
  done
  chmod 600 "$TLS_DIR"/*.key
  if is_root; then chown -R postgres: "$TLS_DIR"; fi
}

# The OS user that runs PostgreSQL and PgBouncer (postgres when root starts the stack; as_db).
db_os_user() {
  if is_root; then printf postgres; else id -un; fi
}

# Client authentication of PostgreSQL: on the Unix socket only the database's OS user (and root, which can read the
# data directory anyway) may connect, and only as the superuser, by peer authentication (psql_admin); every other
# role and user is refused there (a streaming standby of this one, scripts/stack-ha.sh standby-up, replicates over
# the socket too). TCP is TLS with a SCRAM password only; a plaintext TCP client matches no hostssl
# line and is refused. pg_ident.conf maps those OS users to the superuser.
write_pg_hba() {
  as_db tee "$DATA_DIR/pg_hba.conf" >/dev/null <<'HBA'
# Written by scripts/stack.sh db-up (overwritten at every start): TLS-only TCP; the socket by peer, superuser only.
local     all postgres         peer map=stack
local     replication postgres peer map=stack
hostssl   all all 127.0.0.1/32 scram-sha-256
hostnossl all all 0.0.0.0/0    reject
HBA
  {
    printf '# Written by scripts/stack.sh db-up: OS users that may connect over the socket as the superuser.\n'
    printf 'stack %s postgres\n' "$(db_os_user)"
    if is_root; then printf 'stack root postgres\n'; fi
  } | as_db tee "$DATA_DIR/pg_ident.conf" >/dev/null
}

psql_admin() {
  as_db psql -X -q -v ON_ERROR_STOP=1 -h "$SOCKET_DIR" -p "$PG_PORT" -U postgres "$@"
}

start_postgres() {
  if [[ ! -f "$DATA_DIR/PG_VERSION" ]]; then
    log "initialising PostgreSQL in $DATA_DIR"
    as_db "$PG_BIN/initdb" -D "$DATA_DIR" -U postgres --auth-local=peer --auth-host=scram-sha-256 \
      --encoding=UTF8 --locale=C.UTF-8 >"$LOG_DIR/initdb.log" 2>&1 || { cat "$LOG_DIR/initdb.log" >&2; exit 1; }
  fi
  write_pg_hba
  if pg_running && [[ $(psql_admin -d postgres -Atc 'SHOW ssl') != on ]]; then
    log "PostgreSQL runs without TLS (started by an older stack.sh): restarting it with ssl=on"
    stop_postgres
  fi
  if pg_running; then
    log "PostgreSQL already running on 127.0.0.1:$PG_PORT (TLS)"
    # Re-reads pg_hba.conf and the certificate files (a reissued certificate is served from the next connection).
    as_db "$PG_BIN/pg_ctl" -D "$DATA_DIR" reload >/dev/null
  else
    log "starting PostgreSQL on 127.0.0.1:$PG_PORT (TLS only)"
    as_db "$PG_BIN/pg_ctl" -D "$DATA_DIR" -l "$LOG_DIR/postgresql.log" -w -t 60 start \
      -o "-p $PG_PORT -k $SOCKET_DIR -c unix_socket_permissions=0700 -c listen_addresses=127.0.0.1 \
          -c max_connections=100 -c fsync=off \
          -c password_encryption=scram-sha-256 -c log_min_messages=warning \
          -c ssl=on -c ssl_cert_file=$TLS_DIR/postgres.crt -c ssl_key_file=$TLS_DIR/postgres.key" >/dev/null
  fi
  create_roles
}

# The services' roles and database (idempotent; their passwords set again), through the superuser's socket.
create_roles() {
  psql_admin -d postgres <<SQL
SELECT format('CREATE ROLE %I LOGIN', '$DB_USER') WHERE NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '$DB_USER')\gexec
ALTER ROLE "$DB_USER" PASSWORD '$DB_PASSWORD';
SELECT format('CREATE ROLE %I LOGIN', '$AUTH_DB_USER') WHERE NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '$AUTH_DB_USER')\gexec
ALTER ROLE "$AUTH_DB_USER" PASSWORD '$AUTH_DB_PASSWORD';
SELECT format('CREATE DATABASE %I OWNER %I', '$DB_NAME', '$DB_USER') WHERE NOT EXISTS (SELECT FROM pg_database WHERE datname = '$DB_NAME')\gexec
SQL
}

pgbouncer_running() {
  [[ -f "$RUN_DIR/pgbouncer.pid" ]] && kill -0 "$(cat "$RUN_DIR/pgbouncer.pid")" 2>/dev/null
}

start_pgbouncer() {
  if pgbouncer_running; then
    if grep -q '^client_tls_sslmode' "$RUN_DIR/pgbouncer.ini" 2>/dev/null; then
      log "PgBouncer already running on 127.0.0.1:$PGBOUNCER_PORT (TLS)"
      return
    fi
    log "PgBouncer runs without TLS (started by an older stack.sh): restarting it"
    stop_pgbouncer
  fi
  sed -e "s|@PG_PORT@|$PG_PORT|g" -e "s|@PGBOUNCER_PORT@|$PGBOUNCER_PORT|g" \
      -e "s|^unix_socket_dir = .*|unix_socket_dir = $SOCKET_DIR|" -e "s|@TLS_DIR@|$TLS_DIR|g" \
      -e "s|@RUN_DIR@|$RUN_DIR|g" -e "s|@LOG_DIR@|$LOG_DIR|g" "$ROOT/pgbouncer/pgbouncer.ini" >"$RUN_DIR/pgbouncer.ini"
  printf '"%s" "%s"\n' "$DB_USER" "$DB_PASSWORD" "$AUTH_DB_USER" "$AUTH_DB_PASSWORD" >"$RUN_DIR/userlist.txt"
  chmod 600 "$RUN_DIR/userlist.txt" "$RUN_DIR/pgbouncer.ini"
  is_root && chown postgres: "$RUN_DIR/userlist.txt" "$RUN_DIR/pgbouncer.ini"
  log "starting PgBouncer on 127.0.0.1:$PGBOUNCER_PORT (transaction pooling, TLS only)"
  as_db pgbouncer -d "$RUN_DIR/pgbouncer.ini"
  for _ in $(seq 1 50); do
    PGSSLMODE=verify-full PGSSLROOTCERT=$DB_CA_FILE PGPASSWORD=$DB_PASSWORD psql -X -q -h 127.0.0.1 -p "$PGBOUNCER_PORT" -U "$DB_USER" -d "$DB_NAME" \
      -c 'SELECT 1' >/dev/null 2>&1 && return
    sleep 0.2
  done
  tail -n 20 "$LOG_DIR/pgbouncer.log" >&2 || true
  die "PgBouncer did not answer on 127.0.0.1:$PGBOUNCER_PORT"
}

stop_pgbouncer() {
  if pgbouncer_running; then
    local pid
    pid=$(cat "$RUN_DIR/pgbouncer.pid")
    log "stopping PgBouncer"
    # SIGINT: safe shutdown (1.18 treats SIGTERM as an immediate exit).
    kill -INT "$pid" 2>/dev/null || true
    for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
  fi
}

stop_postgres() {
  if [[ -f "$DATA_DIR/PG_VERSION" ]] && pg_running; then
    log "stopping PostgreSQL"
    as_db "$PG_BIN/pg_ctl" -D "$DATA_DIR" -m fast -w stop >/dev/null
  fi
}

db_up() {
  install
  prepare_dirs
  # Both ports are checked before either starts, so a conflict leaves nothing half-started (`up` checked already,
  # with the services' ports).
  check_ports db-up
  local reissued
  reissued=$(prepare_tls)
  start_postgres
  # A running PgBouncer reads its reissued certificate on SIGHUP (as on RELOAD): new connections get it.
  if [[ "$reissued" == *pgbouncer* ]] && pgbouncer_running; then kill -HUP "$(cat "$RUN_DIR/pgbouncer.pid")"; fi
  start_pgbouncer
  remember_ports
}

db_down() {
  stop_pgbouncer
  stop_postgres
  # Nothing of this stack runs any more: forget its ports (the next `up` starts from the defaults or overrides).
  service_running auth-service || service_running registration-service || rm -f "$PORTS_FILE"
}

# --- services (profile dev only) -------------------------------------------------------------------------------

SERVICES=(registration-service auth-service)

service_env() {
  export IDENTITY_DB_HOST=$DB_HOST IDENTITY_DB_PORT=$DB_PORT IDENTITY_DB_NAME=$DB_NAME
  export IDENTITY_DB_USER=$DB_USER IDENTITY_DB_PASSWORD=$DB_PASSWORD
  export IDENTITY_SCHEMA_HOST=$DB_SCHEMA_HOST IDENTITY_SCHEMA_PORT=$DB_SCHEMA_PORT
  export IDENTITY_DB_SSLMODE IDENTITY_DB_SSLROOTCERT
}

# The address the stack itself probes and prints: BIND_HOST, or loopback when it binds every interface.
probe_host() {
  case "$BIND_HOST" in 0.0.0.0|::|'[::]') printf '127.0.0.1' ;; *) printf '%s' "$BIND_HOST" ;; esac
}

service_running() { [[ -f "$RUN_DIR/$1.pid" ]] && kill -0 "$(cat "$RUN_DIR/$1.pid")" 2>/dev/null; }

# What a service runs with: its jar (path and modification time) and every variable of its environment the
# service can read (IDENTITY_*, QUARKUS_*, its own <SERVICE>_* and JAVA_OPTS). Stored beside its pid when it
# starts; `up` compares it to decide whether a running service must restart.
service_fingerprint() {
  local name=$1 jar=$2 own
  shift 2
  own=$(printf '%s' "${name%-service}" | tr '[:lower:]' '[:upper:]')
  printf 'jar %s %s\n' "$jar" "$(stat -c %Y "$jar" 2>/dev/null || echo missing)"
  printf 'JAVA_OPTS=%s\n' "${JAVA_OPTS:-}"
  (service_env; env "$@" | { grep -E "^(IDENTITY|QUARKUS|SMALLRYE|${own})_[A-Z0-9_]*=" || true; } | sort)
}

# The names (never the values: one is a password) of what differs between two fingerprints.
fingerprint_changes() {
  { diff <(printf '%s\n' "$1") <(printf '%s\n' "$2") || true; } | sed -n 's/^[<>] \([^= ]*\)[= ].*/\1/p' \
    | sort -u | paste -sd' ' -
}

start_service() {
  local name=$1 port=$2 jar="$ROOT/$1/target/quarkus-app/quarkus-run.jar" host
  shift 2
  host=$(probe_host)
  [[ -f "$jar" ]] || die "$jar is missing: run without SKIP_BUILD=1, or build with 'mvn -B -DskipTests package'"
  local fingerprint
  fingerprint=$(service_fingerprint "$name" "$jar" "$@")
  if service_running "$name"; then
    local before changes
    before=$(cat "$RUN_DIR/$name.config" 2>/dev/null || true)
    if [[ "$before" == "$fingerprint" ]]; then
      log "$name already running, unchanged (make restart to restart it anyway)"
      return
    fi
    changes=$(fingerprint_changes "$before" "$fingerprint")
    if [[ "${NO_RESTART:-0}" == 1 ]]; then
      log "WARNING: $name runs with an older jar or configuration ($changes) and was NOT restarted (NO_RESTART=1)"
      return
    fi
    log "$name: jar or configuration changed since it started ($changes): restarting it"
    stop_service "$name"
  fi
  log "starting $name on $BIND_HOST:$port"
  # Appended, never truncated: what led to a restart stays in the log, after which a marker says when it began.
  printf '==== %s scripts/stack.sh starts %s ====\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$name" >>"$LOG_DIR/$name.log"
  (service_env; exec env "$@" java ${JAVA_OPTS:-} -jar "$jar" >>"$LOG_DIR/$name.log" 2>&1) &
  echo $! >"$RUN_DIR/$name.pid"
  (umask 077; printf '%s\n' "$fingerprint" >"$RUN_DIR/$name.config")
  [[ "$READY_WAIT" =~ ^[0-9]+$ ]] || die "READY_WAIT must be a whole number of seconds, not '$READY_WAIT'"
  local deadline=$((SECONDS + READY_WAIT))
  while ((SECONDS < deadline)); do
    curl -fsS "http://$host:$((port + MANAGEMENT_OFFSET))/q/health/ready" >/dev/null 2>&1 && return
    service_running "$name" || { tail -n 40 "$LOG_DIR/$name.log" >&2; die "$name exited (log: $LOG_DIR/$name.log)"; }
    sleep 0.5
  done
  tail -n 40 "$LOG_DIR/$name.log" >&2
  die "$name did not become ready within READY_WAIT=$READY_WAIT s (log: $LOG_DIR/$name.log)"
}

stop_service() {
  local name=$1
  if [[ -f "$RUN_DIR/$name.pid" ]]; then
    local pid
    pid=$(cat "$RUN_DIR/$name.pid")
    if kill -0 "$pid" 2>/dev/null; then
      log "stopping $name"
      kill -TERM "$pid" 2>/dev/null || true
      for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
      kill -KILL "$pid" 2>/dev/null || true
    fi
    rm -f "$RUN_DIR/$name.pid" "$RUN_DIR/$name.config"
  fi
}

# A service needs a build when its jar is missing or older than any pom or source it is built from.
needs_build() {
  local name=$1 jar="$ROOT/$1/target/quarkus-app/quarkus-run.jar"
  [[ -f "$jar" ]] || return 0
  [[ -n $(find "$ROOT/pom.xml" "$ROOT/identity-core/pom.xml" "$ROOT/identity-core/src" \
    "$ROOT/$name/pom.xml" "$ROOT/$name/src" -newer "$jar" -print -quit 2>/dev/null) ]]
}

build_services() {
  if [[ "${SKIP_BUILD:-0}" == 1 ]]; then
    log "not building (SKIP_BUILD=1): using the jars in */target/quarkus-app"
    return
  fi
  local stale=() name
  for name in "${SERVICES[@]}"; do
    if [[ "${FORCE_BUILD:-0}" == 1 ]] || needs_build "$name"; then stale+=("$name"); fi
  done
  if ((${#stale[@]} == 0)); then
    log "the services' jars are newer than their sources and poms: not building (FORCE_BUILD=1 to build anyway)"
    return
  fi
  local modules
  modules=$(IFS=,; printf '%s' "${stale[*]}")
  log "building ${stale[*]} (mvn -B -q -DskipTests package -pl $modules -am; log: $LOG_DIR/build.log)"
  # Maven 3.8's console library writes colour resets (ESC[0m) even in batch mode: the output goes to a log, and
  # only its tail, stripped of escape codes, is shown when the build fails.
  if ! (cd "$ROOT" && mvn -B -q -Dstyle.color=never -DskipTests package -pl "$modules" -am) >"$LOG_DIR/build.log" 2>&1; then
    sed -e 's/\x1b\[[0-9;]*[A-Za-z]//g' "$LOG_DIR/build.log" | grep -v '^\s*$' | tail -n 40 >&2
    die "build failed (log: $LOG_DIR/build.log)"
  fi
}

seed_demo_devices() {
  log "seeding demo-device-1..$DEMO_DEVICES (bcrypt cost 10; existing devices are left alone)"
  if [[ "$EXTERNAL_DB" == 1 ]]; then
    db_client_tls
    PGPASSWORD=$DB_PASSWORD psql -X -q -v ON_ERROR_STOP=1 -h "$DB_SCHEMA_HOST" -p "$DB_SCHEMA_PORT" -U "$DB_USER" \
      -d "$DB_NAME" -v devices="$DEMO_DEVICES" -f "$ROOT/scripts/seed-demo-devices.sql"
  else
    psql_admin -d "$DB_NAME" -v devices="$DEMO_DEVICES" -f "$ROOT/scripts/seed-demo-devices.sql"
  fi
}

registration_tokens() {
  if [[ -n "${REGISTRATION_TOKEN:-}" && -z "${REGISTRATION_TOKENS:-}" ]]; then
    die "REGISTRATION_TOKEN is not read: the variable is REGISTRATION_TOKENS (comma-separated), as the service reads it"
  fi
  # The development token: id admin, every scope (<id>:<scopes>:<token>, docs/security.md "Registration tokens").
  printf '%s' "${REGISTRATION_TOKENS:-admin:read+write+superuser+import-replace:dev-registration-token}"
}

# TLS=1: the local CA and the services' leaves under $STACK_DIR/tls (kept across `up`s: a leaf is issued only when
# missing), and what each service then runs with. Sets TLS_ENV_AUTH / TLS_ENV_REGISTRATION (arrays of VAR=value).
tls_setup() {
  TLS_ENV_AUTH=(IDENTITY_TLS_ENABLED=false) TLS_ENV_REGISTRATION=(IDENTITY_TLS_ENABLED=false)
  [[ "$TLS" == 1 ]] || return 0
  local dir=$STACK_DIR/tls name
  "$ROOT/scripts/local-ca.sh" ca "$dir" >/dev/null
  for name in auth-service registration-service emqx-client; do
    [[ -s "$dir/$name.crt" && -s "$dir/$name.key" ]] || "$ROOT/scripts/local-ca.sh" issue "$dir" "$name" >/dev/null
  done
  TLS_ENV_AUTH=(IDENTITY_TLS_ENABLED=true "IDENTITY_TLS_CERT_FILE=$dir/auth-service.crt"
    "IDENTITY_TLS_KEY_FILE=$dir/auth-service.key")
  TLS_ENV_REGISTRATION=(IDENTITY_TLS_ENABLED=true "IDENTITY_TLS_CERT_FILE=$dir/registration-service.crt"
    "IDENTITY_TLS_KEY_FILE=$dir/registration-service.key")
}

up() {
  command -v curl >/dev/null 2>&1 || die "curl is needed"
  local tokens
  tokens=$(registration_tokens)
  check_ports "${1:-up}"
  if [[ "$EXTERNAL_DB" == 1 ]]; then
    command -v psql >/dev/null 2>&1 || die "psql is needed to seed the demo devices (apt-get install postgresql-client)"
    [[ "$IDENTITY_DB_SSLMODE" != verify-* || -n "$IDENTITY_DB_SSLROOTCERT" ]] \
      || die "EXTERNAL_DB=1 with IDENTITY_DB_SSLMODE=$IDENTITY_DB_SSLMODE needs IDENTITY_DB_SSLROOTCERT (the PEM CA your PostgreSQL's certificate chains to); IDENTITY_DB_SSLMODE=disable opts out of TLS explicitly"
    mkdir -p "$STACK_DIR" "$RUN_DIR" "$LOG_DIR"
    log "using your PostgreSQL: queries on $DB_HOST:$DB_PORT, migrations on $DB_SCHEMA_HOST:$DB_SCHEMA_PORT," \
      "database $DB_NAME, roles $DB_USER (registration-service) and $AUTH_DB_USER (auth-service)"
  else
    db_up
  fi
  build_services
  tls_setup
  # registration-service owns the schema: it starts first and migrates (directly against PostgreSQL); auth-service
  # then finds the schema in place and does not migrate.
  start_service registration-service "$REGISTRATION_PORT" REGISTRATION_PORT="$REGISTRATION_PORT" \
    REGISTRATION_HOST="$BIND_HOST" IDENTITY_SCHEMA_MIGRATE=true REGISTRATION_TOKENS="$tokens" \
    IDENTITY_AUTH_DB_USER="$AUTH_DB_USER" IDENTITY_MANAGEMENT_PORT="$((REGISTRATION_PORT + MANAGEMENT_OFFSET))" \
    IDENTITY_MANAGEMENT_HOST="$BIND_HOST" "${TLS_ENV_REGISTRATION[@]}"
  start_service auth-service "$AUTH_PORT" AUTH_PORT="$AUTH_PORT" AUTH_HOST="$BIND_HOST" IDENTITY_SCHEMA_MIGRATE=false \
    IDENTITY_DB_USER="$AUTH_DB_USER" IDENTITY_DB_PASSWORD="$AUTH_DB_PASSWORD" IDENTITY_AUTH_FAST_PATH_KEYS="$FAST_PATH_KEYS" \
    IDENTITY_MANAGEMENT_PORT="$((AUTH_PORT + MANAGEMENT_OFFSET))" IDENTITY_MANAGEMENT_HOST="$BIND_HOST" "${TLS_ENV_AUTH[@]}" \
    "${STANDBY_READS_ENV[@]}"
  remember_ports
  seed_demo_devices
  # The first entry's token: what follows its second colon (the whole entry in the format before token ids).
  local host token=${tokens%%,*} token_id=""
  if [[ "$token" == *:*:* ]]; then token_id=" (id ${token%%:*})"; token=${token#*:}; token=${token#*:}; fi
  host=$(probe_host)
  # With TLS the printed curls trust the stack's CA; the certificates name localhost and 127.0.0.1.
  local scheme=http curl="curl" trust=""
  if [[ "$TLS" == 1 ]]; then
    scheme=https curl="curl --cacert $STACK_DIR/tls/ca.crt"
    trust="
TLS: HTTPS with the local CA $STACK_DIR/tls/ca.crt (EMQX's client certificate: $STACK_DIR/tls/emqx-client.crt);
TLS=0 make restart serves plain HTTP."
  fi
  local reg="$scheme://$host:$REGISTRATION_PORT" authn="$scheme://$host:$AUTH_PORT/mqtt/authn"
  local database="  PostgreSQL            127.0.0.1:$PG_PORT      (data: $DATA_DIR; TLS only)
  PgBouncer             127.0.0.1:$PGBOUNCER_PORT      (transaction pooling; TLS only)
  database CA           $DB_CA_FILE (psql: PGSSLMODE=verify-full PGSSLROOTCERT=<it>)"
  [[ "$EXTERNAL_DB" == 1 ]] && database="  database (yours)      $DB_HOST:$DB_PORT (migrations: $DB_SCHEMA_HOST:$DB_SCHEMA_PORT)"
  local bound=""
  [[ "$host" != "$BIND_HOST" ]] && bound="
The services listen on $BIND_HOST:$AUTH_PORT / :$REGISTRATION_PORT (every interface): an EMQX in a container reaches
them through the host's address (Docker: --add-host=host.docker.internal:host-gateway, then
$scheme://host.docker.internal:$AUTH_PORT/mqtt/authn)."
  cat <<MSG

The local stack is up:
$database
  registration-service  $reg   (log: $LOG_DIR/registration-service.log)
  auth-service          $scheme://$host:$AUTH_PORT   (log: $LOG_DIR/auth-service.log)
  management            http://$host:$((AUTH_PORT + MANAGEMENT_OFFSET)), http://$host:$((REGISTRATION_PORT + MANAGEMENT_OFFSET))   (/q/health/ready, /q/metrics; plain HTTP)
$trust$bound
Registration API token (development only): $token$token_id
Fast-path verifier key: the fixed development key "${FAST_PATH_KEYS%%:*}" from scripts/stack.sh (never use it elsewhere)

Authenticate demo-device-1 the way EMQX does:

  $curl -i -X POST $authn -H 'content-type: application/json' \\
    -d '{"clientid":"demo-device-1","username":"","password":"demo-password-local-dev-1","peerhost":"127.0.0.1","cert_common_name":""}'

Register a device, authenticate it, revoke it:

  # 1. register: 201 (200 when it exists already)
  $curl -i -X PUT $reg/v1/devices/my-device-1 -H 'Authorization: Bearer $token' \\
    -H 'content-type: application/json' -d '{"password":"my-device-1-machine-generated-secret"}'
  # 2. right password: {"result":"allow",...}
  $curl -s -X POST $authn -H 'content-type: application/json' \\
    -d '{"clientid":"my-device-1","username":"","password":"my-device-1-machine-generated-secret","peerhost":"127.0.0.1","cert_common_name":""}'
  # 3. wrong password: {"result":"deny"}
  $curl -s -X POST $authn -H 'content-type: application/json' \\
    -d '{"clientid":"my-device-1","username":"","password":"wrong","peerhost":"127.0.0.1","cert_common_name":""}'
  # 4. revoke: 204
  $curl -i -X DELETE $reg/v1/devices/my-device-1 -H 'Authorization: Bearer $token'
  # 5. right password again: {"result":"deny"}
  $curl -s -X POST $authn -H 'content-type: application/json' \\
    -d '{"clientid":"my-device-1","username":"","password":"my-device-1-machine-generated-secret","peerhost":"127.0.0.1","cert_common_name":""}'

Status: make status. Restart the services: make restart. Stop it all: make down
MSG
}

restart() {
  # The new ports are checked before a service stops: a taken one leaves the running ones running.
  check_ports restart
  stop_service auth-service
  stop_service registration-service
  up restart
}

down() {
  stop_service auth-service
  stop_service registration-service
  if [[ "$EXTERNAL_DB" == 1 ]]; then
    log "leaving your PostgreSQL alone (EXTERNAL_DB=1)"
    rm -f "$PORTS_FILE"
  else
    db_down
  fi
}

status() {
  if [[ "$EXTERNAL_DB" == 1 ]]; then
    log "database: yours, $DB_HOST:$DB_PORT (EXTERNAL_DB=1)"
  else
    [[ -z "${HA_MEMBERS:-}" ]] || ha_status
    pg_running && log "PostgreSQL running on 127.0.0.1:$PG_PORT (data: $DATA_DIR)" || log "PostgreSQL stopped"
    pgbouncer_running && log "PgBouncer running on 127.0.0.1:$PGBOUNCER_PORT" || log "PgBouncer stopped"
  fi
  local name own port host
  for name in auth-service registration-service; do
    if service_running "$name"; then
      # The port and address it was started with (they are in its stored environment), not this shell's.
      own=$(printf '%s' "${name%-service}" | tr '[:lower:]' '[:upper:]')
      port=$(sed -n "s/^${own}_PORT=//p" "$RUN_DIR/$name.config" 2>/dev/null)
      host=$(sed -n "s/^${own}_HOST=//p" "$RUN_DIR/$name.config" 2>/dev/null)
      log "$name running, pid $(cat "$RUN_DIR/$name.pid"), listening on ${host:-?}:${port:-?}" \
        "(log: $LOG_DIR/$name.log)"
    else
      log "$name stopped"
    fi
  done
}

# DB_HA=1: the database is three PostgreSQL members under Patroni behind HAProxy (scripts/stack-ha.sh), found again by
# `down` and `status` without the variable. Its functions replace the single PostgreSQL's above.
STANDBY_READS_ENV=()
if [[ "${DB_HA:-0}" == 1 || -f "$STACK_DIR/ha/enabled" ]] && [[ "$EXTERNAL_DB" != 1 ]]; then
  # shellcheck source=stack-ha.sh
  source "$ROOT/scripts/stack-ha.sh"
fi

case "$COMMAND" in
  install) install ;;
  db-up) db_up ;;
  db-down) db_down ;;
  pgbouncer-start) start_pgbouncer ;;
  pgbouncer-stop) stop_pgbouncer ;;
  check-ports) check_ports up ;;
  up) up ;;
  restart) restart ;;
  down) down ;;
  status) status ;;
  db-ca) printf '%s\n' "$DB_CA_FILE" ;;
  *) sed -n '2,33p' "$0" >&2; exit 2 ;;
esac
