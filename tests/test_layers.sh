#!/bin/sh
# test_layers.sh — the layers of HACKING.md, read from the #include lines of
# src/ and ui/ (no build needed):
#   a. no cycle between modules; x.c and x.h are one module (x), a header
#      with no .c file is a module of its own. `#include "y.h"` is resolved
#      the way the Makefile's -Isrc -Iui does: src/y.h, else ui/y.h (build/
#      headers such as embed.h are generated data, not modules).
#   b. the engine (src/) includes nothing from ui/ and no curses header,
#      so it stays a library the CLI, the TUI, the tests and the fuzzers
#      link alike.
#   c. the batch front end and the TUI meet only through tui.h, the TUI's
#      entry point: ui/tui*.c never include cli.h, and ui/cli.c never
#      includes the TUI's internals (tui_int.h or a tui_*.h).
# A cycle is printed as "a -> b -> a" with the #include that closes each
# step. Run from the repository root.
#
# A module's private header (x_int.h, x_priv.h) is part of module x: it
# declares what x.c and its sibling files (x_*.c) share, and includes x.h.
# Cycles listed here print as "known", not as failures; there are none.
KNOWN_CYCLES=""
set -u
# By path: the self-test below runs this script from a scratch directory.
. "$(cd "$(dirname "$0")" && pwd)/lib.sh"

out=$(python3 - <<'PY'
import os, re, sys

inc = re.compile(r'^\s*#\s*include\s*([<"])([^">]+)[">]')
files = sorted(os.path.join(d, f) for d in ("src", "ui") for f in os.listdir(d)
               if f.endswith((".c", ".h")))
def module(path):
    return re.sub(r"_(int|priv)$", "", os.path.splitext(path)[0])
def resolve(name):
    for d in ("src", "ui"):
        p = os.path.join(d, name)
        if os.path.exists(p):
            return p
    return None

edges = {}          # module -> {module: "file:line: #include ..."}
problems = []
for f in files:
    src_layer = f.startswith("src/")
    for n, line in enumerate(open(f, encoding="utf-8", errors="replace"), 1):
        m = inc.match(line)
        if not m:
            continue
        kind, name = m.groups()
        where = f"{f}:{n}: {line.strip()}"
        if src_layer and re.search(r"(^|/)n?curses(w)?(\.h|/)|^(ncursesw/)?(panel|menu|form|term)\.h$",
                                   name):
            problems.append(f"b. the engine includes curses: {where}")
        if kind != '"':
            continue
        target = resolve(name)
        if target is None:
            continue                       # generated (build/embed.h)
        if src_layer and target.startswith("ui/"):
            problems.append(f"b. the engine includes the front end: {where}")
        base = os.path.basename(f)
        tbase = os.path.basename(target)
        if base.startswith("tui") and tbase == "cli.h":
            problems.append(f"c. the TUI includes the batch front end: {where}")
        if base == "cli.c" and tbase.startswith("tui") and tbase != "tui.h":
            problems.append(f"c. cli.c includes the TUI's internals: {where}")
        a, b = module(f), module(target)
        if a != b:
            edges.setdefault(a, {}).setdefault(b, where)

# a. cycles: depth-first search; each back edge closes one cycle.
cycles, seen = [], set()
state = {}
def dfs(u, stack):
    state[u] = 1
    stack.append(u)
    for v in sorted(edges.get(u, {})):
        if state.get(v) == 1:
            cyc = stack[stack.index(v):] + [v]
            key = frozenset(cyc)
            if key not in seen:
                seen.add(key)
                cycles.append(cyc)
        elif v not in state:
            dfs(v, stack)
    stack.pop()
    state[u] = 2
for u in sorted(set(module(f) for f in files)):
    if u not in state:
        dfs(u, [])
for cyc in cycles:
    steps = "\n".join(f"      {edges[a][b]}" for a, b in zip(cyc, cyc[1:]))
    problems.append("a. include cycle: " + " -> ".join(cyc) + "\n" + steps)

print(f"modules {len(set(module(f) for f in files))} edges "
      f"{sum(len(v) for v in edges.values())}")
for p in problems:
    print("PROBLEM " + p)
PY
)
rc=$?
# Inside the self-test below: just report what the scan saw.
[ -n "${LAYERS_SELFTEST:-}" ] && { echo "$out"; exit 0; }
[ "$rc" = 0 ] && ok || bad "the include scan failed (python3 exit $rc)"
echo "$out" | head -1
# The scan must have seen the tree, or it passes vacuously: src/ and ui/
# held 51 modules when this was written (counted with ls: 27 src/*.c, the
# header-only perf_int.h and report_priv.h, 21 ui/*.c and tui_int.h);
# files come and go, so at least 40.
n=$(echo "$out" | sed -n '1s/^modules \([0-9]*\) .*/\1/p')
[ "${n:-0}" -ge 40 ] && ok || bad "the scan found ${n:-0} modules, expected at least 40"
problems=$(echo "$out" | sed -n '/^PROBLEM/,$p')
[ -n "$KNOWN_CYCLES" ] && echo "$KNOWN_CYCLES" | while IFS= read -r k; do
	echo "$problems" | grep -qxF "PROBLEM a. include cycle: $k" &&
		echo "known (not a failure): $k" || echo "note: '$k' is gone; remove it from KNOWN_CYCLES"
done
new=$(echo "$problems" | awk -v known="$KNOWN_CYCLES" '
	BEGIN { n = split(known, k, "\n"); for (i = 1; i <= n; i++) skip["PROBLEM a. include cycle: " k[i]] = 1 }
	/^PROBLEM/ { show = !($0 in skip) }
	show { print }')
if [ -n "$new" ]; then
	echo "$new" | sed 's/^PROBLEM /FAIL: /'
	fail=$((fail + $(echo "$new" | grep -c '^PROBLEM')))
else
	ok
fi

# The checker finds what it is meant to: a planted two-file cycle and a
# planted curses include, in a scratch copy of the tree layout.
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
mkdir -p "$T/src" "$T/ui"
printf '#include "b.h"\n' >"$T/src/a.c"; : >"$T/src/a.h"
printf '#include "a.h"\n' >"$T/src/b.c"; : >"$T/src/b.h"
printf '#include <curses.h>\n' >"$T/src/c.c"
printf '#include "cli.h"\n' >"$T/ui/tui_x.c"; : >"$T/ui/cli.h"
me=$(cd "$(dirname "$0")" && pwd)/$(basename "$0")
planted=$(cd "$T" && LAYERS_SELFTEST=1 sh "$me" 2>&1)
for want in 'include cycle: src/a -> src/b -> src/a' 'the engine includes curses: src/c.c:1' \
	'the TUI includes the batch front end: ui/tui_x.c:1'; do
	echo "$planted" | grep -qF "$want" && ok || bad "planted problem not found: $want"
done

finish layers
