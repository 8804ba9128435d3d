package runs

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gwconform/gwconform/conformance/results"
	"github.com/gwconform/gwconform/conformance/vocab"
	"github.com/gwconform/gwconform/report"
	reportv1 "github.com/gwconform/gwconform/report/apis/v1"
	. "github.com/gwconform/gwconform/report/internal/reporttest"
)

// base is the "last night" run the diff tests change one thing of.
func base() []results.Result {
	return []results.Result{
		Res("models-list", "models.list", "a", TV, P),
		Res("models-list", "models.list", "b", TV, P),
		Res("chat-basic", "chat.basic", "a", TV, P),
		Res("chat-bad", "chat.basic", "a", TN, F),
		Res("chat-usage", "chat.basic", "a", TS, P),
		Res("chat-stream", "chat.stream", "a", TV, P),
		Res("edit-json", "images.edit.json", "b", TV, P),
		Res("responses", "responses.basic", "a", TE, U),
	}
}

func set(rs []results.Result, caseID, model string, st vocab.Status) []results.Result {
	out := append([]results.Result(nil), rs...)
	for i := range out {
		if out[i].Case == caseID && out[i].Model == model {
			out[i] = Res(out[i].Case, out[i].Feature, out[i].Model, out[i].Tier, st)
		}
	}
	return out
}

func drop(rs []results.Result, keep func(results.Result) bool) []results.Result {
	var out []results.Result
	for _, r := range rs {
		if keep(r) {
			out = append(out, r)
		}
	}
	return out
}

