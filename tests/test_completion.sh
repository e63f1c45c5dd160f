#!/bin/sh
# test_completion.sh — `hetplan completion bash|zsh|fish`: the scripts are
# valid, and bash's own completion machinery (compgen, called through the
# generated function in a subshell) completes what a user types. The
# expected words are the catalog's preset and GPU names as `hetplan models`
# and `hetplan gpus --format csv` list them, and the commands of
# `hetplan --help`. Run from the repository root after `make`.
set -u
H=${HETPLAN:-./hetplan}
case $H in /*) ;; *) H=$PWD/$H ;; esac
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
. tests/lib.sh

"$H" completion bash >"$T/hetplan.bash" && ok || bad "completion bash failed"
bash -n "$T/hetplan.bash" && ok || bad "the bash script does not parse"
# complete WORDS...: what <TAB> after the last word offers, one per line,
# sorted; run in an empty directory so no file name can match.
complete_words() {
	(cd "$T" && mkdir -p empty && cd empty && bash -c '
		. "$1"; shift
		COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
		_hetplan
		printf "%s\n" "${COMPREPLY[@]}"' sh "$T/hetplan.bash" "$@") | sort
}

# hetplan plan -m lla<TAB>: the Llama presets, exactly.
complete_words hetplan plan -m lla >"$T/got"
"$H" models --format csv | cut -d, -f1 | grep '^lla' | sort >"$T/want"
if [ -s "$T/want" ] && cmp -s "$T/got" "$T/want"; then ok; else
	bad "plan -m lla<TAB>: got '$(tr '\n' ' ' <"$T/got")', want '$(tr '\n' ' ' <"$T/want")'"; fi
grep -qx 'llama3.1-8b' "$T/got" && ok || bad "llama3.1-8b not offered"
# the long form too
complete_words hetplan estimate --model mixtral >"$T/got"
printf 'mixtral-8x22b\nmixtral-8x7b\n' | sort >"$T/want"
cmp -s "$T/got" "$T/want" && ok || bad "estimate --model mixtral<TAB>: $(tr '\n' ' ' <"$T/got")"
# GPU names for comm --gpu
complete_words hetplan comm --gpu H8 >"$T/got"
[ "$(cat "$T/got")" = "H800-SXM" ] && ok || bad "comm --gpu H8<TAB>: $(tr '\n' ' ' <"$T/got")"
# commands at the first word: every command --help lists
complete_words hetplan "" >"$T/got"
for c in plan estimate comm gpus models prices report launch tui completion; do
	grep -qx "$c" "$T/got" && ok || bad "command $c not offered"
done
# options of a command from its getopt table (--list-options)
complete_words hetplan plan --se >"$T/got"
"$H" --list-options | awk '$1 == "plan" {print $2}' | grep '^--se' | sort >"$T/want"
cmp -s "$T/got" "$T/want" && ok || bad "plan --se<TAB>: $(tr '\n' ' ' <"$T/got")"
complete_words hetplan gpus --format j >"$T/got"
[ "$(cat "$T/got")" = "json" ] && ok || bad "gpus --format j<TAB>: $(tr '\n' ' ' <"$T/got")"
# Value words come from each command's synopsis (the command table's
# usage): the lists the man page gives for these options.
complete_words hetplan launch --format "" >"$T/got"
printf 'deepspeed\nhf-trainer\nmegatron\nslurm\ntorchtitan\n' >"$T/want"
cmp -s "$T/got" "$T/want" && ok || bad "launch --format <TAB>: $(tr '\n' ' ' <"$T/got")"
complete_words hetplan estimate --format "" >"$T/got"
printf 'json\ntable\n' >"$T/want"
cmp -s "$T/got" "$T/want" && ok || bad "estimate --format <TAB>: $(tr '\n' ' ' <"$T/got")"
complete_words hetplan report -f h >"$T/got"
[ "$(cat "$T/got")" = "html" ] && ok || bad "report -f h<TAB>: $(tr '\n' ' ' <"$T/got")"
complete_words hetplan plan --objective "" >"$T/got"
printf 'budget\ncost\ndeadline\nthroughput\n' >"$T/want"
cmp -s "$T/got" "$T/want" && ok || bad "plan --objective <TAB>: $(tr '\n' ' ' <"$T/got")"
complete_words hetplan comm --transport "" >"$T/got"
printf 'efa\ngcp-rdma\nib\nopa\ntcp\ntcpx\ntcpxo\n' >"$T/want"
cmp -s "$T/got" "$T/want" && ok || bad "comm --transport <TAB>: $(tr '\n' ' ' <"$T/got")"
# a placeholder (--tp N) offers nothing, not file names
complete_words hetplan plan --tp "" >"$T/got"
[ -z "$(tr -d '\n' <"$T/got")" ] && ok || bad "plan --tp <TAB> offered: $(tr '\n' ' ' <"$T/got")"

# zsh and fish: present, and parse where the shell is installed
"$H" completion zsh >"$T/_hetplan" && head -1 "$T/_hetplan" | grep -q '^#compdef hetplan' && ok ||
	bad "completion zsh"
if command -v zsh >/dev/null 2>&1; then zsh -n "$T/_hetplan" && ok || bad "zsh -n"; fi
"$H" completion fish >"$T/hetplan.fish" && grep -q "__fish_seen_subcommand_from plan' -l model -s m" "$T/hetplan.fish" &&
	ok || bad "completion fish: no -m/--model line for plan"
grep -q "__fish_seen_subcommand_from launch' -l format -s f -x -a 'megatron slurm deepspeed torchtitan hf-trainer'" \
	"$T/hetplan.fish" && ok || bad "completion fish: launch --format words"
if command -v fish >/dev/null 2>&1; then fish -n "$T/hetplan.fish" && ok || bad "fish -n"; fi
# usage errors: exit 2
"$H" completion tcsh >/dev/null 2>&1; [ $? = 2 ] && ok || bad "unknown shell: exit not 2"
"$H" completion >/dev/null 2>&1; [ $? = 2 ] && ok || bad "no shell: exit not 2"

finish completion
