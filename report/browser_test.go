package report

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gwconform/gwconform/conformance/results"
	"github.com/gwconform/gwconform/conformance/vocab"
	reportv1 "github.com/gwconform/gwconform/report/apis/v1"
	"github.com/gwconform/gwconform/report/internal/browsertest"
	. "github.com/gwconform/gwconform/report/internal/reporttest"
)

// thumb draws a small PNG (a disc on a gradient, or on transparency) and
// returns it as a data URL, like the runner's thumbnails.
func thumb(t *testing.T, hue float64, transparent bool) string {
	t.Helper()
	const n = 64
	img := image.NewNRGBA(image.Rect(0, 0, n, n))
	for y := range n {
		for x := range n {
			dx, dy := float64(x)-n/2, float64(y)-n/2
			in := math.Hypot(dx, dy) < n*0.36
			r := uint8(120 + 100*math.Sin(hue+float64(x)/20))
			g := uint8(120 + 100*math.Sin(hue+2+float64(y)/24))
			b := uint8(120 + 100*math.Sin(hue+4))
			c := color.NRGBA{r, g, b, 255}
			switch {
			case in:
				c = color.NRGBA{255 - r, 255 - g, 200, 255}
			case transparent:
				c.A = 0
			}
			img.SetNRGBA(x, y, c)
		}
	}
	var b bytes.Buffer
	require.NoError(t, png.Encode(&b, img))
	return "data:image/png;base64," + base64.StdEncoding.EncodeToString(b.Bytes())
}

// demoRun is a realistic run over the catalog's features: three model
// families, mostly passing, with a failing image-edit stream (and its
// pictures), an error, a throttled case, a strict-tier failure, skips, an
// unsupported explore case and parameterised explore edits for the
// capability map (exploreRows).
func demoRun(t *testing.T) (reportv1.Meta, []results.Result) {
	features := []string{
		"models.list", "chat.basic", "chat.stream", "chat.errors",
		"messages.basic", "messages.stream", "messages.max_tokens", "messages.image_input", "messages.errors",
		"images.generate", "images.generate.quality", "images.generate.default_size", "images.generate.default_model", "images.generate.stream",
		"images.edit.json", "images.edit.json_two_refs", "images.edit.url_ref", "images.edit.json_mask", "images.edit.multipart",
		"images.edit.multipart_two_refs", "images.edit.multipart_mask", "images.edit.size", "images.edit.quality", "images.edit.transparent",
		"images.edit.opaque_jpeg", "images.edit.webp", "images.edit.compression", "images.edit.n", "images.edit.stream", "images.edit.errors",
		"images.edit.explore", "responses.basic",
	}
	family := map[string]string{
		"gen-text-4": "chat", "gen-text-4-mini": "chat",
		"msg-sonnet-x":        "messages",
		"gen-image-2.5-flare": "images", "gen-image-2.5-sunburst": "images", "gen-image-2": "images",
	}
	start := time.Date(2026, 3, 14, 3, 17, 0, 0, time.UTC)
	var rs []results.Result
	i := 0
	add := func(model, feature, id string, tier vocab.Tier, st vocab.Status, opts ...func(*results.Result)) {
		i++
		r := results.Result{
			Case: id, Feature: feature, Model: model, Tier: tier, Status: st, Attempts: 1,
			DurationMS: int64(180 + (i*137)%2400), TTFBMS: int64(60 + (i*53)%400), Reasons: []vocab.Reason{},
			Key:  map[string]string{"chat": "text", "messages": "messages", "images": "image"}[family[model]],
			Spec: "4." + fmt.Sprint(2+i%4), Requirement: "The gateway answers " + feature + " as the spec's table shows",
			HTTPStatus: 200, Started: start.Add(time.Duration(i) * time.Second),
			Request: &results.Request{Method: "POST", Path: "/v1/" + strings.ReplaceAll(feature, ".", "/"), Body: `{"model":"` + model + `","prompt":"a red fox"}`},
		}
		for _, o := range opts {
			o(&r)
		}
		rs = append(rs, r)
	}
	for _, model := range slices.Sorted(maps.Keys(family)) {
		fam := family[model]
		add(model, "models.list", "models-list-"+fam, TV, P, func(r *results.Result) { r.Request = &results.Request{Method: "GET", Path: "/v1/models"} })
		for _, f := range features {
			if !strings.HasPrefix(f, fam+".") && !(fam == "chat" && f == "responses.basic") {
				continue
			}
			id := strings.ReplaceAll(strings.TrimPrefix(f, fam+"."), "_", "-")
			switch {
			case f == "images.edit.explore":
				exploreRows(model, add)
			case f == "responses.basic":
				st := U
				if model == "gen-text-4" {
					st = P
				}
				add(model, f, "responses-basic", TE, st)
			case strings.HasSuffix(f, ".errors"):
				add(model, f, id+"-bad-model", TN, P, func(r *results.Result) { r.HTTPStatus = 404 })
				add(model, f, id+"-no-auth", TN, P, func(r *results.Result) { r.HTTPStatus = 401 })
			case f == "images.edit.url_ref":
				add(model, f, "edit-url-ref", TV, S, func(r *results.Result) {
					r.Reasons = []vocab.Reason{{Check: "precondition", Message: "GWCONFORM_PUBLIC_IMAGE_URL is not set"}}
				})
			default:
				add(model, f, id, TV, P)
				add(model, f, id+"-usage", TS, P)
			}
		}
	}

	// The interesting cells.
	set := func(model, caseID string, f func(*results.Result)) {
		for k := range rs {
			if rs[k].Model == model && rs[k].Case == caseID {
				f(&rs[k])
				return
			}
		}
		t.Fatalf("no %s/%s", model, caseID)
	}
	set("gen-image-2.5-flare", "edit.stream", func(r *results.Result) {
		r.Status = F
		r.Requirement = "partial_images=2 streams at most two image_edit.partial_image events, then exactly one image_edit.completed with a decodable image"
		r.Spec = "4.5 partial_images; 6.1"
		r.TTFBMS, r.FirstEventMS, r.DurationMS, r.Events = 412, 2310, 9120, 4
		r.EventTypes = []string{"image_edit.partial_image", "image_edit.partial_image", "image_edit.partial_image", "image_edit.completed"}
		r.Reasons = []vocab.Reason{
			{Check: "sse", Where: "event 3", Expected: "at most 2 partial_image events", Actual: "3", Message: "more previews than partial_images asked for"},
			{Check: "image", Where: "event 4 (completed)", Expected: "1024x1024 png", Actual: "1024x1536 png", Message: "completed image has the wrong size <script>alert(1)</script>"},
		}
		r.Request = &results.Request{Method: "POST", Path: "/v1/images/edits", Body: "--boundary\nmodel=gen-image-2.5-flare\nprompt=Make it blue\nimage=<png 1024x1024 sha256:9f2c…>\nstream=true\npartial_images=2"}
		r.Images = []results.ImageInfo{
			{Where: "event 1 (partial 0)", Format: "png", Width: 1024, Height: 1024, Alpha: false, SHA256: "1c0ffee5a1", Bytes: 48211, Thumb: thumb(t, 0.2, false)},
			{Where: "event 2 (partial 1)", Format: "png", Width: 1024, Height: 1024, Alpha: false, SHA256: "2c0ffee5a1", Bytes: 93112, Thumb: thumb(t, 0.9, false)},
			{Where: "event 3 (partial 2)", Format: "png", Width: 1024, Height: 1024, Alpha: false, SHA256: "3c0ffee5a1", Bytes: 140233, Thumb: thumb(t, 1.6, false)},
			{Where: "event 4 (completed)", Format: "png", Width: 1024, Height: 1536, Alpha: true, SHA256: "4c0ffee5a1", Bytes: 1402331, Thumb: thumb(t, 2.3, true)},
		}
	})
	set("gen-image-2.5-flare", "edit.transparent", func(r *results.Result) {
		r.Images = []results.ImageInfo{{Where: "data[0]", Format: "png", Width: 1024, Height: 1024, Alpha: true, SHA256: "5eed", Bytes: 802113, Thumb: thumb(t, 3.1, true)}}
	})
	set("gen-image-2", "edit.webp-usage", func(r *results.Result) {
		r.Status = F
		r.Reasons = []vocab.Reason{{Check: "json", Where: "usage.total_tokens", Expected: "input+output = 1290", Actual: "1289", Message: "total_tokens is not input_tokens + output_tokens"}}
	})
	set("gen-text-4-mini", "stream", func(r *results.Result) {
		r.Status = E
		r.Reasons = []vocab.Reason{{Check: "transport", Message: "connection reset by peer after 3 events"}}
	})
	set("msg-sonnet-x", "image-input", func(r *results.Result) {
		r.Status = T
		r.Attempts = 3
		r.Reasons = []vocab.Reason{{Check: "status", Expected: "200", Actual: "429", Message: "rate limited after 3 attempts"}}
	})
	set("gen-text-4", "basic", func(r *results.Result) { r.Flaky, r.Attempts = true, 2 })

	return reportv1.Meta{
		SuiteVersion: "v0.3.0", Commit: "4f1d2a9c0be7d1e2f3a4", CatalogHash: "sha256:77aa01",
		BaseURL: "https://gateway.internal.test", Started: start, Finished: start.Add(6*time.Minute + 41*time.Second),
		Features: features,
	}, rs
}

