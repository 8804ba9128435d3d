package main

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gwconform/gwconform/conformance"
	"github.com/gwconform/gwconform/conformance/refgateway"
	"github.com/gwconform/gwconform/conformance/results"
	"github.com/gwconform/gwconform/conformance/vocab"
)

// runThrough runs the catalog's tiers through a judging relay in front of
// a reference gateway with the faults on. It returns the run's results,
// the judge's, the run's exit code and the relay's.
func runThrough(t *testing.T, tiers string, faults ...string) (run, judged []results.Result, runCode, code int) {
	t.Helper()
	clearEnv(t)
	gw := refGateway(t, refgateway.Config{Faults: faults})
	dir := t.TempDir()
	relay, stop, _ := startServeCode(t, "--upstream", gw.URL, "--judge", "--out", filepath.Join(dir, "judged"))
	def := refgateway.DefaultKeys()
	runCode, stdout, stderr := gw2(t, "run", filepath.Join(dir, "run"), []string{"--base-url", relay, "--tier", tiers, "--retries", "0",
		"--text-key", def.Text, "--messages-key", def.Messages, "--image-key", def.Image, "--alt-key", def.Alt})
	code = stop()
	if len(faults) == 0 {
		require.Equal(t, exitOK, runCode, "%s\n%s", stdout, stderr)
	}
	run, err := results.ReadFile(filepath.Join(dir, "run", results.FileName))
	require.NoError(t, err)
	judged, err = results.ReadFile(filepath.Join(dir, "judged", results.FileName))
	require.NoError(t, err)
	for _, f := range []string{"report.json", "matrix.md", "report.html", "junit.xml"} {
		assert.FileExists(t, filepath.Join(dir, "judged", f))
	}
	return run, judged, runCode, code
}

// failedFeatures are the features of the failed results (of a side, for
// observed results).
func failedFeatures(rs []results.Result, side string) []string {
	var out []string
	for _, r := range rs {
		if r.Side == side && r.Status == vocab.StatusFail && r.Tier.Decides(false) && !slices.Contains(out, r.Feature) {
			out = append(out, r.Feature)
		}
	}
	slices.Sort(out)
	return out
}

// TestJudgingRelayOnTheCatalog: the catalog's verified cases, run through
// serve --upstream --judge in front of the reference gateway, give the
// judge nothing to find on either side; every exchange is judged.
func TestJudgingRelayOnTheCatalog(t *testing.T) {
	if testing.Short() {
		t.Skip("the whole catalog through a relay")
	}
	run, judged, _, code := runThrough(t, "verified")
	assert.Equal(t, exitOK, code)
	sides := map[string]int{}
	for _, r := range judged {
		assert.True(t, r.Observed)
		sides[r.Side]++
		assert.Contains(t, []vocab.Status{vocab.StatusPass, vocab.StatusUnsupported}, r.Status, "%s %s %s: %v", r.Case, r.Side, r.Feature, r.Reasons)
	}
	// The model lists the run asks beside its cases (the preflight, the
	// coverage) are judged too: every other request is one case's.
	assert.Equal(t, requestsOf(run, false), requestsOf(judged, true), "one client result per request of a case")
	assert.Equal(t, sides[results.SideClient], sides[results.SideGateway], "every answer judged")
}

// requestsOf counts the HTTP requests results made beyond the model list:
// a run's, or (observed) one per client result.
func requestsOf(rs []results.Result, observed bool) int {
	n := 0
	for _, r := range rs {
		switch {
		case r.Feature == "models.list":
		case !observed:
			n += r.Requests
		case r.Side == results.SideClient:
			n++
		}
	}
	return n
}

