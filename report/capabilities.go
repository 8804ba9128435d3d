package report

import (
	"cmp"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/gwconform/gwconform/conformance/results"
	"github.com/gwconform/gwconform/conformance/vocab"
)

// The capability map answers "what does each model accept?" from the explore
// tier: every generated explore case carries its parameter assignment
// (Result.Params, one all-pairs row), so each call is evidence about each of
// its parameter values. Per feature, model, parameter and value the map counts
// the calls with that value by status and derives a verdict.
//
// In an all-pairs design one declined value (gen-image-2 declines quality
// xhigh) is paired with almost every other value once, so those other values
// look "mixed" for that model. Such a cell is Explained: each of its declined
// calls also carried a value the model declines in every call. The writers
// treat an explained cell as supported (but show its k/n), so what remains
// mixed are real combination findings ("n=2 is declined with stream=true").

// CapVerdict is the verdict of one model × parameter value.
type CapVerdict string

const (
	// CapSupported: every call with the value passed (error and throttled
	// calls say nothing about the gateway and are not counted against it).
	CapSupported CapVerdict = "supported"
	// CapUnsupported: every call with the value was declined.
	CapUnsupported CapVerdict = "unsupported"
	// CapMixed: some calls passed, some were declined: the value works, but
	// not in every combination (see CapCell.Declined and DeclinedWith).
	CapMixed CapVerdict = "mixed"
	// CapFailed: at least one call with the value failed (the gateway broke
	// the contract). Reported; the explore tier never fails a run.
	CapFailed CapVerdict = "failed"
	// CapInconclusive: the calls with the value only errored or were
	// throttled.
	CapInconclusive CapVerdict = "inconclusive"
	// CapSkip: every call with the value was skipped.
	CapSkip CapVerdict = "skip"
	// CapNone: the model made no call with the value.
	CapNone CapVerdict = "none"
)

// CapVerdicts lists every verdict in the order legends show them.
var CapVerdicts = []CapVerdict{CapSupported, CapUnsupported, CapMixed, CapFailed, CapInconclusive, CapSkip, CapNone}

// Capability is the capability map of one explore feature.
type Capability struct {
	Feature string `json:"feature"`
	// Models are the columns: the models with explore calls of the feature, sorted.
	Models []string `json:"models"`
	// Rows are the parameter values, by parameter name, then value (numerically
	// when every value of the parameter is an integer, else in order of first
	// appearance in the report).
	Rows []CapRow `json:"rows"`
	// Summary has one line per model: its calls and the values it declines.
	Summary []CapModel `json:"summary"`
}

// CapRow is one parameter value across the models of a feature.
type CapRow struct {
	Param string `json:"param"`
	Value string `json:"value"`
	// Cells align with Capability.Models.
	Cells []CapCell `json:"cells"`
	// Attention is true when some model does not fully support the value: a
	// verdict other than supported, skip and none, or a mixed cell that is not
	// Explained. matrix.md lists only these rows.
	Attention bool `json:"attention"`
}

// CapCell is one model × parameter value.
type CapCell struct {
	Model   string     `json:"model"`
	Verdict CapVerdict `json:"verdict"`
	// Counts are the calls with the value, by status.
	Counts Counts `json:"counts"`
	// Explained is true for a mixed cell each of whose declined calls also
	// carried a value this model declines in every call, or a declined pair
	// of two other values (CapModel.Pairs).
	Explained bool `json:"explained"`
	// DeclinedWith, for a mixed cell, are the other parameter values
	// ("stream=true") present in every declined call with the value that no
	// unsupported value explains, and in no passing call: the likely reason
	// for the declines. May be empty.
	DeclinedWith []string `json:"declinedWith,omitempty"`
	// Declined are the declined calls of a mixed cell, each with the other
	// parameters of its combination.
	Declined []CapCall `json:"declined,omitempty"`
	// Failed are the calls with the value that failed or errored.
	Failed []CapCall `json:"failed,omitempty"`
}

// CapCall is one explore call: its case and the parameters other than the
// row's own.
type CapCall struct {
	Case   string            `json:"case"`
	Params map[string]string `json:"params"`
	// Because lists what explains the decline: other values of the call that
	// the model declines in every call ("quality=xhigh"), or a declined pair
	// of two other values in it ("n=2 + stream=true").
	Because []string `json:"because,omitempty"`
}

// CapModel sums up one model of a feature.
type CapModel struct {
	Model  string `json:"model"`
	Counts Counts `json:"counts"` // the model's explore calls with parameters
	// Unsupported lists the values ("quality=xhigh") declined in every call.
	Unsupported []string `json:"unsupported"`
	// Mixed lists the values declined in some combinations, not explained by
	// an unsupported value or a declined pair of two other values.
	Mixed []string `json:"mixed"`
	// Pairs lists the declined pairs ("n=2 + stream=true"): two mixed values
	// each declined, apart from unsupported values, always with the other.
	Pairs []string `json:"pairs"`
	// Failed lists the values with a failed call.
	Failed []string `json:"failed"`
}

