// Package report turns the results of a run (one results.Result per case ×
// model) into what people and CI read. Build makes the report, the
// reportv1.Report of package v1 (its capability map from package
// capability), and the writers render it: report.json (the type's own
// WriteJSON; the versioned, machine readable record), matrix.md
// (WriteMarkdown, a GitHub job summary), report.html (WriteHTML, one
// self-contained page) and junit.xml (WriteJUnit); WriteAll writes them all
// into a run's --out directory. Comparing reports, their history and
// merging shards are package runs' job.
//
// It is the last stage of the data flow and of the engine imports only the
// results (results, vocab, redact): the CLI passes the catalog's feature
// order in through Meta.Features, so the report never needs the catalog to
// render (a report.json can be re-rendered or diffed years later, by a
// binary that no longer has that catalog).
package report

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/gwconform/gwconform/conformance/redact"
	"github.com/gwconform/gwconform/conformance/results"
	"github.com/gwconform/gwconform/conformance/vocab"
	reportv1 "github.com/gwconform/gwconform/report/apis/v1"
	"github.com/gwconform/gwconform/report/capability"
)

// Build aggregates results into a report. It copies and sanitises what it
// keeps (see sanitize.go), so the caller's slice is not modified.
//
// Models are sorted by name. Features are meta.Features in order, followed by
// any feature that only the results name (sorted), so a result of a case the
// catalog has since dropped still shows. Cells cover every model × feature.
func Build(meta reportv1.Meta, rs []results.Result) *reportv1.Report {
	r := &reportv1.Report{APIVersion: reportv1.APIVersion, Kind: reportv1.Kind, Metadata: metadata(meta)}
	v := results.Judge(rs, meta.Strict, meta.Completion)
	r.Verdict, r.Headline, r.Notes = string(v.Outcome), v.Headline, notes(r.Metadata, v.Notes)
	r.Results = make([]results.Result, len(rs))
	for i, res := range rs {
		r.Results[i] = sanitizeResult(res)
	}
	r.Features, r.Models = featuresAndModels(meta.Features, r.Results)
	SortResults(r.Results, r.Features)
	byCell, byTier := group(r.Results)
	r.Cells = cells(r.Models, r.Features, byCell, meta.Strict)
	r.Totals = tierTotals(byTier, meta.Strict)
	for _, res := range r.Results {
		r.Total.Add(res)
	}
	r.Capabilities = capability.Build(r.Features, r.Results)
	r.Cost = cost(meta, r.Results)
	r.Waivers = waiverUses(r.Results)
	r.UncoveredModels = slices.Clone(meta.Uncovered)
	if r.UncoveredModels == nil {
		r.UncoveredModels = []reportv1.UncoveredModel{}
	}
	r.Causes = causes(r.Results, meta.Strict)
	if meta.Traffic != nil {
		// Observed traffic has clients to sum up, and runs no case a
		// library's needs cite.
		r.Clients = results.Clients(r.Results)
	} else {
		rows, err := results.EmbeddedReadiness(meta.Clients, r.Results)
		if err != nil {
			r.Notes = append(r.Notes, "client readiness not computed: "+err.Error())
		}
		r.Readiness = rows
	}
	return r
}

// causes are the failed results grouped by cause, as the console's recap
// groups them (results.GroupByCause), over the sanitised results in report
// order: each example is the first of its group in the report, and its
// reason is as redacted as the rest. Never nil.
func causes(rs []results.Result, strict bool) []reportv1.Cause {
	out := []reportv1.Cause{}
	for _, g := range results.GroupByCause(rs, strict) {
		out = append(out, reportv1.Cause{
			Cause: g.Cause, Deciding: g.Deciding, Results: g.Results, Cells: g.Cells, Cases: g.Cases,
			Example: reportv1.CauseExample{Case: g.Example.Case, Model: g.Example.Model, Reason: g.Reason},
		})
	}
	return out
}

// metadata is Meta as report.json carries it: the base URLs without
// credentials, the completion only when something of the plan has no result.
func metadata(meta reportv1.Meta) reportv1.Metadata {
	m := reportv1.Metadata{
		SuiteVersion: meta.SuiteVersion,
		Commit:       meta.Commit,
		CatalogHash:  meta.CatalogHash,
		BaseURL:      redact.BaseURL(meta.BaseURL),
		Offers:       meta.Offers,
		Started:      meta.Started,
		Finished:     meta.Finished,
		Strict:       meta.Strict,
		Insecure:     meta.Insecure,
		Recording:    meta.Recording,
		Shard:        meta.Shard,
		ModelMap:     modelMap(meta.ModelMap),
		Traffic:      meta.Traffic,
	}
	if c := meta.Completion; c.Interrupted || c.Unrun > 0 || len(c.MissingShards) > 0 {
		m.Completion = &c
	}
	m.KindBaseURLs = redact.BaseURLs(meta.KindBaseURLs)
	if meta.Replay != nil {
		rp := *meta.Replay
		rp.BaseURL = redact.BaseURL(rp.BaseURL)
		m.Replay = &rp
	}
	return m
}

