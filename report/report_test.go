package report

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gwconform/gwconform/conformance/results"
	"github.com/gwconform/gwconform/conformance/vocab"
)

var t0 = time.Date(2026, 3, 14, 2, 0, 0, 0, time.UTC)

// res makes a result; opts adjust it.
func res(caseID, feature, model string, tier vocab.Tier, st vocab.Status, opts ...func(*results.Result)) results.Result {
	r := results.Result{
		Case: caseID, Feature: feature, Model: model, Tier: tier, Status: st,
		DurationMS: 120, TTFBMS: 40, Attempts: 1, Reasons: []vocab.Reason{},
		Started: t0, Key: "text", Spec: "4.2", Requirement: "a requirement",
	}
	if st == vocab.StatusFail || st == vocab.StatusError || st == vocab.StatusWaived {
		r.Reasons = []vocab.Reason{{Check: "status", Expected: "200", Actual: "500", Message: "unexpected status"}}
	}
	for _, o := range opts {
		o(&r)
	}
	return r
}

func withReason(msg string) func(*results.Result) {
	return func(r *results.Result) {
		r.Reasons = []vocab.Reason{{Check: "json", Where: "data.0", Expected: "x", Actual: msg, Message: msg}}
	}
}

func flaky(r *results.Result) { r.Flaky = true; r.Attempts = 2 }

const (
	P  = vocab.StatusPass
	F  = vocab.StatusFail
	E  = vocab.StatusError
	S  = vocab.StatusSkip
	U  = vocab.StatusUnsupported
	T  = vocab.StatusThrottled
	TV = vocab.TierVerified
	TN = vocab.TierNegative
	TS = vocab.TierStrict
	TE = vocab.TierExplore
)

// W is the waived status.
const W = vocab.StatusWaived

// I is the inconclusive status: a refusal whose control was not served.
const I = vocab.StatusInconclusive

// waiver marks a result as matched by a --waivers entry in the given state.
func waiver(st results.WaiverState) func(*results.Result) {
	return func(r *results.Result) {
		r.Waiver = &results.Waiver{Case: r.Case, Model: "*", Reason: "the relay answers 400 for retired ids", Link: "https://tracker.test/GW-7",
			Expires: "2026-04-01", Source: "waivers.yaml:2", State: st}
	}
}

// cost sets the units a result spent.
func cost(units float64) func(*results.Result) {
	return func(r *results.Result) { r.CostUnits = units }
}

// rerunPassed marks a result as passed on a --rerun-failed re-run.
func rerunPassed(r *results.Result) {
	r.Reruns, r.Flaky, r.FirstStatus = 1, true, vocab.StatusFail
	r.FirstReasons = []vocab.Reason{{Check: "status", Expected: "200", Actual: "502", Message: "HTTP status 502, want 200"}}
}

// nightly is a night with the issue-12 features: a waived failure, a
// waiver no longer needed, an expired one, a pass after a re-run, costs,
// a budget and a model no case covers.
func nightly() (Meta, []results.Result) {
	m := meta()
	planned := 12.5
	m.MaxCost, m.PlannedCost = 20, &planned
	m.Uncovered = []UncoveredModel{{Key: "image", Model: "gen-image-3-nova"}}
	return m, []results.Result{
		res("models-list", "models.list", "gen-text-1", TV, P, cost(1)),
		res("chat-basic", "chat.basic", "gen-text-1", TV, P, cost(2), rerunPassed),
		res("chat-bad-model", "chat.basic", "gen-text-1", TN, W, cost(1), waiver(results.WaiverApplied)),
		res("chat-bad-model", "chat.basic", "gen-text-2", TN, P, cost(1), waiver(results.WaiverNotNeeded)),
		res("chat-stream", "chat.stream", "gen-text-1", TV, F, cost(1.25), waiver(results.WaiverExpired)),
		res("edit-json", "images.edit.json", "gen-image-2.5-flare", TV, P, cost(10.125)),
	}
}

var testFeatures = []string{"models.list", "chat.basic", "chat.stream", "images.edit.json", "responses.basic"}

func meta() Meta {
	return Meta{
		SuiteVersion: "v0.1.0", Commit: "0123456789abcdef", CatalogHash: "cafe", BaseURL: "http://127.0.0.1:8080",
		Started: t0, Finished: t0.Add(95 * time.Second), Features: testFeatures,
	}
}

