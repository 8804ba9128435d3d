package plan

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/gwconform/gwconform/conformance/catalog"
	"github.com/gwconform/gwconform/conformance/results"
	"github.com/gwconform/gwconform/conformance/vocab"
)

func TestRerun(t *testing.T) {
	text := func(id string, tier vocab.Tier) *catalog.Case {
		return &catalog.Case{ID: id, Tier: tier, Request: catalog.Request{Path: "/v1/chat/completions"}}
	}
	a, b, c, d, e := text("a", vocab.TierVerified), text("b", vocab.TierVerified), text("c", vocab.TierNegative), text("d", vocab.TierExplore), text("e", vocab.TierVerified)
	planned := []Call{{Case: a, Model: "m"}, {Case: b, Model: "m"}, {Case: c, Model: "m"}, {Case: d, Model: "m"}, {Case: e, Model: "m"},
		{Case: a, Model: "other"}}
	rec := func(cs *catalog.Case, model string, st vocab.Status) results.Result {
		return results.Result{Case: cs.ID, Model: model, Tier: cs.Tier, Status: st, Attempts: 1, CostUnits: 1}
	}
	recorded := []results.Result{
		rec(a, "m", vocab.StatusFail), rec(b, "m", vocab.StatusPass), rec(c, "m", vocab.StatusThrottled),
		rec(d, "m", vocab.StatusFail), rec(e, "m", vocab.StatusError), rec(a, "other", vocab.StatusWaived),
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
			run, held := Rerun(planned, recorded, false, tt.sel)
			assert.Equal(t, tt.run, ids(run))
			assert.Equal(t, tt.held, ids(held))
			for _, h := range held {
				assert.Equal(t, vocab.CheckBudget, h.Skip.Check)
			}
		})
	}
}

func TestResume(t *testing.T) {
	a, b, c := &catalog.Case{ID: "a"}, &catalog.Case{ID: "b"}, &catalog.Case{ID: "c"}
	planned := []Call{{Case: a, Model: "m"}, {Case: b, Model: "m"}, {Case: c, Model: "m"}, {Case: a, Model: "n"}}
	done := func(id, model string, st vocab.Status) results.Result {
		return results.Result{Case: id, Model: model, Status: st}
	}
	cut := func(id, model string) results.Result {
		r := done(id, model, vocab.StatusError)
		r.Cancelled = true
		return r
	}
	ids := func(calls []Call) []string {
		var out []string
		for _, c := range calls {
			out = append(out, c.Model+"/"+c.Case.ID)
		}
		return out
	}
	keys := func(rs []results.Result) []string {
		var out []string
		for _, r := range rs {
			out = append(out, r.Model+"/"+r.Case+":"+string(r.Status))
		}
		return out
	}
	tests := []struct {
		name     string
		recorded []results.Result
		kept     []string
		todo     []string
	}{
		{"nothing finished", nil, nil, []string{"m/a", "m/b", "m/c", "n/a"}},
		{"finished results are kept in plan order, whatever their status",
			[]results.Result{done("c", "m", vocab.StatusFail), done("a", "m", vocab.StatusPass)},
			[]string{"m/a:pass", "m/c:fail"}, []string{"m/b", "n/a"}},
		{"a cancelled call is made again", []results.Result{done("a", "m", vocab.StatusPass), cut("b", "m")},
			[]string{"m/a:pass"}, []string{"m/b", "m/c", "n/a"}},
		{"a call resumed twice keeps its last finished line",
			[]results.Result{cut("b", "m"), done("b", "m", vocab.StatusError), done("b", "m", vocab.StatusPass)},
			[]string{"m/b:pass"}, []string{"m/a", "m/c", "n/a"}},
		{"a result outside the plan is dropped", []results.Result{done("z", "m", vocab.StatusPass)},
			nil, []string{"m/a", "m/b", "m/c", "n/a"}},
		{"all finished", []results.Result{done("a", "m", vocab.StatusPass), done("b", "m", vocab.StatusSkip),
			done("c", "m", vocab.StatusThrottled), done("a", "n", vocab.StatusError)},
			[]string{"m/a:pass", "m/b:skip", "m/c:throttled", "n/a:error"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			kept, todo := Resume(planned, tt.recorded)
			assert.Equal(t, tt.kept, keys(kept))
			assert.Equal(t, tt.todo, ids(todo))
		})
	}
}
