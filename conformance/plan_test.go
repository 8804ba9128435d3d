package conformance_test

import (
	"context"
	"fmt"
	"path"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gwconform/gwconform/conformance/catalog"
	"github.com/gwconform/gwconform/conformance/execute"
	"github.com/gwconform/gwconform/conformance/plan"
	"github.com/gwconform/gwconform/conformance/refgateway"
	"github.com/gwconform/gwconform/conformance/results"
	"github.com/gwconform/gwconform/conformance/vocab"
)

// The plan's call count is what a run makes, under budgets and a shard; and
// the requests the results record (one per call, more for a call that lists
// other keys' models) are what the reference gateway's own counter saw
// (TestConformance checks the whole catalog the same way).
func TestPlanCountsEqualCallsMade(t *testing.T) {
	suite := loadSuite(t)
	text := []string{"models.*", "chat.*", "messages.*", "responses.*", "images.edit.errors"}
	for _, tc := range []struct {
		name string
		sel  plan.Selection
	}{
		{"no budget", plan.Selection{Features: text}},
		{"max-calls 7", plan.Selection{MaxCalls: 7, Features: text}},
		{"max-calls 1 of images", plan.Selection{MaxCalls: 1, Features: []string{"images.*"}}},
		{"shard 2/3", plan.Selection{Shard: plan.Shard{Index: 2, Count: 3}, Features: text}},
		// Verified and negative only: the explore tier's WebP calls would run
		// the lossy WebP encoder concurrently, whose lazily built tables race
		// in the third-party library (the gateway's, not this test's concern).
		{"max-cost 40 of image generations", plan.Selection{MaxCost: 40, Features: []string{"images.generate*"}, Tiers: []string{"verified", "negative"}}},
		{"max-cost 5 and max-calls 3", plan.Selection{MaxCost: 5, MaxCalls: 3, Features: text}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			loc := startLocal(t, refgateway.Config{})
			calls, err := plan.Make(suite.Catalog, loc.target, tc.sel)
			require.NoError(t, err)
			sum := plan.Summarize(calls)
			runner := suite.Runner(loc.target, execute.Options{MaxRetries: -1})
			budgetSkips, ran, requests := 0, 0, 0
			spent, refused := 0.0, 0.0
			runner.Run(context.Background(), calls, func(r results.Result) {
				spent += r.CostUnits
				// A request answered 4xx or 5xx produced nothing: it costs 0.
				refused += plan.EstimateCost(suite.Catalog.Case(r.Case)).Units * float64(r.Refused)
				if r.Status == vocab.StatusSkip {
					budgetSkips++
					assert.Equal(t, vocab.CheckBudget, r.Reasons[0].Check)
					return
				}
				ran++
				requests += r.Requests
			})
			assert.Equal(t, sum.Total, ran, "planned calls vs calls made")
			assert.Equal(t, sum.Requests, requests, "planned requests vs requests the results record")
			assert.Equal(t, int64(requests), loc.srv.Gateway.Requests(), "requests the results record vs requests the gateway saw")
			assert.InDelta(t, sum.TotalUnits, spent+refused, 1e-9, "without retries a run spends what it planned, less its refused requests")
			if tc.sel.MaxCost > 0 {
				assert.LessOrEqual(t, sum.TotalUnits, tc.sel.MaxCost)
				assert.Positive(t, budgetSkips, "the budget cut the plan")
				assert.Positive(t, ran)
			}
			if tc.sel.MaxCalls > 0 && tc.sel.MaxCost == 0 {
				assert.LessOrEqual(t, ran, tc.sel.MaxCalls)
				assert.Equal(t, len(calls)-tc.sel.MaxCalls, budgetSkips, "calls over the budget are reported as skipped")
			}
		})
	}
}