// exploreRows adds 16 parameterised explore edits of one image model, in the
// shape of the catalog's all-pairs rows (cases/explore_images.yaml): every
// value of every parameter is sent, n=2 with stream=true four times.
// gen-image-2 declines quality xhigh and max, sunburst declines n=2 together
// with stream=true, and flare breaks one stream with partial_images=3.
func exploreRows(model string, add func(model, feature, id string, tier vocab.Tier, st vocab.Status, opts ...func(*results.Result))) {
	sizes := []string{"1024x1024", "1536x1024", "1024x1536", "auto"}
	qualities := []string{"low", "medium", "high", "xhigh", "max", "auto"}
	bgFormat := [][2]string{{"transparent", "png"}, {"transparent", "webp"}, {"opaque", "jpeg"}, {"auto", "webp"}}
	for i := range 16 {
		p := map[string]string{
			"size": sizes[i%4], "quality": qualities[(i*5)%6],
			"background": bgFormat[(i+i/2)%4][0], "output_format": bgFormat[(i+i/2)%4][1],
			"n": []string{"1", "2"}[(i/3)%2], "stream": []string{"false", "true"}[(i/2)%2],
		}
		switch p["output_format"] {
		case "jpeg":
			p["output_compression"] = []string{"0", "100"}[i%2]
		case "webp":
			p["output_compression"] = "50"
		}
		if p["stream"] == "true" {
			p["partial_images"] = fmt.Sprint(i % 4)
		}
		st, reasons := P, []vocab.Reason{}
		declined := func(msg string) {
			st = U
			reasons = []vocab.Reason{{Check: "status", Expected: "200", Actual: "400", Message: "declined: " + msg}}
		}
		switch {
		case model == "gen-image-2" && (p["quality"] == "xhigh" || p["quality"] == "max"):
			declined("quality " + p["quality"] + " is not supported by gen-image-2")
		case model == "gen-image-2.5-sunburst" && p["n"] == "2" && p["stream"] == "true":
			declined("n > 1 cannot be streamed")
		case model == "gen-image-2.5-flare" && i == 7:
			st = F
			reasons = []vocab.Reason{{Check: "sse", Where: "event 5", Expected: "at most 3 partial_image events", Actual: "4", Message: "more previews than partial_images asked for"}}
		}
		body, _ := json.Marshal(p)
		add(model, "images.edit.explore", fmt.Sprintf("explore-edit-%02d", i+1), TE, st, func(r *results.Result) {
			r.Params, r.Reasons = p, reasons
			r.Spec, r.Requirement = "4.5 rule 4; 6.1; 8", "Combinations of parameters beyond the verified rows are not guaranteed; stacking them creates new combinations to verify before use."
			r.Request = &results.Request{Method: "POST", Path: "/v1/images/edits", Body: string(body)}
			if st == U {
				r.HTTPStatus = 400
			}
		})
	}
}

