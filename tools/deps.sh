#!/bin/sh
# deps.sh build|test — make sure the Debian packages hetplan needs are present.
# As root with apt-get: install what is missing. Otherwise print the exact
# command and fail, so `make run` and `make check` never half-build.
set -u
what=${1:-build}
pkgs="gcc make libncurses-dev libcurl4-openssl-dev libcjson-dev libglpk-dev libcsv-dev"
if [ "$what" = test ]; then
  pkgs="$pkgs tmux python3 groff-base chromium"
fi
missing=""
if command -v dpkg-query >/dev/null 2>&1; then
  for p in $pkgs; do
    st=$(dpkg-query -W -f='${db:Status-Abbrev}' "$p" 2>/dev/null || true)
    case "$st" in ii*) ;; *) missing="$missing $p" ;; esac
  done
else
  # Not Debian: trust the compiler and PATH, and say what we looked for.
  for h in ncursesw/curses.h curl/curl.h cjson/cJSON.h glpk.h csv.h; do
    printf '#include <%s>\nint main(void){return 0;}\n' "$h" |
      ${CC:-cc} -x c -o /dev/null - >/dev/null 2>&1 || missing="$missing <$h>"
  done
  if [ -n "$missing" ]; then
    echo "hetplan: missing headers:$missing" >&2
    echo "hetplan: install ncursesw, libcurl, cJSON, GLPK and libcsv development packages" >&2
    exit 1
  fi
  exit 0
fi
[ -z "$missing" ] && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "hetplan: installing$missing" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y -q $missing >/dev/null 2>&1 ||
    { apt-get update -q >/dev/null 2>&1 && apt-get install -y -q $missing; } || {
      echo "hetplan: apt-get install$missing failed" >&2; exit 1; }
  exit 0
fi
echo "hetplan: missing packages:$missing" >&2
echo "hetplan: run: sudo apt-get install$missing" >&2
exit 1
