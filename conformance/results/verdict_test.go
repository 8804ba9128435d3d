package results

import (
	"slices"
	"strings"
	"testing"

	"github.com/gwconform/gwconform/conformance/vocab"
	"github.com/stretchr/testify/assert"
)

func TestJudge(t *testing.T) {
	res := func(tier vocab.Tier, st vocab.Status, key string, reasons ...vocab.Reason) Result {
		return Result{Tier: tier, Status: st, Key: key, Reasons: reasons}
	}
	missing := vocab.Reason{Check: vocab.CheckKeyMissing, Message: "no image key (set GWCONFORM_IMAGE_KEY)"}
	rejected := vocab.Reason{Check: vocab.CheckKeyRejected, Message: "GET /v1/models with the text key answered 401"}
	noURL := vocab.Reason{Check: vocab.CheckPrecondition, Message: "no public image URL (set GWCONFORM_PUBLIC_IMAGE_URL)"}
	unreadLine := "not checked: the messages key's model list could not be read (HTTP 500); nothing is sent under a guessed id; name its models with the word form: --model-map msg=claude (every msg- model), or a pair per model: --model-map SPEC=ID"
	unread := func(model string) Result {
		return Result{Tier: vocab.TierVerified, Status: vocab.StatusSkip, Key: "messages", Model: model, Reasons: []vocab.Reason{{Check: vocab.CheckListUnread, Where: model, Message: unreadLine}}}
	}
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
			rs:         []Result{res(vocab.TierVerified, vocab.StatusPass, "text"), res(vocab.TierExplore, vocab.StatusPass, "text")},
			completion: Completion{Interrupted: true, Planned: 10, Unrun: 6},
			headline:   "incomplete: interrupted after 2 of 10 calls; 6 verified/negative cases not run; nothing that ran failed",
			notes:      []string{"interrupted after 2 of 10 calls (SIGINT or SIGTERM): 6 verified/negative cases not run"}},
		{name: "interrupted after a failure: the failure decides", outcome: OutcomeFail,
			rs:         []Result{res(vocab.TierVerified, vocab.StatusFail, "text")},
			completion: Completion{Interrupted: true, Planned: 3, Unrun: 2},
			headline:   "conformance failed: 1 of 1 verified/negative result failed or errored; interrupted after 1 of 3 calls",
			notes:      []string{"interrupted after 1 of 3 calls (SIGINT or SIGTERM): 2 verified/negative cases not run"}},
		{name: "a call cut by the interrupt counts neither way", outcome: OutcomeIncomplete,
			rs:         []Result{res(vocab.TierVerified, vocab.StatusPass, "text"), {Tier: vocab.TierVerified, Status: vocab.StatusError, Key: "text", Cancelled: true, Reasons: []vocab.Reason{{Check: "transport", Message: "context canceled"}}}},
			completion: Completion{Interrupted: true, Planned: 2, Unrun: 1},
			headline:   "incomplete: interrupted after 1 of 2 calls; 1 verified/negative case not run; nothing that ran failed",
			notes:      []string{"interrupted after 1 of 2 calls (SIGINT or SIGTERM): 1 verified/negative case not run"}},
		{name: "a budget that leaves counted cases out: incomplete", outcome: OutcomeIncomplete,
			rs: []Result{res(vocab.TierVerified, vocab.StatusPass, "text"), res(vocab.TierNegative, vocab.StatusSkip, "text", vocab.Reason{Check: vocab.CheckBudget, Message: "over the call budget (--max-calls 1)"}),
				res(vocab.TierExplore, vocab.StatusSkip, "text", vocab.Reason{Check: vocab.CheckBudget, Message: "over the call budget (--max-calls 1)"})},
			headline: "incomplete: the budget left 1 verified/negative case of 2 unchecked; nothing that ran failed",
			notes:    []string{"over the call budget (--max-calls 1): 1 verified/negative case not checked"}},
		{name: "a model its key does not list: incomplete, a note per model", outcome: OutcomeIncomplete,
			rs: []Result{res(vocab.TierVerified, vocab.StatusPass, "text"),
				{Tier: vocab.TierVerified, Status: vocab.StatusSkip, Key: "text", Model: "gen-5.5", Reasons: []vocab.Reason{{Check: vocab.CheckNotListed, Message: "gen-5.5 is not listed for the text key (it lists company-chat); if the gateway names it otherwise, map it: --model-map gen-5.5=ID"}}},
				{Tier: vocab.TierNegative, Status: vocab.StatusSkip, Key: "text", Model: "gen-5.5", Reasons: []vocab.Reason{{Check: vocab.CheckNotListed, Message: "gen-5.5 is not listed for the text key (it lists company-chat); if the gateway names it otherwise, map it: --model-map gen-5.5=ID"}}}},
			headline: "incomplete: 2 verified/negative cases not checked: the model is not listed for its key (see the notes); nothing that ran failed",
			notes:    []string{"2 verified/negative cases not checked, nothing sent: gen-5.5 is not listed for the text key (it lists company-chat); if the gateway names it otherwise, map it: --model-map gen-5.5=ID"}},
		{name: "a key's list that could not be read: incomplete, one note for the key", outcome: OutcomeIncomplete,
			rs:       []Result{res(vocab.TierVerified, vocab.StatusPass, "text"), unread("msg-sonnet-5"), unread("msg-opus-5")},
			headline: "incomplete: 2 verified/negative cases not checked: their key's model list could not be read (see the notes); nothing that ran failed",
			notes:    []string{"2 verified/negative cases " + unreadLine}},
		{name: "the list's own case fails: the failure decides, the note stays", outcome: OutcomeFail,
			rs:       []Result{res(vocab.TierVerified, vocab.StatusFail, "messages"), unread("msg-sonnet-5")},
			headline: "conformance failed: 1 of 1 verified/negative result failed or errored",
			notes:    []string{"1 verified/negative case " + unreadLine}},
		{name: "passes after a retry are counted in the headline", outcome: OutcomePass,
			rs: []Result{res(vocab.TierVerified, vocab.StatusPass, "text"), {Tier: vocab.TierVerified, Status: vocab.StatusPass, Key: "text", Flaky: true},
				{Tier: vocab.TierNegative, Status: vocab.StatusPass, Key: "text", Flaky: true}, {Tier: vocab.TierExplore, Status: vocab.StatusPass, Key: "text", Flaky: true}},
			headline: "conformance passed: 2 verified, 1 negative; 2 results passed only after a retry (flaky)"},
		{name: "a budget that leaves only explore out: pass", outcome: OutcomePass,
			rs: []Result{res(vocab.TierVerified, vocab.StatusPass, "text"), res(vocab.TierExplore, vocab.StatusSkip, "text", vocab.Reason{Check: vocab.CheckBudget, Message: "over the call budget (--max-calls 1)"})}},
		{name: "counted calls of the plan without a result: incomplete", outcome: OutcomeIncomplete,
			rs:         []Result{res(vocab.TierVerified, vocab.StatusPass, "text")},
			completion: Completion{Planned: 3, Unrun: 2},
			headline:   "incomplete: 2 verified/negative cases of the plan never ran; nothing that ran failed",
			notes:      []string{"2 verified/negative cases of the plan never ran (held back by the budget)"}},
		{name: "a missing shard: incomplete, named", outcome: OutcomeIncomplete,
			rs:         []Result{res(vocab.TierVerified, vocab.StatusPass, "text")},
			completion: Completion{MissingShards: []string{"2/2"}},
			headline:   "incomplete: shard 2/2 missing; nothing that ran failed",
			notes:      []string{"shard 2/2 missing: its results are not in this report"}},
		{name: "all counted pass", outcome: OutcomePass, headline: "conformance passed: 2 verified, 1 negative",
			rs: []Result{res(vocab.TierVerified, vocab.StatusPass, "text"), res(vocab.TierVerified, vocab.StatusPass, "text"), res(vocab.TierNegative, vocab.StatusPass, "text")}},
		{name: "a failure wins over everything", outcome: OutcomeFail, headline: "conformance failed: 1 of 2 verified/negative results failed or errored",
			rs:    []Result{res(vocab.TierVerified, vocab.StatusFail, "text"), res(vocab.TierVerified, vocab.StatusThrottled, "text")},
			notes: []string{"1 verified/negative result throttled (still 429 after waiting --max-wait): not verified"}},
		{name: "an error fails too", outcome: OutcomeFail,
			rs: []Result{res(vocab.TierNegative, vocab.StatusError, "image")}},
		{name: "throttled counted results: incomplete", outcome: OutcomeIncomplete,
			headline: "incomplete: 2 verified/negative results throttled, not verified; nothing else failed",
			rs:       []Result{res(vocab.TierVerified, vocab.StatusPass, "text"), res(vocab.TierVerified, vocab.StatusThrottled, "text"), res(vocab.TierNegative, vocab.StatusThrottled, "text")}},
		{name: "inconclusive refusals, nothing failed: incomplete, never pass", outcome: OutcomeIncomplete,
			headline: "incomplete: 1 verified/negative result inconclusive (control not served); nothing failed",
			rs: []Result{res(vocab.TierVerified, vocab.StatusPass, "text"), {Case: "chat-no-model", Model: "gen-5.5", Tier: vocab.TierNegative, Status: vocab.StatusInconclusive, Key: "text",
				Reasons: []vocab.Reason{{Check: vocab.CheckControl, Where: "chat-json (gen-5.5)", Actual: "skip: no recording"}}}},
			notes: []string{"1 verified/negative result inconclusive: refused as stated, but the control (the same request without the defect) was not served, so the refusal proves nothing (e.g. chat-no-model on gen-5.5: control chat-json (gen-5.5) skip)"}},
		{name: "a failure wins over inconclusive refusals", outcome: OutcomeFail,
			rs: []Result{res(vocab.TierVerified, vocab.StatusFail, "text"), res(vocab.TierNegative, vocab.StatusInconclusive, "text")}},
		{name: "a negative skipped with its control is noted, not incomplete", outcome: OutcomePass,
			rs:    []Result{res(vocab.TierVerified, vocab.StatusPass, "text"), res(vocab.TierNegative, vocab.StatusSkip, "text", vocab.Reason{Check: vocab.CheckControl, Where: "control gen-basic (gen-image-2)", Message: "its control cannot be made: no image key (set GWCONFORM_IMAGE_KEY)"})},
			notes: []string{"its control cannot be made: no image key (set GWCONFORM_IMAGE_KEY): 1 verified/negative case not checked"}},
		{name: "a control re-run beside its negative is no flaky pass", outcome: OutcomePass, headline: "conformance passed: 1 verified",
			rs: []Result{func() Result {
				r := res(vocab.TierVerified, vocab.StatusPass, "text")
				r.Reruns, r.FirstStatus = 1, vocab.StatusPass
				return r
			}()},
			notes: []string{}},
		{name: "throttled explore results do not matter", outcome: OutcomePass,
			rs: []Result{res(vocab.TierVerified, vocab.StatusPass, "text"), res(vocab.TierExplore, vocab.StatusThrottled, "text")}},
		{name: "no keys: nothing ran", outcome: OutcomeIncomplete,
			headline: "incomplete: none of the 2 verified/negative cases selected ran; nothing was checked",
			rs:       []Result{res(vocab.TierVerified, vocab.StatusSkip, "image", missing), res(vocab.TierNegative, vocab.StatusSkip, "image", missing)},
			notes:    []string{"image key not set (or set but empty): 2 verified/negative cases not checked; set it, or leave its family out (--feature, --offers)"}},
		{name: "a selected family without its key: incomplete", outcome: OutcomeIncomplete, headline: "incomplete: 1 verified/negative case selected not checked: the key of their family is not set; nothing that ran failed",
			rs:    []Result{res(vocab.TierVerified, vocab.StatusPass, "text"), res(vocab.TierVerified, vocab.StatusSkip, "image", missing)},
			notes: []string{"image key not set (or set but empty): 1 verified/negative case not checked; set it, or leave its family out (--feature, --offers)"}},
		{name: "a missing key of explore cases only: pass", outcome: OutcomePass, headline: "conformance passed: 1 verified",
			rs: []Result{res(vocab.TierVerified, vocab.StatusPass, "text"), res(vocab.TierExplore, vocab.StatusSkip, "image", missing)}},
		{name: "a rejected key: incomplete", outcome: OutcomeIncomplete,
			headline: "incomplete: a configured key was rejected; nothing that ran failed",
			rs:       []Result{res(vocab.TierVerified, vocab.StatusPass, "image"), res(vocab.TierVerified, vocab.StatusSkip, "text", rejected), res(vocab.TierNegative, vocab.StatusSkip, "text", rejected)},
			notes:    []string{"text key rejected (GET /v1/models with the text key answered 401): 2 verified/negative cases not checked"}},
		{name: "the URL-reference row is named, not incomplete", outcome: OutcomePass,
			rs:    []Result{res(vocab.TierVerified, vocab.StatusPass, "image"), res(vocab.TierVerified, vocab.StatusSkip, "image", noURL)},
			notes: []string{"no public image URL (set GWCONFORM_PUBLIC_IMAGE_URL): 1 verified/negative case not checked"}},
		{name: "explore only: no conformance claim", outcome: OutcomeNoVerdict,
			headline: "no conformance verdict: no verified or negative case was selected; explore: 1 pass, 1 unsupported",
			rs:       []Result{res(vocab.TierExplore, vocab.StatusPass, "image"), res(vocab.TierExplore, vocab.StatusUnsupported, "image")}},
		{name: "strict failures count only with --strict", outcome: OutcomePass,
			rs: []Result{res(vocab.TierVerified, vocab.StatusPass, "text"), res(vocab.TierStrict, vocab.StatusFail, "text")}},
		{name: "with --strict they fail", strict: true, outcome: OutcomeFail,
			headline: "conformance failed: 1 of 2 verified/negative/strict results failed or errored",
			rs:       []Result{res(vocab.TierVerified, vocab.StatusPass, "text"), res(vocab.TierStrict, vocab.StatusFail, "text")}},
		{name: "a waived failure does not fail the run", outcome: OutcomePass,
			headline: "conformance passed: 1 verified, 1 negative (1 waived)",
			rs:       []Result{res(vocab.TierVerified, vocab.StatusPass, "text"), waiver(res(vocab.TierNegative, vocab.StatusWaived, "messages"), WaiverApplied)},
			notes:    []string{"1 verified/negative result waived: known deviations, listed apart with their reason and link; they do not fail the run"}},
		{name: "only waived results still ran", outcome: OutcomePass,
			headline: "conformance passed: 1 negative (1 waived)",
			rs:       []Result{waiver(res(vocab.TierNegative, vocab.StatusWaived, "messages"), WaiverApplied)}},
		{name: "an expired waiver: the failure counts again", outcome: OutcomeFail,
			rs:    []Result{res(vocab.TierVerified, vocab.StatusPass, "text"), waiver(res(vocab.TierNegative, vocab.StatusFail, "messages"), WaiverExpired)},
			notes: []string{"waiver waivers.yaml:1 (case messages-unknown-model-404, model *) expired 2026-04-01 and no longer applies: 1 failure, counted again"}},
		{name: "a waiver no longer needed", outcome: OutcomePass, headline: "conformance passed: 2 negative",
			rs:    []Result{waiver(res(vocab.TierNegative, vocab.StatusPass, "messages"), WaiverNotNeeded), waiver(res(vocab.TierNegative, vocab.StatusPass, "alt"), WaiverNotNeeded)},
			notes: []string{"waiver waivers.yaml:1 (case messages-unknown-model-404, model *) no longer needed: 2 covered results passed"}},
		{name: "a pass on a re-run passes, and says it was flaky", outcome: OutcomePass, headline: "conformance passed: 2 verified",
			rs: []Result{res(vocab.TierVerified, vocab.StatusPass, "text"), func() Result {
				r := res(vocab.TierVerified, vocab.StatusPass, "text")
				r.Reruns, r.Flaky, r.FirstStatus = 1, true, vocab.StatusFail
				return r
			}()},
			notes: []string{"1 verified/negative result failed first and passed when re-run (flaky): the first run's reasons are kept"}},
		{name: "nothing at all", outcome: OutcomeIncomplete, headline: "incomplete: nothing was checked (0 results, all skipped)"},
		{name: "explore selected, all skipped", outcome: OutcomeIncomplete,
			rs: []Result{res(vocab.TierExplore, vocab.StatusSkip, "image", missing)}},
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
			switch {
			case tt.notes == nil:
			case len(tt.notes) == 0:
				assert.Empty(t, v.Notes)
			default:
				assert.Equal(t, tt.notes, v.Notes)
			}
		})
	}
}