// pv is "param=value", the way the map names one parameter value.
func pv(param, value string) string { return param + "=" + value }

// buildCapabilities derives the capability map from explore results that
// carry parameters, in feature order.
func buildCapabilities(features []string, rs []results.Result) []Capability {
	byFeature := map[string][]results.Result{}
	for _, r := range rs {
		if r.Tier == vocab.TierExplore && len(r.Params) > 0 {
			byFeature[r.Feature] = append(byFeature[r.Feature], r)
		}
	}
	out := []Capability{}
	for _, f := range features {
		if frs := byFeature[f]; len(frs) > 0 {
			out = append(out, buildCapability(f, frs))
		}
	}
	return out
}

func buildCapability(feature string, rs []results.Result) Capability {
	c := Capability{Feature: feature, Models: []string{}, Rows: []CapRow{}, Summary: []CapModel{}}

	// Columns, parameters and their values in order of first appearance.
	seenM := map[string]bool{}
	values := map[string][]string{} // param -> values
	seenV := map[string]bool{}      // "param=value"
	for _, r := range rs {
		if !seenM[r.Model] {
			seenM[r.Model] = true
			c.Models = append(c.Models, r.Model)
		}
		for _, p := range slices.Sorted(maps.Keys(r.Params)) {
			k := pv(p, r.Params[p])
			if !seenV[k] {
				seenV[k] = true
				values[p] = append(values[p], r.Params[p])
			}
		}
	}
	slices.Sort(c.Models)
	params := slices.Sorted(maps.Keys(values))
	for _, p := range params {
		sortValues(values[p])
	}

	// Counts and verdicts per model × value.
	type mv struct{ model, key string }
	cells := map[mv]*CapCell{}
	calls := map[mv][]results.Result{}
	for _, r := range rs {
		for p, v := range r.Params {
			k := mv{r.Model, pv(p, v)}
			if cells[k] == nil {
				cells[k] = &CapCell{Model: r.Model}
			}
			cells[k].Counts.Add(r)
			calls[k] = append(calls[k], r)
		}
	}
	for _, cell := range cells {
		cell.Verdict = capVerdict(cell.Counts)
	}
	declinedEverywhere := func(model string, params map[string]string, except string) []string {
		var out []string
		for _, p := range slices.Sorted(maps.Keys(params)) {
			if p == except {
				continue
			}
			if o := cells[mv{model, pv(p, params[p])}]; o != nil && o.Verdict == CapUnsupported {
				out = append(out, pv(p, params[p]))
			}
		}
		return out
	}
	call := func(r results.Result, param string) CapCall {
		other := maps.Clone(r.Params)
		delete(other, param)
		return CapCall{Case: r.Case, Params: other}
	}

	// Details that need every verdict: declined and failed calls, explanations.
	for _, p := range params {
		for _, v := range values[p] {
			for _, m := range c.Models {
				cell := cells[mv{m, pv(p, v)}]
				if cell == nil {
					continue
				}
				var declined, passed []results.Result
				for _, r := range calls[mv{m, pv(p, v)}] {
					switch {
					case r.Status == vocab.StatusUnsupported:
						declined = append(declined, r)
					case r.Status == vocab.StatusPass:
						passed = append(passed, r)
					case r.Failed():
						cell.Failed = append(cell.Failed, call(r, p))
					}
				}
				if cell.Verdict != CapMixed {
					continue
				}
				var unexplained []results.Result // declines no unsupported value explains
				for _, r := range declined {
					x := call(r, p)
					x.Because = declinedEverywhere(m, r.Params, p)
					if len(x.Because) == 0 {
						unexplained = append(unexplained, r)
					}
					cell.Declined = append(cell.Declined, x)
				}
				cell.DeclinedWith = commonOnlyIn(unexplained, passed, p)
			}
		}
	}

	// Declined pairs: two mixed values each of which is declined (apart from
	// unsupported values) always with the other, in at least two calls, as
	// "n=2 + stream=true". One declined call cannot tell which of its pairs
	// is the cause, so it makes no pair. A decline of a third value is
	// explained by an unsupported value in the call, or by a declined pair
	// of two other values in it; a value of a pair is itself a finding and
	// never explained.
	open := func(cell *CapCell) int {
		n := 0
		for _, d := range cell.Declined {
			if len(d.Because) == 0 {
				n++
			}
		}
		return n
	}
	pairs := map[string][][2]string{} // model -> pairs, a < b
	inPair := map[mv]bool{}
	for _, m := range c.Models {
		for _, p := range params {
			for _, v := range values[p] {
				a := pv(p, v)
				cell := cells[mv{m, a}]
				if cell == nil || cell.Verdict != CapMixed || open(cell) < 2 {
					continue
				}
				for _, b := range cell.DeclinedWith {
					o := cells[mv{m, b}]
					if a < b && o != nil && o.Verdict == CapMixed && slices.Contains(o.DeclinedWith, a) {
						pairs[m] = append(pairs[m], [2]string{a, b})
						inPair[mv{m, a}], inPair[mv{m, b}] = true, true
					}
				}
			}
		}
	}
	for k, cell := range cells {
		if cell.Verdict != CapMixed {
			continue
		}
		cell.Explained = !inPair[k]
		for i, d := range cell.Declined {
			if len(d.Because) > 0 {
				continue
			}
			for _, pr := range pairs[k.model] {
				if pr[0] != k.key && pr[1] != k.key && hasPV(d.Params, pr[0]) && hasPV(d.Params, pr[1]) {
					cell.Declined[i].Because = append(cell.Declined[i].Because, pr[0]+" + "+pr[1])
				}
			}
			if len(cell.Declined[i].Because) == 0 {
				cell.Explained = false
			}
		}
	}

	// Rows, and the per-model summary.
	sum := map[string]*CapModel{}
	for _, m := range c.Models {
		sum[m] = &CapModel{Model: m, Unsupported: []string{}, Mixed: []string{}, Pairs: []string{}, Failed: []string{}}
	}
	for _, r := range rs {
		sum[r.Model].Counts.Add(r)
	}
	for _, p := range params {
		for _, v := range values[p] {
			row := CapRow{Param: p, Value: v, Cells: make([]CapCell, 0, len(c.Models))}
			for _, m := range c.Models {
				cell := cells[mv{m, pv(p, v)}]
				if cell == nil {
					cell = &CapCell{Model: m, Verdict: CapNone}
				}
				row.Cells = append(row.Cells, *cell)
				s := sum[m]
				switch cell.Verdict {
				case CapSupported, CapSkip, CapNone:
				case CapMixed:
					if !cell.Explained {
						row.Attention = true
						s.Mixed = append(s.Mixed, pv(p, v))
					}
				case CapUnsupported:
					row.Attention = true
					s.Unsupported = append(s.Unsupported, pv(p, v))
				case CapFailed:
					row.Attention = true
					s.Failed = append(s.Failed, pv(p, v))
				default:
					row.Attention = true
				}
			}
			c.Rows = append(c.Rows, row)
		}
	}
	for _, m := range c.Models {
		for _, pr := range pairs[m] {
			sum[m].Pairs = append(sum[m].Pairs, pr[0]+" + "+pr[1])
		}
		c.Summary = append(c.Summary, *sum[m])
	}
	return c
}

