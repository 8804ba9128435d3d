package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gwconform/gwconform/conformance"
	"github.com/gwconform/gwconform/conformance/catalog"
	"github.com/gwconform/gwconform/conformance/conformancetest"
	"github.com/gwconform/gwconform/conformance/refgateway"
	"github.com/gwconform/gwconform/conformance/results"
	"github.com/gwconform/gwconform/conformance/vocab"
	"github.com/gwconform/gwconform/fixtures"
	"github.com/gwconform/gwconform/report"
	reportv1 "github.com/gwconform/gwconform/report/apis/v1"
	"github.com/gwconform/gwconform/report/runs"
)

// switchable is the reference gateway behind a switch that turns faults on
// for every request (through refgateway.FaultHeader), so one base URL can
// serve a faulty night and then a clean one; it counts the calls of cases
// (everything but GET /v1/models, which preflight and the coverage listing
// send). With busy > 0, that many calls are answered 503 first, to be
// retried.
type switchable struct {
	url    string
	keys   refgateway.Keys
	faults atomic.Value // string: comma-separated fault names, "" for none
	calls  atomic.Int64
	busy   atomic.Int64
}

func startSwitchable(t *testing.T) *switchable {
	t.Helper()
	srv, err := conformancetest.Start(refgateway.Config{}, fixtures.FS)
	require.NoError(t, err)
	t.Cleanup(srv.Close)
	s := &switchable{keys: srv.Keys}
	s.faults.Store("")
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if f := s.faults.Load().(string); f != "" {
			r.Header.Set(refgateway.FaultHeader, f)
		}
		if r.URL.Path != "/v1/models" {
			s.calls.Add(1)
			if s.busy.Add(-1) >= 0 {
				w.Header().Set("Retry-After", "0")
				http.Error(w, `{"error":{"message":"busy"}}`, http.StatusServiceUnavailable)
				return
			}
		}
		srv.Gateway.ServeHTTP(w, r)
	}))
	t.Cleanup(front.Close)
	s.url = front.URL
	return s
}

func (s *switchable) args() []string {
	return []string{"--base-url", s.url, "--text-key", s.keys.Text, "--messages-key", s.keys.Messages, "--image-key", s.keys.Image, "--alt-key", s.keys.Alt}
}

func readJSONReport(t *testing.T, dir string) *reportv1.Report {
	t.Helper()
	r, err := readReport(filepath.Join(dir, report.FileJSON))
	require.NoError(t, err)
	return r
}

func readResultsFile(t *testing.T, dir string) []results.Result {
	t.Helper()
	rs, err := results.ReadFile(filepath.Join(dir, results.FileName))
	require.NoError(t, err)
	return rs
}

