#!/bin/sh
# test_prices.sh — `hetplan prices` against a fixture HTTP server on
# 127.0.0.1 (tests/fixture_server.py): fetching every source, conditional
# GET, the price book row by row, a plan's cost before and after an
# update, and the faults a network brings, each of which must end in a
# clear message with the last good cache left byte for byte. Every command
# runs under `timeout`, and libcurl's limits are shortened through the
# environment, so nothing here can hang. Run from the repository root.
# Copyright (C) 2026 the hetplan authors. GPL-3.0-or-later.
set -u
H=${HETPLAN:-./hetplan}
T=$(mktemp -d)
SRV= HOLD=
cleanup() {
	[ -n "$SRV" ] && kill "$SRV" 2>/dev/null && wait "$SRV" 2>/dev/null
	[ -n "$HOLD" ] && kill "$HOLD" 2>/dev/null && wait "$HOLD" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
. tests/lib.sh

# Never the internet: no proxies, caches and config in the temp dir.
unset http_proxy https_proxy all_proxy HTTP_PROXY HTTPS_PROXY ALL_PROXY no_proxy NO_PROXY \
	HETPLAN_PRICES_CACHE HETPLAN_HTTP_MAX_BYTES
export XDG_CACHE_HOME="$T/cache" XDG_CONFIG_HOME="$T/config"
# A stall limit of 10 s: the fixture server answers in milliseconds, but a
# loaded machine (or `nice -n 19` beside busy processes) can keep it off
# the CPU for a second or more, which a 1 s limit would call a stall. The
# trickle fault below sets 1 s itself.
export HETPLAN_HTTP_TIMEOUT=10 HETPLAN_HTTP_RETRY_MAX=2
C="$T/cache/hetplan"

python3 tests/fixture_server.py "$T/port" "$T/mode" "$T/log" &
SRV=$!
i=0
while [ ! -s "$T/port" ] && [ $i -lt 1200 ]; do sleep 0.05; i=$((i + 1)); done
[ -s "$T/port" ] || { echo "prices: fixture server did not start"; echo "prices: 0 passed, 1 failed"; exit 1; }
P=$(cat "$T/port")
U="http://127.0.0.1:$P"
export HETPLAN_SKYPILOT_URL="$U/v8" HETPLAN_AZURE_URL="$U/azure/prices"
# A port nothing listens on, held for the whole suite: bound without
# listen(), it refuses connections, and no other program (another suite's
# server binding port 0) can be given the number meanwhile, as it could
# once a probe socket was closed.
python3 -c 'import os, socket, sys, time
s = socket.socket()
s.bind(("127.0.0.1", 0))
open(sys.argv[1] + ".tmp", "w").write(str(s.getsockname()[1]))
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
time.sleep(86400)' "$T/deadport" &
HOLD=$!
i=0
while [ ! -s "$T/deadport" ] && [ $i -lt 1200 ]; do sleep 0.05; i=$((i + 1)); done
DEAD=$(cat "$T/deadport" 2>/dev/null)
[ -n "$DEAD" ] || { echo "prices: no port held for the refused-connection cases"; echo "prices: 0 passed, 1 failed"; exit 1; }
mode() { echo "$1" >"$T/mode"; }

# expect CODE 'text in stdout or stderr' -- args to `hetplan prices`
expect() {
	code=$1 want=$2; shift 2
	start=$(date +%s)
	timeout 120 "$H" prices "$@" >"$T/out" 2>"$T/err"; rc=$?
	took=$(( $(date +%s) - start ))
	[ -n "${TIMING:-}" ] && echo "  ${took}s prices $*" >&2
	if [ "$rc" != "$code" ]; then
		bad "prices $* -> exit $rc, want $code ($(head -c 400 "$T/err"))"; return 1; fi
	if [ -n "$want" ] && ! grep -qF -- "$want" "$T/out" "$T/err"; then
		bad "prices $* -> output lacks '$want': $(head -c 400 "$T/err") $(head -c 300 "$T/out")"; return 1; fi
	ok
}
has() {   # has 'exact line' FILE
	if grep -qxF -- "$1" "$2"; then ok; else bad "missing line: $1"; sed 's/^/    /' "$2" | head -20; fi
}
lacks() {
	if grep -qF -- "$1" "$2"; then bad "unexpected: $1"; else ok; fi
}

# --- no network, nothing cached: the embedded snapshot, said so ----------
mode ok
expect 0 "using the embedded snapshot only"
expect 0 "embedded snapshot: public catalog and price-page rows, each citing its source"
# Updating with nothing reachable: each source fails, the snapshot stays.
HETPLAN_SKYPILOT_URL="http://127.0.0.1:$DEAD/v8" expect 1 "could not connect" --update
grep -q "using the embedded snapshot only" "$T/out" && ok || bad "offline update: no snapshot notice"
[ "$(grep -c 'failed: .*could not connect.*nothing cached' "$T/err")" = 5 ] && ok || bad "offline update: want 5 failures: $(cat "$T/err")"
# A source name is padded to 22 terminal columns, not bytes: "json:http://0:1/"
# (16 columns) and U+65E5 (East_Asian_Width W: 2 columns, 3 bytes) take 18,
# so 4 spaces and the separating one; by bytes (19) it was 3 and 1. Port 1
# on 0.0.0.0 (this host) refuses the connection.
expect 1 "could not connect" --update --source "json:http://0:1/日"
grep -q '^json:http://0:1/日     FAILED ' "$T/out" && ok || bad "source column by bytes: $(head -1 "$T/out")"

# --- every source, fetched in parallel ------------------------------------
expect 0 "fetched" --update --source skypilot:aws --source skypilot:gcp --source skypilot:azure \
	--source skypilot:lambda --source skypilot:runpod --source azure --source "json:$U/prices.json"
[ "$(grep -c ' fetched ' "$T/out")" = 7 ] && ok || bad "want 7 fetched: $(cat "$T/out")"
grep -q '^azure .*fetched.*4 pages' "$T/out" && ok || bad "azure: want 4 pages: $(cat "$T/out")"
[ -f "$C/prices-skypilot-aws.cache" ] && [ -f "$C/prices-azure.cache" ] && ok || bad "cache files missing: $(ls "$C")"

# The book row by row (values from the fixture lines, worked by hand):
expect 0 "" --all --format csv
# aws p5.48xlarge us-east-1 use1-az2: 55.04 / 8 = 6.88
has "H100-SXM,aws,us-east-1,use1-az2,p5.48xlarge,8,on-demand,6.88,55.04,skypilot:aws," "$T/out"
# gcp a2-ultragpu-1g host 1.09962 + A100-80GB x1 1.8462 = 2.94582
has "A100-SXM4-80GB,gcp,us-central1,us-central1-a,a2-ultragpu-1g,1,on-demand,2.94582,2.94582,skypilot:gcp," "$T/out"
# runpod 4x_MI300X_SECURE 9.56 / 4 = 2.39
has "MI300X,runpod,US,US-TX-1,4x_MI300X_SECURE,4,on-demand,2.39,9.56,skypilot:runpod," "$T/out"
# lambda gpu_8x_h100_sxm5 23.92 / 8 = 2.99
has "H100-SXM,lambda,us-east-1,,gpu_8x_h100_sxm5,8,on-demand,2.99,23.92,skypilot:lambda," "$T/out"
# Azure API: ND96isr H100 v5 98.32 / 8 = 12.29 (this source outranks the catalog's row)
has "H100-SXM,azure,eastus,,Standard_ND96isr_H100_v5,8,on-demand,12.29,98.32,azure," "$T/out"
# Azure API: a sixth of an A10 at 0.454 -> 2.724 per GPU-hour
has "A10,azure,westus,,Standard_NV6ads_A10_v5,0.166667,on-demand,2.724,0.454,azure," "$T/out"
# The feed: 32 / 8 = 4, and a GPU the feed itself defines
has "H100-SXM,labcloud,eu-north,,hgx-h100-8,8,on-demand,4,32,json:$U/prices.json," "$T/out"
has "MI355X,labcloud,eu-north,,mi355x-8,8,on-demand,2.5,20,json:$U/prices.json,list price" "$T/out"
# Dropped Azure rows: Windows 104.9, reservation 540000, low priority 0.9, dev/test 5.0
lacks ",104.9," "$T/out"; lacks ",540000," "$T/out"; lacks ",0.9,azure" "$T/out"; lacks ",5,azure" "$T/out"
expect 0 "" --all --spot --format csv --provider azure
# Azure API spot 24.58 / 8 = 3.0725
has "H100-SXM,azure,eastus,,Standard_ND96isr_H100_v5,8,spot,3.0725,24.58,azure," "$T/out"
expect 0 "" --gpu MI355X-288GB --format csv
has "MI355X,labcloud,eu-north,,mi355x-8,8,on-demand,2.5,20,json:$U/prices.json,list price" "$T/out"
expect 0 "" --format json
python3 -c "
import json; d = json.load(open('$T/out'))
s = {x['name']: x for x in d['sources']}
assert s['embedded']['origin'] == 'embedded' and s['embedded']['fetched_at'] is None
assert s['skypilot:aws']['origin'] == 'cache' and s['skypilot:aws']['age_s'] < 60
assert s['skypilot:aws']['url'] == '$U/v8/aws/vms.csv'
assert any(o['gpu'] == 'MI300X' and o['provider'] == 'runpod' for o in d['offers'])
" && ok || bad "json output"

# --- conditional GET: the second fetch is a 304 ----------------------------
: >"$T/log"
expect 0 "not modified" --update --source skypilot:aws
grep -q 'GET /v8/aws/vms.csv if-none-match="' "$T/log" && ok || bad "no If-None-Match sent: $(cat "$T/log")"

# --- progress: a line redrawn on a terminal, nothing otherwise -------------
if command -v script >/dev/null 2>&1; then
	XDG_CACHE_HOME="$T/c4" timeout 120 script -qec "$H prices --update --source skypilot:gcp" /dev/null >"$T/tty" 2>&1
	grep -q "$(printf '\r\033')\[K  0/1  skypilot:gcp" "$T/tty" && ok || bad "no progress line on a terminal: $(od -c "$T/tty" | head -3)"
fi
XDG_CACHE_HOME="$T/c4" expect 0 "not modified" --update --source skypilot:gcp
[ ! -s "$T/err" ] && ok || bad "stderr not silent off a terminal: $(cat "$T/err")"

# --- a plan's cost follows the price book ---------------------------------
est() {
	timeout 120 "$H" estimate --pool 2x8xH100-SXM -m llama3.1-8b --tp 1 --pp 1 --mbs 1 --gbs 64 --recompute full \
		--format json >"$T/est" 2>"$T/esterr" || bad "estimate failed: $(cat "$T/esterr")"
	python3 -c "import json; d=json.load(open('$T/est'))['cost']; print(d['usd_per_hour'], d['price_sources'][0]['source'])"
}
XDG_CACHE_HOME="$T/c2"
before=$(est)
# snapshot: cheapest 8-GPU H100-SXM node is aws p5.48xlarge at 55.04; 2 nodes
case "$before" in "110.08 aws p5.48xlarge us-east-1 on-demand; embedded snapshot") ok ;; *) bad "before: $before" ;; esac
expect 0 "fetched" --update --source "json:$U/prices.json"
after=$(est)
# the feed's labcloud hgx-h100-8 at 32 a node: 2 x 32 = 64
case "$after" in "64 labcloud hgx-h100-8 eu-north on-demand; json:http"*) ok ;; *) bad "after: $after" ;; esac
# An explicit price is never replaced.
timeout 120 "$H" estimate --pool 2x8xH100-SXM,price=50 -m llama3.1-8b --tp 1 --pp 1 --mbs 1 --gbs 64 --recompute full \
	--format json >"$T/est" 2>&1