// hasPV reports whether params carries the value k ("param=value").
func hasPV(params map[string]string, k string) bool {
	p, v, _ := strings.Cut(k, "=")
	x, ok := params[p]
	return ok && x == v
}

// capVerdict derives a verdict from the calls with one value.
func capVerdict(n Counts) CapVerdict {
	switch {
	case n.Fail > 0:
		return CapFailed
	case n.Pass > 0 && n.Unsupported > 0:
		return CapMixed
	case n.Pass > 0:
		return CapSupported
	case n.Unsupported > 0:
		return CapUnsupported
	case n.Error+n.Throttled > 0:
		return CapInconclusive
	case n.Skip > 0:
		return CapSkip
	}
	return CapNone
}

// commonOnlyIn returns the parameter values (other than param) present in
// every declined call and in no passing call, sorted.
func commonOnlyIn(declined, passed []results.Result, param string) []string {
	if len(declined) == 0 {
		return nil
	}
	inPassed := map[string]bool{}
	for _, r := range passed {
		for p, v := range r.Params {
			inPassed[pv(p, v)] = true
		}
	}
	var out []string
	for _, p := range slices.Sorted(maps.Keys(declined[0].Params)) {
		if p == param {
			continue
		}
		k := pv(p, declined[0].Params[p])
		if inPassed[k] {
			continue
		}
		all := true
		for _, r := range declined[1:] {
			if v, ok := r.Params[p]; !ok || pv(p, v) != k {
				all = false
				break
			}
		}
		if all {
			out = append(out, k)
		}
	}
	return out
}

// sortValues sorts a parameter's values numerically when all are integers;
// otherwise it keeps their order of first appearance.
func sortValues(vs []string) {
	for _, v := range vs {
		if _, err := strconv.Atoi(v); err != nil {
			return
		}
	}
	slices.SortStableFunc(vs, func(a, b string) int {
		x, _ := strconv.Atoi(a)
		y, _ := strconv.Atoi(b)
		return cmp.Compare(x, y)
	})
}
