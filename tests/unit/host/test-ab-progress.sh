#!/bin/bash
# vmpctl ab --interleave's status line (tools/ab/progress.c): redrawn in
# place on stderr when it is a terminal (a pty from script(1)), with the
# time, the pairs kept and the running interval; never in a file or pipe,
# and not with -q. Inputs and output: see lib.sh.
# shellcheck source=tests/unit/host/lib.sh
. "$(dirname "$0")/lib.sh"

knob=$scratch/knob
printf '1\n' >"$knob"
ab="$VMPCTL ab --knob $knob --interleave 0.1 --max-flip 5 -n 6 -- $VMPCTL pft --size 4M --duration 30 --report-interval 0.01"
erase=$'\r\e[K'

# on_pty COMMAND OUT: COMMAND's terminal output (stderr; stdout is dropped)
on_pty() {
	script -qec "$1 >/dev/null" /dev/null >"$2"
}

# ab ran to its end: exit 0, or 1 with no verdict (a loaded host can
# stall 0.1 s slices into one); the status line is the claim here
on_pty "$ab" "$scratch/tty"
status=$?
check "on a terminal: ab ran to its end (status $status: $(tail -c 200 "$scratch/tty" | tr $'\r\033' '  '))" \
	[ "$status" -le 1 ]
check "on a terminal: the status line is redrawn in place" grep -qF "${erase}ab: " "$scratch/tty"
check "on a terminal: it counts the pairs kept up to 6 of 6" grep -q "6 of 6 pairs kept" "$scratch/tty"
check "on a terminal: it says the time left" grep -Eq "~[0-9]+ s left" "$scratch/tty"
check "on a terminal: it gives the running 95% interval" \
	grep -Eq "B vs A [-+][0-9.]+% \[[-+][0-9.]+%, [-+][0-9.]+%\]" "$scratch/tty"
check "on a terminal: the pairs' lines start on a cleared line" \
	grep -qF "${erase}ab: pair 1 " "$scratch/tty"
# cleared after its last redraw, before anything ab says last
tty=$(cat "$scratch/tty")
case ${tty##*pairs kept} in
*"$erase"*) cleared=yes ;;
*) cleared=no ;;
esac
check "on a terminal: the line is cleared at the end" [ "$cleared" = yes ]

$ab >/dev/null 2>"$scratch/file"
check "stderr a file: ab exits 0" [ $? -eq 0 ]
check "stderr a file: the pairs' lines" grep -q "^ab: pair 1 " "$scratch/file"
check "stderr a file: no status line, no carriage return" \
	[ -z "$(grep -e 'pairs kept' -e $'\r' "$scratch/file")" ]

on_pty "$VMPCTL ab -q --knob $knob --interleave 0.1 --max-flip 5 -n 3 -- $VMPCTL pft --size 4M --duration 30 --report-interval 0.01" \
	"$scratch/quiet"
check "-q on a terminal: no status line" [ -z "$(grep 'pairs kept' "$scratch/quiet")" ]

finish
