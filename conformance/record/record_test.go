package record_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gwconform/gwconform/conformance/record"
	"github.com/gwconform/gwconform/conformance/vocab"
)

const (
	textKey  = "sk-record-test-text-7a1c"
	imageKey = "sk-record-test-image-3e9d"
	relayTok = "relay-token-5b2f8e"
)

// fakeImage is PNG-looking bytes long enough to be stored as a blob.
var fakeImage = append([]byte("\x89PNG\r\n\x1a\n"), bytes.Repeat([]byte("pixels"), 600)...)

// gateway is a small stand-in for a gateway: a JSON answer carrying an
// image and echoing the key (a gateway may), a stream of timed events, and
// an error.
func gateway(t *testing.T) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("POST /base/v1/images/generations", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("X-Request-Id", "req_img_1")
		fmt.Fprintf(w, `{"created":1,"data":[{"b64_json":"%s"}],"note":"you used %s"}`+"\n",
			base64.StdEncoding.EncodeToString(fakeImage), strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer "))
	})
	mux.HandleFunc("POST /base/v1/chat/completions", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		rc := http.NewResponseController(w)
		for i := range 3 {
			fmt.Fprintf(w, "data: {\"i\":%d}\n\n", i)
			rc.Flush()
			time.Sleep(30 * time.Millisecond)
		}
		fmt.Fprint(w, "data: [DONE]\n\n")
	})
	mux.HandleFunc("GET /base/v1/models", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		fmt.Fprint(w, `{"error":{"message":"bad key"}}`)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// do sends one request through client within the call's log.
func do(t *testing.T, ctx context.Context, client *http.Client, method, url, key, body string) (*http.Response, []byte, error) {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, url, rd)
	require.NoError(t, err)
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Relay-Token", relayTok)
	resp, err := client.Do(req)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp, b, nil
}

func compile(t *testing.T, name string) *jsonschema.Schema {
	t.Helper()
	raw, err := record.SchemaFS.ReadFile(name)
	require.NoError(t, err)
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	require.NoError(t, err)
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	url := "https://github.com/gwconform/gwconform/conformance/record/" + name
	require.NoError(t, c.AddResource(url, doc))
	s, err := c.Compile(url)
	require.NoError(t, err)
	return s
}

// validate checks every JSON file of a recording against its schema.
func validate(t *testing.T, dir string) {
	t.Helper()
	meta, exchange := compile(t, "recording.schema.json"), compile(t, "exchange.schema.json")
	n := 0
	require.NoError(t, filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".json") {
			return err
		}
		f, err := os.Open(path)
		require.NoError(t, err)
		defer f.Close()
		v, err := jsonschema.UnmarshalJSON(f)
		require.NoError(t, err, path)
		s := exchange
		if filepath.Base(path) == record.MetaFile {
			s = meta
		}
		assert.NoError(t, s.Validate(v), path)
		n++
		return nil
	}))
	assert.Positive(t, n)
}

// noSecretIn fails when any file under dir holds one of the secrets.
func noSecretIn(t *testing.T, dir string, secrets ...string) {
	t.Helper()
	require.NoError(t, filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		require.NoError(t, err)
		for _, s := range secrets {
			assert.NotContains(t, string(b), s, "%s holds a secret", path)
		}
		return nil
	}))
}

