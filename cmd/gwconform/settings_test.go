package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gwconform/gwconform/conformance/results"
	"github.com/gwconform/gwconform/conformance/vocab"
	"github.com/gwconform/gwconform/report"
	reportv1 "github.com/gwconform/gwconform/report/apis/v1"
)

// Nothing green by omission: every input that would make a run test less
// than was asked, or something else, is refused at start with exit 2,
// naming the setting and where it came from; nothing is run or written.
func TestRunRefusesWhatItCannotMean(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		env  map[string]string
		file string // gwconform.yaml
		says string
	}{
		{name: "a stray word before flags", args: []string{"run", "chat", "--base-url", "http://127.0.0.1:9", "--out", "posout"},
			says: `unexpected argument "chat"`},
		{name: "plan with a stray word", args: []string{"plan", "chat"}, says: `unexpected argument "chat"`},
		{name: "probe with a stray word", args: []string{"probe", "stray"}, says: `unexpected argument "stray"`},
		{name: "serve with a stray word", args: []string{"serve", "stray"}, says: `unexpected argument "stray"`},
		{name: "version with a stray word", args: []string{"version", "stray"}, says: `unexpected argument "stray"`},
		{name: "an empty GWCONFORM_BASE_URL", args: []string{"run"}, env: map[string]string{"GWCONFORM_BASE_URL": ""},
			says: "GWCONFORM_BASE_URL is set but empty"},
		{name: "an empty --base-url", args: []string{"run", "--base-url", ""}, says: "-base-url: it is empty"},
		{name: "an empty base_url in the file", args: []string{"run"}, file: "base_url: ''\n", says: "gwconform.yaml:1:11: base-url: it is empty"},
		{name: "an empty --out", args: []string{"run", "--out", ""}, says: "-out: it is empty"},
		{name: "--concurrency 0", args: []string{"run", "--concurrency", "0"}, says: "-concurrency: 0 is below the least value, 1"},
		{name: "--concurrency -1", args: []string{"run", "--concurrency", "-1"}, says: "-concurrency: -1 is below the least value, 1"},
		{name: "concurrency 0 in the file", args: []string{"run"}, file: "concurrency: 0\n", says: "gwconform.yaml:1:14: concurrency: 0 is below the least value, 1"},
		{name: "a negative --timeout", args: []string{"run", "--timeout", "-5s"}, says: "-timeout: -5s is negative"},
		{name: "a zero --timeout", args: []string{"run", "--timeout", "0"}, says: "-timeout: 0 is no limit"},
		{name: "a negative --idle-timeout", args: []string{"run", "--idle-timeout", "-1s"}, says: "-idle-timeout: -1s is negative"},
		{name: "--retries -1", args: []string{"run", "--retries", "-1"}, says: "-retries: -1 is below the least value, 0"},
		{name: "--max-calls -1", args: []string{"plan", "--max-calls", "-1"}, says: "-max-calls: -1 is below the least value, 0"},
		{name: "a flag as a flag's value", args: []string{"run", "--text-key", "--out", "x"}, says: "flag --text-key takes a value, got the flag --out"},
		{name: "a misspelt tier beside a good one", args: []string{"run", "--tier", "verified,negatve"},
			says: `--tier "negatve": not a tier (verified, negative, strict, explore); did you mean "negative"?`},
		{name: "a tier glob is no tier", args: []string{"plan", "--tier", "verif*"}, says: `--tier "verif*": not a tier`},
		{name: "a feature glob that matches nothing", args: []string{"plan", "--feature", "chat.basic,chat.basik"},
			says: `--feature "chat.basik" matches nothing in the catalog; did you mean "chat.basic"?`},
		{name: "a model glob that matches nothing", args: []string{"plan", "--model", "gen-5.5x"}, says: `--model "gen-5.5x" matches nothing in the catalog`},
		{name: "a case glob that matches nothing", args: []string{"plan", "--case", "no-such-*"}, says: `--case "no-such-*" matches nothing in the catalog`},
		{name: "an unknown setting in the file", args: []string{"plan"}, file: "concurency: 3\n",
			says: `gwconform.yaml:1:1: unknown setting "concurency"; did you mean "concurrency"?`},
		{name: "a bad GWCONFORM_STRICT", args: []string{"plan"}, env: map[string]string{"GWCONFORM_STRICT": "yes please"},
			says: `$GWCONFORM_STRICT: strict: "yes please" is not true or false`},
		{name: "a waiver glob that matches nothing", args: []string{"run", "--waivers", "waivers.yaml"},
			says: `waivers.yaml:1: case "chat-basik*" matches nothing in the catalog`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clearEnv(t)
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			if tc.file != "" {
				require.NoError(t, os.WriteFile("gwconform.yaml", []byte(tc.file), 0o644))
			}
			require.NoError(t, os.WriteFile("waivers.yaml", []byte("- case: chat-basik*\n  model: '*'\n  reason: a typo\n  link: https://tracker.test/1\n  expires: 2099-01-01\n"), 0o644))
			code, stdout, stderr := gw(t, tc.args...)
			assert.Equal(t, exitNotStart, code, "stdout:\n%s\nstderr:\n%s", tail(stdout), stderr)
			assert.Contains(t, stderr, tc.says)
			assert.NotContains(t, stdout, "PASS")
			assert.NoDirExists(t, "out", "nothing was run")
			assert.NoDirExists(t, "posout")
		})
	}
}

