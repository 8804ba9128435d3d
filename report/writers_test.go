package report

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gwconform/gwconform/conformance/results"
	"github.com/gwconform/gwconform/conformance/vocab"
	reportv1 "github.com/gwconform/gwconform/report/apis/v1"
	"github.com/gwconform/gwconform/report/internal/htmlpage"
	. "github.com/gwconform/gwconform/report/internal/reporttest"
)

const xss = `<script>alert(1)</script>`

func renderMD(t *testing.T, r *reportv1.Report) string {
	t.Helper()
	var b bytes.Buffer
	require.NoError(t, WriteMarkdown(&b, r))
	return b.String()
}

func TestMarkdown(t *testing.T) {
	md := renderMD(t, Build(SampleMeta(), Sample()))
	for _, want := range []string{
		"## ❌ gwconform: conformance failed: 3 of 6 verified/negative results failed or errored", // chat-bad-model, chat-stream (error), edit-json
		"suite v0.1.0 · commit `0123456789ab` · catalog `cafe` · gateway `http://127.0.0.1:8080` · started 2026-03-14T02:00:00Z, took 1m35s",
		"**Legend:** k/n: k of the n cases that ran passed",
		"| tier | ✅ pass | ❌ fail | 💥 error | ⏭️ skip | ⛔ unsupported | ⏳ throttled | ❔ inconclusive | 🔕 waived | total | decides exit code |",
		"| verified | 3 | 1 | 1 | 1 | 0 | 0 | 0 | 0 | 6 | yes |",
		"| strict | 0 | 0 | 0 | 0 | 0 | 1 | 0 | 0 | 1 | no |",
		"| **all** | **3** | **2** | **1** | **1** | **1** | **1** | **0** | **0** | **9** | |",
		"9 results · cost: 0 units spent",
		// groups, transposed: features are rows, only the group's models are columns
		"### chat\n\n| feature | gen-text-1 |\n|---|:---:|\n| `chat.basic` | ❌ 1/2 |\n| `chat.stream` | 💥 0/2 |",
		"### models\n\n| feature | gen-image-2.5-flare | gen-text-1 |",
		"| `models.list` | ✅ | ✅ |",
		"### images\n\n| feature | gen-image-2.5-flare |\n|---|:---:|\n| `images.edit.json` | ❌ 0/1 |",
		"| `responses.basic` _(explore: never fails the run)_ | ⛔ |",
		"### Failures by cause\n\n2 causes decide the verdict.",
		"- ❌ **HTTP 500** · 2 results in 2 cells · `chat-bad-model`, `chat-stream` · e.g. status: unexpected status (expected 200, got 500) · `gwconform show --out . --model gen-text-1 --curl chat-bad-model`",
		"<details><summary>Each result that failed or was not checked (4), one line each</summary>\n\n- ❌ **gen-text-1** · `chat.basic` · `chat-bad-model` (negative): status: unexpected status (expected 200, got 500)",
		"- ⏳ **gen-text-1** · `chat.stream` · `chat-stream-usage` (strict)",
	} {
		assert.Contains(t, md, want)
	}
	// gateway text is inert
	assert.NotContains(t, md, xss)
	assert.Contains(t, md, `&lt;script&gt;alert(1)&lt;/script&gt;`)
	// counted failures come before the rest
	assert.Less(t, strings.Index(md, "chat-bad-model"), strings.Index(md, "chat-stream-usage"))
	// a row for every feature of a group with results
	assert.NotContains(t, md, "### other")
	// what to fix before the legend and the matrix
	assert.Less(t, strings.Index(md, "### Failures by cause"), strings.Index(md, "**Legend:**"))
	assert.Less(t, strings.Index(md, "</details>"), strings.Index(md, "### models"))
}