func TestBrowser(t *testing.T) {
	b := browsertest.Open(t)
	meta, rs := demoRun(t)
	r := Build(meta, rs)
	page := browsertest.WritePage(t, "report.html", func(w io.Writer) error { return WriteHTML(w, r) })

	// The matrix is one table per interface family: a model shows in each
	// table of a family it has cases in; the filters count models.
	visibleRows := `new Set(Array.from(document.querySelectorAll('table.matrix tbody tr')).filter(tr => !tr.classList.contains('hidden') && !tr.closest('table').classList.contains('hidden')).map(tr => tr.dataset.model)).size`
	run, eval, ctx := b.Run, b.Eval, b.Ctx

	run(chromedp.Navigate("file://" + page))
	run(chromedp.WaitVisible(chromedp.CSS(`table.matrix`)))

	// The failures by cause open the page: on the first screen, above the
	// legend and the matrix, report.json's causes in order (deciding ones
	// first, the reported-only ones after a separator and marked), each
	// with its cases (collapsed) and the command that reproduces its
	// example, which the copy button copies whole.
	causesFirst := eval(`(() => { const top = id => document.getElementById(id).getBoundingClientRect().top;
		return top('causes') < top('summary') && top('summary') < top('matrix-wrap') && top('causes') < window.innerHeight ? 1 : 0; })()`)
	causeRows := b.EvalString(`Array.from(document.querySelectorAll('#causes-table tr.cause')).map(tr => tr.dataset.deciding + ' ' + tr.querySelector('.cause-name').textContent).join('\n')`)
	sepBeforeReported := eval(`(() => { const sep = document.querySelector('#causes-table tr.sep'); return sep && sep.nextElementSibling.classList.contains('reported') && !sep.previousElementSibling.classList.contains('reported') ? 1 : 0; })()`)
	reportedMarks := b.EvalString(`Array.from(document.querySelectorAll('#causes-table tr.reported td:first-child')).map(td => td.textContent).join(',')`)
	firstCause := b.Text(`#causes-table tr.cause`)
	casesOpen := eval(`document.querySelector('#causes-table tr.cause details.ccases').open ? 1 : 0`)
	run(chromedp.Click(chromedp.CSS(`#causes-table tr.cause details.ccases summary`)))
	firstCases := b.Text(`#causes-table tr.cause details.ccases ul`)
	run(chromedp.Evaluate[chromedp.Void](`navigator.clipboard.writeText = t => { window.copied = t; return Promise.resolve(); }`))
	run(chromedp.Click(chromedp.CSS(`#causes-table tr.cause td.repro button.copy`)))
	run(chromedp.Poll[chromedp.Void](`document.querySelector('#causes-table tr.cause td.repro button.copy').textContent === 'copied'`))
	copied := b.EvalString(`window.copied`)
	run(chromedp.Click(chromedp.CSS(`#causes-table tr.cause .example`)))
	run(chromedp.WaitVisible(chromedp.CSS(`#detail .case.flash`)))
	exampleCase := b.EvalString(`document.querySelector('#detail .case.flash').dataset.case`)

	cells := eval(`document.querySelectorAll('table.matrix td.cell:not([data-status="none"])').length`)
	offscreen := eval(`Array.from(document.querySelectorAll('table.matrix td.cell:not([data-status="none"])')).filter(td => td.getBoundingClientRect().right > window.innerWidth).length`)
	cellsFail := eval(`document.querySelectorAll('table.matrix td.cell[data-status="fail"]').length`)
	// The verdict badge and the headline say the same as report.json.
	head, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`header.top`)))
	require.NoError(t, err)
	assert.Contains(t, head, "FAIL")
	assert.Contains(t, head, "conformance failed:")

	// Open the failing image-edit stream cell.
	run(chromedp.Click(chromedp.CSS(`td.cell[data-model="gen-image-2.5-flare"][data-feature="images.edit.stream"]`)))
	run(chromedp.WaitVisible(chromedp.CSS(`#detail .case`)))
	detail, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`#detail`)))
	require.NoError(t, err)
	scripts := eval(`document.querySelectorAll('script').length`)
	widths, err := chromedp.Run(ctx, chromedp.Evaluate[[]float64](`Promise.all(Array.from(document.images).map(i => i.complete ? 0 :
			new Promise(r => { i.addEventListener('load', r); i.addEventListener('error', r); })))
		.then(() => Array.from(document.images).map(i => i.naturalWidth))`, chromedp.EvalAwaitPromise))
	require.NoError(t, err)
	shot, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	require.NoError(t, err)

	// The capability map: drawn, only the values some model does not fully
	// support until the toggle shows all; a cell opens its declined call.
	capVisibleRows := `Array.from(document.querySelectorAll('table.capmap tbody tr')).filter(tr => !tr.classList.contains('hidden') && tr.offsetParent !== null).length`
	run(chromedp.ScrollIntoView(chromedp.CSS(`#capabilities`)))
	capShown := eval(`document.getElementById('capabilities').hidden || !document.getElementById('capabilities').offsetHeight ? 0 : 1`)
	capRows := eval(capVisibleRows)
	capText, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`#capabilities`)))
	require.NoError(t, err)
	verdictOf := func(model, value string) string {
		t.Helper()
		v, err := chromedp.Run(ctx, chromedp.Evaluate[string](fmt.Sprintf(
			`(document.querySelector('td.capcell[data-model=%q][data-value=%q]') || {dataset: {verdict: 'missing'}}).dataset.verdict`, model, value)))
		require.NoError(t, err)
		return v
	}
	xhigh, pairN2, flareFail := verdictOf("gen-image-2", "quality=xhigh"), verdictOf("gen-image-2.5-sunburst", "n=2"), verdictOf("gen-image-2.5-flare", "partial_images=3")
	capShot, err := chromedp.Run(ctx, chromedp.Screenshot(chromedp.CSS(`#capabilities`)))
	require.NoError(t, err)
	run(chromedp.Click(chromedp.CSS(`#cap-attention`)))
	capRowsAll := eval(capVisibleRows)
	run(chromedp.Click(chromedp.CSS(`#cap-attention`)))
	run(chromedp.Click(chromedp.CSS(`td.capcell[data-model="gen-image-2.5-sunburst"][data-value="n=2"]`)))
	run(chromedp.WaitVisible(chromedp.CSS(`#detail .case.flash`)))
	capDetail, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`#detail .case.flash`)))
	require.NoError(t, err)

	// Filters: the status filter keeps the models with a failing cell, the
	// model filter the models whose name matches.
	run(chromedp.Click(chromedp.CSS(`button.chip[data-status="fail"]`)))
	rowsAfterFilter := eval(visibleRows)
	run(chromedp.Click(chromedp.CSS(`button.chip[data-status="fail"]`)))
	run(chromedp.SendKeys(chromedp.CSS(`#filter-model`), "sunburst"))
	rowsAfterModel := eval(visibleRows)

	// The failure list, collapsed until opened: those that decide the
	// verdict apart from those reported only, each line with its tier and
	// every reason, above the capability map.
	listClosed := eval(`document.getElementById('problems-all').open ? 0 : 1`)
	run(chromedp.Click(chromedp.CSS(`#problems-all > summary`)))
	decidingLines := eval(`document.querySelectorAll('#problems-deciding > li').length`)
	reportedLines := eval(`document.querySelectorAll('#problems-reported > li').length`)
	listAbove := eval(`document.getElementById('problems').getBoundingClientRect().top < document.getElementById('capabilities').getBoundingClientRect().top ? 1 : 0`)
	decidingText, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`#problems-deciding`)))
	require.NoError(t, err)
	reportedText, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`#problems-reported`)))
	require.NoError(t, err)

	// A run whose failures have one cause (the image routes missing) shows
	// one row: its counts, its cases and its command.
	oneCause := Build(meta, imageRoutesMissing())
	require.Len(t, oneCause.Causes, 1)
	run(chromedp.Navigate("file://" + browsertest.WritePage(t, "one-cause.html", func(w io.Writer) error { return WriteHTML(w, oneCause) })))
	run(chromedp.WaitVisible(chromedp.CSS(`#causes-table`)))
	oneFirst := eval(`document.getElementById('causes').getBoundingClientRect().top < document.getElementById('matrix-wrap').getBoundingClientRect().top ? 1 : 0`)
	oneRows := eval(`document.querySelectorAll('#causes-table tr.cause').length`)
	oneSeps := eval(`document.querySelectorAll('#causes-table tr.sep').length`)
	oneRow := b.Text(`#causes-table tr.cause`)
	oneCommand := b.Text(`#causes-table tr.cause td.repro code`)

	problems := b.ConsoleProblems()

	wantRows := make([]string, len(r.Causes))
	for k, c := range r.Causes {
		wantRows[k] = fmt.Sprintf("%t %s", c.Deciding, c.Cause)
	}
	require.Greater(t, len(r.Causes), 2)
	ex := r.Causes[0].Example
	assert.Equal(t, 1, causesFirst, "the causes stand on the first screen, above the legend and the matrix")
	assert.Equal(t, strings.Join(wantRows, "\n"), causeRows, "report.json's causes, in order")
	assert.True(t, r.Causes[0].Deciding && !r.Causes[len(r.Causes)-1].Deciding, "the demo has both kinds")
	assert.Equal(t, 1, sepBeforeReported, "a separator row between the deciding and the reported-only causes")
	assert.Equal(t, strings.TrimSuffix(strings.Repeat("reported only,", len(r.Causes)-strings.Count(causeRows, "true ")), ","), reportedMarks)
	assert.Contains(t, firstCause, "decides")
	assert.Contains(t, firstCause, fmt.Sprintf("%d result", r.Causes[0].Results))
	assert.Contains(t, firstCause, "e.g. "+ex.Case+" × "+ex.Model+": "+ex.Reason.String())
	assert.Zero(t, casesOpen, "a cause's cases are collapsed")
	assert.Equal(t, strings.Join(r.Causes[0].Cases, "\n"), firstCases)
	assert.Equal(t, showCommand(ex.Case, ex.Model), copied, "the copy button copies the command whole")
	assert.Equal(t, "gwconform show --out . --model gen-text-4-mini --curl stream", copied)
	assert.Equal(t, ex.Case, exampleCase, "the example opens its result")
	assert.Equal(t, 1, listClosed, "the per-result list is collapsed")

	assert.Equal(t, 1, oneFirst)
	assert.Equal(t, 1, oneRows, "one cause, one row")
	assert.Zero(t, oneSeps, "nothing reported only")
	assert.Contains(t, oneRow, "HTTP 404: Route not found")
	assert.Contains(t, oneRow, "6 results in 6 cells")
	assert.Contains(t, oneRow, "3 cases: edit-json, gen-basic, gen-quality")
	assert.Equal(t, "gwconform show --out . --model gen-image-2 --curl gen-basic", oneCommand, "the first result in report order (the catalog's)")

	assert.Positive(t, decidingLines, "the failing cells' results decide the verdict")
	assert.Positive(t, reportedLines, "flare's explore edits are reported only")
	assert.Equal(t, 1, listAbove, "in a failing run the failure list stands above the capability map")
	assert.Contains(t, decidingText, "verified")
	assert.Contains(t, decidingText, "more previews than partial_images asked for", "every reason, not only the first")
	assert.NotContains(t, reportedText, "verified")
	t.Logf("failure list: %d deciding, %d reported only", decidingLines, reportedLines)

	withCases := 0
	for _, c := range r.Cells {
		if c.Status != reportv1.CellNone {
			withCases++
		}
	}
	assert.Equal(t, withCases, cells, "every model × feature with cases has its cell, once")
	assert.Zero(t, offscreen, "no cell with cases lies right of the window: no row looks empty for scrolled-away columns")
	assert.Equal(t, 3, cellsFail, "two failing cells and flare's explore edits (reported)")
	// The reasons of the failed case, gateway markup shown as text.
	assert.Contains(t, detail, "more previews than partial_images asked for")
	assert.Contains(t, detail, "completed image has the wrong size <script>alert(1)</script>")
	assert.Contains(t, detail, "image_edit.completed")
	assert.Contains(t, detail, "4.5 partial_images; 6.1")
	assert.Contains(t, detail, "gwconform show --out . --model gen-image-2.5-flare --curl", "the case panel gives the command that sends the request again")
	assert.Equal(t, 2, scripts, "gateway text did not become a script element")
	// Every thumbnail decoded.
	require.Len(t, widths, 4, "the cell's four images")
	for k, w := range widths {
		assert.Positive(t, w, "image %d naturalWidth", k)
	}
	assert.Equal(t, 2, rowsAfterFilter, "status filter keeps the models with a failing cell")

	require.Len(t, r.Capabilities, 1)
	attentionRows := 0
	for _, row := range r.Capabilities[0].Rows {
		attentionRows += btoi(row.Attention)
	}
	assert.Equal(t, 1, capShown, "capability map shown")
	assert.Positive(t, capRows)
	assert.Equal(t, attentionRows, capRows, "by default only values some model does not fully support")
	assert.Equal(t, len(r.Capabilities[0].Rows), capRowsAll, "the toggle shows every value")
	assert.Equal(t, "unsupported", xhigh)
	assert.Equal(t, "mixed", pairN2)
	assert.Equal(t, "failed", flareFail)
	assert.Contains(t, capText, "Capability map (explore)")
	assert.Contains(t, capText, "declines quality=max, quality=xhigh")
	assert.Contains(t, capText, "declines n=2 together with stream=true")
	assert.Contains(t, capText, "values supported by every model")
	assert.Contains(t, capDetail, "n > 1 cannot be streamed", "the cell opens its first declined call")
	assert.Equal(t, 1, rowsAfterModel, "model filter")

	assert.Empty(t, problems, "console errors, exceptions or CSP violations")

	out := filepath.Join(browsertest.RepoRoot(t), "out")
	require.NoError(t, os.MkdirAll(out, 0o755))
	require.NotEmpty(t, shot)
	require.NoError(t, os.WriteFile(filepath.Join(out, "report-screenshot.png"), shot, 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(out, "report-capabilities.png"), capShot, 0o644))
	// The demo run's reports beside it, to look at by hand.
	require.NoError(t, WriteAll(filepath.Join(out, "report-demo"), r))
	t.Logf("screenshot: %s", filepath.Join(out, "report-screenshot.png"))
}

