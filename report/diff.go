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
)

// Change is one difference between two reports, for a case × model or, when
// Case is empty, for a whole cell (model × feature).
type Change struct {
	Model   string     `json:"model"`
	Feature string     `json:"feature"`
	Case    string     `json:"case,omitempty"` // empty: cell-level change
	Tier    vocab.Tier `json:"tier,omitempty"`
	Old     string     `json:"old"` // result or cell status
	New     string     `json:"new"`
	Reason  string     `json:"reason,omitempty"` // first reason of the new result, for regressions
	// Cause is that reason's cause (vocab.Reason.Cause): regressions
	// are read grouped by it, as the run's recap groups failures.
	Cause string `json:"cause,omitempty"`
}

// Snapshot names one side of a diff.
type Snapshot struct {
	SuiteVersion string    `json:"suiteVersion,omitempty"`
	Commit       string    `json:"commit,omitempty"`
	Started      time.Time `json:"started"`
	Verdict      string    `json:"verdict"`
	Gateway      string    `json:"gateway"` // the base URL judged, or ReferenceGateway
	Headline     string    `json:"headline,omitempty"`
	Notes        []string  `json:"notes,omitempty"`
}

// Incomplete reports whether the night could not vouch for the gateway
// (results.OutcomeIncomplete): not a regression, and not green either.
func (s Snapshot) Incomplete() bool { return s.Verdict == string(results.OutcomeIncomplete) }

// Diff is what changed from one report to the next.
//
// Regressions are pass → fail/error of results that decide the exit code
// (verified and negative; strict when the new report ran with --strict), plus
// cells that went from pass to fail/error with such a result where no case of
// the cell regressed (e.g. a failing case was added, or renamed). These fail
// `gwconform diff`. SoftRegressions are the same for results that do not
// decide the exit code (strict without --strict, explore): shown, not fatal.
// Fixes are fail/error → pass, again with cell-level entries only where no
// case-level one explains the cell. Changed lists every other status change of
// a case present in both (e.g. pass → unsupported). LostCoverage is what
// passed and is now no longer checked: skipped (a key missing or rejected,
// a budget), throttled, inconclusive (its control not served) or waived —
// not a regression, but the suite stopped vouching for it; cell-level
// entries only where no case explains the cell.
type Diff struct {
	Old, New        Snapshot
	Regressions     []Change `json:"regressions"`
	SoftRegressions []Change `json:"softRegressions"`
	Fixes           []Change `json:"fixes"`
	Changed         []Change `json:"changed"`
	LostCoverage    []Change `json:"lostCoverage"`
	NewModels       []string `json:"newModels"`
	RemovedModels   []string `json:"removedModels"`
	NewFeatures     []string `json:"newFeatures"`
	RemovedFeatures []string `json:"removedFeatures"`
	// NewCases and RemovedCases count case × model results present on one side
	// only (of models present on both sides).
	NewCases     int `json:"newCases"`
	RemovedCases int `json:"removedCases"`
}

// HasRegressions reports whether the diff should fail: a result or cell that
// decides the exit code went from pass to fail or error.
func (d Diff) HasRegressions() bool { return len(d.Regressions) > 0 }

// Empty reports whether nothing changed at all.
func (d Diff) Empty() bool {
	return len(d.Regressions)+len(d.SoftRegressions)+len(d.Fixes)+len(d.Changed)+len(d.LostCoverage)+
		len(d.NewModels)+len(d.RemovedModels)+len(d.NewFeatures)+len(d.RemovedFeatures)+
		d.NewCases+d.RemovedCases == 0
}

type cellKey struct{ Model, Feature string }

func isBad(s string) bool { return s == string(vocab.StatusFail) || s == string(vocab.StatusError) }

// unchecked is a status that no longer vouches for a case: it did not run,
// ran into throttling, could not be judged without its control, or its
// failure is waived.
func unchecked(s string) bool {
	switch vocab.Status(s) {
	case vocab.StatusSkip, vocab.StatusThrottled, vocab.StatusInconclusive, vocab.StatusWaived:
		return true
	}
	return false
}

// lostLabel names a status that lost coverage, a rejected key by name.
func lostLabel(r results.Result) string {
	if r.Status == vocab.StatusSkip && len(r.Reasons) > 0 && r.Reasons[0].Check == vocab.CheckKeyRejected {
		return "skip (key rejected)"
	}
	return string(r.Status)
}

