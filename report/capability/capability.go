// Package capability derives the capability map of report.json (the
// explore tier's reportv1.Capability) from a run's results. It answers
// "what does each model accept?": every generated explore case carries its
// parameter assignment (Result.Params, one all-pairs row), so each call is
// evidence about each of its parameter values. Per feature, model,
// parameter and value the map counts the calls with that value by status
// and derives how far it is supported.
//
// In an all-pairs design one declined value (gen-image-2 declines quality
// xhigh) is paired with almost every other value once, so those other values
// look "mixed" for that model. Such a cell is Explained: each of its declined
// calls also carried a value the model declines in every call, or a declined
// pair of two other values. The writers treat an explained cell as supported
// (but show its k/n), so what remains mixed are real combination findings
// ("n=2 is declined with stream=true").
//
// It imports only the report's types (package v1) and the results: report.Build
// calls it, the writers render what it found.
package capability

import (
	"cmp"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/gwconform/gwconform/conformance/results"
	"github.com/gwconform/gwconform/conformance/vocab"
	reportv1 "github.com/gwconform/gwconform/report/apis/v1"
)

// Build derives the capability map from the explore results that carry
// parameters: one Capability per such feature, in feature order.
func Build(features []string, rs []results.Result) []reportv1.Capability {
	byFeature := map[string][]results.Result{}
	for _, r := range rs {
		if r.Tier == vocab.TierExplore && len(r.Params) > 0 {
			byFeature[r.Feature] = append(byFeature[r.Feature], r)
		}
	}
	out := []reportv1.Capability{}
	for _, f := range features {
		if frs := byFeature[f]; len(frs) > 0 {
			out = append(out, ofFeature(f, frs))
		}
	}
	return out
}

// ofFeature maps one feature's explore calls: each model × value counted
// and judged, its failed and declined calls listed, the declines explained
// by values declined everywhere and then by declined pairs, and the map
// laid out as rows with a summary per model.
func ofFeature(feature string, rs []results.Result) reportv1.Capability {
	m := newValueMap(rs)
	m.judge()
	m.listCalls()
	m.findPairs()
	m.explainByPairs()
	return m.capability(feature, rs)
}

// key names one cell of the map: a model and a value ("param=value").
type key struct{ model, value string }

// valueMap is the map of one feature while it is built.
type valueMap struct {
	models []string            // the columns, sorted
	params []string            // parameter names, sorted
	values map[string][]string // a parameter's values, in row order
	cells  map[key]*reportv1.CapCell
	calls  map[key][]results.Result // a cell's calls, in result order
	pairs  map[string][][2]string   // a model's declined pairs, a < b
	inPair map[key]bool             // the cells of a value in a declined pair
}

// newValueMap lays out the columns (models) and rows (parameters, then
// their values in order of first appearance, numerically when all are
// integers), and counts each model's calls with each value.
func newValueMap(rs []results.Result) *valueMap {
	m := &valueMap{models: []string{}, values: map[string][]string{}, cells: map[key]*reportv1.CapCell{},
		calls: map[key][]results.Result{}, pairs: map[string][][2]string{}, inPair: map[key]bool{}}
	seenM := map[string]bool{}
	seenV := map[string]bool{} // "param=value"
	for _, r := range rs {
		if !seenM[r.Model] {
			seenM[r.Model] = true
			m.models = append(m.models, r.Model)
		}
		for _, p := range slices.Sorted(maps.Keys(r.Params)) {
			if k := reportv1.ParamValue(p, r.Params[p]); !seenV[k] {
				seenV[k] = true
				m.values[p] = append(m.values[p], r.Params[p])
			}
		}
	}
	slices.Sort(m.models)
	m.params = slices.Sorted(maps.Keys(m.values))
	for _, p := range m.params {
		sortValues(m.values[p])
	}
	for _, r := range rs {
		m.count(r)
	}
	return m
}

// count adds a call to the cell of each of its values.
func (m *valueMap) count(r results.Result) {
	for p, v := range r.Params {
		k := key{r.Model, reportv1.ParamValue(p, v)}
		if m.cells[k] == nil {
			m.cells[k] = &reportv1.CapCell{Model: r.Model}
		}
		m.cells[k].Counts.Add(r)
		m.calls[k] = append(m.calls[k], r)
	}
}

// judge gives every cell its support: the details that follow need them all.
func (m *valueMap) judge() {
	for _, cell := range m.cells {
		cell.Support = supportOf(cell.Counts)
	}
}

