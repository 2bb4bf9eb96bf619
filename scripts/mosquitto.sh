#!/usr/bin/env bash
# Mosquitto (Debian's package) for the qos2-probe tests: a throw-away broker on one loopback port.
#
#   scripts/mosquitto.sh install                          apt-get install mosquitto when it is missing (as root,
#                                                         else through sudo -n, else names the command to run)
#   scripts/mosquitto.sh start DIR PORT on|off [AUTH]     write DIR/mosquitto.conf and start, persistence on or off;
#                                                         AUTH=auth uses DIR/passwd and DIR/acl (no anonymous)
#   scripts/mosquitto.sh stop DIR                         SIGTERM (Mosquitto saves its persistence file then), wait
#
# DIR holds the config, the log, the pid file and the persistence file, so a restart with the same DIR and "on"
# finds the saved sessions and one with "off" starts empty. When DIR/tls holds server.crt and server.key, the
# listener speaks MQTT over TLS with them (as the chart's 8883 does). Run as root, Mosquitto drops to the mosquitto user
# (the package creates it), so DIR is handed to that user.
set -euo pipefail
# shellcheck source=packages.sh
source "$(dirname "${BASH_SOURCE[0]}")/packages.sh"

log() { printf '[mosquitto] %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }
is_root() { [[ $(id -u) == 0 ]]; }

install() {
  command -v mosquitto >/dev/null 2>&1 && return 0
  install_packages "[mosquitto]" mosquitto || exit 1
}

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

start() {
  local dir=$1 port=$2 persistence=$3 auth=${4:-}
  [[ "$persistence" == on || "$persistence" == off ]] || die "persistence must be on or off"
  install
  mkdir -p "$dir/data"
  dir=$(cd "$dir" && pwd)
  port_open "$port" && die "port $port is already in use"
  {
    echo "# written by scripts/mosquitto.sh"
    echo "listener $port 127.0.0.1"
    if [[ -s "$dir/tls/server.crt" && -s "$dir/tls/server.key" ]]; then
      # MQTT over TLS on this listener (the chart's 8883): DIR/tls holds the broker's certificate and key.
      echo "certfile $dir/tls/server.crt"
      echo "keyfile $dir/tls/server.key"
    fi
    echo "pid_file $dir/mosquitto.pid"
    echo "log_dest file $dir/mosquitto.log"
    # Every packet in the log: the tests' failure messages quote it (PUBREL / PUBCOMP lines).
    echo "log_type all"
    echo "log_timestamp_format %H:%M:%S"
    if [[ "$persistence" == on ]]; then
      echo "persistence true"
      echo "persistence_location $dir/data/"
      echo "autosave_interval 1"
    else
      echo "persistence false"
    fi
    if [[ "$auth" == auth ]]; then
      echo "allow_anonymous false"
      echo "password_file $dir/passwd"
      echo "acl_file $dir/acl"
    else
      echo "allow_anonymous true"
    fi
    if is_root && id mosquitto >/dev/null 2>&1; then
      echo "user mosquitto"
    fi
  } >"$dir/mosquitto.conf"
  if is_root && id mosquitto >/dev/null 2>&1; then
    # Mosquitto refuses to stay root and drops to this user, which must be able to reach DIR (a 0700 temp dir
    # such as JUnit's @TempDir is not).
    runuser -u mosquitto -- test -x "$(dirname "$dir")" || die "user mosquitto cannot reach $dir: use a directory under a world-readable path"
    chown -R mosquitto "$dir"
    [[ -f "$dir/passwd" ]] && chmod 0600 "$dir/passwd" "$dir/acl"
  fi
  mosquitto -c "$dir/mosquitto.conf" -d
  for _ in $(seq 1 100); do
    port_open "$port" && { log "listening on 127.0.0.1:$port (persistence $persistence${auth:+, $auth})"; return 0; }
    sleep 0.1
  done
  tail -n 20 "$dir/mosquitto.log" >&2 || true
  die "mosquitto did not start on port $port"
}

stop() {
  local dir=$1 pid
  [[ -f "$dir/mosquitto.pid" ]] || return 0
  pid=$(cat "$dir/mosquitto.pid")
  if kill -0 "$pid" 2>/dev/null; then
    kill -TERM "$pid"
    for _ in $(seq 1 100); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.1
    done
    kill -0 "$pid" 2>/dev/null && { log "mosquitto $pid did not stop, killing it"; kill -KILL "$pid"; }
  fi
  rm -f "$dir/mosquitto.pid"
}

case "${1:-}" in
  install) install ;;
  start) [[ $# -ge 4 ]] || die "usage: $0 start DIR PORT on|off [auth]"; start "$2" "$3" "$4" "${5:-}" ;;
  stop) [[ $# -ge 2 ]] || die "usage: $0 stop DIR"; stop "$2" ;;
  *) sed -n '2,12p' "$0" >&2; exit 2 ;;
esac
