package conformance

import (
	"fmt"
	"hash/fnv"
	"path"
	"strconv"
	"strings"

	"github.com/gwconform/gwconform/conformance/catalog"
	"github.com/gwconform/gwconform/conformance/results"
)

// Selection narrows the catalog. Every list holds globs (path.Match syntax);
// an empty list selects everything.
type Selection struct {
	Features []string
	Models   []string
	Cases    []string
	Tiers    []string
	// Shard, when Count > 0, keeps the calls whose stable hash falls into
	// shard Index (1-based) of Count.
	Shard Shard
	// MaxCalls caps the calls made; planned calls beyond it are skipped.
	// 0 means no cap.
	MaxCalls int
	// MaxCost caps the estimated cost units (EstimateCost) of the calls
	// made: a planned call whose estimate does not fit in what is left is
	// skipped, and a later, cheaper one that fits is still made. 0 means
	// no cap.
	MaxCost float64
}

// Shard is one part of a split run.
type Shard struct{ Index, Count int }

// ParseShard reads "i/n".
func ParseShard(s string) (Shard, error) {
	if s == "" {
		return Shard{}, nil
	}
	i, n, ok := strings.Cut(s, "/")
	index, err1 := strconv.Atoi(i)
	count, err2 := strconv.Atoi(n)
	if !ok || err1 != nil || err2 != nil || count < 1 || index < 1 || index > count {
		return Shard{}, fmt.Errorf("shard %q: want i/n with 1 <= i <= n", s)
	}
	return Shard{Index: index, Count: count}, nil
}

// Call is one case sent for one model. A call with a Skip is reported as
// skipped, with that reason, without any request.
type Call struct {
	Case  *catalog.Case
	Model string
	Skip  *results.Reason
}

// ID names the call as the go test subtests do: feature/model/case.
func (c Call) ID() string { return c.Case.Feature + "/" + c.Model + "/" + c.Case.ID }

// Plan expands the catalog into calls, in catalog order, models in case order.
// It is deterministic: the same catalog, target and selection give the same plan.
func Plan(cat *catalog.Catalog, t Target, sel Selection) ([]Call, error) {
	var calls []Call
	for i := range cat.Cases {
		cs := &cat.Cases[i]
		if !sel.selects(cs) {
			continue
		}
		for _, model := range cs.Models {
			if matchAny(sel.Models, model) {
				calls = append(calls, Call{Case: cs, Model: model})
			}
		}
	}
	return sel.finish(calls, t)
}

// selects applies the feature, case and tier filters to a case.
func (sel Selection) selects(cs *catalog.Case) bool {
	return matchAny(sel.Features, cs.Feature) && matchAny(sel.Cases, cs.ID) && matchAny(sel.Tiers, string(cs.Tier))
}

// finish turns candidate calls into a plan: it keeps the calls of the
// selected shard and marks those that cannot be made (a missing key or
// precondition) or may not be (beyond the call budget) as skipped.
func (sel Selection) finish(candidates []Call, t Target) ([]Call, error) {
	for _, globs := range [][]string{sel.Features, sel.Models, sel.Cases, sel.Tiers} {
		for _, g := range globs {
			if _, err := path.Match(g, ""); err != nil {
				return nil, fmt.Errorf("bad filter %q: %w", g, err)
			}
		}
	}
	var calls []Call
	for _, call := range candidates {
		if sel.Shard.Count > 0 && shardOf(call.ID(), sel.Shard.Count) != sel.Shard.Index {
			continue
		}
		call.Skip = skipReason(call.Case, t)
		calls = append(calls, call)
	}
	Budget{Calls: sel.MaxCalls, Cost: sel.MaxCost}.Apply(calls)
	return calls, nil
}

// Budget caps what a run spends: calls and estimated cost units (0: no
// cap). Made and Spent are what earlier runs of the same plan already used
// (--rerun-failed re-runs within what is left).
type Budget struct {
	Calls int
	Cost  float64
	Made  int
	Spent float64
}

