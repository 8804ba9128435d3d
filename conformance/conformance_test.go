package conformance_test

import (
	"context"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gwconform/gwconform/conformance"
	"github.com/gwconform/gwconform/conformance/conformancetest"
	"github.com/gwconform/gwconform/conformance/refgateway"
	"github.com/gwconform/gwconform/conformance/results"
	"github.com/gwconform/gwconform/conformance/waivers"
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
// GWCONFORM_WAIVERS names a waivers file (as gwconform run --waivers): a
// failure a live entry covers skips its subtest with the entry's reason and
// link; an expired entry no longer applies, and the failure says so.
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
	var known *waivers.Set
	if file := os.Getenv(waivers.Variable); file != "" {
		var err error
		known, err = waivers.Load(file)
		require.NoError(t, err, "%s", waivers.Variable)
	}
	now := time.Now()
	var sel conformance.Selection
	if tiers := os.Getenv("GWCONFORM_TIERS"); tiers != "" {
		sel.Tiers = strings.Split(tiers, ",")
	}
	calls, err := conformance.Plan(suite.Catalog, target, sel)
	require.NoError(t, err)
	planned := conformance.Summarize(calls).Total
	var made atomic.Int64
	if loc != nil {
		// Each call that ran made exactly one request, so with no -run
		// filter the plan's count is the gateway's (plan == run, issue 3).
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
							if c.Skip == nil {
								made.Add(1)
							}
							r := runner.RunOne(context.Background(), c)
							known.Apply(&r, strict, now)
							assertResult(t, r, strict)
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
	case r.Status == results.StatusWaived:
		t.Skipf("waived by %s: %s; the failure: %v", r.Waiver.Source, r.Waiver.Describe(), r.Reasons)
	case r.Failed() && r.Counts(strict):
		t.Errorf("%s %s (%s, spec %s): %s", r.Status, r.Case, r.Tier, r.Spec, r.Requirement)
		for _, reason := range r.Reasons {
			t.Errorf("  %s", reason)
		}
		if w := r.Waiver; w != nil && w.State == results.WaiverExpired {
			t.Errorf("  waiver %s expired %s and no longer applies: %s", w.Source, w.Expires, w.Describe())
		}
	case r.Failed():
		t.Logf("%s tier, not counted: %s %v", r.Tier, r.Status, r.Reasons)
	case r.Waiver != nil:
		t.Logf("waiver %s %s: %s", r.Waiver.Source, r.Waiver.State, r.Waiver.Describe())
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

// A failure a live waiver covers skips its go test subtest (with the
// entry's reason and link) instead of failing it; a waiver no longer
// needed leaves a passing subtest passing.
func TestWaivedSubtestsSkip(t *testing.T) {
	loc := startLocal(t, refgateway.Config{Faults: []string{"wrong-404"}})
	suite := loadSuite(t)
	calls, err := conformance.Plan(suite.Catalog, loc.target, conformance.Selection{Cases: []string{"messages-unknown-model-404", "messages-no-model"}})
	require.NoError(t, err)
	require.NotEmpty(t, calls)
	known, err := waivers.Parse("waivers.yaml", []byte(`- case: messages-*
  model: "*"
  reason: the relay answers 400 for unknown model ids
  link: https://tracker.test/GW-404
  expires: 2099-01-01
`))
	require.NoError(t, err)
	runner := &conformance.Runner{Suite: suite, Target: loc.target, Options: conformance.Options{MaxRetries: -1}}
	for _, c := range calls {
		r := runner.RunOne(context.Background(), c)
		wantSkip := r.Status == results.StatusFail
		require.Equal(t, c.Case.ID == "messages-unknown-model-404", wantSkip, "%s: %v", c.ID(), r.Reasons)
		known.Apply(&r, false, time.Now())
		var sub *testing.T
		ok := t.Run(c.ID(), func(t *testing.T) {
			sub = t
			assertResult(t, r, false)
		})
		assert.True(t, ok, "%s passes or skips", c.ID())
		assert.Equal(t, wantSkip, sub.Skipped(), "%s: a waived failure skips, a pass does not", c.ID())
		require.NotNil(t, r.Waiver)
	}
}