// imageRoutesMissing is a run against a gateway without its image routes
// (the reference gateway's image-routes-missing fault): every image case
// of two models answered 404 Route not found.
func imageRoutesMissing() []results.Result {
	var rs []results.Result
	for _, m := range []string{"gen-image-2", "gen-image-2.5-flare"} {
		rs = append(rs, Res("models-list", "models.list", m, TV, P))
		for _, c := range [][2]string{{"gen-basic", "images.generate"}, {"gen-quality", "images.generate.quality"}, {"edit-json", "images.edit.json"}} {
			rs = append(rs, Res(c[0], c[1], m, TV, F, func(r *results.Result) {
				r.Key, r.HTTPStatus = "image", 404
				r.Reasons = []vocab.Reason{{Check: "status", Expected: "200", Actual: `404 {"error":{"message":"Route not found","type":"not_found"}}`, Message: "HTTP status 404, want 200"}}
			}))
		}
	}
	return rs
}

// TestBrowserNightly opens a report of a night with waivers, a re-run, a
// budget and a model no case covers, and checks that each is shown apart:
// the known deviations with their reason and link, the waivers no longer
// needed and expired, the flaky re-run with its first run, the cost.
func TestBrowserNightly(t *testing.T) {
	b := browsertest.Open(t)
	m, rs := Nightly()
	rs[3].Waiver.Link = "javascript:alert(1)" // the not-needed entry's link must stay text
	r := Build(m, rs)
	page := browsertest.WritePage(t, "report.html", func(w io.Writer) error { return WriteHTML(w, r) })

	b.Run(chromedp.Navigate("file://" + page))
	b.Run(chromedp.WaitVisible(chromedp.CSS(`#nightly`)))
	facts := b.Text(`#facts`)
	cellStatus := b.EvalString(`document.querySelector('td.cell[data-model="gen-text-1"][data-feature="chat.basic"]').dataset.status`)
	applied := b.Text(`#nightly .waivers[data-state="applied"]`)
	notNeeded := b.Text(`#nightly .waivers[data-state="not-needed"]`)
	expired := b.Text(`#nightly .waivers[data-state="expired"]`)
	links := b.EvalString(`Array.from(document.querySelectorAll('#nightly a')).map(a => a.getAttribute('href')).join(',')`)
	scriptLinks := b.Eval(`document.querySelectorAll('a[href^="javascript"]').length`)
	reruns := b.Text(`#nightly .reruns`)
	uncovered := b.Text(`#nightly .uncovered`)
	b.Run(chromedp.Click(chromedp.CSS(`#nightly .waivers[data-state="applied"] li`)))
	b.Run(chromedp.WaitVisible(chromedp.CSS(`#detail .case.flash`)))
	detail := b.Text(`#detail .case.flash`)
	problems := b.ConsoleProblems()

	assert.Contains(t, facts, "cost 16.38 units spent, 12.5 planned, budget 20")
	assert.Equal(t, "waived", cellStatus)
	assert.Contains(t, applied, "Waived: known deviations (1)")
	assert.Contains(t, applied, "the relay answers 400 for retired ids")
	assert.Contains(t, applied, "chat-bad-model")
	assert.Contains(t, notNeeded, "Waivers no longer needed (1)")
	assert.Contains(t, notNeeded, "javascript:alert(1)", "shown as text")
	assert.Contains(t, expired, "expired 2026-04-01")
	assert.Equal(t, "https://tracker.test/GW-7,https://tracker.test/GW-7", links, "plain URLs are links")
	assert.Zero(t, scriptLinks)
	assert.Contains(t, reruns, "first run fail: status: HTTP status 502, want 200")
	assert.Contains(t, reruns, "flaky")
	assert.Contains(t, uncovered, "gen-image-3-nova")
	assert.Contains(t, uncovered, "gwconform probe")
	assert.Contains(t, detail, "waived: a known deviation, not failing the run")
	assert.Contains(t, detail, "https://tracker.test/GW-7")
	assert.Empty(t, problems, "console errors, exceptions or CSP violations")
}

