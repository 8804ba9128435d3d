// Package readiness tells, per client library of the table of clients
// (cases/clients/clients.yaml), whether it will work against the gateway a
// run judged: each answer property the library depends on is held against
// the results of the check of the catalog it is tied to. It reads results
// and catalog data only; the engine never imports it.
package readiness

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/gwconform/gwconform/conformance/catalog"
	"github.com/gwconform/gwconform/conformance/results"
	"github.com/gwconform/gwconform/conformance/vocab"
	reportv1 "github.com/gwconform/gwconform/report/apis/v1"
)

// Rows is the readiness of each library of the table with uses whose id
// matches one of globs (all of them when there is none), in the table's
// order, from the results of a run of the catalog.
func Rows(table *catalog.Clients, globs []string, rs []results.Result) []reportv1.ClientReadiness {
	byCase := map[string][]results.Result{}
	for _, r := range rs {
		if !r.Observed {
			byCase[r.Case] = append(byCase[r.Case], r)
		}
	}
	out := []reportv1.ClientReadiness{}
	for _, c := range table.Entries {
		if len(c.Uses) == 0 || !Selected(c.ID, globs) {
			continue
		}
		out = append(out, client(c, byCase))
	}
	return out
}

// Selected says whether a library's id matches one of globs, or there is
// none.
func Selected(id string, globs []string) bool {
	if len(globs) == 0 {
		return true
	}
	return slices.ContainsFunc(globs, func(g string) bool {
		ok, _ := path.Match(g, id)
		return ok
	})
}

// client is one library's readiness: NOT READY when a need of its basic
// path fails (a basic need of a basic feature), LIMITED when another need
// fails, UNKNOWN when none fails but one was not checked, else READY.
func client(c catalog.Client, byCase map[string][]results.Result) reportv1.ClientReadiness {
	row := reportv1.ClientReadiness{Client: c.ID, Package: c.Package, Verdict: reportv1.ReadyYes, Because: []string{}}
	var limited, unknown []string
	for _, u := range c.Uses {
		f := feature(u, byCase)
		row.Features = append(row.Features, f)
		for _, n := range f.Needs {
			line := fmt.Sprintf("%s: %s %s: %s; %s needs it: %s (%s)", u.Feature, n.Check, n.State, n.Said, c.ID, n.Property, n.Source)
			switch {
			case n.State == reportv1.NeedFails && n.Basic && u.Basic:
				row.Verdict = reportv1.ReadyNot
				row.Because = append(row.Because, line)
			case n.State == reportv1.NeedFails:
				limited = append(limited, line)
			case n.State == reportv1.NeedUnchecked:
				unknown = append(unknown, line)
			}
		}
	}
	switch {
	case row.Verdict == reportv1.ReadyNot:
		row.Because = append(row.Because, limited...)
	case len(limited) > 0:
		row.Verdict, row.Because = reportv1.ReadyLimited, limited
	case len(unknown) > 0:
		row.Verdict, row.Because = reportv1.ReadyUnknown, unknown
	}
	return row
}

// feature is one library × feature: NOT READY when a basic need fails,
// LIMITED when another one does, UNKNOWN when one was not checked.
func feature(u catalog.Use, byCase map[string][]results.Result) reportv1.FeatureReadiness {
	f := reportv1.FeatureReadiness{Feature: u.Feature, Endpoint: u.Endpoint, Basic: u.Basic, Verdict: reportv1.ReadyYes}
	rank := map[reportv1.Readiness]int{reportv1.ReadyYes: 0, reportv1.ReadyUnknown: 1, reportv1.ReadyLimited: 2, reportv1.ReadyNot: 3}
	for _, n := range u.Needs {
		s := need(n, byCase[n.Case])
		f.Needs = append(f.Needs, s)
		v := reportv1.ReadyYes
		switch {
		case s.State == reportv1.NeedFails && n.Basic:
			v = reportv1.ReadyNot
		case s.State == reportv1.NeedFails:
			v = reportv1.ReadyLimited
		case s.State == reportv1.NeedUnchecked:
			v = reportv1.ReadyUnknown
		}
		if rank[v] > rank[f.Verdict] {
			f.Verdict = v
		}
	}
	return f
}

// need holds one need against the results of its case (one per model):
// it fails when one of them failed for the need's reason, and is
// unchecked when none was judged, or every failure came before the
// need's check was reached (a status or transport failure before a
// stream rule).
func need(n catalog.Need, rs []results.Result) reportv1.NeedState {
	s := reportv1.NeedState{Property: n.Property, Basic: n.Basic, Check: n.Cites(), Tier: string(n.Tier()),
		BeyondSpec: n.BeyondSpec, Source: n.Source.Where(), Driven: n.Source.Driven != ""}
	if len(rs) == 0 {
		s.State, s.Said = reportv1.NeedUnchecked, fmt.Sprintf("case %s (%s tier) is not in this run", n.Case, n.Tier())
		return s
	}
	var held bool
	var unchecked string
	for _, r := range rs {
		switch state, said := judge(n, r); state {
		case reportv1.NeedFails:
			s.State, s.Said = state, said
			return s
		case reportv1.NeedHolds:
			held = true
		default:
			if unchecked == "" {
				unchecked = said
			}
		}
	}
	if held {
		s.State = reportv1.NeedHolds
		return s
	}
	s.State, s.Said = reportv1.NeedUnchecked, unchecked
	return s
}

// judge holds a need against one result of its case.
func judge(n catalog.Need, r results.Result) (state, said string) {
	on := r.Case + " × " + r.Model + ": "
	switch {
	case r.Cancelled:
		return reportv1.NeedUnchecked, on + "cut short by the interrupt"
	case r.Status == vocab.StatusPass:
		return reportv1.NeedHolds, ""
	case r.Status != vocab.StatusFail && r.Status != vocab.StatusWaived && r.Status != vocab.StatusUnsupported:
		return reportv1.NeedUnchecked, on + string(r.Status) + " " + r.FirstReason()
	}
	for _, reason := range r.Reasons {
		if n.Matches(reason) {
			return reportv1.NeedFails, on + reason.String()
		}
	}
	if n.Check == "" && n.Rule == "" {
		return reportv1.NeedFails, on + string(r.Status) + " " + r.FirstReason()
	}
	for _, reason := range r.Reasons {
		if stage(reason.Check) < stage(needCheck(n)) {
			return reportv1.NeedUnchecked, on + "not judged: " + reason.String()
		}
	}
	return reportv1.NeedHolds, ""
}

// needCheck is the check a need reads: its own, or sse for a stream rule.
func needCheck(n catalog.Need) string {
	if n.Check == "" {
		return "sse"
	}
	return n.Check
}

// stage orders the checks as an answer is judged: a failure of an
// earlier stage (no answer, a wrong status, a wrong Content-Type) leaves
// the later ones unjudged.
func stage(check string) int {
	switch check {
	case "transport":
		return 0
	case "status":
		return 1
	case "content_type":
		return 2
	}
	return 3
}

// Features is a row's features and their verdicts on one line:
// "chat.basic NOT READY, chat.stream READY"; a feature of the library's
// basic path is marked with *.
func Features(row reportv1.ClientReadiness) string {
	var b strings.Builder
	for i, f := range row.Features {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(f.Feature)
		if f.Basic {
			b.WriteString("*")
		}
		b.WriteString(" " + f.Verdict.Label())
	}
	return b.String()
}