func TestCompare(t *testing.T) {
	allF := []string{"models.list", "chat.basic", "chat.stream", "images.edit.json", "responses.basic"}
	tests := []struct {
		name     string
		oldRS    []results.Result
		newRS    []results.Result
		oldF     []string // nil: allF
		newF     []string
		check    func(t *testing.T, d Diff)
		regress  bool
		emptyOut bool
	}{
		{
			name: "no change", oldRS: base(), newRS: base(), emptyOut: true,
			check: func(t *testing.T, d Diff) { assert.True(t, d.Empty()) },
		},
		{
			name: "regression pass to fail", oldRS: base(), newRS: set(base(), "chat-basic", "a", F), regress: true,
			check: func(t *testing.T, d Diff) {
				require.Len(t, d.Regressions, 1, "the case only, not its cell too")
				c := d.Regressions[0]
				assert.Equal(t, Change{Model: "a", Feature: "chat.basic", Case: "chat-basic", Tier: TV, Old: "pass", New: "fail",
					Reason: "status: unexpected status (expected 200, got 500)", Cause: "HTTP 500"}, c)
				assert.Empty(t, d.Fixes)
			},
		},
		{
			name: "regression pass to error", oldRS: base(), newRS: set(base(), "edit-json", "b", E), regress: true,
			check: func(t *testing.T, d Diff) {
				require.Len(t, d.Regressions, 1)
				assert.Equal(t, "error", d.Regressions[0].New)
			},
		},
		{
			name: "strict-tier regression is reported, not fatal", oldRS: base(), newRS: set(base(), "chat-usage", "a", F),
			check: func(t *testing.T, d Diff) {
				assert.Empty(t, d.Regressions)
				require.Len(t, d.SoftRegressions, 1)
				assert.Equal(t, "chat-usage", d.SoftRegressions[0].Case)
			},
		},
		{
			name:  "cell-level regression: a failing case added to a passing cell",
			oldRS: base(), newRS: append(base(), Res("chat-stream-2", "chat.stream", "a", TV, F)), regress: true,
			check: func(t *testing.T, d Diff) {
				require.Len(t, d.Regressions, 1)
				c := d.Regressions[0]
				assert.Equal(t, "", c.Case)
				assert.Equal(t, "pass", c.Old)
				assert.Equal(t, "fail 1/2", c.New)
				assert.Contains(t, c.Reason, "chat-stream-2: status")
				assert.Equal(t, 1, d.NewCases)
			},
		},
		{
			name: "fix fail to pass", oldRS: base(), newRS: set(base(), "chat-bad", "a", P),
			check: func(t *testing.T, d Diff) {
				require.Len(t, d.Fixes, 1, "the case only, not its cell too")
				assert.Equal(t, Change{Model: "a", Feature: "chat.basic", Case: "chat-bad", Tier: TN, Old: "fail", New: "pass"}, d.Fixes[0])
				assert.Empty(t, d.Regressions)
			},
		},
		{
			name: "lost coverage: pass to skip, the case only", oldRS: base(), newRS: set(base(), "chat-stream", "a", S),
			check: func(t *testing.T, d Diff) {
				require.Len(t, d.LostCoverage, 1, "the case explains its cell")
				assert.Equal(t, Change{Model: "a", Feature: "chat.stream", Case: "chat-stream", Tier: TV, Old: "pass", New: "skip"}, d.LostCoverage[0])
				assert.Empty(t, d.Changed)
				assert.Empty(t, d.Regressions)
			},
		},
		{
			name: "lost coverage: a rejected key, throttling, a waiver", oldRS: base(),
			newRS: func() []results.Result {
				rs := set(set(base(), "models-list", "b", T), "edit-json", "b", W)
				for i := range rs {
					if rs[i].Case == "chat-stream" {
						rs[i] = Res("chat-stream", "chat.stream", "a", TV, S, func(r *results.Result) {
							r.Reasons = []vocab.Reason{{Check: vocab.CheckKeyRejected, Message: "GET /v1/models with the text key answered 401"}}
						})
					}
				}
				return rs
			}(),
			check: func(t *testing.T, d Diff) {
				require.Len(t, d.LostCoverage, 3)
				got := map[string]string{}
				for _, c := range d.LostCoverage {
					got[c.Model+"/"+c.Case] = c.New
				}
				assert.Equal(t, map[string]string{"a/chat-stream": "skip (key rejected)", "b/models-list": "throttled", "b/edit-json": "waived"}, got)
				assert.Contains(t, d.LostCoverage[0].Reason, "answered 401")
			},
		},
		{
			name: "lost coverage of a cell: a throttled case added", oldRS: base(), newRS: append(base(), Res("chat-stream-2", "chat.stream", "a", TV, T)),
			check: func(t *testing.T, d Diff) {
				require.Len(t, d.LostCoverage, 1)
				assert.Equal(t, Change{Model: "a", Feature: "chat.stream", Old: "pass", New: "throttled 1/2"}, d.LostCoverage[0])
			},
		},
		{
			name: "other change pass to unsupported", oldRS: base(), newRS: set(base(), "chat-stream", "a", U),
			check: func(t *testing.T, d Diff) {
				require.Len(t, d.Changed, 1)
				assert.Equal(t, "unsupported", d.Changed[0].New)
				assert.Empty(t, d.LostCoverage)
			},
		},
		{
			name: "new model", oldRS: base(), newRS: append(base(), Res("models-list", "models.list", "c", TV, P), Res("chat-basic", "chat.basic", "c", TV, F)),
			check: func(t *testing.T, d Diff) {
				assert.Equal(t, []string{"c"}, d.NewModels)
				assert.Empty(t, d.RemovedModels)
				assert.Empty(t, d.Regressions, "a new model's failures are not regressions")
				assert.Zero(t, d.NewCases, "a new model's cases are counted as the model")
			},
		},
		{
			name: "removed model", oldRS: base(), newRS: drop(base(), func(r results.Result) bool { return r.Model != "b" }),
			check: func(t *testing.T, d Diff) {
				assert.Equal(t, []string{"b"}, d.RemovedModels)
				assert.Empty(t, d.NewModels)
				assert.Empty(t, d.Regressions)
				assert.Zero(t, d.RemovedCases)
			},
		},
		{
			name: "new feature", oldRS: base(), newRS: append(base(), Res("edit-webp", "images.edit.webp", "b", TV, P)),
			newF: append(append([]string{}, allF...), "images.edit.webp"),
			check: func(t *testing.T, d Diff) {
				assert.Equal(t, []string{"images.edit.webp"}, d.NewFeatures)
				assert.Empty(t, d.RemovedFeatures)
				assert.Equal(t, 1, d.NewCases)
			},
		},
		{
			name: "removed feature", oldRS: base(), newRS: drop(base(), func(r results.Result) bool { return r.Feature != "responses.basic" }),
			newF: []string{"models.list", "chat.basic", "chat.stream", "images.edit.json"},
			check: func(t *testing.T, d Diff) {
				assert.Equal(t, []string{"responses.basic"}, d.RemovedFeatures)
				assert.Empty(t, d.NewFeatures)
				assert.Equal(t, 1, d.RemovedCases)
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mo, mn := SampleMeta(), SampleMeta()
			mo.Features, mn.Features = allF, allF
			if tt.oldF != nil {
				mo.Features = tt.oldF
			}
			if tt.newF != nil {
				mn.Features = tt.newF
			}
			// Diff reads reports back from JSON, as `gwconform diff` does.
			d := Compare(roundTrip(t, report.Build(mo, tt.oldRS)), roundTrip(t, report.Build(mn, tt.newRS)))
			tt.check(t, d)
			assert.Equal(t, tt.regress, d.HasRegressions())
			assert.Equal(t, tt.emptyOut, d.Empty())

			var b bytes.Buffer
			require.NoError(t, d.WriteMarkdown(&b))
			md := b.String()
			if tt.regress {
				assert.Contains(t, md, "## ❌ gwconform diff:")
				assert.Contains(t, md, "### ❌ Regressions")
			} else {
				assert.Contains(t, md, "## ✅ gwconform diff: no regressions")
			}
			if tt.emptyOut {
				assert.Contains(t, md, "No changes.")
			}
		})
	}
}