// A call recorded through a Tap is answered by a Replay with no network:
// the same status, headers and bytes (JSON spacing aside), the stream's
// events, the recorded times, and skips for what it cannot answer.
func TestTapThenReplay(t *testing.T) {
	srv := gateway(t)
	dir := t.TempDir()
	keys := map[string]string{"text": textKey, "image": imageKey}
	store, err := record.Create(dir, record.Meta{Source: record.SourceRun, BaseURL: srv.URL + "/base?token=abc", Keys: []string{"image", "text"}})
	require.NoError(t, err)
	tap := &record.Tap{Bases: record.BasePaths{Default: "/base"}, Keys: keys, Secrets: []string{textKey, imageKey, relayTok}, Store: store}
	client := &http.Client{Transport: tap}
	imgCall := record.Call{Case: "gen-basic", Feature: "images.generate", Model: "gen-image-2", Key: "image"}
	chatCall := record.Call{Case: "chat-stream", Feature: "chat.stream", Model: "gen-5.5", Key: "text"}
	const imgBody = `{"model":"gen-image-2","prompt":"a lighthouse"}`
	const chatBody = `{"model":"gen-5.5","stream":true}`

	// Record: two rounds for the image call (a model list with another key,
	// then the generation), one stream for the chat call.
	ctx, log := record.Begin(t.Context(), imgCall)
	resp, _, err := do(t, ctx, client, "GET", srv.URL+"/base/v1/models", textKey, "")
	require.NoError(t, err)
	assert.Equal(t, 401, resp.StatusCode)
	resp, liveImg, err := do(t, ctx, client, "POST", srv.URL+"/base/v1/images/generations", imageKey, imgBody)
	require.NoError(t, err)
	assert.Equal(t, 200, resp.StatusCode)
	tr, err := log.End()
	require.NoError(t, err)
	require.NotNil(t, tr)
	assert.Equal(t, filepath.ToSlash(filepath.Join(dir, record.CallFile(imgCall))), tr.Exchange)
	require.Len(t, tr.Rounds, 2)
	assert.Equal(t, "text", tr.Rounds[0].Key)
	assert.Equal(t, "/v1/images/generations", tr.Rounds[1].Path, "paths are relative to the base URL")
	assert.Contains(t, tr.Rounds[1].ResponseBody, "<png sha256:", "an image is a short reference in a transcript")
	assert.Contains(t, tr.Rounds[1].ResponseHeader, "X-Request-Id: req_img_1")

	ctx, log = record.Begin(t.Context(), chatCall)
	_, liveStream, err := do(t, ctx, client, "POST", srv.URL+"/base/v1/chat/completions", textKey, chatBody)
	require.NoError(t, err)
	tr, err = log.End()
	require.NoError(t, err)
	require.Len(t, tr.Rounds, 1)
	require.Len(t, tr.Rounds[0].Events, 4)
	assert.Equal(t, "data: {\"i\":0}", tr.Rounds[0].Events[0].Text)
	assert.GreaterOrEqual(t, tr.Rounds[0].Events[3].OffsetMS-tr.Rounds[0].Events[0].OffsetMS, int64(80), "events keep their arrival offsets")

	validate(t, dir)
	noSecretIn(t, dir, textKey, imageKey, relayTok, "token=abc")
	blobs, err := os.ReadDir(filepath.Join(dir, record.BlobsDir))
	require.NoError(t, err)
	require.Len(t, blobs, 1)
	b, err := os.ReadFile(filepath.Join(dir, record.BlobsDir, blobs[0].Name()))
	require.NoError(t, err)
	assert.Equal(t, fakeImage, b, "the image is stored once, decoded")
	ex, err := store.Read(record.CallFile(imgCall))
	require.NoError(t, err)
	assert.Contains(t, string(ex.Rounds[1].Response.Body.JSON), "you used [REDACTED]", "a key the gateway echoes is redacted")

	// Replay, with other stand-in keys and no gateway at all.
	srv.Close()
	_, meta, err := record.Open(dir)
	require.NoError(t, err)
	assert.Equal(t, []string{"image", "text"}, meta.Keys)
	replay := &http.Client{Transport: &record.Replay{Store: store, Keys: map[string]string{"text": "replay-text-key", "image": "replay-image-key"}, Bases: record.BasePaths{Default: "/base"}}}

	t.Run("an image answered from the recording", func(t *testing.T) {
		ctx, log := record.Begin(t.Context(), imgCall)
		resp, _, err := do(t, ctx, replay, "GET", srv.URL+"/base/v1/models", "replay-text-key", "")
		require.NoError(t, err)
		assert.Equal(t, 401, resp.StatusCode)
		resp, got, err := do(t, ctx, replay, "POST", srv.URL+"/base/v1/images/generations", "replay-image-key", imgBody)
		require.NoError(t, err)
		assert.Equal(t, 200, resp.StatusCode)
		assert.Equal(t, "req_img_1", resp.Header.Get("X-Request-Id"))
		assert.Equal(t, strings.Replace(strings.TrimSpace(string(liveImg)), imageKey, "[REDACTED]", 1), string(got), "byte for byte but the final newline")
		times, ok := record.TimesOf(ctx, resp)
		require.True(t, ok)
		assert.Equal(t, ex.Rounds[1].Sent, times.Sent)
		assert.Equal(t, ex.Rounds[1].Response.Received, times.Received)
		tr, err := log.End()
		require.NoError(t, err)
		assert.Len(t, tr.Rounds, 2, "a replay's transcript is the rounds it answered with")
	})
	t.Run("a stream answered event by event", func(t *testing.T) {
		ctx, _ := record.Begin(t.Context(), chatCall)
		resp, got, err := do(t, ctx, replay, "POST", srv.URL+"/base/v1/chat/completions", "replay-text-key", chatBody)
		require.NoError(t, err)
		assert.Equal(t, "text/event-stream", resp.Header.Get("Content-Type"))
		assert.Equal(t, string(liveStream), string(got))
	})
	skip := func(t *testing.T, call record.Call, key, body string) vocab.Reason {
		t.Helper()
		ctx, log := record.Begin(t.Context(), call)
		_, _, err := do(t, ctx, replay, "POST", srv.URL+"/base/v1/chat/completions", key, body)
		var se *record.SkipError
		require.True(t, errors.As(err, &se), "%v", err)
		tr, err := log.End()
		require.NoError(t, err)
		assert.Nil(t, tr, "nothing was answered")
		return se.Reason
	}
	t.Run("a changed request is stale", func(t *testing.T) {
		r := skip(t, chatCall, "replay-text-key", `{"model":"gen-5.5","stream":false}`)
		assert.Equal(t, vocab.CheckRecordingStale, r.Check)
		assert.Equal(t, "recording stale", r.Message)
		assert.Contains(t, r.Actual, "body sha256:")
	})
	t.Run("another key kind is stale", func(t *testing.T) {
		r := skip(t, chatCall, "replay-image-key", chatBody)
		assert.Equal(t, vocab.CheckRecordingStale, r.Check)
		assert.Contains(t, r.Actual, "key image, recorded text")
	})
	t.Run("a call never recorded", func(t *testing.T) {
		r := skip(t, record.Call{Case: "chat-json", Feature: "chat.basic", Model: "gen-5.5", Key: "text"}, "replay-text-key", chatBody)
		assert.Equal(t, vocab.CheckNoRecording, r.Check)
		assert.Equal(t, "no recording", r.Message)
	})
}

