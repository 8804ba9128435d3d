package runs

import (
	"cmp"
	"slices"
	"time"

	"github.com/gwconform/gwconform/conformance/results"
	"github.com/gwconform/gwconform/conformance/vocab"
	reportv1 "github.com/gwconform/gwconform/report/apis/v1"
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
	// Offers is the feature globs the gateway declared (--offers); empty:
	// every feature.
	Offers []string `json:"offers,omitempty"`
	// ModelMap is the name each spec model was sent as, and how it was
	// found.
	ModelMap []reportv1.ModelName `json:"modelMap,omitempty"`
}

// OfferChanged reports whether the two runs declared different offers: a
// cell not offered on one side is then a change of the declaration, not of
// the gateway.
func (d Diff) OfferChanged() bool { return !slices.Equal(d.Old.Offers, d.New.Offers) }

// NameChange is a spec model sent under another id, or named another way,
// than the night before.
type NameChange struct{ Old, New reportv1.ModelName }

// NameChanges are the spec models both runs named whose gateway id or
// source changed, in spec id order: a cell's change may then be the
// other model's, not the gateway's. A model only one run named is a new
// or removed model, not a change of name.
func (d Diff) NameChanges() []NameChange {
	var out []NameChange
	for _, n := range d.New.ModelMap {
		i := slices.IndexFunc(d.Old.ModelMap, func(o reportv1.ModelName) bool { return o.Spec == n.Spec })
		if i >= 0 && (d.Old.ModelMap[i].Gateway != n.Gateway || d.Old.ModelMap[i].Source != n.Source) {
			out = append(out, NameChange{Old: d.Old.ModelMap[i], New: n})
		}
	}
	return out
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
		d.NewCases+d.RemovedCases == 0 && !d.OfferChanged() && len(d.NameChanges()) == 0
}

// cellKey names a cell.
type cellKey struct{ Model, Feature string }

// isBad is a status of a failure: fail or error.
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

// Compare computes the diff from old to new: case × model by case × model,
// then cell by cell for what no case explains, each list in model, feature,
// case order.
func Compare(old, new *reportv1.Report) Diff {
	c := &comparison{
		d: Diff{
			Old:             snapshot(old),
			New:             snapshot(new),
			NewModels:       minus(new.Models, old.Models),
			RemovedModels:   minus(old.Models, new.Models),
			NewFeatures:     minus(new.Features, old.Features),
			RemovedFeatures: minus(old.Features, new.Features),
		},
		strict:    new.Metadata.Strict,
		regressed: map[cellKey]bool{},
		fixed:     map[cellKey]bool{},
		lost:      map[cellKey]bool{},
	}
	c.compareResults(old, new)
	c.compareCells(old, new)
	for _, l := range [][]Change{c.d.Regressions, c.d.SoftRegressions, c.d.Fixes, c.d.Changed, c.d.LostCoverage} {
		slices.SortStableFunc(l, func(a, b Change) int {
			return cmp.Or(cmp.Compare(a.Model, b.Model), cmp.Compare(a.Feature, b.Feature), cmp.Compare(a.Case, b.Case))
		})
	}
	return c.d
}

// comparison is a diff being computed: the new report's --strict, and the
// cells whose regression, fix or lost coverage a case already explains.
type comparison struct {
	d                      Diff
	strict                 bool
	regressed, fixed, lost map[cellKey]bool
}

// compareResults compares each case × model the two reports share, and
// counts those only one of them has, of the models both have.
func (c *comparison) compareResults(old, new *reportv1.Report) {
	oldR := map[results.CaseModel]results.Result{}
	for _, r := range old.Results {
		oldR[r.CaseModel()] = r
	}
	both := inBoth(old.Models, new.Models)
	seen := map[results.CaseModel]bool{}
	for _, nr := range new.Results {
		seen[nr.CaseModel()] = true
		or, ok := oldR[nr.CaseModel()]
		switch {
		case !ok && both[nr.Model]:
			c.d.NewCases++
		case ok && or.Status != nr.Status:
			c.resultChanged(or, nr)
		}
	}
	for _, or := range old.Results {
		if !seen[or.CaseModel()] && both[or.Model] {
			c.d.RemovedCases++
		}
	}
}

