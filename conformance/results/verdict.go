package results

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gwconform/gwconform/conformance/vocab"
)

// Outcome is a run's verdict, the exit code's meaning (DESIGN.md).
type Outcome string

const (
	// OutcomePass: every counted case that was selected ran and passed.
	OutcomePass Outcome = "pass"
	// OutcomeFail: a counted case failed or errored.
	OutcomeFail Outcome = "fail"
	// OutcomeIncomplete: nothing failed, but the run cannot vouch for the
	// gateway: counted results ended throttled or inconclusive, a
	// configured key was rejected, or counted cases were selected and none
	// of them ran.
	OutcomeIncomplete Outcome = "incomplete"
	// OutcomeNoVerdict: no counted case was selected (--tier explore, a
	// probe) and something ran. The run is judged on its own results and
	// exits 0, but it claims nothing about conformance.
	OutcomeNoVerdict Outcome = "no-verdict"
)

// Verdict is what a run concludes: the outcome, one headline, and a note per
// thing that was not checked.
type Verdict struct {
	Outcome  Outcome
	Headline string
	Notes    []string
}

// Completion is what a run knows of its plan beyond its results. A run
// cut short by a signal, or a merge missing a shard, has fewer results than
// it planned, and its verdict must say so rather than judge only what
// finished. The zero value is a run that finished its plan.
type Completion struct {
	// Interrupted: a signal (SIGINT, SIGTERM) ended the run before its plan.
	Interrupted bool `json:"interrupted,omitempty"`
	// Planned counts the calls of the plan and Unrun its counted calls
	// (verified and negative; strict under --strict) that have no result:
	// never started, cut by the interrupt, or held back from a re-run by
	// what was left of the budget.
	Planned int `json:"planned,omitempty"`
	Unrun   int `json:"unrun,omitempty"`
	// MissingShards names the shards ("2/3") a merged report lacks.
	MissingShards []string `json:"missingShards,omitempty"`
	// Unjudged counts observed exchanges a judge could not judge (its
	// queue was full): the judgement is incomplete. Sample is the share
	// of the traffic it was asked to judge (0: all); what the sample
	// leaves out leaves it complete.
	Unjudged int     `json:"unjudged,omitempty"`
	Sample   float64 `json:"sample,omitempty"`
}

// Judge reads a run's results. Counted results are those that decide the
// exit code (Decides): verified and negative, and strict under --strict.
// A call cut by an interrupt (Cancelled) is counted neither for nor against
// the gateway: it is one of the calls the interrupt left undone.
//
// A waived result ran and did not fail: it is counted apart (a note and the
// headline say how many), and each --waivers entry that expired or is no
// longer needed gets a note of its own. A pass that came only when
// --rerun-failed ran the case again counts as a pass, with a note: a flaky
// gateway stays visible. An inconclusive result ran but judged nothing: like
// a throttled one, it leaves a run without failures incomplete.
func Judge(rs []Result, strict bool, c Completion) Verdict {
	t := tallyResults(rs, strict)
	// What "counted" means to a reader: verified and negative, and strict
	// only under --strict.
	kind := "verified/negative"
	switch {
	case t.clientOnTrial():
		kind = "client request"
	case strict:
		kind = "verified/negative/strict"
	}
	interrupted := ""
	if c.Interrupted {
		interrupted = fmt.Sprintf("interrupted after %d of %s", t.finished, plural(c.Planned, "call"))
	}
	v := Verdict{Notes: t.notes(c, kind, interrupted)}
	v.Notes = append(v.Notes, waiverNotes(rs)...)
	gone := unserved(rs)
	if line := offerLine(gone); line != "" {
		v.Notes = append(v.Notes, "every verified request of "+strings.Join(gone, ", ")+" answered 404: if the gateway does not offer them, declare it: "+line)
	} else if slices.Contains(gone, "models.*") && !onlyModels(rs, gone) {
		v.Notes = append(v.Notes, "every GET /v1/models answered 404 while other requests were answered: check that the base URL is the gateway's whole address (a path prefix missing?), or that the gateway offers the model list")
	}
	v.Outcome, v.Headline = t.headline(rs, c, kind, interrupted, describeTiers(t.tiers, strict))
	if c.Sample > 0 && c.Sample < 1 {
		v.Headline += fmt.Sprintf("; a %g%% sample of the traffic judged", c.Sample*100)
	}
	if off := NotOffered(rs); len(off) > 0 {
		v.Headline += "; not offered: " + strings.Join(off, ", ")
	}
	return v
}

