// Package report turns the results of a run (one results.Result per case ×
// model) into what people and CI read: report.json (the versioned, machine
// readable record), matrix.md (a GitHub job summary), report.html (one
// self-contained page), junit.xml; it also compares two reports (Compare) and
// merges the results of shards (Merge).
//
// It is the last stage of the data flow and imports only results: the CLI
// passes the catalog's feature order in through Meta.Features, so the report
// never needs the catalog to render (a report.json can be re-rendered or diffed
// years later, by a binary that no longer has that catalog).
package report

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/gwconform/gwconform/conformance/redact"
	"github.com/gwconform/gwconform/conformance/vocab"

	"github.com/gwconform/gwconform/conformance/results"
)

// APIVersion and Kind identify the report.json format. Bump the version on any
// change that is not a pure addition; ReadJSON refuses versions it does not know.
const (
	APIVersion = "gwconform.dev/v1alpha1"
	Kind       = "ConformanceReport"
)

// ReferenceGateway is how every report names the in-process reference
// gateway (an empty base URL): its loopback address is a detail of one
// process, never worth comparing.
const ReferenceGateway = "reference gateway (in-process)"

// Meta is what the runner knows about a run beyond its results.
type Meta struct {
	SuiteVersion string
	Commit       string
	CatalogHash  string
	// BaseURL is the gateway judged; empty for the in-process reference
	// gateway (ReferenceGateway). It never carries keys; Build strips
	// userinfo and query anyway.
	BaseURL  string
	Started  time.Time
	Finished time.Time
	Features []string // column order: catalog.Features
	Strict   bool
	// Insecure: the gateway's certificate was not verified (--insecure).
	Insecure bool
	// MaxCost is the --max-cost budget (0: none) and PlannedCost the plan's
	// estimate of the calls it would make (nil: not known, e.g. results
	// re-rendered without their run's manifest).
	MaxCost     float64
	PlannedCost *float64
	// Uncovered are the models the gateway lists, per key, that no case of
	// the catalog names (coverage drift: gwconform probe finds what they do).
	Uncovered []UncoveredModel
	// Recording is the run --record directory that keeps the run's whole
	// exchanges; Replay, set for run --replay, names the recording judged.
	Recording string
	Replay    *Replay
	// Shard is the part of a split run these results are ("1/2"; empty:
	// the whole plan), so merge can tell a missing shard.
	Shard string
	// Completion says what of the plan has no result: an interrupt, a
	// missing shard (zero: the plan finished).
	Completion results.Completion
}

// Replay says a run judged a recording, not a gateway: which recording,
// when it was made and against which gateway.
type Replay struct {
	Recording string    `json:"recording"`
	Recorded  time.Time `json:"recorded"`
	BaseURL   string    `json:"baseURL,omitempty"`
}

// UncoveredModel is a model a key lists that no case covers.
type UncoveredModel struct {
	Key   string `json:"key"`
	Model string `json:"model"`
}

// Cost is what a run planned and spent, in the estimate's cost units
// (one text call is 1; see gwconform plan).
type Cost struct {
	Budget float64 `json:"budget,omitempty"` // --max-cost; absent: no cap
	// Planned is the plan's estimate for the calls it would make; absent
	// when not known.
	Planned *float64 `json:"planned,omitempty"`
	// Actual sums the results' cost_units: every attempt of every call,
	// retries and --rerun-failed re-runs included, but for the requests
	// answered 4xx or 5xx (no output), which cost nothing.
	Actual float64 `json:"actual"`
	// Refused counts those requests, apart: 429s, refusals, 5xx answers.
	Refused int `json:"refused"`
}

// WaiverUse is one --waivers entry as this run used it: what it did, and
// the results it matched.
type WaiverUse struct {
	Case    string              `json:"case"`
	Model   string              `json:"model"`
	Reason  string              `json:"reason"`
	Link    string              `json:"link"`
	Expires string              `json:"expires"`
	Source  string              `json:"source"`
	State   results.WaiverState `json:"state"`
	Results []WaiverMatch       `json:"results"`
}

// WaiverMatch is one result a waiver matched.
type WaiverMatch struct {
	Model   string       `json:"model"`
	Feature string       `json:"feature"`
	Case    string       `json:"case"`
	Status  vocab.Status `json:"status"`
}

