#!/bin/bash
# contrib/ansible/fleet-ab.yml, unmodified, against two inventory hosts
# that are this machine (a local connection each), one at a time: each runs
# vmpctl ab with a file knob (no module, nothing installed) and a workload
# of a known effect (fleet-score.sh: +5% and -3%), the results are fetched
# and merged. The merge must find that it depends on the host; each
# knob must be as found; a second run must change nothing but results.
# Inputs and output: see lib.sh.
# shellcheck source=tests/unit/host/lib.sh
. "$(dirname "$0")/lib.sh"

here=$(cd "$(dirname "$0")" && pwd)
playbook=$here/../../../contrib/ansible/fleet-ab.yml
command -v ansible-playbook >/dev/null ||
	{ fail "ansible-playbook is not installed (scripts/deps unit)"; exit 1; }

cat >"$scratch/inventory.ini" <<INI
[fleet]
fleet-a fleet_effect=50
fleet-b fleet_effect=-30

[fleet:vars]
ansible_connection=local
ansible_python_interpreter=/usr/bin/python3
vmpctl_ab_chdir=$scratch/{{ inventory_hostname }}
INI
for h in fleet-a fleet-b; do
	mkdir -p "$scratch/$h"
	printf '0\n' >"$scratch/$h/knob"
	cksum <<<"$h" | cut -c1-6 >"$scratch/$h/state"
done
cat >"$scratch/vars.json" <<JSON
{
  "vmpctl_ab_install": "none",
  "vmpctl_ab_load_module": false,
  "vmpctl_ab_become": false,
  "vmpctl_ab_serial": 1,
  "vmpctl_ab_knob": "knob",
  "vmpctl_ab_vmpctl": "$VMPCTL",
  "vmpctl_ab_merge_vmpctl": "$VMPCTL",
  "vmpctl_ab_results_dir": "$scratch/results",
  "vmpctl_ab_options": ["-n", "10", "-w", "0", "--seed", "7", "--a", "0", "--b", "1",
                        "--metric", "score ([0-9]+)", "--metric-name", "score",
                        "--higher-is-better"],
  "vmpctl_ab_workload": ["$here/fleet-score.sh", "knob", "{{ fleet_effect }}", "state"]
}
JSON

# ansible's own files in the scratch directory, its output as JSON
export ANSIBLE_LOCAL_TEMP=$scratch/ansible-local ANSIBLE_REMOTE_TEMP=$scratch/ansible-remote
export ANSIBLE_STDOUT_CALLBACK=ansible.posix.json ANSIBLE_NOCOLOR=1 ANSIBLE_PIPELINING=1
play() { # OUT: run the playbook, its JSON to OUT; the status in rc
	ansible-playbook -i "$scratch/inventory.ini" -e "@$scratch/vars.json" "$playbook" \
		>"$1" 2>"$1.err"
	rc=$?
}

# The names of the tasks that changed something on some host, one a line.
changed_tasks() {
	python3 -c '
import json, sys
for play in json.load(open(sys.argv[1]))["plays"]:
    for task in play["tasks"]:
        if any(h.get("changed") for h in task["hosts"].values()):
            print(task["task"]["name"])' "$1" | sort -u
}

play "$scratch/first"
check "first run: exits 0 ($(tail -n 3 "$scratch/first.err"))" [ "$rc" -eq 0 ]
for h in fleet-a fleet-b; do
	check "first run: $h's result fetched" grep -q '"type":"ab"' "$scratch/results/$h.jsonl"
	check "first run: $h's knob as found" [ "$(cat "$scratch/$h/knob")" = 0 ]
done
merged=$scratch/results/merge.json
check "merge: valid JSON" "$JSON_VALID" <"$merged"
check "merge: two hosts" [ "$(grep -o '"host":"fleet-[ab]"' "$merged" | wc -l)" -eq 2 ]
check "merge: fleet-a gained 4..6%" \
	grep -Eq '"host":"fleet-a","file":"[^"]*","n":[0-9]+,"effect_pct":(4|5)\.' "$merged"
check "merge: fleet-b lost 2..4%" \
	grep -Eq '"host":"fleet-b","file":"[^"]*","n":[0-9]+,"effect_pct":-(2|3)\.' "$merged"
check "merge: it depends on the host" grep -q '"verdict":"it depends on the host"' "$merged"
check "merge: both hosts differ from the pool" \
	grep -q '"hosts_differ":\["fleet-a","fleet-b"\]' "$merged"
check "merge: the table and the summary written" \
	grep -q '^verdict: it depends on the host' "$scratch/results/merge.txt"
check "merge: the summary names the verdict" \
	grep -q '^\*\*it depends on the host\*\*' "$scratch/results/summary.md"
check "merge: the forest plot drawn" grep -q '<svg' "$scratch/results/fleet.svg"
# serial: 1 runs the first play once per host: two batches of one
check "batches: one host at a time" [ "$(python3 -c '
import json, sys
plays = json.load(open(sys.argv[1]))["plays"]
print(" ".join(",".join(sorted(t["hosts"])) for p in plays for t in p["tasks"][:1]))' "$scratch/first")" = "fleet-a fleet-b localhost" ]

play "$scratch/second"
check "second run: exits 0" [ "$rc" -eq 0 ]
changed_tasks "$scratch/second" >"$scratch/changed"
check "second run: the A/B ran again" grep -q 'Run the A/B (a new result)$' "$scratch/changed"
others=$(grep -vi result "$scratch/changed" | tr '\n' ';')
check "second run: nothing but results changed (${others:-nothing else})" [ -z "$others" ]
for h in fleet-a fleet-b; do
	check "second run: $h's knob as found" [ "$(cat "$scratch/$h/knob")" = 0 ]
	check "second run: no result left on $h" \
		[ -z "$(find "${TMPDIR:-/tmp}" -maxdepth 1 -name 'vmpctl-ab.*' -newer "$scratch/vars.json" 2>/dev/null)" ]
done

finish