// Unchecked reports whether a result was skipped for a reason that
// leaves a run incomplete when the case counts: a rejected key, a model its
// key does not list, a key whose list could not be read, the budget.
// junit.xml gives such a case an <error>. An unset key's skip is the
// user's choice of families (go test skips it), a declared offer's the
// gateway's, a missing precondition or control is noted apart: none is.
func (r Result) Unchecked() bool {
	if r.Status != vocab.StatusSkip || len(r.Reasons) == 0 {
		return false
	}
	switch r.Reasons[0].Check {
	case vocab.CheckKeyRejected, vocab.CheckNotListed, vocab.CheckListUnread, vocab.CheckBudget:
		return true
	}
	return false
}

// unchecked is why counted cases were not checked: a skip's first check,
// with the key kind for a missing or rejected key, and the model for one
// its key does not list.
type unchecked struct{ check, key string }

// tally is what Judge counts of a run's results.
type tally struct {
	counted, ran, failed, throttled, inconclusive, waived, flaky, flakyRerun, budget, notListed, listUnread, keyMissing, finished, notOffered int
	// clients counts the counted results that judge a client's request.
	clients           int
	firstInconclusive *Result
	ranAny            bool
	tiers             map[vocab.Tier]int
	// notChecked counts the counted cases skipped, by why, in the order
	// first seen; first is the first message of each.
	notChecked map[unchecked]int
	first      map[unchecked]string
	order      []unchecked
}

func tallyResults(rs []Result, strict bool) *tally {
	t := &tally{tiers: map[vocab.Tier]int{}, notChecked: map[unchecked]int{}, first: map[unchecked]string{}}
	for _, r := range rs {
		if r.Cancelled {
			continue
		}
		t.finished++
		if r.Status != vocab.StatusSkip {
			t.ranAny = true
		}
		if !r.Decides(strict) {
			continue
		}
		if r.NotOffered() { // declared out by the gateway: neither checked nor missing
			t.notOffered++
			continue
		}
		t.counted++
		if r.Side == SideClient {
			t.clients++
		}
		t.status(r)
		if r.Status != vocab.StatusSkip {
			t.ran++
			t.tiers[r.Tier]++
			continue
		}
		t.skipped(r)
	}
	return t
}

// clientOnTrial says every counted result judged a client's request (the
// stand-in of serve --judge): the headline speaks of its requests.
func (t *tally) clientOnTrial() bool { return t.counted > 0 && t.clients == t.counted }

// status counts a counted result by its status.
func (t *tally) status(r Result) {
	switch {
	case r.Failed():
		t.failed++
	case r.Status == vocab.StatusThrottled:
		t.throttled++
	case r.Status == vocab.StatusInconclusive:
		if t.inconclusive == 0 {
			t.firstInconclusive = &r
		}
		t.inconclusive++
	case r.Status == vocab.StatusWaived:
		t.waived++
	case r.Status == vocab.StatusPass && r.Reruns > 0 && r.FirstStatus != vocab.StatusPass:
		t.flakyRerun++
	case r.Flaky:
		t.flaky++
	}
}

// skipped counts a counted case skipped, by why.
func (t *tally) skipped(r Result) {
	w := unchecked{key: r.Key}
	if len(r.Reasons) > 0 {
		w.check = r.Reasons[0].Check
	}
	if w.check == vocab.CheckBudget {
		t.budget++
	}
	switch w.check {
	case vocab.CheckKeyMissing:
		t.keyMissing++
	case vocab.CheckKeyRejected:
	case vocab.CheckNotListed: // a note per model, each naming what its key lists
		w.key = r.Model
		t.notListed++
	case vocab.CheckListUnread: // a note per list, whatever the case's key: the list is the one cause
		w.key = r.Reasons[0].Message // w.check is its first reason's
		t.listUnread++
	default:
		w.key = ""
	}
	if t.notChecked[w] == 0 {
		t.order = append(t.order, w)
		t.first[w] = "skipped"
		if len(r.Reasons) > 0 && r.Reasons[0].Message != "" {
			t.first[w] = r.Reasons[0].Message
		}
	}
	t.notChecked[w]++
}