// eachCell calls fn for each cell with calls, by parameter, value, model.
func (m *valueMap) eachCell(fn func(param string, k key, cell *reportv1.CapCell)) {
	for _, p := range m.params {
		for _, v := range m.values[p] {
			for _, model := range m.models {
				k := key{model, reportv1.ParamValue(p, v)}
				if cell := m.cells[k]; cell != nil {
					fn(p, k, cell)
				}
			}
		}
	}
}

// listCalls lists each cell's failed and errored calls and, in a mixed
// cell, its declined calls.
func (m *valueMap) listCalls() {
	m.eachCell(func(param string, k key, cell *reportv1.CapCell) {
		declined, passed := m.splitCalls(k, param, cell)
		if cell.Support == reportv1.CapMixed {
			m.listDeclined(k, param, cell, declined, passed)
		}
	})
}

// splitCalls returns a cell's declined and passed calls, and lists its
// failed and errored ones in the cell.
func (m *valueMap) splitCalls(k key, param string, cell *reportv1.CapCell) (declined, passed []results.Result) {
	for _, r := range m.calls[k] {
		switch {
		case r.Status == vocab.StatusUnsupported:
			declined = append(declined, r)
		case r.Status == vocab.StatusPass:
			passed = append(passed, r)
		case r.Failed():
			cell.Failed = append(cell.Failed, callOf(r, param))
		}
	}
	return declined, passed
}

// listDeclined lists the declined calls of a mixed cell, each with the
// values it carried that the model declines everywhere (Because), and
// finds what the calls no such value explains have in common and the
// passed calls lack (DeclinedWith).
func (m *valueMap) listDeclined(k key, param string, cell *reportv1.CapCell, declined, passed []results.Result) {
	var unexplained []results.Result
	for _, r := range declined {
		x := callOf(r, param)
		x.Because = m.declinedEverywhere(k.model, r.Params, param)
		if len(x.Because) == 0 {
			unexplained = append(unexplained, r)
		}
		cell.Declined = append(cell.Declined, x)
	}
	cell.DeclinedWith = commonOnlyIn(unexplained, passed, param)
}

// declinedEverywhere returns the values of params, but for except's, that
// the model declines in every call, by parameter name.
func (m *valueMap) declinedEverywhere(model string, params map[string]string, except string) []string {
	var out []string
	for _, p := range slices.Sorted(maps.Keys(params)) {
		if p == except {
			continue
		}
		if o := m.cells[key{model, reportv1.ParamValue(p, params[p])}]; o != nil && o.Support == reportv1.CapUnsupported {
			out = append(out, reportv1.ParamValue(p, params[p]))
		}
	}
	return out
}

// findPairs finds the declined pairs: two mixed values each of which is
// declined (apart from unsupported values) always with the other, in at
// least two calls, as "n=2 + stream=true". One declined call cannot tell
// which of its pairs is the cause, so it makes no pair.
func (m *valueMap) findPairs() {
	m.eachCell(func(_ string, k key, cell *reportv1.CapCell) {
		if cell.Support != reportv1.CapMixed || unexplainedDeclines(cell) < 2 {
			return
		}
		for _, b := range cell.DeclinedWith {
			if k.value < b && m.mixedWith(key{k.model, b}, k.value) {
				m.pairs[k.model] = append(m.pairs[k.model], [2]string{k.value, b})
				m.inPair[k], m.inPair[key{k.model, b}] = true, true
			}
		}
	})
}

// unexplainedDeclines counts the declined calls of a cell that no value
// declined everywhere explains.
func unexplainedDeclines(cell *reportv1.CapCell) int {
	n := 0
	for _, d := range cell.Declined {
		if len(d.Because) == 0 {
			n++
		}
	}
	return n
}

// mixedWith reports whether the cell k is mixed and declined with value a.
func (m *valueMap) mixedWith(k key, a string) bool {
	o := m.cells[k]
	return o != nil && o.Support == reportv1.CapMixed && slices.Contains(o.DeclinedWith, a)
}

// explainByPairs settles each mixed cell: a decline of a third value no
// unsupported value explains is explained by the declined pairs of two
// other values in its call. The cell is Explained when each of its
// declines is, unless its value is itself in a pair: a pair is a finding.
func (m *valueMap) explainByPairs() {
	for k, cell := range m.cells {
		if cell.Support != reportv1.CapMixed {
			continue
		}
		cell.Explained = !m.inPair[k]
		for i := range cell.Declined {
			if !m.explainByPair(k, &cell.Declined[i]) {
				cell.Explained = false
			}
		}
	}
}

// explainByPair adds to a declined call of cell k that no unsupported value
// explains each declined pair of two other values it carried, and reports
// whether the call is explained.
func (m *valueMap) explainByPair(k key, d *reportv1.CapCall) bool {
	if len(d.Because) > 0 {
		return true
	}
	for _, pr := range m.pairs[k.model] {
		if pr[0] != k.value && pr[1] != k.value && hasPV(d.Params, pr[0]) && hasPV(d.Params, pr[1]) {
			d.Because = append(d.Because, pairName(pr))
		}
	}
	return len(d.Because) > 0
}

