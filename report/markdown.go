package report

import (
	"bufio"
	"cmp"
	"fmt"
	"io"
	"regexp"
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

// maxMDProblems bounds the per-result failure list of matrix.md: a job
// summary is a page to read at a glance, report.html has everything.
const maxMDProblems = 40

// maxMDCauses bounds the causes matrix.md lists, and mdCauseCases the case
// ids a cause's line names before "and N more": one line a defect, read at
// a glance.
const (
	maxMDCauses  = 20
	mdCauseCases = 5
)

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

// WriteMarkdown writes matrix.md: verdict, run facts, the failures by cause
// (then, collapsed, each failure with its first reason), legend, per-tier
// totals, the matrix, the capability map, then what a nightly job reads
// beyond them (nightly_md.go).
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
	// What to fix comes first, on the first screen: one line a cause,
	// where a broken route fills the per-result list with one line a case.
	writeCausesMD(p, r)
	writeReadinessMD(p, r)
	writeClientsMD(p, r)
	writeFailuresMD(p, r)
	writeLegendMD(p)
	writeTotalsMD(p, r)
	if len(r.Results) == 0 {
		p("_No results._\n\n")
		writeUncoveredMD(p, r)
		return b.Flush()
	}
	writeMatrixMD(p, r)
	writeCapabilitiesMD(p, r)
	writeWaiversMD(p, r)
	writeRerunsMD(p, r)
	writeUncoveredMD(p, r)
	return b.Flush()
}

// writeHeadlineMD writes the verdict and its notes, and the run's facts.
func writeHeadlineMD(p func(string, ...any), r *reportv1.Report) {
	p("## %s gwconform: %s\n\n", verdictGlyph[r.Verdict], markdown.Escape(r.Headline))
	for _, n := range r.Notes {
		p("- %s\n", markdown.Escape(n))
	}
	if len(r.Notes) > 0 {
		p("\n")
	}
	p("%s\n\n", factsLine(r))
}