// matrix.md's failures by cause: one line a cause, those deciding the
// verdict first, each with its counts, first cases, example and the
// command that reproduces it; the reported-only ones marked.
func TestMarkdownCauses(t *testing.T) {
	routeMissing := func(r *results.Result) {
		r.Reasons = []vocab.Reason{{Check: "status", Expected: "200", Actual: `404 {"error":{"message":"Route not found"}}`, Message: "HTTP status 404, want 200"}}
	}
	var oneCause []results.Result
	for i := range 7 {
		oneCause = append(oneCause, Res(fmt.Sprintf("gen-%d", i), "images.generate", "gen-image-2", TV, F, routeMissing))
	}
	tests := []struct {
		name   string
		rs     []results.Result
		want   []string // lines of the section, in order
		absent []string
	}{
		{
			name: "one cause, its first cases named",
			rs:   oneCause,
			want: []string{
				"### Failures by cause\n\n1 cause decides the verdict. Each command shows its example and prints the curl that sends it again: run it in this report's directory.\n\n",
				"- ❌ **HTTP 404: Route not found** · 7 results in 1 cell · `gen-0`, `gen-1`, `gen-2`, `gen-3`, `gen-4` and 2 more · e.g. status: HTTP status 404, want 200 (expected 200, got 404 {\"error\":{\"message\":\"Route not found\"}}) · `gwconform show --out . --model gen-image-2 --curl gen-0`\n\n",
				"<details><summary>Each result that failed or was not checked (7), one line each</summary>",
			},
			absent: []string{"reported only"},
		},
		{
			name: "reported only after the deciding ones, marked",
			rs: []results.Result{
				Res("chat-usage", "chat.basic", "gen-text-1", TS, F, WithReason("usage is missing")),
				Res("chat-usage-2", "chat.basic", "gen-text-2", TS, F, WithReason("usage is missing")),
				Res("chat-json", "chat.basic", "gen-text-1", TV, F),
			},
			want: []string{
				"1 cause decides the verdict, 1 is reported only (strict, explore).",
				"- ❌ **HTTP 500** · 1 result in 1 cell · `chat-json` ·",
				"- 🟠 reported only · **json: usage is missing** · 2 results in 2 cells · `chat-usage`, `chat-usage-2` · e.g. json at data.0: usage is missing (expected x, got usage is missing) · `gwconform show --out . --model gen-text-1 --curl chat-usage`",
			},
		},
		{
			name: "an id a shell would read otherwise is quoted",
			rs:   []results.Result{Res("chat json", "chat.basic", "m'1", TV, F)},
			want: []string{"`gwconform show --out . --model 'm'\\''1' --curl 'chat json'`"},
		},
		{
			name:   "throttled only: no cause, the results collapsed",
			rs:     []results.Result{Res("chat-json", "chat.basic", "gen-text-1", TV, T)},
			want:   []string{"<details><summary>Each result that failed or was not checked (1), one line each</summary>\n\n- ⏳ **gen-text-1**"},
			absent: []string{"### Failures by cause"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			md := renderMD(t, Build(SampleMeta(), tt.rs))
			at := 0
			for _, w := range tt.want {
				i := strings.Index(md[at:], w)
				require.GreaterOrEqual(t, i, 0, "%q in order in\n%s", w, md)
				at += i + len(w)
			}
			for _, a := range tt.absent {
				assert.NotContains(t, md, a)
			}
		})
	}
}

func TestMarkdownNightly(t *testing.T) {
	m, rs := Nightly()
	rs[2].Waiver.Link = "https://tracker.test/GW-7)](javascript:alert(1)"
	md := renderMD(t, Build(m, rs))
	for _, want := range []string{
		"cost: 16.38 units spent, 12.5 planned, budget 20",
		"🔕 waived (a known deviation, see below)",
		"| `chat.basic` | 🔕 1/2 | ✅ |",
		"### 🔕 Waived: known deviations\n\nFailures covered by a live entry of `--waivers`: they do not fail the run.",
		"| `waivers.yaml:2` | `chat-bad-model` × `*` | the relay answers 400 for retired ids | https://tracker.test/GW-7)\\](javascript:alert(1) | 2026-04-01 | gen-text-1 · `chat.basic` · `chat-bad-model` (waived) |",
		"### 🧹 Waivers no longer needed",
		"| [https://tracker.test/GW-7](https://tracker.test/GW-7) | 2026-04-01 | gen-text-2 · `chat.basic` · `chat-bad-model` (pass) |",
		"### ⌛ Expired waivers\n\nThese entries have expired and no longer apply: the failures they covered count again.",
		"### 🔁 Re-run (`--rerun-failed`)",
		"| gen-text-1 | `chat.basic` | `chat-basic` | fail | pass (flaky) | status: HTTP status 502, want 200 (expected 200, got 502) |",
		"### 🆕 Models no case covers",
		"`gwconform probe`",
		"- image key: `gen-image-3-nova`",
	} {
		assert.Contains(t, md, want)
	}
	assert.NotContains(t, md, "[https://tracker.test/GW-7)", "a link that is not a plain URL is escaped text")
	assert.Less(t, strings.Index(md, "### Failures"), strings.Index(md, "### 🔕 Waived"), "known deviations after the failures")

	empty := renderMD(t, Build(reportv1.Meta{Uncovered: m.Uncovered}, nil))
	assert.Contains(t, empty, "- image key: `gen-image-3-nova`", "uncovered models show even when nothing ran")
}