// capability lays the map out: a row per value, by parameter, with a
// cell per model (none where the model made no call with the value), and
// a summary per model.
func (m *valueMap) capability(feature string, rs []results.Result) reportv1.Capability {
	c := reportv1.Capability{Feature: feature, Models: m.models, Rows: []reportv1.CapRow{}, Summary: []reportv1.CapModel{}}
	sum := map[string]*reportv1.CapModel{}
	for _, model := range m.models {
		sum[model] = &reportv1.CapModel{Model: model, Unsupported: []string{}, Mixed: []string{}, Pairs: []string{}, Failed: []string{}}
	}
	for _, r := range rs {
		sum[r.Model].Counts.Add(r)
	}
	for _, p := range m.params {
		for _, v := range m.values[p] {
			c.Rows = append(c.Rows, m.row(p, v, sum))
		}
	}
	for _, model := range m.models {
		for _, pr := range m.pairs[model] {
			sum[model].Pairs = append(sum[model].Pairs, pairName(pr))
		}
		c.Summary = append(c.Summary, *sum[model])
	}
	return c
}

// row is the row of one value, noting in the models' summaries what they
// decline, decline in some combinations or fail of it.
func (m *valueMap) row(p, v string, sum map[string]*reportv1.CapModel) reportv1.CapRow {
	k := reportv1.ParamValue(p, v)
	row := reportv1.CapRow{Param: p, Value: v, Cells: make([]reportv1.CapCell, 0, len(m.models))}
	for _, model := range m.models {
		cell := m.cells[key{model, k}]
		if cell == nil {
			cell = &reportv1.CapCell{Model: model, Support: reportv1.CapNone}
		}
		row.Cells = append(row.Cells, *cell)
		if needsAttention(sum[model], k, cell) {
			row.Attention = true
		}
	}
	return row
}

// needsAttention reports whether a model does not fully support value k,
// by the model's cell of it, and notes in the model's summary when the
// value is declined everywhere, declined in a combination no value
// explains (mixed), or failed.
func needsAttention(s *reportv1.CapModel, k string, cell *reportv1.CapCell) bool {
	switch cell.Support {
	case reportv1.CapSupported, reportv1.CapSkip, reportv1.CapNone:
		return false
	case reportv1.CapMixed:
		if cell.Explained {
			return false
		}
		s.Mixed = append(s.Mixed, k)
	case reportv1.CapUnsupported:
		s.Unsupported = append(s.Unsupported, k)
	case reportv1.CapFailed:
		s.Failed = append(s.Failed, k)
	}
	return true
}

// callOf is a call as a cell lists it: its case and its parameters but
// the row's own.
func callOf(r results.Result, param string) reportv1.CapCall {
	other := maps.Clone(r.Params)
	delete(other, param)
	return reportv1.CapCall{Case: r.Case, Params: other}
}

// pairName names a declined pair: "n=2 + stream=true".
func pairName(pr [2]string) string { return pr[0] + " + " + pr[1] }

// hasPV reports whether params carries the value k ("param=value").
func hasPV(params map[string]string, k string) bool {
	p, v, _ := strings.Cut(k, "=")
	x, ok := params[p]
	return ok && x == v
}

// supportOf derives the support of a value from the calls with one value.
func supportOf(n reportv1.Counts) reportv1.CapSupport {
	switch {
	case n.Fail > 0:
		return reportv1.CapFailed
	case n.Pass > 0 && n.Unsupported > 0:
		return reportv1.CapMixed
	case n.Pass > 0:
		return reportv1.CapSupported
	case n.Unsupported > 0:
		return reportv1.CapUnsupported
	case n.Error+n.Throttled > 0:
		return reportv1.CapInconclusive
	case n.Skip > 0:
		return reportv1.CapSkip
	}
	return reportv1.CapNone
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
			inPassed[reportv1.ParamValue(p, v)] = true
		}
	}
	var out []string
	first := declined[0].Params
	for _, p := range slices.Sorted(maps.Keys(first)) {
		k := reportv1.ParamValue(p, first[p])
		if p != param && !inPassed[k] && allCarry(declined[1:], p, k) {
			out = append(out, k)
		}
	}
	return out
}

// allCarry reports whether every call carries k, a value of parameter p.
func allCarry(rs []results.Result, p, k string) bool {
	for _, r := range rs {
		if v, ok := r.Params[p]; !ok || reportv1.ParamValue(p, v) != k {
			return false
		}
	}
	return true
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