func TestSettle(t *testing.T) {
	neg := func(st vocab.Status) Result {
		return Result{Case: "chat-no-model", Model: "gen-5.5", Tier: vocab.TierNegative, Status: st, Attempts: 2, Flaky: st == vocab.StatusPass}
	}
	control := func(st vocab.Status, http int, reasons ...vocab.Reason) *Result {
		return &Result{Case: "chat-json", Model: "gen-5.5", Tier: vocab.TierVerified, Status: st, HTTPStatus: http, Reasons: reasons}
	}
	refused := vocab.Reason{Check: "status", Message: "HTTP status 400, want 200"}
	otherModel := vocab.Reason{Check: "json", Where: "model", Expected: "gen-5.5", Actual: "gen-5.6-luna", Message: "not the model requested"}
	errorMember := vocab.Reason{Check: "json", Where: "error", Expected: "no error field under a 2xx status", Actual: `{"message":"x"}`, Message: "a success response carries an error field"}
	emptyData := vocab.Reason{Check: "json", Where: "data", Expected: "at least one image", Actual: "[]", Message: "a success response carries an empty data list"}
	tests := []struct {
		name      string
		neg       Result
		control   *Result
		want      vocab.Status
		cancelled bool
		actual    string // the control reason's Actual; "" when none is added
	}{
		{"the control passed: the refusal stands", neg(vocab.StatusPass), control(vocab.StatusPass, 200), vocab.StatusPass, false, ""},
		{"the control served, failing another check: the refusal stands", neg(vocab.StatusPass), control(vocab.StatusFail, 200, otherModel), vocab.StatusPass, false, ""},
		{"the control served, its failure waived: the refusal stands", neg(vocab.StatusPass), control(vocab.StatusWaived, 200, otherModel), vocab.StatusPass, false, ""},
		{"the control refused too: inconclusive", neg(vocab.StatusPass), control(vocab.StatusFail, 400, refused), vocab.StatusInconclusive, false, "fail (HTTP 400): status: HTTP status 400, want 200"},
		{"the control answered 200 with an error member (2.2, 7): inconclusive", neg(vocab.StatusPass), control(vocab.StatusFail, 200, errorMember), vocab.StatusInconclusive, false,
			`fail (HTTP 200): json at error: a success response carries an error field (expected no error field under a 2xx status, got {"message":"x"})`},
		{"the control answered 200 with no image: inconclusive", neg(vocab.StatusPass), control(vocab.StatusFail, 200, otherModel, emptyData), vocab.StatusInconclusive, false,
			"fail (HTTP 200): json at data: a success response carries an empty data list (expected at least one image, got [])"},
		{"the control throttled: inconclusive", neg(vocab.StatusPass), control(vocab.StatusThrottled, 429), vocab.StatusInconclusive, false, "throttled (HTTP 429)"},
		{"the control errored after a 200: inconclusive", neg(vocab.StatusPass), control(vocab.StatusError, 200, vocab.Reason{Check: "transport", Message: "stalled"}), vocab.StatusInconclusive, false, "error (HTTP 200): transport: stalled"},
		{"the control skipped: inconclusive", neg(vocab.StatusPass), control(vocab.StatusSkip, 0, vocab.Reason{Check: vocab.CheckNoRecording, Message: "no exchange recorded"}), vocab.StatusInconclusive, false, "skip: no-recording: no exchange recorded"},
		{"no control in the run: inconclusive", neg(vocab.StatusPass), nil, vocab.StatusInconclusive, false, "not in this run"},
		{"the interrupt cut the control: cut too", neg(vocab.StatusPass), &Result{Case: "chat-json", Status: vocab.StatusError, HTTPStatus: 200, Cancelled: true}, vocab.StatusInconclusive, true, "cut by the run's interrupt"},
		{"an accepted defect fails without a control", neg(vocab.StatusFail), control(vocab.StatusFail, 400, refused), vocab.StatusFail, false, ""},
		{"an error stays an error", neg(vocab.StatusError), nil, vocab.StatusError, false, ""},
		{"a throttled negative stays throttled", neg(vocab.StatusThrottled), nil, vocab.StatusThrottled, false, ""},
		{"a verified case is no negative", Result{Case: "chat-json", Tier: vocab.TierVerified, Status: vocab.StatusPass}, nil, vocab.StatusPass, false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Settle(tt.neg, "chat-json", tt.control)
			assert.Equal(t, tt.want, got.Status)
			assert.Equal(t, tt.cancelled, got.Cancelled)
			if tt.actual == "" {
				assert.Equal(t, tt.neg, got, "left as it was")
				return
			}
			assert.False(t, got.Flaky, "an inconclusive result is no flaky pass")
			if assert.NotEmpty(t, got.Reasons) {
				r := got.Reasons[0]
				assert.Equal(t, vocab.CheckControl, r.Check)
				assert.Equal(t, "chat-json (gen-5.5)", r.Where)
				assert.Equal(t, tt.actual, r.Actual)
			}
		})
	}
}