// TestBrowserReplay opens a replay's report: the facts and the first note
// say which recording was judged, a failure shows its request id, and its
// transcript is collapsed until opened, then shows the request, the
// response headers and the stream events with their offsets, gateway text
// as text.
func TestBrowserReplay(t *testing.T) {
	b := browsertest.Open(t)
	m, rs := Replayed()
	rs[0].Transcript.Rounds[0].Events[0].Text = `data: {"x":"<img src=x onerror=alert(1)>"}`
	r := Build(m, rs)
	page := browsertest.WritePage(t, "report.html", func(w io.Writer) error { return WriteHTML(w, r) })

	b.Run(chromedp.Navigate("file://" + page))
	b.Run(chromedp.WaitVisible(chromedp.CSS(`table.matrix`)))
	facts := b.Text(`#facts`)
	head := b.Text(`#headline`)
	b.Run(chromedp.Click(chromedp.CSS(`td.cell[data-model="gen-text-1"][data-feature="chat.stream"]`)))
	b.Run(chromedp.WaitVisible(chromedp.CSS(`#detail .case`)))
	closed := b.Eval(`document.querySelector('#detail details.transcript').open ? 0 : 1`)
	summary := b.Text(`#detail details.transcript summary`)
	b.Run(chromedp.Click(chromedp.CSS(`#detail details.transcript summary`)))
	transcript := b.Text(`#detail details.transcript`)
	opened := b.Eval(`document.querySelector('#detail details.transcript').open ? 1 : 0`)
	detail := b.Text(`#detail .case`)
	injected := b.Eval(`document.querySelectorAll('#detail img[src="x"]').length`)
	problems := b.ConsoleProblems()

	assert.Contains(t, facts, "replay of recordings/night-12")
	assert.Contains(t, head, "replay of the recording recordings/night-12")
	assert.Contains(t, detail, "request id")
	assert.Contains(t, detail, "req_0123abcd")
	assert.Equal(t, 1, closed, "the transcript is collapsed")
	assert.Equal(t, "Transcript (1 request)", summary)
	assert.Equal(t, 1, opened)
	assert.Contains(t, transcript, "whole exchange: recordings/night-12/exchanges/chat.stream/chat-stream--gen-text-1.json")
	assert.Contains(t, transcript, "POST /v1/chat/completions · key: text")
	assert.Contains(t, transcript, "← 200 after 120 ms")
	assert.Contains(t, transcript, "X-Request-Id: req_0123abcd")
	assert.Contains(t, transcript, "+130 ms")
	assert.Contains(t, transcript, "3 events left out")
	assert.Contains(t, transcript, `<img src=x onerror=alert(1)>`, "gateway text shown as text")
	assert.Zero(t, injected)
	assert.Empty(t, problems, "console errors, exceptions or CSP violations")
}

