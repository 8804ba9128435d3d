package report

import (
	"bufio"
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/gwconform/gwconform/conformance/results"
	"github.com/gwconform/gwconform/conformance/vocab"
	reportv1 "github.com/gwconform/gwconform/report/apis/v1"
	"github.com/gwconform/gwconform/report/markdown"
)

// Glyphs of the Markdown matrix. Emoji are one column wide in GitHub's
// renderer and readable without colour, which a job summary does not offer.
var cellGlyph = map[reportv1.CellStatus]string{
	reportv1.CellPass:         "✅",
	reportv1.CellFail:         "❌",
	reportv1.CellError:        "💥",
	reportv1.CellThrottled:    "⏳",
	reportv1.CellInconclusive: "❔",
	reportv1.CellWaived:       "🔕",
	reportv1.CellUnsupported:  "⛔",
	reportv1.CellSkip:         "⏭️",
	reportv1.CellNotOffered:   "🚫 not offered",
	reportv1.CellNone:         "—",
}

// softFailGlyph marks a failing cell none of whose failures decides the exit
// code (strict tier without --strict, explore tier).
const softFailGlyph = "🟠"

// maxMDProblems bounds the failure list of matrix.md: a job summary is a page
// to read at a glance, report.html has everything.
const maxMDProblems = 40

// cellMD renders a cell for matrix.md: a glyph, "k/n" (k of the n cases
// that ran passed, the same count in every cell) when not all passed, "*"
// when a pass needed a retry.
func cellMD(c reportv1.Cell) string {
	g := cellGlyph[c.Status]
	if c.Status == reportv1.CellFail && !c.Blocking {
		g = softFailGlyph
	}
	if c.Run > 0 && c.Counts.Pass < c.Run && c.Status != reportv1.CellUnsupported && c.Status != reportv1.CellSkip {
		g += fmt.Sprintf(" %d/%d", c.Counts.Pass, c.Run)
	}
	if c.Counts.Flaky > 0 && c.Status == reportv1.CellPass {
		g += "*"
	}
	return g
}

// verdictGlyph marks the headline; an incomplete run is neither green nor red.
var verdictGlyph = map[string]string{"pass": "✅", "fail": "❌", "incomplete": "⚠️", "no-verdict": "ℹ️"}

// WriteMarkdown writes matrix.md: verdict, run facts, legend, per-tier totals,
// the matrix, the capability map, the first failures with their first
// reason, then what a nightly job reads beyond them (nightly_md.go).
//
// Layout choice: ~30 features do not fit as columns of one table in a job
// summary, and most cells of such a table would be "—" (image features do not
// apply to text models). So the matrix is one table per feature group (chat,
// messages, images.generate, images.edit, ...), transposed: features are rows
// (long names read well in the first column) and the columns are only the
// models that have cases in that group (usually a handful), which keeps every
// table narrow and dense. report.html shows the full models × features grid.
func WriteMarkdown(w io.Writer, r *reportv1.Report) error {
	b := bufio.NewWriter(w)
	p := func(format string, a ...any) { fmt.Fprintf(b, format, a...) }
	writeHeadlineMD(p, r)
	writeTotalsMD(p, r)
	if len(r.Results) == 0 {
		p("_No results._\n\n")
		writeUncoveredMD(p, r)
		return b.Flush()
	}
	writeMatrixMD(p, r)
	writeCapabilitiesMD(p, r)
	writeFailuresMD(p, r)
	writeWaiversMD(p, r)
	writeRerunsMD(p, r)
	writeUncoveredMD(p, r)
	return b.Flush()
}

// writeHeadlineMD writes the verdict and its notes, the run's facts and
// the legend.
func writeHeadlineMD(p func(string, ...any), r *reportv1.Report) {
	p("## %s gwconform: %s\n\n", verdictGlyph[r.Verdict], markdown.Escape(r.Headline))
	for _, n := range r.Notes {
		p("- %s\n", markdown.Escape(n))
	}
	if len(r.Notes) > 0 {
		p("\n")
	}
	p("%s\n\n", factsLine(r))

	p("**Legend:** k/n: k of the n cases that ran passed (the same count in every cell) · ✅ pass · ❌ fail (fails the run) · %s fail in strict/explore cases only (reported) · "+
		"💥 error (the run broke, not the gateway) · ⏳ throttled · ❔ inconclusive (a refusal whose control was not served: not checked) · 🔕 waived (a known deviation, see below) · ⛔ unsupported (explore: declined) · ⏭️ skipped · 🚫 not offered (--offers: nothing sent) · — no cases · "+
		"`*` passed after a retry\n\n", softFailGlyph)
}