// sample is a small run with every status, used by the writer tests.
func sample() []results.Result {
	return []results.Result{
		res("models-list", "models.list", "gen-text-1", TV, P),
		res("models-list", "models.list", "gen-image-2.5-flare", TV, P),
		res("chat-basic", "chat.basic", "gen-text-1", TV, P, flaky),
		res("chat-bad-model", "chat.basic", "gen-text-1", TN, F),
		res("chat-stream", "chat.stream", "gen-text-1", TV, E),
		res("chat-stream-usage", "chat.stream", "gen-text-1", TS, T),
		res("edit-json", "images.edit.json", "gen-image-2.5-flare", TV, F, withReason(`<script>alert(1)</script>`), func(r *results.Result) {
			r.Key = "image"
			r.Images = []results.ImageInfo{{Where: "data[0]", Format: "png", Width: 64, Height: 64, SHA256: "ab", Bytes: 100, Thumb: "data:image/png;base64,iVBORw0KGgo="}}
		}),
		res("edit-json-url", "images.edit.json", "gen-image-2.5-flare", TV, S),
		res("responses-basic", "responses.basic", "gen-text-1", TE, U),
	}
}

func TestAggregate(t *testing.T) {
	const m, f = "m", "f"
	tests := []struct {
		name      string
		in        []results.Result
		status    CellStatus
		label     string
		bad, run  int
		blocking  bool
		strictRun bool
	}{
		{"no cases", nil, CellNone, "—", 0, 0, false, false},
		{"all pass", []results.Result{res("a", f, m, TV, P), res("b", f, m, TN, P)}, CellPass, "pass", 0, 2, false, false},
		// k/n is the same count in every cell: k of the n cases run passed.
		{"k/n fail", []results.Result{res("a", f, m, TV, P), res("b", f, m, TV, F), res("c", f, m, TN, P)}, CellFail, "fail 2/3", 1, 3, true, false},
		{"fail and error count as bad", []results.Result{res("a", f, m, TV, F), res("b", f, m, TV, E), res("c", f, m, TV, P)}, CellFail, "fail 1/3", 2, 3, true, false},
		{"error only", []results.Result{res("a", f, m, TV, E), res("b", f, m, TV, P)}, CellError, "error 1/2", 1, 2, true, false},
		{"all skip", []results.Result{res("a", f, m, TV, S), res("b", f, m, TV, S)}, CellSkip, "skip", 0, 0, false, false},
		{"skips do not count in n", []results.Result{res("a", f, m, TV, P), res("b", f, m, TV, S)}, CellPass, "pass", 0, 1, false, false},
		{"unsupported explore", []results.Result{res("a", f, m, TE, U)}, CellUnsupported, "unsupported", 0, 1, false, false},
		{"partly supported", []results.Result{res("a", f, m, TE, P), res("b", f, m, TE, U)}, CellPass, "pass 1/2", 0, 2, false, false},
		{"throttled", []results.Result{res("a", f, m, TV, P), res("b", f, m, TV, T)}, CellThrottled, "throttled 1/2", 1, 2, false, false},
		{"waived above pass, never blocking", []results.Result{res("a", f, m, TV, P), res("b", f, m, TN, W)}, CellWaived, "waived 1/2", 1, 2, false, false},
		// An endpoint that refuses everything: its refusals are no pass.
		{"inconclusive refusals are no pass", []results.Result{res("a", f, m, TN, I), res("b", f, m, TN, I)}, CellInconclusive, "inconclusive 0/2", 2, 2, false, false},
		{"inconclusive above waived and pass", []results.Result{res("a", f, m, TN, P), res("b", f, m, TN, I), res("c", f, m, TN, W)}, CellInconclusive, "inconclusive 1/3", 1, 3, false, false},
		{"a failure beside an inconclusive one", []results.Result{res("a", f, m, TV, F), res("b", f, m, TN, I)}, CellFail, "fail 0/2", 1, 2, true, false},
		{"a failure beside a waived one", []results.Result{res("a", f, m, TV, F), res("b", f, m, TN, W)}, CellFail, "fail 0/2", 1, 2, true, false},
		{"strict fail is not blocking", []results.Result{res("a", f, m, TS, F)}, CellFail, "fail 0/1", 1, 1, false, false},
		{"strict fail blocks with --strict", []results.Result{res("a", f, m, TS, F)}, CellFail, "fail 0/1", 1, 1, true, true},
		{"explore fail never blocks", []results.Result{res("a", f, m, TE, F)}, CellFail, "fail 0/1", 1, 1, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := aggregate(m, f, tt.in, tt.strictRun)
			assert.Equal(t, tt.status, c.Status)
			assert.Equal(t, tt.label, c.Label)
			assert.Equal(t, tt.bad, c.Bad)
			assert.Equal(t, tt.run, c.Run)
			assert.Equal(t, tt.blocking, c.Blocking)
			assert.Equal(t, len(tt.in), c.Counts.Total)
		})
	}
}

