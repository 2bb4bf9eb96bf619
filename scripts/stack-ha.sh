#!/usr/bin/env bash
# The replicated database of `DB_HA=1 make up` (and of `make chaos`'s failover phase): etcd, three PostgreSQL 15
# members managed by Patroni, and HAProxy in front of them, all on loopback and TLS on every hop.
#
#   scripts/stack-ha.sh install              install what is missing (Debian: patroni, etcd-server, haproxy)
#   scripts/stack-ha.sh leader [dev]         print the leader member's name (pg1, pg2 or pg3) and PostgreSQL port
#   scripts/stack-ha.sh kill MEMBER [dev]    SIGKILL that member's Patroni and postmaster (the fault of make chaos)
#   scripts/stack-ha.sh start MEMBER [dev]   start that member's Patroni again (it rejoins, rewound if it must)
#   scripts/stack-ha.sh list [dev]           patronictl list
#   scripts/stack-ha.sh standby-up PROFILE PORT   a streaming standby of stack.sh's single PostgreSQL (the test
#                                            stack's, for the standby-read tests), on PORT, made the primary's
#                                            synchronous standby; standby-down stops it and makes the primary
#                                            asynchronous again; replay-pause / replay-resume PROFILE pause its replay
#
# scripts/stack.sh sources this file when DB_HA=1 (or when the stack directory holds a replicated database that
# `make up` started so): it then starts and stops this database instead of the single PostgreSQL, and PG_PORT is
# HAProxy's port, the current leader's. Everything else of the stack (PgBouncer, the services, the seed) is unchanged.
#
# Routing: HAProxy asks every member's Patroni REST API (`GET /primary`: 200 only on the member holding the leader
# key) once a second and forwards TCP to the one that answers 200; a member marked down has its sessions shut, so
# PgBouncer never keeps talking to a demoted primary. PgBouncer's [databases] entry points at HAProxy. HAProxy works
# in TCP mode, so TLS stays end to end: PgBouncer verifies the member's certificate (verify-full) through it, and
# HAProxy checks the REST API over TLS against the same CA. A second frontend (HA_STANDBY_PORT) routes to the member
# Patroni names the synchronous standby (`GET /sync`), for auth-service's standby reads (docs/database-ha.md).
#
# Why HAProxy and not a Patroni callback re-pointing PgBouncer: a callback runs on the member whose role changes,
# so a leader that is SIGKILLed runs none, and two callbacks racing (old leader demoted, new one promoted) can leave
# PgBouncer on the wrong member; the health check asks the leader key itself, every second, whatever died.
#
# Patroni settings (docs/database-ha.md): ttl 8 s, loop_wait 1 s, retry_timeout 3 s (loop_wait + 2 x retry_timeout
# <= ttl, as Patroni requires): a SIGKILLed leader's key expires at most 8 s later and a standby promotes within one
# loop after that. synchronous_mode with synchronous_mode_strict: a commit is acknowledged only
# once a synchronous standby has flushed it, also when no standby is left (writes then wait: 503, never an
# acknowledgement that one more failure would lose), and only a synchronous standby may be promoted.
#
# Ports (all 127.0.0.1; override by variable): members' PostgreSQL HA_PG_PORTS (55441 55442 55443), their Patroni
# REST APIs HA_REST_PORTS (58441 58442 58443), etcd ETCD_PORT/ETCD_PEER_PORT (52441/52442), HAProxy HA_PROXY_PORT
# (55440: PG_PORT then means it) and HA_STANDBY_PORT (55444). State: STACK_DIR/ha/ (data dirs, configs), logs in
# STACK_DIR/log/ (patroni-pgN.log, postgresql-pgN.log, etcd.log, haproxy.log).
set -euo pipefail

