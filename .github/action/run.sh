#!/usr/bin/env bash
# The run step of action.yml: inputs arrive as INPUT_* variables, the
# gwconform binary as GWCONFORM_BIN. It writes matrix.md to the job summary
# and the verdict, exit code and counts to the step's outputs; the action's
# last step exits with that code, after the artifacts are uploaded.
#
# Exit codes are gwconform's: 0 passed, 1 failed, 2 could not start, 3
# incomplete. An interrupted run (a cancelled or timed-out job: the runner
# sends SIGINT, then SIGTERM, to this script, which the step execs) still
# writes its reports, verdict incomplete: 3, or 1 when a counted failure
# was already seen. Exit 2 means the run could not start: gwconform then
# leaves an earlier run's files as they are, so the exit code, not the
# files, says whether this run wrote any.
set -euo pipefail

fail() { echo "::error title=gwconform::$1"; echo "exit-code=2" >>"$GITHUB_OUTPUT"; exit 0; }

# The runner signals this process only, not its children: pass SIGINT and
# SIGTERM on to gwconform, which then writes its reports and exits.
child="" interrupted=""
forward() {
	interrupted=$1
	[ -z "$child" ] || kill -s "$1" "$child" 2>/dev/null || true
}
trap 'forward INT' INT
trap 'forward TERM' TERM

# run_gwconform ARGS... runs gwconform and sets status to its exit code. It
# runs in the background so that a signal reaches the trap (bash runs a trap
# only once its foreground command has ended); wait returns early when a
# trap ran, so it waits again until gwconform has ended.
run_gwconform() {
	"$GWCONFORM_BIN" "$@" &
	child=$!
	while kill -0 "$child" 2>/dev/null; do wait "$child" || true; done
	status=0
	wait "$child" || status=$?
	child=""
}

out="${INPUT_OUT:-out}"
args=(run --out "$out")
if [ "${INPUT_SELF_TEST:-false}" = "true" ]; then
	# The in-process reference gateway: a self-test of the suite, asked for.
	[ -z "${INPUT_BASE_URL:-}" ] || fail "self-test and base-url exclude each other"
else
	# Never fall back silently to the reference gateway: an empty base URL
	# is a missing secret, not a self-test.
	[ -n "${INPUT_BASE_URL:-}" ] || fail "base-url is empty (a missing secret?); set it, or self-test: true to test the reference gateway"
	args+=(--base-url "$INPUT_BASE_URL")
fi
[ -z "${INPUT_SHARD:-}" ] || args+=(--shard "$INPUT_SHARD")
[ -z "${INPUT_TIERS:-}" ] || args+=(--tier "$INPUT_TIERS")
[ -z "${INPUT_FEATURES:-}" ] || args+=(--feature "$INPUT_FEATURES")
[ -z "${INPUT_OFFERS:-}" ] || args+=(--offers "$INPUT_OFFERS")
[ -z "${INPUT_MODEL_MAP:-}" ] || args+=(--model-map "$INPUT_MODEL_MAP")
[ "${INPUT_STRICT:-false}" != "true" ] || args+=(--strict)
[ -z "${INPUT_CA_CERT:-}" ] || args+=(--ca-cert "$INPUT_CA_CERT")
if [ -n "${INPUT_WAIVERS:-}" ]; then
	[ -f "$INPUT_WAIVERS" ] || fail "waivers: $INPUT_WAIVERS does not exist (a path relative to the job's working directory)"
	args+=(--waivers "$INPUT_WAIVERS")
fi

# Keys and headers go by variable, never on a command line (a process list
# shows arguments). Header inputs hold one "Name: value" a line. An empty
# key or header variable means "not set" (a secret the job does not have):
# its cases are skipped, with the reason in the headline notes.
export GWCONFORM_TEXT_KEY="${INPUT_TEXT_KEY:-}" GWCONFORM_MESSAGES_KEY="${INPUT_MESSAGES_KEY:-}"
export GWCONFORM_IMAGE_KEY="${INPUT_IMAGE_KEY:-}" GWCONFORM_ALT_KEY="${INPUT_ALT_KEY:-}"
export GWCONFORM_PUBLIC_IMAGE_URL="${INPUT_PUBLIC_IMAGE_URL:-}"
export GWCONFORM_HEADERS="${INPUT_HEADERS:-}" GWCONFORM_TEXT_HEADERS="${INPUT_TEXT_HEADERS:-}"
export GWCONFORM_MESSAGES_HEADERS="${INPUT_MESSAGES_HEADERS:-}" GWCONFORM_IMAGE_HEADERS="${INPUT_IMAGE_HEADERS:-}"
export GWCONFORM_ALT_HEADERS="${INPUT_ALT_HEADERS:-}"
# The base URL goes by flag (above) or not at all: a GWCONFORM_BASE_URL
# set but empty stops the run (exit 2), and only an unset one means the
# reference gateway (self-test).
unset GWCONFORM_BASE_URL

run_gwconform "${args[@]}"
rc=$status
# Confirm before paging, on exit 1 only (a failure seen): the failed
# results once more, with the run's own settings (its manifest); a pass
# now is kept as flaky. Exit 3 (incomplete: an interrupt, a budget,
# throttling, a key missing or rejected) is passed on as it is, and a job
# being cancelled starts nothing more.
if [ "$rc" -eq 1 ] && [ "${INPUT_CONFIRM_FAILURES:-false}" = "true" ] && [ -z "$interrupted" ]; then
	run_gwconform run --rerun-failed --out "$out"
	if [ "$status" -eq 2 ] || [ -n "$interrupted" ]; then
		# The re-run could not start, or was interrupted (it then writes
		# nothing): the first run's reports and its exit 1 stand, unconfirmed.
		echo "::warning title=gwconform::--rerun-failed did not finish (exit $status); the failures stand unconfirmed"
	else
		rc=$status
	fi
fi
[ -z "$interrupted" ] || echo "::warning title=gwconform::interrupted (SIG$interrupted): the reports say what ran (exit $rc)"
echo "exit-code=$rc" >>"$GITHUB_OUTPUT"
echo "out=$out" >>"$GITHUB_OUTPUT"
if [ "$rc" -eq 2 ] || [ ! -f "$out/report.json" ]; then
	echo "::error title=gwconform::the run could not start (exit $rc)"
	exit 0
fi
cat "$out/matrix.md" >>"$GITHUB_STEP_SUMMARY"
{
	echo "verdict=$(jq -r .verdict "$out/report.json")"
	echo "headline=$(jq -r .headline "$out/report.json")"
	jq -r '.total | "pass=\(.pass)\nfail=\(.fail)\nerror=\(.error)\nskip=\(.skip)\nthrottled=\(.throttled)\ntotal=\(.total)"' "$out/report.json"
} >>"$GITHUB_OUTPUT"

if [ -n "${INPUT_PREVIOUS_REPORT:-}" ] && [ -f "$INPUT_PREVIOUS_REPORT" ]; then
	run_gwconform diff "$INPUT_PREVIOUS_REPORT" "$out/report.json" >"$out/diff.md"
	cat "$out/diff.md" >>"$GITHUB_STEP_SUMMARY"
	echo "diff-exit-code=$status" >>"$GITHUB_OUTPUT"
fi