func TestBuildNightly(t *testing.T) {
	m, rs := nightly()
	r := Build(m, rs[:4])
	assert.Equal(t, "pass", r.Verdict, "a waived failure does not fail the run")
	assert.Contains(t, r.Headline, "(1 waived)")

	r = Build(m, rs)
	assert.Equal(t, "fail", r.Verdict, "an expired waiver's failure does")
	assert.Equal(t, Cost{Budget: 20, Planned: m.PlannedCost, Actual: 16.38}, r.Cost, "actual: every result's units, rounded to 0.01")
	assert.Equal(t, []UncoveredModel{{Key: "image", Model: "gen-image-3-nova"}}, r.UncoveredModels)
	require.Len(t, r.Waivers, 3)
	for i, st := range []results.WaiverState{results.WaiverApplied, results.WaiverNotNeeded, results.WaiverExpired} {
		assert.Equal(t, st, r.Waivers[i].State)
		assert.Equal(t, "https://tracker.test/GW-7", r.Waivers[i].Link)
		require.Len(t, r.Waivers[i].Results, 1)
	}
	assert.Equal(t, WaiverMatch{Model: "gen-text-1", Feature: "chat.basic", Case: "chat-bad-model", Status: W}, r.Waivers[0].Results[0])
	cell, ok := r.Cell("gen-text-1", "chat.basic")
	require.True(t, ok)
	assert.Equal(t, CellWaived, cell.Status)
	assert.Equal(t, 1, cell.Counts.Flaky, "the pass after a re-run is flaky")
	assert.Equal(t, 1, r.Total.Waived)
	assert.Contains(t, r.Notes, "waiver waivers.yaml:2 (case chat-stream, model *) expired 2026-04-01 and no longer applies: 1 failure, counted again")

	empty := Build(Meta{}, nil)
	assert.Equal(t, Cost{}, empty.Cost)
	assert.NotNil(t, empty.Waivers)
	assert.NotNil(t, empty.UncoveredModels)
}

func TestBuildMatrix(t *testing.T) {
	rs := sample()
	rs = append(rs, res("legacy", "chat.legacy", "gen-text-1", TV, P)) // a feature the catalog no longer lists
	r := Build(meta(), rs)

	assert.Equal(t, APIVersion, r.APIVersion)
	assert.Equal(t, Kind, r.Kind)
	assert.Equal(t, []string{"gen-image-2.5-flare", "gen-text-1"}, r.Models)
	assert.Equal(t, append(append([]string{}, testFeatures...), "chat.legacy"), r.Features)
	require.Len(t, r.Cells, len(r.Models)*len(r.Features))

	want := map[[2]string]string{
		{"gen-text-1", "models.list"}:               "pass",
		{"gen-text-1", "chat.basic"}:                "fail 1/2",
		{"gen-text-1", "chat.stream"}:               "error 0/2",
		{"gen-text-1", "images.edit.json"}:          "—",
		{"gen-text-1", "responses.basic"}:           "unsupported",
		{"gen-text-1", "chat.legacy"}:               "pass",
		{"gen-image-2.5-flare", "images.edit.json"}: "fail 0/1",
		{"gen-image-2.5-flare", "chat.basic"}:       "—",
		{"gen-image-2.5-flare", "models.list"}:      "pass",
		{"gen-image-2.5-flare", "responses.basic"}:  "—",
		{"gen-image-2.5-flare", "chat.legacy"}:      "—",
		{"gen-image-2.5-flare", "chat.stream"}:      "—",
	}
	for k, label := range want {
		c, ok := r.Cell(k[0], k[1])
		require.True(t, ok, k)
		assert.Equal(t, label, c.Label, k)
		assert.Equal(t, k[0], c.Model)
		assert.Equal(t, k[1], c.Feature)
	}
	_, ok := r.Cell("nope", "chat.basic")
	assert.False(t, ok)

	// Results are ordered by feature (catalog order), model, case.
	var order []string
	for _, x := range r.Results {
		order = append(order, x.Feature+"/"+x.Model+"/"+x.Case)
	}
	assert.Equal(t, "models.list/gen-image-2.5-flare/models-list", order[0])
	assert.Equal(t, "chat.legacy/gen-text-1/legacy", order[len(order)-1])
}