// notes are the verdict's notes (what was not checked), after what matters
// before them: that the verdict is on recorded traffic, not on the gateway
// today, that the gateway answering may not have been the one asked, and
// that it may not have been asked for the models it knows.
// Never nil.
func notes(m reportv1.Metadata, judged []string) []string {
	notes := append(ModelNameNotes(m.ModelMap), judged...)
	if t := m.Traffic; t != nil {
		note := "observed traffic: no exchange was judged"
		if len(t.Covered) > 0 {
			note = fmt.Sprintf("observed traffic: %d exchanges judged; the spec rows they covered (%d): %s; no other row was judged",
				t.Exchanges, len(t.Covered), strings.Join(t.Covered, ", "))
		}
		if len(t.Bases) > 0 {
			note += fmt.Sprintf("; base URLs: the root and %s (--base-path), each judged as {base_url} plus the path", strings.Join(t.Bases, ", "))
		}
		notes = append([]string{note}, notes...)
	}
	if m.Insecure {
		notes = append([]string{"insecure: the gateway's TLS certificate was not verified (--insecure)"}, notes...)
	}
	if len(m.KindBaseURLs) > 0 {
		notes = append([]string{severalBases(m)}, notes...)
	}
	if rp := m.Replay; rp != nil {
		from := ""
		if rp.BaseURL != "" {
			from = " from " + rp.BaseURL
		}
		notes = append([]string{fmt.Sprintf("replay of the recording %s (recorded %s%s): no request was sent; the checks judged the recorded answers",
			rp.Recording, rp.Recorded.UTC().Format(time.RFC3339), from)}, notes...)
	}
	if notes == nil {
		notes = []string{}
	}
	return notes
}

// featuresAndModels returns the report's columns and rows: the catalog's
// features in order, then the features only the results name, sorted; the
// clients of observed traffic, then the models, each sorted. Never nil.
func featuresAndModels(catalog []string, rs []results.Result) (features, models []string) {
	features, models = []string{}, []string{}
	seenF := map[string]bool{}
	for _, f := range catalog {
		if !seenF[f] {
			seenF[f] = true
			features = append(features, f)
		}
	}
	var extraF []string
	clients, seenM := []string{}, map[string]bool{}
	for _, res := range rs {
		if !seenF[res.Feature] {
			seenF[res.Feature] = true
			extraF = append(extraF, res.Feature)
		}
		switch {
		case seenM[res.Model]:
		case res.Side == results.SideClient:
			clients = append(clients, res.Model)
		default:
			models = append(models, res.Model)
		}
		seenM[res.Model] = true
	}
	slices.Sort(extraF)
	slices.Sort(clients)
	slices.Sort(models)
	// Observed traffic: the client side's rows (one per client) come
	// before the gateway side's (one per model).
	return append(features, extraF...), append(clients, models...)
}

// SortResults orders the results as every report lists them: by feature
// (in the report's order), model, case. The console's recap groups them
// in this order too, so a cause's example is the report's.
func SortResults(rs []results.Result, features []string) {
	fIdx := make(map[string]int, len(features))
	for i, f := range features {
		fIdx[f] = i
	}
	slices.SortStableFunc(rs, func(a, b results.Result) int {
		return cmp.Or(
			cmp.Compare(fIdx[a.Feature], fIdx[b.Feature]),
			cmp.Compare(a.Model, b.Model),
			cmp.Compare(a.Case, b.Case),
		)
	})
}

// modelFeature names a cell.
type modelFeature struct{ model, feature string }

// group sorts the results by cell, in order, and counts them per tier.
func group(rs []results.Result) (byCell map[modelFeature][]results.Result, byTier map[vocab.Tier]*reportv1.Counts) {
	byCell, byTier = map[modelFeature][]results.Result{}, map[vocab.Tier]*reportv1.Counts{}
	for _, res := range rs {
		k := modelFeature{res.Model, res.Feature}
		byCell[k] = append(byCell[k], res)
		if byTier[res.Tier] == nil {
			byTier[res.Tier] = &reportv1.Counts{}
		}
		byTier[res.Tier].Add(res)
	}
	return byCell, byTier
}