HA_PORT_NAMES="HA_PG_PORTS HA_REST_PORTS ETCD_PORT ETCD_PEER_PORT HA_PROXY_PORT HA_STANDBY_PORT"
HA_MEMBERS=(pg1 pg2 pg3)
# Patroni's timing (docs/database-ha.md): the leader key lives HA_TTL s without renewal; members act every
# HA_LOOP_WAIT s; a DCS or PostgreSQL call is retried for HA_RETRY_TIMEOUT s (loop_wait + 2 x retry_timeout <= ttl).
: "${HA_TTL:=8}" "${HA_LOOP_WAIT:=1}" "${HA_RETRY_TIMEOUT:=3}"
# The ports: the environment's, else those the running database was started with (STACK_DIR/ha/ports, so that
# `make down` and `make status` find it without the overrides), else the defaults.
ha_ports() {
  local name value
  if [[ -f "$STACK_DIR/ha/ports" ]]; then
    while IFS='=' read -r name value; do
      [[ " $HA_PORT_NAMES " == *" $name "* && -z "${!name:-}" ]] && printf -v "$name" '%s' "$value"
    done <"$STACK_DIR/ha/ports"
  fi
  : "${HA_PG_PORTS:=55441 55442 55443}" "${HA_REST_PORTS:=58441 58442 58443}"
  : "${ETCD_PORT:=52441}" "${ETCD_PEER_PORT:=52442}" "${HA_PROXY_PORT:=55440}" "${HA_STANDBY_PORT:=55444}"
  read -r -a HA_PG_PORT_LIST <<<"$HA_PG_PORTS"
  read -r -a HA_REST_PORT_LIST <<<"$HA_REST_PORTS"
}
# Patroni's superuser and replication roles: local development passwords, as the stack's other ones.
: "${HA_SUPERUSER_PASSWORD:=identity-ha-superuser-local-dev}" "${HA_REPLICATION_PASSWORD:=identity-ha-replication-local-dev}"

# Sourced by stack.sh or run alone: the members' ports are checked here, one at a time, as each starts.
port_free_or_die() { # port what variable
  (: <>"/dev/tcp/127.0.0.1/$1") 2>/dev/null || return 0
  die "port $1 for $2 is taken: choose another with $3=<free port>"
}
ha_dir() { printf '%s/ha' "$STACK_DIR"; }
ha_index() { # member -> 0..2
  local i
  for i in 0 1 2; do [[ "${HA_MEMBERS[$i]}" == "$1" ]] && { printf '%s' "$i"; return; }; done
  printf 'unknown member %s (pg1, pg2 or pg3)\n' "$1" >&2; return 1
}
ha_rest() { # port path: the HTTP status of a Patroni REST endpoint (000 when it does not answer)
  curl -s -o /dev/null -w '%{http_code}' --max-time 2 --cacert "$DB_CA_FILE" "https://127.0.0.1:$1$2" || true
}
ha_patroni_pid() { cat "$(ha_dir)/$1.pid" 2>/dev/null || true; }
ha_patroni_running() { local pid; pid=$(ha_patroni_pid "$1"); [[ -n "$pid" ]] && kill -0 "$pid" 2>/dev/null; }
ha_etcd_running() { [[ -f "$(ha_dir)/etcd.pid" ]] && kill -0 "$(cat "$(ha_dir)/etcd.pid")" 2>/dev/null; }
ha_haproxy_running() { [[ -f "$(ha_dir)/haproxy.pid" ]] && kill -0 "$(head -n 1 "$(ha_dir)/haproxy.pid")" 2>/dev/null; }

# Runs a long-lived program as the database's OS user in this process (setpriv execs, where runuser would fork and
# keep a parent that forwards no signal): the pid recorded is the program's own, which `kill` must reach.
ha_as_db_exec() {
  if is_root; then exec setpriv --reuid=postgres --regid=postgres --init-groups -- "$@"; else exec "$@"; fi
}

