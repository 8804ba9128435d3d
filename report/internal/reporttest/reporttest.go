// Package reporttest holds the results and runs the report packages'
// tests share: Res makes a result, P, F, TV, ... name statuses and tiers,
// Sample is a small run with every status, Nightly a night with waivers,
// costs and re-runs, Replayed a replayed run, DeclineRun explore calls for
// the capability map, NamedModels a model map. Tests dot-import it: their
// tables stay tables.
package reporttest

import (
	"strings"
	"time"

	"github.com/gwconform/gwconform/conformance/results"
	"github.com/gwconform/gwconform/conformance/vocab"
	reportv1 "github.com/gwconform/gwconform/report/apis/v1"
)

// T0 is when every result and report of these tests started.
var T0 = time.Date(2026, 3, 14, 2, 0, 0, 0, time.UTC)

// Statuses and tiers, short: the tables of the tests read as tables.
const (
	P  = vocab.StatusPass
	F  = vocab.StatusFail
	E  = vocab.StatusError
	S  = vocab.StatusSkip
	U  = vocab.StatusUnsupported
	T  = vocab.StatusThrottled
	TV = vocab.TierVerified
	TN = vocab.TierNegative
	TS = vocab.TierStrict
	TE = vocab.TierExplore
)

// W is the waived status.
const W = vocab.StatusWaived

// I is the inconclusive status: a refusal whose control was not served.
const I = vocab.StatusInconclusive

// Res makes a result; opts adjust it.
func Res(caseID, feature, model string, tier vocab.Tier, st vocab.Status, opts ...func(*results.Result)) results.Result {
	r := results.Result{
		Case: caseID, Feature: feature, Model: model, Tier: tier, Status: st,
		DurationMS: 120, TTFBMS: 40, Attempts: 1, Reasons: []vocab.Reason{},
		Started: T0, Key: "text", Spec: "4.2", Requirement: "a requirement",
	}
	if st == vocab.StatusFail || st == vocab.StatusError || st == vocab.StatusWaived {
		r.Reasons = []vocab.Reason{{Check: "status", Expected: "200", Actual: "500", Message: "unexpected status"}}
	}
	for _, o := range opts {
		o(&r)
	}
	return r
}

// WithReason gives a result one json reason saying msg.
func WithReason(msg string) func(*results.Result) {
	return func(r *results.Result) {
		r.Reasons = []vocab.Reason{{Check: "json", Where: "data.0", Expected: "x", Actual: msg, Message: msg}}
	}
}

// Flaky marks a result as passed after a retry.
func Flaky(r *results.Result) { r.Flaky = true; r.Attempts = 2 }

// Waiver marks a result as matched by a --waivers entry in the given state.
func Waiver(st results.WaiverState) func(*results.Result) {
	return func(r *results.Result) {
		r.Waiver = &results.Waiver{Case: r.Case, Model: "*", Reason: "the relay answers 400 for retired ids", Link: "https://tracker.test/GW-7",
			Expires: "2026-04-01", Source: "waivers.yaml:2", State: st}
	}
}

// Costs sets the units a result spent.
func Costs(units float64) func(*results.Result) {
	return func(r *results.Result) { r.CostUnits = units }
}

// RerunPassed marks a result as passed on a --rerun-failed re-run.
func RerunPassed(r *results.Result) {
	r.Reruns, r.Flaky, r.FirstStatus = 1, true, vocab.StatusFail
	r.FirstReasons = []vocab.Reason{{Check: "status", Expected: "200", Actual: "502", Message: "HTTP status 502, want 200"}}
}

// Features is the catalog order SampleMeta passes to Build.
var Features = []string{"models.list", "chat.basic", "chat.stream", "images.edit.json", "responses.basic"}

// SampleMeta is the Meta of the sample run: a gateway, a commit, a span.
func SampleMeta() reportv1.Meta {
	return reportv1.Meta{
		SuiteVersion: "v0.1.0", Commit: "0123456789abcdef", CatalogHash: "cafe", BaseURL: "http://127.0.0.1:8080",
		Started: T0, Finished: T0.Add(95 * time.Second), Features: Features,
	}
}

// Sample is a small run with every status, used by the writer tests.
func Sample() []results.Result {
	return []results.Result{
		Res("models-list", "models.list", "gen-text-1", TV, P),
		Res("models-list", "models.list", "gen-image-2.5-flare", TV, P),
		Res("chat-basic", "chat.basic", "gen-text-1", TV, P, Flaky),
		Res("chat-bad-model", "chat.basic", "gen-text-1", TN, F),
		Res("chat-stream", "chat.stream", "gen-text-1", TV, E),
		Res("chat-stream-usage", "chat.stream", "gen-text-1", TS, T),
		Res("edit-json", "images.edit.json", "gen-image-2.5-flare", TV, F, WithReason(`<script>alert(1)</script>`), func(r *results.Result) {
			r.Key = "image"
			r.Images = []results.ImageInfo{{Where: "data[0]", Format: "png", Width: 64, Height: 64, SHA256: "ab", Bytes: 100, Thumb: "data:image/png;base64,iVBORw0KGgo="}}
		}),
		Res("edit-json-url", "images.edit.json", "gen-image-2.5-flare", TV, S),
		Res("responses-basic", "responses.basic", "gen-text-1", TE, U),
	}
}

