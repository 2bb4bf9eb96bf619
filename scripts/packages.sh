# Sourced by scripts/install.sh, scripts/stack.sh and scripts/mosquitto.sh: installs Debian/Ubuntu packages with
# apt-get as root, else through non-interactive sudo (`sudo -n`, as on a GitHub runner, whose user is not root but
# has passwordless sudo), else fails with the exact command to run. Never prompts for a password.

# install_packages LOG_PREFIX PACKAGE...
install_packages() {
  local prefix=$1 through=()
  shift
  if [[ $(id -u) -ne 0 ]]; then
    if command -v sudo >/dev/null 2>&1 && sudo -n true >/dev/null 2>&1; then
      through=(sudo -n)
    else
      printf "%s error: missing %s, and this is not root and cannot use sudo without a password: run 'sudo apt-get update && sudo apt-get install -y %s' (or this as root), then this again\n" \
        "$prefix" "$*" "$*" >&2
      return 1
    fi
  fi
  printf '%s installing %s%s\n' "$prefix" "$*" "${through:+ (sudo -n)}" >&2
  "${through[@]}" apt-get update -qq >/dev/null
  "${through[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
}