// rejected reports whether a configured key was rejected.
func (t *tally) rejected() bool {
	for _, w := range t.order {
		if w.check == vocab.CheckKeyRejected {
			return true
		}
	}
	return false
}

// notes says what the run could not vouch for: the interrupt, what never
// ran, missing shards, what was not checked and why, throttled,
// inconclusive, waived and flaky results.
func (t *tally) notes(c Completion, kind, interrupted string) []string {
	var notes []string
	if c.Interrupted {
		note := interrupted + " (SIGINT or SIGTERM)"
		if c.Unrun > 0 {
			note += fmt.Sprintf(": %s not run", plural(c.Unrun, kind+" case"))
		}
		notes = append(notes, note)
	}
	if c.Unrun > 0 && !c.Interrupted {
		notes = append(notes, fmt.Sprintf("%s of the plan never ran (held back by the budget)", plural(c.Unrun, kind+" case")))
	}
	for _, s := range c.MissingShards {
		notes = append(notes, fmt.Sprintf("shard %s missing: its results are not in this report", s))
	}
	order := slices.Clone(t.order)
	slices.SortStableFunc(order, func(a, b unchecked) int { return strings.Compare(a.check+a.key, b.check+b.key) })
	for _, w := range order {
		n := t.notChecked[w]
		switch w.check {
		case vocab.CheckKeyMissing:
			notes = append(notes, fmt.Sprintf("%s key not set (or set but empty): %s not checked; set it, or leave its family out (--feature, --offers)", w.key, plural(n, kind+" case")))
		case vocab.CheckKeyRejected:
			notes = append(notes, fmt.Sprintf("%s key rejected (%s): %s not checked", w.key, t.first[w], plural(n, kind+" case")))
		case vocab.CheckNotListed:
			notes = append(notes, fmt.Sprintf("%s not checked, nothing sent: %s", plural(n, kind+" case"), t.first[w]))
		case vocab.CheckListUnread:
			notes = append(notes, fmt.Sprintf("%s %s", plural(n, kind+" case"), t.first[w]))
		default:
			notes = append(notes, fmt.Sprintf("%s: %s not checked", t.first[w], plural(n, kind+" case")))
		}
	}
	if t.notOffered > 0 {
		notes = append(notes, fmt.Sprintf("%s skipped as not offered (--offers): nothing sent, nothing judged", plural(t.notOffered, kind+" case")))
	}
	if t.throttled > 0 {
		notes = append(notes, fmt.Sprintf("%s throttled (still 429 after waiting --max-wait): not verified", plural(t.throttled, kind+" result")))
	}
	if t.inconclusive > 0 {
		notes = append(notes, fmt.Sprintf("%s inconclusive: refused as stated, but the control (the same request without the defect) was not served, so the refusal proves nothing (e.g. %s)",
			plural(t.inconclusive, kind+" result"), describeControl(*t.firstInconclusive)))
	}
	if t.waived > 0 {
		notes = append(notes, fmt.Sprintf("%s waived: known deviations, listed apart with their reason and link; they do not fail the run", plural(t.waived, kind+" result")))
	}
	if t.flakyRerun > 0 {
		notes = append(notes, fmt.Sprintf("%s failed first and passed when re-run (flaky): the first run's reasons are kept", plural(t.flakyRerun, kind+" result")))
	}
	return notes
}