// Acceptance (issue 12, waivers): against a gateway answering 400 where
// the spec wants 404 (fault wrong-404), the run exits 1; with a waiver for
// the failing cases it exits 0 and they are waived, with the reason; with
// the waiver expired it exits 1 again and the report says it expired.
func TestWaiversAcceptance(t *testing.T) {
	clearEnv(t)
	gwy := startSwitchable(t)
	gwy.faults.Store("wrong-404")
	dir := t.TempDir()
	waiver := func(expires string) string {
		p := filepath.Join(dir, "waivers-"+expires+".yaml")
		require.NoError(t, os.WriteFile(p, []byte(`# the relay answers 400 for model ids it does not know
- case: messages-*-model-404
  model: "*"
  reason: the relay answers 400 for retired and unknown model ids
  link: https://tracker.test/GW-404
  expires: `+expires+"\n"), 0o644))
		return p
	}
	slice := append([]string{"--feature", "messages.errors"}, gwy.args()...)
	tests := []struct {
		name    string
		waivers string
		code    int
		status  vocab.Status // of the wrong-404 cases
		state   results.WaiverState
		says    []string // in matrix.md
	}{
		{name: "no waiver: the run fails", code: exitFailed, status: vocab.StatusFail,
			says: []string{"❌ gwconform: conformance failed"}},
		{name: "a live waiver: the run passes, the cases waived", waivers: waiver("2099-01-01"), code: exitOK, status: vocab.StatusWaived, state: results.WaiverApplied,
			says: []string{"✅ gwconform: conformance passed", "### 🔕 Waived: known deviations", "the relay answers 400 for retired and unknown model ids", "https://tracker.test/GW-404"}},
		{name: "the waiver expired: the run fails again", waivers: waiver("2020-01-01"), code: exitFailed, status: vocab.StatusFail, state: results.WaiverExpired,
			says: []string{"❌ gwconform: conformance failed", "expired 2020-01-01 and no longer applies", "### ⌛ Expired waivers"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out")
			args := append([]string{"run", "--out", out}, slice...)
			if tt.waivers != "" {
				args = append(args, "--waivers", tt.waivers)
			}
			code, stdout, stderr := gw(t, args...)
			require.Equal(t, tt.code, code, "stdout:\n%s\nstderr:\n%s", tail(stdout), stderr)
			rep := readJSONReport(t, out)
			affected := 0
			for _, r := range rep.Results {
				if !strings.HasSuffix(r.Case, "-model-404") {
					assert.Equal(t, vocab.StatusPass, r.Status, "%s %s", r.Case, r.Model)
					continue
				}
				affected++
				assert.Equal(t, tt.status, r.Status, "%s %s", r.Case, r.Model)
				if tt.state == "" {
					assert.Nil(t, r.Waiver)
					continue
				}
				require.NotNil(t, r.Waiver)
				assert.Equal(t, tt.state, r.Waiver.State)
				assert.Equal(t, "the relay answers 400 for retired and unknown model ids", r.Waiver.Reason)
			}
			assert.Positive(t, affected, "the fault's cases ran")
			if tt.state != "" {
				require.Len(t, rep.Waivers, 1)
				assert.Equal(t, tt.state, rep.Waivers[0].State)
				assert.Len(t, rep.Waivers[0].Results, affected)
			}
			md, err := os.ReadFile(filepath.Join(out, report.FileMarkdown))
			require.NoError(t, err)
			for _, s := range tt.says {
				assert.Contains(t, string(md), s)
			}
			t.Logf("exit %d: %s", code, rep.Headline)
		})
	}

	t.Run("a bad waivers file stops the run at its line and column", func(t *testing.T) {
		bad := filepath.Join(dir, "bad.yaml")
		require.NoError(t, os.WriteFile(bad, []byte("- case: x\n  model: \"*\"\n  reason: r\n  link: l\n  expires: soon\n"), 0o644))
		code, _, stderr := gw(t, append([]string{"run", "--out", t.TempDir(), "--waivers", bad}, slice...)...)
		assert.Equal(t, exitNotStart, code)
		assert.Contains(t, stderr, bad+`:5:12: entry 1: expires "soon": want a date YYYY-MM-DD`)
	})
}

