package runs

import (
	"bufio"
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/gwconform/gwconform/conformance/results"
	reportv1 "github.com/gwconform/gwconform/report/apis/v1"
	"github.com/gwconform/gwconform/report/markdown"
)

// WriteMarkdown writes the diff for a PR comment or job summary: the
// headline, the two runs, the regressions by cause, the fixes, the lost
// coverage and other changes, and what came and went.
func (d Diff) WriteMarkdown(w io.Writer) error {
	m := diffMD{bufio.NewWriter(w)}
	m.headline(d)
	m.runs(d)
	if d.Empty() {
		m.p("No changes.\n")
		return m.b.Flush()
	}
	m.byCause("❌ Regressions", d.Regressions)
	m.byCause("🟠 Regressions in strict/explore cases (reported only)", d.SoftRegressions)
	m.table("✅ Fixes", d.Fixes, false)
	m.table("🕳️ Lost coverage: passed, now skipped, throttled, inconclusive, key-rejected or waived", d.LostCoverage, true)
	m.table("Other status changes", d.Changed, true)
	m.list("New models", d.NewModels)
	m.list("Removed models", d.RemovedModels)
	m.list("New features", d.NewFeatures)
	m.list("Removed features", d.RemovedFeatures)
	if d.NewCases+d.RemovedCases > 0 {
		m.p("Case × model results: %d new, %d removed.\n", d.NewCases, d.RemovedCases)
	}
	return m.b.Flush()
}

// diffMD writes a diff's Markdown, section by section.
type diffMD struct{ b *bufio.Writer }

func (m diffMD) p(format string, a ...any) { fmt.Fprintf(m.b, format, a...) }

// headline says whether anything regressed, or the night was incomplete.
func (m diffMD) headline(d Diff) {
	switch {
	case d.HasRegressions():
		m.p("## ❌ gwconform diff: %d %s\n\n", len(d.Regressions), markdown.Plural(len(d.Regressions), "regression", "regressions"))
	case d.New.Incomplete():
		m.p("## ⚠️ gwconform diff: no regressions, but the night was incomplete\n\n")
	default:
		m.p("## ✅ gwconform diff: no regressions\n\n")
	}
}

// runs names the two runs, first saying so when they judged different
// gateways, and what an incomplete night, on either side, could not check:
// it is neither a regression nor green.
func (m diffMD) runs(d Diff) {
	if d.Old.Gateway != d.New.Gateway {
		m.p("**The two runs judged different gateways:** `%s` before, `%s` now. A change may be the gateway's, not a regression.\n\n",
			markdown.Code(d.Old.Gateway), markdown.Code(d.New.Gateway))
	}
	if d.OfferChanged() {
		m.p("**The declared offer changed:** `%s` before, `%s` now. A feature offered on one side only is no regression or fix of the gateway.\n\n",
			markdown.Code(offerText(d.Old.Offers)), markdown.Code(offerText(d.New.Offers)))
	}
	if changes := d.NameChanges(); len(changes) > 0 {
		m.p("**The model names changed:** a model sent under another id may be another model; a change of its cells may be that, not the gateway.\n")
		for _, c := range changes {
			m.p("- %s: %s → %s\n", markdown.Escape(c.New.Spec), markdown.Escape(nameText(c.Old)), markdown.Escape(nameText(c.New)))
		}
		m.p("\n")
	}
	m.p("%s → %s\n\n", d.Old.describe(), d.New.describe())
	m.incomplete("This night", d.New)
	m.incomplete("The previous night", d.Old)
}

// incomplete says what an incomplete night could not check.
func (m diffMD) incomplete(name string, s Snapshot) {
	if !s.Incomplete() {
		return
	}
	m.p("**%s was incomplete:** %s\n", name, markdown.Escape(s.Headline))
	for _, n := range s.Notes {
		m.p("- %s\n", markdown.Escape(n))
	}
	m.p("\n")
}

