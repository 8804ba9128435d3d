package main

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
)

// A bad flag is answered in one line on stderr, naming the flag with two
// dashes as the documentation does, with a did-you-mean: never the whole
// usage (issue 34).
func TestBadFlagIsOneLine(t *testing.T) {
	clearEnv(t)
	for _, tc := range []struct {
		args []string
		says string
	}{
		{[]string{"serve", "--fualt", "x"}, `gwconform serve: unknown flag --fualt; did you mean "--fault"?`},
		{[]string{"merge", "--stirct", "out", "in"}, `gwconform merge: unknown flag --stirct; did you mean "--strict"?`},
		{[]string{"judge", "--outt", "dir", "rec"}, `gwconform judge: unknown flag --outt; did you mean "--out"?`},
		{[]string{"diff", "--nope-nothing", "a", "b"}, `gwconform diff: unknown flag --nope-nothing (gwconform diff -h lists them)`},
		{[]string{"history", "--ot", "dir", "r.json"}, `gwconform history: unknown flag --ot; did you mean "--out"?`},
		{[]string{"lint", "--case", "dir"}, `gwconform lint: unknown flag --case; did you mean "--cases"?`},
		{[]string{"serve", "--judge-max", "many"}, `gwconform serve: invalid value "many" for flag --judge-max`},
		{[]string{"serve", "--out"}, `gwconform serve: flag needs an argument: --out`},
		{[]string{"run", "--concurency", "2"}, `gwconform run: unknown flag --concurency; did you mean "--concurrency"?`},
		{[]string{"run", "--max-calls", "x"}, `gwconform run: invalid value "x" for flag --max-calls`},
		{[]string{"run", "--text-key", "--out", "x"}, `gwconform run: flag --text-key takes a value, got the flag --out (write --text-key=VALUE`},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			code, stdout, stderr := gw(t, tc.args...)
			assert.Equal(t, exitNotStart, code)
			assert.Empty(t, stdout)
			assert.Equal(t, 1, strings.Count(stderr, "\n"), "one line:\n%s", stderr)
			assert.Contains(t, stderr, tc.says)
			assert.NotContains(t, stderr, "usage")
			assert.NotRegexp(t, `(^|\s)-[a-z]{2,}`, stderr, "flags are named with two dashes")
		})
	}
}

// -h asks for the usage: it goes to stdout, for run as for every command.
func TestHelpGoesToStdout(t *testing.T) {
	clearEnv(t)
	code, stdout, stderr := gw(t, "run", "-h")
	assert.Equal(t, exitOK, code)
	assert.Empty(t, stderr)
	assert.Contains(t, stdout, "usage: gwconform run")
	assert.Contains(t, stdout, "-feature GLOBS")
	code, stdout, stderr = gw(t, "--help")
	assert.Equal(t, exitOK, code)
	assert.Empty(t, stderr)
	assert.Contains(t, stdout, "usage: gwconform <command>")
}

// A misspelt fault or command name is refused with what it likely meant.
func TestDidYouMeanFaultAndCommand(t *testing.T) {
	clearEnv(t)
	code, _, stderr := gw(t, "serve", "--addr", "127.0.0.1:0", "--fault", "fewer-image")
	assert.Equal(t, exitNotStart, code)
	assert.Contains(t, stderr, `--fault: unknown fault "fewer-image"; did you mean "fewer-images"? (--list-faults lists them)`)

	code, stdout, stderr := gw(t, "rnu")
	assert.Equal(t, exitNotStart, code)
	assert.Empty(t, stdout)
	assert.Equal(t, "gwconform: unknown command \"rnu\"; did you mean \"run\"?\n", stderr)
	code, _, stderr = gw(t, "frobnicate")
	assert.Equal(t, exitNotStart, code)
	assert.Equal(t, "gwconform: unknown command \"frobnicate\" (gwconform -h lists the commands)\n", stderr)
}

// A --feature (or --case, --tier) typo is refused before the gateway is
// called: exit 2, nothing sent.
func TestSelectionTypoSendsNothing(t *testing.T) {
	clearEnv(t)
	var requests atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		http.NotFound(w, r)
	}))
	defer srv.Close()
	for _, tc := range []struct{ flag, value, says string }{
		{"--feature", "chat.basci", `--feature "chat.basci" matches nothing in the catalog; did you mean "chat.basic"?`},
		{"--case", "chat-jsno", `--case "chat-jsno" matches nothing in the catalog; did you mean "chat-json"?`},
		{"--tier", "verfied", `--tier "verfied": not a tier`},
	} {
		t.Run(tc.flag, func(t *testing.T) {
			code, _, stderr := gw(t, "run", "--base-url", srv.URL, "--text-key", "sk-test-text-key", "--out", t.TempDir(), tc.flag, tc.value)
			assert.Equal(t, exitNotStart, code, stderr)
			assert.Contains(t, stderr, tc.says)
			assert.Zero(t, requests.Load(), "nothing is sent before the selection is checked")
		})
	}
}