// writeLegendMD says what the glyphs of the totals and the matrix mean.
func writeLegendMD(p func(string, ...any)) {
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

// writeCausesMD lists the failures by cause (report.json's causes), those
// deciding the verdict first: per cause what the gateway did, how many
// results and cells it made fail, its first cases, its example's reason
// and the command that shows the example and prints its curl.
func writeCausesMD(p func(string, ...any), r *reportv1.Report) {
	if len(r.Causes) == 0 {
		return
	}
	deciding := 0
	for _, c := range r.Causes {
		if c.Deciding {
			deciding++
		}
	}
	p("### Failures by cause\n\n")
	p("%d %s the verdict", deciding, markdown.Plural(deciding, "cause decides", "causes decide"))
	if n := len(r.Causes) - deciding; n > 0 {
		p(", %d %s reported only (strict, explore)", n, markdown.Plural(n, "is", "are"))
	}
	p(". Each command shows its example and prints the curl that sends it again: run it in this report's directory.\n\n")
	for i, c := range r.Causes {
		if i == maxMDCauses {
			p("- … and %d more causes: see report.html\n", len(r.Causes)-i)
			break
		}
		p("- %s\n", causeMD(c))
	}
	p("\n")
}

// causeMD is one cause's line: ❌ when it decides the verdict, else 🟠
// and "reported only"; the cause, its counts, its first cases, the
// example's reason and the command that reproduces it.
func causeMD(c reportv1.Cause) string {
	g := cellGlyph[reportv1.CellFail]
	if !c.Deciding {
		g = softFailGlyph + " reported only ·"
	}
	cases := make([]string, len(c.Cases))
	for i, id := range c.Cases {
		cases[i] = "`" + markdown.Code(id) + "`"
	}
	return fmt.Sprintf("%s **%s** · %d %s in %d %s · %s · e.g. %s · `%s`", g, markdown.Escape(c.Cause),
		c.Results, markdown.Plural(c.Results, "result", "results"), c.Cells, markdown.Plural(c.Cells, "cell", "cells"),
		markdown.NameSome(cases, mdCauseCases), markdown.Escape(results.Truncate(c.Example.Reason.String(), 200)),
		markdown.Code(showCommand(c.Example.Case, c.Example.Model)))
}

// showCommand is the command that shows one result and prints a curl
// command sending its request again, run in the report's directory (the
// one report.html's script writes, assets/report.js showCommand). Its
// flags come before the case: flag parsing stops at the first operand.
func showCommand(caseID, model string) string {
	return "gwconform show --out . --model " + shellWord(model) + " --curl " + shellWord(caseID)
}

// plainWordRE matches the words a POSIX shell reads as they are.
var plainWordRE = regexp.MustCompile(`^[A-Za-z0-9._/-]+$`)

// shellWord quotes w for a POSIX shell when it needs it: catalog ids
// never do, and read best bare.
func shellWord(w string) string {
	if plainWordRE.MatchString(w) {
		return w
	}
	return "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
}

// writeFailuresMD lists the first failed, throttled and inconclusive
// results with their first reason, collapsed: the causes above say what
// to fix, this is the detail behind them.
func writeFailuresMD(p func(string, ...any), r *reportv1.Report) {
	probs := problems(r)
	if len(probs) == 0 {
		return
	}
	// GitHub renders Markdown inside <details> only after a blank line.
	p("<details><summary>Each result that failed or was not checked (%d), one line each</summary>\n\n", len(probs))
	for i, res := range probs {
		if i == maxMDProblems {
			p("- … and %d more: see report.html\n", len(probs)-i)
			break
		}
		p("- %s\n", failureMD(res, r.Metadata.Strict))
	}
	p("\n</details>\n\n")
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
		parts = append(parts, "gateway: "+m.Gateway())
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

// writeClientsMD lists, for observed traffic, what each client's requests
// came to: the rules they broke and the notes on what they did beyond the
// verified rows, one line a row with its count and an example.
func writeClientsMD(p func(string, ...any), r *reportv1.Report) {
	if len(r.Clients) == 0 {
		return
	}
	p("### Clients\n\n")
	for _, c := range r.Clients {
		p("**%s**: %d requests, %d broke no rule\n\n", markdown.Escape(c.Client), c.Requests, c.Conforming)
		for _, b := range c.Breaches {
			p("- breaks `%s` %d× (e.g. `%s`): %s\n", markdown.Code(b.Row), b.Count, markdown.Code(b.Example), markdown.Escape(results.Truncate(b.Said, 200)))
		}
		for _, n := range c.Notes {
			p("- note `%s` %d× (e.g. `%s`): %s\n", markdown.Code(n.Row), n.Count, markdown.Code(n.Example), markdown.Escape(results.Truncate(n.Said, 200)))
		}
		p("\n")
	}
}

// maxMDBecause bounds the reasons matrix.md gives for one library's
// verdict; report.json and report.html carry every one.
const maxMDBecause = 3

var readinessGlyph = map[results.Readiness]string{
	results.ReadyYes: "✅", results.ReadyLimited: "⚠️", results.ReadyNot: "❌", results.ReadyUnknown: "❔",
}

// writeReadinessMD writes each client library's readiness, one row a
// library with its features (* the basic path), then why each one that
// is not READY is not, citing the check and the library's dependency.
func writeReadinessMD(p func(string, ...any), r *reportv1.Report) {
	if len(r.Readiness) == 0 {
		return
	}
	p("### Client readiness\n\nWill these libraries work against the gateway? From the answer properties each depends on (cases/clients/clients.yaml); reported, not deciding. * marks a library's basic path.\n\n")
	p("| library | readiness | features |\n|---|---|---|\n")
	for _, c := range r.Readiness {
		p("| %s | %s %s | %s |\n", markdown.Escape(c.Client), readinessGlyph[c.Verdict], c.Verdict.Label(), markdown.Escape(c.FeatureLine()))
	}
	p("\n")
	for _, c := range r.Readiness {
		for i, b := range c.Because {
			if i == maxMDBecause {
				p("  - … and %d more: see report.json\n", len(c.Because)-i)
				break
			}
			if i == 0 {
				p("- **%s** %s:\n", markdown.Escape(c.Client), c.Verdict.Label())
			}
			p("  - %s\n", markdown.Escape(results.Truncate(b, 400)))
		}
	}
	p("\n")
}