func TestMarkdownCells(t *testing.T) {
	tests := []struct {
		name string
		rs   []results.Result
		want string
	}{
		{"pass", []results.Result{Res("a", "chat.basic", "m", TV, P)}, "| `chat.basic` | ✅ |"},
		{"flaky pass", []results.Result{Res("a", "chat.basic", "m", TV, P, Flaky)}, "| `chat.basic` | ✅* |"},
		{"soft fail", []results.Result{Res("a", "chat.basic", "m", TS, F), Res("b", "chat.basic", "m", TV, P)}, "| `chat.basic` | 🟠 1/2 |"},
		{"skip", []results.Result{Res("a", "chat.basic", "m", TV, S), Res("b", "chat.stream", "m", TV, P)}, "| `chat.basic` | ⏭️ |"},
		{"none", []results.Result{Res("b", "chat.stream", "m", TV, P)}, "| `chat.basic` | — |"},
		{"partly supported", []results.Result{Res("a", "chat.basic", "m", TE, P), Res("b", "chat.basic", "m", TE, U)}, "| `chat.basic` _(explore: never fails the run)_ | ✅ 1/2 |"},
		{"inconclusive refusals", []results.Result{Res("a", "chat.errors", "m", TN, I), Res("b", "chat.errors", "m", TN, I)}, "| `chat.errors` | ❔ 0/2 |"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Contains(t, renderMD(t, Build(SampleMeta(), tt.rs)), tt.want)
		})
	}
}

func TestMarkdownPassAndEmpty(t *testing.T) {
	md := renderMD(t, Build(SampleMeta(), []results.Result{Res("a", "chat.basic", "m", TV, P)}))
	assert.Contains(t, md, "## ✅ gwconform: conformance passed")
	assert.NotContains(t, md, "### Failures")

	md = renderMD(t, Build(reportv1.Meta{}, nil))
	assert.Contains(t, md, "_No results._")
	assert.Contains(t, md, "gateway: reference gateway (in-process)")
}

func TestMarkdownCapsFailures(t *testing.T) {
	var rs []results.Result
	for i := range maxMDProblems + 5 {
		rs = append(rs, Res("c"+strings.Repeat("x", i), "chat.basic", "m", TV, F))
	}
	rs = append(rs, Res("strict", "chat.basic", "m", TS, F, WithReason("one more cause")))
	for i := range maxMDCauses {
		rs = append(rs, Res(fmt.Sprintf("d%d", i), "chat.basic", "m", TV, F, WithReason(fmt.Sprintf("cause %c", 'a'+i))))
	}
	md := renderMD(t, Build(SampleMeta(), rs))
	causes, each, ok := strings.Cut(md, "<details>")
	require.True(t, ok)
	assert.Contains(t, causes, "- … and 2 more causes: see report.html", "the reported-only cause is among those left out")
	assert.Equal(t, maxMDCauses, strings.Count(causes, "\n- ❌"))
	assert.Contains(t, each, "- … and 26 more: see report.html")
	assert.Equal(t, maxMDProblems, strings.Count(each, "\n- ❌"))
}

