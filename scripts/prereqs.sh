#!/usr/bin/env bash
# Checks (and as root installs) the Debian packages tracewire needs to build, test and run.
# Fast when everything is installed: one dpkg-query, no apt-get.
# Usage: scripts/prereqs.sh          (./tracewire runs it; it can also be sourced: tracewire_prereqs)
# Exit/return status: 0 when all are installed (or were just installed), 1 otherwise.

TRACEWIRE_PACKAGES=(openjdk-17-jdk-headless maven tshark tcpdump trace-cmd libpcap0.8 xvfb libgtk-3-0 lua5.2 lua5.4 iproute2 openssh-client)
# With a display, the Wireshark GUI too (Debian `wireshark`, ~150 MB of Qt), so the desktop app's
# "Open in Wireshark" / "Show in Wireshark" work side by side on a fresh machine. Headless machines
# (CI, servers) skip it; TRACEWIRE_NO_WIRESHARK_GUI=1 skips it too (e.g. screenshots under Xvfb).
if [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ] && [ -z "${TRACEWIRE_NO_WIRESHARK_GUI:-}" ]; then
  TRACEWIRE_PACKAGES+=(wireshark)
fi
# `./tracewire test` only: the remote-capture test runs its own sshd in a network namespace. A user
# who only runs tracewire gets no SSH server installed.
if [ "${TRACEWIRE_TESTING:-}" = 1 ]; then
  TRACEWIRE_PACKAGES+=(openssh-server)
fi

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