// headline is the run's outcome and the sentence that says it, the first
// reason that applies winning: a failure, then each way of being
// incomplete, then a pass.
func (t *tally) headline(rs []Result, c Completion, kind, interrupted, scope string) (Outcome, string) {
	if t.waived > 0 {
		scope += fmt.Sprintf(" (%d waived)", t.waived)
	}
	if t.flaky > 0 { // a pass the gateway gave only when asked again
		scope += fmt.Sprintf("; %s passed only after a retry (flaky)", plural(t.flaky, "result"))
	}
	switch {
	case t.failed > 0 && t.clientOnTrial():
		return OutcomeFail, fmt.Sprintf("conformance failed: %d of %s broke a rule of the spec", t.failed, plural(t.ran, kind))
	case t.failed > 0:
		h := fmt.Sprintf("conformance failed: %d of %s failed or errored", t.failed, plural(t.ran, kind+" result"))
		if interrupted != "" {
			h += "; " + interrupted
		}
		return OutcomeFail, h
	case interrupted != "":
		return OutcomeIncomplete, fmt.Sprintf("incomplete: %s; %s not run; nothing that ran failed", interrupted, plural(c.Unrun, kind+" case"))
	case c.Unrun > 0:
		return OutcomeIncomplete, fmt.Sprintf("incomplete: %s of the plan never ran; nothing that ran failed", plural(c.Unrun, kind+" case"))
	case len(c.MissingShards) > 0:
		return OutcomeIncomplete, fmt.Sprintf("incomplete: shard %s missing; nothing that ran failed", strings.Join(c.MissingShards, ", "))
	case c.Unjudged > 0:
		return OutcomeIncomplete, fmt.Sprintf("incomplete: %s not judged (the judge's queue was full); nothing judged failed", plural(c.Unjudged, "exchange"))
	case t.counted > 0 && t.ran == 0:
		return OutcomeIncomplete, fmt.Sprintf("incomplete: none of the %s selected ran; nothing was checked", plural(t.counted, kind+" case"))
	case t.budget > 0:
		return OutcomeIncomplete, fmt.Sprintf("incomplete: the budget left %s of %d unchecked; nothing that ran failed", plural(t.budget, kind+" case"), t.counted)
	case t.throttled > 0:
		return OutcomeIncomplete, fmt.Sprintf("incomplete: %s throttled, not verified; nothing else failed", plural(t.throttled, kind+" result"))
	case t.inconclusive > 0:
		return OutcomeIncomplete, fmt.Sprintf("incomplete: %s inconclusive (control not served); nothing failed", plural(t.inconclusive, kind+" result"))
	case t.rejected():
		return OutcomeIncomplete, "incomplete: a configured key was rejected; nothing that ran failed"
	case t.keyMissing > 0:
		return OutcomeIncomplete, fmt.Sprintf("incomplete: %s selected not checked: the key of their family is not set; nothing that ran failed", plural(t.keyMissing, kind+" case"))
	case t.listUnread > 0:
		return OutcomeIncomplete, fmt.Sprintf("incomplete: %s not checked: their key's model list could not be read (see the notes); nothing that ran failed", plural(t.listUnread, kind+" case"))
	case t.notListed > 0:
		return OutcomeIncomplete, fmt.Sprintf("incomplete: %s not checked: the model is not listed for its key (see the notes); nothing that ran failed", plural(t.notListed, kind+" case"))
	case t.counted > 0 && t.clientOnTrial():
		return OutcomePass, fmt.Sprintf("conformance passed: %s kept the spec's rules", plural(t.ran, kind))
	case t.counted > 0:
		return OutcomePass, "conformance passed: " + scope
	case t.notOffered > 0:
		return OutcomeIncomplete, fmt.Sprintf("incomplete: nothing checked: the gateway offers none of the %s selected", plural(t.notOffered, kind+" case"))
	case t.ranAny:
		return OutcomeNoVerdict, "no conformance verdict: no verified or negative case was selected; " + describeRun(rs)
	}
	return OutcomeIncomplete, "incomplete: nothing was checked (" + plural(len(rs), "result") + ", all skipped)"
}

// waiverNotes says, once per --waivers entry, that it expired (and how many
// failures count again) or is no longer needed (the results it covers pass),
// in the order the entries first appear in rs.
func waiverNotes(rs []Result) []string {
	type use struct {
		w      Waiver
		failed int // expired: failures that count again
		passed int // not needed: results that pass
	}
	var order []string
	by := map[string]*use{}
	for _, r := range rs {
		w := r.Waiver
		if w == nil || w.State == WaiverApplied {
			continue
		}
		k := string(w.State) + "\x00" + w.Source + "\x00" + w.Case + "\x00" + w.Model
		t := by[k]
		if t == nil {
			t = &use{w: *w}
			by[k] = t
			order = append(order, k)
		}
		if r.Failed() {
			t.failed++
		} else if r.Status == vocab.StatusPass {
			t.passed++
		}
	}
	var notes []string
	for _, k := range order {
		t := by[k]
		entry := fmt.Sprintf("waiver %s (case %s, model %s)", t.w.Source, t.w.Case, t.w.Model)
		switch t.w.State {
		case WaiverExpired:
			n := fmt.Sprintf("%s expired %s and no longer applies", entry, t.w.Expires)
			if t.failed > 0 {
				n += fmt.Sprintf(": %s, counted again", plural(t.failed, "failure"))
			}
			notes = append(notes, n)
		case WaiverNotNeeded:
			notes = append(notes, fmt.Sprintf("%s no longer needed: %s passed", entry, plural(t.passed, "covered result")))
		}
	}
	return notes
}

