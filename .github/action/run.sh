#!/usr/bin/env bash
# The run step of action.yml: inputs arrive as INPUT_* variables, the
# gwconform binary as GWCONFORM_BIN. It writes matrix.md to the job summary
# and the verdict, exit code and counts to the step's outputs; the action's
# last step exits with that code, after the artifacts are uploaded.
set -euo pipefail

fail() { echo "::error title=gwconform::$1"; echo "exit-code=2" >>"$GITHUB_OUTPUT"; exit 0; }

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
[ "${INPUT_STRICT:-false}" != "true" ] || args+=(--strict)
[ -z "${INPUT_CA_CERT:-}" ] || args+=(--ca-cert "$INPUT_CA_CERT")
if [ -n "${INPUT_WAIVERS:-}" ] && [ -f "$INPUT_WAIVERS" ]; then args+=(--waivers "$INPUT_WAIVERS"); fi

# Keys and headers go by variable, never on a command line (a process list
# shows arguments). Header inputs hold one "Name: value" a line.
export GWCONFORM_TEXT_KEY="${INPUT_TEXT_KEY:-}" GWCONFORM_MESSAGES_KEY="${INPUT_MESSAGES_KEY:-}"
export GWCONFORM_IMAGE_KEY="${INPUT_IMAGE_KEY:-}" GWCONFORM_ALT_KEY="${INPUT_ALT_KEY:-}"
export GWCONFORM_PUBLIC_IMAGE_URL="${INPUT_PUBLIC_IMAGE_URL:-}"
export GWCONFORM_HEADERS="${INPUT_HEADERS:-}" GWCONFORM_TEXT_HEADERS="${INPUT_TEXT_HEADERS:-}"
export GWCONFORM_MESSAGES_HEADERS="${INPUT_MESSAGES_HEADERS:-}" GWCONFORM_IMAGE_HEADERS="${INPUT_IMAGE_HEADERS:-}"
export GWCONFORM_ALT_HEADERS="${INPUT_ALT_HEADERS:-}"
unset GWCONFORM_BASE_URL

rc=0
"$GWCONFORM_BIN" "${args[@]}" || rc=$?
if [ "$rc" -eq 1 ] && [ "${INPUT_CONFIRM_FAILURES:-false}" = "true" ]; then
	# Confirm before paging: the failed results once more, with the run's
	# own settings (its manifest); a pass now is kept as flaky.
	rc=0
	"$GWCONFORM_BIN" run --rerun-failed --out "$out" || rc=$?
fi
echo "exit-code=$rc" >>"$GITHUB_OUTPUT"
echo "out=$out" >>"$GITHUB_OUTPUT"
if [ ! -f "$out/report.json" ]; then
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
	drc=0
	"$GWCONFORM_BIN" diff "$INPUT_PREVIOUS_REPORT" "$out/report.json" >"$out/diff.md" || drc=$?
	cat "$out/diff.md" >>"$GITHUB_STEP_SUMMARY"
	echo "diff-exit-code=$drc" >>"$GITHUB_OUTPUT"
fi