python3 -c "import json; d=json.load(open('$T/est'))['cost']; assert d['usd_per_hour'] == 100 and d['price_sources'][0]['source'] == '--pool'" \
	&& ok || bad "explicit price replaced: $(head -c 300 "$T/est")"
XDG_CACHE_HOME="$T/cache"

# --- Azure: an empty NextPageLink on a full page ---------------------------
mode azure-emptylink
: >"$T/log"
expect 0 'continued at $skip=6' --update --source azure
grep -q 'skip=6' "$T/log" && ok || bad "no \$skip=6 request: $(cat "$T/log")"
mode ok

# --- faults: clear message, cache byte for byte, no hang -------------------
mkdir -p "$T/saved"
cp "$C"/prices-*.cache "$T/saved/"
same_cache() {
	for f in "$T/saved"/*.cache; do
		cmp -s "$f" "$C/$(basename "$f")" || { bad "$1: cache $(basename "$f") changed"; return; }
	done
	ok
}
fault() {   # fault NAME MODE 'message' -- args
	name=$1; mode "$2"; want=$3; shift 3
	expect 1 "$want" --update "$@" && same_cache "$name"
	grep -q "keeping the cached copy" "$T/err" && ok || bad "$name: no 'keeping the cached copy'"
	mode ok
}
JS="json:$U/prices.json"
HETPLAN_SKYPILOT_URL="http://127.0.0.1:$DEAD/v8" fault refused ok "could not connect" --source skypilot:aws
fault 404 404 "HTTP 404 Not Found" --source skypilot:aws
fault 500 500 "HTTP 500 Internal Server Error (after a retry)" --source skypilot:aws
fault 429-short 429:1 "asks to wait 1 s again; try again after" --source skypilot:aws
fault 429-long 429:3600 "asks to wait 3600 s (longer than hetplan waits); try again after" --source skypilot:aws
# 2 bytes/s against a limit of 1024 bytes/s for 1 s: a stall on any machine
HETPLAN_HTTP_TIMEOUT=1
fault trickle trickle "transfer stalled" --source skypilot:aws
HETPLAN_HTTP_TIMEOUT=10
fault big big "larger than the size cap of 100.0 KiB" --source skypilot:aws --max-bytes 100K
fault bigstream bigstream "larger than the size cap of 100.0 KiB" --source skypilot:aws --max-bytes 100K
fault truncated truncated "response truncated" --source skypilot:aws
fault badcsv badcsv "malformed CSV" --source skypilot:aws
fault wrongheader wrongheader "not a SkyPilot catalog CSV: the header lacks InstanceType, AcceleratorName" --source skypilot:aws
fault badjson badjson "malformed JSON" --source "$JS"
fault azure-emptylink azure-emptylink-fail 'empty NextPageLink; continued at $skip=6' --source azure
fault loop loop "more than 5 redirects (a redirect loop?)" --source skypilot:aws
# After all that the book still reads the last good data, with its age.
expect 0 "cached" --provider aws
grep -q '^skypilot:aws .*cached .* old), ' "$T/out" && ok || bad "no age shown: $(tail -5 "$T/out")"
# A 429 whose Retry-After is short is waited out, then the fetch works.
mode 429once:1
expect 0 "skypilot:aws" --update --source skypilot:aws
mode ok

# --- a damaged cache file is skipped with a warning ------------------------
printf 'hetplan-cache 1\n{"source":"skypilot:gcp","format":"skypilot-csv","fetched_at":1,"bytes":99}\nshort' \
	>"$C/prices-skypilot-gcp.cache"
expect 0 "ignoring a cache file" --provider gcp
grep -q "damaged" "$T/err" && ok || bad "damaged cache: $(cat "$T/err")"

# --- config file, flags, usage errors --------------------------------------
mkdir -p "$T/config/hetplan"
printf '{"theme": "other keys are not ours", "prices": {"skypilot_url": "%s/v8", "sources": ["skypilot:runpod"], "timeout_s": 2}}\n' "$U" \
	>"$T/config/hetplan/config.json"
HETPLAN_SKYPILOT_URL= expect 0 "skypilot:runpod        fetched" --update --cache-dir "$T/c3"
[ -f "$T/c3/prices-skypilot-runpod.cache" ] && ok || bad "--cache-dir not used"
printf '{"prices": {"timeout_s": "soon"}}\n' >"$T/config/hetplan/config.json"
expect 3 "config.json: prices.timeout_s" 
rm "$T/config/hetplan/config.json"
expect 2 "unknown price source 'vast'" --update --source vast
expect 2 "--source needs --update" --source skypilot:aws
expect 3 "unknown GPU 'H999'" --gpu H999
expect 2 "--format: expected table, json or csv" --format xml
expect 2 "--max-bytes" --max-bytes lots
HETPLAN_HTTP_TIMEOUT=later expect 3 "HETPLAN_HTTP_TIMEOUT" 
expect 0 "usage: hetplan prices" --help

# --- GPU specs from a json: feed reach plan and estimate -------------------
# tests/data/prices/feed_x1000.json declares X1000: 100 GB, bf16 1000 TF,
# and sells it at 3.00 $/GPU-h in 8-GPU instances.
XDG_CACHE_HOME="$T/c5"
run() {   # run NAME CODE -- hetplan args (output in $T/out, $T/err)
	name=$1 code=$2; shift 2
	timeout 120 "$H" "$@" >"$T/out" 2>"$T/err"; rc=$?
	if [ "$rc" = "$code" ]; then ok; else bad "$name: hetplan $* -> exit $rc, want $code ($(head -c 300 "$T/err"))"; fi
}
X1K="--pool 2x8xX1000 -m llama3.1-8b --tp 1 --pp 1 --mbs 1 --gbs 64 --recompute full --format json"
run "X1000 before the feed" 3 estimate $X1K
grep -q "unknown GPU 'X1000'" "$T/err" && ok || bad "X1000 before: $(cat "$T/err")"
expect 0 "fetched" --update --source "json:$U/x1000.json"
run "X1000 plan" 0 plan --pool 2x8xX1000 -m llama3.1-8b --gbs 64 --format json
run "X1000 estimate" 0 estimate $X1K
# MFU is model FLOP/s per GPU over the part's dense bf16 peak: with the
# feed's 1000 TF, mfu x 1000 equals model_tflops_per_gpu. Capacity is the
# feed's 100 GB = 1e11 bytes (no memory_usable_mib given). Price: 3.00
# $/GPU-h x 8 GPUs x 2 nodes = 48 $/h.
python3 -c "
import json; d = json.load(open('$T/out'))
assert abs(d['mfu'] * 1000 - d['model_tflops_per_gpu']) < 1e-6 * d['model_tflops_per_gpu'], d['mfu']
assert d['memory'][0]['gpu'] == 'X1000' and d['memory'][0]['capacity_bytes'] == 1e11, d['memory'][0]
assert d['cost']['usd_per_hour'] == 48, d['cost']
" && ok || bad "X1000 estimate does not use the feed's specs: $(head -c 400 "$T/out")"
run "gpus lists X1000" 0 gpus --format csv
grep -q '^X1000,hopper,100,5,2000,fp8,' "$T/out" && ok || bad "gpus: no X1000 row: $(grep X1000 "$T/out")"

# --- hetplan gpus --update --------------------------------------------------
# tests/data/prices/gpus.json: X2000 (200 GB, fp8 4000 TF) and an H100-SXM
# whose source names the test catalog.
G="$T/c5/hetplan/gpus-catalog.cache"
gpus() {   # gpus CODE 'text in stdout or stderr' -- args
	code=$1 want=$2; shift 2
	run "gpus $*" "$code" gpus "$@" || return 1
	if [ -n "$want" ] && ! grep -qF -- "$want" "$T/out" "$T/err"; then
		bad "gpus $* -> output lacks '$want': $(head -c 300 "$T/err") $(head -c 300 "$T/out")"; fi
}
gpus 0 "" --format csv
lacks "X2000" "$T/out"
gpus 0 "$U/gpus.json: fetched, 2 GPUs" --update --source "$U/gpus.json"
grep -q '^X2000 .* 200 .*4000.0 fp8' "$T/out" && ok || bad "gpus --update: no X2000 row: $(cat "$T/out")"
grep -q "^GPU catalog from $U/gpus.json, cached .*, 2 GPUs" "$T/out" && ok || bad "no catalog footer: $(tail -3 "$T/out")"
gpus 0 "" --format json
python3 -c "
import json; g = {x['name']: x for x in json.load(open('$T/out'))}
assert g['H100-SXM']['source'].startswith('test catalog'), g['H100-SXM']['source']
# memory_gb is binary GB (a "24 GB" RTX 3090 reports 24,576 MiB): 200 x 2^30
assert g['X2000']['memory_bytes'] == 200 * 2**30 and g['X1000']['memory_bytes'] == 100 * 2**30
" && ok || bad "cached catalog not merged over the embedded one"
run "X2000 estimate" 0 estimate --pool 1x8xX2000 -m llama3.1-8b --tp 1 --pp 1 --mbs 1 --gbs 64 --format json
# The user's own gpus.json wins over a downloaded catalog.
mkdir -p "$T/config/hetplan"
printf '{"gpus": [{"name": "H100-SXM", "memory_gb": 80, "tflops": {"bf16": 989}, "source": "my own"}]}\n' \
	>"$T/config/hetplan/gpus.json"
gpus 0 "" --format json
python3 -c "
import json; g = {x['name']: x for x in json.load(open('$T/out'))}
assert g['H100-SXM']['source'] == 'my own', g['H100-SXM']['source']
" && ok || bad "user gpus.json replaced by the download"
rm "$T/config/hetplan/gpus.json"
: >"$T/log"
gpus 0 "not modified" --update --source "$U/gpus.json"
grep -q 'GET /gpus.json if-none-match="' "$T/log" && ok || bad "gpus: no If-None-Match: $(cat "$T/log")"
# The default source is the project's published data/gpus.json.
HETPLAN_GPUS_URL= timeout 120 "$H" gpus --help | grep -q "project's data/gpus.json" && ok || bad "gpus --help"

# Faults: exit 1, a clear message, the last good catalog byte for byte.
cp "$G" "$T/gpus-saved"
gfault() {   # gfault NAME MODE 'message' -- args
	name=$1; mode "$2"; want=$3; shift 3
	gpus 1 "$want" --update "$@"
	cmp -s "$T/gpus-saved" "$G" && ok || bad "gpus $name: cache changed"
	grep -q "keeping the cached copy" "$T/err" && ok || bad "gpus $name: no 'keeping the cached copy'"
	grep -q '^X2000 ' "$T/out" && ok || bad "gpus $name: listing lost the cached catalog"
	mode ok
}
GS="--source $U/gpus.json"
gfault refused ok "could not connect" --source "http://127.0.0.1:$DEAD/gpus.json"
gfault 404 404 "HTTP 404 Not Found" $GS
gfault 500 500 "HTTP 500 Internal Server Error (after a retry)" $GS
gfault 429-long 429:3600 "asks to wait 3600 s (longer than hetplan waits); try again after" $GS
gfault trickle trickle "transfer stalled" $GS
gfault big big "larger than the size cap of 100.0 KiB" $GS --max-bytes 100K
gfault bigstream bigstream "larger than the size cap of 100.0 KiB" $GS --max-bytes 100K
gfault truncated truncated "response truncated" $GS
gfault badjson badjson "malformed JSON" $GS
gfault wrongschema wrongschema "gpus: expected" $GS
gfault schema2 schema2 "schema" $GS
gfault hostile hostile "gpus[0].name" $GS
if grep -q "$(printf '\033')" "$T/err"; then bad "gpus hostile: raw ESC on stderr"; else ok; fi
gfault loop loop "more than 5 redirects" $GS
# A cache directory that cannot be made or written: exit 1, nothing listed lost.
: >"$T/afile"
gpus 1 "cache directory $T/afile/sub" --update $GS --cache-dir "$T/afile/sub"
gpus 1 "/proc/self/gpus-catalog.cache" --update $GS --cache-dir /proc/self
# Offline without a cache: the embedded catalog, said so.
gpus 1 "nothing cached" --update --cache-dir "$T/c6" --source "http://127.0.0.1:$DEAD/gpus.json"
lacks "X2000" "$T/out"
# A damaged catalog cache is named, and the embedded catalog stays usable.
printf 'hetplan-cache 1\n{"source":"gpus:x","format":"hetplan-gpus","fetched_at":1,"bytes":99}\nshort' >"$G"
gpus 0 "ignoring a cache file" 
grep -q "damaged" "$T/err" && ok || bad "gpus damaged cache: $(cat "$T/err")"
# Usage errors.
gpus 2 "--source needs --update" --source "$U/gpus.json"
gpus 2 "expected an http:// or https:// URL" --update --source ftp://x
gpus 2 "--timeout: expected" --timeout never
XDG_CACHE_HOME="$T/cache"

# --- feed text in the CSV and terminal sinks --------------------------------
# A cached json: feed (written here as the cache holds it: the header line,
# the metadata line with the body's byte count, the body) with a comma and
# a quote in names, a note that starts a spreadsheet formula, and CJK
# names. RFC 4180: a field with , or " is quoted, " doubled; OWASP's CSV
# injection rule (escape.h): a cell starting with = gets a leading '.
mkdir -p "$T/c7"
python3 - "$T/c7/prices-json-0000000000000000.cache" <<'PY'
import json, sys
body = json.dumps({"schema": "hetplan-prices/1", "currency": "USD", "offers": [
    {"provider": "lab,cloud", "region": "eu-north", "instance": "h\"gx", "gpu": "H100-SXM",
     "gpus": 8, "usd_per_hour": 32.0, "note": "=1+2"},
    {"provider": "東京", "region": "ap-東京-1", "zone": "東京-1a", "instance": "t8",
     "gpu": "H100-SXM", "gpus": 8, "usd_per_hour": 30.0}]}).encode()
meta = {"source": "json:http://127.0.0.1:9/f.json", "url": "http://127.0.0.1:9/f.json",
        "etag": "", "last_modified": "", "format": "hetplan-json", "fetched_at": 1796325820,
        "checked_at": 1796325820, "bytes": len(body)}
open(sys.argv[1], "wb").write(b"hetplan-cache 1\n" + json.dumps(meta).encode() + b"\n" + body)
PY
expect 0 "" --cache-dir "$T/c7" --gpu H100-SXM --all --format csv
# 32 / 8 = 4 and 30 / 8 = 3.75 a GPU-hour
has 'H100-SXM,"lab,cloud",eu-north,,"h""gx",8,on-demand,4,32,json:http://127.0.0.1:9/f.json,"'"'"'=1+2"' "$T/out"
has 'H100-SXM,東京,ap-東京-1,東京-1a,t8,8,on-demand,3.75,30,json:http://127.0.0.1:9/f.json,' "$T/out"
# The table pads by terminal columns: 東 and 京 take two each (East Asian
# Wide), so PROVIDER "東京" (4 columns) gets 4 spaces to its 8 and REGION
# "ap-東京-1" (10 columns) 6 to its 16, and INSTANCE starts where it does
# on every row. --all adds the CSV's ZONE column, as wide as its widest
# zone: the snapshot's "asia-northeast1-b" (17 columns; the feed's
# "東京-1a" takes 7, 東 and 京 two each), so "東京-1a" gets 10 spaces, and
# the feed's offer without a zone 17.
expect 0 "" --cache-dir "$T/c7" --gpu H100-SXM --all
grep -q '^H100-SXM        東京     ap-東京-1        東京-1a           t8                             8    3.750    30.000  on-demand $' "$T/out" &&
	ok || bad "CJK feed names misalign the prices table: $(grep 東京 "$T/out")"
grep -q '^GPU             PROVIDER REGION           ZONE              INSTANCE                    GPUS' "$T/out" &&
	ok || bad "no ZONE heading in prices --all: $(head -1 "$T/out")"
grep -qF 'H100-SXM        lab,cloud eu-north                           h"gx  ' "$T/out" &&
	ok || bad "an offer without a zone misaligns: $(grep eu-north "$T/out")"
# The cheapest-offer table keeps one row per GPU and provider: no zone.
expect 0 "" --cache-dir "$T/c7" --gpu H100-SXM
grep -q '^GPU             PROVIDER REGION           INSTANCE ' "$T/out" &&
	ok || bad "ZONE in the cheapest-offer table: $(head -1 "$T/out")"

# --- feed text longer than its field ends on a whole UTF-8 character -------
# tests/data/fixtures/skypilot-v8-utf8lab-vms.constructed.csv: one row,
# InstanceType "hgx-h" + 25 U+20AC (80 bytes), Region "eu-" + 12 U+20AC
# (39 bytes), 8 x H100-SXM at 20.0 an hour. struct price_offer holds 63
# bytes of an instance and 31 of a region: whole characters are 5 + 19 x 3
# = 62 and 3 + 9 x 3 = 30 bytes. (The old binary cut at 63 and 31 bytes
# and wrote the broken bytes of the last euro sign as '?'.)
utf8ok() {   # utf8ok FILE WHAT: FILE is valid UTF-8
	python3 -c 'import sys; open(sys.argv[1], "rb").read().decode("utf-8")' "$1" 2>/dev/null &&
		ok || bad "$2 is no UTF-8: $(od -c "$1" | grep -m3 '[23][0-7][0-7]')"
}
E=$(printf '\342\202\254')
E7=$E$E$E$E$E$E$E E9=$E$E$E$E$E$E$E$E$E
XDG_CACHE_HOME="$T/c8" expect 0 "fetched" --update --source skypilot:utf8lab
XDG_CACHE_HOME="$T/c8" expect 0 "" --gpu H100-SXM --provider utf8lab --format csv
has "H100-SXM,utf8lab,eu-$E9,,hgx-h$E9$E9$E,8,on-demand,2.5,20,skypilot:utf8lab," "$T/out"
XDG_CACHE_HOME="$T/c8" expect 0 "" --gpu H100-SXM --all
utf8ok "$T/out" "prices table"
grep -q "^H100-SXM        utf8lab  eu-$E9$E9" "$T/out" && bad "region longer than 31 bytes" || ok
# plan's price line (the report's cluster table) and estimate's "prices"
# line: provider (10 bytes), instance (28), region (16), each cut on a
# whole character: "hgx-h" + 7 U+20AC is 26 bytes (a 28-byte cut ended 2
# bytes into the eighth), "eu-" + 4 is 15 (16 ended 1 byte into the
# fifth). 2 nodes x 20.0 = 40 an hour.
LINE="utf8lab hgx-h$E7 eu-$E$E$E$E on-demand"
XDG_CACHE_HOME="$T/c8" timeout 120 "$H" plan --pool 2x8xH100-SXM -m llama3.1-8b --gbs 64 --top 1 \
	-o "$T/plan.md" >/dev/null 2>"$T/planerr" || bad "plan on utf8lab prices: $(head -c 300 "$T/planerr")"
utf8ok "$T/plan.md" "plan's report"
grep -qF "| 20.000 | 2.500 | $LINE | skypilot:utf8lab " "$T/plan.md" &&
	ok || bad "plan's price line: $(grep -m1 utf8lab "$T/plan.md")"
XDG_CACHE_HOME="$T/c8" timeout 120 "$H" estimate --pool 2x8xH100-SXM -m llama3.1-8b --tp 1 --pp 1 --mbs 1 \
	--gbs 64 --recompute full >"$T/est" 2>&1 || bad "estimate on utf8lab prices: $(head -c 300 "$T/est")"
utf8ok "$T/est" "estimate's text"
grep -qF "h100-sxm \$20.000/node-h from $LINE; skypilot:utf8lab " "$T/est" &&
	ok || bad "estimate's price line: $(grep -m1 utf8lab "$T/est")"
# A json: feed's field longer than its field is refused, naming the feed
# and the field: "eu-" + ten U+20AC is 33 bytes, a region holds 31.
XDG_CACHE_HOME="$T/c8" expect 1 "json:$U/utf8-long.json: offers[0].region" --update --source "json:$U/utf8-long.json"
utf8ok "$T/err" "the refusal"

finish prices