// Metadata is Meta as written in report.json.
type Metadata struct {
	SuiteVersion string    `json:"suiteVersion"`
	Commit       string    `json:"commit,omitempty"`
	CatalogHash  string    `json:"catalogHash,omitempty"`
	BaseURL      string    `json:"baseURL,omitempty"`
	Started      time.Time `json:"started"`
	Finished     time.Time `json:"finished"`
	Strict       bool      `json:"strict"`
	Insecure     bool      `json:"insecure,omitempty"`
	// Recording is where run --record kept the whole exchanges (added
	// within v1alpha1).
	Recording string `json:"recording,omitempty"`
	// Replay is set when the run re-judged a recording with no network
	// (run --replay; added within v1alpha1).
	Replay *Replay `json:"replay,omitempty"`
	// Shard is the part of a split run ("1/2"; added within v1alpha1).
	Shard string `json:"shard,omitempty"`
	// Completion says what of the plan has no result, when something has
	// none: an interrupt, a missing shard (added within v1alpha1).
	Completion *results.Completion `json:"completion,omitempty"`
}

// Counts holds how many results had each status. Every status is a field (not
// a map) so report.json always carries all of them and the schema can require
// them (waived and inconclusive were added within v1alpha1, so older reports
// lack them).
type Counts struct {
	Pass         int `json:"pass"`
	Fail         int `json:"fail"`
	Error        int `json:"error"`
	Skip         int `json:"skip"`
	Unsupported  int `json:"unsupported"`
	Throttled    int `json:"throttled"`
	Inconclusive int `json:"inconclusive"`
	Waived       int `json:"waived"`
	Total        int `json:"total"`
	Flaky        int `json:"flaky"` // passes that needed a retry or a re-run
}

// Add counts one result.
func (c *Counts) Add(r results.Result) {
	switch r.Status {
	case vocab.StatusPass:
		c.Pass++
	case vocab.StatusFail:
		c.Fail++
	case vocab.StatusError:
		c.Error++
	case vocab.StatusSkip:
		c.Skip++
	case vocab.StatusUnsupported:
		c.Unsupported++
	case vocab.StatusThrottled:
		c.Throttled++
	case vocab.StatusInconclusive:
		c.Inconclusive++
	case vocab.StatusWaived:
		c.Waived++
	}
	c.Total++
	if r.Flaky {
		c.Flaky++
	}
}

// Of returns the count for one status.
func (c Counts) Of(s vocab.Status) int {
	switch s {
	case vocab.StatusPass:
		return c.Pass
	case vocab.StatusFail:
		return c.Fail
	case vocab.StatusError:
		return c.Error
	case vocab.StatusSkip:
		return c.Skip
	case vocab.StatusUnsupported:
		return c.Unsupported
	case vocab.StatusThrottled:
		return c.Throttled
	case vocab.StatusInconclusive:
		return c.Inconclusive
	case vocab.StatusWaived:
		return c.Waived
	}
	return 0
}

// CellStatus is the aggregate of one model × feature.
type CellStatus string

// Cell statuses. They reuse the result status names, plus CellNone for a
// feature with no case for that model ("—": the feature does not apply).
const (
	CellPass      CellStatus = "pass"
	CellFail      CellStatus = "fail"
	CellError     CellStatus = "error"
	CellThrottled CellStatus = "throttled"
	// CellInconclusive: refusals whose control was not served; the feature
	// is not known to work (an endpoint refusing everything shows here).
	CellInconclusive CellStatus = "inconclusive"
	CellWaived       CellStatus = "waived"
	CellUnsupported  CellStatus = "unsupported"
	CellSkip         CellStatus = "skip"
	CellNone         CellStatus = "none"
)

// CellStatuses lists every cell status in the order legends show them.
var CellStatuses = []CellStatus{CellPass, CellFail, CellError, CellThrottled, CellInconclusive, CellWaived, CellUnsupported, CellSkip, CellNone}