// cells aggregates every model × feature, row-major.
func cells(models, features []string, byCell map[modelFeature][]results.Result, strict bool) []reportv1.Cell {
	out := make([]reportv1.Cell, 0, len(models)*len(features))
	for _, m := range models {
		for _, f := range features {
			out = append(out, aggregate(m, f, byCell[modelFeature{m, f}], strict))
		}
	}
	return out
}

// tierTotals gives every known tier a row, so the totals table has a
// stable shape; an unknown tier (a newer runner) is kept after them rather
// than lost.
func tierTotals(byTier map[vocab.Tier]*reportv1.Counts, strict bool) []reportv1.TierTotal {
	out := []reportv1.TierTotal{}
	for _, t := range vocab.Tiers {
		c := reportv1.Counts{}
		if byTier[t] != nil {
			c = *byTier[t]
		}
		out = append(out, reportv1.TierTotal{Tier: t, Counts: c, Decides: t.Decides(strict)})
	}
	var unknown []vocab.Tier
	for t := range byTier {
		if !t.Valid() {
			unknown = append(unknown, t)
		}
	}
	slices.Sort(unknown)
	for _, t := range unknown {
		out = append(out, reportv1.TierTotal{Tier: t, Counts: *byTier[t]})
	}
	return out
}

// cost is what the run planned (meta) and spent: the results' units, and
// the requests refused, apart.
func cost(meta reportv1.Meta, rs []results.Result) reportv1.Cost {
	c := reportv1.Cost{Budget: meta.MaxCost, Planned: meta.PlannedCost}
	for _, res := range rs {
		c.Actual += res.CostUnits
		c.Refused += res.Refused
	}
	c.Actual = math.Round(c.Actual*100) / 100 // sums of float estimates: keep the JSON readable
	return c
}

// waiverUses groups the results that carry a waiver by entry and state:
// waived failures first, then waivers no longer needed, then expired ones,
// each in report order.
func waiverUses(rs []results.Result) []reportv1.WaiverUse {
	out := []reportv1.WaiverUse{}
	idx := map[results.Waiver]int{}
	for _, res := range rs {
		if res.Waiver == nil {
			continue
		}
		w := *res.Waiver
		i, ok := idx[w]
		if !ok {
			i = len(out)
			idx[w] = i
			out = append(out, reportv1.WaiverUse{Case: w.Case, Model: w.Model, Reason: w.Reason, Link: w.Link, Expires: w.Expires, Source: w.Source, State: w.State})
		}
		out[i].Results = append(out[i].Results, reportv1.WaiverMatch{Model: res.Model, Feature: res.Feature, Case: res.Case, Status: res.Status})
	}
	rank := map[results.WaiverState]int{results.WaiverApplied: 0, results.WaiverNotNeeded: 1, results.WaiverExpired: 2}
	slices.SortStableFunc(out, func(a, b reportv1.WaiverUse) int { return cmp.Compare(rank[a.State], rank[b.State]) })
	return out
}

// aggregate computes one cell. The worst status wins, in this order:
// fail > error > throttled > inconclusive > waived > pass > unsupported >
// skip; no results is "none". An inconclusive result sits above pass: a
// refusal whose control was not served says nothing of the feature, so an
// endpoint that refuses everything never shows as passing. A waived result
// sits above pass too: the cell is not known to work, its deviation is
// accepted.
// A cell whose cases passed except for some the gateway declined (explore
// tier) stays "pass" but says "pass k/n", so a partial capability is visible.
func aggregate(model, feature string, rs []results.Result, strict bool) reportv1.Cell {
	c := reportv1.Cell{Model: model, Feature: feature}
	for _, res := range rs {
		c.Counts.Add(res)
		if res.FailsRun(strict) {
			c.Blocking = true
		}
	}
	c.Run = c.Counts.Total - c.Counts.Skip
	c.Status, c.Bad = worstStatus(c.Counts)
	if len(rs) > 0 && !slices.ContainsFunc(rs, func(r results.Result) bool { return !r.NotOffered() }) {
		c.Status = reportv1.CellNotOffered
	}
	c.Label = cellLabel(c)
	return c
}