// TestJudgeNotOffered: a feature the gateway declares it does not offer is
// neither checked nor missing; an offer that leaves nothing counted is
// "nothing checked", never a pass.
func TestJudgeNotOffered(t *testing.T) {
	offRes := func(tier vocab.Tier, feature string) Result {
		return Result{Tier: tier, Feature: feature, Status: vocab.StatusSkip,
			Reasons: []vocab.Reason{{Check: vocab.CheckNotOffered, Message: feature + " is not offered (--offers chat.*)"}}}
	}
	pass := Result{Tier: vocab.TierVerified, Feature: "chat.basic", Status: vocab.StatusPass}
	tests := []struct {
		name     string
		rs       []Result
		outcome  Outcome
		headline string
		off      []string
	}{
		{"images not offered, chat passes",
			[]Result{pass, offRes(vocab.TierVerified, "images.generate"), offRes(vocab.TierNegative, "images.edit.errors")},
			OutcomePass, "conformance passed: 1 verified; not offered: images.*", []string{"images.*"}},
		{"one feature of a family not offered",
			[]Result{pass, offRes(vocab.TierVerified, "chat.stream")},
			OutcomePass, "conformance passed: 1 verified; not offered: chat.stream", []string{"chat.stream"}},
		{"nothing offered",
			[]Result{offRes(vocab.TierVerified, "chat.basic"), offRes(vocab.TierExplore, "responses.basic")},
			OutcomeIncomplete, "incomplete: nothing checked: the gateway offers none of the 1 verified/negative case selected; not offered: chat.*, responses.*", []string{"chat.*", "responses.*"}},
		{"a failure still fails",
			[]Result{{Tier: vocab.TierVerified, Feature: "chat.basic", Status: vocab.StatusFail}, offRes(vocab.TierVerified, "images.generate")},
			OutcomeFail, "", []string{"images.*"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := Judge(tt.rs, false, Completion{})
			assert.Equal(t, tt.outcome, v.Outcome, v.Headline)
			if tt.headline != "" {
				assert.Equal(t, tt.headline, v.Headline)
			}
			assert.Equal(t, tt.off, NotOffered(tt.rs))
		})
	}
}

