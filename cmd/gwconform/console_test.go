package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/gwconform/gwconform/conformance/results"
	"github.com/gwconform/gwconform/conformance/vocab"
)

// In a log (not a terminal) the console prints one line per result that
// decides the verdict and did not pass, nothing for passes or for strict
// and explore failures (those are in the recap only), and ends with the
// failures grouped by cause, deciding groups first; --verbose prints every
// result whole.
func TestConsoleInALog(t *testing.T) {
	size := func(got string) vocab.Reason {
		return vocab.Reason{Check: "image", Where: "data[0]", Expected: "1024x1024", Actual: got,
			Message: "decoded image size differs from the requested size (spec 2.2)"}
	}
	rs := []results.Result{
		{Case: "gen-basic", Model: "gen-image-2", Feature: "images.generate", Tier: vocab.TierVerified, Status: vocab.StatusFail,
			Reasons: []vocab.Reason{size("512x512"), {Check: "json", Message: "created is not the time of this exchange"}}},
		{Case: "edit-size", Model: "gen-image-2", Feature: "images.edit.size", Tier: vocab.TierVerified, Status: vocab.StatusFail,
			Reasons: []vocab.Reason{size("742x742")}, RequestID: "req_0a1b2c3d"},
		{Case: "chat-json", Model: "gen-5.5", Feature: "chat.basic", Tier: vocab.TierVerified, Status: vocab.StatusPass},
		{Case: "chat-stream-strict", Model: "gen-5.5", Feature: "chat.stream", Tier: vocab.TierStrict, Status: vocab.StatusFail,
			Reasons: []vocab.Reason{{Check: "sse-strict", Message: "chunk ids differ (chat.id-changed)"}}},
		{Case: "chat-no-model", Model: "gen-5.5", Feature: "chat.errors", Tier: vocab.TierNegative, Status: vocab.StatusError,
			Cancelled: true, Reasons: []vocab.Reason{{Check: "transport", Message: "context canceled"}}},
	}
	verdict := results.Verdict{Outcome: results.OutcomeFail, Headline: "conformance failed: 2 of 3 verified/negative results failed or errored"}

	var log bytes.Buffer
	c := newConsole(&log, len(rs), false, false, nil)
	for _, r := range rs {
		c.add(r)
	}
	c.summary(rs, verdict)
	out := log.String()
	lines := strings.Split(out, "\n")
	assert.Contains(t, lines, "FAIL         gen-basic × gen-image-2 (verified): image at data[0]: decoded image size differs from the requested size (spec 2.2) (expected 1024x1024, got 512x512) (+1 more)")
	assert.Contains(t, lines, "FAIL         edit-size × gen-image-2 (verified): image at data[0]: decoded image size differs from the requested size (spec 2.2) (expected 1024x1024, got 742x742) [request id req_0a1b2c3d]",
		"a CI log carries the gateway's request id")
	assert.NotContains(t, out, "PASS         ", "passes get no line")
	assert.NotContains(t, out, "FAIL         chat-stream-strict", "a strict failure is in the recap only")
	assert.NotContains(t, out, "ERROR        chat-no-model", "a cancelled call is no failure")

	recap := out[strings.Index(out, "FAILURES by cause"):]
	deciding, reported := strings.Index(recap, "decide the verdict:"), strings.Index(recap, "reported only")
	assert.Positive(t, deciding)
	assert.Greater(t, reported, deciding, "deciding groups first")
	assert.Contains(t, recap, " 1. image: decoded image size differs from the requested size\n    2 results in 2 cells (model × feature): edit-size, gen-basic\n")
	assert.Contains(t, recap, "e.g. gen-basic × gen-image-2: image at data[0]: decoded image size differs")
	assert.Contains(t, recap, "sse-strict: chunk ids differ (chat.id-changed)")
	assert.Contains(t, recap, "not failures: 1 call cut short by the interrupt")

	var verbose bytes.Buffer
	c = newConsole(&verbose, len(rs), false, true, nil)
	for _, r := range rs {
		c.add(r)
	}
	c.summary(rs, verdict)
	assert.Contains(t, verbose.String(), "PASS         chat.basic", "--verbose: every result")
	assert.Contains(t, verbose.String(), "    json: created is not the time of this exchange", "--verbose: every reason")
}

// A red run's console ends with where to look next: the report, and the
// command that sends the first cause's example again.
func TestNextSteps(t *testing.T) {
	rs := []results.Result{
		{Case: "gen-basic", Model: "gen-image-2", Feature: "images.generate", Tier: vocab.TierVerified, Status: vocab.StatusFail, Reasons: []vocab.Reason{{Check: "status", Actual: "404 nope"}}},
		{Case: "chat-json", Model: "gen 5.5", Feature: "chat.basic", Tier: vocab.TierVerified, Status: vocab.StatusFail, Reasons: []vocab.Reason{{Check: "status", Actual: "404 nope"}}},
	}
	var b bytes.Buffer
	nextSteps(&b, "night out", rs, false)
	// The example is the reports' (chat.basic comes before images.generate
	// there), whatever order the results finished in.
	assert.Equal(t, "next: open night out/report.html; send the first cause's example again: gwconform show --out 'night out' --model 'gen 5.5' --curl chat-json\n", b.String())
}