// writeTotalsMD writes the counts per tier and over all.
func writeTotalsMD(p func(string, ...any), r *reportv1.Report) {
	p("| tier | ✅ pass | ❌ fail | 💥 error | ⏭️ skip | ⛔ unsupported | ⏳ throttled | ❔ inconclusive | 🔕 waived | total | decides exit code |\n")
	p("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n")
	for _, t := range r.Totals {
		c := t.Counts
		p("| %s | %d | %d | %d | %d | %d | %d | %d | %d | %d | %s |\n", markdown.Escape(string(t.Tier)), c.Pass, c.Fail, c.Error, c.Skip, c.Unsupported, c.Throttled, c.Inconclusive, c.Waived, c.Total, yesNo(t.Decides))
	}
	c := r.Total
	p("| **all** | **%d** | **%d** | **%d** | **%d** | **%d** | **%d** | **%d** | **%d** | **%d** | |\n\n", c.Pass, c.Fail, c.Error, c.Skip, c.Unsupported, c.Throttled, c.Inconclusive, c.Waived, c.Total)
}

// writeMatrixMD writes the matrix: one table per feature group with any
// cell, features as rows, the group's models as columns.
func writeMatrixMD(p func(string, ...any), r *reportv1.Report) {
	explore := exploreFeatures(r)
	for _, g := range featureGroups(r.Features) {
		models := groupModels(r, g)
		if len(models) == 0 {
			continue
		}
		p("### %s\n\n| feature |", markdown.Escape(g.Name))
		for _, m := range models {
			p(" %s |", markdown.Escape(r.Metadata.ModelLabel(m)))
		}
		p("\n|---|%s\n", strings.Repeat(":---:|", len(models)))
		for _, f := range g.Features {
			p("| `%s`%s |", markdown.Code(f), exploreMark(explore[f]))
			for _, m := range models {
				cell, _ := r.Cell(m, f)
				p(" %s |", cellMD(cell))
			}
			p("\n")
		}
		p("\n")
	}
}

// groupModels returns the models with a case of some feature of the group.
func groupModels(r *reportv1.Report, g featureGroup) []string {
	var models []string
	for _, m := range r.Models {
		for _, f := range g.Features {
			if cell, _ := r.Cell(m, f); cell.Status != reportv1.CellNone {
				models = append(models, m)
				break
			}
		}
	}
	return models
}

// writeFailuresMD lists the first failures with their first reason.
func writeFailuresMD(p func(string, ...any), r *reportv1.Report) {
	probs := problems(r)
	if len(probs) == 0 {
		return
	}
	p("### Failures\n\n")
	for i, res := range probs {
		if i == maxMDProblems {
			p("- … and %d more: see report.html\n", len(probs)-i)
			break
		}
		p("- %s\n", failureMD(res, r.Metadata.Strict))
	}
	p("\n")
}

// problems are the results to list as failures, first by weight: those
// that fail the run, then the rest (throttled and inconclusive results too:
// they leave the run incomplete).
func problems(r *reportv1.Report) []results.Result {
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
	return probs
}

// failureMD is one failure's line: its glyph, model, feature, case and tier,
// its first reason (how many more) and the gateway's request id.
func failureMD(res results.Result, strict bool) string {
	g := cellGlyph[reportv1.CellStatus(res.Status)]
	if res.Status == vocab.StatusFail && !res.Decides(strict) {
		g = softFailGlyph
	}
	why := cmp.Or(res.FirstReason(), "no reason recorded")
	if res.RequestID != "" {
		why += " [request id " + res.RequestID + "]"
	}
	return fmt.Sprintf("%s **%s** · `%s` · `%s` (%s): %s", g, markdown.Escape(res.Model), markdown.Code(res.Feature), markdown.Code(res.Case), markdown.Escape(string(res.Tier)), markdown.Escape(results.Truncate(why, 400)))
}

// factsLine is the one-line summary of the run.
func factsLine(r *reportv1.Report) string {
	m := r.Metadata
	var parts []string
	if m.SuiteVersion != "" {
		parts = append(parts, "suite "+markdown.Escape(m.SuiteVersion))
	}
	if m.Commit != "" {
		parts = append(parts, "commit `"+markdown.Code(markdown.Short(m.Commit, 12))+"`")
	}
	if m.CatalogHash != "" {
		parts = append(parts, "catalog `"+markdown.Code(markdown.Short(m.CatalogHash, 12))+"`")
	}
	if m.BaseURL != "" {
		parts = append(parts, "gateway `"+markdown.Code(m.BaseURL)+"`")
	} else {
		parts = append(parts, "gateway: "+reportv1.ReferenceGateway)
	}
	if len(m.Offers) > 0 {
		parts = append(parts, "offers `"+markdown.Code(strings.Join(m.Offers, ","))+"`")
	}
	if m.Shard != "" {
		parts = append(parts, "shard "+markdown.Escape(m.Shard))
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
		parts = append(parts, "recorded to `"+markdown.Code(m.Recording)+"`")
	}
	parts = append(parts, fmt.Sprintf("%d models × %d features, %d results", len(r.Models), len(r.Features), r.Total.Total))
	parts = append(parts, describeCost(r.Cost))
	return strings.Join(parts, " · ")
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