// Cell aggregates one model's cases of one feature.
type Cell struct {
	Model   string     `json:"model"`
	Feature string     `json:"feature"`
	Status  CellStatus `json:"status"`
	// Label is the short text of the cell: "pass", "fail 3/5" (3 of the 5
	// cases run passed: the count means the same in every cell), "skip", "—".
	Label string `json:"label"`
	// Bad and Run give the "k/n" of the label: k results of the worst status
	// (fail counts fail+error) out of n results that ran (everything but skip).
	Bad int `json:"bad"`
	Run int `json:"run"`
	// Blocking is true when a result of the cell fails the run (Result.Counts
	// and Result.Failed): a strict-tier fail without --strict is red but not
	// blocking, and reports show the two apart.
	Blocking bool   `json:"blocking"`
	Counts   Counts `json:"counts"`
}

// TierTotal counts the results of one tier.
type TierTotal struct {
	Tier   vocab.Tier `json:"tier"`
	Counts Counts     `json:"counts"`
	// Decides says whether this tier's failures decide the exit code.
	Decides bool `json:"decides"`
}

// Report is everything the writers render, and the content of report.json.
type Report struct {
	APIVersion string   `json:"apiVersion"`
	Kind       string   `json:"kind"`
	Metadata   Metadata `json:"metadata"`
	// Verdict is the run's outcome (results.Judge, the exit code's rule in
	// DESIGN.md): pass, fail or incomplete. Headline says it in one line and
	// Notes list what was not checked (a key not set or rejected, throttling).
	Verdict  string      `json:"verdict"`
	Headline string      `json:"headline"`
	Notes    []string    `json:"notes"`
	Models   []string    `json:"models"`
	Features []string    `json:"features"`
	Cells    []Cell      `json:"cells"` // Models × Features, row-major
	Totals   []TierTotal `json:"totals"`
	Total    Counts      `json:"total"`
	// Capabilities is the capability map of the explore tier: per explore
	// feature with parameterised cases, each model's verdict on each
	// parameter value (capabilities.go). Empty when no result carries Params.
	Capabilities []Capability `json:"capabilities"`
	// Cost is what the run planned and spent (added within v1alpha1).
	Cost Cost `json:"cost"`
	// Waivers lists the --waivers entries the results matched, by what they
	// did: waived failures, no longer needed, expired (added within v1alpha1).
	Waivers []WaiverUse `json:"waivers"`
	// UncoveredModels are the models the gateway lists, per key, that no
	// case covers (added within v1alpha1).
	UncoveredModels []UncoveredModel `json:"uncoveredModels"`
	Results         []results.Result `json:"results"`
}

