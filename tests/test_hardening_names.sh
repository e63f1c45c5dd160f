#!/bin/sh
# test_hardening_names.sh — hostile names and values on the paths added in
# the December 2026 session (mixed-GPU plans that run on Megatron-Core, the
# Slurm heterogeneous job, optimizer_impl, compile, master none). Each
# block failed on the binary before its fix (commit message says how).
# Facts used: RFC 3629 (UTF-8: a multi-byte character is whole or absent),
# Python's own decoders (bytes.decode, json, tomllib) as independent
# parsers of what hetplan writes. Run from the repository root after
# `make`.
# Copyright (C) 2026 the hetplan authors. GPL-3.0-or-later.
set -u
H=${HETPLAN:-./hetplan}
. tests/lib.sh
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
export XDG_CACHE_HOME="$T/cache" XDG_CONFIG_HOME="$T/config" HETPLAN_PRICES_CACHE=
mkdir -p "$T/config/hetplan"

# utf8 FILE...: every file decodes as UTF-8 (Python's strict decoder)
utf8() {
	python3 -c "import sys; [open(f, 'rb').read().decode('utf-8') for f in sys.argv[1:]]" "$@" 2>"$T/pyerr" &&
		ok || bad "not UTF-8: $* ($(tail -1 "$T/pyerr"))"
}

# 1. A GPU name of 3-byte characters in a user catalog. The reasons a
# mixed-GPU plan does not run on a framework held each GPU name cut at 24
# bytes ("%.24s"), which for "a" + ten U+20AC (31 bytes) ends inside the
# eighth euro sign: plan's table and HTML carried the broken byte pair,
# the JSON two U+FFFD. The name is whole now (31 bytes fit the reason).
EU=$(printf 'a\342\202\254\342\202\254\342\202\254\342\202\254\342\202\254\342\202\254\342\202\254\342\202\254\342\202\254\342\202\254')
python3 - "$T" "$EU" <<'PY'
import json, sys
t, name = sys.argv[1], sys.argv[2]
gpu = {"name": name, "memory_gb": 80, "memory_bw_tbps": 3.35, "vendor": "NVIDIA",
       "arch": "Hopper", "tflops": {"bf16": 989.4, "fp8": 1978.9},
       "scaleup_gbyte_s_per_dir": 450, "scaleup_domain": 8, "tdp_w": 700,
       "defaults": {"gpus_per_node": 8, "intra": "nvswitch", "nics": 8, "nic_gbps": 400}}
json.dump({"gpus": [gpu]}, open(t + "/config/hetplan/gpus.json", "w"), ensure_ascii=False)
json.dump({"name": "c", "pools": [{"name": "a", "gpu": "H100-SXM", "nodes": 2},
                                  {"name": "b", "gpu": name, "nodes": 2}]},
          open(t + "/cu.json", "w"), ensure_ascii=False)
PY
for f in table json html md csv; do
	expect 0 "" $H plan -c "$T/cu.json" -m llama3.1-8b --gbs 64 --format $f -o "$T/plan.$f"
	utf8 "$T/plan.$f"
done
grep -qE "mixed GPU types [a-z ]+ \\((H100-SXM and $EU|$EU and H100-SXM)\\)" "$T/plan.json" && ok ||
	bad "the GPU name is not whole in the runs-on reason: $(grep -o 'mixed GPU types[^"]*' "$T/plan.json" | head -1)"

finish test_hardening_names