// resultChanged files the change of one case × model: a regression (soft
// when it does not decide the exit code), a fix, lost coverage or another
// change, and notes the cell a regression, fix or loss explains.
func (c *comparison) resultChanged(or, nr results.Result) {
	ch := Change{Model: nr.Model, Feature: nr.Feature, Case: nr.Case, Tier: nr.Tier, Old: string(or.Status), New: string(nr.Status)}
	k := cellKey{nr.Model, nr.Feature}
	switch {
	case or.Status == vocab.StatusPass && nr.Failed():
		ch.Reason, ch.Cause = firstReason(nr), firstCause(nr)
		c.regression(ch, nr.Decides(c.strict))
		c.regressed[k] = true
	case or.Failed() && nr.Status == vocab.StatusPass:
		c.d.Fixes = append(c.d.Fixes, ch)
		c.fixed[k] = true
	case or.Status == vocab.StatusPass && unchecked(string(nr.Status)):
		ch.New, ch.Reason = lostLabel(nr), firstReason(nr)
		c.d.LostCoverage = append(c.d.LostCoverage, ch)
		c.lost[k] = true
	default:
		ch.Reason = firstReason(nr)
		c.d.Changed = append(c.d.Changed, ch)
	}
}

// compareCells catches what no single case shows (a case added failing, a
// case renamed), for cells present on both sides.
func (c *comparison) compareCells(old, new *reportv1.Report) {
	for _, nc := range new.Cells {
		if oc, ok := old.Cell(nc.Model, nc.Feature); ok && oc.Status != nc.Status {
			c.cellChanged(new, oc, nc)
		}
	}
}

// cellChanged files the change of a cell as a regression, a fix or lost
// coverage, unless a case's change already explains it.
func (c *comparison) cellChanged(new *reportv1.Report, oc, nc reportv1.Cell) {
	k := cellKey{nc.Model, nc.Feature}
	ch := Change{Model: nc.Model, Feature: nc.Feature, Old: oc.Label, New: nc.Label}
	switch {
	case oc.Status == reportv1.CellPass && isBad(string(nc.Status)) && !c.regressed[k]:
		ch.Reason, ch.Cause = firstBadReason(new, nc.Model, nc.Feature, c.strict)
		c.regression(ch, nc.Blocking)
	case isBad(string(oc.Status)) && nc.Status == reportv1.CellPass && !c.fixed[k]:
		c.d.Fixes = append(c.d.Fixes, ch)
	case oc.Status == reportv1.CellPass && unchecked(string(nc.Status)) && !c.lost[k]:
		c.d.LostCoverage = append(c.d.LostCoverage, ch)
	}
}

// regression files a regression: soft when it does not decide the exit code.
func (c *comparison) regression(ch Change, decides bool) {
	if decides {
		c.d.Regressions = append(c.d.Regressions, ch)
	} else {
		c.d.SoftRegressions = append(c.d.SoftRegressions, ch)
	}
}

// inBoth returns the models both sides have.
func inBoth(old, new []string) map[string]bool {
	both := map[string]bool{}
	for _, m := range old {
		if slices.Contains(new, m) {
			both[m] = true
		}
	}
	return both
}

// snapshot names a report as one side of a diff.
func snapshot(r *reportv1.Report) Snapshot {
	return Snapshot{SuiteVersion: r.Metadata.SuiteVersion, Commit: r.Metadata.Commit, Started: r.Metadata.Started, Verdict: r.Verdict,
		Gateway: r.Metadata.Gateway(), Headline: r.Headline, Notes: r.Notes, Offers: r.Metadata.Offers, ModelMap: r.Metadata.ModelMap}
}

// firstReason is a result's first reason, "" when it has none.
func firstReason(r results.Result) string {
	if len(r.Reasons) == 0 {
		return ""
	}
	return r.Reasons[0].String()
}

// firstCause is the cause of a result's first reason, "" when it has none.
func firstCause(r results.Result) string {
	if len(r.Reasons) == 0 {
		return ""
	}
	return r.Reasons[0].Cause()
}

// firstBadReason explains a cell regression by its first failing result,
// preferring one that decides the exit code, and names its cause.
func firstBadReason(r *reportv1.Report, model, feature string, strict bool) (why, cause string) {
	var softWhy, softCause string
	for _, res := range r.ResultsOf(model, feature) {
		if !res.Failed() {
			continue
		}
		w, c := res.Case+": "+firstReason(res), firstCause(res)
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
