package main

import (
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gwconform/gwconform/conformance/record"
	"github.com/gwconform/gwconform/conformance/refgateway"
	"github.com/gwconform/gwconform/conformance/results"
	"github.com/gwconform/gwconform/conformance/vocab"
)

// TestRelayOverTheCap: an answer larger than the relay's cap reaches the
// client whole, byte for byte; the recording stops at the cap and says
// so; the judge reports the exchange "not judged (over the cap)" on both
// sides, never failed. An exchange under the cap is recorded and judged
// whole beside it.
func TestRelayOverTheCap(t *testing.T) {
	clearEnv(t)
	// The gateway answers an image stream with the same bytes each time
	// (the reference gateway's ids differ from one answer to the next).
	ref := refGateway(t, refgateway.Config{})
	def := refgateway.DefaultKeys()
	image := `{"model":"gen-image-2.5-flare","prompt":"a lighthouse","size":"1024x1024","stream":true,"partial_images":2}`
	resp, stream, _ := post(t, ref.URL+"/v1/images/generations", def.Image, image)
	require.Equal(t, 200, resp.StatusCode)
	refProxy := httputil.NewSingleHostReverseProxy(mustParse(t, ref.URL))
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/images/generations" {
			refProxy.ServeHTTP(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		for chunk := range slices.Chunk([]byte(stream), 10000) {
			w.Write(chunk)
			w.(http.Flusher).Flush()
		}
	}))
	t.Cleanup(up.Close)
	rec := filepath.Join(t.TempDir(), "rec")
	const limit = 64 << 10
	si := &standIn{upstream: up.URL, record: rec, cap: limit, keys: map[string]string{
		refgateway.KindText: def.Text, refgateway.KindMessages: def.Messages, refgateway.KindImage: def.Image, refgateway.KindAlt: def.Alt}}
	handler, _, err := si.relay()
	require.NoError(t, err)
	relay := httptest.NewServer(handler)
	t.Cleanup(relay.Close)

	resp, relayed, _ := post(t, relay.URL+"/v1/images/generations", def.Image, image)
	require.Equal(t, 200, resp.StatusCode)
	require.Greater(t, len(stream), 2*limit, "the answer is well over the cap")
	require.True(t, stream == relayed, "relayed whole, byte for byte: %d bytes of %d", len(relayed), len(stream))
	resp, _, _ = post(t, relay.URL+"/v1/chat/completions", def.Text, `{"model":"gen-5.5","max_tokens":64,"messages":[{"role":"user","content":"Hi"}]}`)
	require.Equal(t, 200, resp.StatusCode)
	relay.Close()
	si.wait()

	store, _, err := record.Open(rec)
	require.NoError(t, err)
	sent, err := store.Sent()
	require.NoError(t, err)
	var rounds []record.Round
	for k, err := range sent.All() {
		require.NoError(t, err)
		rounds = append(rounds, k.Round)
	}
	require.Len(t, rounds, 2)
	over, under := rounds[0], rounds[1]
	assert.Equal(t, int64(limit), over.OverCap)
	assert.Zero(t, under.OverCap)
	_, chunks, err := store.Playback(&over)
	require.NoError(t, err)
	kept := 0
	for _, c := range chunks {
		kept += len(c.Data)
	}
	assert.Positive(t, kept)
	assert.LessOrEqual(t, kept, limit, "recorded up to the cap")
	assert.True(t, strings.HasPrefix(stream, string(chunks[0].Data)), "what is recorded is the answer's start")

	out := filepath.Join(t.TempDir(), "judged")
	code, stdout, stderr := gw(t, "judge", "--out", out, rec)
	assert.Equal(t, exitOK, code, "an exchange over the cap fails nothing: %s\n%s", stdout, stderr)
	judged, err := results.ReadFile(filepath.Join(out, results.FileName))
	require.NoError(t, err)
	var capped []string
	for _, r := range judged {
		if r.Status == vocab.StatusSkip {
			require.Len(t, r.Reasons, 1)
			assert.Equal(t, vocab.CheckOverCap, r.Reasons[0].Check)
			assert.Equal(t, "not judged (over the cap)", r.Reasons[0].Message)
			capped = append(capped, r.Side+" "+r.Feature)
			continue
		}
		assert.Equal(t, vocab.StatusPass, r.Status, "the exchange under the cap is judged: %s %s %v", r.Side, r.Feature, r.Reasons)
		assert.Equal(t, "chat.basic", r.Feature)
	}
	slices.Sort(capped)
	assert.Equal(t, []string{"client images.generate.stream", "gateway images.generate.stream"}, capped)
}

// TestJudgeAnOldRecording: a relay's recording written before the tap
// streamed its bodies (testdata/old-relay-recording, recorded by that
// build: a model list, chat JSON and stream, a chat without model, a
// messages stream, an image stream and a multipart edit) is judged as
// that build judged it.
func TestJudgeAnOldRecording(t *testing.T) {
	old, err := filepath.Abs(filepath.Join("testdata", "old-relay-recording"))
	require.NoError(t, err)
	clearEnv(t)
	out := filepath.Join(t.TempDir(), "judged")
	code, stdout, stderr := gw(t, "judge", "--out", out, old)
	require.Equal(t, exitOK, code, "%s\n%s", stdout, stderr)
	assert.Contains(t, stdout, "conformance passed: 4 verified, 1 negative")
	judged, err := results.ReadFile(filepath.Join(out, results.FileName))
	require.NoError(t, err)
	var got []string
	for _, r := range judged {
		got = append(got, strings.Join([]string{r.Side, r.Feature, string(r.Status)}, " "))
	}
	slices.Sort(got)
	assert.Equal(t, []string{
		"client chat.basic pass", "client chat.errors fail", "client chat.stream pass", "client images.edit.multipart pass",
		"client images.generate.stream pass", "client messages.stream pass", "client models.list pass",
		"gateway chat.basic pass", "gateway chat.errors pass", "gateway chat.stream pass", "gateway images.edit.multipart pass",
		"gateway images.generate.stream pass", "gateway messages.stream pass", "gateway models.list pass",
	}, got)
}

func mustParse(t *testing.T, raw string) *url.URL {
	t.Helper()
	u, err := url.Parse(raw)
	require.NoError(t, err)
	return u
}
