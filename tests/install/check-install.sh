#!/usr/bin/env bash
# What a user gets from make install, checked in a scratch prefix (BUILD/check-install):
# the wrappers build and run an example, say they are Pangea's and show their flags; pkg-config
# gives what a static link needs; the man pages render without warnings; pangea-info answers
# its options in lines of at most 100 characters; make uninstall leaves nothing behind.
#
#   tests/install/check-install.sh BUILD_DIR
set -euo pipefail
build=${1:-build}
prefix=$(cd "$build" && pwd)/check-install
fail() {
    echo "check-install: $*" >&2
    exit 1
}
rm -rf "$prefix"
make --no-print-directory install BUILD="$build" PREFIX="$prefix" >/dev/null
bin=$prefix/bin

# The wrappers.
"$bin/oshcc" -o "$prefix/hello" examples/hello.c
"$bin/oshrun" -np 2 "$prefix/hello" >/dev/null || fail "hello did not run under oshrun"
for tool in oshcc oshc++ oshrun; do
    version=$("$bin/$tool" --version)
    [[ $version == "$tool: Pangea "* ]] || fail "$tool --version does not say Pangea: $version"
done
"$bin/oshcc" --showme | grep -q -- "-lpangea" || fail "oshcc --showme lacks -lpangea"
"$bin/oshcc" --showme:compile | grep -q -- "-I$prefix/include" || fail "--showme:compile"
"$bin/oshcc" --showme:link | grep -q -- "-L$prefix/lib" || fail "--showme:link"
objdump -p "$prefix/lib/libpangea.so" | grep -q "SONAME *libpangea.so.0$" ||
    fail "libpangea.so has no versioned soname"

# pkg-config, a dynamic and a static link.
export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
pkg-config --exists pangea || fail "pkg-config does not find pangea"
static_libs=$(pkg-config --static --libs pangea)
for lib in -lfabric -lm -ldl -lrt -lmpich; do
    grep -q -- "$lib\b" <<<"$static_libs" || fail "pkg-config --static --libs lacks $lib: $static_libs"
done
# shellcheck disable=SC2046 # word splitting of the flags is meant
cc -o "$prefix/hello-static" examples/hello.c $(pkg-config --cflags pangea) \
    ${static_libs/-lpangea/-Wl,-Bstatic -lpangea -Wl,-Bdynamic}
if ldd "$prefix/hello-static" | grep -q libpangea; then fail "the static link uses libpangea.so"; fi
"$bin/oshrun" -np 2 "$prefix/hello-static" >/dev/null || fail "the static program did not run"

# Man pages: installed, found by man, rendered without warnings.
for page in oshcc.1 oshc++.1 oshrun.1 pangea-info.1 pangea-tune.1 pangea-prof.1 pangea-map.1; do
    [ -e "$prefix/share/man/man1/$page" ] || fail "man page $page not installed"
done
[ -e "$prefix/share/man/man3/shmemx.3" ] || fail "man page shmemx.3 not installed"
for page in man/*.[13]; do
    warnings=$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l "$page" 2>&1 >/dev/null)
    [ -z "$warnings" ] || fail "man -l $page warns: $warnings"
done
MANPATH=$prefix/share/man man -w oshcc >/dev/null || fail "man does not find oshcc in the prefix"

# pangea-info.
info=$bin/pangea-info
"$info" --version | grep -q "Pangea" || fail "pangea-info --version"
"$info" --help | grep -q -- "--param" || fail "pangea-info --help"
out=$("$info" --all)
grep -q "^prefix: $prefix$" <<<"$out" || fail "pangea-info does not show the prefix $prefix"
grep -q "^library: $prefix/lib/libpangea.so.0" <<<"$out" || fail "pangea-info: library file"
grep -q "^MPI: MPICH" <<<"$out" || fail "pangea-info: MPICH version"
grep -q "^libfabric: [0-9]" <<<"$out" || fail "pangea-info: libfabric version"
long=$(awk 'length > 100' <<<"$out")
[ -z "$long" ] || fail "pangea-info --all has lines over 100 characters: $long"
"$info" --param SHMEM_SYMMETRIC_SIZE | grep -q "^SHMEM_SYMMETRIC_SIZE " || fail "--param"
if "$info" --param SHMEM_NO_SUCH >/dev/null 2>&1; then fail "--param of no tunable succeeded"; fi
"$info" --footprint 64 8 | grep -q "^nodes 8$" || fail "pangea-info --footprint"
SHMEM_SYMETRIC_SIZE=1G "$info" 2>&1 >/dev/null | grep -q "closest: SHMEM_SYMMETRIC_SIZE" ||
    fail "pangea-info does not warn about a misspelled variable"

# The profile tools run from the prefix (their figures: tests/prof/tools.sh).
"$bin/pangea-prof" --help | grep -q -- "--text" || fail "pangea-prof --help"
"$bin/pangea-map" --help | grep -q -- "--topology" || fail "pangea-map --help"

# make uninstall removes everything make install put there.
make --no-print-directory uninstall BUILD="$build" PREFIX="$prefix" >/dev/null
left=$(find "$prefix" \( -type f -o -type l \) ! -name 'hello*' | head)
[ -z "$left" ] || fail "make uninstall left: $left"
rm -rf "$prefix"
echo "check-install: ok"
