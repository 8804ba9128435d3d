package report

import (
	_ "embed"
	"io"

	reportv1 "github.com/gwconform/gwconform/report/apis/v1"
	"github.com/gwconform/gwconform/report/internal/htmlpage"
)

//go:embed assets/report.js
var reportJS string

// reportPage is report.html (package htmlpage says how its pages are safe).
var reportPage = htmlpage.New(htmlpage.ReportCSS, reportJS, "report-data", `<div id="headline" class="headline"></div>
<p id="facts" class="facts"></p>`,
	"This report is drawn by JavaScript. The same data is in report.json and matrix.md.",
	`<section id="causes" class="causes" aria-label="Failures by cause" hidden></section>`+
		`<section id="readiness" class="readiness" aria-label="Client readiness" hidden></section>`+
		`<section id="clients" class="clients" aria-label="Clients" hidden></section>
<section id="summary" class="summary" aria-label="Totals per tier"></section>
<section id="controls" class="controls" aria-label="Filters"></section>
<section id="matrix-wrap" class="matrix-wrap" aria-label="Capability matrix"></section>
<section id="detail" class="detail" aria-live="polite" hidden></section>
<section id="problems" class="problems" aria-label="Each failure"></section>
<section id="capabilities" class="capabilities" aria-label="Capability map (explore)" hidden></section>
<section id="nightly" class="nightly" aria-label="Known deviations, re-runs and models no case covers" hidden></section>`)

// htmlData is the JSON the page script reads.
type htmlData struct {
	Report *reportv1.Report `json:"report"`
	Groups []featureGroup   `json:"groups"`
	Decide map[string]bool  `json:"decides"` // tier → decides the exit code
	// Explore are the features whose results are all explore: marked so.
	Explore map[string]bool `json:"explore"`
	// ModelLabels head the rows of the models sent under another id
	// ("gen-5.5 → gpt-5.5"); the page keys everything else by the spec id.
	ModelLabels map[string]string `json:"modelLabels"`
}

// WriteHTML writes report.html.
func WriteHTML(w io.Writer, r *reportv1.Report) error {
	title := "gwconform report: " + r.Verdict
	if r.Metadata.SuiteVersion != "" {
		title += " (" + r.Metadata.SuiteVersion + ")"
	}
	dec := map[string]bool{}
	for _, t := range r.Totals {
		dec[string(t.Tier)] = t.Decides
	}
	labels := map[string]string{}
	for _, m := range r.Models {
		if l := r.Metadata.ModelLabel(m); l != m {
			labels[m] = l
		}
	}
	return reportPage.Write(w, title, htmlData{Report: r, Groups: featureGroups(r.Features), Decide: dec, Explore: exploreFeatures(r), ModelLabels: labels})
}