// worstStatus is the status a cell of these counts shows, and how many of
// its results have it (a fail cell counts fail and error; pass, unsupported,
// skip and none count nothing).
func worstStatus(n reportv1.Counts) (reportv1.CellStatus, int) {
	switch {
	case n.Total == 0:
		return reportv1.CellNone, 0
	case n.Fail > 0:
		return reportv1.CellFail, n.Fail + n.Error
	case n.Error > 0:
		return reportv1.CellError, n.Error
	case n.Throttled > 0:
		return reportv1.CellThrottled, n.Throttled
	case n.Inconclusive > 0:
		return reportv1.CellInconclusive, n.Inconclusive
	case n.Waived > 0:
		return reportv1.CellWaived, n.Waived
	case n.Pass > 0:
		return reportv1.CellPass, 0
	case n.Unsupported > 0:
		return reportv1.CellUnsupported, 0
	}
	return reportv1.CellSkip, 0
}

// cellLabel is a cell's short text: its status, with "k/n" (k of the n
// results run passed: the same count in every cell) when some of them are
// bad or, in a pass cell, declined; "—" for none.
func cellLabel(c reportv1.Cell) string {
	switch {
	case c.Status == reportv1.CellNone:
		return "—"
	case c.Status == reportv1.CellNotOffered:
		return "not offered"
	case c.Status == reportv1.CellPass && c.Counts.Pass < c.Run:
		return fmt.Sprintf("pass %d/%d", c.Counts.Pass, c.Run)
	case c.Bad > 0:
		return fmt.Sprintf("%s %d/%d", c.Status, c.Counts.Pass, c.Run)
	}
	return string(c.Status)
}

// exploreFeatures are the features every result of which is of the
// explore tier: they discover, and cannot fail a run. One pass over the
// results, for matrix.md and report.html alike.
func exploreFeatures(r *reportv1.Report) map[string]bool {
	explore := map[string]bool{}
	for _, res := range r.Results {
		if v, seen := explore[res.Feature]; !seen || v {
			explore[res.Feature] = res.Tier == vocab.TierExplore
		}
	}
	for f, v := range explore {
		if !v {
			delete(explore, f)
		}
	}
	return explore
}

// Span returns the earliest start and the latest end (start + duration) of a
// set of results: the run's window when only results.jsonl files are at hand,
// as for merge and re-rendering.
func Span(rs []results.Result) (started, finished time.Time) {
	for _, r := range rs {
		if r.Started.IsZero() {
			continue
		}
		end := r.Started.Add(time.Duration(r.DurationMS) * time.Millisecond)
		if started.IsZero() || r.Started.Before(started) {
			started = r.Started
		}
		if end.After(finished) {
			finished = end
		}
	}
	return started, finished
}

// featureGroups splits features into display groups for the matrices: by their
// first dot-separated segment, and a group of more than maxGroup features by
// its first two segments (so "images" becomes "images.generate" and
// "images.edit"). Order follows the features' order.
func featureGroups(features []string) []featureGroup {
	const maxGroup = 8
	first := func(f string) string { s, _, _ := strings.Cut(f, "."); return s }
	two := func(f string) string {
		parts := strings.SplitN(f, ".", 3)
		if len(parts) < 2 {
			return parts[0]
		}
		return parts[0] + "." + parts[1]
	}
	size := map[string]int{}
	for _, f := range features {
		size[first(f)]++
	}
	var out []featureGroup
	idx := map[string]int{}
	for _, f := range features {
		g := first(f)
		if size[g] > maxGroup {
			g = two(f)
		}
		i, ok := idx[g]
		if !ok {
			i = len(out)
			idx[g] = i
			out = append(out, featureGroup{Name: g})
		}
		out[i].Features = append(out[i].Features, f)
	}
	return out
}

type featureGroup struct {
	Name     string   `json:"name"`
	Features []string `json:"features"`
}

// severalBases says plainly that the run used several base URLs, which the
// spec's single {base_url} does not provide: each base with its key kinds.
func severalBases(m reportv1.Metadata) string {
	byBase := map[string][]string{}
	var order []string
	for _, k := range []string{"text", "messages", "image", "alt"} {
		base := cmp.Or(m.KindBaseURLs[k], m.BaseURL)
		if byBase[base] == nil {
			order = append(order, base)
		}
		byBase[base] = append(byBase[base], k)
	}
	parts := make([]string, len(order))
	for i, base := range order {
		parts[i] = strings.Join(byBase[base], ", ") + " at " + base
	}
	return "several base URLs: " + strings.Join(parts, "; ") + " (the spec has one {base_url})"
}