// Build aggregates results into a report. It copies and sanitises what it
// keeps (see sanitize.go), so the caller's slice is not modified.
//
// Models are sorted by name. Features are meta.Features in order, followed by
// any feature that only the results name (sorted), so a result of a case the
// catalog has since dropped still shows. Cells cover every model × feature.
func Build(meta Meta, rs []results.Result) *Report {
	r := &Report{
		APIVersion: APIVersion,
		Kind:       Kind,
		Metadata: Metadata{
			SuiteVersion: meta.SuiteVersion,
			Commit:       meta.Commit,
			CatalogHash:  meta.CatalogHash,
			BaseURL:      redact.BaseURL(meta.BaseURL),
			Started:      meta.Started,
			Finished:     meta.Finished,
			Strict:       meta.Strict,
			Insecure:     meta.Insecure,
			Recording:    meta.Recording,
			Shard:        meta.Shard,
		},
	}
	if meta.Completion.Interrupted || meta.Completion.Unrun > 0 || len(meta.Completion.MissingShards) > 0 {
		c := meta.Completion
		r.Metadata.Completion = &c
	}
	if meta.Replay != nil {
		rp := *meta.Replay
		rp.BaseURL = redact.BaseURL(rp.BaseURL)
		r.Metadata.Replay = &rp
	}
	v := results.Judge(rs, meta.Strict, meta.Completion)
	r.Verdict, r.Headline, r.Notes = string(v.Outcome), v.Headline, v.Notes
	if meta.Insecure {
		// First, in every report: nothing else matters if the gateway
		// answering may not have been the one asked.
		r.Notes = append([]string{"insecure: the gateway's TLS certificate was not verified (--insecure)"}, r.Notes...)
	}
	if rp := r.Metadata.Replay; rp != nil {
		// First too: this verdict is on recorded traffic, not on the gateway today.
		from := ""
		if rp.BaseURL != "" {
			from = " from " + rp.BaseURL
		}
		r.Notes = append([]string{fmt.Sprintf("replay of the recording %s (recorded %s%s): no request was sent; the checks judged the recorded answers",
			rp.Recording, rp.Recorded.UTC().Format(time.RFC3339), from)}, r.Notes...)
	}
	if r.Notes == nil {
		r.Notes = []string{}
	}

	r.Results = make([]results.Result, len(rs))
	for i, res := range rs {
		r.Results[i] = sanitizeResult(res)
	}

	seenF := map[string]bool{}
	for _, f := range meta.Features {
		if !seenF[f] {
			seenF[f] = true
			r.Features = append(r.Features, f)
		}
	}
	var extraF []string
	seenM := map[string]bool{}
	for _, res := range r.Results {
		if !seenF[res.Feature] {
			seenF[res.Feature] = true
			extraF = append(extraF, res.Feature)
		}
		if !seenM[res.Model] {
			seenM[res.Model] = true
			r.Models = append(r.Models, res.Model)
		}
	}
	slices.Sort(extraF)
	r.Features = append(r.Features, extraF...)
	slices.Sort(r.Models)
	if r.Models == nil {
		r.Models = []string{}
	}
	if r.Features == nil {
		r.Features = []string{}
	}

	fIdx := make(map[string]int, len(r.Features))
	for i, f := range r.Features {
		fIdx[f] = i
	}
	slices.SortStableFunc(r.Results, func(a, b results.Result) int {
		return cmp.Or(
			cmp.Compare(fIdx[a.Feature], fIdx[b.Feature]),
			cmp.Compare(a.Model, b.Model),
			cmp.Compare(a.Case, b.Case),
		)
	})

	type mf struct{ m, f string }
	byCell := map[mf][]results.Result{}
	tiers := map[vocab.Tier]*Counts{}
	for _, res := range r.Results {
		k := mf{res.Model, res.Feature}
		byCell[k] = append(byCell[k], res)
		if tiers[res.Tier] == nil {
			tiers[res.Tier] = &Counts{}
		}
		tiers[res.Tier].Add(res)
		r.Total.Add(res)
	}

	r.Cells = make([]Cell, 0, len(r.Models)*len(r.Features))
	for _, m := range r.Models {
		for _, f := range r.Features {
			r.Cells = append(r.Cells, aggregate(m, f, byCell[mf{m, f}], meta.Strict))
		}
	}

	// Every known tier gets a row, so the totals table has a stable shape;
	// an unknown tier (a newer runner) is kept after them rather than lost.
	r.Totals = []TierTotal{}
	for _, t := range vocab.Tiers {
		c := Counts{}
		if tiers[t] != nil {
			c = *tiers[t]
		}
		r.Totals = append(r.Totals, TierTotal{Tier: t, Counts: c, Decides: t.Decides(meta.Strict)})
	}
	var unknown []vocab.Tier
	for t := range tiers {
		if !t.Valid() {
			unknown = append(unknown, t)
		}
	}
	slices.Sort(unknown)
	for _, t := range unknown {
		r.Totals = append(r.Totals, TierTotal{Tier: t, Counts: *tiers[t]})
	}
	r.Capabilities = buildCapabilities(r.Features, r.Results)
	r.Cost = Cost{Budget: meta.MaxCost, Planned: meta.PlannedCost}
	for _, res := range r.Results {
		r.Cost.Actual += res.CostUnits
		r.Cost.Refused += res.Refused
	}
	r.Cost.Actual = math.Round(r.Cost.Actual*100) / 100 // sums of float estimates: keep the JSON readable
	r.Waivers = waiverUses(r.Results)
	r.UncoveredModels = slices.Clone(meta.Uncovered)
	if r.UncoveredModels == nil {
		r.UncoveredModels = []UncoveredModel{}
	}
	return r
}