// TestJudgingRelayNamesWhatTheCatalogFails: with a fault on, the relay's
// gateway-side findings fall in exactly the features the catalog's own run
// fails; the client side finds only the negative cases' own breaches.
func TestJudgingRelayNamesWhatTheCatalogFails(t *testing.T) {
	if testing.Short() {
		t.Skip("the whole catalog through a relay, per fault")
	}
	negativeRows := catalogRows(t, vocab.TierNegative)
	for _, faults := range [][]string{{"size-mismatch", "chat-no-done"}, {"cumulative-deltas"}, {"background-auto"}, {"undecodable-image"}} {
		t.Run(strings.Join(faults, ","), func(t *testing.T) {
			run, judged, _, code := runThrough(t, "verified,negative", faults...)
			assert.Equal(t, exitFailed, code)
			want := failedFeatures(run, "")
			require.NotEmpty(t, want, "the fault fails the catalog")
			assert.Equal(t, want, failedFeatures(judged, results.SideGateway))
			for _, r := range judged {
				if r.Side == results.SideClient && r.Status == vocab.StatusFail {
					for _, row := range strings.Split(rowsBroken(r), ",") {
						assert.Contains(t, negativeRows, row, "%s: %v", r.Case, r.Reasons)
					}
				}
			}
		})
	}
}

// catalogRows are the rows the catalog's cases of a tier cite.
func catalogRows(t *testing.T, tier vocab.Tier) []string {
	t.Helper()
	suite, err := conformance.LoadSuite("")
	require.NoError(t, err)
	var out []string
	for _, cs := range suite.Catalog.Cases {
		if cs.Tier == tier {
			for _, ref := range cs.Refs {
				out = append(out, string(ref))
			}
		}
	}
	return out
}

// rowsBroken are the rows a client result's findings name.
func rowsBroken(r results.Result) string {
	var rows []string
	for _, reason := range r.Reasons {
		if _, rest, ok := strings.Cut(reason.Message, "(spec "); ok {
			row, _, _ := strings.Cut(rest, ":")
			rows = append(rows, row)
		}
	}
	return strings.Join(rows, ",")
}

// TestJudgeARecording: gwconform judge reads a relay's recording offline
// and judges what the relay judged live; a run's recording is refused.
func TestJudgeARecording(t *testing.T) {
	clearEnv(t)
	gateway := refGateway(t, refgateway.Config{Faults: []string{"chat-no-done"}})
	dir := t.TempDir()
	relay, stop := startServe(t, "--upstream", gateway.URL, "--record", filepath.Join(dir, "rec"))
	def := refgateway.DefaultKeys()
	code, stdout, stderr := gw2(t, "run", filepath.Join(dir, "run"), []string{"--base-url", relay, "--feature", "chat.*", "--retries", "0",
		"--text-key", def.Text, "--messages-key", def.Messages, "--image-key", def.Image, "--alt-key", def.Alt})
	require.Equal(t, exitFailed, code, "%s\n%s", stdout, stderr)
	stop()

	code, stdout, stderr = gw2(t, "judge", filepath.Join(dir, "judged"), []string{filepath.Join(dir, "rec")})
	assert.Equal(t, exitFailed, code, "%s\n%s", stdout, stderr)
	assert.Contains(t, stdout, "judged ")
	judged, err := results.ReadFile(filepath.Join(dir, "judged", results.FileName))
	require.NoError(t, err)
	assert.Equal(t, []string{"chat.stream"}, failedFeatures(judged, results.SideGateway))
	report, err := os.ReadFile(filepath.Join(dir, "judged", "report.json"))
	require.NoError(t, err)
	assert.Contains(t, string(report), `"covered"`)
	assert.NotContains(t, string(report), def.Text, "a key never lands in a report")

	code, _, stderr = gw2(t, "judge", filepath.Join(dir, "again"), []string{filepath.Join(dir, "run-rec-missing")})
	assert.Equal(t, exitNotStart, code, stderr)

	// Flags may follow the recording, as the README writes the command.
	code, stdout, stderr = gw(t, "judge", filepath.Join(dir, "rec"), "--out", filepath.Join(dir, "after"))
	assert.Equal(t, exitFailed, code, "%s\n%s", stdout, stderr)
	assert.FileExists(t, filepath.Join(dir, "after", "report.json"))

	// A folder that holds a run is refused, and left as it was.
	before, err := os.ReadFile(filepath.Join(dir, "run", results.FileName))
	require.NoError(t, err)
	code, _, stderr = gw(t, "judge", filepath.Join(dir, "rec"), "--out", filepath.Join(dir, "run"))
	assert.Equal(t, exitNotStart, code)
	assert.Contains(t, stderr, "holds a run")
	after, err := os.ReadFile(filepath.Join(dir, "run", results.FileName))
	require.NoError(t, err)
	assert.Equal(t, before, after, "the run's results are untouched")
}

