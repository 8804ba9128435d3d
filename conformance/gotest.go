package conformance

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gwconform/gwconform/conformance/catalog"
	"github.com/gwconform/gwconform/conformance/execute"
	"github.com/gwconform/gwconform/conformance/plan"
	"github.com/gwconform/gwconform/conformance/results"
	"github.com/gwconform/gwconform/conformance/vocab"
	"github.com/gwconform/gwconform/conformance/waivers"
)

// Config is what Run needs. ConfigFromEnv fills it from the variables of
// the interface contract, so `go test` against a live key needs no code.
type Config struct {
	Target    plan.Target
	Selection plan.Selection
	Options   execute.Options
	// Strict makes strict-tier failures fail their subtests.
	Strict bool
	// Suite is the catalog to run; nil loads the embedded one.
	Suite *Suite
	// Waivers are the known deviations (GWCONFORM_WAIVERS): a failure a
	// live entry covers skips its subtest with the entry's reason and link.
	Waivers *waivers.Set
	// Local says the gateway answers in milliseconds (the in-process
	// reference gateway): the deadline check, sized for real gateways,
	// does not apply.
	Local bool
	// RequireClients are the client libraries whose readiness decides
	// (GWCONFORM_REQUIRE_CLIENTS): Run fails when one is NOT READY or
	// LIMITED.
	RequireClients []string
}

// goTestSettings are the rows of SettingsTable that go test reads, from
// their variables: the same names, checks and meanings as gwconform run's.
var goTestSettings = func() []string {
	names := []string{"base-url", "public-image-url", "offers", "model-map", "tier", "strict", "waivers", "header", "require-clients"}
	for _, k := range catalog.KeyKinds {
		names = append(names, string(k)+"-base-url", string(k)+"-key", string(k)+"-header")
	}
	return names
}()

// ConfigFromEnv reads GWCONFORM_BASE_URL (set but empty is refused) and
// each kind's GWCONFORM_<KIND>_BASE_URL, the key, header and public image
// variables, GWCONFORM_OFFERS and GWCONFORM_TIERS (comma-separated globs),
// GWCONFORM_MODEL_MAP (SPEC=ID, comma-separated),
// GWCONFORM_STRICT, GWCONFORM_WAIVERS (a waivers file) and
// GWCONFORM_REQUIRE_CLIENTS (client libraries whose readiness decides).
func ConfigFromEnv() (Config, error) {
	set := NewSettings(nil, goTestSettings...)
	if err := set.FromEnv(); err != nil {
		return Config{}, err
	}
	target, err := set.Target()
	if err != nil {
		return Config{}, err
	}
	cfg := Config{Target: target, Strict: set.Bool("strict"), Selection: plan.Selection{Tiers: set.List("tier"), From: map[string]string{"tier": set.Source("tier")}},
		RequireClients: set.List("require-clients")}
	if len(cfg.RequireClients) > 0 {
		table, err := catalog.EmbeddedClients()
		if err != nil {
			return cfg, err
		}
		if err := results.CheckClientNames(table, nil, cfg.RequireClients); err != nil {
			return cfg, err
		}
	}
	if file := set.String("waivers"); file != "" {
		ws, err := waivers.Load(file)
		if err != nil {
			return cfg, fmt.Errorf("%s: %w", waivers.Variable, err)
		}
		cfg.Waivers = ws
	}
	return cfg, cfg.Target.Validate()
}

// Nominal durations of one call of a real gateway, for the deadline check:
// a text call takes seconds, an image tens of seconds per final image. Only
// a guard against go test's default 10-minute timeout killing a long run
// half way; the spec allows up to 600 s a request (section 8).
const (
	nominalTextCall = 20 * time.Second
	nominalImage    = 60 * time.Second
)

// EstimateDuration is how long the calls of a plan take at the nominal
// durations, keys in parallel and Options.Concurrency calls per key.
func EstimateDuration(calls []plan.Call, concurrency int) time.Duration {
	if concurrency <= 0 {
		concurrency = execute.Options{}.WithDefaults().Concurrency
	}
	perKey := map[catalog.KeyKind]time.Duration{}
	for _, c := range calls {
		if c.Skip != nil {
			continue
		}
		d := nominalTextCall
		if cost := plan.EstimateCost(c.Case); cost.Images > 0 {
			d = time.Duration(cost.Images) * nominalImage
		}
		perKey[c.Case.Key] += d
	}
	var longest time.Duration
	for _, d := range perKey {
		longest = max(longest, d/time.Duration(concurrency))
	}
	return longest
}

