package report

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gwconform/gwconform/conformance/results"
	"github.com/gwconform/gwconform/conformance/vocab"
	reportv1 "github.com/gwconform/gwconform/report/apis/v1"
	. "github.com/gwconform/gwconform/report/internal/reporttest"
)

func TestAggregate(t *testing.T) {
	const m, f = "m", "f"
	tests := []struct {
		name      string
		in        []results.Result
		status    reportv1.CellStatus
		label     string
		bad, run  int
		blocking  bool
		strictRun bool
	}{
		{"no cases", nil, reportv1.CellNone, "—", 0, 0, false, false},
		{"all pass", []results.Result{Res("a", f, m, TV, P), Res("b", f, m, TN, P)}, reportv1.CellPass, "pass", 0, 2, false, false},
		// k/n is the same count in every cell: k of the n cases run passed.
		{"k/n fail", []results.Result{Res("a", f, m, TV, P), Res("b", f, m, TV, F), Res("c", f, m, TN, P)}, reportv1.CellFail, "fail 2/3", 1, 3, true, false},
		{"fail and error count as bad", []results.Result{Res("a", f, m, TV, F), Res("b", f, m, TV, E), Res("c", f, m, TV, P)}, reportv1.CellFail, "fail 1/3", 2, 3, true, false},
		{"error only", []results.Result{Res("a", f, m, TV, E), Res("b", f, m, TV, P)}, reportv1.CellError, "error 1/2", 1, 2, true, false},
		{"all skip", []results.Result{Res("a", f, m, TV, S), Res("b", f, m, TV, S)}, reportv1.CellSkip, "skip", 0, 0, false, false},
		{"skips do not count in n", []results.Result{Res("a", f, m, TV, P), Res("b", f, m, TV, S)}, reportv1.CellPass, "pass", 0, 1, false, false},
		{"unsupported explore", []results.Result{Res("a", f, m, TE, U)}, reportv1.CellUnsupported, "unsupported", 0, 1, false, false},
		{"partly supported", []results.Result{Res("a", f, m, TE, P), Res("b", f, m, TE, U)}, reportv1.CellPass, "pass 1/2", 0, 2, false, false},
		{"throttled", []results.Result{Res("a", f, m, TV, P), Res("b", f, m, TV, T)}, reportv1.CellThrottled, "throttled 1/2", 1, 2, false, false},
		{"waived above pass, never blocking", []results.Result{Res("a", f, m, TV, P), Res("b", f, m, TN, W)}, reportv1.CellWaived, "waived 1/2", 1, 2, false, false},
		// An endpoint that refuses everything: its refusals are no pass.
		{"inconclusive refusals are no pass", []results.Result{Res("a", f, m, TN, I), Res("b", f, m, TN, I)}, reportv1.CellInconclusive, "inconclusive 0/2", 2, 2, false, false},
		{"inconclusive above waived and pass", []results.Result{Res("a", f, m, TN, P), Res("b", f, m, TN, I), Res("c", f, m, TN, W)}, reportv1.CellInconclusive, "inconclusive 1/3", 1, 3, false, false},
		{"a failure beside an inconclusive one", []results.Result{Res("a", f, m, TV, F), Res("b", f, m, TN, I)}, reportv1.CellFail, "fail 0/2", 1, 2, true, false},
		{"a failure beside a waived one", []results.Result{Res("a", f, m, TV, F), Res("b", f, m, TN, W)}, reportv1.CellFail, "fail 0/2", 1, 2, true, false},
		{"strict fail is not blocking", []results.Result{Res("a", f, m, TS, F)}, reportv1.CellFail, "fail 0/1", 1, 1, false, false},
		{"strict fail blocks with --strict", []results.Result{Res("a", f, m, TS, F)}, reportv1.CellFail, "fail 0/1", 1, 1, true, true},
		{"explore fail never blocks", []results.Result{Res("a", f, m, TE, F)}, reportv1.CellFail, "fail 0/1", 1, 1, false, true},
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
	m, rs := Nightly()
	r := Build(m, rs[:4])
	assert.Equal(t, "pass", r.Verdict, "a waived failure does not fail the run")
	assert.Contains(t, r.Headline, "(1 waived)")

	r = Build(m, rs)
	assert.Equal(t, "fail", r.Verdict, "an expired waiver's failure does")
	assert.Equal(t, reportv1.Cost{Budget: 20, Planned: m.PlannedCost, Actual: 16.38}, r.Cost, "actual: every result's units, rounded to 0.01")
	assert.Equal(t, []reportv1.UncoveredModel{{Key: "image", Model: "gen-image-3-nova"}}, r.UncoveredModels)
	require.Len(t, r.Waivers, 3)
	for i, st := range []results.WaiverState{results.WaiverApplied, results.WaiverNotNeeded, results.WaiverExpired} {
		assert.Equal(t, st, r.Waivers[i].State)
		assert.Equal(t, "https://tracker.test/GW-7", r.Waivers[i].Link)
		require.Len(t, r.Waivers[i].Results, 1)
	}
	assert.Equal(t, reportv1.WaiverMatch{Model: "gen-text-1", Feature: "chat.basic", Case: "chat-bad-model", Status: W}, r.Waivers[0].Results[0])
	cell, ok := r.Cell("gen-text-1", "chat.basic")
	require.True(t, ok)
	assert.Equal(t, reportv1.CellWaived, cell.Status)
	assert.Equal(t, 1, cell.Counts.Flaky, "the pass after a re-run is flaky")
	assert.Equal(t, 1, r.Total.Waived)
	assert.Contains(t, r.Notes, "waiver waivers.yaml:2 (case chat-stream, model *) expired 2026-04-01 and no longer applies: 1 failure, counted again")

	empty := Build(reportv1.Meta{}, nil)
	assert.Equal(t, reportv1.Cost{}, empty.Cost)
	assert.NotNil(t, empty.Waivers)
	assert.NotNil(t, empty.UncoveredModels)
}

func TestBuildMatrix(t *testing.T) {
	rs := Sample()
	rs = append(rs, Res("legacy", "chat.legacy", "gen-text-1", TV, P)) // a feature the catalog no longer lists
	r := Build(SampleMeta(), rs)

	assert.Equal(t, reportv1.APIVersion, r.APIVersion)
	assert.Equal(t, reportv1.Kind, r.Kind)
	assert.Equal(t, []string{"gen-image-2.5-flare", "gen-text-1"}, r.Models)
	assert.Equal(t, append(append([]string{}, Features...), "chat.legacy"), r.Features)
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
		want    map[vocab.Tier]reportv1.Counts
	}{
		{
			name: "per tier", rs: Sample(), verdict: "fail",
			want: map[vocab.Tier]reportv1.Counts{
				TV: {Pass: 3, Fail: 1, Error: 1, Skip: 1, Total: 6, Flaky: 1},
				TN: {Fail: 1, Total: 1},
				TS: {Throttled: 1, Total: 1},
				TE: {Unsupported: 1, Total: 1},
			},
		},
		{
			name: "strict and explore failures do not fail the run", verdict: "pass",
			rs: []results.Result{Res("a", "chat.basic", "m", TV, P), Res("b", "chat.basic", "m", TS, F), Res("c", "chat.basic", "m", TE, F)},
			want: map[vocab.Tier]reportv1.Counts{
				TV: {Pass: 1, Total: 1}, TN: {}, TS: {Fail: 1, Total: 1}, TE: {Fail: 1, Total: 1},
			},
		},
		{
			name: "--strict makes strict failures count", strict: true, verdict: "fail",
			rs:   []results.Result{Res("a", "chat.basic", "m", TV, P), Res("b", "chat.basic", "m", TS, F)},
			want: map[vocab.Tier]reportv1.Counts{TV: {Pass: 1, Total: 1}, TN: {}, TS: {Fail: 1, Total: 1}, TE: {}},
		},
		{name: "an empty run checked nothing: incomplete", verdict: "incomplete", want: map[vocab.Tier]reportv1.Counts{TV: {}, TN: {}, TS: {}, TE: {}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := SampleMeta()
			m.Strict = tt.strict
			r := Build(m, tt.rs)
			assert.Equal(t, tt.verdict, r.Verdict)
			require.Len(t, r.Totals, 4)
			sum := reportv1.Counts{}
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
	in := []results.Result{Res("a", "chat.basic", "m", TV, F, func(r *results.Result) {
		r.Reasons = []vocab.Reason{{Check: "json", Actual: `{"error":"bad header Authorization: Bearer ` + secret + `"}`, Message: "echoed Bearer " + secret}}
		r.Request = &results.Request{Method: "POST", Path: "/v1/chat/completions?api_key=" + secret, Body: `{"api_key":"` + secret + `","x":"` + strings.Repeat("y", 10000) + `"}`}
		r.Images = []results.ImageInfo{{Where: "data[0]", Format: "png", Thumb: "javascript:alert(1)"}, {Where: "data[1]", Format: "png", Thumb: "data:image/png;base64,AAAA"}}
	})}
	m := SampleMeta()
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

func TestSpan(t *testing.T) {
	rs := []results.Result{
		{Started: T0.Add(time.Second), DurationMS: 500},
		{Started: T0, DurationMS: 100},
		{Started: T0.Add(2 * time.Second), DurationMS: 3000},
		{}, // no start: ignored
	}
	s, f := Span(rs)
	assert.Equal(t, T0, s)
	assert.Equal(t, T0.Add(5*time.Second), f)
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
	require.NoError(t, WriteAll(dir, Build(SampleMeta(), Sample())))
	for _, f := range []string{FileJSON, FileMarkdown, FileHTML, FileJUnit} {
		st, err := os.Stat(filepath.Join(dir, f))
		require.NoError(t, err, f)
		assert.Positive(t, st.Size(), f)
	}
	left, _ := filepath.Glob(filepath.Join(dir, ".*"))
	assert.Empty(t, left, "no temporary files left behind")
}

// The model map's notes: one per key whose list could not be read, one per
// given name its key's list lacks; nothing for what was listed or
// resolved. Build puts them in the report's notes.
func TestModelNameNotes(t *testing.T) {
	unreadText := func(spec string) reportv1.ModelName {
		return reportv1.ModelName{Spec: spec, Gateway: spec, Key: "text", Source: reportv1.NameUnread, Why: "HTTP 404"}
	}
	tests := []struct {
		name  string
		names []reportv1.ModelName
		want  []string
	}{
		{"no map", nil, nil},
		{"listed and resolved say nothing", []reportv1.ModelName{
			{Spec: "gen-5.5", Gateway: "gpt-5.5", Key: "text", Source: reportv1.NameResolved},
			{Spec: "gen-image-2", Gateway: "gen-image-2", Key: "image", Source: reportv1.NameListed},
			{Spec: "alt-flash", Gateway: "company-alt", Key: "alt", Source: reportv1.NameGiven}, // given and listed
		}, nil},
		// The verdict says it, once per key, beside the cases it left
		// unchecked.
		{"an unread list says nothing here", []reportv1.ModelName{unreadText("gen-5.5"), unreadText("gen-5.6")}, nil},
		{"a given name the list lacks", []reportv1.ModelName{
			{Spec: "gen-5.5", Gateway: "company-chat", Key: "text", Source: reportv1.NameGiven, Unlisted: true},
		}, []string{
			"company-chat (given for gen-5.5 with --model-map) is not in the text key's list: sent anyway (spec 1: a list does not prove what is served)",
		}},
		{"every kind, in the map's order", NamedModels(), []string{
			"company-chat (given for alt-flash with --model-map) is not in the alt key's list: sent anyway (spec 1: a list does not prove what is served)",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, ModelNameNotes(tt.names))
			m := SampleMeta()
			m.ModelMap = tt.names
			notes := Build(m, Sample()).Notes
			for _, n := range tt.want {
				assert.Contains(t, notes, n)
			}
		})
	}
}

// What a key's list answered is redacted as a reason is: a transport
// error may quote a URL with its credentials.
func TestBuildRedactsTheModelMap(t *testing.T) {
	m := SampleMeta()
	m.ModelMap = []reportv1.ModelName{{Spec: "gen-5.5", Gateway: "gen-5.5", Key: "text", Source: reportv1.NameUnread,
		Why: `Get "https://gw.test/v1/models": Authorization: Bearer sk-abcdefgh12345678 refused`}}
	r := Build(m, Sample())
	require.Len(t, r.Metadata.ModelMap, 1)
	assert.NotContains(t, r.Metadata.ModelMap[0].Why, "sk-abcdefgh12345678")
	assert.NotContains(t, strings.Join(r.Notes, "\n"), "sk-abcdefgh12345678")
	assert.Contains(t, m.ModelMap[0].Why, "sk-abcdefgh12345678", "the caller's map is untouched")
}

// Build groups the failed results by cause (results.GroupByCause) into
// report.json's causes: the deciding ones first, each with its results,
// cells and cases, and an example (the first in report order) whose reason
// is as redacted as the results.
func TestBuildCauses(t *testing.T) {
	routeMissing := func(r *results.Result) {
		r.Reasons = []vocab.Reason{{Check: "status", Expected: "200", Actual: `404 {"error":{"message":"Route not found"}}`, Message: "HTTP status 404, want 200"}}
	}
	undecodable := func(r *results.Result) {
		r.Reasons = []vocab.Reason{{Check: "image", Where: "data[0]", Message: "image does not decode (png: invalid format; Bearer sk-live-0123456789abcdef)"}}
	}
	tests := []struct {
		name   string
		strict bool
		rs     []results.Result
		want   []reportv1.Cause
	}{
		{
			name: "two causes, the larger first",
			rs: []results.Result{
				Res("edit-json", "images.edit.json", "gen-image-2", TV, F, undecodable),
				Res("gen-basic", "images.generate", "gen-image-2.5-flare", TV, F, routeMissing),
				Res("gen-basic", "images.generate", "gen-image-2", TV, F, routeMissing),
				Res("gen-quality", "images.generate.quality", "gen-image-2", TV, F, routeMissing),
				Res("edit-json-two-refs", "images.edit.json", "gen-image-2", TV, F, undecodable),
				Res("models-list", "models.list", "gen-image-2", TV, P),
			},
			want: []reportv1.Cause{
				{Cause: "HTTP 404: Route not found", Deciding: true, Results: 3, Cells: 3, Cases: []string{"gen-basic", "gen-quality"},
					Example: reportv1.CauseExample{Case: "gen-basic", Model: "gen-image-2", Reason: vocab.Reason{Check: "status", Expected: "200", Actual: `404 {"error":{"message":"Route not found"}}`, Message: "HTTP status 404, want 200"}}},
				{Cause: "image: image does not decode", Deciding: true, Results: 2, Cells: 1, Cases: []string{"edit-json", "edit-json-two-refs"},
					Example: reportv1.CauseExample{Case: "edit-json", Model: "gen-image-2", Reason: vocab.Reason{Check: "image", Where: "data[0]", Message: "image does not decode (png: invalid format; Bearer [REDACTED])"}}},
			},
		},
		{
			name: "a cause reported only comes after the deciding ones, however large",
			rs: []results.Result{
				Res("gen-basic-usage", "images.generate", "gen-image-2", TS, F, routeMissing),
				Res("gen-quality-usage", "images.generate.quality", "gen-image-2", TS, F, routeMissing),
				Res("edit-json", "images.edit.json", "gen-image-2", TV, E, undecodable),
			},
			want: []reportv1.Cause{
				{Cause: "image: image does not decode", Deciding: true, Results: 1, Cells: 1, Cases: []string{"edit-json"},
					Example: reportv1.CauseExample{Case: "edit-json", Model: "gen-image-2", Reason: vocab.Reason{Check: "image", Where: "data[0]", Message: "image does not decode (png: invalid format; Bearer [REDACTED])"}}},
				{Cause: "HTTP 404: Route not found", Deciding: false, Results: 2, Cells: 2, Cases: []string{"gen-basic-usage", "gen-quality-usage"},
					Example: reportv1.CauseExample{Case: "gen-basic-usage", Model: "gen-image-2", Reason: vocab.Reason{Check: "status", Expected: "200", Actual: `404 {"error":{"message":"Route not found"}}`, Message: "HTTP status 404, want 200"}}},
			},
		},
		{
			name: "with --strict a strict failure decides", strict: true,
			rs: []results.Result{Res("gen-basic-usage", "images.generate", "gen-image-2", TS, F, routeMissing)},
			want: []reportv1.Cause{
				{Cause: "HTTP 404: Route not found", Deciding: true, Results: 1, Cells: 1, Cases: []string{"gen-basic-usage"},
					Example: reportv1.CauseExample{Case: "gen-basic-usage", Model: "gen-image-2", Reason: vocab.Reason{Check: "status", Expected: "200", Actual: `404 {"error":{"message":"Route not found"}}`, Message: "HTTP status 404, want 200"}}},
			},
		},
		{
			name: "throttled, inconclusive and cancelled results are no cause",
			rs: []results.Result{
				Res("a", "chat.basic", "m", TV, T), Res("b", "chat.errors", "m", TN, I),
				Res("c", "chat.basic", "m", TV, E, func(r *results.Result) { r.Cancelled = true }),
			},
			want: []reportv1.Cause{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := SampleMeta()
			m.Strict = tt.strict
			assert.Equal(t, tt.want, Build(m, tt.rs).Causes)
		})
	}
}
