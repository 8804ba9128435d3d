package report

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gwconform/gwconform/conformance/results"
	. "github.com/gwconform/gwconform/report/internal/reporttest"
)

func TestReplayInReports(t *testing.T) {
	m, rs := Replayed()
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
	require.NoError(t, WriteMarkdown(&md, r))
	require.NoError(t, WriteJUnit(&junit, r))
	require.NoError(t, WriteHTML(&html, r))
	assert.Contains(t, md.String(), "- replay of the recording recordings/night-12")
	assert.Contains(t, md.String(), `\[request id req\_0123abcd\]`)
	assert.Contains(t, junit.String(), "request id: req_0123abcd")
	assert.Contains(t, junit.String(), "exchange: recordings/night-12/exchanges/chat.stream/chat-stream--gen-text-1.json")
	for _, out := range []string{md.String(), junit.String(), html.String()} {
		assert.NotContains(t, out, "sk-echoedsecret")
	}
	assert.Contains(t, html.String(), `"transcript":{"exchange":"recordings/night-12/exchanges/chat.stream/chat-stream--gen-text-1.json"`)
}