// TestBrowserNotOffered: features the gateway declares it does not offer
// show as not offered, not as failures or skips, and a run that used
// several bases says so in its facts and notes. A model the gateway names
// otherwise heads its row as "spec → gateway", found by either name, and
// a given name its key's list lacks is a note.
func TestBrowserNotOffered(t *testing.T) {
	b := browsertest.Open(t)
	start := time.Date(2026, 11, 25, 3, 0, 0, 0, time.UTC)
	notOffered := func(feature, id string) results.Result {
		return results.Result{Case: id, Feature: feature, Model: "gen-image-2", Tier: vocab.TierVerified, Status: vocab.StatusSkip, Started: start,
			Reasons: []vocab.Reason{{Check: vocab.CheckNotOffered, Message: feature + " is not offered (--offers models.*,chat.*)"}}}
	}
	rs := []results.Result{
		{Case: "chat-json", Feature: "chat.basic", Model: "gen-5.5", Tier: vocab.TierVerified, Status: vocab.StatusPass, HTTPStatus: 200, Started: start},
		notOffered("images.generate", "gen-basic"),
		notOffered("images.edit.json", "edit-json-one-ref"),
	}
	m := reportv1.Meta{SuiteVersion: "test", BaseURL: "https://gw.test/openai", KindBaseURLs: map[string]string{"messages": "https://gw.test/anthropic"},
		Offers: []string{"models.*", "chat.*"}, Features: []string{"chat.basic", "images.generate", "images.edit.json"}, Started: start, Finished: start.Add(time.Minute),
		ModelMap: []reportv1.ModelName{
			{Spec: "gen-5.5", Gateway: "gpt-5.5", Key: "text", Source: reportv1.NameResolved},
			{Spec: "gen-image-2", Gateway: "company-image", Key: "image", Source: reportv1.NameGiven, Unlisted: true},
		}}
	r := Build(m, rs)
	assert.Equal(t, reportv1.CellNotOffered, r.Cells[slices.IndexFunc(r.Cells, func(c reportv1.Cell) bool { return c.Feature == "images.generate" && c.Model == "gen-image-2" })].Status)
	var md bytes.Buffer
	require.NoError(t, WriteMarkdown(&md, r))
	assert.Contains(t, md.String(), "🚫 not offered")
	assert.Contains(t, md.String(), "offers `models.*,chat.*`")
	assert.Contains(t, md.String(), "several base URLs: text, image, alt at https://gw.test/openai; messages at https://gw.test/anthropic")

	page := browsertest.WritePage(t, "report.html", func(w io.Writer) error { return WriteHTML(w, r) })
	b.Run(chromedp.Navigate("file://" + page))
	b.Run(chromedp.WaitVisible(chromedp.CSS(`table.matrix`)))
	cell := b.Text(`td.cell[data-model="gen-image-2"][data-feature="images.generate"]`)
	class := b.EvalString(`document.querySelector('td.cell[data-model="gen-image-2"][data-feature="images.generate"]').className`)
	facts := b.Text(`#facts`)
	head := b.Text(`#headline`)
	rowHead := b.Text(`table.matrix tr[data-model="gen-5.5"] th.model`)
	b.Run(chromedp.SendKeys(chromedp.CSS(`#filter-model`), "gpt"))
	byGatewayID := b.EvalString(`Array.from(document.querySelectorAll('table.matrix tbody tr:not(.hidden)')).map(tr => tr.dataset.model).join(',')`)
	// Geometry (issue 34): each "not offered" chip holds its words, and
	// what follows it starts after it: the legend's description, the
	// matrix's next cell, the filter chip's count.
	overlaps := b.EvalString(overlapJS)
	problems := b.ConsoleProblems()

	assert.Empty(t, overlaps, "a not-offered chip overlaps text")

	assert.Equal(t, "gen-5.5 → gpt-5.5", rowHead)
	assert.Equal(t, "gen-5.5", byGatewayID, "the model filter finds a row by the gateway's id")
	assert.Contains(t, head, "company-image (given for gen-image-2 with --model-map) is not in the image key's list: sent anyway")
	assert.Equal(t, "not offered", cell)
	assert.Contains(t, class, "st-not-offered")
	assert.Contains(t, facts, "offers models.*,chat.*")
	assert.Contains(t, facts, "messages at https://gw.test/anthropic")
	assert.Contains(t, head, "not offered: images.*")
	assert.Contains(t, head, "several base URLs")
	assert.Empty(t, problems, "console errors, exceptions or CSP violations")
}