// TestServeJudgeMax: serve --judge answers as the reference gateway,
// judges the client side only, and after --judge-max exchanges writes the
// reports and ends by itself with the usual exit code. A client's key,
// configured or not, lands in no output; an observed failure can be shown
// and sent again with the key as its variable.
func TestServeJudgeMax(t *testing.T) {
	clearEnv(t)
	out := t.TempDir()
	base, stop, stdout := startServeCode(t, "--judge", "--judge-max", "2", "--out", out)
	const someoneElse = "sk-someone-elses-key-5e1f"
	def := refgateway.DefaultKeys()
	_, body, _ := post(t, base+"/v1/chat/completions", def.Text, `{"messages":[{"role":"user","content":"Hi"}]}`)
	assert.Contains(t, body, "error", "the reference gateway refuses a chat without model")
	resp, _, _ := post(t, base+"/v1/chat/completions", someoneElse, `{"model":"gen-5.5","messages":[{"role":"user","content":"Hi"}]}`)
	assert.Equal(t, 401, resp.StatusCode)
	// Within a minute serve ends by itself: the hang guard, not a timing.
	require.Eventually(t, func() bool { _, err := os.Stat(filepath.Join(out, "junit.xml")); return err == nil }, time.Minute, 20*time.Millisecond,
		"serve --judge ends after --judge-max exchanges: %s", stdout.String())
	assert.Equal(t, exitFailed, stop(), "a client finding fails the judgement")
	assert.Contains(t, stdout.String(), "judged 2 exchanges")

	judged, err := results.ReadFile(filepath.Join(out, results.FileName))
	require.NoError(t, err)
	for _, r := range judged {
		assert.Equal(t, results.SideClient, r.Side, "the reference gateway is not on trial")
	}
	require.Len(t, judged, 2)
	slices.SortFunc(judged, func(a, b results.Result) int { return strings.Compare(b.Key, a.Key) }) // text, then other
	assert.Equal(t, "4.2/model-omitted", rowsBroken(judged[0]))
	assert.Equal(t, "other", judged[1].Key)
	filepath.WalkDir(out, func(path string, d fs.DirEntry, err error) error {
		require.NoError(t, err)
		if !d.IsDir() {
			b, err := os.ReadFile(path)
			require.NoError(t, err)
			for _, key := range []string{def.Text, someoneElse} {
				assert.NotContains(t, string(b), key, "%s holds a client's key", path)
			}
		}
		return nil
	})

	code, shown, stderr := gw(t, "show", "--out", out, "--curl", judged[0].Case)
	require.Equal(t, exitOK, code, stderr)
	assert.Contains(t, shown, "4.2/model-omitted")
	curl := shown[strings.Index(shown, "curl -sS"):]
	assert.Contains(t, curl, `"${GWCONFORM_BASE_URL}/v1/chat/completions"`)
	assert.Contains(t, curl, `"Authorization: Bearer ${GWCONFORM_TEXT_KEY}"`)
	assert.Contains(t, curl, `{"messages":[{"role":"user","content":"Hi"}]}`, "the body as the client sent it")
	parse, err := exec.Command("bash", "-n", "-c", curl).CombinedOutput()
	assert.NoError(t, err, "the shell parses it:\n%s\n%s", curl, parse)
}

func TestServeJudgeFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		says string
	}{
		{[]string{"--judge", "--replay", t.TempDir()}, "gwconform judge RECORDING"},
		{[]string{"--judge", "--judge-max", "-1"}, "--judge-max"},
		{[]string{"--judge", "--upstream", "http://127.0.0.1:1", "--fault", "chat-no-done"}, "shape the reference gateway"},
		{[]string{"--judge", "--model-map", "gen-5.55=company-chat"}, "gen-5.55 is no model of the catalog"},
	} {
		code, _, stderr := gw(t, append([]string{"serve"}, tc.args...)...)
		assert.Equal(t, exitNotStart, code, "%v", tc.args)
		assert.Contains(t, stderr, tc.says, "%v", tc.args)
	}
}
