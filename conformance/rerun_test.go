package conformance

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/gwconform/gwconform/conformance/catalog"
	"github.com/gwconform/gwconform/conformance/results"
)

func TestPlanRerun(t *testing.T) {
	text := func(id string, tier results.Tier) *catalog.Case {
		return &catalog.Case{ID: id, Tier: tier, Request: catalog.Request{Path: "/v1/chat/completions"}}
	}
	a, b, c, d, e := text("a", results.TierVerified), text("b", results.TierVerified), text("c", results.TierNegative), text("d", results.TierExplore), text("e", results.TierVerified)
	plan := []Call{{Case: a, Model: "m"}, {Case: b, Model: "m"}, {Case: c, Model: "m"}, {Case: d, Model: "m"}, {Case: e, Model: "m"},
		{Case: a, Model: "other"}}
	rec := func(cs *catalog.Case, model string, st results.Status) results.Result {
		return results.Result{Case: cs.ID, Model: model, Tier: cs.Tier, Status: st, Attempts: 1, CostUnits: 1}
	}
	recorded := []results.Result{
		rec(a, "m", results.StatusFail), rec(b, "m", results.StatusPass), rec(c, "m", results.StatusThrottled),
		rec(d, "m", results.StatusFail), rec(e, "m", results.StatusError), rec(a, "other", results.StatusWaived),
	}
	ids := func(calls []Call) []string {
		var out []string
		for _, c := range calls {
			out = append(out, c.ID())
		}
		return out
	}
	tests := []struct {
		name      string
		sel       Selection
		run, held []string
	}{
		{"fail, throttled and error of counted tiers", Selection{}, []string{"/m/a", "/m/c", "/m/e"}, nil},
		{"what is left of the cost budget", Selection{MaxCost: 8}, []string{"/m/a", "/m/c"}, []string{"/m/e"}},
		{"the call budget is spent", Selection{MaxCalls: 6}, nil, []string{"/m/a", "/m/c", "/m/e"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			run, held := PlanRerun(plan, recorded, false, tt.sel)
			assert.Equal(t, tt.run, ids(run))
			assert.Equal(t, tt.held, ids(held))
			for _, h := range held {
				assert.Equal(t, results.CheckBudget, h.Skip.Check)
			}
		})
	}
}