// Run runs the catalog as subtests <feature>/<model>/<case-id> of t against
// cfg.Target and returns every result. Another module's tests can run the
// catalog against their own gateway with it:
//
//	func TestGateway(t *testing.T) {
//		cfg, err := conformance.ConfigFromEnv()
//		if err != nil { t.Fatal(err) }
//		conformance.Run(t, cfg)
//	}
//
// The rules are gwconform run's: an unreachable gateway fails at once; no
// key with a base URL checks nothing and fails; a rejected key is said once
// and its subtests skip; a throttled verified or negative subtest fails
// ("throttled: not verified"), as does a negative whose control was not
// served ("inconclusive"); explore cases never fail. Against a live
// gateway it fails at once when the test's deadline is shorter than the plan
// needs (run with -timeout 0, or the timeout gwconform plan suggests).
func Run(t *testing.T, cfg Config) []results.Result {
	t.Helper()
	suite, calls, target := planSubtests(t, cfg)
	runner := suite.Runner(target, cfg.Options)
	now := time.Now()
	var mu sync.Mutex
	var all []results.Result
	// Each call is made once: by its own subtest, or for a control by the
	// first negative subtest that needs its result (-run may leave the
	// control's subtest out). A negative's subtest thus never waits for a
	// subtest that has not started, whatever the order and -parallel; its
	// result is decided with its control's (results.Settle). Every result
	// joins all once, as its subtest would judge it.
	type outcome struct{ raw, final results.Result }
	made := make(map[results.CaseModel]func() outcome, len(calls))
	for _, c := range calls {
		made[c.CaseModel()] = sync.OnceValue(func() outcome {
			raw := runner.RunOne(context.Background(), c)
			final := raw
			if k, ok := c.ControlKey(); ok {
				var control *results.Result
				if m := made[k]; m != nil {
					ctl := m().raw
					control = &ctl
				}
				final = results.Settle(raw, k.Case, control)
			}
			cfg.Waivers.Apply(&final, cfg.Strict, now)
			mu.Lock()
			all = append(all, final)
			mu.Unlock()
			return outcome{raw, final}
		})
	}
	for _, feature := range groupCalls(calls, func(c plan.Call) string { return c.Case.Feature }) {
		t.Run(feature.name, func(t *testing.T) {
			for _, model := range groupCalls(feature.calls, func(c plan.Call) string { return c.Model }) {
				t.Run(model.name, func(t *testing.T) {
					for _, c := range model.calls {
						t.Run(c.Case.ID, func(t *testing.T) {
							t.Parallel()
							JudgeSubtest(t, made[c.CaseModel()]().final, cfg.Strict)
						})
					}
				})
			}
		})
	}
	judgeRun(t, all, cfg.Strict)
	requireClients(t, cfg.RequireClients, all)
	return all
}

// judgeRun fails the test as the CLI's verdict would, beyond the
// subtests: a run left incomplete for any reason but an unset key (a
// model not listed, a list that could not be read, a rejected key, the
// budget) fails with the CLI's headline and notes, where each of its
// subtests only skips. An unset key stays a skip: leaving a family out is
// the user's choice.
func judgeRun(t interface {
	Helper()
	Errorf(format string, args ...any)
}, all []results.Result, strict bool) {
	t.Helper()
	var chosen []results.Result
	for _, r := range all {
		if !(r.Status == vocab.StatusSkip && len(r.Reasons) > 0 && r.Reasons[0].Check == vocab.CheckKeyMissing) {
			chosen = append(chosen, r)
		}
	}
	if len(chosen) == 0 {
		return // every case's key is unset: each subtest skipped, saying which
	}
	v := results.Judge(chosen, strict, results.Completion{})
	if v.Outcome != results.OutcomeIncomplete {
		return
	}
	t.Errorf("INCOMPLETE: %s", v.Headline)
	for _, n := range v.Notes {
		t.Errorf("  - %s", n)
	}
}

// requireClients fails the test for each required library whose
// readiness the results make NOT READY or LIMITED, naming why.
func requireClients(t interface {
	Helper()
	Errorf(format string, args ...any)
}, required []string, rs []results.Result) {
	t.Helper()
	if len(required) == 0 {
		return
	}
	rows, err := results.EmbeddedReadiness(required, rs)
	if err != nil {
		t.Errorf("client readiness: %v", err)
		return
	}
	for _, r := range results.RequiredFailing(rows, required) {
		t.Errorf("client %s is %s (GWCONFORM_REQUIRE_CLIENTS): %s", r.Client, r.Verdict.Label(), strings.Join(r.Because, "; "))
	}
}