func roundTrip(t *testing.T, r *reportv1.Report) *reportv1.Report {
	t.Helper()
	var b bytes.Buffer
	require.NoError(t, r.WriteJSON(&b))
	got, err := reportv1.ReadJSON(&b)
	require.NoError(t, err)
	return got
}

func TestDiffMarkdown(t *testing.T) {
	newRS := set(base(), "chat-basic", "a", F)
	newRS = set(newRS, "chat-bad", "a", P)
	newRS = append(newRS, Res("models-list", "models.list", "c", TV, P))
	for i := range newRS {
		if newRS[i].Case == "chat-basic" {
			newRS[i].Reasons = []vocab.Reason{{Check: "json", Message: "| <b>pipe</b> @team"}}
		}
	}
	d := Compare(report.Build(SampleMeta(), base()), report.Build(SampleMeta(), newRS))
	var b bytes.Buffer
	require.NoError(t, d.WriteMarkdown(&b))
	md := b.String()
	for _, want := range []string{
		"## ❌ gwconform diff: 1 regression\n",
		"run of http://127.0.0.1:8080 at 2026-03-14 02:00 UTC (`0123456789ab`) fail → run of http://127.0.0.1:8080 at 2026-03-14 02:00 UTC (`0123456789ab`) fail",
		"### ❌ Regressions (1)\n\n| model | feature | case | tier | was | now | reason |",
		"| a | `chat.basic` | `chat-basic` | verified | pass | fail | json: \\| &lt;b&gt;pipe&lt;/b&gt; \\@team |",
		"### ✅ Fixes (1)",
		"| a | `chat.basic` | `chat-bad` | negative | fail | pass |",
		"**New models (1):** `c`",
	} {
		assert.Contains(t, md, want)
	}
}

func TestDiffIncompleteNights(t *testing.T) {
	passing := drop(base(), func(r results.Result) bool { return r.Status != F })
	throttled := set(passing, "chat-basic", "a", T)
	md := func(d Diff) string {
		var b bytes.Buffer
		require.NoError(t, d.WriteMarkdown(&b))
		return b.String()
	}
	tests := []struct {
		name        string
		old, new    []results.Result
		header      string
		says        []string
		regressions bool
	}{
		{"tonight incomplete: neither a regression nor green", passing, throttled,
			"## ⚠️ gwconform diff: no regressions, but the night was incomplete",
			[]string{"**This night was incomplete:** incomplete: 1 verified/negative result throttled, not verified; nothing else failed",
				"- 1 verified/negative result throttled (still 429 after waiting --max-wait): not verified", "### 🕳️ Lost coverage"}, false},
		{"the night before was incomplete", throttled, passing, "## ✅ gwconform diff: no regressions",
			[]string{"**The previous night was incomplete:**"}, false},
		{"a failure beside throttling: a failed night, not an incomplete one", passing, set(throttled, "chat-stream", "a", F), "## ❌ gwconform diff: 1 regression",
			[]string{"### 🕳️ Lost coverage"}, true},
		{"a refusal now inconclusive: lost coverage, an incomplete night",
			append(slices.Clone(passing), Res("chat-bad", "chat.basic", "a", TN, P)), append(slices.Clone(passing), Res("chat-bad", "chat.basic", "a", TN, I)),
			"## ⚠️ gwconform diff: no regressions, but the night was incomplete",
			[]string{"| a | `chat.basic` | `chat-bad` | negative | pass | inconclusive |"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := Compare(roundTrip(t, report.Build(SampleMeta(), tt.old)), roundTrip(t, report.Build(SampleMeta(), tt.new)))
			assert.Equal(t, tt.regressions, d.HasRegressions())
			out := md(d)
			assert.True(t, strings.HasPrefix(out, tt.header+"\n"), out)
			for _, s := range tt.says {
				assert.Contains(t, out, s)
			}
		})
	}
}

