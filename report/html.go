package report

import (
	"crypto/sha256"
	_ "embed"
	"encoding/base64"
	"html/template"
	"io"
)

// report.html is one file that works offline and from a CI artefact:
//
//   - The page skeleton is an html/template; the report itself goes in as the
//     value of a <script type="application/json"> block, which html/template
//     JSON-encodes with <, > and & escaped, so no gateway text can close the
//     block. The page script reads it with JSON.parse and builds the DOM with
//     createElement/textContent only (never innerHTML), so gateway text is
//     never parsed as markup.
//   - CSS and JS are embedded from assets/ and inlined.
//   - A Content-Security-Policy allows nothing but this page's own script and
//     style (pinned by SHA-256) and data: images: even a bug that let markup
//     through could neither run it nor load anything from the network.
//   - Thumbnails are data: URLs, checked by Build (sanitize.go).

//go:embed assets/report.css
var reportCSS string

//go:embed assets/report.js
var reportJS string

var htmlTmpl = template.Must(template.New("report.html").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{{.CSP}}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<meta name="generator" content="gwconform">
<title>{{.Title}}</title>
<link rel="icon" href="data:,">
<style>{{.CSS}}</style>
</head>
<body>
<header class="top">
<h1 id="title">{{.Title}}</h1>
<div id="headline" class="headline"></div>
<p id="facts" class="facts"></p>
</header>
<noscript><p class="noscript">This report is drawn by JavaScript. The same data is in report.json and matrix.md.</p></noscript>
<main>
<section id="summary" class="summary" aria-label="Totals per tier"></section>
<section id="controls" class="controls" aria-label="Filters"></section>
<section id="matrix-wrap" class="matrix-wrap" aria-label="Capability matrix"></section>
<section id="detail" class="detail" aria-live="polite" hidden></section>
<section id="capabilities" class="capabilities" aria-label="Capability map (explore)" hidden></section>
<section id="problems" class="problems" aria-label="Failures"></section>
<section id="nightly" class="nightly" aria-label="Known deviations, re-runs and models no case covers" hidden></section>
</main>
<script type="application/json" id="report-data">{{.Data}}</script>
<script>{{.JS}}</script>
</body>
</html>
`))

// htmlData is the JSON the page script reads.
type htmlData struct {
	Report *Report         `json:"report"`
	Groups []featureGroup  `json:"groups"`
	Decide map[string]bool `json:"decides"` // tier → decides the exit code
}

// cspHash returns the CSP source expression for an inline block.
func cspHash(s string) string {
	h := sha256.Sum256([]byte(s))
	return "'sha256-" + base64.StdEncoding.EncodeToString(h[:]) + "'"
}

// csp is the page's Content-Security-Policy: no network, no other script.
var csp = "default-src 'none'; img-src data:; style-src " + cspHash(reportCSS) +
	"; script-src " + cspHash(reportJS) + "; base-uri 'none'; form-action 'none'"

// WriteHTML writes report.html.
func (r *Report) WriteHTML(w io.Writer) error {
	title := "gwconform report: " + r.Verdict
	if r.Metadata.SuiteVersion != "" {
		title += " (" + r.Metadata.SuiteVersion + ")"
	}
	dec := map[string]bool{}
	for _, t := range r.Totals {
		dec[string(t.Tier)] = t.Decides
	}
	return htmlTmpl.Execute(w, struct {
		Title string
		CSP   string
		CSS   template.CSS
		JS    template.JS
		Data  htmlData
	}{
		Title: title,
		CSP:   csp,
		CSS:   template.CSS(reportCSS), // a constant of this package
		JS:    template.JS(reportJS),   // a constant of this package
		Data:  htmlData{Report: r, Groups: featureGroups(r.Features), Decide: dec},
	})
}
