// Package waivers reads a --waivers file, the known deviations a team has
// accepted, and applies it to results: a failure an entry covers becomes
// `waived` (reported apart, never failing the run) until the entry expires.
//
// The file is a YAML list; every field is required:
//
//   - case: edit-webp-*            # case id glob (path.Match syntax)
//     model: gen-image-2*          # model glob
//     reason: the relay drops output_format
//     link: https://tracker.example/GW-1234
//     expires: 2026-04-01          # from this day (UTC) on, the entry no longer applies
//
// It is read as strictly as the case files: unknown or repeated fields,
// missing ones, bad globs and bad dates are errors at file:line:col, all of
// them at once.
package waivers

import (
	"cmp"
	"errors"
	"fmt"
	"os"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/gwconform/gwconform/conformance/catalog"
	"github.com/gwconform/gwconform/conformance/modelid"
	"github.com/gwconform/gwconform/conformance/results"
	"github.com/gwconform/gwconform/conformance/vocab"
)

// Variable names the waivers file for go test (TestConformance), and is
// the default of gwconform run --waivers.
const Variable = "GWCONFORM_WAIVERS"

// DateLayout is how expires is written.
const DateLayout = "2006-01-02"

// Entry is one accepted deviation.
type Entry struct {
	Case, Model  string // globs
	Reason, Link string
	// Expires is the first day (UTC midnight) the entry no longer applies.
	Expires time.Time
	// Source is where the entry starts: "file:line".
	Source string
}

// Live reports whether the entry applies at now.
func (e Entry) Live(now time.Time) bool { return now.Before(e.Expires) }

// matches reports whether the entry covers a case × model.
func (e Entry) matches(caseID, model string) bool {
	okCase, _ := path.Match(e.Case, caseID)
	okModel, _ := path.Match(e.Model, model)
	return okCase && okModel
}

// Set is a loaded waivers file.
type Set struct {
	Entries []Entry
}

// Load reads and checks a waivers file.
func Load(file string) (*Set, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	return Parse(file, b)
}

// fields are the keys of an entry, all required, in the order errors name them.
var fields = []string{"case", "model", "reason", "link", "expires"}

// Parse checks the waivers file named file, read with the case files'
// strict reader (catalog.ReadRecords). On problems it returns
// catalog.Diagnostics holding every one, sorted by position.
func Parse(file string, data []byte) (*Set, error) {
	records, diags := catalog.ReadRecords(file, data, fields,
		"a waivers file is a list of entries (- case: ..., model: ..., reason: ..., link: ..., expires: ...)")
	at := func(p catalog.Pos, format string, args ...any) {
		diags = append(diags, catalog.Diagnostic{File: file, Line: p.Line, Col: p.Col, Message: fmt.Sprintf(format, args...)})
	}
	set := &Set{}
	for i, r := range records {
		vals := map[string]string{}
		e := Entry{Source: fmt.Sprintf("%s:%d", file, r.At.Line)}
		bad := false
		for _, k := range fields {
			f, given := r.Fields[k]
			switch {
			case !given:
				at(r.At, "entry %d: %s is missing", i+1, k)
				bad = true
			case !f.Scalar:
				bad = true // reported by the reader
			case f.Text == "":
				at(f.At, "entry %d: %s is empty", i+1, k)
				bad = true
			default:
				vals[k] = f.Text
			}
		}
		for _, k := range []string{"case", "model"} {
			if _, err := path.Match(vals[k], ""); err != nil {
				at(r.Fields[k].At, "entry %d: %s %q is not a valid glob: %v", i+1, k, vals[k], err)
				bad = true
			}
		}
		if v, ok := vals["expires"]; ok {
			t, err := time.Parse(DateLayout, v)
			if err != nil {
				at(r.Fields["expires"].At, "entry %d: expires %q: want a date YYYY-MM-DD", i+1, v)
				bad = true
			}
			e.Expires = t
		}
		e.Case, e.Model, e.Reason, e.Link = vals["case"], vals["model"], vals["reason"], vals["link"]
		if !bad {
			set.Entries = append(set.Entries, e)
		}
	}
	if len(diags) > 0 {
		slices.SortFunc(diags, func(a, b catalog.Diagnostic) int {
			return cmp.Or(cmp.Compare(a.Line, b.Line), cmp.Compare(a.Col, b.Col), cmp.Compare(a.Message, b.Message))
		})
		return nil, diags
	}
	return set, nil
}

