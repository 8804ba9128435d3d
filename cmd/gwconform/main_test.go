package main

import (
	"bytes"
	"encoding/xml"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gwconform/gwconform/conformance"
	"github.com/gwconform/gwconform/conformance/results"
	"github.com/gwconform/gwconform/conformance/vocab"
	reportv1 "github.com/gwconform/gwconform/report/apis/v1"
	"github.com/gwconform/gwconform/schemas"
)

// gw runs the CLI in-process and returns its exit code and output.
func gw(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := dispatch(args, &out, &errb)
	return code, out.String(), errb.String()
}

// clearEnv makes the test independent of the developer's variables.
func clearEnv(t *testing.T) {
	// Unset, not empty: an empty GWCONFORM_BASE_URL is refused (a CI secret
	// that went missing), so only an unset one means the reference gateway.
	for _, d := range conformance.SettingsTable {
		if d.Env != "" {
			unsetEnv(t, d.Env)
		}
	}
	t.Chdir(t.TempDir()) // no gwconform.yaml from the working tree
}

// unsetEnv unsets a variable for the test and restores it after.
func unsetEnv(t *testing.T, name string) {
	t.Helper()
	t.Setenv(name, "") // registers the restore (and refuses parallel tests)
	require.NoError(t, os.Unsetenv(name))
}

// The full catalog run against the in-process gateway with distinctive keys:
// every output is written, report.json validates, junit counts equal the
// results, no key appears anywhere, and three shards merged give the same
// results as the whole run.
func TestRunOutputsShardsAndSecrets(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the whole catalog twice (make test runs it in its non-race pass)")
	}
	clearEnv(t)
	keys := map[string]string{
		"text": "sk-leakcheck-text-7f3a9c", "messages": "sk-leakcheck-messages-2b8e1d",
		"image": "sk-leakcheck-image-9d4c6a", "alt": "sk-leakcheck-alt-5e1f0b",
	}
	keyArgs := func() []string {
		var a []string
		for k, v := range keys {
			a = append(a, "--"+k+"-key", v)
		}
		return a
	}
	whole := filepath.Join(t.TempDir(), "whole")
	code, stdout, stderr := gw(t, append([]string{"run", "--out", whole}, keyArgs()...)...)
	require.Equal(t, exitOK, code, "stdout:\n%s\nstderr:\n%s", tail(stdout), stderr)

	t.Run("five outputs", func(t *testing.T) {
		for _, f := range []string{"results.jsonl", "report.json", "matrix.md", "report.html", "junit.xml"} {
			st, err := os.Stat(filepath.Join(whole, f))
			require.NoError(t, err, f)
			assert.Positive(t, st.Size(), f)
		}
	})
	rs, err := results.ReadFile(filepath.Join(whole, "results.jsonl"))
	require.NoError(t, err)
	require.NotEmpty(t, rs)

	t.Run("report.json validates", func(t *testing.T) {
		set, err := schemas.Load(reportv1.SchemaFS)
		require.NoError(t, err)
		b, err := os.ReadFile(filepath.Join(whole, "report.json"))
		require.NoError(t, err)
		vs, err := set.Validate("report.schema", b)
		require.NoError(t, err)
		assert.Empty(t, vs)
	})
	t.Run("junit counts equal the results", func(t *testing.T) {
		b, err := os.ReadFile(filepath.Join(whole, "junit.xml"))
		require.NoError(t, err)
		var doc struct {
			Suites []struct {
				Cases []struct {
					Failure *struct{} `xml:"failure"`
					Error   *struct{} `xml:"error"`
					Skipped *struct{} `xml:"skipped"`
				} `xml:"testcase"`
			} `xml:"testsuite"`
		}
		require.NoError(t, xml.Unmarshal(b, &doc))
		var tests, failures, errs, skips int
		for _, s := range doc.Suites {
			for _, c := range s.Cases {
				tests++
				if c.Failure != nil {
					failures++
				}
				if c.Error != nil {
					errs++
				}
				if c.Skipped != nil {
					skips++
				}
			}
		}
		want := map[vocab.Status]int{}
		for _, r := range rs {
			want[r.Status]++
		}
		assert.Equal(t, len(rs), tests)
		assert.Equal(t, want[vocab.StatusFail], failures)
		assert.Equal(t, want[vocab.StatusError], errs)
		assert.Equal(t, want[vocab.StatusSkip]+want[vocab.StatusUnsupported]+want[vocab.StatusThrottled], skips)
	})
	t.Run("no key in any output", func(t *testing.T) {
		files, err := filepath.Glob(filepath.Join(whole, "*"))
		require.NoError(t, err)
		for _, f := range files {
			b, err := os.ReadFile(f)
			require.NoError(t, err)
			for kind, key := range keys {
				assert.NotContains(t, string(b), key, "%s key in %s", kind, filepath.Base(f))
			}
		}
		for kind, key := range keys {
			assert.NotContains(t, stdout+stderr, key, "%s key on the console", kind)
		}
	})
	t.Run("three shards merge into the whole run", func(t *testing.T) {
		dir := t.TempDir()
		want := rs
		var ins []string
		for _, sh := range []string{"1/3", "2/3", "3/3"} {
			out := filepath.Join(dir, strings.ReplaceAll(sh, "/", "-"))
			code, so, se := gw(t, append([]string{"run", "--shard", sh, "--out", out}, keyArgs()...)...)
			require.Equal(t, exitOK, code, "%s\n%s", tail(so), se)
			ins = append(ins, filepath.Join(out, "results.jsonl"))
		}
		merged := filepath.Join(dir, "merged")
		code, so, se := gw(t, append([]string{"merge", merged}, ins...)...)
		require.Equal(t, exitOK, code, "%s\n%s", so, se)
		got, err := results.ReadFile(filepath.Join(merged, "results.jsonl"))
		require.NoError(t, err)
		assert.Equal(t, outcomes(want), outcomes(got))
		for _, f := range []string{"report.json", "matrix.md", "report.html", "junit.xml"} {
			assert.FileExists(t, filepath.Join(merged, f))
		}
		f, err := os.Open(filepath.Join(merged, "report.json"))
		require.NoError(t, err)
		defer f.Close()
		rep, err := reportv1.ReadJSON(f)
		require.NoError(t, err)
		assert.Len(t, rep.Results, len(want))
	})
}

