#!/usr/bin/env bash
# ctest man_page: swarmcast(1), as `swarmcast --man` prints it, renders
# without a single groff warning, and names every option and environment
# variable that --help lists (both are printed from config_options.c; this
# checks the printers).   tests/install/man_page.sh SWARMCAST_BINARY
set -euo pipefail
bin=$1
command -v groff >/dev/null || { echo "man_page: groff is missing (scripts/deps.sh test installs groff-base)" >&2; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/swarmcast-man.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail() { echo "man_page: $*" >&2; exit 1; }
"$bin" --man >"$tmp/swarmcast.1"
"$bin" --help >"$tmp/help"
# -ww: every warning; -z: no output, only the diagnostics.
groff -man -Tutf8 -ww -z "$tmp/swarmcast.1" 2>"$tmp/warnings"
[ ! -s "$tmp/warnings" ] || { cat "$tmp/warnings" >&2; fail "groff warns"; }
# The rendered text, with the hyphens and line breaks undone.
MANWIDTH=200 man -l "$tmp/swarmcast.1" 2>/dev/null | col -b | sed 's/‐/-/g' >"$tmp/text" ||
  groff -man -Tascii -rLL=200n "$tmp/swarmcast.1" | col -b >"$tmp/text"
grep -q 'EXIT STATUS' "$tmp/text" || fail "no EXIT STATUS section"
n=0
for word in $(grep -oE '(^| )--[a-z][a-z0-9-]*|SWARMCAST_[A-Z_]+' "$tmp/help" | tr -d ' ' | sort -u); do
  grep -qe "$word" "$tmp/text" || fail "--help lists $word, the manual page does not"
  n=$((n + 1))
done
[ "$n" -gt 100 ] || fail "only $n options and variables in --help"
for mode in live relay headless experiment worker; do
  grep -qE "^ +$mode" "$tmp/text" || fail "the manual page has no mode '$mode'"
done
echo "man_page: ok ($n options and variables of --help, all in swarmcast(1); groff: no warnings)"