// Acceptance (issue 12, re-runs): a run against a gateway with a fault
// fails; against the same gateway without it, --rerun-failed re-runs
// exactly the failed results, which now pass, marked flaky, and exits 0.
func TestRerunFailedAcceptance(t *testing.T) {
	clearEnv(t)
	gwy := startSwitchable(t)
	gwy.faults.Store("wrong-404")
	out := filepath.Join(t.TempDir(), "out")
	args := append([]string{"--out", out, "--feature", "messages.errors,chat.errors"}, gwy.args()...)

	code, stdout, stderr := gw(t, append([]string{"run"}, args...)...)
	require.Equal(t, exitFailed, code, "stdout:\n%s\nstderr:\n%s", tail(stdout), stderr)
	first := readResultsFile(t, out)
	firstReport := readJSONReport(t, out)
	failed := map[string]results.Result{}
	for _, r := range first {
		if r.Rerunnable(false) {
			failed[r.Case+"/"+r.Model] = r
		}
	}
	require.NotEmpty(t, failed)
	require.Less(t, len(failed), len(first), "a slice where most cases pass")
	// Each failed negative is made again with its control (same model),
	// which passed: a refusal is judged beside a control of the same run.
	suite, err := conformance.LoadSuite("")
	require.NoError(t, err)
	controls := map[string]bool{}
	for _, r := range failed {
		ctl := suite.Catalog.Case(r.Case).Control
		if _, alsoFailed := failed[ctl+"/"+r.Model]; ctl != "" && !alsoFailed {
			controls[ctl+"/"+r.Model] = true
		}
	}
	require.NotEmpty(t, controls)
	sent := len(failed) + len(controls)

	gwy.faults.Store("") // the gateway recovered
	before := gwy.calls.Load()
	code, stdout, stderr = gw(t, "run", "--rerun-failed", "--out", out, "--text-key", gwy.keys.Text, "--messages-key", gwy.keys.Messages,
		"--image-key", gwy.keys.Image, "--alt-key", gwy.keys.Alt)
	require.Equal(t, exitOK, code, "stdout:\n%s\nstderr:\n%s", tail(stdout), stderr)
	rerunCalls := gwy.calls.Load() - before
	assert.Equal(t, int64(sent), rerunCalls, "exactly the failed results and their controls were sent again")
	assert.Contains(t, stdout, "re-running "+strconv.Itoa(sent)+" calls of ")
	assert.Contains(t, stdout, "re-ran "+strconv.Itoa(sent)+" results: "+strconv.Itoa(len(failed))+" now pass (flaky), 0 still fail, error, are throttled or inconclusive, "+
		strconv.Itoa(len(controls))+" controls beside their negatives")

	again := readResultsFile(t, out)
	require.Len(t, again, len(first), "lines replaced, none added")
	for i, r := range again {
		assert.Equal(t, first[i].Case+"/"+first[i].Model, r.Case+"/"+r.Model, "same order")
		was, rerun := failed[r.Case+"/"+r.Model]
		if controls[r.Case+"/"+r.Model] {
			assert.Equal(t, vocab.StatusPass, r.Status, "%s %s", r.Case, r.Model)
			assert.False(t, r.Flaky, "a control that passed twice is not flaky")
			assert.Equal(t, 1, r.Reruns)
			assert.Equal(t, vocab.StatusPass, r.FirstStatus)
			assert.InDelta(t, 2*first[i].CostUnits, r.CostUnits, 1e-9, "both runs' cost")
			continue
		}
		if !rerun {
			assert.Equal(t, first[i], r, "a result that passed is left as it was")
			continue
		}
		assert.Equal(t, vocab.StatusPass, r.Status, "%s %s", r.Case, r.Model)
		assert.True(t, r.Flaky)
		assert.Equal(t, 1, r.Reruns)
		assert.Equal(t, was.Status, r.FirstStatus)
		assert.Equal(t, was.Reasons, r.FirstReasons, "the first run's reasons are kept")
		assert.InDelta(t, 2*was.CostUnits, r.CostUnits, 1e-9, "both runs' cost")
	}
	rep := readJSONReport(t, out)
	assert.Equal(t, "pass", rep.Verdict)
	assert.Equal(t, len(failed), rep.Total.Flaky)
	assert.Contains(t, strings.Join(rep.Notes, "\n"), "failed first and passed when re-run (flaky)")
	require.NotNil(t, rep.Cost.Planned)
	assert.Equal(t, *firstReport.Cost.Planned, *rep.Cost.Planned, "the plan is the recorded run's")
	assert.InDelta(t, firstReport.Cost.Actual+float64(sent-(rep.Cost.Refused-firstReport.Cost.Refused)), rep.Cost.Actual, 0.01,
		"re-runs are spent too (a text call is 1 unit; a refused request 0)")
	t.Logf("first run: %d results, %d failed; re-run sent %d calls; now: %s", len(first), len(failed), rerunCalls, rep.Headline)

	t.Run("nothing left to re-run", func(t *testing.T) {
		before := gwy.calls.Load()
		code, stdout, _ := gw(t, "run", "--rerun-failed", "--out", out, "--text-key", gwy.keys.Text, "--messages-key", gwy.keys.Messages,
			"--image-key", gwy.keys.Image, "--alt-key", gwy.keys.Alt)
		assert.Equal(t, exitOK, code)
		assert.Contains(t, stdout, "re-running 0 calls of ")
		assert.Equal(t, before, gwy.calls.Load())
	})
	t.Run("refuses settings that differ from the recorded run", func(t *testing.T) {
		code, _, stderr := gw(t, "run", "--rerun-failed", "--out", out, "--feature", "chat.basic", "--text-key", gwy.keys.Text,
			"--messages-key", gwy.keys.Messages, "--image-key", gwy.keys.Image, "--alt-key", gwy.keys.Alt)
		assert.Equal(t, exitNotStart, code)
		assert.Contains(t, stderr, "--feature: messages.errors,chat.errors, now chat.basic")
	})
	t.Run("refuses a directory without a run", func(t *testing.T) {
		code, _, stderr := gw(t, "run", "--rerun-failed", "--out", t.TempDir())
		assert.Equal(t, exitNotStart, code)
		assert.Contains(t, stderr, "manifest.json")
	})
}

var totalRE = regexp.MustCompile(`total: (\d+) calls, (\d+) skipped, \d+ final images, ([\d.]+) cost units`)