// tiered is r of another tier.
func tiered(r Result, tier vocab.Tier) Result {
	r.Tier = tier
	return r
}

// Lists alone answering 404 while other requests are answered leave the
// failures standing, with a note of what to check.
func TestJudgeListsNotFound(t *testing.T) {
	res := func(feature string, status int) Result {
		return Result{Tier: vocab.TierVerified, Feature: feature, Status: vocab.StatusFail, HTTPStatus: status}
	}
	const note = "every GET /v1/models answered 404 while other requests were answered: check that the base URL is the gateway's whole address (a path prefix missing?), or that the gateway offers the model list"
	v := Judge([]Result{res("models.list", 404), res("chat.basic", 200), res("images.generate", 404)}, false, Completion{})
	assert.Equal(t, OutcomeFail, v.Outcome)
	assert.Contains(t, v.Notes, note)
	assert.NotContains(t, Judge([]Result{res("models.list", 404)}, false, Completion{}).Notes, note, "the lists alone: nothing else to tell")
}

// TestSuggestOffers: a family of which every answered request got 404 is
// one the gateway does not serve; the suggestion declares the others.
func TestSuggestOffers(t *testing.T) {
	res := func(feature string, status int) Result {
		return Result{Tier: vocab.TierVerified, Feature: feature, Status: vocab.StatusFail, HTTPStatus: status}
	}
	tests := []struct {
		name string
		rs   []Result
		want string
	}{
		{"images unserved", []Result{res("chat.basic", 200), res("images.generate", 404), res("images.edit.json", 404), res("models.list", 200)},
			"--offers '!images.*'"},
		{"two families unserved", []Result{res("chat.basic", 200), res("responses.basic", 404), res("images.generate", 404)},
			"--offers '!images.*,!responses.*'"},
		{"images alone, unserved (probe)", []Result{res("images.generate", 404), res("images.edit.json", 404)}, "--offers '!images.*'"},
		{"one image answer other than 404", []Result{res("chat.basic", 200), res("images.generate", 404), res("images.edit.json", 400)}, ""},
		{"a call with no answer says nothing", []Result{res("chat.basic", 200), res("images.generate", 404), res("images.edit.json", 0)},
			"--offers '!images.*'"},
		{"no model list either: the base is wrong, no offer", []Result{res("models.list", 404), res("chat.basic", 404), res("images.generate", 404)}, ""},
		{"all served", []Result{res("chat.basic", 200), res("images.generate", 200)}, ""},
		// Drawn from verified cases only: a negative expecting a refusal
		// (the 404 to an unknown model) says nothing of the family, and a
		// family answered otherwise in any tier is served.
		{"a negative's 404 hides no family", []Result{res("models.list", 200), tiered(res("chat.errors", 404), vocab.TierNegative)}, ""},
		{"a verified 404 beside an explore answer", []Result{res("models.list", 200), res("chat.basic", 404), tiered(res("chat.basic", 200), vocab.TierExplore)}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, SuggestOffers(tt.rs))
			note := slices.ContainsFunc(Judge(tt.rs, false, Completion{}).Notes, func(n string) bool { return strings.Contains(n, "answered 404") })
			assert.Equal(t, tt.want != "", note, "the verdict's notes suggest it")
		})
	}
}