func TestJUnitCountsEqualResults(t *testing.T) {
	_, night := Nightly()
	rs := append(Sample(), night[2], // and a waived result
		Res("chat-no-model", "chat.errors", "gen-text-1", TN, I, func(r *results.Result) {
			r.Reasons = []vocab.Reason{{Check: vocab.CheckControl, Where: "chat-json (gen-text-1)", Expected: "the control served (pass)", Actual: "fail", Message: "not served"}}
		}))
	r := Build(SampleMeta(), rs)
	var b bytes.Buffer
	require.NoError(t, WriteJUnit(&b, r))
	require.True(t, strings.HasPrefix(b.String(), xml.Header))

	var doc JUnitSuites
	require.NoError(t, xml.Unmarshal(b.Bytes(), &doc))

	// Expected counts straight from the results.
	type cnt struct{ tests, failures, errors, skipped int }
	want := map[string]*cnt{}
	total := cnt{}
	for _, x := range rs {
		if want[x.Feature] == nil {
			want[x.Feature] = &cnt{}
		}
		c := want[x.Feature]
		// What decides the run is red, what does not is skipped.
		decides := x.Decides(false)
		for _, c := range []*cnt{c, &total} {
			c.tests++
			switch {
			case x.Status == vocab.StatusFail && decides:
				c.failures++
			case x.Status == vocab.StatusError && decides, (x.Status == vocab.StatusThrottled || x.Status == vocab.StatusInconclusive) && decides:
				c.errors++
			case x.Status != vocab.StatusPass:
				c.skipped++
			}
		}
	}
	assert.Equal(t, total, cnt{doc.Tests, doc.Failures, doc.Errors, doc.Skipped})
	assert.Contains(t, b.String(), `message="waived: the relay answers 400 for retired ids (https://tracker.test/GW-7), expires 2026-04-01; status: unexpected status`)
	require.Len(t, doc.Suites, len(want), "one testsuite per feature with results")

	names := map[string]bool{}
	for _, s := range doc.Suites {
		w := want[s.Name]
		require.NotNil(t, w, s.Name)
		assert.Equal(t, *w, cnt{s.Tests, s.Failures, s.Errors, s.Skipped}, s.Name)
		// the attributes agree with the elements
		got := cnt{tests: len(s.Cases)}
		for _, c := range s.Cases {
			names[c.Name] = true
			assert.Equal(t, s.Name, c.Classname)
			if c.Failure != nil {
				got.failures++
			}
			if c.Error != nil {
				got.errors++
			}
			if c.Skipped != nil {
				got.skipped++
			}
			assert.LessOrEqual(t, btoi(c.Failure != nil)+btoi(c.Error != nil)+btoi(c.Skipped != nil), 1, c.Name)
		}
		assert.Equal(t, got, cnt{s.Tests, s.Failures, s.Errors, s.Skipped}, s.Name)
	}
	for _, x := range rs {
		assert.True(t, names[x.Model+"/"+x.Case], x.Model+"/"+x.Case)
	}

	// failure vs error kept apart, with the reason
	assert.Contains(t, b.String(), `<failure message="status: unexpected status (expected 200, got 500)" type="status">`)
	assert.Contains(t, b.String(), `<error message="status: unexpected status (expected 200, got 500)" type="status">`)
	assert.Contains(t, b.String(), `<skipped message="unsupported"></skipped>`)
	assert.Contains(t, b.String(), `<error message="incomplete (inconclusive): control at chat-json (gen-text-1): not served (expected the control served (pass), got fail)" type="control">`)
	assert.Contains(t, b.String(), `time="0.120"`)
	assert.NotContains(t, b.String(), xss)
}