// outcomes reduces results to what must not depend on sharding.
func outcomes(rs []results.Result) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.Feature+"/"+r.Model+"/"+r.Case+" "+string(r.Status))
	}
	sort.Strings(out)
	return out
}

func tail(s string) string {
	lines := strings.Split(s, "\n")
	if len(lines) > 40 {
		lines = lines[len(lines)-40:]
	}
	return strings.Join(lines, "\n")
}

func TestLintBrokenCaseFile(t *testing.T) {
	clearEnv(t)
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "broken.yaml"), []byte(`feature_group: chat
cases:
  - id: chat-broken
    feature: chat.basic
    tier: verified
    spec: "4.2"
    requirement: "x"
    key: text
    models: [gen-5.5]
    request:
      method: POST
      path: /v1/chat/completions
      json: {model: "{{ .Model }}"}
    expect:
      status: 200
      colour: red
`), 0o644))
	code, _, stderr := gw(t, "lint", "--cases", dir)
	assert.Equal(t, exitNotStart, code)
	assert.Regexp(t, `broken\.yaml:16:7: .*colour`, stderr)

	code, stdout, _ := gw(t, "lint")
	assert.Equal(t, exitOK, code)
	assert.Contains(t, stdout, "ok:")
}

func TestExitCodes(t *testing.T) {
	clearEnv(t)
	for _, tc := range []struct {
		name string
		args []string
		want int
	}{
		{"no command", nil, exitNotStart},
		{"unknown command", []string{"frobnicate"}, exitNotStart},
		{"bad flag", []string{"run", "--no-such-flag"}, exitNotStart},
		{"bad shard", []string{"run", "--shard", "4/3"}, exitNotStart},
		{"bad cases dir", []string{"run", "--cases", "/nonexistent/dir"}, exitNotStart},
		{"diff needs two files", []string{"diff", "a.json"}, exitNotStart},
		{"help", []string{"help"}, exitOK},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, _ := gw(t, tc.args...)
			assert.Equal(t, tc.want, code)
		})
	}
}

func TestPlanPrintsCallsAndCost(t *testing.T) {
	clearEnv(t)
	code, out, _ := gw(t, "plan", "--feature", "images.edit.n")
	require.Equal(t, exitOK, code)
	assert.Contains(t, out, "gen-image-2.5-flare")
	assert.Regexp(t, `total: \d+ calls, 0 skipped, \d+ final images, [\d.]+ cost units`, out)
}

// Every command's -h prints its usage once and exits 0.
func TestEveryCommandsHelp(t *testing.T) {
	for _, c := range commands() {
		t.Run(c.name, func(t *testing.T) {
			code, stdout, stderr := gw(t, c.name, "-h")
			assert.Equal(t, exitOK, code, stderr)
			assert.Equal(t, 1, strings.Count(stdout, "usage: gwconform "+c.name), "the usage once, on stdout:\n%s", stdout)
			assert.Empty(t, stderr, "-h asks for the usage: stdout")
			assert.NotContains(t, stderr, "Usage of")
		})
	}
}
