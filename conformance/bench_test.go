package conformance_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gwconform/gwconform/conformance/catalog"
	"github.com/gwconform/gwconform/conformance/execute"
	"github.com/gwconform/gwconform/conformance/plan"
	"github.com/gwconform/gwconform/conformance/refgateway"
	"github.com/gwconform/gwconform/conformance/results"
	"github.com/gwconform/gwconform/conformance/vocab"
)

// BenchmarkRun measures whole runs against the in-process reference gateway:
// the engine's cost per call (request, checks, image decoding) plus the
// gateway's. Compare ns/op between commits, and ms/call between the slices
// (images dominate: each is encoded by the gateway and decoded by the checks).
func BenchmarkRun(b *testing.B) {
	suite := loadSuite(b)
	for _, bc := range []struct {
		name string
		sel  plan.Selection
	}{
		{"text", plan.Selection{Features: []string{"models.*", "chat.*", "messages.*", "responses.*"}}},
		{"images-verified", plan.Selection{Features: []string{"images.*"}, Tiers: []string{"verified"}}},
		{"catalog", plan.Selection{}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			loc := startLocal(b, refgateway.Config{})
			calls, err := plan.Make(suite.Catalog, loc.target, bc.sel)
			require.NoError(b, err)
			runner := suite.Runner(loc.target, execute.Options{})
			b.ReportAllocs()
			b.ResetTimer()
			failed := 0
			for b.Loop() {
				runner.Run(context.Background(), calls, func(r results.Result) {
					if r.Failed() && r.Decides(false) {
						failed++
					}
				})
			}
			b.StopTimer()
			require.Zero(b, failed, "a benchmark run failed cases")
			b.ReportMetric(float64(len(calls)), "calls/op")
			b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N)/float64(len(calls)), "ms/call")
		})
	}
}

// BenchmarkPacedRun runs the whole catalog against a gateway with the
// latency of live endpoints, at --concurrency 4 and 8, without a rate limit
// and behind one of 2 requests/s per key and class (burst 2), and reports:
//   - throttled results and counted failures (the goals: none);
//   - with the limit, wall over the rate bound: the busiest key's planned
//     requests less the burst, divided by the rate (goal ≤ 1.1);
//   - wall over ideal, the ideal computed from the run's results: the
//     longest call, or the busiest key's summed call time divided by the
//     concurrency (goal without a limit ≤ 1.05).
//
// Each run takes minutes: make bench runs it, make test does not.
func BenchmarkPacedRun(b *testing.B) {
	suite := loadSuite(b)
	latency, err := refgateway.ParseLatency("chat=300ms,messages=300ms,images.generations=1s,images.edits=1s,event=10ms")
	require.NoError(b, err)
	const rate, burst = 2.0, 2
	limited, err := refgateway.ParseRateLimit("2/s,burst=2")
	require.NoError(b, err)
	for _, limit := range []struct {
		name string
		rl   refgateway.RateLimit
	}{{"unlimited", refgateway.RateLimit{}}, {"2per-s", limited}} {
		for _, concurrency := range []int{4, 8} {
			b.Run(fmt.Sprintf("%s/concurrency-%d", limit.name, concurrency), func(b *testing.B) {
				for b.Loop() {
					loc := startLocal(b, refgateway.Config{Latency: latency, RateLimit: limit.rl})
					calls, err := plan.Make(suite.Catalog, loc.target, plan.Selection{})
					require.NoError(b, err)
					runner := suite.Runner(loc.target, execute.Options{Concurrency: concurrency})
					var rs []results.Result
					start := time.Now()
					runner.Run(context.Background(), calls, func(r results.Result) { rs = append(rs, r) })
					wall := time.Since(start)
					throttled, failed := 0, 0
					for _, r := range rs {
						if r.Status == vocab.StatusThrottled {
							throttled++
						}
						if r.Failed() && r.Decides(false) {
							failed++
						}
					}
					b.ReportMetric(float64(throttled), "throttled")
					b.ReportMetric(float64(failed), "failures")
					b.ReportMetric(wall.Seconds(), "wall-s")
					b.ReportMetric(wall.Seconds()/idealWall(rs, concurrency).Seconds(), "wall/ideal")
					if limit.rl.Enabled() {
						bound := float64(busiestKeyRequests(calls)-burst) / rate
						b.ReportMetric(bound, "bound-s")
						b.ReportMetric(wall.Seconds()/bound, "wall/bound")
					}
				}
			})
		}
	}
}

// idealWall is the least wall time the results allow at that many calls in
// flight per key: the longest call, or the busiest key's summed call time
// spread over its slots.
func idealWall(rs []results.Result, concurrency int) time.Duration {
	longest := time.Duration(0)
	perKey := map[string]time.Duration{}
	for _, r := range rs {
		d := time.Duration(r.DurationMS) * time.Millisecond
		longest = max(longest, d)
		perKey[r.Key] += d
	}
	ideal := longest
	for _, sum := range perKey {
		ideal = max(ideal, sum/time.Duration(concurrency))
	}
	return ideal
}

// busiestKeyRequests is the most requests the plan sends with one key: its
// calls, and the model lists other keys' differs_from checks ask of it.
func busiestKeyRequests(calls []plan.Call) int {
	perKey := map[catalog.KeyKind]int{}
	for _, c := range calls {
		if c.Skip != nil {
			continue
		}
		perKey[c.Case.Key]++
		for _, k := range c.Case.Expect.DiffersFrom {
			perKey[k]++
		}
	}
	most := 0
	for _, n := range perKey {
		most = max(most, n)
	}
	return most
}
