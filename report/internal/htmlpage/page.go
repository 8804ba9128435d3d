// Package htmlpage makes the report's pages (report.html of package
// report, history.html of package runs), each one file that works offline
// and from a CI artefact:
//
//   - The skeleton is an html/template; the page's data goes in as the value
//     of a <script type="application/json"> block, which html/template
//     JSON-encodes with <, > and & escaped, so no gateway text can close the
//     block. The page script reads it with JSON.parse and builds the DOM with
//     createElement/textContent only (never innerHTML, see assets/dom.js),
//     so gateway text is never parsed as markup.
//   - CSS and JS are embedded from assets/ and inlined.
//   - A Content-Security-Policy allows nothing but the page's own script and
//     style (pinned by SHA-256) and data: images: even a bug that let markup
//     through could neither run it nor load anything from the network.
//   - Thumbnails are data: URLs, checked by Build (package report, sanitize.go).
package htmlpage

import (
	"crypto/sha256"
	_ "embed"
	"encoding/base64"
	"html/template"
	"io"
)

// ReportCSS is report.html's style, which history.html extends.
//
//go:embed assets/report.css
var ReportCSS string

// domJS are the DOM helpers every page script runs after.
//
//go:embed assets/dom.js
var domJS string

// Page is one of those pages: its style, its script (after the shared DOM
// helpers), the id of its data block, and its static markup, all constants
// of the package that makes it.
type Page struct {
	css, js  string
	dataID   string
	header   template.HTML // inside <header>, after the title
	noscript string
	main     template.HTML // the sections the script fills
	csp      string
}

// New makes a page of a style, a script, the id of the data block the
// script reads, the markup after the title, the text shown without
// JavaScript, and the sections the script fills.
func New(css, script, dataID string, header template.HTML, noscript string, main template.HTML) Page {
	js := domJS + "\n" + script
	return Page{css: css, js: js, dataID: dataID, header: header, noscript: noscript, main: main,
		csp: "default-src 'none'; img-src data:; style-src " + cspHash(css) +
			"; script-src " + cspHash(js) + "; base-uri 'none'; form-action 'none'"}
}

// cspHash returns the CSP source expression for an inline block.
func cspHash(s string) string {
	h := sha256.Sum256([]byte(s))
	return "'sha256-" + base64.StdEncoding.EncodeToString(h[:]) + "'"
}

var pageTmpl = template.Must(template.New("page").Parse(`<!DOCTYPE html>
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
{{.Header}}
</header>
<noscript><p class="noscript">{{.Noscript}}</p></noscript>
<main>
{{.Main}}
</main>
<script type="application/json" id="{{.DataID}}">{{.Data}}</script>
<script>{{.JS}}</script>
</body>
</html>
`))

// Write renders the page with its title and data.
func (p Page) Write(w io.Writer, title string, data any) error {
	return pageTmpl.Execute(w, struct {
		Title, CSP, Noscript, DataID string
		CSS                          template.CSS
		JS                           template.JS
		Header, Main                 template.HTML
		Data                         any
	}{
		Title: title, CSP: p.csp, Noscript: p.noscript, DataID: p.dataID,
		CSS:    template.CSS(p.css), // constants of the package that made p
		JS:     template.JS(p.js),
		Header: p.header, Main: p.main,
		Data: data,
	})
}
