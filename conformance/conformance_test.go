package conformance_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gwconform/gwconform/conformance"
	"github.com/gwconform/gwconform/conformance/conformancetest"
	"github.com/gwconform/gwconform/conformance/execute"
	"github.com/gwconform/gwconform/conformance/plan"
	"github.com/gwconform/gwconform/conformance/refgateway"
	"github.com/gwconform/gwconform/conformance/vocab"
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
	cfg, err := conformance.ConfigFromEnv()
	require.NoError(t, err)
	if cfg.Target.BaseURL != "" {
		conformance.Run(t, cfg)
		return
	}
	if testing.Short() {
		t.Skip("runs the whole catalog (make test runs it in its non-race pass)")
	}
	loc := startLocal(t, refgateway.Config{})
	cfg.Target, cfg.Local = loc.target, true
	suite := loadSuite(t)
	cfg.Suite = suite
	calls, err := plan.Make(suite.Catalog, cfg.Target, cfg.Selection)
	require.NoError(t, err)
	rs := conformance.Run(t, cfg)
	// Every refusal is judged: each negative's control passed beside it.
	negatives := 0
	for _, r := range rs {
		if r.Tier == vocab.TierNegative {
			negatives++
			assert.NotEqual(t, vocab.StatusInconclusive, r.Status, "%s on %s: %v", r.Case, r.Model, r.Reasons)
		}
	}
	if len(rs) == len(calls) {
		assert.Positive(t, negatives)
	}
	// Every request a call made is in its result and the preflight sent one
	// per key, so the gateway saw exactly those; with no -run filter, the
	// plan's count is the gateway's (plan == run).
	made := int64(len(cfg.Target.Keys))
	for _, r := range rs {
		made += int64(r.Requests)
	}
	assert.Equal(t, made, loc.srv.Gateway.Requests(), "requests made vs requests the gateway saw")
	if len(rs) == len(calls) {
		assert.Equal(t, int64(plan.Summarize(calls).Requests)+int64(len(cfg.Target.Keys)), loc.srv.Gateway.Requests(), "planned requests vs requests")
	}
}

// local is an in-process reference gateway with a target that reaches it.
type local struct {
	srv    *conformancetest.Server
	target plan.Target
}

func startLocal(t testing.TB, cfg refgateway.Config) *local {
	t.Helper()
	srv, err := conformancetest.Start(cfg, fixtures.FS)
	require.NoError(t, err)
	t.Cleanup(srv.Close)
	return &local{srv: srv, target: plan.Target{
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
	calls, err := plan.Make(suite.Catalog, loc.target, plan.Selection{Cases: []string{"messages-unknown-model-404", "messages-no-model"}})
	require.NoError(t, err)
	require.NotEmpty(t, calls)
	known, err := waivers.Parse("waivers.yaml", []byte(`- case: messages-*
  model: "*"
  reason: the relay answers 400 for unknown model ids
  link: https://tracker.test/GW-404
  expires: 2099-01-01
`))
	require.NoError(t, err)
	runner := suite.Runner(loc.target, execute.Options{MaxRetries: -1})
	for _, c := range calls {
		r := runner.RunOne(context.Background(), c)
		wantSkip := r.Status == vocab.StatusFail
		require.Equal(t, c.Case.ID == "messages-unknown-model-404", wantSkip, "%s: %v", c.ID(), r.Reasons)
		known.Apply(&r, false, time.Now())
		var sub *testing.T
		ok := t.Run(c.ID(), func(t *testing.T) {
			sub = t
			conformance.JudgeSubtest(t, r, false)
		})
		assert.True(t, ok, "%s passes or skips", c.ID())
		assert.Equal(t, wantSkip, sub.Skipped(), "%s: a waived failure skips, a pass does not", c.ID())
		require.NotNil(t, r.Waiver)
	}
}

// go test reads GWCONFORM_MODEL_MAP as run reads --model-map: against a
// gateway that serves gen-5.5 as an alias no rule resolves, the mapped
// subtests, named by the spec's id, send and pass under the alias.
func TestGoTestWithAModelMap(t *testing.T) {
	loc := startLocal(t, refgateway.Config{ModelNames: map[string]string{"gen-5.5": "company-chat"}})
	t.Setenv("GWCONFORM_BASE_URL", loc.target.BaseURL)
	t.Setenv("GWCONFORM_TEXT_KEY", loc.target.Keys["text"])
	t.Setenv("GWCONFORM_TIERS", "verified,negative")
	t.Setenv("GWCONFORM_MODEL_MAP", "gen-5.5=company-chat")
	cfg, err := conformance.ConfigFromEnv()
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"gen-5.5": "company-chat"}, cfg.Target.Names.Given)
	cfg.Selection.Features = []string{"chat.*"}
	cfg.Options.MaxRetries = -1
	rs := conformance.Run(t, cfg)
	require.NotEmpty(t, rs)
	for _, r := range rs {
		assert.Equal(t, vocab.StatusPass, r.Status, "%s × %s: %v", r.Case, r.Model, r.Reasons)
		assert.Equal(t, "company-chat", r.GatewayModel, "%s × %s", r.Case, r.Model)
	}
}

// go test reads GWCONFORM_REQUIRE_CLIENTS as run reads --require-clients:
// a name that is no library is refused, and a library the reference
// gateway serves whole is READY, so the run's subtests pass.
func TestGoTestRequireClients(t *testing.T) {
	loc := startLocal(t, refgateway.Config{})
	t.Setenv("GWCONFORM_BASE_URL", loc.target.BaseURL)
	t.Setenv("GWCONFORM_TEXT_KEY", loc.target.Keys["text"])
	t.Setenv("GWCONFORM_REQUIRE_CLIENTS", "openai-goo")
	_, err := conformance.ConfigFromEnv()
	require.ErrorContains(t, err, `did you mean "openai-go"?`)

	t.Setenv("GWCONFORM_REQUIRE_CLIENTS", "langchaingo")
	t.Setenv("GWCONFORM_MESSAGES_KEY", loc.target.Keys["messages"])
	cfg, err := conformance.ConfigFromEnv()
	require.NoError(t, err)
	assert.Equal(t, []string{"langchaingo"}, cfg.RequireClients)
	cfg.Selection.Features = []string{"chat.*", "messages.basic", "messages.stream"}
	cfg.Options.MaxRetries = -1
	cfg.Local = true
	rs := conformance.Run(t, cfg)
	require.NotEmpty(t, rs)
}