func TestBuildTotals(t *testing.T) {
	tests := []struct {
		name    string
		strict  bool
		rs      []results.Result
		verdict string
		want    map[vocab.Tier]Counts
	}{
		{
			name: "per tier", rs: sample(), verdict: "fail",
			want: map[vocab.Tier]Counts{
				TV: {Pass: 3, Fail: 1, Error: 1, Skip: 1, Total: 6, Flaky: 1},
				TN: {Fail: 1, Total: 1},
				TS: {Throttled: 1, Total: 1},
				TE: {Unsupported: 1, Total: 1},
			},
		},
		{
			name: "strict and explore failures do not fail the run", verdict: "pass",
			rs: []results.Result{res("a", "chat.basic", "m", TV, P), res("b", "chat.basic", "m", TS, F), res("c", "chat.basic", "m", TE, F)},
			want: map[vocab.Tier]Counts{
				TV: {Pass: 1, Total: 1}, TN: {}, TS: {Fail: 1, Total: 1}, TE: {Fail: 1, Total: 1},
			},
		},
		{
			name: "--strict makes strict failures count", strict: true, verdict: "fail",
			rs:   []results.Result{res("a", "chat.basic", "m", TV, P), res("b", "chat.basic", "m", TS, F)},
			want: map[vocab.Tier]Counts{TV: {Pass: 1, Total: 1}, TN: {}, TS: {Fail: 1, Total: 1}, TE: {}},
		},
		{name: "an empty run checked nothing: incomplete", verdict: "incomplete", want: map[vocab.Tier]Counts{TV: {}, TN: {}, TS: {}, TE: {}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := meta()
			m.Strict = tt.strict
			r := Build(m, tt.rs)
			assert.Equal(t, tt.verdict, r.Verdict)
			require.Len(t, r.Totals, 4)
			sum := Counts{}
			for i, tot := range r.Totals {
				assert.Equal(t, vocab.Tiers[i], tot.Tier)
				assert.Equal(t, tt.want[tot.Tier], tot.Counts, tot.Tier)
				assert.Equal(t, tot.Tier.Decides(tt.strict), tot.Decides)
				sum.Pass += tot.Counts.Pass
				sum.Fail += tot.Counts.Fail
				sum.Total += tot.Counts.Total
			}
			assert.Equal(t, len(tt.rs), r.Total.Total)
			assert.Equal(t, sum.Total, r.Total.Total)
			assert.Equal(t, sum.Pass, r.Total.Pass)
			assert.Equal(t, sum.Fail, r.Total.Fail)
		})
	}
}