// Regressions read by cause: one line per cause with its results, cells and
// first cases; and a diff of two gateways says so first.
func TestDiffGroupsRegressionsByCause(t *testing.T) {
	newRS := base()
	for _, c := range []struct{ cs, model, size string }{{"chat-basic", "a", "512x512"}, {"chat-stream", "a", "742x742"}, {"edit-json", "b", "1x1"}} {
		newRS = set(newRS, c.cs, c.model, F)
		for i := range newRS {
			if newRS[i].Case == c.cs && newRS[i].Model == c.model {
				newRS[i].Reasons = []vocab.Reason{{Check: "image", Message: "decoded size " + c.size + " differs from the requested size 1024x1024 (spec 2.2)"}}
			}
		}
	}
	other := SampleMeta()
	other.BaseURL = "https://gateway.example.test"
	d := Compare(report.Build(SampleMeta(), base()), report.Build(other, newRS))
	var b bytes.Buffer
	require.NoError(t, d.WriteMarkdown(&b))
	md := b.String()
	require.Len(t, d.Regressions, 3)
	assert.Contains(t, md, "**The two runs judged different gateways:** `http://127.0.0.1:8080` before, `https://gateway.example.test` now.")
	assert.Contains(t, md, "### ❌ Regressions (3, 1 cause)")
	assert.Contains(t, md, "- **image: decoded size NxN differs from the requested size NxN**: 3 results in 3 cells: chat-basic, chat-stream, edit-json")
	assert.Contains(t, md, "<details><summary>every ❌ Regressions</summary>", "each regression still listed, beneath")
}

// TestDiffNoticesAChangeOfOffer: two runs that declared different offers
// (--offers) differ, and the diff says so before anything else; the same
// offer is no change.
func TestDiffNoticesAChangeOfOffer(t *testing.T) {
	offered := func(offers ...string) *reportv1.Report {
		m := SampleMeta()
		m.Offers = offers
		return report.Build(m, base())
	}
	tests := []struct {
		name     string
		old, new *reportv1.Report
		changed  bool
	}{
		{"the same offer", offered("chat.*"), offered("chat.*"), false},
		{"no offer on either side", offered(), offered(), false},
		{"an offer declared", offered(), offered("chat.*", "models.*"), true},
		{"an offer narrowed", offered("chat.*", "models.*"), offered("chat.*"), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := Compare(tt.old, roundTrip(t, tt.new))
			assert.Equal(t, tt.changed, d.OfferChanged())
			assert.Equal(t, !tt.changed, d.Empty())
			var b bytes.Buffer
			require.NoError(t, d.WriteMarkdown(&b))
			assert.Equal(t, tt.changed, strings.Contains(b.String(), "**The declared offer changed:**"), b.String())
		})
	}
	d := Compare(offered(), offered("chat.*", "models.*"))
	var b bytes.Buffer
	require.NoError(t, d.WriteMarkdown(&b))
	assert.Contains(t, b.String(), "`every feature` before, `chat.*,models.*` now")
}

// TestDiffNoticesAChangeOfModelNames: a spec model both nights named,
// sent under another id or found another way, is said line by line before
// anything else; it is no regression, and a model only one night named is
// no change of name.
func TestDiffNoticesAChangeOfModelNames(t *testing.T) {
	named := func(names ...reportv1.ModelName) *reportv1.Report {
		m := SampleMeta()
		m.ModelMap = names
		return report.Build(m, base())
	}
	resolved := reportv1.ModelName{Spec: "a", Gateway: "gpt-a", Key: "text", Source: reportv1.NameResolved}
	given := reportv1.ModelName{Spec: "a", Gateway: "company-chat", Key: "text", Source: reportv1.NameGiven}
	givenAlike := reportv1.ModelName{Spec: "a", Gateway: "gpt-a", Key: "text", Source: reportv1.NameGiven}
	unlisted := reportv1.ModelName{Spec: "a", Key: "text", Source: reportv1.NameUnlisted}
	other := reportv1.ModelName{Spec: "b", Gateway: "b", Key: "image", Source: reportv1.NameListed}
	tests := []struct {
		name     string
		old, new *reportv1.Report
		lines    []string // nil: no change of names
	}{
		{"the same names", named(resolved, other), named(resolved, other), nil},
		{"no map on either side", named(), named(), nil},
		{"a map where there was none", named(), named(resolved), nil},
		{"a model only the new night named", named(other), named(resolved, other), nil},
		{"another id", named(resolved, other), named(given, other), []string{"- a: gpt-a (resolved) → company-chat (given)\n"}},
		{"the same id, found another way", named(resolved), named(givenAlike), []string{"- a: gpt-a (resolved) → gpt-a (given)\n"}},
		{"no id any more", named(resolved), named(unlisted), []string{"- a: gpt-a (resolved) → unlisted\n"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := Compare(tt.old, roundTrip(t, tt.new))
			assert.Len(t, d.NameChanges(), len(tt.lines))
			assert.Equal(t, tt.lines == nil, d.Empty())
			assert.False(t, d.HasRegressions(), "a change of names alone is no regression")
			var b bytes.Buffer
			require.NoError(t, d.WriteMarkdown(&b))
			assert.Equal(t, tt.lines != nil, strings.Contains(b.String(), "**The model names changed:**"), b.String())
			for _, l := range tt.lines {
				assert.Contains(t, b.String(), l)
			}
		})
	}
}