func TestPlanSelection(t *testing.T) {
	suite := loadSuite(t)
	all := plan.Target{Keys: map[catalog.KeyKind]string{catalog.KeyText: "t", catalog.KeyMessages: "m", catalog.KeyImage: "i", catalog.KeyAlt: "a"}, PublicImageURL: "https://x"}
	count := func(t *testing.T, target plan.Target, sel plan.Selection) (calls, skipped int) {
		cs, err := plan.Make(suite.Catalog, target, sel)
		require.NoError(t, err)
		for _, c := range cs {
			if c.Skip != nil {
				skipped++
			}
		}
		return len(cs), skipped
	}
	total, _ := count(t, all, plan.Selection{})
	require.NotZero(t, total)

	t.Run("filters narrow", func(t *testing.T) {
		n, _ := count(t, all, plan.Selection{Features: []string{"chat.*"}})
		assert.Positive(t, n)
		assert.Less(t, n, total)
		m, _ := count(t, all, plan.Selection{Models: []string{"gen-image-2"}, Tiers: []string{"verified"}})
		assert.Positive(t, m)
		none, _ := count(t, all, plan.Selection{Cases: []string{"no-such-case"}})
		assert.Zero(t, none)
	})
	t.Run("a missing key skips with the reason", func(t *testing.T) {
		noImage := all
		noImage.Keys = map[catalog.KeyKind]string{catalog.KeyText: "t"}
		calls, err := plan.Make(suite.Catalog, noImage, plan.Selection{Features: []string{"images.generate"}, Tiers: []string{"verified"}})
		require.NoError(t, err)
		imageCalls := 0
		for _, c := range calls {
			if c.Case.Key != catalog.KeyImage {
				continue // the text key's refusals (5.2) run
			}
			imageCalls++
			require.NotNil(t, c.Skip)
			assert.Equal(t, vocab.CheckKeyMissing, c.Skip.Check)
			assert.Contains(t, c.Skip.Message, "GWCONFORM_IMAGE_KEY")
		}
		assert.Positive(t, imageCalls)
	})
	t.Run("shards partition the plan", func(t *testing.T) {
		seen := map[string]int{}
		for i := 1; i <= 3; i++ {
			cs, err := plan.Make(suite.Catalog, all, plan.Selection{Shard: plan.Shard{Index: i, Count: 3}})
			require.NoError(t, err)
			assert.NotEmpty(t, cs, "shard %d is empty", i)
			for _, c := range cs {
				seen[c.ID()]++
			}
		}
		assert.Len(t, seen, total)
		for id, n := range seen {
			assert.Equal(t, 1, n, "%s in %d shards", id, n)
		}
	})
	t.Run("bad glob", func(t *testing.T) {
		_, err := plan.Make(suite.Catalog, all, plan.Selection{Features: []string{"["}})
		assert.Error(t, err)
	})
}

func TestParseShard(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want plan.Shard
		err  bool
	}{
		{"", plan.Shard{}, false},
		{"1/3", plan.Shard{Index: 1, Count: 3}, false},
		{"3/3", plan.Shard{Index: 3, Count: 3}, false},
		{"0/3", plan.Shard{}, true},
		{"4/3", plan.Shard{}, true},
		{"1/0", plan.Shard{}, true},
		{"x", plan.Shard{}, true},
		{"1/3x", plan.Shard{}, true},
	} {
		got, err := plan.ParseShard(tc.in)
		if tc.err {
			assert.Error(t, err, tc.in)
			continue
		}
		require.NoError(t, err, tc.in)
		assert.Equal(t, tc.want, got)
	}
}

// allKeys is a target with every key kind: nothing is skipped for a key.
var allKeys = plan.Target{Keys: map[catalog.KeyKind]string{catalog.KeyText: "t", catalog.KeyMessages: "m", catalog.KeyImage: "i", catalog.KeyAlt: "a"}, PublicImageURL: "https://x"}

// controlOf finds the control call of a negative call in calls, and its index.
func controlOf(calls []plan.Call, neg plan.Call) (int, bool) {
	for i, c := range calls {
		if c.Case.ID == neg.Case.Control && c.Model == neg.Model {
			return i, true
		}
	}
	return -1, false
}

