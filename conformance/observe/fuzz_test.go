package observe_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gwconform/gwconform/conformance/record"
	"github.com/gwconform/gwconform/conformance/results"
)

// FuzzJudgeRequest: whatever a client sends (any path, any JSON body), the
// judge returns its client result and never panics: a hostile client must
// not stop a relay's judge. The seeds are in testdata/fuzz.
func FuzzJudgeRequest(f *testing.F) {
	for _, seed := range []struct{ path, body string }{
		{"/v1/chat/completions", `{"model":"gen-5.5","messages":[{"role":"user","content":"Hi"}]}`},
		{"/v1/images/edits", `{"images":[{"image_url":7},null,{"file_id":{}}],"mask":[],"n":1e400}`},
		{"/v1/messages", `{"model":"alt-flash","messages":[{"role":"user","content":[{"type":"image"},3]}]}`},
		{"/v1/images/generations", `{"stream":"true","partial_images":-0.5,"size":null}`},
		{"/v1//models/../v1/chat/completions", `[]`},
		{"//v1/chat/completions?x=1#y", `{"model":"gemini-flash","max_tokens":4294967296e10}`},
		{"/v1/images/generation", `{"output_format":"","size":"","n":1,"stream":false,"output_compression":-1e300}`},
		{"/health", `{}`},
		{"/v1/responses", `{"model":"gen-5.5","input":"Hi"}`},
	} {
		f.Add(seed.path, seed.body)
	}
	judge, store := newJudge(f)
	f.Fuzz(func(t *testing.T, path, body string) {
		if path == "" || path[0] != '/' || !json.Valid([]byte(body)) {
			t.Skip()
		}
		now := time.Now().UTC()
		r := record.Round{Sent: now, Request: record.Request{Method: "POST", Path: path, Key: "text", Auth: record.AuthBearer,
			Header: map[string][]string{"Content-Type": {"application/json"}}, Body: &record.Body{Bytes: len(body), JSON: json.RawMessage(body)}},
			Response: &record.Response{Received: now, Status: 200, Header: map[string][]string{"Content-Type": {"application/json"}},
				Body: &record.Body{Bytes: len(body), JSON: json.RawMessage(body)}}}
		rs := judge.Round(r, "", store)
		require.NotEmpty(t, rs)
		require.Equal(t, results.SideClient, rs[0].Side)
		require.NotEmpty(t, rs[0].Feature)
	})
}