// table lists changes, with the new result's first reason if withReason.
func (m diffMD) table(title string, l []Change, withReason bool) {
	if len(l) == 0 {
		return
	}
	m.p("### %s (%d)\n\n", title, len(l))
	if withReason {
		m.p("| model | feature | case | tier | was | now | reason |\n|---|---|---|---|---|---|---|\n")
	} else {
		m.p("| model | feature | case | tier | was | now |\n|---|---|---|---|---|---|\n")
	}
	for _, c := range l {
		cs := "_(cell)_"
		if c.Case != "" {
			cs = "`" + markdown.Code(c.Case) + "`"
		}
		m.p("| %s | `%s` | %s | %s | %s | %s |", markdown.Escape(c.Model), markdown.Code(c.Feature), cs, markdown.Escape(string(c.Tier)), markdown.Escape(c.Old), markdown.Escape(c.New))
		if withReason {
			m.p(" %s |", markdown.Escape(results.Truncate(c.Reason, 200)))
		}
		m.p("\n")
	}
	m.p("\n")
}

// byCause lists changes one line per cause, with their results, cells and
// first cases and an example, then every change beneath, folded.
func (m diffMD) byCause(title string, l []Change) {
	if len(l) == 0 {
		return
	}
	groups := groupChanges(l)
	m.p("### %s (%d, %d %s)\n\n", title, len(l), len(groups), markdown.Plural(len(groups), "cause", "causes"))
	for _, g := range groups {
		m.p("- **%s**: %d %s in %d %s: %s\n  e.g. %s × %s: %s\n", markdown.Escape(g.cause), len(g.changes), markdown.Plural(len(g.changes), "result", "results"),
			g.cells, markdown.Plural(g.cells, "cell", "cells"), markdown.Escape(markdown.NameSome(g.cases, 5)),
			markdown.Escape(g.changes[0].Model), "`"+markdown.Code(cmp.Or(g.changes[0].Case, g.changes[0].Feature))+"`", markdown.Escape(results.Truncate(g.changes[0].Reason, 200)))
	}
	m.p("\n<details><summary>every %s</summary>\n\n", title)
	m.table(title, l, true)
	m.p("</details>\n\n")
}

// list names what came or went: "**New models (2):** `a`, `b`".
func (m diffMD) list(title string, l []string) {
	if len(l) == 0 {
		return
	}
	m.p("**%s (%d):**", title, len(l))
	for i, s := range l {
		sep := ","
		if i == 0 {
			sep = ""
		}
		m.p("%s `%s`", sep, markdown.Code(s))
	}
	m.p("\n\n")
}

// changeGroup is the changes of one cause.
type changeGroup struct {
	cause   string
	changes []Change
	cases   []string // case ids (cell-level changes: their feature), sorted
	cells   int
}

// groupChanges groups changes by cause, the largest group first.
func groupChanges(l []Change) []changeGroup {
	var out []changeGroup
	at := map[string]int{}
	for _, c := range l {
		cause := cmp.Or(c.Cause, c.Reason, "no reason recorded")
		i, ok := at[cause]
		if !ok {
			i = len(out)
			at[cause] = i
			out = append(out, changeGroup{cause: cause})
		}
		out[i].changes = append(out[i].changes, c)
	}
	for i := range out {
		g := &out[i]
		cells := map[cellKey]bool{}
		for _, c := range g.changes {
			cells[cellKey{c.Model, c.Feature}] = true
			if name := cmp.Or(c.Case, c.Feature+" (cell)"); !slices.Contains(g.cases, name) {
				g.cases = append(g.cases, name)
			}
		}
		g.cells = len(cells)
		slices.Sort(g.cases)
	}
	slices.SortStableFunc(out, func(a, b changeGroup) int { return cmp.Compare(len(b.changes), len(a.changes)) })
	return out
}

// describe names a run under the diff's headline: its gateway, start,
// commit and verdict.
func (s Snapshot) describe() string {
	out := "run of " + s.Gateway
	if !s.Started.IsZero() {
		out += " at " + s.Started.UTC().Format("2006-01-02 15:04 UTC")
	}
	if s.Commit != "" {
		out += " (`" + markdown.Code(markdown.Short(s.Commit, 12)) + "`)"
	}
	if s.Verdict != "" {
		out += " " + s.Verdict
	}
	return out
}

// nameText is the id a spec model was sent as and how it was found
// ("gpt-5.5 (resolved)"); only how, when no id was sent ("unlisted").
func nameText(n reportv1.ModelName) string {
	if n.Gateway == "" {
		return string(n.Source)
	}
	return n.Gateway + " (" + string(n.Source) + ")"
}

// offerText is a declared offer as --offers takes it; "every feature" when
// none was declared.
func offerText(offers []string) string {
	if len(offers) == 0 {
		return "every feature"
	}
	return strings.Join(offers, ",")
}
