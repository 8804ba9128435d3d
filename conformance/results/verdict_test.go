package results

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestJudge(t *testing.T) {
	res := func(tier Tier, st Status, key string, reasons ...Reason) Result {
		return Result{Tier: tier, Status: st, Key: key, Reasons: reasons}
	}
	missing := Reason{Check: CheckKeyMissing, Message: "no image key (set GWCONFORM_IMAGE_KEY)"}
	rejected := Reason{Check: CheckKeyRejected, Message: "GET /v1/models with the text key answered 401"}
	noURL := Reason{Check: CheckPrecondition, Message: "no public image URL (set GWCONFORM_PUBLIC_IMAGE_URL)"}
	entry := Waiver{Case: "messages-unknown-model-404", Model: "*", Reason: "relay answers 400", Link: "https://tracker.test/T-1", Expires: "2026-04-01", Source: "waivers.yaml:1"}
	waiver := func(r Result, st WaiverState) Result {
		w := entry
		w.State = st
		r.Waiver = &w
		return r
	}
	tests := []struct {
		name       string
		rs         []Result
		strict     bool
		completion Completion
		outcome    Outcome
		headline   string
		notes      []string
	}{
		{name: "interrupted with nothing failed: incomplete, never pass", outcome: OutcomeIncomplete,
			rs:         []Result{res(TierVerified, StatusPass, "text"), res(TierExplore, StatusPass, "text")},
			completion: Completion{Interrupted: true, Planned: 10, Unrun: 6},
			headline:   "incomplete: interrupted after 2 of 10 calls; 6 verified/negative cases not run; nothing that ran failed",
			notes:      []string{"interrupted after 2 of 10 calls (SIGINT or SIGTERM): 6 verified/negative cases not run"}},
		{name: "interrupted after a failure: the failure decides", outcome: OutcomeFail,
			rs:         []Result{res(TierVerified, StatusFail, "text")},
			completion: Completion{Interrupted: true, Planned: 3, Unrun: 2},
			headline:   "conformance failed: 1 of 1 verified/negative result failed or errored; interrupted after 1 of 3 calls",
			notes:      []string{"interrupted after 1 of 3 calls (SIGINT or SIGTERM): 2 verified/negative cases not run"}},
		{name: "a call cut by the interrupt counts neither way", outcome: OutcomeIncomplete,
			rs:         []Result{res(TierVerified, StatusPass, "text"), {Tier: TierVerified, Status: StatusError, Key: "text", Cancelled: true, Reasons: []Reason{{Check: "transport", Message: "context canceled"}}}},
			completion: Completion{Interrupted: true, Planned: 2, Unrun: 1},
			headline:   "incomplete: interrupted after 1 of 2 calls; 1 verified/negative case not run; nothing that ran failed",
			notes:      []string{"interrupted after 1 of 2 calls (SIGINT or SIGTERM): 1 verified/negative case not run"}},
		{name: "a budget that leaves counted cases out: incomplete", outcome: OutcomeIncomplete,
			rs: []Result{res(TierVerified, StatusPass, "text"), res(TierNegative, StatusSkip, "text", Reason{Check: CheckBudget, Message: "over the call budget (--max-calls 1)"}),
				res(TierExplore, StatusSkip, "text", Reason{Check: CheckBudget, Message: "over the call budget (--max-calls 1)"})},
			headline: "incomplete: the budget left 1 verified/negative case of 2 unchecked; nothing that ran failed",
			notes:    []string{"over the call budget (--max-calls 1): 1 verified/negative case not checked"}},
		{name: "a budget that leaves only explore out: pass", outcome: OutcomePass,
			rs: []Result{res(TierVerified, StatusPass, "text"), res(TierExplore, StatusSkip, "text", Reason{Check: CheckBudget, Message: "over the call budget (--max-calls 1)"})}},
		{name: "counted calls of the plan without a result: incomplete", outcome: OutcomeIncomplete,
			rs:         []Result{res(TierVerified, StatusPass, "text")},
			completion: Completion{Planned: 3, Unrun: 2},
			headline:   "incomplete: 2 verified/negative cases of the plan never ran; nothing that ran failed",
			notes:      []string{"2 verified/negative cases of the plan never ran (held back by the budget)"}},
		{name: "a missing shard: incomplete, named", outcome: OutcomeIncomplete,
			rs:         []Result{res(TierVerified, StatusPass, "text")},
			completion: Completion{MissingShards: []string{"2/2"}},
			headline:   "incomplete: shard 2/2 missing; nothing that ran failed",
			notes:      []string{"shard 2/2 missing: its results are not in this report"}},
		{name: "all counted pass", outcome: OutcomePass, headline: "conformance passed: 2 verified, 1 negative",
			rs: []Result{res(TierVerified, StatusPass, "text"), res(TierVerified, StatusPass, "text"), res(TierNegative, StatusPass, "text")}},
		{name: "a failure wins over everything", outcome: OutcomeFail, headline: "conformance failed: 1 of 2 verified/negative results failed or errored",
			rs:    []Result{res(TierVerified, StatusFail, "text"), res(TierVerified, StatusThrottled, "text")},
			notes: []string{"1 verified/negative result throttled (429 after retries): not verified"}},
		{name: "an error fails too", outcome: OutcomeFail,
			rs: []Result{res(TierNegative, StatusError, "image")}},
		{name: "throttled counted results: incomplete", outcome: OutcomeIncomplete,
			headline: "incomplete: 2 verified/negative results throttled, not verified; nothing else failed",
			rs:       []Result{res(TierVerified, StatusPass, "text"), res(TierVerified, StatusThrottled, "text"), res(TierNegative, StatusThrottled, "text")}},
		{name: "throttled explore results do not matter", outcome: OutcomePass,
			rs: []Result{res(TierVerified, StatusPass, "text"), res(TierExplore, StatusThrottled, "text")}},
		{name: "no keys: nothing ran", outcome: OutcomeIncomplete,
			headline: "incomplete: none of the 2 verified/negative cases selected ran; nothing was checked",
			rs:       []Result{res(TierVerified, StatusSkip, "image", missing), res(TierNegative, StatusSkip, "image", missing)},
			notes:    []string{"image key not set: 2 verified/negative cases not checked"}},
		{name: "a missing key alone is not incomplete", outcome: OutcomePass, headline: "conformance passed: 1 verified",
			rs:    []Result{res(TierVerified, StatusPass, "text"), res(TierVerified, StatusSkip, "image", missing)},
			notes: []string{"image key not set: 1 verified/negative case not checked"}},
		{name: "a rejected key: incomplete", outcome: OutcomeIncomplete,
			headline: "incomplete: a configured key was rejected; nothing that ran failed",
			rs:       []Result{res(TierVerified, StatusPass, "image"), res(TierVerified, StatusSkip, "text", rejected), res(TierNegative, StatusSkip, "text", rejected)},
			notes:    []string{"text key rejected (GET /v1/models with the text key answered 401): 2 verified/negative cases not checked"}},
		{name: "the URL-reference row is named, not incomplete", outcome: OutcomePass,
			rs:    []Result{res(TierVerified, StatusPass, "image"), res(TierVerified, StatusSkip, "image", noURL)},
			notes: []string{"no public image URL (set GWCONFORM_PUBLIC_IMAGE_URL): 1 verified/negative case not checked"}},
		{name: "explore only: no conformance claim", outcome: OutcomeNoVerdict,
			headline: "no conformance verdict: no verified or negative case was selected; explore: 1 pass, 1 unsupported",
			rs:       []Result{res(TierExplore, StatusPass, "image"), res(TierExplore, StatusUnsupported, "image")}},
		{name: "strict failures count only with --strict", outcome: OutcomePass,
			rs: []Result{res(TierVerified, StatusPass, "text"), res(TierStrict, StatusFail, "text")}},
		{name: "with --strict they fail", strict: true, outcome: OutcomeFail,
			headline: "conformance failed: 1 of 2 verified/negative/strict results failed or errored",
			rs:       []Result{res(TierVerified, StatusPass, "text"), res(TierStrict, StatusFail, "text")}},
		{name: "a waived failure does not fail the run", outcome: OutcomePass,
			headline: "conformance passed: 1 verified, 1 negative (1 waived)",
			rs:       []Result{res(TierVerified, StatusPass, "text"), waiver(res(TierNegative, StatusWaived, "messages"), WaiverApplied)},
			notes:    []string{"1 verified/negative result waived: known deviations, listed apart with their reason and link; they do not fail the run"}},
		{name: "only waived results still ran", outcome: OutcomePass,
			headline: "conformance passed: 1 negative (1 waived)",
			rs:       []Result{waiver(res(TierNegative, StatusWaived, "messages"), WaiverApplied)}},
		{name: "an expired waiver: the failure counts again", outcome: OutcomeFail,
			rs:    []Result{res(TierVerified, StatusPass, "text"), waiver(res(TierNegative, StatusFail, "messages"), WaiverExpired)},
			notes: []string{"waiver waivers.yaml:1 (case messages-unknown-model-404, model *) expired 2026-04-01 and no longer applies: 1 failure, counted again"}},
		{name: "a waiver no longer needed", outcome: OutcomePass, headline: "conformance passed: 2 negative",
			rs:    []Result{waiver(res(TierNegative, StatusPass, "messages"), WaiverNotNeeded), waiver(res(TierNegative, StatusPass, "alt"), WaiverNotNeeded)},
			notes: []string{"waiver waivers.yaml:1 (case messages-unknown-model-404, model *) no longer needed: 2 covered results passed"}},
		{name: "a pass on a re-run passes, and says it was flaky", outcome: OutcomePass, headline: "conformance passed: 2 verified",
			rs: []Result{res(TierVerified, StatusPass, "text"), func() Result {
				r := res(TierVerified, StatusPass, "text")
				r.Reruns, r.Flaky, r.FirstStatus = 1, true, StatusFail
				return r
			}()},
			notes: []string{"1 verified/negative result failed first and passed when re-run (flaky): the first run's reasons are kept"}},
		{name: "nothing at all", outcome: OutcomeIncomplete, headline: "incomplete: nothing was checked (0 results, all skipped)"},
		{name: "explore selected, all skipped", outcome: OutcomeIncomplete,
			rs: []Result{res(TierExplore, StatusSkip, "image", missing)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := Judge(tt.rs, tt.strict, tt.completion)
			assert.Equal(t, tt.outcome, v.Outcome)
			if tt.headline != "" {
				assert.Equal(t, tt.headline, v.Headline)
			}
			if tt.outcome != OutcomePass {
				assert.NotContains(t, v.Headline, "passed", "only a pass may say passed")
			}
			if tt.notes != nil {
				assert.Equal(t, tt.notes, v.Notes)
			}
		})
	}
}
