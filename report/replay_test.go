package report

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gwconform/gwconform/conformance/results"
	"github.com/gwconform/gwconform/conformance/vocab"
)

// replayed is a replay of a recording: a failure with its request id and
// transcript (a stream, a key echoed in a header), a call an interrupt
// cancelled, and a case the recording has nothing for.
func replayed() (Meta, []results.Result) {
	m := meta()
	m.Replay = &Replay{Recording: "recordings/night-12", Recorded: t0.Add(-24 * time.Hour), BaseURL: "https://u:p@gw.test/v1?k=1"}
	return m, []results.Result{
		res("chat-stream", "chat.stream", "gen-text-1", TV, F, func(r *results.Result) {
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
		res("chat-basic", "chat.basic", "gen-text-1", TV, E, func(r *results.Result) {
			r.Cancelled = true
			r.Reasons = []vocab.Reason{{Check: "transport", Message: "context canceled"}}
		}),
		res("chat-json", "chat.basic", "gen-text-1", TV, S, func(r *results.Result) {
			r.Reasons = []vocab.Reason{{Check: vocab.CheckNoRecording, Where: "exchanges/chat.basic/chat-json--gen-text-1.json", Message: "no recording"}}
		}),
	}
}

func TestReplayInReports(t *testing.T) {
	m, rs := replayed()
	r := Build(m, rs)
	require.NotNil(t, r.Metadata.Replay)
	assert.Equal(t, "https://gw.test/v1", r.Metadata.Replay.BaseURL, "no credential in the recording's gateway")
	assert.Equal(t, "replay of the recording recordings/night-12 (recorded 2026-03-13T02:00:00Z from https://gw.test/v1): no request was sent; the checks judged the recorded answers", r.Notes[0])
	assert.Contains(t, r.Notes, "no recording: 1 verified/negative case not checked")

	var tr *results.Transcript
	for _, res := range r.Results {
		if res.Case == "chat-stream" {
			tr = res.Transcript
		}
	}
	require.NotNil(t, tr)
	round := tr.Rounds[0]
	assert.Contains(t, round.ResponseHeader, "X-Echo: Authorization: Bearer [REDACTED]", "the report redacts credentials by pattern in transcripts too")
	assert.LessOrEqual(t, len(round.Events[1].Text), maxText+64, "each text bounded")
	assert.Contains(t, rs[0].Transcript.Rounds[0].ResponseHeader[1], "sk-echoedsecret", "the caller's result is not modified")

	var md, junit, html bytes.Buffer
	require.NoError(t, r.WriteMarkdown(&md))
	require.NoError(t, r.WriteJUnit(&junit))
	require.NoError(t, r.WriteHTML(&html))
	assert.Contains(t, md.String(), "- replay of the recording recordings/night-12")
	assert.Contains(t, md.String(), `\[request id req\_0123abcd\]`)
	assert.Contains(t, junit.String(), "request id: req_0123abcd")
	assert.Contains(t, junit.String(), "exchange: recordings/night-12/exchanges/chat.stream/chat-stream--gen-text-1.json")
	for _, out := range []string{md.String(), junit.String(), html.String()} {
		assert.NotContains(t, out, "sk-echoedsecret")
	}
	assert.Contains(t, html.String(), `"transcript":{"exchange":"recordings/night-12/exchanges/chat.stream/chat-stream--gen-text-1.json"`)
}