// Apply skips, in plan order, the calls that do not fit: beyond Calls
// calls, or whose estimate does not fit in the Cost units left. A later,
// cheaper call that still fits is made. Calls already skipped spend nothing.
func (b Budget) Apply(calls []Call) {
	made, spent := b.Made, b.Spent
	for i := range calls {
		if calls[i].Skip != nil {
			continue
		}
		units := EstimateCost(calls[i].Case).Units
		switch {
		case b.Calls > 0 && made >= b.Calls:
			calls[i].Skip = &results.Reason{Check: results.CheckBudget, Message: fmt.Sprintf("over the call budget (--max-calls %d)", b.Calls)}
		case b.Cost > 0 && spent+units > b.Cost+costEpsilon:
			calls[i].Skip = &results.Reason{Check: results.CheckBudget,
				Message: fmt.Sprintf("over the cost budget (--max-cost %g): this call's %.1f units do not fit in the %.1f left", b.Cost, units, max(b.Cost-spent, 0))}
		default:
			made++
			spent += units
		}
	}
}

// costEpsilon absorbs float rounding in sums of unit estimates, so a plan
// that spends its budget exactly is not refused its last call.
const costEpsilon = 1e-9

// skipReason says why a case cannot be sent to t, or nil when it can. A
// rejected key skips every case of its kind, the missing- and invalid-key
// cases too: the preflight already showed what the gateway makes of it.
func skipReason(cs *catalog.Case, t Target) *results.Reason {
	if why, ok := t.Rejected[cs.Key]; ok {
		return &results.Reason{Check: results.CheckKeyRejected, Message: why}
	}
	if cs.Request.Auth != catalog.AuthNone && t.Keys[cs.Key] == "" {
		return &results.Reason{Check: results.CheckKeyMissing, Message: fmt.Sprintf("no %s key (set %s)", cs.Key, KeyVariables[cs.Key])}
	}
	for _, req := range cs.Requires {
		switch req {
		case catalog.RequirePublicImageURL:
			if t.PublicImageURL == "" {
				return &results.Reason{Check: results.CheckPrecondition, Message: "no public image URL (set GWCONFORM_PUBLIC_IMAGE_URL): the URL-reference edit (spec 4.5) is not verified"}
			}
		}
	}
	return nil
}

// shardOf assigns a call to a shard by a stable hash of its ID, so shards
// stay balanced and a call keeps its shard when others are added.
func shardOf(id string, count int) int {
	h := fnv.New32a()
	h.Write([]byte(id))
	return int(h.Sum32()%uint32(count)) + 1
}

func matchAny(globs []string, s string) bool {
	if len(globs) == 0 {
		return true
	}
	for _, g := range globs {
		if ok, _ := path.Match(g, s); ok {
			return true
		}
	}
	return false
}

// Summary counts the calls of a plan that will reach the gateway, per key and
// model, and how many are skipped.
type Summary struct {
	Calls      map[catalog.KeyKind]map[string]int
	Units      map[catalog.KeyKind]map[string]float64 // estimated cost units (see Cost)
	Images     int                                    // final images requested in all
	Total      int
	Skipped    int
	TotalUnits float64
}

// Summarize counts a plan.
func Summarize(calls []Call) Summary {
	s := Summary{Calls: map[catalog.KeyKind]map[string]int{}, Units: map[catalog.KeyKind]map[string]float64{}}
	for _, c := range calls {
		if c.Skip != nil {
			s.Skipped++
			continue
		}
		if s.Calls[c.Case.Key] == nil {
			s.Calls[c.Case.Key] = map[string]int{}
			s.Units[c.Case.Key] = map[string]float64{}
		}
		cost := EstimateCost(c.Case)
		s.Calls[c.Case.Key][c.Model]++
		s.Units[c.Case.Key][c.Model] += cost.Units
		s.TotalUnits += cost.Units
		s.Images += cost.Images
		s.Total++
	}
	return s
}

// skipped turns a planned skip into its result.
func skipped(c Call) results.Result {
	return newResult(c, results.StatusSkip, *c.Skip)
}