ha_install() {
  local missing=()
  command -v patroni >/dev/null 2>&1 || missing+=(patroni)
  command -v etcd >/dev/null 2>&1 || missing+=(etcd-server)
  command -v haproxy >/dev/null 2>&1 || missing+=(haproxy)
  ((${#missing[@]} == 0)) || install_packages "[stack-ha]" "${missing[@]}"
}

# The leader: "pgN port", from the members' REST APIs (empty when none holds the key).
ha_leader() {
  local i
  for i in 0 1 2; do
    if [[ $(ha_rest "${HA_REST_PORT_LIST[$i]}" /primary) == 200 ]]; then
      printf '%s %s\n' "${HA_MEMBERS[$i]}" "${HA_PG_PORT_LIST[$i]}"; return
    fi
  done
}

ha_prepare_tls() {
  # PostgreSQL's and PgBouncer's certificates are stack.sh's (prepare_tls); etcd and Patroni's REST APIs get their own.
  local name
  for name in etcd patroni; do
    [[ -s "$TLS_DIR/$name.key" ]] && openssl verify -CAfile "$DB_CA_FILE" "$TLS_DIR/$name.crt" >/dev/null 2>&1 \
      || "$ROOT/scripts/local-ca.sh" issue "$TLS_DIR" "$name" >/dev/null
  done
  chmod 600 "$TLS_DIR"/*.key
  if is_root; then chown -R postgres: "$TLS_DIR"; fi
}

ha_start_etcd() {
  ha_etcd_running && return
  port_free_or_die "$ETCD_PORT" etcd ETCD_PORT
  port_free_or_die "$ETCD_PEER_PORT" "etcd (peer)" ETCD_PEER_PORT
  # Mutual TLS: etcd accepts only clients with a certificate of the stack's CA (Patroni's).
  log "starting etcd on 127.0.0.1:$ETCD_PORT (mutual TLS)"
  mkdir -p "$(ha_dir)/etcd"
  is_root && chown postgres: "$(ha_dir)/etcd"
  (ha_as_db_exec etcd --name identity-ha --data-dir "$(ha_dir)/etcd" \
    --listen-client-urls "https://127.0.0.1:$ETCD_PORT" --advertise-client-urls "https://127.0.0.1:$ETCD_PORT" \
    --listen-peer-urls "https://127.0.0.1:$ETCD_PEER_PORT" --initial-advertise-peer-urls "https://127.0.0.1:$ETCD_PEER_PORT" \
    --initial-cluster "identity-ha=https://127.0.0.1:$ETCD_PEER_PORT" \
    --cert-file "$TLS_DIR/etcd.crt" --key-file "$TLS_DIR/etcd.key" --trusted-ca-file "$DB_CA_FILE" --client-cert-auth \
    --peer-cert-file "$TLS_DIR/etcd.crt" --peer-key-file "$TLS_DIR/etcd.key" --peer-trusted-ca-file "$DB_CA_FILE" \
    >>"$LOG_DIR/etcd.log" 2>&1) &
  echo $! >"$(ha_dir)/etcd.pid"
  for _ in $(seq 1 100); do
    curl -fs --max-time 1 --cacert "$DB_CA_FILE" --cert "$TLS_DIR/patroni.crt" --key "$TLS_DIR/patroni.key" \
      "https://127.0.0.1:$ETCD_PORT/health" >/dev/null 2>&1 && return
    sleep 0.2
  done
  tail -n 20 "$LOG_DIR/etcd.log" >&2
  die "etcd did not answer on 127.0.0.1:$ETCD_PORT"
}

# One member's Patroni configuration (mode 600: it holds the superuser's and the replicator's passwords).
ha_write_config() { # member
  local i member=$1
  i=$(ha_index "$member")
  local pg_port=${HA_PG_PORT_LIST[$i]} rest_port=${HA_REST_PORT_LIST[$i]} dir
  dir=$(ha_dir)
  (umask 077; cat >"$dir/$member.yml" <<YAML
# Written by scripts/stack-ha.sh (overwritten at every start).
scope: identity-ha
name: $member
log:
  level: WARNING
restapi:
  listen: 127.0.0.1:$rest_port
  connect_address: 127.0.0.1:$rest_port
  certfile: $TLS_DIR/patroni.crt
  keyfile: $TLS_DIR/patroni.key
  cafile: $DB_CA_FILE
ctl:
  cacert: $DB_CA_FILE
etcd3:
  hosts: 127.0.0.1:$ETCD_PORT
  protocol: https
  cacert: $DB_CA_FILE
  cert: $TLS_DIR/patroni.crt
  key: $TLS_DIR/patroni.key
bootstrap:
  dcs:
    ttl: $HA_TTL
    loop_wait: $HA_LOOP_WAIT
    retry_timeout: $HA_RETRY_TIMEOUT
    maximum_lag_on_failover: 1048576
    synchronous_mode: true
    synchronous_mode_strict: true
    synchronous_node_count: 1
    postgresql:
      use_pg_rewind: true
      parameters:
        max_connections: 100
        max_wal_senders: 10
        max_replication_slots: 10
        wal_level: replica
        wal_log_hints: "on"
        hot_standby: "on"
        password_encryption: scram-sha-256
  initdb:
    - encoding: UTF8
    - locale: C.UTF-8
    - auth-local: peer
    - auth-host: scram-sha-256
postgresql:
  listen: 127.0.0.1:$pg_port
  connect_address: 127.0.0.1:$pg_port
  use_unix_socket: true
  data_dir: $dir/$member
  bin_dir: $PG_BIN
  pgpass: $dir/$member.pgpass
  authentication:
    superuser:
      username: postgres
      password: $HA_SUPERUSER_PASSWORD
      sslmode: verify-full
      sslrootcert: $DB_CA_FILE
    replication:
      username: replicator
      password: $HA_REPLICATION_PASSWORD
      sslmode: verify-full
      sslrootcert: $DB_CA_FILE
  parameters:
    unix_socket_directories: $SOCKET_DIR
    unix_socket_permissions: "0700"
    ssl: "on"
    ssl_cert_file: $TLS_DIR/postgres.crt
    ssl_key_file: $TLS_DIR/postgres.key
    logging_collector: "on"
    log_directory: $LOG_DIR
    log_filename: postgresql-$member.log
    log_min_messages: warning
  pg_hba:
    - local     all         postgres               peer
    - hostssl   replication replicator 127.0.0.1/32 scram-sha-256
    - hostssl   all         all        127.0.0.1/32 scram-sha-256
    - hostnossl all         all        0.0.0.0/0    reject
YAML
  )
  is_root && chown postgres: "$dir/$member.yml"
  return 0
}

ha_start_member() { # member
  local member=$1 i
  i=$(ha_index "$member")
  ha_patroni_running "$member" && return
  port_free_or_die "${HA_PG_PORT_LIST[$i]}" "PostgreSQL member $member" HA_PG_PORTS
  port_free_or_die "${HA_REST_PORT_LIST[$i]}" "Patroni REST API of $member" HA_REST_PORTS
  ha_write_config "$member"
  log "starting Patroni $member (PostgreSQL 127.0.0.1:${HA_PG_PORT_LIST[$i]}, REST https://127.0.0.1:${HA_REST_PORT_LIST[$i]})"
  (HOME=$(ha_dir) ha_as_db_exec patroni "$(ha_dir)/$member.yml" >>"$LOG_DIR/patroni-$member.log" 2>&1) &
  echo $! >"$(ha_dir)/$member.pid"
}

ha_start_haproxy() {
  ha_haproxy_running && return
  port_free_or_die "$HA_PROXY_PORT" HAProxy HA_PROXY_PORT
  port_free_or_die "$HA_STANDBY_PORT" "HAProxy (synchronous standby)" HA_STANDBY_PORT
  local i servers="" standbys=""
  for i in 0 1 2; do
    servers+="  server ${HA_MEMBERS[$i]} 127.0.0.1:${HA_PG_PORT_LIST[$i]} check port ${HA_REST_PORT_LIST[$i]}
"
  done
  # Checks every second (every half second while a member changes state); one failed check marks a member down
  # and shuts its sessions, one passed check brings it up: the leader key, not HAProxy, decides.
  cat >"$(ha_dir)/haproxy.cfg" <<CFG
# Written by scripts/stack-ha.sh (overwritten at every start).
global
  maxconn 1000
  pidfile $(ha_dir)/haproxy.pid
defaults
  mode tcp
  log global
  timeout connect 2s
  timeout check 1s
  # Longer than PgBouncer's server_idle_timeout (600 s): PgBouncer, not HAProxy, closes idle server connections.
  timeout client 15m
  timeout server 15m
  default-server inter 1s fastinter 500ms downinter 1s fall 1 rise 1 on-marked-down shutdown-sessions check-ssl verify required ca-file $DB_CA_FILE
listen primary
  bind 127.0.0.1:$HA_PROXY_PORT
  option httpchk GET /primary
  http-check expect status 200
$servers
listen synchronous-standby
  bind 127.0.0.1:$HA_STANDBY_PORT
  option httpchk GET /sync
  http-check expect status 200
$servers
CFG
  log "starting HAProxy on 127.0.0.1:$HA_PROXY_PORT (the leader) and :$HA_STANDBY_PORT (the synchronous standby)"
  haproxy -q -D -f "$(ha_dir)/haproxy.cfg" >>"$LOG_DIR/haproxy.log" 2>&1 || die "HAProxy did not start (log: $LOG_DIR/haproxy.log)"
}

# The replicated database, ready for writes: etcd, the members, a leader with a synchronous standby, HAProxy, and
# the project's roles and database on the leader (they replicate).
ha_db_start() {
  mkdir -p "$(ha_dir)"
  chmod 700 "$(ha_dir)"
  is_root && chown postgres: "$(ha_dir)"
  : >"$(ha_dir)/enabled"
  # `stack-ha.sh start` (make chaos brings members back) writes the same configuration as stack.sh did.
  printf '%s\n' "$SOCKET_DIR" >"$(ha_dir)/socket-dir"
  local name
  for name in $HA_PORT_NAMES; do printf '%s=%s\n' "$name" "${!name}"; done >"$(ha_dir)/ports"
  ha_prepare_tls
  ha_start_etcd
  local member
  for member in "${HA_MEMBERS[@]}"; do ha_start_member "$member"; done
  ha_start_haproxy
  log "waiting for a leader with a synchronous standby (first start: bootstrap and two base backups)"
  local deadline=$((SECONDS + 180)) sync=""
  while ((SECONDS < deadline)); do
    if [[ -n "$(ha_leader)" ]]; then
      for i in 0 1 2; do [[ $(ha_rest "${HA_REST_PORT_LIST[$i]}" /sync) == 200 ]] && sync=${HA_MEMBERS[$i]}; done
      [[ -n "$sync" ]] && break
    fi
    sleep 1
  done
  [[ -n "$sync" ]] || { tail -n 20 "$LOG_DIR"/patroni-*.log >&2; die "no leader with a synchronous standby within 180 s"; }
  log "leader $(ha_leader | cut -d' ' -f1), synchronous standby $sync"
  # bootstrap.dcs applies to a new cluster only: an existing one gets the timing and durability settings here.
  local leader_rest
  for i in 0 1 2; do [[ "${HA_MEMBERS[$i]}" == "$(ha_leader | cut -d' ' -f1)" ]] && leader_rest=${HA_REST_PORT_LIST[$i]}; done
  curl -fsS -o /dev/null --max-time 5 --cacert "$DB_CA_FILE" -X PATCH "https://127.0.0.1:$leader_rest/config" \
    -H 'content-type: application/json' -d "{\"ttl\":$HA_TTL,\"loop_wait\":$HA_LOOP_WAIT,\"retry_timeout\":$HA_RETRY_TIMEOUT,
    \"synchronous_mode\":true,\"synchronous_mode_strict\":true,\"synchronous_node_count\":1}" \
    || die "Patroni did not take the cluster settings"
  create_roles
}

ha_kill_member() { # member: SIGKILL its Patroni and its postmaster (what a lost machine looks like to the others)
  local member=$1 pid postmaster
  pid=$(ha_patroni_pid "$member")
  postmaster=$(head -n 1 "$(ha_dir)/$member/postmaster.pid" 2>/dev/null || true)
  [[ -n "$pid" ]] && kill -KILL "$pid" 2>/dev/null || true
  [[ -n "$postmaster" ]] && kill -KILL "$postmaster" 2>/dev/null || true
  rm -f "$(ha_dir)/$member.pid"
  return 0
}

ha_stop_member() { # member: a clean stop (Patroni stops its PostgreSQL; SIGKILL after 60 s)
  local member=$1 pid
  pid=$(ha_patroni_pid "$member")
  if [[ -n "$pid" ]] && kill -0 "$pid" 2>/dev/null; then
    kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 1 600); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  fi
  ha_kill_member "$member"
  # An orphaned postmaster (its Patroni was SIGKILLed and nobody restarted it) is stopped too.
  local data=$(ha_dir)/$member
  [[ -f "$data/postmaster.pid" ]] && as_db "$PG_BIN/pg_ctl" -D "$data" -m fast -w stop >/dev/null 2>&1 || true
}

ha_db_stop() {
  local member
  if ha_haproxy_running; then log "stopping HAProxy"; kill -TERM "$(head -n 1 "$(ha_dir)/haproxy.pid")" 2>/dev/null || true; fi
  # Standbys first, so that the leader is not failed over while the cluster goes down.
  local leader
  leader=$(ha_leader | cut -d' ' -f1)
  for member in "${HA_MEMBERS[@]}"; do [[ "$member" == "$leader" ]] || ha_stop_member "$member"; done
  [[ -z "$leader" ]] || ha_stop_member "$leader"
  [[ -n "$leader" ]] && log "stopped Patroni and PostgreSQL (pg1..pg3)"
  if ha_etcd_running; then
    log "stopping etcd"
    kill -TERM "$(cat "$(ha_dir)/etcd.pid")" 2>/dev/null || true
    rm -f "$(ha_dir)/etcd.pid"
  fi
  rm -f "$(ha_dir)/enabled" "$(ha_dir)/ports"
}

ha_status() {
  local i state
  ha_etcd_running && log "etcd running on 127.0.0.1:$ETCD_PORT" || log "etcd stopped"
  for i in 0 1 2; do
    state=stopped
    if ha_patroni_running "${HA_MEMBERS[$i]}"; then
      state="running, $(curl -s --max-time 2 --cacert "$DB_CA_FILE" "https://127.0.0.1:${HA_REST_PORT_LIST[$i]}/patroni" \
        | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d.get("role"), "sync" if d.get("sync_standby") else "")' 2>/dev/null)"
    fi
    log "Patroni ${HA_MEMBERS[$i]} (PostgreSQL 127.0.0.1:${HA_PG_PORT_LIST[$i]}): $state"
  done
  ha_haproxy_running && log "HAProxy on 127.0.0.1:$HA_PROXY_PORT (leader), :$HA_STANDBY_PORT (synchronous standby)" \
    || log "HAProxy stopped"
}

if [[ "${BASH_SOURCE[0]}" != "$0" ]]; then
  # Sourced by scripts/stack.sh: the replicated database takes the single PostgreSQL's place.
  ha_ports
  PG_PORT=$HA_PROXY_PORT DB_SCHEMA_PORT=$HA_PROXY_PORT
  # stack.sh's functions, for this database: the superuser's socket is the leader's.
  pg_running() { [[ -n "$(ha_leader)" ]]; }
  start_postgres() { ha_install; ha_db_start; }
  stop_postgres() { ha_db_stop; }
  psql_admin() {
    local port
    port=$(ha_leader | cut -d' ' -f2)
    [[ -n "$port" ]] || die "no Patroni member holds the leader key"
    as_db psql -X -q -v ON_ERROR_STOP=1 -h "$SOCKET_DIR" -p "$port" -U postgres "$@"
  }
  DATA_DIR=$(ha_dir)
  # auth-service reads from the synchronous standby under identity-core StandbyReads' rule (STANDBY_READS=0: never).
  [[ "${STANDBY_READS:-1}" == 0 ]] || STANDBY_READS_ENV=(IDENTITY_DB_STANDBY_READS_ENABLED=true
    IDENTITY_DB_STANDBY_HOST=127.0.0.1 IDENTITY_DB_STANDBY_PORT="$HA_STANDBY_PORT")
  return 0
fi

# Run as a command.
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
COMMAND=${1:-}
MEMBER=${2:-}
PROFILE=dev
case "$COMMAND" in kill|start) PROFILE=${3:-dev} ;; *) PROFILE=${2:-dev} ;; esac
case "$COMMAND" in standby-up|standby-down|replay-pause|replay-resume) : "${PROFILE:?}" ;; esac
# shellcheck source=stack-layout.sh
source "$ROOT/scripts/stack-layout.sh"
# shellcheck source=packages.sh
source "$ROOT/scripts/packages.sh"
ha_ports
log() { printf '[stack-ha:%s] %s\n' "$PROFILE" "$*" >&2; }
die() { log "error: $*"; exit 1; }
is_root() { [[ $(id -u) -eq 0 ]]; }
as_db() { if is_root; then runuser -u postgres -- "$@"; else "$@"; fi; }
# The single PostgreSQL's socket directory, from its postmaster.pid (line 5), and a standby beside it.
STANDBY_DIR=$STACK_DIR/standby
single_socket() { sed -n 5p "$DATA_DIR/postmaster.pid"; }
psql_single() { as_db psql -X -q -At -v ON_ERROR_STOP=1 -h "$(single_socket)" -p "$PG_PORT" -U postgres -d postgres "$@"; }
psql_standby() {
  as_db psql -X -q -At -v ON_ERROR_STOP=1 -h "$(single_socket)" -p "$(cat "$STANDBY_DIR/port")" -U postgres -d postgres "$@"
}
standby_up() { # port
  local port=$1
  [[ -f "$DATA_DIR/postmaster.pid" ]] || die "no PostgreSQL of profile $PROFILE runs (scripts/stack.sh db-up $PROFILE)"
  standby_down
  port_free_or_die "$port" "the standby" "the port argument"
  log "making a streaming standby of 127.0.0.1:$PG_PORT on 127.0.0.1:$port (synchronous)"
  as_db pg_basebackup -h "$(single_socket)" -p "$PG_PORT" -U postgres -D "$STANDBY_DIR" -X stream -R -c fast \
    || die "pg_basebackup failed"
  printf "primary_conninfo = 'host=%s port=%s user=postgres application_name=identity_standby'\n" \
    "$(single_socket)" "$PG_PORT" | as_db tee -a "$STANDBY_DIR/postgresql.auto.conf" >/dev/null
  echo "$port" >"$STANDBY_DIR/port"
  as_db "$PG_BIN/pg_ctl" -D "$STANDBY_DIR" -l "$LOG_DIR/standby.log" -w -t 60 start \
    -o "-p $port -k $(single_socket) -c unix_socket_permissions=0700 -c listen_addresses=127.0.0.1 -c hot_standby=on \
        -c ssl=on -c ssl_cert_file=$TLS_DIR/postgres.crt -c ssl_key_file=$TLS_DIR/postgres.key" >/dev/null || die "the standby did not start ($LOG_DIR/standby.log)"
  psql_single -c "ALTER SYSTEM SET synchronous_standby_names = 'identity_standby'" -c "SELECT pg_reload_conf()" >/dev/null
  for _ in $(seq 1 100); do
    [[ $(psql_single -c "SELECT sync_state FROM pg_stat_replication WHERE application_name = 'identity_standby'") == sync ]] && return
    sleep 0.2
  done
  die "the standby did not become synchronous"
}
standby_down() {
  if [[ -f "$DATA_DIR/postmaster.pid" ]]; then
    psql_single -c "ALTER SYSTEM RESET synchronous_standby_names" -c "SELECT pg_reload_conf()" >/dev/null || true
  fi
  if [[ -f "$STANDBY_DIR/postmaster.pid" ]]; then
    log "stopping the standby"
    as_db "$PG_BIN/pg_ctl" -D "$STANDBY_DIR" -m immediate -w stop >/dev/null || true
  fi
  rm -rf "$STANDBY_DIR"
}

case "$COMMAND" in
  install) ha_install ;;
  standby-up) standby_up "${3:?standby-up PROFILE PORT}" ;;
  standby-down) standby_down ;;
  replay-pause) psql_standby -c "SELECT pg_wal_replay_pause()" >/dev/null ;;
  replay-resume) psql_standby -c "SELECT pg_wal_replay_resume()" >/dev/null ;;
  leader) ha_leader ;;
  kill) ha_kill_member "$MEMBER" ;;
  start)
    SOCKET_DIR=$(cat "$(ha_dir)/socket-dir")
    ha_start_member "$MEMBER" ;;
  list) as_db patronictl -c "$(ha_dir)/pg1.yml" list ;;
  *) sed -n '2,10p' "$0" >&2; exit 2 ;;
esac