// A result that does not decide the run is no red test: a strict or
// explore failure is skipped as reported only, its reasons kept; a
// throttled, inconclusive or key-rejected one that decides is an error
// (the run is incomplete); with --strict, a strict failure is a failure.
func TestJUnitDecidesAsTheRun(t *testing.T) {
	skipped := func(check, msg string) func(r *results.Result) {
		return func(r *results.Result) {
			r.Status, r.Reasons = vocab.StatusSkip, []vocab.Reason{{Check: check, Message: msg}}
		}
	}
	rejected := skipped(vocab.CheckKeyRejected, "GET /v1/models with the text key answered 401")
	for _, tt := range []struct {
		name   string
		res    results.Result
		strict bool
		want   string // failure, error, skipped or pass
		says   string
	}{
		{"verified fail", Res("a", "chat.basic", "m", TV, F), false, "failure", ""},
		{"strict fail", Res("a", "chat.basic", "m", TS, F), false, "skipped", "reported only (strict tier, fail): "},
		{"strict fail under --strict", Res("a", "chat.basic", "m", TS, F), true, "failure", ""},
		{"explore fail", Res("a", "chat.basic", "m", TE, F), false, "skipped", "reported only (explore tier, fail): "},
		{"explore error", Res("a", "chat.basic", "m", TE, E), false, "skipped", "reported only (explore tier, error): "},
		{"verified error", Res("a", "chat.basic", "m", TV, E), false, "error", ""},
		{"verified throttled", Res("a", "chat.basic", "m", TV, T), false, "error", "incomplete (throttled)"},
		{"explore throttled", Res("a", "chat.basic", "m", TE, T), false, "skipped", "throttled"},
		{"negative inconclusive", Res("a", "chat.errors", "m", TN, I), false, "error", "incomplete (inconclusive)"},
		{"verified key rejected", Res("a", "chat.basic", "m", TV, P, rejected), false, "error", "incomplete (skip): key-rejected"},
		{"verified skipped", Res("a", "chat.basic", "m", TV, S), false, "skipped", "skip"},
		// Unchecked cases leave the run incomplete: an error with the
		// reason. An unset key's case stays skipped, as in go test.
		{"verified, its list unread", Res("a", "chat.basic", "m", TV, P, skipped(vocab.CheckListUnread, "not checked: the text key's model list could not be read (HTTP 500)")),
			false, "error", "incomplete (skip): list-unread: not checked: the text key's model list could not be read (HTTP 500)"},
		{"negative, its model not listed", Res("a", "chat.errors", "m", TN, P, skipped(vocab.CheckNotListed, "gen-5.5 is not listed for the text key")), false, "error", "incomplete (skip): not-listed"},
		{"verified over the budget", Res("a", "chat.basic", "m", TV, P, skipped(vocab.CheckBudget, "over the call budget")), false, "error", "incomplete (skip): budget"},
		{"explore, its list unread", Res("a", "chat.basic", "m", TE, P, skipped(vocab.CheckListUnread, "not checked")), false, "skipped", "skip"},
		{"verified, its key unset", Res("a", "chat.basic", "m", TV, P, skipped(vocab.CheckKeyMissing, "no text key (set GWCONFORM_TEXT_KEY)")), false, "skipped", "skip: key-missing"},
		{"verified, not offered", Res("a", "chat.basic", "m", TV, P, skipped(vocab.CheckNotOffered, "chat.basic is not offered")), false, "skipped", "skip"},
		{"verified pass", Res("a", "chat.basic", "m", TV, P), false, "pass", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			meta := SampleMeta()
			meta.Strict = tt.strict
			tc := JUnit(Build(meta, []results.Result{tt.res})).Suites[0].Cases[0]
			got, msg := "pass", ""
			switch {
			case tc.Failure != nil:
				got, msg = "failure", tc.Failure.Message
			case tc.Error != nil:
				got, msg = "error", tc.Error.Message
			case tc.Skipped != nil:
				got, msg = "skipped", tc.Skipped.Message
			}
			assert.Equal(t, tt.want, got)
			assert.True(t, strings.HasPrefix(msg, tt.says), "%q", msg)
		})
	}
}

// The document's time is the run's wall time, not the sum of its calls,
// which overlap: two calls of 120 ms in a run of 43 s say 43.
func TestJUnitTimeIsTheRuns(t *testing.T) {
	meta := SampleMeta()
	meta.Finished = meta.Started.Add(43 * time.Second)
	doc := JUnit(Build(meta, []results.Result{Res("a", "chat.basic", "m", TV, P), Res("b", "chat.basic", "m", TV, P)}))
	assert.InDelta(t, 43.0, float64(doc.Time), 0.001)
	assert.InDelta(t, 0.24, float64(doc.Suites[0].Time), 0.001, "a suite's time stays the sum of its cases")
}