// planSubtests readies what Run's subtests need, as run does before its
// first call: the suite, the settings checked against the catalog, the
// preflight (a rejected key said once), the plan, and, against a live
// gateway, a deadline long enough for it.
func planSubtests(t *testing.T, cfg Config) (*Suite, []plan.Call, plan.Target) {
	t.Helper()
	suite := cfg.Suite
	if suite == nil {
		var err error
		if suite, err = LoadSuite(""); err != nil {
			t.Fatal(err)
		}
	}
	if err := errors.Join(plan.CheckOffers(suite.Catalog, cfg.Target.Offers), plan.CheckModelMap(suite.Catalog, cfg.Target.Names.Given)); err != nil {
		t.Fatal(err)
	}
	target := cfg.Target
	if len(target.Keys) == 0 {
		t.Fatal("no key (GWCONFORM_*_KEY) for the gateway: nothing would be checked")
	}
	found, err := execute.Preflight(context.Background(), suite.Catalog, target, plan.UsedKinds(suite.Catalog, target, cfg.Selection),
		execute.ListOptions{Timeout: cfg.Options.Timeout, Slow: func(kind catalog.KeyKind, limit time.Duration) {
			t.Logf("waiting for the %s key's model list (GET /v1/models; up to %s, the request timeout)", kind, limit)
		}})
	if err != nil {
		t.Fatal(err)
	}
	for kind, why := range found.Rejected {
		t.Errorf("the %s key was rejected (%s): its cases are not checked", kind, why)
	}
	target.Rejected, target.Names = found.Rejected, found.Names
	for _, line := range found.Names.Said() {
		t.Log(line)
	}
	if err := errors.Join(cfg.Selection.Check(suite.Catalog, target.Names), cfg.Waivers.Check(suite.Catalog, target.Names.Aliases(suite.Catalog))); err != nil {
		t.Fatal(err) // a typo in GWCONFORM_TIERS or a waiver narrows nothing silently
	}
	calls, err := plan.Make(suite.Catalog, target, cfg.Selection)
	if err != nil {
		t.Fatal(err)
	}
	if err := target.Names.Ambiguities(plan.Models(calls)); err != nil {
		t.Fatal(err)
	}
	if deadline, ok := t.Deadline(); ok && !cfg.Local {
		need := EstimateDuration(calls, cfg.Options.Concurrency)
		if left := time.Until(deadline); left < need {
			t.Fatalf("the test's deadline is %s away, but the plan needs about %s (%d calls): run with -timeout 0, or -timeout %s",
				left.Round(time.Second), need.Round(time.Second), plan.Summarize(calls).Total, (need + need/2).Round(time.Minute))
		}
	}
	return suite, calls, target
}

// callGroup is calls sharing a name, in plan order.
type callGroup struct {
	name  string
	calls []plan.Call
}

func groupCalls(calls []plan.Call, key func(plan.Call) string) []*callGroup {
	var out []*callGroup
	by := map[string]*callGroup{}
	for _, c := range calls {
		k := key(c)
		g := by[k]
		if g == nil {
			g = &callGroup{name: k}
			by[k] = g
			out = append(out, g)
		}
		g.calls = append(g.calls, c)
	}
	return out
}

// JudgeSubtest turns a result into its subtest's outcome, by the rules of
// Run: a counted failure, throttle or inconclusive refusal fails it, a
// skip, a decline or a waived failure skips it (with the waiver's reason
// and link), anything not counted is logged.
func JudgeSubtest(t *testing.T, r results.Result, strict bool) {
	t.Helper()
	switch {
	case r.Status == vocab.StatusThrottled && r.Decides(strict):
		t.Errorf("throttled: not verified (%s %s, %s tier): %v", r.Case, r.Model, r.Tier, r.Reasons)
	case r.Status == vocab.StatusInconclusive && r.Decides(strict):
		t.Errorf("inconclusive: the refusal is not judged (%s %s, %s tier): %v", r.Case, r.Model, r.Tier, r.Reasons)
	case r.Status == vocab.StatusSkip || r.Status == vocab.StatusUnsupported:
		t.Skipf("%s: %v", r.Status, r.Reasons)
	case r.Status == vocab.StatusWaived:
		t.Skipf("waived by %s: %s; the failure: %v", r.Waiver.Source, r.Waiver.Describe(), r.Reasons)
	case r.FailsRun(strict):
		t.Errorf("%s %s (%s, spec %s): %s", r.Status, r.Case, r.Tier, r.Spec, r.Requirement)
		for _, reason := range r.Reasons {
			t.Errorf("  %s", reason)
		}
		if r.RequestID != "" { // what the gateway's operator searches their logs for
			t.Errorf("  request id: %s", r.RequestID)
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
