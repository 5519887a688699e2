#!/usr/bin/env bash
# dist/fetch-source.sh PKG DEST: the upstream source of Debian's package PKG (its .orig tarball,
# hash-checked by apt against the signed Sources index), unpacked into DEST.  apt runs with its
# own lists and cache under DEST/../apt-src, made from the machine's own sources with deb-src
# added, so nothing of the machine's package state changes and no other mirror is needed.
set -eu
pkg=$1 dest=$2
mkdir -p "$dest"
state=$(cd "$(dirname "$dest")" && pwd)/apt-src
rm -rf "$dest" "$state/dl"
mkdir -p "$state/lists/partial" "$state/cache/archives/partial" "$state/sources" "$state/dl" "$dest"
touch "$state/empty.list"
# the machine's sources, as deb-src: deb822 files (Types: line) and one-line lists
for f in /etc/apt/sources.list.d/*.sources; do
  [ -f "$f" ] && sed -E 's/^Types:.*/Types: deb-src/' "$f" > "$state/sources/$(basename "$f")"
done
for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
  [ -f "$f" ] && sed -nE 's/^deb[[:space:]]+/deb-src /p' "$f" >> "$state/sources/machine.list"
done
apt_opts=(-o "Dir::State::Lists=$state/lists" -o "Dir::Cache=$state/cache"
          -o "Dir::Etc::SourceParts=$state/sources" -o "Dir::Etc::SourceList=$state/empty.list"
          -o "APT::Sandbox::User=root" -o "Debug::NoLocking=1")
if [ ! -f "$state/lists/updated" ]; then
  apt-get "${apt_opts[@]}" -qq update >&2 || { echo "dist: apt-get update (deb-src lists) failed" >&2; exit 1; }
  touch "$state/lists/updated"
fi
(cd "$state/dl" && apt-get "${apt_opts[@]}" -qq source --download-only "$pkg") >&2 \
  || { echo "dist: apt-get source $pkg failed" >&2; exit 1; }
orig=$(ls "$state/dl/${pkg}"_*.orig.tar.* 2>/dev/null | head -n1)
[ -n "$orig" ] || { echo "dist: no .orig tarball for $pkg" >&2; exit 1; }
tar -xf "$orig" -C "$dest" --strip-components=1
echo "dist: $(basename "$orig") unpacked into $dest" >&2