// Compare computes the diff from old to new.
func Compare(old, new *Report) Diff {
	d := Diff{
		Old:             snapshot(old),
		New:             snapshot(new),
		NewModels:       minus(new.Models, old.Models),
		RemovedModels:   minus(old.Models, new.Models),
		NewFeatures:     minus(new.Features, old.Features),
		RemovedFeatures: minus(old.Features, new.Features),
	}
	strict := new.Metadata.Strict
	oldR := map[results.CaseModel]results.Result{}
	for _, r := range old.Results {
		oldR[r.CaseModel()] = r
	}
	bothModels := map[string]bool{}
	for _, m := range old.Models {
		if slices.Contains(new.Models, m) {
			bothModels[m] = true
		}
	}

	coveredReg := map[cellKey]bool{} // cells explained by a case-level regression
	coveredFix := map[cellKey]bool{}
	coveredLost := map[cellKey]bool{}
	seen := map[results.CaseModel]bool{}
	for _, nr := range new.Results {
		k := nr.CaseModel()
		seen[k] = true
		or, ok := oldR[k]
		if !ok {
			if bothModels[nr.Model] {
				d.NewCases++
			}
			continue
		}
		if or.Status == nr.Status {
			continue
		}
		ch := Change{Model: nr.Model, Feature: nr.Feature, Case: nr.Case, Tier: nr.Tier, Old: string(or.Status), New: string(nr.Status)}
		switch {
		case or.Status == vocab.StatusPass && nr.Failed():
			ch.Reason = firstReason(nr)
			if len(nr.Reasons) > 0 {
				ch.Cause = nr.Reasons[0].Cause()
			}
			if nr.Decides(strict) {
				d.Regressions = append(d.Regressions, ch)
			} else {
				d.SoftRegressions = append(d.SoftRegressions, ch)
			}
			coveredReg[cellKey{nr.Model, nr.Feature}] = true
		case or.Failed() && nr.Status == vocab.StatusPass:
			d.Fixes = append(d.Fixes, ch)
			coveredFix[cellKey{nr.Model, nr.Feature}] = true
		case or.Status == vocab.StatusPass && unchecked(string(nr.Status)):
			ch.New, ch.Reason = lostLabel(nr), firstReason(nr)
			d.LostCoverage = append(d.LostCoverage, ch)
			coveredLost[cellKey{nr.Model, nr.Feature}] = true
		default:
			ch.Reason = firstReason(nr)
			d.Changed = append(d.Changed, ch)
		}
	}
	for _, or := range old.Results {
		if !seen[or.CaseModel()] && bothModels[or.Model] {
			d.RemovedCases++
		}
	}

	// Cell level: catches what no single case shows (a case added failing, a
	// case renamed), for cells present on both sides.
	for _, nc := range new.Cells {
		k := cellKey{nc.Model, nc.Feature}
		oc, ok := old.Cell(nc.Model, nc.Feature)
		if !ok || oc.Status == nc.Status {
			continue
		}
		ch := Change{Model: nc.Model, Feature: nc.Feature, Old: oc.Label, New: nc.Label}
		switch {
		case oc.Status == CellPass && isBad(string(nc.Status)) && !coveredReg[k]:
			ch.Reason, ch.Cause = firstBadReason(new, nc.Model, nc.Feature, strict)
			if nc.Blocking {
				d.Regressions = append(d.Regressions, ch)
			} else {
				d.SoftRegressions = append(d.SoftRegressions, ch)
			}
		case isBad(string(oc.Status)) && nc.Status == CellPass && !coveredFix[k]:
			d.Fixes = append(d.Fixes, ch)
		case oc.Status == CellPass && unchecked(string(nc.Status)) && !coveredLost[k]:
			d.LostCoverage = append(d.LostCoverage, ch)
		}
	}

	for _, l := range [][]Change{d.Regressions, d.SoftRegressions, d.Fixes, d.Changed, d.LostCoverage} {
		slices.SortStableFunc(l, func(a, b Change) int {
			return cmp.Or(cmp.Compare(a.Model, b.Model), cmp.Compare(a.Feature, b.Feature), cmp.Compare(a.Case, b.Case))
		})
	}
	return d
}

func snapshot(r *Report) Snapshot {
	gateway := r.Metadata.BaseURL
	if gateway == "" {
		gateway = ReferenceGateway
	}
	return Snapshot{SuiteVersion: r.Metadata.SuiteVersion, Commit: r.Metadata.Commit, Started: r.Metadata.Started, Verdict: r.Verdict,
		Gateway: gateway, Headline: r.Headline, Notes: r.Notes}
}

func firstReason(r results.Result) string {
	if len(r.Reasons) == 0 {
		return ""
	}
	return r.Reasons[0].String()
}

// firstBadReason explains a cell regression by its first failing result,
// preferring one that decides the exit code, and names its cause.
func firstBadReason(r *Report, model, feature string, strict bool) (why, cause string) {
	var softWhy, softCause string
	for _, res := range r.ResultsOf(model, feature) {
		if !res.Failed() {
			continue
		}
		w, c := res.Case+": "+firstReason(res), ""
		if len(res.Reasons) > 0 {
			c = res.Reasons[0].Cause()
		}
		if res.Decides(strict) {
			return w, c
		}
		if softWhy == "" {
			softWhy, softCause = w, c
		}
	}
	return softWhy, softCause
}

// minus returns the elements of a not in b, in a's order, never nil.
func minus(a, b []string) []string {
	out := []string{}
	for _, s := range a {
		if !slices.Contains(b, s) {
			out = append(out, s)
		}
	}
	return out
}

