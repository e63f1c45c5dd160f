# tui_edit_lib.sh — what the Edit plan view's tmux tests share
# (tests/test_tui_offload.sh, tests/test_tui_editdetail.sh). Sourced after
# tests/tui_lib.sh, with G (the goldens' folder) and $tmp/rows (the editor's
# rows on a 120x40 screen) set by the test.

# golden NAME SESSION: the screen against tests/golden/NAME.txt (captured
# again for up to 3 s while it differs: a capture may land mid-redraw).
golden() {
	f=$G/$1.txt
	n=0
	screen "$2" >"$tmp/$1.txt"
	if [ "${UPDATE_GOLDEN:-}" = 1 ]; then
		sleep 1
		screen "$2" >"$f"
		echo "updated $f"
		ok
		return
	fi
	while [ -f "$f" ] && ! cmp -s "$f" "$tmp/$1.txt" && [ $n -lt 30 ]; do
		sleep 0.1
		screen "$2" >"$tmp/$1.txt"
		n=$((n + 1))
	done
	golden_verdict "$f" "$1" "UPDATE_GOLDEN=1 sh $0"
}
# val S KEY: the Edit plan view's value of KEY (its first word), the row
# read with or without the * that marks a changed key.
val() { screen "$1" | awk -v k="$2" '{ n = $1; sub(/^\*/, "", n) } n == k { print $2; exit }'; }
# goto S KEY: select KEY's row (its index in the plan table, read from the
# 120x40 screen where every row shows).
goto() {
	i=$(awk -v k="$2" '{ n = $1; sub(/^\*/, "", n) } n == k { print NR - 4; exit }' "$tmp/rows")
	keys "$1" g
	while [ "${i:-0}" -gt 0 ]; do keys "$1" j; i=$((i - 1)); done
}
# cycle S KEY VALUE: Enter on KEY's row until it reads VALUE, each time
# waiting for the row to change so no key overtakes the screen.
cycle() {
	goto "$1" "$2"
	c=0
	while [ $c -lt 20 ] && [ "$(val "$1" "$2")" != "$3" ]; do
		was=$(val "$1" "$2")
		keys "$1" Enter
		w=0
		while [ $w -lt 300 ] && [ "$(val "$1" "$2")" = "$was" ]; do sleep 0.1; w=$((w + 1)); done
		c=$((c + 1))
	done
	[ "$(val "$1" "$2")" = "$3" ] && ok || bad "$2 did not reach $3: $(screen "$1" | grep "$2")"
}
