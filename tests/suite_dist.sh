#!/usr/bin/env bash
# The release archives `make dist` built (build/dist): what they hold, what their binaries need
# (readelf -d: only the C library's own objects; objdump -T: no glibc symbol version newer than
# 2.28; no copy relocation), and that each binary works unpacked into an empty directory with an
# empty environment and a fresh HOME: explain, run, an ACP session, a model turn (libcurl loaded
# with dlopen) and the clear error without libcurl; then acpx (a real ACP client) drives it.  The aarch64 binary runs under qemu-user with
# Debian's arm64 glibc (libc6-arm64-cross).  suite_registry replays the registry's checks.
set -u
cd "$(dirname "$0")/.."
. tests/lib.sh
DIST=build/dist
VERSION=$(sed -n 's/^#define SHC_VERSION "\(.*\)"/\1/p' include/shcard.h)
GLIBC_MAX=2.28
SYSROOT_ARM64=/usr/aarch64-linux-gnu
ACPX=$PWD/tests/e2e/node_modules/.bin/acpx
declare -A MACHINE=([x86_64]="Advanced Micro Devices X86-64" [aarch64]="AArch64")
declare -A LOADER=([x86_64]="ld-linux-x86-64.so.2" [aarch64]="ld-linux-aarch64.so.1")

# elf_check NAME BINARY ARCH: the binary needs the C library only, nothing newer than glibc 2.28
elf_check() {
  local name=$1 b=$2 arch=$3 needed extra max ver
  if ! readelf -h "$b" 2>/dev/null | grep -q "Machine:.*${MACHINE[$arch]}"; then
    fail "$name: not an $arch ELF file"; return
  fi
  needed=$(readelf -d "$b" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
  extra=$(printf '%s\n' "$needed" | grep -vxE "libc\.so\.6|libm\.so\.6|libdl\.so\.2|libpthread\.so\.0|${LOADER[$arch]//./\\.}" | tr '\n' ' ')
  if [ -n "$needed" ] && [ -z "${extra// /}" ]; then ok; else fail "$name: NEEDED beyond the C library: [$extra] (all: $(echo $needed))"; fi
  if readelf -d "$b" | grep -qE '\((RPATH|RUNPATH)\)'; then fail "$name: has an RPATH/RUNPATH"; else ok; fi
  max=$(objdump -T "$b" | grep -oE '\(GLIBC_[0-9][0-9.]*\)' | tr -d '()' | sed 's/GLIBC_//' | sort -uV | tail -n1)
  if [ -n "$max" ] && [ "$(printf '%s\n%s\n' "$max" "$GLIBC_MAX" | sort -V | tail -n1)" = "$GLIBC_MAX" ]; then ok
  else fail "$name: needs GLIBC_$max (more than $GLIBC_MAX): $(objdump -T "$b" | grep -E "GLIBC_$max[^.0-9]" | awk '{print $NF}' | head -5 | tr '\n' ' ')"; fi
  # Zig 0.11's glibc stubs give all data symbols one address: a copied stdin would alias stdout
  if readelf -r "$b" | grep -q '_COPY'; then fail "$name: has copy relocations: $(readelf -r "$b" | grep _COPY | awk '{print $5}' | tr '\n' ' ')"; else ok; fi
  if readelf -d "$b" | grep -q 'BIND_NOW' && readelf -h "$b" | grep -q 'DYN (Position-Independent'; then ok
  else fail "$name: not a PIE with BIND_NOW"; fi
}

# the checks catch a binary that is not portable: the development build (the machine's glibc,
# libjansson.so.4) must fail them
if [ -x "$BUILD/shcard" ]; then
  before=$_fail
  elf_check "development build" "$BUILD/shcard" x86_64 >/dev/null
  if [ "$_fail" -gt "$before" ]; then _fail=$before; ok; else fail "elf_check passes the development build: it checks nothing"; fi
else
  fail "no $BUILD/shcard to show the checks fail on a development build (make build-tests)"
fi

[ -f "$DIST/SHA256SUMS" ] || { fail "no $DIST/SHA256SUMS: run make dist"; finish; exit 1; }
if (cd "$DIST" && sha256sum --quiet -c SHA256SUMS); then ok; else fail "SHA256SUMS does not match the archives"; fi

# the binary, LICENSE, README.md, and every section-1 page of man/
want_members=$( (printf '%s\n' shcard LICENSE README.md man/; for p in man/*.1.scd; do echo "man/$(basename "$p" .scd)"; done) | sort | tr '\n' ' ')
want_members=${want_members% }
for arch in x86_64 aarch64; do
  tgz="$DIST/shcard-$VERSION-linux-$arch.tar.gz"
  [ -f "$tgz" ] || { fail "$tgz missing"; continue; }
  grep -q "  $(basename "$tgz")\$" "$DIST/SHA256SUMS" && ok || fail "$tgz not in SHA256SUMS"
  members=$(tar -tzf "$tgz" | sort | tr '\n' ' ')
  expect_eq "$arch archive members" "${members% }" "$want_members"
  bad_owner=$(tar -tvzf "$tgz" | awk '$2 != "0/0"' | head -3)
  expect_eq "$arch archive entries owned by 0/0" "$bad_owner" ""
  mode=$(tar -tvzf "$tgz" shcard | awk '{print $1}')
  expect_eq "$arch binary mode" "$mode" "-rwxr-xr-x"
  # the man pages are rendered (roff), not scdoc source
  if tar -xzOf "$tgz" man/shcard.1 | grep -q '^\.TH "shcard" "1"'; then ok; else fail "$arch man/shcard.1 is not a rendered page"; fi

  dir=$(mktemp -d)
  tar -xzf "$tgz" -C "$dir"
  elf_check "$arch binary" "$dir/shcard" "$arch"
  if [ "$arch" = x86_64 ]; then
    out=$(python3 tests/dist_smoke.py --model --no-curl "$dir" 2>&1)
  else
    out=$(python3 tests/dist_smoke.py --no-curl "$dir" qemu-aarch64-static -L "$SYSROOT_ARM64" 2>&1)
  fi
  n_ok=$(printf '%s\n' "$out" | grep -c '^ok: ')
  printf '%s\n' "$out" | grep -v '^ok: ' | sed 's/^/  /'
  _pass=$((_pass + n_ok))
  n_fail=$(printf '%s\n' "$out" | grep -c '^FAIL')
  _fail=$((_fail + n_fail))
  [ "$n_ok" -ge 9 ] || fail "$arch smoke tests: only $n_ok passed"
  # a real ACP client (acpx, pinned in tests/e2e) drives the unpacked binary
  agent="$dir/shcard acp"
  [ "$arch" = aarch64 ] && agent="qemu-aarch64-static -L $SYSROOT_ARM64 $agent"
  if [ -x "$ACPX" ]; then
    mkdir -p "$dir/ws" "$dir/acpx-home"
    out=$(cd "$dir/ws" && HOME="$dir/acpx-home" timeout 120 "$ACPX" --agent "$agent" --approve-all exec 'echo acpx-$((6*7))' 2>&1)
    case "$out" in *'```console'*acpx-42*'```'*'[done] end_turn'*) ok ;; *) fail "$arch: acpx session: $out" ;; esac
  else
    fail "acpx is missing: run make npm-deps"
  fi
  rm -rf "$dir"
done
finish
