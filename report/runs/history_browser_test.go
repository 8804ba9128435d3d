package runs

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gwconform/gwconform/conformance"
	"github.com/gwconform/gwconform/conformance/conformancetest"
	"github.com/gwconform/gwconform/conformance/execute"
	"github.com/gwconform/gwconform/conformance/plan"
	"github.com/gwconform/gwconform/conformance/refgateway"
	"github.com/gwconform/gwconform/conformance/results"
	"github.com/gwconform/gwconform/fixtures"
	"github.com/gwconform/gwconform/report"
	reportv1 "github.com/gwconform/gwconform/report/apis/v1"
	"github.com/gwconform/gwconform/report/internal/browsertest"
)

// fiveNights runs a slice of the catalog (messages.errors and chat.stream)
// against the reference gateway five times, each "night" with other faults
// on, and returns the nights' report.json files read back, as `gwconform
// history` reads them:
//
//	night 1  no fault
//	night 2  wrong-404                  messages.errors red
//	night 3  chat-no-done               chat.stream red
//	night 4  wrong-404, chat-no-done    both red
//	night 5  chat-no-done               chat.stream red
//
// so messages.errors flaps (first red night 2) and chat.stream is red since
// night 3 (its first red night), without flapping. The first night sent
// gen-5.5 as company-chat (--model-map), the last as gpt-5.5 (resolved).
func fiveNights(t *testing.T) []NamedReport {
	t.Helper()
	suite, err := conformance.LoadSuite("")
	require.NoError(t, err)
	faults := [][]string{nil, {"wrong-404"}, {"chat-no-done"}, {"wrong-404", "chat-no-done"}, {"chat-no-done"}}
	first := time.Date(2026, 3, 10, 3, 17, 0, 0, time.UTC)
	dir := t.TempDir()
	var nights []NamedReport
	for i, fs := range faults {
		srv, err := conformancetest.Start(refgateway.Config{Faults: fs}, fixtures.FS)
		require.NoError(t, err)
		target := plan.Target{BaseURL: srv.BaseURL, Keys: srv.KeyMap(), PublicImageURL: srv.PublicImageURL}
		calls, err := plan.Make(suite.Catalog, target, plan.Selection{Features: []string{"messages.errors", "chat.stream"}})
		require.NoError(t, err)
		runner := suite.Runner(target, execute.Options{MaxRetries: -1})
		var rs []results.Result
		runner.Run(context.Background(), calls, func(r results.Result) { rs = append(rs, r) })
		srv.Close()

		started := first.Add(time.Duration(i) * 24 * time.Hour)
		meta := reportv1.Meta{SuiteVersion: "dev", Started: started, Finished: started.Add(time.Minute), Features: []string{"messages.errors", "chat.stream"}}
		switch i {
		case 0:
			meta.ModelMap = []reportv1.ModelName{{Spec: "gen-5.5", Gateway: "company-chat", Key: "text", Source: reportv1.NameGiven}}
		case len(faults) - 1:
			meta.ModelMap = []reportv1.ModelName{{Spec: "gen-5.5", Gateway: "gpt-5.5", Key: "text", Source: reportv1.NameResolved}}
		}
		rep := report.Build(meta, rs)
		path := filepath.Join(dir, fmt.Sprintf("night-%d", i+1), report.FileJSON)
		require.NoError(t, report.WriteAll(filepath.Dir(path), rep))
		f, err := os.Open(path)
		require.NoError(t, err)
		back, err := reportv1.ReadJSON(f)
		f.Close()
		require.NoError(t, err)
		nights = append(nights, NamedReport{Name: path, Report: back})
	}
	return nights
}