func TestBuildSanitizes(t *testing.T) {
	secret := "sk-live-0123456789abcdefXYZ"
	in := []results.Result{res("a", "chat.basic", "m", TV, F, func(r *results.Result) {
		r.Reasons = []vocab.Reason{{Check: "json", Actual: `{"error":"bad header Authorization: Bearer ` + secret + `"}`, Message: "echoed Bearer " + secret}}
		r.Request = &results.Request{Method: "POST", Path: "/v1/chat/completions?api_key=" + secret, Body: `{"api_key":"` + secret + `","x":"` + strings.Repeat("y", 10000) + `"}`}
		r.Images = []results.ImageInfo{{Where: "data[0]", Format: "png", Thumb: "javascript:alert(1)"}, {Where: "data[1]", Format: "png", Thumb: "data:image/png;base64,AAAA"}}
	})}
	m := meta()
	m.BaseURL = "https://user:" + secret + "@gw.example.test/api?key=" + secret + "#frag"
	r := Build(m, in)

	var b bytes.Buffer
	require.NoError(t, r.WriteJSON(&b))
	assert.NotContains(t, b.String(), secret)
	assert.NotContains(t, b.String(), "0123456789abcdef"+"XYZ")
	assert.Equal(t, "https://gw.example.test/api", r.Metadata.BaseURL)
	assert.Contains(t, r.Results[0].Reasons[0].Actual, "Bearer [REDACTED]")
	assert.Less(t, len(r.Results[0].Request.Body), maxBody+100)
	assert.Empty(t, r.Results[0].Images[0].Thumb, "a non-data: thumbnail is dropped")
	assert.Equal(t, "data:image/png;base64,AAAA", r.Results[0].Images[1].Thumb)

	// The caller's results are untouched.
	assert.Contains(t, in[0].Reasons[0].Actual, secret)
	assert.Contains(t, in[0].Request.Body, secret)
	assert.Equal(t, "javascript:alert(1)", in[0].Images[0].Thumb)
}

func TestJSONRoundTrip(t *testing.T) {
	r := Build(meta(), sample())
	var b bytes.Buffer
	require.NoError(t, r.WriteJSON(&b))
	got, err := ReadJSON(bytes.NewReader(b.Bytes()))
	require.NoError(t, err)
	assert.Equal(t, r.Models, got.Models)
	assert.Equal(t, r.Features, got.Features)
	assert.Equal(t, r.Cells, got.Cells)
	assert.Equal(t, r.Totals, got.Totals)
	assert.Equal(t, r.Verdict, got.Verdict)
	require.Len(t, got.Results, len(r.Results))
	assert.Equal(t, r.Results[0].Case, got.Results[0].Case)
	assert.True(t, r.Metadata.Started.Equal(got.Metadata.Started))

	var doc map[string]any
	require.NoError(t, json.Unmarshal(b.Bytes(), &doc))
	assert.Equal(t, "gwconform.dev/v1alpha1", doc["apiVersion"])
	assert.Equal(t, "ConformanceReport", doc["kind"])
}

func TestReadJSONRejects(t *testing.T) {
	tests := []struct{ name, in, err string }{
		{"not json", `{`, "report.json"},
		{"wrong kind", `{"apiVersion":"gwconform.dev/v1alpha1","kind":"Other"}`, "kind"},
		{"unknown version", `{"apiVersion":"gwconform.dev/v9","kind":"ConformanceReport"}`, "apiVersion"},
		{"cells do not fit", `{"apiVersion":"gwconform.dev/v1alpha1","kind":"ConformanceReport","models":["a"],"features":["f"],"cells":[]}`, "cells"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ReadJSON(strings.NewReader(tt.in))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.err)
		})
	}
}

func TestSpan(t *testing.T) {
	rs := []results.Result{
		{Started: t0.Add(time.Second), DurationMS: 500},
		{Started: t0, DurationMS: 100},
		{Started: t0.Add(2 * time.Second), DurationMS: 3000},
		{}, // no start: ignored
	}
	s, f := Span(rs)
	assert.Equal(t, t0, s)
	assert.Equal(t, t0.Add(5*time.Second), f)
}

func TestFeatureGroups(t *testing.T) {
	fs := []string{"models.list", "chat.basic", "chat.stream", "images.generate", "images.generate.quality"}
	for i := range 8 {
		fs = append(fs, "images.edit.f"+string(rune('a'+i)))
	}
	fs = append(fs, "responses.basic")
	var names []string
	for _, g := range featureGroups(fs) {
		names = append(names, g.Name)
	}
	assert.Equal(t, []string{"models", "chat", "images.generate", "images.edit", "responses"}, names)
	assert.Equal(t, []string{"x"}, featureGroups([]string{"x"})[0].Features)
}

func TestWriteAll(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	require.NoError(t, WriteAll(dir, Build(meta(), sample())))
	for _, f := range []string{FileJSON, FileMarkdown, FileHTML, FileJUnit} {
		st, err := os.Stat(filepath.Join(dir, f))
		require.NoError(t, err, f)
		assert.Positive(t, st.Size(), f)
	}
	left, _ := filepath.Glob(filepath.Join(dir, ".*"))
	assert.Empty(t, left, "no temporary files left behind")
}