// A negative is judged beside its control (the verified case it names, same
// model), so every plan that holds a negative call holds its control call
// before it: whatever the selection, in every shard, and within a budget.
func TestPlanKeepsNegativesWithTheirControls(t *testing.T) {
	suite := loadSuite(t)
	checkPairs := func(t *testing.T, calls []plan.Call) (negatives int) {
		t.Helper()
		for i, c := range calls {
			if c.Case.Tier != vocab.TierNegative {
				continue
			}
			negatives++
			j, ok := controlOf(calls, c)
			if assert.True(t, ok, "%s without its control %s", c.ID(), c.Case.Control) {
				assert.Less(t, j, i, "%s comes after its control", c.ID())
			}
		}
		return negatives
	}
	t.Run("selection adds the control, marked", func(t *testing.T) {
		for _, sel := range []plan.Selection{
			{Cases: []string{"chat-no-model"}},
			{Features: []string{"*.errors"}},
			{Tiers: []string{"negative"}},
			{Models: []string{"gen-image-2"}, Tiers: []string{"negative"}},
			{Cases: []string{"gen-text-key-refused", "edit-json-partials-4"}},
		} {
			calls, err := plan.Make(suite.Catalog, allKeys, sel)
			require.NoError(t, err)
			assert.Positive(t, checkPairs(t, calls), "%+v", sel)
			matches := func(globs []string, s string) bool {
				return len(globs) == 0 || slices.ContainsFunc(globs, func(g string) bool { m, _ := path.Match(g, s); return m })
			}
			for _, c := range calls {
				selected := matches(sel.Cases, c.Case.ID) && matches(sel.Features, c.Case.Feature) && matches(sel.Tiers, string(c.Case.Tier)) && matches(sel.Models, c.Model)
				assert.Equal(t, !selected, c.Control, "%s: marked Control only when added for a negative (%+v)", c.ID(), sel)
			}
		}
		calls, err := plan.Make(suite.Catalog, allKeys, plan.Selection{Cases: []string{"chat-no-model", "chat-no-messages"}})
		require.NoError(t, err)
		var ids []string
		for _, c := range calls {
			ids = append(ids, c.Case.ID)
		}
		assert.Equal(t, []string{"chat-json", "chat-no-model", "chat-no-messages"}, ids, "one control for both, first")
	})
	t.Run("a selected control is not marked", func(t *testing.T) {
		calls, err := plan.Make(suite.Catalog, allKeys, plan.Selection{Cases: []string{"chat-json", "chat-no-model"}})
		require.NoError(t, err)
		require.Len(t, calls, 2)
		assert.False(t, calls[0].Control)
	})
	t.Run("the whole plan", func(t *testing.T) {
		calls, err := plan.Make(suite.Catalog, allKeys, plan.Selection{})
		require.NoError(t, err)
		assert.Positive(t, checkPairs(t, calls))
		for _, c := range calls {
			assert.False(t, c.Control, "%s: the whole catalog adds nothing", c.ID())
		}
	})
	t.Run("shards keep pairs", func(t *testing.T) {
		for n := 2; n <= 5; n++ {
			seen := 0
			for i := 1; i <= n; i++ {
				calls, err := plan.Make(suite.Catalog, allKeys, plan.Selection{Shard: plan.Shard{Index: i, Count: n}})
				require.NoError(t, err)
				seen += checkPairs(t, calls)
				for _, c := range calls {
					assert.False(t, c.Control, "shard %d/%d: %s is in its own shard, not added", i, n, c.ID())
				}
			}
			assert.Positive(t, seen)
		}
	})
	t.Run("a budget keeps pairs", func(t *testing.T) {
		sel := plan.Selection{Cases: []string{"gen-text-key-refused", "gen-messages-key-refused", "chat-no-model"}}
		whole, err := plan.Make(suite.Catalog, allKeys, sel)
		require.NoError(t, err)
		for _, budget := range []plan.Selection{{MaxCalls: 1}, {MaxCalls: 2}, {MaxCalls: 3}, {MaxCost: 3}, {MaxCost: 9.9}} {
			b := sel
			b.MaxCalls, b.MaxCost = budget.MaxCalls, budget.MaxCost
			calls, err := plan.Make(suite.Catalog, allKeys, b)
			require.NoError(t, err)
			require.Len(t, calls, len(whole))
			heldNegative := false
			for i, c := range calls {
				if c.Case.Tier != vocab.TierNegative {
					continue
				}
				j, ok := controlOf(calls, c)
				require.True(t, ok)
				if calls[j].Skip != nil {
					require.NotNil(t, c.Skip, "%+v: %s is made without its control", budget, c.ID())
					assert.Equal(t, vocab.CheckBudget, c.Skip.Check)
					assert.Contains(t, c.Skip.Message, "its control is held back: over the")
					assert.Equal(t, "control "+c.Case.Control+" ("+c.Model+")", c.Skip.Where)
					heldNegative = true
				}
				assert.Less(t, j, i)
			}
			if budget.MaxCost == 3 {
				assert.True(t, heldNegative, "gen-basic (10 units) is over the cost budget, its refusals with it")
			}
		}
		// A negative cheaper than its control: the budget would fit it
		// alone, and holds it back with its control.
		calls, err := plan.Make(suite.Catalog, allKeys, plan.Selection{Cases: []string{"gen-stream-partials-neg1"}, Models: []string{"gen-image-2.5-flare"}})
		require.NoError(t, err)
		require.Len(t, calls, 2)
		require.Less(t, calls[1].Units(), calls[0].Units(), "no previews: the negative costs less")
		calls, err = plan.Make(suite.Catalog, allKeys, plan.Selection{Cases: []string{"gen-stream-partials-neg1"}, Models: []string{"gen-image-2.5-flare"}, MaxCost: calls[1].Units()})
		require.NoError(t, err)
		require.NotNil(t, calls[0].Skip)
		require.NotNil(t, calls[1].Skip, "the negative fits the budget, its control does not: neither is made")
		assert.Contains(t, calls[1].Skip.Message, "its control is held back: over the cost budget")
		assert.Equal(t, "control gen-stream-partials-3 (gen-image-2.5-flare)", calls[1].Skip.Where)
	})
	t.Run("a control that cannot be made skips its negative", func(t *testing.T) {
		textOnly := allKeys
		textOnly.Keys = map[catalog.KeyKind]string{catalog.KeyText: "t"}
		calls, err := plan.Make(suite.Catalog, textOnly, plan.Selection{Cases: []string{"gen-text-key-refused", "chat-no-model"}})
		require.NoError(t, err)
		for _, c := range calls {
			switch c.Case.ID {
			case "gen-text-key-refused": // its own key is set; its control's is not
				require.NotNil(t, c.Skip)
				assert.Equal(t, vocab.CheckControl, c.Skip.Check)
				assert.Equal(t, "its control cannot be made: no image key (set GWCONFORM_IMAGE_KEY)", c.Skip.Message)
				assert.Equal(t, "control gen-basic (gen-image-2)", c.Skip.Where)
			case "gen-basic":
				require.NotNil(t, c.Skip)
				assert.Equal(t, vocab.CheckKeyMissing, c.Skip.Check)
			default:
				assert.Nil(t, c.Skip, "%s", c.ID())
			}
		}
	})
	t.Run("a probe pairs a new model's refusals with its controls", func(t *testing.T) {
		calls, err := plan.Probe(suite.Catalog, allKeys, []plan.NewModel{{ID: "gen-9", Key: catalog.KeyText}, {ID: "msg-9", Key: catalog.KeyMessages}}, plan.Selection{})
		require.NoError(t, err)
		assert.Positive(t, checkPairs(t, calls))
		for _, c := range calls {
			// A key-permission refusal checks the image endpoint, not the
			// new text model: its control would send gen-9 with the image key.
			assert.NotEqual(t, "gen-text-key-refused", c.Case.ID)
			assert.NotEqual(t, catalog.KeyImage, c.Case.Key, "%s", c.ID())
		}
	})
	t.Run("a re-run makes the control again", func(t *testing.T) {
		planned, err := plan.Make(suite.Catalog, allKeys, plan.Selection{Cases: []string{"chat-json", "chat-no-model", "chat-no-messages", "messages-json", "messages-no-model"}})
		require.NoError(t, err)
		var recorded []results.Result
		for _, c := range planned {
			st := vocab.StatusPass
			switch {
			case c.Case.ID == "chat-no-model" && c.Model == "gen-5.5":
				st = vocab.StatusInconclusive
			case c.Case.ID == "messages-json" && c.Model == "msg-opus-5":
				st = vocab.StatusFail
			}
			recorded = append(recorded, results.Result{Case: c.Case.ID, Model: c.Model, Tier: c.Case.Tier, Status: st, Attempts: 1, CostUnits: 1})
		}
		ids := func(calls []plan.Call) []string {
			var out []string
			for _, c := range calls {
				out = append(out, fmt.Sprintf("%s/%s/%v", c.Case.ID, c.Model, c.Control))
			}
			return out
		}
		run, held := plan.Rerun(planned, recorded, false, plan.Selection{})
		assert.Equal(t, []string{"chat-json/gen-5.5/true", "chat-no-model/gen-5.5/false", "messages-json/msg-opus-5/false"}, ids(run),
			"the inconclusive negative with its passing control; a failed control alone")
		assert.Empty(t, held)
		// What is left of the budget fits one call: not the negative without its control.
		run, held = plan.Rerun(planned, recorded, false, plan.Selection{MaxCalls: len(recorded) + 1})
		assert.Equal(t, []string{"chat-json/gen-5.5/true"}, ids(run))
		assert.Equal(t, []string{"chat-no-model/gen-5.5/false", "messages-json/msg-opus-5/false"}, ids(held))
	})
}

