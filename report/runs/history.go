package runs

import (
	_ "embed"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/gwconform/gwconform/conformance/results"
	reportv1 "github.com/gwconform/gwconform/report/apis/v1"
	"github.com/gwconform/gwconform/report/internal/htmlpage"
	"github.com/gwconform/gwconform/report/markdown"
)

// History is the capability matrix over nights: for every model × feature,
// its cell in each night, the first night it was red, the night its current
// red streak began, and whether it flaps. It is built from report.json
// files only, so it reads nights written by older builds of the suite.
type History struct {
	Nights []Night  `json:"nights"` // oldest first
	Models []string `json:"models"`
	// ModelLabels head the rows of the models the newest night that ran
	// them sent under another id ("gen-5.5 → gpt-5.5"); rows stay keyed
	// by the spec id, so a gateway renaming a model keeps its history.
	ModelLabels map[string]string `json:"modelLabels,omitempty"`
	Features    []string          `json:"features"`
	Cells       []HistoryCell     `json:"cells"` // Models × Features, row-major
	// Readiness is each client library's readiness night by night, in
	// the newest night's order: whether a library that worked stopped.
	Readiness []ReadinessOver `json:"readiness,omitempty"`
	// Warnings say what makes the nights unlike each other: nights of
	// different gateways, whose cells compare one gateway with another.
	Warnings []string `json:"warnings,omitempty"`
}

// Night is one report's headline: its verdict, headline and counts.
type Night struct {
	Label        string    `json:"label"`  // its date, with the time when two nights share one
	Source       string    `json:"source"` // the report.json it came from
	Started      time.Time `json:"started"`
	SuiteVersion string    `json:"suiteVersion,omitempty"`
	Commit       string    `json:"commit,omitempty"`
	// Gateway is the base URL judged, or reportv1.ReferenceGateway; not in
	// the page's data, which holds no network reference.
	Gateway  string          `json:"-"`
	Verdict  string          `json:"verdict"`
	Headline string          `json:"headline"`
	Total    reportv1.Counts `json:"total"`
}

// HistoryCell is one model × feature over the nights.
type HistoryCell struct {
	Model   string `json:"model"`
	Feature string `json:"feature"`
	// Statuses and Labels hold the cell of each night (none where the night
	// has no such cell); Red marks the nights it failed the run (a
	// blocking fail or error: a strict-tier failure without --strict is not red).
	Statuses []reportv1.CellStatus `json:"statuses"`
	Labels   []string              `json:"labels"`
	Red      []bool                `json:"red"`
	// FirstRed is the index of the first red night, -1 when never red.
	// RedSince is the index where the red streak that the last night ends
	// began, -1 when the last night is not red.
	FirstRed int `json:"firstRed"`
	RedSince int `json:"redSince"`
	// Flapping: at least two separate red streaks with a pass between
	// them (pass and fail alternating), nights without a verdict aside.
	Flapping bool `json:"flapping"`
}

// ReadinessOver is one client library's readiness over the nights.
type ReadinessOver struct {
	Client string `json:"client"`
	// Verdicts are its readiness each night, oldest first; "" where the
	// night's report has no row for it (an older report, --clients).
	Verdicts []results.Readiness `json:"verdicts"`
}

// NamedReport is a report with the name it was read from.
type NamedReport struct {
	Name   string
	Report *reportv1.Report
}

