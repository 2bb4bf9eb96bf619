#!/usr/bin/env bash
# The local certificate authority of `make up` / `make test` / `make bench` / `make chaos`: one CA per stack
# directory, created on first use and kept, and leaf certificates it signs for the stack's own servers (PostgreSQL,
# PgBouncer, auth-service, registration-service) and clients (EMQX's client certificate for mutual TLS).
# A real cluster gets its certificates from cert-manager or a Secret (helm/device-identity/README.md), never from here.
#
#   local-ca.sh ca DIR                         creates DIR/ca.key + DIR/ca.crt unless they exist; prints DIR/ca.crt
#   local-ca.sh issue DIR NAME [DAYS] [SAN]    signs DIR/NAME.key + DIR/NAME.crt (a new key each time, so that a
#                                              reissue is also a rotation); SAN defaults to
#                                              DNS:localhost,IP:127.0.0.1; DAYS to 825; prints DIR/NAME.crt
#   local-ca.sh expired DIR NAME [SAN]         signs DIR/NAME.key + DIR/NAME.crt that expired yesterday (for the
#                                              refusal tests)
#
# Keys are written mode 600 (PostgreSQL refuses a server key that others can read). Uses only `openssl` (Debian's
# openssl package, installed with the system).
set -euo pipefail

die() { printf 'local-ca.sh: %s\n' "$*" >&2; exit 2; }
command -v openssl >/dev/null 2>&1 || die "openssl is missing: install Debian's openssl package"

ensure_ca() {
  local dir=$1
  mkdir -p "$dir"
  if [[ ! -s "$dir/ca.key" || ! -s "$dir/ca.crt" ]]; then
    (umask 077; openssl genpkey -quiet -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$dir/ca.key")
    openssl req -x509 -new -key "$dir/ca.key" -sha256 -days 3650 -subj "/CN=device-identity local CA" \
      -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" \
      -out "$dir/ca.crt" 2>/dev/null
  fi
}

# sign DIR NAME SAN DAYS [yes]: a leaf for NAME valid for DAYS from now, or (yes) one whose validity ended yesterday.
sign() {
  local dir=$1 name=$2 san=$3 days=$4 expired=${5:-no}
  [[ "$name" =~ ^[A-Za-z0-9._-]+$ ]] || die "certificate name '$name' must be letters, digits, '.', '_' or '-'"
  ensure_ca "$dir"
  local ext
  ext=$(mktemp)
  trap 'rm -f "$ext" "$dir/$name.csr"' RETURN
  printf 'basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth,clientAuth\nsubjectAltName=%s\n' \
    "$san" >"$ext"
  (umask 077; openssl genpkey -quiet -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$dir/$name.key.new")
  openssl req -new -key "$dir/$name.key.new" -subj "/CN=$name" -out "$dir/$name.csr" 2>/dev/null
  if [[ "$expired" == yes ]]; then
    # OpenSSL 3.0's `x509 -req` has no -not_before; a negative -days is refused, so the expired leaf is made with
    # `openssl ca`'s explicit -startdate/-enddate through a throwaway database.
    local db
    db=$(mktemp -d)
    touch "$db/index.txt"
    printf '[ca]\ndefault_ca=c\n[c]\ndatabase=%s/index.txt\nnew_certs_dir=%s\nserial=%s/serial\ndefault_md=sha256\npolicy=p\ncopy_extensions=none\n[p]\ncommonName=supplied\n' \
      "$db" "$db" "$db" >"$db/ca.cnf"
    openssl rand -hex 8 >"$db/serial"
    openssl ca -batch -config "$db/ca.cnf" -cert "$dir/ca.crt" -keyfile "$dir/ca.key" -in "$dir/$name.csr" \
      -startdate "$(date -u -d '-3 days' +%Y%m%d%H%M%SZ)" -enddate "$(date -u -d '-1 day' +%Y%m%d%H%M%SZ)" \
      -extfile "$ext" -notext -out "$dir/$name.crt.new" 2>/dev/null
    rm -rf "$db"
  else
    openssl x509 -req -in "$dir/$name.csr" -CA "$dir/ca.crt" -CAkey "$dir/ca.key" -CAcreateserial -sha256 \
      -days "$days" -extfile "$ext" -out "$dir/$name.crt.new" 2>/dev/null
  fi
  # Key and certificate replace the old pair together, each with one rename, so that a reloading server never reads
  # a half-written file.
  mv -f "$dir/$name.key.new" "$dir/$name.key"
  mv -f "$dir/$name.crt.new" "$dir/$name.crt"
  printf '%s\n' "$dir/$name.crt"
}

cmd=${1:-}
case "$cmd" in
  ca)
    [[ $# -eq 2 ]] || die "usage: local-ca.sh ca DIR"
    ensure_ca "$2"; printf '%s\n' "$2/ca.crt" ;;
  issue)
    [[ $# -ge 3 && $# -le 5 ]] || die "usage: local-ca.sh issue DIR NAME [DAYS] [SAN]"
    days=${4:-825}
    [[ "$days" =~ ^[1-9][0-9]*$ ]] || die "DAYS must be a positive whole number, got '$days'"
    sign "$2" "$3" "${5:-DNS:localhost,IP:127.0.0.1}" "$days" ;;
  expired)
    [[ $# -ge 3 && $# -le 4 ]] || die "usage: local-ca.sh expired DIR NAME [SAN]"
    sign "$2" "$3" "${4:-DNS:localhost,IP:127.0.0.1}" 1 yes ;;
  *) die "usage: local-ca.sh ca DIR | issue DIR NAME [DAYS] [SAN] | expired DIR NAME [SAN]" ;;
esac
