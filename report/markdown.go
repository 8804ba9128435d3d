package report

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/gwconform/gwconform/conformance/results"
	"github.com/gwconform/gwconform/conformance/vocab"
)

// Glyphs of the Markdown matrix. Emoji are one column wide in GitHub's
// renderer and readable without colour, which a job summary does not offer.
var cellGlyph = map[CellStatus]string{
	CellPass:         "✅",
	CellFail:         "❌",
	CellError:        "💥",
	CellThrottled:    "⏳",
	CellInconclusive: "❔",
	CellWaived:       "🔕",
	CellUnsupported:  "⛔",
	CellSkip:         "⏭️",
	CellNone:         "—",
}

// softFailGlyph marks a failing cell none of whose failures decides the exit
// code (strict tier without --strict, explore tier).
const softFailGlyph = "🟠"

// maxMDProblems bounds the failure list of matrix.md: a job summary is a page
// to read at a glance, report.html has everything.
const maxMDProblems = 40

// glyph renders a cell for matrix.md: a glyph, "k/n" (k of the n cases
// that ran passed, the same count in every cell) when not all passed, "*"
// when a pass needed a retry.
func (c Cell) glyph() string {
	g := cellGlyph[c.Status]
	if c.Status == CellFail && !c.Blocking {
		g = softFailGlyph
	}
	if c.Run > 0 && c.Counts.Pass < c.Run && c.Status != CellUnsupported && c.Status != CellSkip {
		g += fmt.Sprintf(" %d/%d", c.Counts.Pass, c.Run)
	}
	if c.Counts.Flaky > 0 && c.Status == CellPass {
		g += "*"
	}
	return g
}

// WriteMarkdown writes matrix.md: verdict, run facts, legend, per-tier totals,
// the matrix, and the first failures with their first reason.
//
// Layout choice: ~30 features do not fit as columns of one table in a job
// summary, and most cells of such a table would be "—" (image features do not
// apply to text models). So the matrix is one table per feature group (chat,
// messages, images.generate, images.edit, ...), transposed: features are rows
// (long names read well in the first column) and the columns are only the
// models that have cases in that group (usually a handful), which keeps every
// table narrow and dense. report.html shows the full models × features grid.
// verdictGlyph marks the headline; an incomplete run is neither green nor red.
var verdictGlyph = map[string]string{"pass": "✅", "fail": "❌", "incomplete": "⚠️", "no-verdict": "ℹ️"}

func (r *Report) WriteMarkdown(w io.Writer) error {
	b := bufio.NewWriter(w)
	p := func(format string, a ...any) { fmt.Fprintf(b, format, a...) }

	p("## %s gwconform: %s\n\n", verdictGlyph[r.Verdict], mdEscape(r.Headline))
	for _, n := range r.Notes {
		p("- %s\n", mdEscape(n))
	}
	if len(r.Notes) > 0 {
		p("\n")
	}
	p("%s\n\n", r.factsLine())

	p("**Legend:** k/n: k of the n cases that ran passed (the same count in every cell) · ✅ pass · ❌ fail (fails the run) · %s fail in strict/explore cases only (reported) · "+
		"💥 error (the run broke, not the gateway) · ⏳ throttled · ❔ inconclusive (a refusal whose control was not served: not checked) · 🔕 waived (a known deviation, see below) · ⛔ unsupported (explore: declined) · ⏭️ skipped · — no cases · "+
		"`*` passed after a retry\n\n", softFailGlyph)

	p("| tier | ✅ pass | ❌ fail | 💥 error | ⏭️ skip | ⛔ unsupported | ⏳ throttled | ❔ inconclusive | 🔕 waived | total | decides exit code |\n")
	p("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n")
	for _, t := range r.Totals {
		c := t.Counts
		p("| %s | %d | %d | %d | %d | %d | %d | %d | %d | %d | %s |\n", mdEscape(string(t.Tier)), c.Pass, c.Fail, c.Error, c.Skip, c.Unsupported, c.Throttled, c.Inconclusive, c.Waived, c.Total, yesNo(t.Decides))
	}
	c := r.Total
	p("| **all** | **%d** | **%d** | **%d** | **%d** | **%d** | **%d** | **%d** | **%d** | **%d** | |\n\n", c.Pass, c.Fail, c.Error, c.Skip, c.Unsupported, c.Throttled, c.Inconclusive, c.Waived, c.Total)

	if len(r.Results) == 0 {
		p("_No results._\n\n")
		r.writeUncoveredMD(p)
		return b.Flush()
	}

	explore := r.exploreFeatures()
	for _, g := range featureGroups(r.Features) {
		var models []string
		for _, m := range r.Models {
			for _, f := range g.Features {
				if cell, _ := r.Cell(m, f); cell.Status != CellNone {
					models = append(models, m)
					break
				}
			}
		}
		if len(models) == 0 {
			continue
		}
		p("### %s\n\n| feature |", mdEscape(g.Name))
		for _, m := range models {
			p(" %s |", mdEscape(m))
		}
		p("\n|---|%s\n", strings.Repeat(":---:|", len(models)))
		for _, f := range g.Features {
			p("| `%s`%s |", mdCode(f), exploreMark(explore[f]))
			for _, m := range models {
				cell, _ := r.Cell(m, f)
				p(" %s |", cell.glyph())
			}
			p("\n")
		}
		p("\n")
	}

	r.writeCapabilitiesMD(p)

	// Failures first by weight: those that fail the run, then the rest
	// (throttled and inconclusive results too: they leave the run incomplete).
	var probs []results.Result
	for _, res := range r.Results {
		if res.Failed() || res.Status == vocab.StatusThrottled || res.Status == vocab.StatusInconclusive {
			probs = append(probs, res)
		}
	}
	slices.SortStableFunc(probs, func(a, b results.Result) int {
		ka, kb := a.FailsRun(r.Metadata.Strict), b.FailsRun(r.Metadata.Strict)
		switch {
		case ka && !kb:
			return -1
		case kb && !ka:
			return 1
		}
		return 0
	})
	if len(probs) > 0 {
		p("### Failures\n\n")
		for i, res := range probs {
			if i == maxMDProblems {
				p("- … and %d more: see report.html\n", len(probs)-i)
				break
			}
			g := cellGlyph[CellStatus(res.Status)]
			if res.Status == vocab.StatusFail && !res.Decides(r.Metadata.Strict) {
				g = softFailGlyph
			}
			why := "no reason recorded"
			if len(res.Reasons) > 0 {
				why = res.Reasons[0].String()
				if len(res.Reasons) > 1 {
					why += fmt.Sprintf(" (+%d more)", len(res.Reasons)-1)
				}
			}
			if res.RequestID != "" {
				why += " [request id " + res.RequestID + "]"
			}
			p("- %s **%s** · `%s` · `%s` (%s): %s\n", g, mdEscape(res.Model), mdCode(res.Feature), mdCode(res.Case), mdEscape(string(res.Tier)), mdEscape(results.Truncate(why, 400)))
		}
		p("\n")
	}
	r.writeWaiversMD(p)
	r.writeRerunsMD(p)
	r.writeUncoveredMD(p)
	return b.Flush()
}