// TestBrowserHistory opens the history of five nights in headless Chromium
// and checks what the page shows: each night's verdict and headline, each
// cell's first red night, the cells red now and the flapping ones.
func TestBrowserHistory(t *testing.T) {
	b := browsertest.Open(t)
	nights := fiveNights(t)
	h := BuildHistory(nights)
	page := browsertest.WritePage(t, FileHistory, h.WriteHTML)

	b.Run(chromedp.Navigate("file://" + page))
	b.Run(chromedp.WaitVisible(chromedp.CSS(`table.hmatrix`)))

	// Per night: verdict and headline, as each report says them.
	rows := b.Eval(`document.querySelectorAll('#nights-table tbody tr').length`)
	verdicts := b.EvalString(`Array.from(document.querySelectorAll('#nights-table tbody tr')).map(tr => tr.dataset.verdict).join(',')`)
	nightsText := b.Text(`#nights-table`)

	attr := func(model, feature, name string) string {
		return b.EvalString(fmt.Sprintf(`(document.querySelector('td.hcell[data-model=%q][data-feature=%q]') || {dataset: {}}).dataset.%s ?? 'missing'`, model, feature, name))
	}
	firstRedMsg, flapsMsg, redSinceMsg := attr("msg-sonnet-5", "messages.errors", "firstRed"), attr("msg-sonnet-5", "messages.errors", "flapping"), attr("msg-sonnet-5", "messages.errors", "redSince")
	firstRedChat, flapsChat, redSinceChat := attr("gen-5.5", "chat.stream", "firstRed"), attr("gen-5.5", "chat.stream", "flapping"), attr("gen-5.5", "chat.stream", "redSince")
	marks := b.EvalString(`Array.from(document.querySelectorAll('td.hcell[data-model="msg-sonnet-5"][data-feature="messages.errors"] .dot')).map(d => d.dataset.state).join(',')`)
	firstRedMark := b.EvalString(`document.querySelector('td.hcell[data-model="gen-5.5"][data-feature="chat.stream"] .dot.first-red').dataset.night`)
	flapping := b.EvalString(`Array.from(document.querySelectorAll('#flapping li')).map(li => li.dataset.model + '/' + li.dataset.feature).join(',')`)
	redNow := b.EvalString(`Array.from(document.querySelectorAll('#red-now li')).map(li => li.dataset.model + '/' + li.dataset.feature).join(',')`)
	redNowText := b.Text(`#red-now`)
	rowHeads := b.EvalString(`Array.from(document.querySelectorAll('table.hmatrix th.model')).map(th => th.textContent).join(',')`)
	readinessRows := b.Eval(`document.querySelectorAll('#readiness-over tr.client-row').length`)
	readinessCols := b.Eval(`document.querySelectorAll('#readiness-over thead th').length`)
	shot, err := chromedp.Run(b.Ctx, chromedp.FullScreenshot(100))
	require.NoError(t, err)
	problems := b.ConsoleProblems()

	// The expected values, from the reports themselves.
	require.Len(t, h.Nights, 5)
	labels := make([]string, 5)
	for i, n := range h.Nights {
		labels[i] = n.Label
		assert.Contains(t, nightsText, n.Headline, "night %d's headline", i+1)
	}
	assert.Equal(t, []string{"2026-03-10", "2026-03-11", "2026-03-12", "2026-03-13", "2026-03-14"}, labels)
	assert.Equal(t, 5, rows)
	assert.EqualValues(t, len(h.Readiness), readinessRows, "a row a client library")
	assert.EqualValues(t, 6, readinessCols, "the library and a column a night")
	assert.NotEmpty(t, h.Readiness)
	assert.Equal(t, "pass,fail,fail,fail,fail", verdicts)
	assert.Contains(t, nightsText, "conformance passed")

	assert.Equal(t, labels[1], firstRedMsg, "messages.errors first went red on night 2 (wrong-404)")
	assert.Equal(t, "true", flapsMsg, "messages.errors flaps: red on nights 2 and 4 only")
	assert.Equal(t, "", redSinceMsg, "messages.errors is not red in the last night")
	assert.Equal(t, "pass,red,pass,red,pass", marks)
	assert.Equal(t, labels[2], firstRedChat, "chat.stream first went red on night 3 (chat-no-done)")
	assert.Equal(t, labels[2], redSinceChat)
	assert.Equal(t, "false", flapsChat, "red three nights in a row is a regression, not flapping")
	assert.Equal(t, labels[2], firstRedMark, "the first red night is marked in the strip")

	var wantFlapping, wantRed []string
	for _, c := range h.Cells {
		if c.Flapping {
			assert.Equal(t, "messages.errors", c.Feature, "only messages.errors flaps")
			wantFlapping = append(wantFlapping, c.Model+"/"+c.Feature)
		}
		if c.Red[4] {
			wantRed = append(wantRed, c.Model+"/"+c.Feature)
		}
	}
	assert.NotEmpty(t, wantFlapping)
	assert.Equal(t, strings.Join(wantFlapping, ","), flapping)
	assert.Equal(t, strings.Join(wantRed, ","), redNow)
	assert.Equal(t, []string{"gen-5.5/chat.stream"}, wantRed)
	assert.Contains(t, redNowText, "red since "+labels[2])
	assert.Contains(t, rowHeads, "gen-5.5 → gpt-5.5", "the row says the newest night's id")
	assert.NotContains(t, rowHeads, "company-chat")
	assert.Empty(t, problems, "console errors, exceptions or CSP violations")

	out := filepath.Join(browsertest.RepoRoot(t), "out")
	require.NoError(t, os.MkdirAll(out, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(out, "history-screenshot.png"), shot, 0o644))
	f, err := os.Create(filepath.Join(out, FileHistory))
	require.NoError(t, err)
	defer f.Close()
	require.NoError(t, h.WriteHTML(f))
	t.Logf("history of %d nights: %s; flapping %s; red now %s", len(h.Nights), strings.Join(verdictsOf(h), ","), flapping, redNow)
}

func verdictsOf(h *History) []string {
	var out []string
	for _, n := range h.Nights {
		out = append(out, n.Verdict)
	}
	return out
}