// A relayed request is recorded as it ends, identical requests in one
// file; an Index answers them in turn and names the nearest for others.
func TestRelayAndIndex(t *testing.T) {
	srv := gateway(t)
	dir := t.TempDir()
	store, err := record.Create(dir, record.Meta{Source: record.SourceRelay, Keys: []string{"text"}})
	require.NoError(t, err)
	tap := &record.Tap{Bases: record.BasePaths{Default: "/base"}, Keys: map[string]string{"text": textKey}, Secrets: []string{textKey}, Store: store, Relay: true}
	client := &http.Client{Transport: tap}
	for range 2 {
		_, _, err := do(t, t.Context(), client, "POST", srv.URL+"/base/v1/chat/completions", textKey, `{"model":"gen-5.5"}`)
		require.NoError(t, err)
	}
	_, _, err = do(t, t.Context(), client, "GET", srv.URL+"/base/v1/models", "sk-someone-else-0000", "")
	require.NoError(t, err)
	tap.Wait() // relayed rounds are written beside the exchange

	files, err := store.Files()
	require.NoError(t, err)
	require.Len(t, files, 2, "one file per distinct request")
	validate(t, dir)
	noSecretIn(t, dir, textKey, "sk-someone-else-0000", relayTok)

	ix, err := record.NewIndex(store)
	require.NoError(t, err)
	assert.Equal(t, 3, ix.Len())
	chat := httptest.NewRequest("POST", "/v1/chat/completions", nil)
	chat.Header.Set("Authorization", "Bearer sk-local-text")
	chat.Header.Set("Content-Type", "application/json")
	standInKeys := map[string]string{"text": "sk-local-text"}
	k := record.KeyOf(chat, []byte(`{ "model": "gen-5.5" }`), standInKeys, "", record.BasePaths{})
	m1, ok := ix.Find(k)
	require.True(t, ok, "the same request under another key of the same kind, spaced otherwise")
	m2, ok := ix.Find(k)
	require.True(t, ok)
	assert.Equal(t, []int{0, 1}, []int{m1.Index, m2.Index}, "recorded answers are served in turn")

	other := k
	other.Model = "gen-6-astra"
	_, ok = ix.Find(other)
	assert.False(t, ok)
	near := ix.Nearest(other)
	assert.Contains(t, near, "exchanges/relay/v1_chat_completions/")
	assert.Contains(t, near, "differs in model gen-6-astra, recorded gen-5.5")
}