// overlapJS lists, one a line, each "not offered" chip of report.html
// whose words stick out of it, or that overlaps what comes after it on its
// line: the legend's swatch and its description, a matrix cell's chip and
// the next cell, a filter chip and its count. "" when none does.
const overlapJS = `(() => {
  const out = [];
  const box = n => { const r = document.createRange(); r.selectNodeContents(n); return r.getBoundingClientRect(); };
  const holds = (what, chip) => {
    const c = chip.getBoundingClientRect(), t = box(chip);
    if (t.left < c.left - 0.5 || t.right > c.right + 0.5) out.push(what + ': its words (' + t.left + '..' + t.right + ') stick out of the chip (' + c.left + '..' + c.right + ')');
    return c;
  };
  const sw = document.querySelector('.legend span.sw.st-not-offered');
  if (!sw) out.push('no legend swatch');
  else {
    const c = holds('legend swatch', sw);
    const after = document.createRange();
    after.setStartAfter(sw); after.setEndAfter(sw.parentNode.lastChild);
    const d = after.getBoundingClientRect();
    const w = box(sw);
    if (d.left < Math.max(c.right, w.right) - 0.5) out.push('legend: the description starts at ' + d.left + ', inside the swatch or its words ending at ' + Math.max(c.right, w.right));
  }
  const cells = document.querySelectorAll('td.cell.st-not-offered');
  if (!cells.length) out.push('no not-offered cell');
  cells.forEach(td => {
    const c = holds('cell ' + td.dataset.feature, td.querySelector('span'));
    const r = td.getBoundingClientRect();
    if (c.left < r.left - 0.5 || c.right > r.right + 0.5) out.push('cell ' + td.dataset.feature + ': the chip sticks out of its cell');
    const next = td.nextElementSibling;
    if (next && next.getBoundingClientRect().left < c.right - 0.5) out.push('cell ' + td.dataset.feature + ': the next cell starts inside the chip');
  });
  document.querySelectorAll('button.chip').forEach(b => {
    if (!/not offered/.test(b.textContent)) return;
    holds('filter chip', b);
  });
  return out.join('\n');
})()`