// Acceptance (issue 12, spend cap): plan --max-cost 100 plans at most 100
// cost units, the calls beyond skipped.
func TestPlanMaxCost(t *testing.T) {
	clearEnv(t)
	code, full, _ := gw(t, "plan", "--feature", "images.*")
	require.Equal(t, exitOK, code)
	code, capped, stderr := gw(t, "plan", "--feature", "images.*", "--max-cost", "100")
	require.Equal(t, exitOK, code, stderr)
	all, cut := totalRE.FindStringSubmatch(full), totalRE.FindStringSubmatch(capped)
	require.NotNil(t, all, full)
	require.NotNil(t, cut, capped)
	units, err := strconv.ParseFloat(cut[3], 64)
	require.NoError(t, err)
	allUnits, _ := strconv.ParseFloat(all[3], 64)
	assert.LessOrEqual(t, units, 100.0)
	assert.Greater(t, allUnits, 100.0, "the whole slice costs more than the cap")
	calls, _ := strconv.Atoi(cut[1])
	skipped, _ := strconv.Atoi(cut[2])
	allCalls, _ := strconv.Atoi(all[1])
	assert.Equal(t, allCalls, calls+skipped, "every call beyond the budget is skipped, none dropped")
	assert.Regexp(t, `budget: --max-cost 100 \([\d.]+ units planned\); \d+ calls over it skipped`, capped)
	t.Logf("images.*: %s cost units uncapped; with --max-cost 100: %s calls, %s units, %s skipped", all[3], cut[1], cut[3], cut[2])

	code, _, stderr = gw(t, "plan", "--max-cost", "-5")
	assert.Equal(t, exitNotStart, code)
	assert.Contains(t, stderr, "-max-cost: -5 is below the least value, 0")
}

// Acceptance (issue 12, spend cap): after a run, report.json records the
// planned and the actual cost, retries included, and the budget; the
// manifest records the run's settings.
func TestRunRecordsCostAndManifest(t *testing.T) {
	clearEnv(t)
	out := filepath.Join(t.TempDir(), "out")
	code, stdout, stderr := gw(t, "run", "--out", out, "--feature", "chat.*,images.generate", "--max-cost", "20")
	// The budget leaves verified cases unchecked: incomplete, never a pass.
	require.Equal(t, exitIncomplete, code, "stdout:\n%s\nstderr:\n%s", tail(stdout), stderr)
	rep := readJSONReport(t, out)
	assert.Regexp(t, `^incomplete: the budget left \d+ verified/negative cases? of \d+ unchecked`, rep.Headline)
	require.NotNil(t, rep.Cost.Planned)
	assert.Equal(t, 20.0, rep.Cost.Budget)
	assert.LessOrEqual(t, *rep.Cost.Planned, 20.0)
	spent, budgetSkips := 0.0, 0
	for _, r := range readResultsFile(t, out) {
		spent += r.CostUnits
		if r.Status == vocab.StatusSkip && r.Reasons[0].Check == vocab.CheckBudget {
			budgetSkips++
		}
	}
	assert.Positive(t, budgetSkips, "the budget cut the plan")
	assert.InDelta(t, spent, rep.Cost.Actual, 0.01)
	assert.Less(t, rep.Cost.Actual, *rep.Cost.Planned, "the refusals the negative cases ask for cost nothing")
	assert.Positive(t, rep.Cost.Refused)

	m, err := conformance.ReadManifest(out)
	require.NoError(t, err)
	assert.Equal(t, "run", m.Command)
	assert.Empty(t, m.BaseURL, "the in-process gateway: a later run starts its own")
	assert.Equal(t, []string{"chat.*", "images.generate"}, m.Selection.Features)
	assert.Equal(t, 20.0, m.Selection.MaxCost)
	assert.Equal(t, *rep.Cost.Planned, m.Planned.CostUnits)
	assert.Len(t, m.Keys, len(catalog.KeyKinds))
	t.Logf("planned %.2f units, spent %.2f, budget %.0f; %d calls over the budget skipped", *rep.Cost.Planned, rep.Cost.Actual, rep.Cost.Budget, budgetSkips)
}

