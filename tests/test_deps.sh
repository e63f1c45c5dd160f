#!/bin/sh
# test_deps.sh — tools/deps.sh, which `make deps`, `make run` and `make
# check` call: as root it installs exactly the missing packages with
# apt-get; as a user it prints the command and fails; with nothing missing
# it does nothing. dpkg-query, id and apt-get are stand-ins on PATH that
# record what they were asked, so nothing is installed and nothing reaches
# the network. Where apt-cache is there, every package the script asks
# about must be one the machine's Debian knows (a typo in a name would
# only show on a fresh machine). Run from the repository root.
set -u
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
. tests/lib.sh

mkdir "$T/bin"
# dpkg-query -W -f=FORMAT PKG: "ii " (installed) unless PKG is in $MISSING.
cat >"$T/bin/dpkg-query" <<'SH'
#!/bin/sh
for a; do p=$a; done
echo "$p" >>"$LOG.asked"
case " $MISSING " in *" $p "*) printf 'un ' ;; *) printf 'ii ' ;; esac
SH
printf '#!/bin/sh\necho "$FAKE_UID"\n' >"$T/bin/id"
printf '#!/bin/sh\necho "apt-get $*" >>"$LOG"\nexit 0\n' >"$T/bin/apt-get"
chmod +x "$T/bin/"*

# deps WHAT UID MISSING: run tools/deps.sh; exit status in $rc
deps() {
	rm -f "$T/log" "$T/log.asked"
	LOG=$T/log FAKE_UID=$2 MISSING=$3 PATH="$T/bin:$PATH" sh tools/deps.sh "$1" \
		>"$T/out" 2>"$T/err"
	rc=$?
}

deps build 0 ""
[ "$rc" = 0 ] && [ ! -f "$T/log" ] && ok || bad "nothing missing: exit $rc, apt-get: $(cat "$T/log" 2>/dev/null)"
deps build 0 "libcsv-dev"
[ "$rc" = 0 ] && grep -qx 'apt-get install -y -q libcsv-dev' "$T/log" && ok ||
	bad "root, libcsv-dev missing: exit $rc, apt-get: $(cat "$T/log" 2>/dev/null)"
deps build 1000 "libglpk-dev libcjson-dev"
[ "$rc" = 1 ] && [ ! -f "$T/log" ] && grep -qF 'run: sudo apt-get install libcjson-dev libglpk-dev' "$T/err" &&
	ok || bad "user: exit $rc, stderr $(cat "$T/err")"
# the test packages only for `make check`
deps build 0 "tmux"
[ "$rc" = 0 ] && [ ! -f "$T/log" ] && ok || bad "build asked for tmux: $(cat "$T/log" 2>/dev/null)"
deps test 0 "tmux groff-base"
[ "$rc" = 0 ] && grep -qx 'apt-get install -y -q tmux groff-base' "$T/log" && ok ||
	bad "test: exit $rc, apt-get: $(cat "$T/log" 2>/dev/null)"
# The Makefile runs it before building and before testing.
for t in run check; do
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -n "$t" 2>/dev/null | grep -q 'tools/deps.sh build' && ok || bad "make $t does not run tools/deps.sh"
done
env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -n check 2>/dev/null | grep -q 'tools/deps.sh test' && ok || bad "make check does not run tools/deps.sh test"

# Every package name is one this machine's Debian has a candidate for.
# (Skipped where apt has no package lists: `apt-get update` was never run.)
if command -v apt-cache >/dev/null 2>&1 && apt-cache policy make 2>/dev/null | grep -q 'Candidate: [0-9]'; then
	deps test 0 ""
	for p in $(cat "$T/log.asked"); do
		apt-cache policy "$p" 2>/dev/null | grep -q 'Candidate: [0-9]' && ok ||
			bad "apt-cache knows no package '$p'"
	done
else
	echo "skipped: no apt-cache or no package lists"
fi

finish deps