// BuildHistory lines the nights up by start time (the order given breaks
// ties). Models are the union, sorted; features follow the newest night's
// order, then features only older nights had.
func BuildHistory(nights []NamedReport) *History {
	ns := slices.Clone(nights)
	slices.SortStableFunc(ns, func(a, b NamedReport) int { return a.Report.Metadata.Started.Compare(b.Report.Metadata.Started) })
	h := &History{Nights: []Night{}, Models: allModels(ns), Features: newestFeatures(ns), Cells: []HistoryCell{}}
	for _, n := range ns {
		r := n.Report
		h.Nights = append(h.Nights, Night{Source: n.Name, Started: r.Metadata.Started, SuiteVersion: r.Metadata.SuiteVersion,
			Commit: r.Metadata.Commit, Gateway: r.Metadata.Gateway(), Verdict: r.Verdict, Headline: r.Headline, Total: r.Total})
	}
	labelNights(h.Nights)
	h.Warnings = gatewayWarnings(h.Nights)
	h.ModelLabels = newestLabels(ns)
	for _, m := range h.Models {
		for _, f := range h.Features {
			h.Cells = append(h.Cells, cellOver(ns, m, f))
		}
	}
	h.Readiness = readinessOver(ns)
	return h
}

// readinessOver lines each library's readiness up over the nights, the
// libraries in the newest night's order, then those only older ones had.
func readinessOver(ns []NamedReport) []ReadinessOver {
	var out []ReadinessOver
	at := map[string]int{}
	for i := len(ns) - 1; i >= 0; i-- {
		for _, row := range ns[i].Report.Readiness {
			j, ok := at[row.Client]
			if !ok {
				j = len(out)
				at[row.Client] = j
				out = append(out, ReadinessOver{Client: row.Client, Verdicts: make([]results.Readiness, len(ns))})
			}
			out[j].Verdicts[i] = row.Verdict
		}
	}
	return out
}

// gatewayWarnings says when the nights come from more than one gateway,
// naming each with its nights: a cell's history then compares gateways,
// and a change may be the gateway's, not the night's (diff says so too).
func gatewayWarnings(nights []Night) []string {
	var gateways []string
	count := map[string]int{}
	for _, n := range nights {
		if count[n.Gateway] == 0 {
			gateways = append(gateways, n.Gateway)
		}
		count[n.Gateway]++
	}
	if len(gateways) < 2 {
		return nil
	}
	parts := make([]string, len(gateways))
	for i, g := range gateways {
		// The host, not the URL: the page makes no network reference.
		host := strings.TrimPrefix(strings.TrimPrefix(g, "https://"), "http://")
		parts[i] = fmt.Sprintf("%s (%d %s)", host, count[g], markdown.Plural(count[g], "night", "nights"))
	}
	return []string{fmt.Sprintf("the nights come from %d gateways: %s; a cell's history compares them", len(gateways), strings.Join(parts, ", "))}
}

// allModels returns the models of every night, sorted.
func allModels(ns []NamedReport) []string {
	models, seen := []string{}, map[string]bool{}
	for _, n := range ns {
		for _, m := range n.Report.Models {
			if !seen[m] {
				seen[m] = true
				models = append(models, m)
			}
		}
	}
	slices.Sort(models)
	return models
}

// newestLabels labels each model as the newest night that ran it does
// (reportv1.Metadata.ModelLabel), where that is not the spec id alone.
func newestLabels(ns []NamedReport) map[string]string {
	labels := map[string]string{}
	for _, n := range ns { // oldest first: a newer night's label wins
		for _, m := range n.Report.Models {
			labels[m] = n.Report.Metadata.ModelLabel(m)
		}
	}
	maps.DeleteFunc(labels, func(m, label string) bool { return label == m })
	return labels
}

// newestFeatures returns the features in the newest night's order, then
// those only older nights had, newest first.
func newestFeatures(ns []NamedReport) []string {
	features, seen := []string{}, map[string]bool{}
	for i := len(ns) - 1; i >= 0; i-- {
		for _, f := range ns[i].Report.Features {
			if !seen[f] {
				seen[f] = true
				features = append(features, f)
			}
		}
	}
	return features
}

// cellOver is the history of one model × feature over the nights, judged.
func cellOver(ns []NamedReport, model, feature string) HistoryCell {
	c := HistoryCell{Model: model, Feature: feature, FirstRed: -1, RedSince: -1}
	for _, n := range ns {
		cell, ok := n.Report.Cell(model, feature)
		if !ok {
			cell = reportv1.Cell{Status: reportv1.CellNone, Label: "—"}
		}
		c.Statuses = append(c.Statuses, cell.Status)
		c.Labels = append(c.Labels, cell.Label)
		c.Red = append(c.Red, cell.Blocking)
	}
	c.judge()
	return c
}

