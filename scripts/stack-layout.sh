# shellcheck shell=bash
# Sourced by scripts/stack.sh and scripts/faults.sh, with ROOT and PROFILE set: a profile's ports and where its
# stack lives, so that both scripts always mean the same stack. Profiles keep `make up` (dev: 55432/56432) and
# `make test` (test: 55433/56433) apart; PG_PORT, PGBOUNCER_PORT and STACK_DIR override.
case "$PROFILE" in
  dev|test) ;;
  *) echo "unknown profile '$PROFILE' (dev or test)" >&2; exit 2 ;;
esac
# As root, the database processes run as 'postgres', which must reach their state through every parent directory.
# A checkout under a private home (mode 700) is not reachable, so the state then lives under /tmp instead.
default_stack_dir() {
  local dir=$ROOT/.local/$PROFILE
  if [[ $(id -u) -eq 0 ]] && id postgres >/dev/null 2>&1 && ! runuser -u postgres -- test -x "$ROOT"; then
    dir=/tmp/device-identity-$(printf '%s' "$ROOT" | md5sum | cut -c1-12)/$PROFILE
  fi
  printf '%s' "$dir"
}
: "${STACK_DIR:=$(default_stack_dir)}"
# The stack directory remembers the ports its stack was started with ($STACK_DIR/ports, written by stack.sh when it
# starts something, removed when it stops everything), so that `make status` / `make down` without the overrides of
# `make up PG_PORT=…` find the same stack. A variable set in the environment wins over the remembered value.
PORTS_FILE=$STACK_DIR/ports
# The dev profile's default ports. PORT_OFFSET=n shifts all four (and so the management ports, service port + 1000)
# by n: a second checkout runs beside the first with one setting. A port set explicitly stays as set, and the
# shifted ones count as set, so that they win over the ports a running stack remembers.
DEV_PORTS=(PG_PORT=55432 PGBOUNCER_PORT=56432 AUTH_PORT=8081 REGISTRATION_PORT=8082)
if [[ "$PROFILE" == dev && -n "${PORT_OFFSET:-}" ]]; then
  [[ "$PORT_OFFSET" =~ ^[0-9]+$ ]] || { echo "PORT_OFFSET must be a whole number, not '$PORT_OFFSET'" >&2; exit 2; }
  for default in "${DEV_PORTS[@]}"; do
    name=${default%%=*}
    [[ -z "${!name:-}" ]] || continue
    printf -v "$name" '%s' "$((${default#*=} + PORT_OFFSET))"
    export "${name?}"
  done
fi
if [[ -f "$PORTS_FILE" ]]; then
  while IFS='=' read -r name value; do
    case "$name" in
      PG_PORT|PGBOUNCER_PORT|AUTH_PORT|REGISTRATION_PORT)
        [[ -n "${!name:-}" || ! "$value" =~ ^[0-9]+$ ]] || { printf -v "$name" '%s' "$value"; export "${name?}"; } ;;
    esac
  done <"$PORTS_FILE"
fi
case "$PROFILE" in
  dev)  : "${PG_PORT:=55432}" "${PGBOUNCER_PORT:=56432}" ;;
  test) : "${PG_PORT:=55433}" "${PGBOUNCER_PORT:=56433}" ;;
esac
# Records the ports in use (stack.sh, after it started something).
remember_ports() {
  local name
  for name in PG_PORT PGBOUNCER_PORT AUTH_PORT REGISTRATION_PORT; do
    [[ -z "${!name:-}" ]] || printf '%s=%s\n' "$name" "${!name}"
  done >"$PORTS_FILE"
}
PG_BIN=${PG_BIN:-$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)}
DATA_DIR=$STACK_DIR/pg
RUN_DIR=$STACK_DIR/run
LOG_DIR=$STACK_DIR/log
# The stack's own CA and the certificates it signs (scripts/local-ca.sh): PostgreSQL's and PgBouncer's server
# certificates, and the CA every client of the database path verifies them against (sslmode=verify-full).
TLS_DIR=$STACK_DIR/tls
DB_CA_FILE=$TLS_DIR/ca.crt
