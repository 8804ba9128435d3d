package conformance_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gwconform/gwconform/conformance"
	"github.com/gwconform/gwconform/conformance/refgateway"
	"github.com/gwconform/gwconform/conformance/results"
)

// BenchmarkRun measures whole runs against the in-process reference gateway:
// the engine's cost per call (request, checks, image decoding) plus the
// gateway's. Compare ns/op between commits, and ms/call between the slices
// (images dominate: each is encoded by the gateway and decoded by the checks).
func BenchmarkRun(b *testing.B) {
	suite := loadSuite(b)
	for _, bc := range []struct {
		name string
		sel  conformance.Selection
	}{
		{"text", conformance.Selection{Features: []string{"models.*", "chat.*", "messages.*", "responses.*"}}},
		{"images-verified", conformance.Selection{Features: []string{"images.*"}, Tiers: []string{"verified"}}},
		{"catalog", conformance.Selection{}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			loc := startLocal(b, refgateway.Config{})
			calls, err := conformance.Plan(suite.Catalog, loc.target, bc.sel)
			require.NoError(b, err)
			runner := &conformance.Runner{Suite: suite, Target: loc.target}
			b.ReportAllocs()
			b.ResetTimer()
			failed := 0
			for b.Loop() {
				runner.Run(context.Background(), calls, func(r results.Result) {
					if r.Failed() && r.Counts(false) {
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
