package refgateway

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestLoad runs 64 concurrent clients through a few thousand mixed requests
// on loopback and asserts zero 5xx and no goroutine leak. Most requests are
// cheap (models, chat, messages, errors); image requests repeat one request
// so the gateway's cache keeps the cost of 1024x1024 encodes bounded.
func TestLoad(t *testing.T) {
	before := runtime.NumGoroutine()
	g, err := New(Config{})
	require.NoError(t, err)
	srv := httptest.NewServer(g)
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}, Timeout: 60 * time.Second}

	type rq struct{ method, path, key, body string }
	mix := []rq{
		{"GET", "/v1/models", keys.Text, ""},
		{"GET", "/v1/models", keys.Image, ""},
		{"POST", "/v1/chat/completions", keys.Text, `{"model":"gen-5.5","max_tokens":8,"messages":[{"role":"user","content":"hi"}]}`},
		{"POST", "/v1/chat/completions", keys.Text, `{"model":"gen-5.5","stream":true,"messages":[{"role":"user","content":"stream please"}]}`},
		{"POST", "/v1/messages", keys.Messages, `{"model":"msg-opus-5","max_tokens":16,"messages":[{"role":"user","content":"hi"}]}`},
		{"POST", "/v1/messages", keys.Messages, `{"model":"msg-sonnet-5","stream":true,"max_tokens":16,"messages":[{"role":"user","content":"hi"}]}`},
		{"POST", "/v1/messages", keys.Messages, `{"model":"msg-sonnet-4-6","max_tokens":16,"messages":[]}`},
		{"POST", "/v1/chat/completions", keys.Text, `{"messages":`},
		{"POST", "/v1/images/edits", keys.Image, `{"prompt":"x","images":[{"file_id":"f"}]}`},
		{"POST", "/v1/images/generations", keys.Image, `{"prompt":"x","stream":true,"partial_images":4}`},
		{"GET", "/v1/models", "sk-bad", ""},
		{"POST", "/v1/responses", keys.Text, `{"model":"gen-5.5","input":"hi"}`},
	}
	image := rq{"POST", "/v1/images/generations", keys.Image, `{"model":"gen-image-2","prompt":"load","size":"1024x1024"}`}

	const clients, perClient = 64, 32 // 2048 requests
	var fivexx, done atomic.Int64
	var failures sync.Map
	var wg sync.WaitGroup
	for c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range perClient {
				r := mix[(c*7+i)%len(mix)]
				if (c*perClient+i)%97 == 0 {
					r = image
				}
				var body io.Reader
				if r.body != "" {
					body = strings.NewReader(r.body)
				}
				req, _ := http.NewRequest(r.method, srv.URL+r.path, body)
				req.Header.Set("Authorization", "Bearer "+r.key)
				req.Header.Set("Content-Type", "application/json")
				res, err := client.Do(req)
				if err != nil {
					failures.Store(fmt.Sprint(r.path, err), true)
					continue
				}
				_, _ = io.Copy(io.Discard, res.Body)
				_ = res.Body.Close()
				if res.StatusCode >= 500 {
					fivexx.Add(1)
				}
				done.Add(1)
			}
		}()
	}
	wg.Wait()
	failures.Range(func(k, _ any) bool { t.Errorf("transport error: %v", k); return true })
	assert.Zero(t, fivexx.Load(), "5xx answers")
	assert.Equal(t, int64(clients*perClient), done.Load())
	assert.Equal(t, int64(clients*perClient), g.Requests())
	assert.Zero(t, g.panics.Load())

	client.CloseIdleConnections()
	srv.Close()
	deadline := time.Now().Add(time.Minute) // a hang guard: the loop ends as soon as they are gone
	for runtime.NumGoroutine() > before+2 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	assert.LessOrEqual(t, runtime.NumGoroutine(), before+2, "goroutine leak")
}

// TestClientGone: a client that leaves mid-stream stops the handler.
func TestClientGone(t *testing.T) {
	// About 1,000 events at 200 ms: a handler that kept streaming would
	// outlive the minute this test waits by far.
	lat, err := ParseLatency("event=200ms")
	require.NoError(t, err)
	g, err := New(Config{Latency: lat})
	require.NoError(t, err)
	srv := httptest.NewServer(g)
	defer srv.Close()
	before := runtime.NumGoroutine()
	req, _ := http.NewRequest("POST", srv.URL+"/v1/chat/completions", strings.NewReader(`{"model":"gen-5.5","stream":true,"messages":[{"role":"user","content":"Write 3000 words"}]}`))
	req.Header.Set("Authorization", "Bearer "+keys.Text)
	res, err := srv.Client().Do(req)
	require.NoError(t, err)
	buf := make([]byte, 256)
	_, err = res.Body.Read(buf)
	require.NoError(t, err)
	start := time.Now()
	_ = res.Body.Close()
	srv.Client().CloseIdleConnections()
	for runtime.NumGoroutine() > before && time.Since(start) < time.Minute {
		time.Sleep(20 * time.Millisecond)
	}
	assert.LessOrEqual(t, runtime.NumGoroutine(), before, "handler kept streaming after the client left")
}

func TestLatencyAndConfigParsing(t *testing.T) {
	l, err := ParseLatency("models=10ms, chat=1s-3s,event=5ms,images.generations=0s,images.edits=1ms,responses=2ms,messages=3ms")
	require.NoError(t, err)
	assert.Equal(t, Range{10 * time.Millisecond, 10 * time.Millisecond}, l.Models)
	assert.Equal(t, Range{time.Second, 3 * time.Second}, l.Chat)
	for range 20 {
		d := l.Chat.draw()
		assert.True(t, d >= time.Second && d <= 3*time.Second)
	}
	for _, bad := range []string{"chat", "chat=", "chat=3s-1s", "foo=1s", "chat=abc"} {
		_, err := ParseLatency(bad)
		assert.Error(t, err, bad)
	}
	em, err := ParseExtraModel("image:gen-image-3")
	require.NoError(t, err)
	assert.Equal(t, ExtraModel{"image", "gen-image-3"}, em)
	for _, bad := range []string{"image", "video:x", "text:", ":x"} {
		_, err := ParseExtraModel(bad)
		assert.Error(t, err, bad)
	}
	_, err = New(Config{Keys: Keys{Text: "k", Messages: "k"}})
	assert.Error(t, err, "duplicate keys")

	g, err := New(Config{Latency: Latency{Models: Range{30 * time.Millisecond, 30 * time.Millisecond}}})
	require.NoError(t, err)
	srv := httptest.NewServer(g)
	defer srv.Close()
	req, _ := http.NewRequest("GET", srv.URL+"/v1/models", nil)
	req.Header.Set("Authorization", "Bearer "+keys.Alt)
	start := time.Now()
	res, err := srv.Client().Do(req)
	require.NoError(t, err)
	_ = res.Body.Close()
	assert.GreaterOrEqual(t, time.Since(start), 30*time.Millisecond)
}
