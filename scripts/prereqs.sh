#!/usr/bin/env bash
# Checks (and as root installs) the Debian packages tracewire needs to build, test and run.
# Fast when everything is installed: one dpkg-query, no apt-get.
# Usage: scripts/prereqs.sh          (./tracewire runs it; it can also be sourced: tracewire_prereqs)
# Exit/return status: 0 when all are installed (or were just installed), 1 otherwise.

# The packages and their scopes are data: scripts/prereqs.list (the tests' Prerequisites reads it
# too, so a test cannot name a tool that a fresh machine would not get).
TRACEWIRE_PACKAGES=()
tracewire_prereqs_list="$(dirname "${BASH_SOURCE[0]}")/prereqs.list"
while read -r pkg scope _; do
  case "$pkg" in ''|'#'*) continue ;; esac
  case "$scope" in
    run) TRACEWIRE_PACKAGES+=("$pkg") ;;
    # With a display, the Wireshark GUI too (~150 MB of Qt), so the app's "Show in Wireshark"
    # works on a fresh machine; headless machines and TRACEWIRE_NO_WIRESHARK_GUI=1 skip it.
    gui) if [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ] && [ -z "${TRACEWIRE_NO_WIRESHARK_GUI:-}" ]; then
           TRACEWIRE_PACKAGES+=("$pkg")
         fi ;;
    # `./tracewire test` only: what the tests run (sshd in a namespace, stress-ng, python3, ...)
    test) [ "${TRACEWIRE_TESTING:-}" = 1 ] && TRACEWIRE_PACKAGES+=("$pkg") ;;
    base) ;;
    *) echo "tracewire: $tracewire_prereqs_list: unknown scope '$scope' for $pkg" >&2 ;;
  esac
done < "$tracewire_prereqs_list"

tracewire_prereqs() {
  if ! command -v dpkg-query >/dev/null 2>&1; then
    echo "tracewire: not a Debian-like system (no dpkg-query); make sure these are installed: ${TRACEWIRE_PACKAGES[*]}" >&2
    return 0
  fi
  local missing=() pkg installed
  # one dpkg-query for all of them (a package it does not know is simply not in its output)
  installed=" $(dpkg-query -W -f='${Package}=${db:Status-Abbrev}\n' "${TRACEWIRE_PACKAGES[@]}" 2>/dev/null \
    | sed -n 's/^\([^=]*\)=ii.*/\1/p' | tr '\n' ' ')"
  for pkg in "${TRACEWIRE_PACKAGES[@]}"; do
    [[ $installed == *" $pkg "* ]] || missing+=("$pkg")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  if [ "$(id -u)" -ne 0 ]; then
    echo "tracewire: missing Debian packages: ${missing[*]}" >&2
    echo "tracewire: install them with (after sudo apt-get update on a fresh machine):" >&2
    echo "sudo apt-get install -y ${missing[*]}" >&2
    return 1
  fi
  echo "tracewire: installing missing Debian packages: ${missing[*]}" >&2
  apt-get update >&2 || { echo "tracewire: apt-get update failed" >&2; return 1; }
  DEBIAN_FRONTEND=noninteractive apt-get install -y "${missing[@]}" >&2 \
    || { echo "tracewire: apt-get install failed: ${missing[*]}" >&2; return 1; }
}

# Executed (not sourced): run the check.
if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  tracewire_prereqs
  exit $?
fi
