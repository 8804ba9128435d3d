package conformance_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gwconform/gwconform/conformance"
	"github.com/gwconform/gwconform/conformance/catalog"
	"github.com/gwconform/gwconform/conformance/refgateway"
	"github.com/gwconform/gwconform/conformance/results"
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
		sel  conformance.Selection
	}{
		{"no budget", conformance.Selection{Features: text}},
		{"max-calls 7", conformance.Selection{MaxCalls: 7, Features: text}},
		{"max-calls 1 of images", conformance.Selection{MaxCalls: 1, Features: []string{"images.*"}}},
		{"shard 2/3", conformance.Selection{Shard: conformance.Shard{Index: 2, Count: 3}, Features: text}},
		// Verified and negative only: the explore tier's WebP calls would run
		// the lossy WebP encoder concurrently, whose lazily built tables race
		// in the third-party library (the gateway's, not this test's concern).
		{"max-cost 40 of image generations", conformance.Selection{MaxCost: 40, Features: []string{"images.generate*"}, Tiers: []string{"verified", "negative"}}},
		{"max-cost 5 and max-calls 3", conformance.Selection{MaxCost: 5, MaxCalls: 3, Features: text}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			loc := startLocal(t, refgateway.Config{})
			calls, err := conformance.Plan(suite.Catalog, loc.target, tc.sel)
			require.NoError(t, err)
			sum := conformance.Summarize(calls)
			runner := &conformance.Runner{Suite: suite, Target: loc.target, Options: conformance.Options{MaxRetries: -1}}
			budgetSkips, ran, requests := 0, 0, 0
			spent := 0.0
			runner.Run(context.Background(), calls, func(r results.Result) {
				spent += r.CostUnits
				if r.Status == results.StatusSkip {
					budgetSkips++
					assert.Equal(t, results.CheckBudget, r.Reasons[0].Check)
					return
				}
				ran++
				requests += r.Requests
			})
			assert.Equal(t, sum.Total, ran, "planned calls vs calls made")
			assert.Equal(t, sum.Requests, requests, "planned requests vs requests the results record")
			assert.Equal(t, int64(requests), loc.srv.Gateway.Requests(), "requests the results record vs requests the gateway saw")
			assert.InDelta(t, sum.TotalUnits, spent, 1e-9, "without retries a run spends what it planned")
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
	all := conformance.Target{Keys: map[catalog.KeyKind]string{catalog.KeyText: "t", catalog.KeyMessages: "m", catalog.KeyImage: "i", catalog.KeyAlt: "a"}, PublicImageURL: "https://x"}
	count := func(t *testing.T, target conformance.Target, sel conformance.Selection) (calls, skipped int) {
		cs, err := conformance.Plan(suite.Catalog, target, sel)
		require.NoError(t, err)
		for _, c := range cs {
			if c.Skip != nil {
				skipped++
			}
		}
		return len(cs), skipped
	}
	total, _ := count(t, all, conformance.Selection{})
	require.NotZero(t, total)

	t.Run("filters narrow", func(t *testing.T) {
		n, _ := count(t, all, conformance.Selection{Features: []string{"chat.*"}})
		assert.Positive(t, n)
		assert.Less(t, n, total)
		m, _ := count(t, all, conformance.Selection{Models: []string{"gen-image-2"}, Tiers: []string{"verified"}})
		assert.Positive(t, m)
		none, _ := count(t, all, conformance.Selection{Cases: []string{"no-such-case"}})
		assert.Zero(t, none)
	})
	t.Run("a missing key skips with the reason", func(t *testing.T) {
		noImage := all
		noImage.Keys = map[catalog.KeyKind]string{catalog.KeyText: "t"}
		calls, err := conformance.Plan(suite.Catalog, noImage, conformance.Selection{Features: []string{"images.generate"}, Tiers: []string{"verified"}})
		require.NoError(t, err)
		imageCalls := 0
		for _, c := range calls {
			if c.Case.Key != catalog.KeyImage {
				continue // the text key's refusals (5.2) run
			}
			imageCalls++
			require.NotNil(t, c.Skip)
			assert.Equal(t, results.CheckKeyMissing, c.Skip.Check)
			assert.Contains(t, c.Skip.Message, "GWCONFORM_IMAGE_KEY")
		}
		assert.Positive(t, imageCalls)
	})
	t.Run("shards partition the plan", func(t *testing.T) {
		seen := map[string]int{}
		for i := 1; i <= 3; i++ {
			cs, err := conformance.Plan(suite.Catalog, all, conformance.Selection{Shard: conformance.Shard{Index: i, Count: 3}})
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
		_, err := conformance.Plan(suite.Catalog, all, conformance.Selection{Features: []string{"["}})
		assert.Error(t, err)
	})
}

func TestParseShard(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want conformance.Shard
		err  bool
	}{
		{"", conformance.Shard{}, false},
		{"1/3", conformance.Shard{Index: 1, Count: 3}, false},
		{"3/3", conformance.Shard{Index: 3, Count: 3}, false},
		{"0/3", conformance.Shard{}, true},
		{"4/3", conformance.Shard{}, true},
		{"1/0", conformance.Shard{}, true},
		{"x", conformance.Shard{}, true},
		{"1/3x", conformance.Shard{}, true},
	} {
		got, err := conformance.ParseShard(tc.in)
		if tc.err {
			assert.Error(t, err, tc.in)
			continue
		}
		require.NoError(t, err, tc.in)
		assert.Equal(t, tc.want, got)
	}
}