// What stays legal: the documented zeros, an exclusion, and empty key and
// header variables (a secret the CI job does not have: "not set").
func TestPlanAcceptsDocumentedValues(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		env  map[string]string
	}{
		{name: "--retries 0", args: []string{"--retries", "0"}},
		{name: "--max-calls 0 and --max-cost 0: no cap", args: []string{"--max-calls", "0", "--max-cost", "0"}},
		{name: "a flag value after =", args: []string{"--text-key=--not-a-flag"}},
		{name: "empty key and header variables", env: map[string]string{"GWCONFORM_TEXT_KEY": "", "GWCONFORM_HEADERS": ""}},
		{name: "an exclusion", args: []string{"--tier", "!explore"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clearEnv(t)
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			code, stdout, stderr := gw(t, append([]string{"plan"}, tc.args...)...)
			require.Equal(t, exitOK, code, "stderr: %s", stderr)
			assert.Contains(t, stdout, "calls")
		})
	}
}

// --tier '!explore' plans every tier but explore.
func TestTierExclusion(t *testing.T) {
	clearEnv(t)
	_, all, _ := gw(t, "plan")
	code, noExplore, stderr := gw(t, "plan", "--tier", "!explore")
	require.Equal(t, exitOK, code, stderr)
	_, explore, _ := gw(t, "plan", "--tier", "explore")
	total := func(out string) string {
		for _, l := range strings.Split(out, "\n") {
			if strings.HasPrefix(l, "total") {
				return strings.Join(strings.Fields(l)[:3], " ")
			}
		}
		return ""
	}
	assert.NotEqual(t, total(all), total(noExplore))
	assert.NotEqual(t, total(explore), total(noExplore))
	t.Logf("all: %s; !explore: %s; explore: %s", total(all), total(noExplore), total(explore))
}

// A run that cannot start (exit 2) leaves an earlier run's files as they
// are: a typo must not delete last night's reports; the exit code says
// that this run wrote none.
func TestRunThatCannotStartKeepsTheEarlierReports(t *testing.T) {
	clearEnv(t)
	out := filepath.Join(t.TempDir(), "out")
	require.NoError(t, os.MkdirAll(out, 0o755))
	rep := report.Build(reportv1.Meta{}, []results.Result{{Case: "c", Model: "m", Tier: vocab.TierVerified, Status: vocab.StatusPass}})
	require.NoError(t, report.WriteAll(out, rep))
	before := map[string][]byte{}
	for _, name := range []string{report.FileJSON, report.FileMarkdown, report.FileHTML, report.FileJUnit} {
		b, err := os.ReadFile(filepath.Join(out, name))
		require.NoError(t, err)
		before[name] = b
	}
	for _, args := range [][]string{{"--tier", "verifed"}, {"--feture", "x"}} {
		code, _, stderr := gw(t, append([]string{"run", "--out", out}, args...)...)
		require.Equal(t, exitNotStart, code, stderr)
		for name, b := range before {
			after, err := os.ReadFile(filepath.Join(out, name))
			require.NoError(t, err, "%v removed %s", args, name)
			assert.Equal(t, b, after, "%v changed %s", args, name)
		}
	}
}

// A refused start says what to do, once: the flag it meant, the address
// written whole, where keys go, and where a typo came from.
func TestRefusalsSayWhatToDo(t *testing.T) {
	clearEnv(t)
	config := filepath.Join(t.TempDir(), "gwconform.yaml")
	require.NoError(t, os.WriteFile(config, []byte("text_key: sk-abcdefgh-0001\n"), 0o644))
	for _, tt := range []struct {
		name string
		env  map[string]string
		args []string
		says string
	}{
		{"a flag typo", nil, []string{"--feture", "chat.*"}, `gwconform run: unknown flag --feture; did you mean "--feature"?` + "\n"},
		{"a base URL without its scheme", nil, []string{"--base-url", "127.0.0.1:8080"},
			`gwconform run: --base-url: "127.0.0.1:8080" is no http or https address: write it whole, as http://127.0.0.1:8080 or https://gateway.example` + "\n"},
		{"a kind's base without its scheme", map[string]string{"GWCONFORM_IMAGE_BASE_URL": "localhost:8080/openai"}, []string{"--base-url", "http://127.0.0.1:9"},
			`$GWCONFORM_IMAGE_BASE_URL: "localhost:8080/openai" is no http or https address`},
		{"a key in the settings file", nil, []string{"--config", config},
			`:1:1: "text_key": keys are never read from a settings file, which may be committed; give each in its variable (GWCONFORM_TEXT_KEY`},
		{"a tier typo in its variable", map[string]string{"GWCONFORM_TIERS": "verifed"}, nil,
			`$GWCONFORM_TIERS "verifed": not a tier (verified, negative, strict, explore); did you mean "verified"?`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			for k, v := range tt.env {
				t.Setenv(k, v)
			}
			code, _, stderr := gw(t, append([]string{"run", "--out", t.TempDir()}, tt.args...)...)
			assert.Equal(t, exitNotStart, code)
			assert.Contains(t, stderr, tt.says)
			assert.Equal(t, 1, strings.Count(stderr, "gwconform run:"), "said once: %s", stderr)
		})
	}
}
