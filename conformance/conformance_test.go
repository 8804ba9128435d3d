package conformance_test

import (
	"context"
	"os"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gwconform/gwconform/conformance"
	"github.com/gwconform/gwconform/conformance/conformancetest"
	"github.com/gwconform/gwconform/conformance/refgateway"
	"github.com/gwconform/gwconform/conformance/results"
	"github.com/gwconform/gwconform/fixtures"
)

// TestConformance runs the catalog as subtests
// TestConformance/<feature>/<model>/<case-id>: against GWCONFORM_BASE_URL
// with the GWCONFORM_* keys when set, else against the in-process reference
// gateway. Set GWCONFORM_STRICT=1 to make strict-tier cases fail the test.
//
// Like `gwconform run` it runs every tier; explore cases are skipped when
// the gateway declines them and never fail. GWCONFORM_TIERS narrows the
// tiers (e.g. "verified,negative", to spare paid explore calls).
func TestConformance(t *testing.T) {
	target := conformance.TargetFromEnv()
	if testing.Short() && target.BaseURL == "" {
		t.Skip("runs the whole catalog (make test runs it in its non-race pass)")
	}
	require.NoError(t, target.Validate())
	var loc *local
	if target.BaseURL == "" {
		loc = startLocal(t, refgateway.Config{})
		target = loc.target
	} else {
		// The same rules as gwconform run: an unreachable gateway stops the
		// test at once, no key at all checks nothing, a rejected key is said
		// once (its subtests skip).
		if len(target.Keys) == 0 {
			t.Fatal("GWCONFORM_BASE_URL is set but no GWCONFORM_*_KEY: nothing would be checked")
		}
		rejected, err := conformance.Preflight(context.Background(), target)
		require.NoError(t, err)
		for kind, why := range rejected {
			t.Errorf("the %s key was rejected (%s): its cases are not checked", kind, why)
		}
		target.Rejected = rejected
	}
	suite := loadSuite(t)
	var sel conformance.Selection
	if tiers := os.Getenv("GWCONFORM_TIERS"); tiers != "" {
		sel.Tiers = strings.Split(tiers, ",")
	}
	calls, err := conformance.Plan(suite.Catalog, target, sel)
	require.NoError(t, err)
	planned := conformance.Summarize(calls).Requests
	var made atomic.Int64
	if loc != nil {
		// Every request a call made is in its result, so the gateway saw
		// exactly those; with no -run filter and no call that needed more
		// than one, the plan's count is the gateway's (plan == run).
		t.Cleanup(func() {
			assert.Equal(t, made.Load(), loc.srv.Gateway.Requests(), "calls made vs requests the gateway saw")
			if made.Load() == int64(planned) {
				assert.Equal(t, int64(planned), loc.srv.Gateway.Requests(), "planned calls vs requests")
			}
		})
	}
	runner := &conformance.Runner{Suite: suite, Target: target}
	strict := os.Getenv("GWCONFORM_STRICT") != ""

	// Group as feature → model → case, keeping catalog order.
	type group struct {
		name  string
		calls []conformance.Call
	}
	var features []*group
	byFeature := map[string]*group{}
	for _, c := range calls {
		g := byFeature[c.Case.Feature]
		if g == nil {
			g = &group{name: c.Case.Feature}
			byFeature[c.Case.Feature] = g
			features = append(features, g)
		}
		g.calls = append(g.calls, c)
	}
	for _, fg := range features {
		t.Run(fg.name, func(t *testing.T) {
			var models []string
			byModel := map[string][]conformance.Call{}
			for _, c := range fg.calls {
				if byModel[c.Model] == nil {
					models = append(models, c.Model)
				}
				byModel[c.Model] = append(byModel[c.Model], c)
			}
			for _, m := range models {
				t.Run(m, func(t *testing.T) {
					for _, c := range byModel[m] {
						t.Run(c.Case.ID, func(t *testing.T) {
							t.Parallel()
							res := runner.RunOne(context.Background(), c)
							made.Add(int64(res.Requests))
							assertResult(t, res, strict)
						})
					}
				})
			}
		})
	}
}

// assertResult turns a result into the subtest's outcome.
func assertResult(t *testing.T, r results.Result, strict bool) {
	t.Helper()
	switch {
	case r.Status == results.StatusThrottled && r.Counts(strict):
		t.Errorf("throttled: not verified (%s %s, %s tier): %v", r.Case, r.Model, r.Tier, r.Reasons)
	case r.Status == results.StatusSkip || r.Status == results.StatusUnsupported:
		t.Skipf("%s: %v", r.Status, r.Reasons)
	case r.Failed() && r.Counts(strict):
		t.Errorf("%s %s (%s, spec %s): %s", r.Status, r.Case, r.Tier, r.Spec, r.Requirement)
		for _, reason := range r.Reasons {
			t.Errorf("  %s", reason)
		}
	case r.Failed():
		t.Logf("%s tier, not counted: %s %v", r.Tier, r.Status, r.Reasons)
	}
}

// local is an in-process reference gateway with a target that reaches it.
type local struct {
	srv    *conformancetest.Server
	target conformance.Target
}

func startLocal(t testing.TB, cfg refgateway.Config) *local {
	t.Helper()
	srv, err := conformancetest.Start(cfg, fixtures.FS)
	require.NoError(t, err)
	t.Cleanup(srv.Close)
	return &local{srv: srv, target: conformance.Target{
		BaseURL:        srv.BaseURL,
		Keys:           srv.KeyMap(),
		PublicImageURL: srv.PublicImageURL,
	}}
}

func loadSuite(t testing.TB) *conformance.Suite {
	t.Helper()
	suite, err := conformance.LoadSuite("")
	require.NoError(t, err)
	return suite
}
