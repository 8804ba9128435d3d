package refgateway

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"testing"
)

// fuzzGateway answers in-process (no sockets) so fuzzing is fast; it never
// renders large pictures because fuzz inputs rarely form a valid request,
// and those that do are bounded by the n and size limits.
func fuzzPost(t *testing.T, g *Gateway, path, key, ct string, body []byte) {
	req := httptest.NewRequest(http.MethodPost, path, bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", ct)
	rec := httptest.NewRecorder()
	g.ServeHTTP(rec, req)
	if rec.Code >= 500 || g.panics.Load() != 0 {
		t.Fatalf("%s: status %d: %.300s", path, rec.Code, rec.Body.Bytes())
	}
}

func fuzzGateway(f *testing.F) *Gateway {
	g, err := New(Config{MaxBodyBytes: 1 << 20})
	if err != nil {
		f.Fatal(err)
	}
	return g
}

func FuzzChatJSON(f *testing.F) {
	for _, s := range []string{
		`{"model":"gen-5.5","messages":[{"role":"user","content":"hi"}]}`,
		`{"model":"gen-5.5","stream":true,"max_tokens":3,"messages":[{"role":"user","content":[{"type":"text","text":"x"}]}]}`,
		`{"model":null,"messages":{}}`, `[]`, `{`,
	} {
		f.Add([]byte(s))
	}
	g := fuzzGateway(f)
	f.Fuzz(func(t *testing.T, body []byte) {
		fuzzPost(t, g, "/v1/chat/completions", keys.Text, "application/json", body)
		fuzzPost(t, g, "/v1/messages", keys.Alt, "application/json", body)
	})
}

func FuzzMessagesJSON(f *testing.F) {
	for _, s := range []string{
		`{"model":"alt-flash","max_tokens":8,"messages":[{"role":"user","content":[{"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBORw0KGgo="}}]}]}`,
		`{"model":"msg-opus-5","stream":true,"max_tokens":2,"messages":[{"role":"user","content":"hi"}]}`,
	} {
		f.Add([]byte(s))
	}
	g := fuzzGateway(f)
	f.Fuzz(func(t *testing.T, body []byte) {
		fuzzPost(t, g, "/v1/messages", keys.Messages, "application/json", body)
		fuzzPost(t, g, "/v1/messages", keys.Alt, "application/json", body)
	})
}

func FuzzImagesEditJSON(f *testing.F) {
	for _, s := range []string{
		`{"prompt":"x","images":[{"image_url":"data:image/png;base64,iVBORw0KGgo="}]}`,
		`{"prompt":"x","images":[{"file_id":"f"}],"mask":{"file_id":"m"}}`,
		`{"prompt":"x","stream":true,"partial_images":4,"images":[{"image_url":"https://example.invalid/a.png"}]}`,
		`{"images":[{"image_url":"data:,"}],"n":-1,"size":"auto"}`,
	} {
		f.Add([]byte(s))
	}
	g := fuzzGateway(f)
	g.client = &http.Client{Transport: failTransport{}}
	f.Fuzz(func(t *testing.T, body []byte) {
		fuzzPost(t, g, "/v1/images/edits", keys.Image, "application/json", body)
		fuzzPost(t, g, "/v1/images/generations", keys.Image, "application/json", body)
	})
}

func FuzzImagesEditMultipart(f *testing.F) {
	mp := makeMultipart(&testing.T{}, map[string]string{"prompt": "x", "n": "1", "stream": "true", "partial_images": "2"}, formFile{"image", []byte("\x89PNG\r\n\x1a\nxx")})
	boundary := mp.contentType[len("multipart/form-data; boundary="):]
	f.Add(mp.data, boundary)
	f.Add([]byte("--b\r\nContent-Disposition: form-data; name=\"prompt\"\r\n\r\nhi\r\n--b--\r\n"), "b")
	f.Add([]byte("--b\r\nContent-Disposition: form-data; name=\"image\"; filename=\"a\"\r\n\r\n"), "b")
	g := fuzzGateway(f)
	f.Fuzz(func(t *testing.T, body []byte, boundary string) {
		fuzzPost(t, g, "/v1/images/edits", keys.Image, "multipart/form-data; boundary=\""+boundary+"\"", body)
	})
}

// failTransport keeps fuzzing off the network.
type failTransport struct{}

func (failTransport) RoundTrip(*http.Request) (*http.Response, error) {
	return nil, http.ErrNotSupported
}