// Nightly is a night with the issue-12 features: a waived failure, a
// waiver no longer needed, an expired one, a pass after a re-run, costs,
// a budget and a model no case covers.
func Nightly() (reportv1.Meta, []results.Result) {
	m := SampleMeta()
	planned := 12.5
	m.MaxCost, m.PlannedCost = 20, &planned
	m.Uncovered = []reportv1.UncoveredModel{{Key: "image", Model: "gen-image-3-nova"}}
	return m, []results.Result{
		Res("models-list", "models.list", "gen-text-1", TV, P, Costs(1)),
		Res("chat-basic", "chat.basic", "gen-text-1", TV, P, Costs(2), RerunPassed),
		Res("chat-bad-model", "chat.basic", "gen-text-1", TN, W, Costs(1), Waiver(results.WaiverApplied)),
		Res("chat-bad-model", "chat.basic", "gen-text-2", TN, P, Costs(1), Waiver(results.WaiverNotNeeded)),
		Res("chat-stream", "chat.stream", "gen-text-1", TV, F, Costs(1.25), Waiver(results.WaiverExpired)),
		Res("edit-json", "images.edit.json", "gen-image-2.5-flare", TV, P, Costs(10.125)),
	}
}

// Replayed is a replay of a recording: a failure with its request id and
// transcript (a stream, a key echoed in a header), a call an interrupt
// cancelled, and a case the recording has nothing for.
func Replayed() (reportv1.Meta, []results.Result) {
	m := SampleMeta()
	m.Replay = &reportv1.Replay{Recording: "recordings/night-12", Recorded: T0.Add(-24 * time.Hour), BaseURL: "https://u:p@gw.test/v1?k=1"}
	return m, []results.Result{
		Res("chat-stream", "chat.stream", "gen-text-1", TV, F, func(r *results.Result) {
			r.RequestID = "req_0123abcd"
			r.Transcript = &results.Transcript{
				Exchange: "recordings/night-12/exchanges/chat.stream/chat-stream--gen-text-1.json",
				Rounds: []results.TranscriptRound{{
					Method: "POST", Path: "/v1/chat/completions", Key: "text",
					RequestHeader:  []string{"Content-Type: application/json"},
					RequestBody:    `{"model":"gen-text-1","stream":true}`,
					Status:         200,
					ResponseHeader: []string{"Content-Type: text/event-stream", "X-Echo: Authorization: Bearer sk-echoedsecret-123456", "X-Request-Id: req_0123abcd"},
					ReceivedMS:     120,
					Events:         []results.TranscriptEvent{{OffsetMS: 130, Text: `data: {"choices":[]}`}, {OffsetMS: 900, Text: strings.Repeat("x", 20000)}},
					OmittedEvents:  3,
				}},
			}
		}),
		Res("chat-basic", "chat.basic", "gen-text-1", TV, E, func(r *results.Result) {
			r.Cancelled = true
			r.Reasons = []vocab.Reason{{Check: "transport", Message: "context canceled"}}
		}),
		Res("chat-json", "chat.basic", "gen-text-1", TV, S, func(r *results.Result) {
			r.Reasons = []vocab.Reason{{Check: vocab.CheckNoRecording, Where: "exchanges/chat.basic/chat-json--gen-text-1.json", Message: "no recording"}}
		}),
	}
}

// ExploreEdit is the feature of the explore calls Call makes.
const ExploreEdit = "images.edit.explore"

// Call makes an explore result of images.edit.explore with parameters given
// as "k=v" strings.
func Call(model, caseID string, st vocab.Status, kv ...string) results.Result {
	p := map[string]string{}
	for _, s := range kv {
		k, v, _ := strings.Cut(s, "=")
		p[k] = v
	}
	return Res(caseID, ExploreEdit, model, TE, st, func(r *results.Result) { r.Params = p; r.Key = "image" })
}

// DeclineRun: gen-image-2 declines quality xhigh and max in every call, and
// sunburst declines n=2 only together with stream=true.
func DeclineRun() []results.Result {
	return []results.Result{
		Call("gen-image-2", "e-1", P, "quality=low", "size=1024x1024", "n=1", "stream=false"),
		Call("gen-image-2", "e-2", U, "quality=xhigh", "size=1024x1024", "n=2", "stream=true"),
		Call("gen-image-2", "e-3", U, "quality=max", "size=auto", "n=1", "stream=true"),
		Call("gen-image-2", "e-4", P, "quality=low", "size=auto", "n=2", "stream=true"),
		Call("gen-image-2", "e-5", U, "quality=xhigh", "size=auto", "n=1", "stream=false"),
		Call("gen-image-2.5-sunburst", "e-1", P, "quality=low", "size=1024x1024", "n=1", "stream=false"),
		Call("gen-image-2.5-sunburst", "e-2", U, "quality=xhigh", "size=1024x1024", "n=2", "stream=true"),
		Call("gen-image-2.5-sunburst", "e-3", P, "quality=max", "size=auto", "n=1", "stream=true"),
		Call("gen-image-2.5-sunburst", "e-4", U, "quality=low", "size=auto", "n=2", "stream=true"),
		Call("gen-image-2.5-sunburst", "e-5", P, "quality=xhigh", "size=auto", "n=2", "stream=false"),
	}
}

// NamedModels is a model map with a record of each source that sends
// something: resolved from a list, given and not in its key's list, listed
// as is, a list that could not be read, and a model no list names.
func NamedModels() []reportv1.ModelName {
	return []reportv1.ModelName{
		{Spec: "alt-flash", Gateway: "company-chat", Key: "alt", Source: reportv1.NameGiven, Unlisted: true},
		{Spec: "gen-5.5", Gateway: "gpt-5.5", Key: "text", Source: reportv1.NameResolved},
		{Spec: "gen-6", Key: "text", Source: reportv1.NameUnlisted},
		{Spec: "gen-image-2", Gateway: "gen-image-2", Key: "image", Source: reportv1.NameListed},
		{Spec: "msg-sonnet-5", Gateway: "msg-sonnet-5", Key: "messages", Source: reportv1.NameUnread, Why: "HTTP 404"},
	}
}
