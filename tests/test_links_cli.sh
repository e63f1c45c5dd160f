#!/bin/sh
# test_links_cli.sh — the tables that name a plan's links agree: the plan
# JSON's "links" (dispatch_group_link, what a group crosses) and its
# "comm" rows (the link each collective is costed on), the `plan` text's
# "dp links:" line, and `estimate`'s communication table. Two pools:
# h100 with 8 x 400G NICs (3200 Gb/s a node) and a100 with 4 x 200G (800).
# By hand: a group or hand-off across the two is costed on the fewer
# NICs, min(8, 4) = 4, at the smaller node total, 800 Gb/s, so "4x200G
# NIC", marked the bottleneck; a group inside h100 on "8x400G NIC".
set -u
H=${HETPLAN:-./hetplan}
. tests/lib.sh
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

POOLS="--pool 2x8xH100-SXM,nics=8,nic_gbps=400 --pool 2x8xA100-SXM4-80GB,nics=4,nic_gbps=200"

# shellcheck disable=SC2086
if "$H" plan $POOLS -m llama3.1-8b --gbs 64 --format json >"$T/plan.json" 2>"$T/err"; then
	ok
else
	bad "plan --format json: $(head -c 300 "$T/err")"
fi
out=$(python3 - "$T/plan.json" <<'PY'
import json, re, sys
d = json.load(open(sys.argv[1]))
fails, checked, across = [], 0, 0
for i, p in enumerate(d["plans"]):
    links = p.get("links", {})
    for c in p["comm"]:
        if c["dim"] not in ("dp", "cp", "ep"):
            continue
        checked += 1
        label = links.get(c["dim"], "")
        nic = re.search(r"\d+x[\d.]+G NIC", c["link"])
        # the costed NICs are in the label, and both say bottleneck or neither
        if nic and nic.group(0) not in label:
            fails.append(f"plan {i + 1} {c['dim']}: table {c['link']!r}, label {label!r}")
        if ("(bottleneck)" in c["link"]) != ("(bottleneck)" in label):
            fails.append(f"plan {i + 1} {c['dim']}: bottleneck in {c['link']!r} / {label!r}")
        if "(bottleneck)" in c["link"]:
            across += 1
            if "4x200G NIC" not in c["link"]:
                fails.append(f"plan {i + 1} {c['dim']}: across pools on {c['link']!r}")
print("\n".join(fails) if fails else f"checked {checked} across {across}")
PY
)
case $out in
"checked 0 "*) bad "no DP/CP/EP row to check" ;;
*" across 0") bad "no plan has a group across the pools: $out" ;;
checked*) ok ;;
*) bad "$out" ;;
esac

# the text's "dp links:" line of plan 1 is the JSON's
want=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["plans"][0]["links"].get("dp", ""))' "$T/plan.json")
# shellcheck disable=SC2086
got=$("$H" plan $POOLS -m llama3.1-8b --gbs 64 2>/dev/null | sed -n 's/^  dp links: //p' | head -n 1)
[ -n "$want" ] && [ "$got" = "$want" ] && ok || bad "dp links: text '$got', JSON '$want'"

# A pipeline of two replicas, layers 0-3 on a100 and 4-79 on h100: the
# h100 stage's DP group lies on h100 (its own NICs, no bottleneck mark),
# the hand-off between the pools runs at a100's.
cat >"$T/pipe.json" <<'EOF'
{"mbs": 1, "gbs": 64, "recompute": "full", "replicas": [{"count": 2, "stages": [
 {"pool": "a100-sxm4-80gb", "tp": 8, "first_layer": 0, "last_layer": 3},
 {"pool": "h100-sxm", "tp": 8, "first_layer": 4, "last_layer": 79}]}]}
EOF
# shellcheck disable=SC2086
"$H" estimate $POOLS -m llama3.1-70b --plan "$T/pipe.json" >"$T/est" 2>"$T/err"
grep -q '^  dp .* NVSwitch + 8x400G NIC  ' "$T/est" && ok || bad "estimate dp row: $(grep '^  dp ' "$T/est")"
grep -q '^  pp .* NVSwitch + 4x200G NIC (bottleneck) ' "$T/est" && ok ||
	bad "estimate pp row: $(grep '^  pp ' "$T/est")"
# shellcheck disable=SC2086
"$H" estimate $POOLS -m llama3.1-70b --plan "$T/pipe.json" --format json >"$T/est.json" 2>/dev/null
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
rows = {c["dim"]: c["link"] for c in d["comm"]}
sys.exit(rows.get("dp") != "NVSwitch + 8x400G NIC" or rows.get("pp") != "NVSwitch + 4x200G NIC (bottleneck)")
' "$T/est.json" && ok || bad "estimate JSON comm links: $(head -c 300 "$T/est.json")"

finish test_links_cli