// describeTiers says what was checked: "126 verified, 46 negative".
func describeTiers(tiers map[vocab.Tier]int, strict bool) string {
	var parts []string
	for _, t := range vocab.Tiers {
		if tiers[t] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", tiers[t], t))
		}
	}
	s := strings.Join(parts, ", ")
	if strict {
		s += " (strict counted)"
	}
	return s
}

// describeRun says what ran in a run that has no counted case, by tier and
// status: "explore: 181 pass, 24 unsupported".
func describeRun(rs []Result) string {
	by := map[vocab.Tier]map[vocab.Status]int{}
	for _, r := range rs {
		if by[r.Tier] == nil {
			by[r.Tier] = map[vocab.Status]int{}
		}
		by[r.Tier][r.Status]++
	}
	var parts []string
	for _, t := range vocab.Tiers {
		var st []string
		for _, s := range vocab.Statuses {
			if n := by[t][s]; n > 0 {
				st = append(st, fmt.Sprintf("%d %s", n, s))
			}
		}
		if len(st) > 0 {
			parts = append(parts, string(t)+": "+strings.Join(st, ", "))
		}
	}
	return strings.Join(parts, "; ")
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// NotOffered names what the gateway declared it does not offer, from the
// results skipped as not offered (--offers): a family whose every result
// is such a skip as "family.*", else each feature. Sorted; empty when the
// offer left nothing out.
func NotOffered(rs []Result) []string {
	off, served := map[string]bool{}, map[string]bool{} // features not offered; families with a result that is none
	for _, r := range rs {
		if r.NotOffered() {
			off[r.Feature] = true
		} else {
			served[family(r.Feature)] = true
		}
	}
	var out []string
	for f := range off {
		if !served[family(f)] {
			f = family(f) + ".*"
		}
		if !slices.Contains(out, f) {
			out = append(out, f)
		}
	}
	slices.Sort(out)
	return out
}

// family is a feature's family: "images" of images.edit.json.
func family(feature string) string {
	fam, _, _ := strings.Cut(feature, ".")
	return fam
}

// unserved are the families ("images.*") of which every verified request
// that was answered got 404, and no request of any tier got anything else:
// a gateway that does not serve them at all. Only a verified request can
// say so: a negative case expects a refusal (a 404 to an unknown model is
// what it asks for), and a family the gateway serves under other names
// must not be hinted away by the one request sent to be refused.
func unserved(rs []Result) []string {
	answered, other := map[string]bool{}, map[string]bool{}
	var order []string
	for _, r := range rs {
		if r.HTTPStatus == 0 {
			continue
		}
		f := family(r.Feature)
		if r.HTTPStatus != 404 {
			other[f] = true
		}
		if r.Tier != vocab.TierVerified {
			continue
		}
		if !answered[f] {
			order = append(order, f)
		}
		answered[f] = true
	}
	var out []string
	for _, f := range order {
		if !other[f] {
			out = append(out, f+".*")
		}
	}
	return out
}

// onlyModels reports whether the families of which every verified request
// answered 404 are all the run heard from: no request of another family
// was answered otherwise. (A base where nothing is this API is stopped by
// the preflight, before any case.)
func onlyModels(rs []Result, gone []string) bool {
	for _, r := range rs {
		if r.HTTPStatus != 0 && !slices.Contains(gone, family(r.Feature)+".*") {
			return false
		}
	}
	return true
}

// SuggestOffers is the --offers flag that declares the families of which
// every answered request got 404 (see unserved) not offered: "!family.*"
// each, so the families the run did not select stay offered. "" when there
// is none, or when the model list is among them: a base that serves no
// model list is more likely the wrong address than a gateway without a
// family.
func SuggestOffers(rs []Result) string { return offerLine(unserved(rs)) }

// offerLine is the --offers flag that declares the unserved families not
// offered (see SuggestOffers).
func offerLine(gone []string) string {
	if len(gone) == 0 || slices.Contains(gone, "models.*") {
		return ""
	}
	excluded := make([]string, len(gone))
	for i, f := range gone {
		excluded[i] = "!" + f
	}
	slices.Sort(excluded)
	return "--offers '" + strings.Join(excluded, ",") + "'"
}