// factsLine is the one-line summary of the run.
func (r *Report) factsLine() string {
	m := r.Metadata
	var parts []string
	if m.SuiteVersion != "" {
		parts = append(parts, "suite "+mdEscape(m.SuiteVersion))
	}
	if m.Commit != "" {
		parts = append(parts, "commit `"+mdCode(short(m.Commit, 12))+"`")
	}
	if m.CatalogHash != "" {
		parts = append(parts, "catalog `"+mdCode(short(m.CatalogHash, 12))+"`")
	}
	if m.BaseURL != "" {
		parts = append(parts, "gateway `"+mdCode(m.BaseURL)+"`")
	} else {
		parts = append(parts, "gateway: "+ReferenceGateway)
	}
	if m.Shard != "" {
		parts = append(parts, "shard "+mdEscape(m.Shard))
	}
	if !m.Started.IsZero() {
		s := "started " + m.Started.UTC().Format(time.RFC3339)
		if m.Finished.After(m.Started) {
			s += ", took " + m.Finished.Sub(m.Started).Round(time.Second).String()
		}
		parts = append(parts, s)
	}
	if m.Strict {
		parts = append(parts, "--strict")
	}
	if m.Recording != "" {
		parts = append(parts, "recorded to `"+mdCode(m.Recording)+"`")
	}
	parts = append(parts, fmt.Sprintf("%d models × %d features, %d results", len(r.Models), len(r.Features), r.Total.Total))
	parts = append(parts, r.Cost.describe())
	return strings.Join(parts, " · ")
}

// mdEscape makes gateway text inert in Markdown: no table breaks, no HTML, no
// links, mentions or emphasis, one line.
func mdEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch r {
		case '\n', '\r', '\t':
			b.WriteByte(' ')
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		case '&':
			b.WriteString("&amp;")
		case '\\', '`', '*', '_', '[', ']', '|', '#', '~', '@':
			// [ ] stop links (so parentheses need nothing), # stops
			// issue references, @ stops mentions, the rest emphasis,
			// code and table breaks.
			b.WriteByte('\\')
			b.WriteRune(r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// mdCode makes s safe inside a `code span` in a table: no backticks, pipes or
// newlines (GitHub splits table cells on | even inside code).
func mdCode(s string) string {
	return strings.NewReplacer("`", "'", "|", "¦", "\n", " ", "\r", " ").Replace(s)
}

func short(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// exploreMark marks a feature whose cases are all explore: it discovers,
// and cannot fail a run.
func exploreMark(explore bool) string {
	if explore {
		return " _(explore: never fails the run)_"
	}
	return ""
}
