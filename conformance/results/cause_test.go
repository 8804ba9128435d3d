package results

import (
	"strings"
	"testing"

	"github.com/gwconform/gwconform/conformance/vocab"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestGroupByCause(t *testing.T) {
	t.Parallel()
	size := func(got string) vocab.Reason {
		return vocab.Reason{Check: "image", Where: "data[0]", Expected: "1024x1024", Actual: got, Message: "decoded size " + got + " differs from the requested size 1024x1024 (spec 2.2)"}
	}
	done := vocab.Reason{Check: "sse", Message: "no [DONE] (chat.done-missing)"}
	rs := []Result{
		{Case: "gen-basic", Model: "gen-image-2", Feature: "images.generate", Tier: vocab.TierVerified, Status: vocab.StatusFail, Reasons: []vocab.Reason{size("512x512")}},
		{Case: "gen-basic", Model: "gen-image-2.5-flare", Feature: "images.generate", Tier: vocab.TierVerified, Status: vocab.StatusFail, Reasons: []vocab.Reason{size("742x742")}},
		{Case: "edit-size", Model: "gen-image-2", Feature: "images.edit.size", Tier: vocab.TierVerified, Status: vocab.StatusFail, Reasons: []vocab.Reason{size("512x512"), size("1x1")}},
		{Case: "chat-stream", Model: "gen-5.5", Feature: "chat.stream", Tier: vocab.TierVerified, Status: vocab.StatusFail, Reasons: []vocab.Reason{done}},
		{Case: "chat-stream-strict", Model: "gen-5.5", Feature: "chat.stream", Tier: vocab.TierStrict, Status: vocab.StatusFail, Reasons: []vocab.Reason{done}},
		{Case: "chat-json", Model: "gen-5.5", Feature: "chat.basic", Tier: vocab.TierVerified, Status: vocab.StatusError, Cancelled: true, Reasons: []vocab.Reason{{Check: "transport", Message: "context canceled"}}},
		{Case: "chat-json", Model: "gen-5", Feature: "chat.basic", Tier: vocab.TierVerified, Status: vocab.StatusPass},
	}
	groups := GroupByCause(rs, false)
	require.Len(t, groups, 3, "%+v", groups)
	assert.True(t, groups[0].Deciding)
	assert.Equal(t, 3, groups[0].Results, "one cause, three results: two reasons of one result count once")
	assert.Equal(t, 3, groups[0].Cells, "gen-image-2 and gen-image-2.5-flare × images.generate, gen-image-2 × images.edit.size")
	assert.Equal(t, []string{"edit-size", "gen-basic"}, groups[0].Cases)
	assert.True(t, strings.HasPrefix(groups[0].Cause, "image: decoded size"))
	assert.Equal(t, "gen-basic", groups[0].Example.Case)
	assert.True(t, groups[1].Deciding)
	assert.Equal(t, []string{"chat-stream"}, groups[1].Cases)
	assert.False(t, groups[2].Deciding, "strict results come after, reported only")
	assert.Equal(t, []string{"chat-stream-strict"}, groups[2].Cases)
	// With --strict, the strict result decides too: one group of two.
	groups = GroupByCause(rs, true)
	require.Len(t, groups, 2)
	assert.Equal(t, 2, groups[1].Results)
}

func TestShorten(t *testing.T) {
	t.Parallel()
	b64 := strings.Repeat("iVBORw0KGgoAAAANSUhEUgAABAAAAAQACAIAAADwf7zU", 5)
	got := Shorten(`expected a JSON object, got "{\"b64_json\":\"` + b64 + `\"…"`)
	assert.NotContains(t, got, b64[:64])
	assert.Contains(t, got, "<base64: 220 chars, sha256 ")
	assert.Equal(t, "the model gen-image-2.5-flare", Shorten("the model gen-image-2.5-flare"), "words stay")
}

// How often a call was asked is the detail of its answer's cause, never a
// cause of its own; alone (a call that never got an answer) it is one.
func TestGroupByCauseLeavesRetriesInTheirCause(t *testing.T) {
	t.Parallel()
	status := vocab.Reason{Check: "status", Expected: "2xx", Actual: `500 {"error":{"message":"Something went wrong"}}`, Message: "HTTP status 500, want 2xx"}
	retries := vocab.Reason{Check: "transport", Where: "attempts", Expected: "an answer on the first attempt", Actual: "3 attempts", Message: "3 attempts; the 2 before the last: HTTP 500 each time"}
	rs := []Result{
		{Case: "a", Model: "m", Feature: "f", Tier: vocab.TierVerified, Status: vocab.StatusFail, Reasons: []vocab.Reason{status, retries}},
		{Case: "b", Model: "m", Feature: "f", Tier: vocab.TierVerified, Status: vocab.StatusError, Reasons: []vocab.Reason{retries}},
	}
	groups := GroupByCause(rs, false)
	require.Len(t, groups, 2)
	assert.Equal(t, "HTTP 500: Something went wrong", groups[0].Cause)
	assert.Equal(t, []string{"a"}, groups[0].Cases)
	assert.Equal(t, []string{"b"}, groups[1].Cases)
}