// judge derives the first red night, flapping and the current streak.
func (c *HistoryCell) judge() {
	c.judgeStreaks()
	c.RedSince = redSince(c.Red)
}

// judgeStreaks finds the first red night and counts the red streaks: two
// or more, with a pass between them, flap. A night without a verdict
// (skipped, throttled, inconclusive, waived or absent) breaks none.
func (c *HistoryCell) judgeStreaks() {
	streaks := 0
	prevRed := false // whether the last night with a verdict was red
	for i, red := range c.Red {
		if !red && c.Statuses[i] != reportv1.CellPass {
			continue // no verdict
		}
		if red && c.FirstRed < 0 {
			c.FirstRed = i
		}
		if red && !prevRed {
			streaks++
		}
		prevRed = red
	}
	c.Flapping = streaks >= 2
}

// redSince returns where the red streak that the last night ends began,
// -1 when the last night is not red.
func redSince(red []bool) int {
	n := len(red)
	if n == 0 || !red[n-1] {
		return -1
	}
	i := n - 1
	for i > 0 && red[i-1] {
		i--
	}
	return i
}

// labelNights names each night by its date, with the time when two nights
// share a date, by its place when it has no start time, and adds its place
// where two labels are still the same (runs started the same second).
func labelNights(ns []Night) {
	dates := map[string]int{}
	for _, n := range ns {
		dates[n.Started.UTC().Format(time.DateOnly)]++
	}
	labels := map[string]int{}
	for i := range ns {
		n := &ns[i]
		switch d := n.Started.UTC().Format(time.DateOnly); {
		case n.Started.IsZero():
			n.Label = fmt.Sprintf("night %d", i+1)
		case dates[d] > 1:
			n.Label = n.Started.UTC().Format(time.DateTime)
		default:
			n.Label = d
		}
		labels[n.Label]++
	}
	for i := range ns {
		if labels[ns[i].Label] > 1 {
			ns[i].Label += fmt.Sprintf(" (night %d)", i+1)
		}
	}
}

// Cell returns the history of model × feature.
func (h *History) Cell(model, feature string) (HistoryCell, bool) {
	mi, fi := slices.Index(h.Models, model), slices.Index(h.Features, feature)
	if mi < 0 || fi < 0 {
		return HistoryCell{}, false
	}
	return h.Cells[mi*len(h.Features)+fi], true
}

// Flapping returns the cells that flap, in matrix order.
func (h *History) Flapping() []HistoryCell {
	var out []HistoryCell
	for _, c := range h.Cells {
		if c.Flapping {
			out = append(out, c)
		}
	}
	return out
}

//go:embed assets/history.js
var historyJS string

//go:embed assets/history.css
var historyCSS string

// historyPage is history.html: report.html's styles and its own, and the
// same rules (package htmlpage).
var historyPage = htmlpage.New(htmlpage.ReportCSS+historyCSS, historyJS, "history-data", `<p id="facts" class="facts"></p>`,
	"This page is drawn by JavaScript. The same data is in the nights' report.json files.",
	`<section id="nights" class="nights" aria-label="Nights"></section>
<section id="attention" class="attention" aria-label="Red and flapping cells"></section>
<section id="history-wrap" class="matrix-wrap" aria-label="Matrix over nights"></section>
<section id="readiness" class="readiness" aria-label="Client readiness over nights" hidden></section>`)

// WriteHTML writes history.html.
func (h *History) WriteHTML(w io.Writer) error {
	title := "gwconform history"
	if n := len(h.Nights); n > 0 {
		title += ": " + h.Nights[0].Label + " to " + h.Nights[n-1].Label
	}
	return historyPage.Write(w, title, h)
}

// FileHistory is the history page's name in its --out directory.
const FileHistory = "history.html"