// Check refuses entries whose case or model glob matches nothing in the
// catalog (its models by the spec's ids or by gatewayIDs, the gateway's
// names for them): a typo would otherwise waive nothing, silently, and the
// failure it was meant for would page someone anyway — or, worse, a later
// case would match it unseen. Each refusal names the entry with a
// did-you-mean.
func (s *Set) Check(cat *catalog.Catalog, gatewayIDs []string) error {
	if s == nil {
		return nil
	}
	var ids []string
	models := slices.Clone(gatewayIDs)
	for i := range cat.Cases {
		ids = append(ids, cat.Cases[i].ID)
		models = append(models, cat.Cases[i].Models...)
	}
	slices.Sort(models)
	models = slices.Compact(models)
	var errs []string
	for _, e := range s.Entries {
		for _, f := range []struct {
			field, glob string
			names       []string
		}{{"case", e.Case, ids}, {"model", e.Model, models}} {
			if !slices.ContainsFunc(f.names, func(n string) bool { ok, _ := path.Match(f.glob, n); return ok }) {
				errs = append(errs, fmt.Sprintf("%s: %s %q matches nothing in the catalog%s", e.Source, f.field, f.glob, catalog.Closest(f.glob, f.names)))
			}
		}
	}
	if len(errs) > 0 {
		return errors.New(strings.Join(errs, "\n"))
	}
	return nil
}

// find returns the entry covering case × model: the first live one, else
// the first expired one (so a renewed entry added beside an expired one
// takes over), and false when none matches.
func (s *Set) find(caseID, model string, now time.Time) (Entry, bool) {
	var expired *Entry
	for i, e := range s.Entries {
		if !e.matches(caseID, model) {
			continue
		}
		if e.Live(now) {
			return e, true
		}
		if expired == nil {
			expired = &s.Entries[i]
		}
	}
	if expired != nil {
		return *expired, true
	}
	return Entry{}, false
}

// Apply judges one result against the waivers at now. Only a result that
// decides the exit code (results.Result.Decides) is touched:
//
//   - a fail under a live entry becomes waived;
//   - a pass under a live entry is marked "not needed";
//   - a fail or pass under an expired entry only is marked "expired": the
//     entry no longer applies and the report says so.
//
// An error is never waived: it says the run broke (a bad fixture, DNS), not
// that the gateway has the deviation the entry accepts. Throttled and
// skipped results are left alone: nothing was judged.
func (s *Set) Apply(r *results.Result, strict bool, now time.Time) {
	if s == nil || !r.Decides(strict) || (r.Status != vocab.StatusFail && r.Status != vocab.StatusPass) {
		return
	}
	e, ok := s.find(r.Case, r.Model, now)
	if !ok && r.GatewayModel != "" { // an entry may name the gateway's id
		e, ok = s.find(r.Case, r.GatewayModel, now)
	}
	for _, v := range modelid.VendorSpellings(r.Model) { // or the model in a vendor's words
		if !ok {
			e, ok = s.find(r.Case, v, now)
		}
	}
	if !ok {
		return
	}
	w := &results.Waiver{Case: e.Case, Model: e.Model, Reason: e.Reason, Link: e.Link, Expires: e.Expires.Format(DateLayout), Source: e.Source}
	switch {
	case !e.Live(now):
		w.State = results.WaiverExpired
	case r.Status == vocab.StatusFail:
		w.State = results.WaiverApplied
		r.Status = vocab.StatusWaived
	default:
		w.State = results.WaiverNotNeeded
	}
	r.Waiver = w
}