// WriteMarkdown writes the diff for a PR comment or job summary.
func (d Diff) WriteMarkdown(w io.Writer) error {
	b := bufio.NewWriter(w)
	p := func(format string, a ...any) { fmt.Fprintf(b, format, a...) }
	switch {
	case d.HasRegressions():
		p("## ❌ gwconform diff: %d %s\n\n", len(d.Regressions), plural(len(d.Regressions), "regression", "regressions"))
	case d.New.Incomplete():
		p("## ⚠️ gwconform diff: no regressions, but the night was incomplete\n\n")
	default:
		p("## ✅ gwconform diff: no regressions\n\n")
	}
	if d.Old.Gateway != d.New.Gateway {
		p("**The two runs judged different gateways:** `%s` before, `%s` now. A change may be the gateway's, not a regression.\n\n",
			mdCode(d.Old.Gateway), mdCode(d.New.Gateway))
	}
	p("%s → %s\n\n", d.Old.describe(), d.New.describe())
	// An incomplete night is neither a regression nor green: say what it
	// could not check, on either side.
	for _, side := range []struct {
		name string
		s    Snapshot
	}{{"This night", d.New}, {"The previous night", d.Old}} {
		if !side.s.Incomplete() {
			continue
		}
		p("**%s was incomplete:** %s\n", side.name, mdEscape(side.s.Headline))
		for _, n := range side.s.Notes {
			p("- %s\n", mdEscape(n))
		}
		p("\n")
	}
	if d.Empty() {
		p("No changes.\n")
		return b.Flush()
	}
	table := func(title string, l []Change, withReason bool) {
		if len(l) == 0 {
			return
		}
		p("### %s (%d)\n\n", title, len(l))
		if withReason {
			p("| model | feature | case | tier | was | now | reason |\n|---|---|---|---|---|---|---|\n")
		} else {
			p("| model | feature | case | tier | was | now |\n|---|---|---|---|---|---|\n")
		}
		for _, c := range l {
			cs := "_(cell)_"
			if c.Case != "" {
				cs = "`" + mdCode(c.Case) + "`"
			}
			p("| %s | `%s` | %s | %s | %s | %s |", mdEscape(c.Model), mdCode(c.Feature), cs, mdEscape(string(c.Tier)), mdEscape(c.Old), mdEscape(c.New))
			if withReason {
				p(" %s |", mdEscape(results.Truncate(c.Reason, 200)))
			}
			p("\n")
		}
		p("\n")
	}
	byCause := func(title string, l []Change) {
		if len(l) == 0 {
			return
		}
		groups := groupChanges(l)
		p("### %s (%d, %d %s)\n\n", title, len(l), len(groups), plural(len(groups), "cause", "causes"))
		for _, g := range groups {
			p("- **%s**: %d %s in %d %s: %s\n  e.g. %s × %s: %s\n", mdEscape(g.cause), len(g.changes), plural(len(g.changes), "result", "results"),
				g.cells, plural(g.cells, "cell", "cells"), mdEscape(NameSome(g.cases, 5)),
				mdEscape(g.changes[0].Model), "`"+mdCode(cmp.Or(g.changes[0].Case, g.changes[0].Feature))+"`", mdEscape(results.Truncate(g.changes[0].Reason, 200)))
		}
		p("\n<details><summary>every %s</summary>\n\n", title)
		table(title, l, true)
		p("</details>\n\n")
	}
	byCause("❌ Regressions", d.Regressions)
	byCause("🟠 Regressions in strict/explore cases (reported only)", d.SoftRegressions)
	table("✅ Fixes", d.Fixes, false)
	table("🕳️ Lost coverage: passed, now skipped, throttled, inconclusive, key-rejected or waived", d.LostCoverage, true)
	table("Other status changes", d.Changed, true)
	list := func(title string, l []string) {
		if len(l) == 0 {
			return
		}
		p("**%s (%d):**", title, len(l))
		for i, s := range l {
			sep := ","
			if i == 0 {
				sep = ""
			}
			p("%s `%s`", sep, mdCode(s))
		}
		p("\n\n")
	}
	list("New models", d.NewModels)
	list("Removed models", d.RemovedModels)
	list("New features", d.NewFeatures)
	list("Removed features", d.RemovedFeatures)
	if d.NewCases+d.RemovedCases > 0 {
		p("Case × model results: %d new, %d removed.\n", d.NewCases, d.RemovedCases)
	}
	return b.Flush()
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

// NameSome lists the first n names and says how many more there are:
// "a, b, c and 4 more".
func NameSome(names []string, n int) string {
	if len(names) <= n {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:n], ", "), len(names)-n)
}

func (s Snapshot) describe() string {
	out := "run of " + s.Gateway
	if !s.Started.IsZero() {
		out += " at " + s.Started.UTC().Format("2006-01-02 15:04 UTC")
	}
	if s.Commit != "" {
		out += " (`" + mdCode(short(s.Commit, 12)) + "`)"
	}
	if s.Verdict != "" {
		out += " " + s.Verdict
	}
	return out
}