// Open refuses what is not a recording of this format.
func TestOpenRefuses(t *testing.T) {
	dir := t.TempDir()
	_, _, err := record.Open(dir)
	assert.ErrorContains(t, err, "is not a recording")
	require.NoError(t, os.WriteFile(filepath.Join(dir, record.MetaFile), []byte(`{"version":2}`), 0o644))
	_, _, err = record.Open(dir)
	assert.ErrorContains(t, err, "recording format version 2")
	require.NoError(t, os.WriteFile(filepath.Join(dir, record.MetaFile), []byte(`{"version":1,"colour":"red"}`), 0o644))
	_, _, err = record.Open(dir)
	assert.ErrorContains(t, err, "unknown field")
}

// TestRelayOverTheCap: an answer past the tap's cap reaches the client
// whole; its round is recorded up to the cap, says so, keeps the body's
// whole size, matches the schema, and serve --replay never answers with it.
func TestRelayOverTheCap(t *testing.T) {
	srv := gateway(t)
	dir := t.TempDir()
	store, err := record.Create(dir, record.Meta{Source: record.SourceRelay, Keys: []string{"image", "text"}})
	require.NoError(t, err)
	const limit = 1000
	tap := &record.Tap{Bases: record.BasePaths{Default: "/base"}, Keys: map[string]string{"text": textKey, "image": imageKey},
		Secrets: []string{textKey, imageKey}, Store: store, Relay: true, Cap: limit}
	client := &http.Client{Transport: tap}
	_, body, err := do(t, t.Context(), client, "POST", srv.URL+"/base/v1/images/generations", imageKey, `{"model":"gen-image-2"}`)
	require.NoError(t, err)
	require.Greater(t, len(body), 2*limit)
	assert.Contains(t, string(body), base64.StdEncoding.EncodeToString(fakeImage), "the client gets the answer whole")
	_, _, err = do(t, t.Context(), client, "POST", srv.URL+"/base/v1/chat/completions", textKey, `{"model":"gen-5.5"}`)
	require.NoError(t, err)
	tap.Wait()
	validate(t, dir)

	sent, err := store.Sent()
	require.NoError(t, err)
	var rounds []record.Round
	for k, err := range sent.All() {
		require.NoError(t, err)
		rounds = append(rounds, k.Round)
	}
	require.Len(t, rounds, 2)
	over := rounds[0]
	assert.Equal(t, int64(limit), over.OverCap)
	assert.Equal(t, len(body), over.Response.Body.Bytes, "the body's whole size")
	kept, err := store.BodyBytes(over.Response.Body)
	require.NoError(t, err)
	assert.LessOrEqual(t, len(kept), limit)
	assert.True(t, strings.HasPrefix(string(body), string(kept)), "the answer's start")
	assert.Zero(t, rounds[1].OverCap)

	ix, err := record.NewIndex(store)
	require.NoError(t, err)
	assert.Equal(t, 1, ix.Len(), "only the round recorded whole can answer")
}