// The actual cost counts every attempt with an answer that may hold output;
// a request answered 4xx or 5xx (the 503 retried, the 400s the negative
// cases ask for) costs nothing and is counted apart.
func TestRunCostCountsRetries(t *testing.T) {
	clearEnv(t)
	gwy := startSwitchable(t)
	gwy.busy.Store(1)
	out := filepath.Join(t.TempDir(), "out")
	code, stdout, stderr := gw(t, append([]string{"run", "--out", out, "--feature", "chat.errors", "--concurrency", "1"}, gwy.args()...)...)
	require.Equal(t, exitOK, code, "stdout:\n%s\nstderr:\n%s", tail(stdout), stderr)
	retried, refused := 0, 0
	for _, r := range readResultsFile(t, out) {
		refused += r.Refused
		assert.Equal(t, float64(r.Attempts-r.Refused), r.CostUnits, "%s: a text call is 1 unit per answer that is no 4xx or 5xx", r.Case)
		if r.Attempts == 2 {
			retried++
			assert.GreaterOrEqual(t, r.Refused, 1, "%s: the 503 is refused", r.Case)
		}
	}
	assert.Equal(t, 1, retried)
	rep := readJSONReport(t, out)
	require.NotNil(t, rep.Cost.Planned)
	assert.Equal(t, refused, rep.Cost.Refused)
	assert.InDelta(t, *rep.Cost.Planned+1-float64(refused), rep.Cost.Actual, 0.01, "planned, plus the retry, less the refused requests")
}

// Coverage drift: a model the gateway lists and no case covers is named
// after the run and in the reports, pointing to gwconform probe.
func TestRunListsUncoveredModels(t *testing.T) {
	clearEnv(t)
	srv, err := conformancetest.Start(refgateway.Config{ExtraModels: []refgateway.ExtraModel{{Kind: "image", ID: "gen-image-3-nova"}}}, fixtures.FS)
	require.NoError(t, err)
	t.Cleanup(srv.Close)
	out := filepath.Join(t.TempDir(), "out")
	code, stdout, stderr := gw(t, "run", "--out", out, "--feature", "models.list", "--base-url", srv.BaseURL,
		"--text-key", srv.Keys.Text, "--messages-key", srv.Keys.Messages, "--image-key", srv.Keys.Image, "--alt-key", srv.Keys.Alt)
	require.Equal(t, exitOK, code, "stdout:\n%s\nstderr:\n%s", tail(stdout), stderr)
	assert.Contains(t, stdout, "no case covers gen-image-3-nova (listed for the image key): gwconform probe finds what it can do")
	rep := readJSONReport(t, out)
	assert.Equal(t, []reportv1.UncoveredModel{{Key: "image", Model: "gen-image-3-nova"}}, rep.UncoveredModels)
	md, err := os.ReadFile(filepath.Join(out, report.FileMarkdown))
	require.NoError(t, err)
	assert.Contains(t, string(md), "- image key: `gen-image-3-nova`")
}

// gwconform history reads nights (files or directories) and writes the page.
func TestHistoryCommand(t *testing.T) {
	clearEnv(t)
	dirs := []string{filepath.Dir(writeNight(t, vocab.StatusPass)), writeNight(t, vocab.StatusFail)}
	out := t.TempDir()
	code, stdout, stderr := gw(t, append([]string{"history", "--out", out}, dirs...)...)
	require.Equal(t, exitOK, code, stderr)
	assert.Contains(t, stdout, "2 nights")
	assert.Contains(t, stdout, "1 cells red in the last night (fail)")
	assert.FileExists(t, filepath.Join(out, runs.FileHistory))
	assert.NotContains(t, stderr, "warning", "the nights of one gateway")

	// A night of another gateway: said on stderr (issue 34).
	other := filepath.Join(t.TempDir(), report.FileJSON)
	f, err := os.Create(other)
	require.NoError(t, err)
	require.NoError(t, report.Build(reportv1.Meta{SuiteVersion: "dev", BaseURL: "https://gw.example"},
		[]results.Result{{Case: "ca", Feature: "chat.basic", Model: "gen-5.5", Tier: vocab.TierVerified, Status: vocab.StatusPass, Attempts: 1}}).WriteJSON(f))
	require.NoError(t, f.Close())
	code, _, stderr = gw(t, append([]string{"history", "--out", out, other}, dirs...)...)
	require.Equal(t, exitOK, code, stderr)
	assert.Contains(t, stderr, "gwconform history: warning: the nights come from 2 gateways: gw.example (1 night), "+reportv1.ReferenceGateway+" (2 nights)")

	code, _, _ = gw(t, "history", "--out", out)
	assert.Equal(t, exitNotStart, code, "no night")
	code, _, stderr = gw(t, "history", "--out", out, filepath.Join(out, "missing.json"))
	assert.Equal(t, exitNotStart, code)
	assert.Contains(t, stderr, "missing.json")
}