// waiverUses groups the results that carry a waiver by entry and state:
// waived failures first, then waivers no longer needed, then expired ones,
// each in report order.
func waiverUses(rs []results.Result) []WaiverUse {
	out := []WaiverUse{}
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
			out = append(out, WaiverUse{Case: w.Case, Model: w.Model, Reason: w.Reason, Link: w.Link, Expires: w.Expires, Source: w.Source, State: w.State})
		}
		out[i].Results = append(out[i].Results, WaiverMatch{Model: res.Model, Feature: res.Feature, Case: res.Case, Status: res.Status})
	}
	rank := map[results.WaiverState]int{results.WaiverApplied: 0, results.WaiverNotNeeded: 1, results.WaiverExpired: 2}
	slices.SortStableFunc(out, func(a, b WaiverUse) int { return cmp.Compare(rank[a.State], rank[b.State]) })
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
func aggregate(model, feature string, rs []results.Result, strict bool) Cell {
	c := Cell{Model: model, Feature: feature}
	for _, res := range rs {
		c.Counts.Add(res)
		if res.FailsRun(strict) {
			c.Blocking = true
		}
	}
	n := c.Counts
	c.Run = n.Total - n.Skip
	switch {
	case n.Total == 0:
		c.Status, c.Label = CellNone, "—"
		return c
	case n.Fail > 0:
		c.Status, c.Bad = CellFail, n.Fail+n.Error
	case n.Error > 0:
		c.Status, c.Bad = CellError, n.Error
	case n.Throttled > 0:
		c.Status, c.Bad = CellThrottled, n.Throttled
	case n.Inconclusive > 0:
		c.Status, c.Bad = CellInconclusive, n.Inconclusive
	case n.Waived > 0:
		c.Status, c.Bad = CellWaived, n.Waived
	case n.Pass > 0:
		c.Status = CellPass
		if n.Pass < c.Run {
			c.Label = fmt.Sprintf("pass %d/%d", n.Pass, c.Run)
		}
	case n.Unsupported > 0:
		c.Status = CellUnsupported
	default:
		c.Status = CellSkip
	}
	if c.Label == "" {
		c.Label = string(c.Status)
		if c.Bad > 0 {
			// The count is the same in every cell: passed of those run.
			c.Label = fmt.Sprintf("%s %d/%d", c.Status, n.Pass, c.Run)
		}
	}
	return c
}

// exploreFeatures are the features every result of which is of the
// explore tier: they discover, and cannot fail a run. One pass over the
// results, for matrix.md and report.html alike.
func (r *Report) exploreFeatures() map[string]bool {
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

// Cell returns the cell of model × feature, and false when the report has no
// such row or column.
func (r *Report) Cell(model, feature string) (Cell, bool) {
	mi := slices.Index(r.Models, model)
	fi := slices.Index(r.Features, feature)
	if mi < 0 || fi < 0 || mi*len(r.Features)+fi >= len(r.Cells) {
		return Cell{}, false
	}
	return r.Cells[mi*len(r.Features)+fi], true
}

// ResultsOf returns the results of one cell, in report order.
func (r *Report) ResultsOf(model, feature string) []results.Result {
	var out []results.Result
	for _, res := range r.Results {
		if res.Model == model && res.Feature == feature {
			out = append(out, res)
		}
	}
	return out
}

// WriteJSON writes report.json, indented for people and diffs.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// ReadJSON parses a report.json written by WriteJSON. It refuses another
// apiVersion or kind: comparing reports of different formats would silently
// misread them. Unknown fields are allowed, because v1alpha1 may gain fields.
func ReadJSON(rd io.Reader) (*Report, error) {
	var r Report
	if err := json.NewDecoder(rd).Decode(&r); err != nil {
		return nil, fmt.Errorf("report.json: %w", err)
	}
	if r.Kind != Kind {
		return nil, fmt.Errorf("report.json: kind %q, want %q", r.Kind, Kind)
	}
	if r.APIVersion != APIVersion {
		return nil, fmt.Errorf("report.json: apiVersion %q not supported (this build reads %q)", r.APIVersion, APIVersion)
	}
	if len(r.Cells) != len(r.Models)*len(r.Features) {
		return nil, fmt.Errorf("report.json: %d cells for %d models × %d features", len(r.Cells), len(r.Models), len(r.Features))
	}
	return &r, nil
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