// TestPlanOffers: a feature the gateway does not offer is planned as a
// skip that costs nothing and sends nothing; what it offers is planned as
// without offers; an offer that matches no feature is refused by name.
func TestPlanOffers(t *testing.T) {
	suite := loadSuite(t)
	all, err := plan.Make(suite.Catalog, allKeys, plan.Selection{})
	require.NoError(t, err)
	offered := allKeys
	offered.Offers = []string{"models.*", "chat.*", "messages.*", "responses.*"}
	calls, err := plan.Make(suite.Catalog, offered, plan.Selection{})
	require.NoError(t, err)
	require.Len(t, calls, len(all), "every call is planned, the ones not offered as skips")
	var images, made int
	for _, c := range calls {
		if strings.HasPrefix(c.Case.Feature, "images.") {
			images++
			if assert.NotNil(t, c.Skip, c.ID()) {
				assert.Equal(t, vocab.CheckNotOffered, c.Skip.Check)
			}
			continue
		}
		made++
		assert.Nil(t, c.Skip, c.ID())
	}
	assert.Positive(t, images)
	sum := plan.Summarize(calls)
	assert.Equal(t, made, sum.Total, "the skips are no calls")
	assert.Equal(t, images, sum.Skipped)

	excluded := allKeys
	excluded.Offers = []string{"!images.*"}
	same, err := plan.Make(suite.Catalog, excluded, plan.Selection{})
	require.NoError(t, err)
	assert.Equal(t, plan.Summarize(calls), plan.Summarize(same), "!images.* offers what the four families do")

	assert.NoError(t, plan.CheckOffers(suite.Catalog, offered.Offers))
	err = plan.CheckOffers(suite.Catalog, []string{"chat.*", "imgaes.*"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), `--offers "imgaes.*" matches nothing in the catalog; did you mean "images.*"?`)
	// A family below the first dot is offered too.
	err = plan.Selection{Features: []string{"images.edt.*"}}.Check(suite.Catalog, plan.ModelNames{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), `--feature "images.edt.*" matches nothing in the catalog; did you mean "images.edit.*"?`)
}