// A call the run's interrupt cut is no error of the gateway: JUnit skips it.
func TestJUnitSkipsCancelledCalls(t *testing.T) {
	r := Build(SampleMeta(), []results.Result{Res("a", "chat.basic", "m", TV, E, func(r *results.Result) { r.Cancelled = true })})
	doc := JUnit(r)
	require.Len(t, doc.Suites, 1)
	tc := doc.Suites[0].Cases[0]
	assert.Nil(t, tc.Error)
	require.NotNil(t, tc.Skipped)
	assert.Contains(t, tc.Skipped.Message, "cancelled")
	assert.Equal(t, 0, doc.Suites[0].Errors)
	assert.Equal(t, 1, doc.Suites[0].Skipped)
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

func html(t *testing.T, r *reportv1.Report) string {
	t.Helper()
	var b bytes.Buffer
	require.NoError(t, WriteHTML(&b, r))
	return b.String()
}

var dataBlockRE = regexp.MustCompile(`(?s)<script type="application/json" id="report-data">(.*?)</script>`)

func TestHTMLEscapesGatewayText(t *testing.T) {
	rs := Sample()
	// Gateway text in every field the page shows.
	evil := []string{xss, `</script><script>alert(2)</script>`, `"><img src=x onerror=alert(3)>`, "<!--", "\u2028"}
	for i, e := range evil {
		rs = append(rs, Res("evil-"+string(rune('a'+i)), "chat.basic", "m<b>"+e, TV, F, WithReason(e), func(r *results.Result) {
			r.Requirement = e
			r.Request = &results.Request{Method: "POST", Path: "/v1/" + e, Body: e}
			r.EventTypes = []string{e}
			r.Images = []results.ImageInfo{{Where: e, Format: e}}
		}))
	}
	m := SampleMeta()
	m.SuiteVersion = xss
	page := html(t, Build(m, rs))

	assert.NotContains(t, page, xss)
	assert.NotContains(t, page, "alert(2)</script>")
	assert.NotContains(t, page, "<img src=x")
	assert.NotContains(t, page, "<b>")
	assert.Equal(t, 2, strings.Count(page, "<script"), "only the data block and the page script")
	assert.Equal(t, 2, strings.Count(page, "</script>"))

	// The data block is JSON that decodes back to the report, evil text intact.
	mm := dataBlockRE.FindStringSubmatch(page)
	require.Len(t, mm, 2)
	var got struct {
		Report reportv1.Report `json:"report"`
	}
	require.NoError(t, json.Unmarshal([]byte(mm[1]), &got))
	assert.Contains(t, got.Report.Models, "m<b>"+xss)
	assert.Equal(t, xss, got.Report.Metadata.SuiteVersion)

	// The page script builds the DOM with textContent, never innerHTML.
	assert.NotContains(t, reportJS, "innerHTML")
	assert.NotContains(t, reportJS, "outerHTML")
	assert.NotContains(t, reportJS, "insertAdjacentHTML")
	assert.NotContains(t, reportJS, "document.write")
	assert.NotContains(t, reportJS, "eval(")
}

func TestHTMLSelfContained(t *testing.T) {
	page := html(t, Build(SampleMeta(), Sample()))
	assert.Regexp(t, `^<!DOCTYPE html>`, page)
	ext := regexp.MustCompile(`(?i)(src|href|action)\s*=\s*["']?\s*(https?:)?//`)
	assert.Empty(t, ext.FindAllString(page, -1), "no external src/href")
	assert.NotRegexp(t, `(?i)@import|url\(\s*["']?https?:`, page, "no external CSS")
	assert.NotContains(t, reportJS, "fetch(")
	assert.NotContains(t, reportJS, "XMLHttpRequest")
	// CSP: no network, scripts and styles pinned by hash.
	assert.Contains(t, page, `content="default-src &#39;none&#39;; img-src data:; style-src &#39;sha256-`)
	// report.html's own script and style, inlined (that the CSP pins
	// exactly what a page inlines: package htmlpage's tests)
	assert.Contains(t, page, "\n"+reportJS+"</script>", "the report's script")
	assert.Contains(t, page, "<style>"+htmlpage.ReportCSS+"</style>", "the report's style")
	assert.True(t, strings.Contains(page, `data:image/png;base64,iVBORw0KGgo=`), "thumbnail kept")
}

func TestHTMLEmptyReport(t *testing.T) {
	page := html(t, Build(reportv1.Meta{}, nil))
	mm := dataBlockRE.FindStringSubmatch(page)
	require.Len(t, mm, 2)
	assert.True(t, json.Valid([]byte(mm[1])))
}

// A model the gateway names otherwise heads its matrix.md column and its
// capability table column as "spec → gateway"; JUnit keeps the spec id in
// the test name and says the gateway's in system-out. A model sent as is
// reads as before.
func TestWritersNameTheGatewaysModel(t *testing.T) {
	m := SampleMeta()
	m.Features = append(m.Features, ExploreEdit)
	m.ModelMap = []reportv1.ModelName{
		{Spec: "gen-text-1", Gateway: "gpt-text-1", Key: "text", Source: reportv1.NameResolved},
		{Spec: "gen-image-2", Gateway: "company-image", Key: "image", Source: reportv1.NameGiven},
		{Spec: "gen-image-2.5-flare", Gateway: "gen-image-2.5-flare", Key: "image", Source: reportv1.NameListed},
	}
	rs := append(Sample(), DeclineRun()...)
	for i := range rs {
		if rs[i].Model == "gen-text-1" {
			rs[i].GatewayModel = "gpt-text-1"
		}
	}
	r := Build(m, rs)
	md := renderMD(t, r)
	out := map[string]string{} // JUnit test name → system-out
	for _, s := range JUnit(r).Suites {
		for _, c := range s.Cases {
			out[c.Name] = c.SystemOut
		}
	}

	tests := []struct{ name, in, want string }{
		{"a resolved model's matrix column", md, "### chat\n\n| feature | gen-text-1 → gpt-text-1 |\n"},
		{"a listed model beside it, as is", md, "### models\n\n| feature | gen-image-2.5-flare | gen-text-1 → gpt-text-1 |\n"},
		{"a given model's capability column", md, "| value | gen-image-2 → company-image | gen-image-2.5-sunburst |\n"},
		{"the failure list keeps the spec id", md, "- ❌ **gen-text-1** · `chat.basic` · `chat-bad-model`"},
		{"JUnit keeps the spec id in the name, and says the gateway's in system-out", out["gen-text-1/chat-bad-model"], "requirement: a requirement\ngateway model: gpt-text-1\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { assert.Contains(t, tt.in, tt.want) })
	}
	assert.NotContains(t, out["gen-image-2.5-flare/edit-json"], "gateway model", "a model sent as is says nothing more")
}

// junitSchema is the element and attribute vocabulary of the JUnit XML
// schema Jenkins and the GitHub test reporters read (the Ant/Surefire
// junit-4 shape): each element's allowed children and attributes, the
// required ones marked. A writer that strays from it is shown red or not
// at all by those readers.
var junitSchema = map[string]struct {
	children []string
	attrs    map[string]bool // name → required
}{
	"testsuites": {[]string{"testsuite"}, map[string]bool{"name": false, "tests": false, "failures": false, "errors": false, "skipped": false, "disabled": false, "time": false}},
	"testsuite": {[]string{"properties", "testcase", "system-out", "system-err"}, map[string]bool{"name": true, "tests": true, "failures": false, "errors": false,
		"skipped": false, "disabled": false, "time": false, "timestamp": false, "hostname": false, "id": false, "package": false}},
	"properties": {[]string{"property"}, map[string]bool{}},
	"property":   {nil, map[string]bool{"name": true, "value": true}},
	"testcase":   {[]string{"skipped", "error", "failure", "system-out", "system-err"}, map[string]bool{"name": true, "classname": false, "assertions": false, "time": false, "status": false}},
	"failure":    {nil, map[string]bool{"message": false, "type": false}},
	"error":      {nil, map[string]bool{"message": false, "type": false}},
	"skipped":    {nil, map[string]bool{"message": false}},
	"system-out": {nil, map[string]bool{}},
	"system-err": {nil, map[string]bool{}},
}

// junit.xml keeps to the JUnit schema: the root, every element under its
// allowed parent, only allowed attributes, the required ones present.
func TestJUnitKeepsToTheSchema(t *testing.T) {
	_, night := Nightly()
	var b bytes.Buffer
	require.NoError(t, WriteJUnit(&b, Build(SampleMeta(), append(Sample(), night...))))
	dec := xml.NewDecoder(&b)
	var stack []string
	elements := 0
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err)
		switch el := tok.(type) {
		case xml.StartElement:
			elements++
			name := el.Name.Local
			def, known := junitSchema[name]
			require.True(t, known, "element %s is not in the schema", name)
			if len(stack) == 0 {
				assert.Equal(t, "testsuites", name, "the root")
			} else {
				parent := stack[len(stack)-1]
				assert.Contains(t, junitSchema[parent].children, name, "%s under %s", name, parent)
			}
			got := map[string]bool{}
			for _, a := range el.Attr {
				_, allowed := def.attrs[a.Name.Local]
				assert.True(t, allowed, "attribute %s of %s is not in the schema", a.Name.Local, name)
				got[a.Name.Local] = true
			}
			for a, required := range def.attrs {
				if required {
					assert.True(t, got[a], "%s lacks its required attribute %s", name, a)
				}
			}
			stack = append(stack, name)
		case xml.EndElement:
			stack = stack[:len(stack)-1]
		}
	}
	assert.Greater(t, elements, 10)
}
