#!/usr/bin/env bash
# Installs the Debian packages named on the command line that are not installed yet.
# As root: apt-get install. Otherwise: prints the exact command and fails.
# Node.js and npm are checked by command (the machine may carry a nodesource build).
set -u
missing=()
for p in "$@"; do
  st=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null)
  case "$st" in *"install ok installed"*) ;; *) missing+=("$p") ;; esac
done
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  missing+=(nodejs npm)
fi
[ ${#missing[@]} -eq 0 ] && exit 0
echo "deps: installing ${missing[*]}" >&2
if [ "$(id -u)" -ne 0 ]; then
  echo "deps: run as root: apt-get update && apt-get install -y ${missing[*]}" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >&2 || { echo "deps: apt-get update failed" >&2; exit 1; }
apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2 || {
  echo "deps: apt-get install ${missing[*]} failed" >&2; exit 1; }