// TestBrowserClients: a judgement of observed traffic lists, per client,
// the rules its requests broke and the notes on what they did beyond the
// verified rows, in report.html as in matrix.md; the stand-in is named so.
func TestBrowserClients(t *testing.T) {
	b := browsertest.Open(t)
	start := time.Date(2026, 11, 28, 3, 0, 0, 0, time.UTC)
	client := func(id string, status vocab.Status, reasons []vocab.Reason, notes ...string) results.Result {
		return results.Result{Case: id, Feature: "messages.basic", Model: "client: Anthropic/JS", Tier: vocab.TierVerified, Status: status, Started: start,
			Observed: true, Side: results.SideClient, Reasons: reasons, Notes: notes}
	}
	bearer := []vocab.Reason{{Check: "client", Where: "Authorization", Message: "the request breaks a rule on Authorization (spec 5.1/bearer: Every request carries the header `Authorization: Bearer <API_KEY>`.)"}}
	rs := []results.Result{
		client("observed-000001", vocab.StatusFail, bearer),
		client("observed-000002", vocab.StatusFail, bearer),
		client("observed-000003", vocab.StatusPass, nil, "temperature is listed in 4.2, with no verified value (spec 4.2/temperature)"),
	}
	m := reportv1.Meta{SuiteVersion: "test", Features: []string{"messages.basic"}, Started: start, Finished: start.Add(time.Minute),
		Traffic: &reportv1.Traffic{Exchanges: 3, StandIn: true}}
	r := Build(m, rs)
	require.Len(t, r.Clients, 1)
	var md bytes.Buffer
	require.NoError(t, WriteMarkdown(&md, r))
	assert.Contains(t, md.String(), "**client: Anthropic/JS**: 3 requests, 1 broke no rule")
	assert.Contains(t, md.String(), "- breaks `5.1/bearer` 2× (e.g. `observed-000001`)")
	assert.Contains(t, md.String(), "- note `4.2/temperature` 1× (e.g. `observed-000003`)")
	assert.Contains(t, md.String(), "gateway: "+reportv1.StandIn)

	page := browsertest.WritePage(t, "report.html", func(w io.Writer) error { return WriteHTML(w, r) })
	b.Run(chromedp.Navigate("file://" + page))
	b.Run(chromedp.WaitVisible(chromedp.CSS(`#clients`)))
	clients := b.Text(`#clients`)
	facts := b.Text(`#facts`)
	assert.Empty(t, b.ConsoleProblems())
	assert.Contains(t, clients, "client: Anthropic/JS: 3 requests, 1 broke no rule")
	assert.Contains(t, clients, "5.1/bearer")
	assert.Contains(t, clients, "4.2/temperature")
	assert.Contains(t, facts, "the stand-in")
}

// TestBrowserReadiness: each library's readiness is drawn in report.html
// as report.json holds it: its verdict, its features, and for one that is
// not READY the check that failed and the library's source.
func TestBrowserReadiness(t *testing.T) {
	b := browsertest.Open(t)
	start := time.Date(2026, 11, 28, 3, 0, 0, 0, time.UTC)
	textPlain := vocab.Reason{Check: "content_type", Where: "Content-Type", Expected: "application/json", Actual: "text/plain",
		Message: `response media type is "text/plain", want application/json`}
	rs := []results.Result{
		{Case: "chat-json", Feature: "chat.basic", Model: "gen-5.5", Tier: vocab.TierVerified, Status: vocab.StatusPass, Started: start},
		{Case: "chat-json-strict", Feature: "chat.basic", Model: "gen-5.5", Tier: vocab.TierStrict, Status: vocab.StatusFail, Started: start, Reasons: []vocab.Reason{textPlain}},
	}
	m := reportv1.Meta{SuiteVersion: "test", Features: []string{"chat.basic"}, Started: start, Finished: start.Add(time.Minute), Clients: []string{"openai-go", "openai-python"}}
	r := Build(m, rs)
	require.Len(t, r.Readiness, 2)
	assert.Equal(t, results.ReadyNot, r.Readiness[0].Verdict, "openai-go reads JSON only under application/json")
	var md bytes.Buffer
	require.NoError(t, WriteMarkdown(&md, r))
	assert.Contains(t, md.String(), "| openai-go | ❌ NOT READY |")

	page := browsertest.WritePage(t, "report.html", func(w io.Writer) error { return WriteHTML(w, r) })
	b.Run(chromedp.Navigate("file://" + page))
	b.Run(chromedp.WaitVisible(chromedp.CSS(`#readiness-table`)))
	rows := b.EvalString(`Array.from(document.querySelectorAll('#readiness-table tr.client-row')).map(tr => tr.innerText.replace(/\s+/g, ' ').trim()).join('\n')`)
	open := b.Text(`#readiness details.client-readiness[data-client="openai-go"]`)
	assert.Empty(t, b.ConsoleProblems(), "console errors, exceptions or CSP violations")
	assert.Contains(t, rows, "openai-go NOT READY chat.basic* NOT READY")
	assert.Contains(t, rows, "openai-python UNKNOWN chat.basic* READY")
	assert.Contains(t, open, "chat-json-strict content_type")
	assert.Contains(t, open, "internal/requestconfig/requestconfig.go")
	assert.Contains(t, open, "source only, not yet driven")
}
