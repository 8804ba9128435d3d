package conformance_test

import (
	"bufio"
	"bytes"
	"cmp"
	"compress/gzip"
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/fstest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gwconform/gwconform/conformance"
	"github.com/gwconform/gwconform/conformance/catalog"
	"github.com/gwconform/gwconform/conformance/check"
	"github.com/gwconform/gwconform/conformance/execute"
	"github.com/gwconform/gwconform/conformance/plan"
	"github.com/gwconform/gwconform/conformance/results"
	"github.com/gwconform/gwconform/conformance/vocab"
)

// hostileCases is a tiny catalog: one case per body kind the engine reads
// (JSON, chat stream, image result, status only).
const hostileCases = `
cases:
  - id: h-json
    feature: chat.basic
    tier: verified
    spec: "2.3"
    requirement: "a chat completion"
    key: text
    models: [gen-5.5]
    request:
      method: POST
      path: /v1/chat/completions
      json: {model: "{{ .Model }}", messages: [{role: user, content: hi}], max_tokens: 16}
    expect:
      status: 200
      schema: chat_completion
  - id: h-stream
    feature: chat.stream
    tier: verified
    spec: "6.2"
    requirement: "a chat stream"
    key: text
    models: [gen-5.5]
    request:
      method: POST
      path: /v1/chat/completions
      json: {model: "{{ .Model }}", messages: [{role: user, content: hi}], max_tokens: 16, stream: true}
    expect:
      status: 200
      sse: {protocol: chat}
  - id: h-image
    feature: images.generate
    tier: verified
    spec: "2.2"
    requirement: "an image result"
    key: image
    models: [gen-image-2]
    request:
      method: POST
      path: /v1/images/generations
      json: {model: "{{ .Model }}", prompt: a lighthouse, size: 1024x1024, output_format: png}
    expect:
      status: 200
      images: {format: png}
  - id: h-status
    feature: models.list
    tier: verified
    spec: "4.1"
    requirement: "the model list answers"
    key: text
    models: [gen-5.5]
    request: {method: GET, path: /v1/models}
    expect:
      status: 200
`

// hostileKey is the bearer key of every kind; no result may show it, whole
// or in part.
const hostileKey = "gwk_7f3a9c1e5b2d8f4a6c0e9b7d5f3a1c8e2b4d6f80"

func loadHostileSuite(t testing.TB) *conformance.Suite {
	t.Helper()
	suite, err := conformance.LoadSuiteFS(fstest.MapFS{"hostile.yaml": {Data: []byte(hostileCases)}})
	require.NoError(t, err)
	return suite
}

func hostileTarget(url string) plan.Target {
	keys := map[catalog.KeyKind]string{}
	for _, k := range catalog.KeyKinds {
		keys[k] = hostileKey
	}
	return plan.Target{BaseURL: url, Keys: keys}
}

// hostileOptions are short bounds so a misbehaving gateway shows quickly.
func hostileOptions() execute.Options {
	return execute.Options{
		Timeout:    2 * time.Second,
		Limits:     check.Limits{MaxBodyBytes: 1 << 20, MaxEventBytes: 64 << 10},
		MaxRetries: -1,
		RetryWait:  20 * time.Millisecond,
	}
}

// --- misbehaving handlers --------------------------------------------------

// writeUntil writes chunk until the client goes away, done closes, or limit
// bytes were written (0: no limit), flushing each time.
func writeUntil(w http.ResponseWriter, r *http.Request, done <-chan struct{}, chunk []byte, limit int, pause time.Duration) {
	f, _ := w.(http.Flusher)
	written := 0
	for limit == 0 || written < limit {
		select {
		case <-r.Context().Done():
			return
		case <-done:
			return
		default:
		}
		if _, err := w.Write(chunk); err != nil {
			return
		}
		written += len(chunk)
		if f != nil {
			f.Flush()
		}
		if pause > 0 {
			select {
			case <-r.Context().Done():
				return
			case <-done:
				return
			case <-time.After(pause):
			}
		}
	}
}

func sseHeaders(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
}

// hijack takes the raw connection, writes raw and closes it.
func hijack(w http.ResponseWriter, raw string) {
	conn, buf, err := http.NewResponseController(w).Hijack()
	if err != nil {
		panic(err)
	}
	buf.WriteString(raw)
	buf.Flush()
	conn.Close()
}

// pngHeader is a PNG signature and a valid IHDR chunk claiming w×h pixels,
// followed by nothing: the header is all a size check may read.
func pngHeader(w, h uint32) []byte {
	var b bytes.Buffer
	b.WriteString("\x89PNG\r\n\x1a\n")
	ihdr := make([]byte, 13)
	binary.BigEndian.PutUint32(ihdr[0:], w)
	binary.BigEndian.PutUint32(ihdr[4:], h)
	ihdr[8], ihdr[9] = 8, 6 // 8-bit RGBA
	chunk := append([]byte("IHDR"), ihdr...)
	binary.Write(&b, binary.BigEndian, uint32(len(ihdr)))
	b.Write(chunk)
	binary.Write(&b, binary.BigEndian, crc32.ChecksumIEEE(chunk))
	// An IDAT that cannot hold 10^10 pixels.
	idat := []byte("IDAT\x78\x9c\x03\x00\x00\x00\x00\x01")
	binary.Write(&b, binary.BigEndian, uint32(len(idat)-4))
	b.Write(idat)
	binary.Write(&b, binary.BigEndian, crc32.ChecksumIEEE(idat))
	return b.Bytes()
}

// gzipBomb is count zero bytes, gzipped (about a thousandth of the size).
func gzipBomb(count int) []byte {
	var b bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&b, gzip.BestSpeed)
	zeros := make([]byte, 1<<20)
	for n := 0; n < count; n += len(zeros) {
		zw.Write(zeros)
	}
	zw.Close()
	return b.Bytes()
}

// counter answers the i-th request (0-based) with steps[min(i, last)].
func counter(steps ...http.HandlerFunc) http.HandlerFunc {
	var n atomic.Int64
	return func(w http.ResponseWriter, r *http.Request) {
		i := int(n.Add(1)) - 1
		if i >= len(steps) {
			i = len(steps) - 1
		}
		steps[i](w, r)
	}
}

// modelList answers a model list (2.1): the success every answer of GET
// /v1/models must be, whatever the case states.
func modelList(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprint(w, `{"object":"list","data":[{"id":"gen-5.5","object":"model","owned_by":"gen"}]}`)
}

func status(code int, header ...string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		for i := 0; i+1 < len(header); i += 2 {
			w.Header().Set(header[i], header[i+1])
		}
		w.WriteHeader(code)
		fmt.Fprintf(w, `{"error":{"message":"status %d"}}`, code)
	}
}

// hostileRow is one way a gateway misbehaves and what the runner must make of it.
type hostileRow struct {
	name    string
	caseID  string
	handler func(done <-chan struct{}) http.HandlerFunc
	opts    func(*execute.Options) // tweaks hostileOptions; nil keeps them
	// guard is a hang guard (a minute when zero), far above the expected
	// duration: the test fails only when the runner has not returned by
	// then. No tighter bound is asserted: a loaded machine may be slow,
	// never wrong.
	guard   time.Duration
	atLeast time.Duration // the runner returns no sooner: a wait honoured
	status  vocab.Status
	check   string // a reason with this check ("" with status pass: no reason)
	says    string // and this text (message, where, expected or actual)
	// silentTLS replaces the handler with a listener that accepts
	// connections and never answers, reached over https: the TLS handshake,
	// part of the connect phase, never ends.
	silentTLS bool
	// maxAlloc bounds the bytes allocated during the call (0: not measured).
	maxAlloc uint64
	extra    func(t *testing.T, r results.Result)
}

func hostileRows() []hostileRow {
	chunk := func(s string) string { return "data: " + s + "\n\n" }
	validChunk := chunk(`{"id":"c1","choices":[{"index":0,"delta":{"content":"x"}}]}`)
	return []hostileRow{
		// One row per phase limit (--connect-timeout, --header-timeout,
		// --idle-timeout): a stall ends the call as an error naming the phase
		// and the limit, long before the whole-request limit.
		{
			name: "connect phase: the TLS handshake never ends", caseID: "h-json", silentTLS: true,
			opts:    func(o *execute.Options) { o.Timeout, o.ConnectTimeout = 30*time.Second, 500*time.Millisecond },
			atLeast: 400 * time.Millisecond,
			status:  vocab.StatusError, check: "transport", says: "stalled in the connect phase",
		},
		{
			name: "header phase: no response byte", caseID: "h-json",
			handler: func(done <-chan struct{}) http.HandlerFunc {
				return func(w http.ResponseWriter, r *http.Request) {
					select {
					case <-r.Context().Done():
					case <-done:
					}
				}
			},
			opts:    func(o *execute.Options) { o.Timeout, o.HeaderTimeout = 30*time.Second, 500*time.Millisecond },
			atLeast: 400 * time.Millisecond,
			status:  vocab.StatusError, check: "transport", says: "stalled in the first byte phase",
		},
		{
			name: "header phase: a stall on every attempt, retried", caseID: "h-json",
			handler: func(done <-chan struct{}) http.HandlerFunc {
				return func(w http.ResponseWriter, r *http.Request) {
					select {
					case <-r.Context().Done():
					case <-done:
					}
				}
			},
			opts: func(o *execute.Options) {
				o.Timeout, o.HeaderTimeout, o.MaxRetries = 30*time.Second, 200*time.Millisecond, 2
			},
			atLeast: 3 * 150 * time.Millisecond,
			status:  vocab.StatusError, check: "transport", says: "3 attempts; the 2 before the last: stalled in the first byte phase each time",
		},
		{
			name: "idle phase: headers and one event, then silence", caseID: "h-stream",
			handler: func(done <-chan struct{}) http.HandlerFunc {
				return func(w http.ResponseWriter, r *http.Request) {
					sseHeaders(w)
					w.Write([]byte(validChunk))
					w.(http.Flusher).Flush()
					select {
					case <-r.Context().Done():
					case <-done:
					}
				}
			},
			opts:    func(o *execute.Options) { o.Timeout, o.IdleTimeout = 30*time.Second, 500*time.Millisecond },
			atLeast: 400 * time.Millisecond,
			status:  vocab.StatusError, check: "transport", says: "stalled in the body phase",
		},
		{
			name: "idle phase: SSE comments keep a quiet stream alive", caseID: "h-stream",
			handler: func(done <-chan struct{}) http.HandlerFunc {
				return func(w http.ResponseWriter, r *http.Request) {
					sseHeaders(w)
					f := w.(http.Flusher)
					w.Write([]byte(validChunk))
					for range 8 { // 1.6 s of comments, each within the 500 ms limit
						time.Sleep(200 * time.Millisecond)
						w.Write([]byte(": keep-alive\n\n"))
						f.Flush()
					}
					w.Write([]byte(chunk("[DONE]")))
				}
			},
			opts:    func(o *execute.Options) { o.Timeout, o.IdleTimeout = 30*time.Second, 500*time.Millisecond },
			atLeast: 1500 * time.Millisecond,
			status:  vocab.StatusPass,
		},
		{
			name: "json body far above MaxBodyBytes", caseID: "h-json",
			handler: func(done <-chan struct{}) http.HandlerFunc {
				return func(w http.ResponseWriter, r *http.Request) {
					w.Header().Set("Content-Type", "application/json")
					w.Write([]byte(`{"junk":"`))
					writeUntil(w, r, done, bytes.Repeat([]byte("          "), 6554), 64<<20, 0)
				}
			},
			status: vocab.StatusFail, check: "transport", says: "1048576-byte cap",
			maxAlloc: 16 << 20, // the body is 64 MiB; the cap 1 MiB
		},
		{
			name: "gzip bomb above MaxBodyBytes", caseID: "h-json",
			handler: func(done <-chan struct{}) http.HandlerFunc {
				bomb := gzipBomb(64 << 20)
				return func(w http.ResponseWriter, r *http.Request) {
					w.Header().Set("Content-Type", "application/json")
					w.Header().Set("Content-Encoding", "gzip")
					w.Write(bomb)
				}
			},
			status: vocab.StatusFail, check: "transport", says: "byte cap",
			maxAlloc: 16 << 20, // 64 MiB inflated
		},
		{
			name: "invalid gzip", caseID: "h-json",
			handler: func(done <-chan struct{}) http.HandlerFunc {
				return func(w http.ResponseWriter, r *http.Request) {
					w.Header().Set("Content-Type", "application/json")
					w.Header().Set("Content-Encoding", "gzip")
					w.Write([]byte("this is not gzip at all, only junk that claims to be"))
				}
			},
			status: vocab.StatusFail, check: "transport", says: "gzip",
		},
		{
			name: "sse data line without end", caseID: "h-stream",
			handler: func(done <-chan struct{}) http.HandlerFunc {
				return func(w http.ResponseWriter, r *http.Request) {
					sseHeaders(w)
					w.Write([]byte("data: "))
					writeUntil(w, r, done, bytes.Repeat([]byte("x"), 8<<10), 0, 0)
				}
			},
			status: vocab.StatusFail, check: "sse", says: "stream.too-large",
			maxAlloc: 8 << 20,
		},
		{
			name: "sse event name without end", caseID: "h-stream",
			handler: func(done <-chan struct{}) http.HandlerFunc {
				return func(w http.ResponseWriter, r *http.Request) {
					sseHeaders(w)
					w.Write([]byte("event: "))
					writeUntil(w, r, done, bytes.Repeat([]byte("y"), 8<<10), 0, 0)
				}
			},
			status: vocab.StatusFail, check: "sse", says: "stream.too-large",
		},
		{
			// Every event is small and valid: only a cap on the whole stream
			// stops the text the chat check accumulates (700 MiB in 5 s here
			// without it).
			name: "sse endless valid events", caseID: "h-stream",
			handler: func(done <-chan struct{}) http.HandlerFunc {
				ev := chunk(`{"choices":[{"index":0,"delta":{"content":"` + strings.Repeat("x", 30<<10) + `"}}]}`)
				return func(w http.ResponseWriter, r *http.Request) {
					sseHeaders(w)
					writeUntil(w, r, done, []byte(ev), 0, 0)
				}
			},
			status: vocab.StatusFail, check: "transport", says: "1048576-byte cap",
			maxAlloc: 32 << 20,
		},
		{
			name: "sse slow drip never ends", caseID: "h-stream",
			handler: func(done <-chan struct{}) http.HandlerFunc {
				return func(w http.ResponseWriter, r *http.Request) {
					sseHeaders(w)
					writeUntil(w, r, done, []byte(": still here\n"), 0, 100*time.Millisecond)
				}
			},
			atLeast: 2 * time.Second,
			// 2 s is the user's limit, below the spec's 600 s: an error of
			// the run, not a verdict on the gateway.
			status: vocab.StatusError, check: "transport", says: "whole-request limit",
		},
		{
			name: "json body slow drip never ends", caseID: "h-json",
			handler: func(done <-chan struct{}) http.HandlerFunc {
				return func(w http.ResponseWriter, r *http.Request) {
					w.Header().Set("Content-Type", "application/json")
					writeUntil(w, r, done, []byte(" "), 0, 100*time.Millisecond)
				}
			},
			atLeast: 2 * time.Second,
			// 2 s is the user's limit, below the spec's 600 s: an error of
			// the run, not a verdict on the gateway.
			status: vocab.StatusError, check: "transport", says: "whole-request limit",
		},
		{
			name: "headers never sent", caseID: "h-json",
			handler: func(done <-chan struct{}) http.HandlerFunc {
				return func(w http.ResponseWriter, r *http.Request) {
					select {
					case <-r.Context().Done():
					case <-done:
					}
				}
			},
			atLeast: 2 * time.Second,
			// 2 s is the user's limit, below the spec's 600 s: an error of
			// the run, not a verdict on the gateway.
			status: vocab.StatusError, check: "transport", says: "whole-request limit",
		},
		{
			name: "endless response header", caseID: "h-json",
			handler: func(done <-chan struct{}) http.HandlerFunc {
				return func(w http.ResponseWriter, r *http.Request) {
					conn, buf, err := http.NewResponseController(w).Hijack()
					if err != nil {
						panic(err)
					}
					defer conn.Close()
					buf.WriteString("HTTP/1.1 200 OK\r\nX-Junk: ")
					line := bytes.Repeat([]byte("z"), 8<<10)
					for i := 0; i < 4096; i++ { // 32 MiB, far past the client's header cap
						if _, err := buf.Write(line); err != nil {
							return
						}
					}
					buf.Flush()
				}
			},
			// The whole-request limit is far past the time the header cap
			// needs (reading 1 MiB), so only the cap can end the call.
			opts:   func(o *execute.Options) { o.Timeout = 5 * time.Minute },
			status: vocab.StatusError, check: "transport", says: "response headers exceeded 1048576 bytes",
		},
		{
			name: "connection closed mid-body", caseID: "h-json",
			handler: func(done <-chan struct{}) http.HandlerFunc {
				return func(w http.ResponseWriter, r *http.Request) {
					hijack(w, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"id\":\"chatcmpl-1\",\"choi")
				}
			},
			status: vocab.StatusFail, check: "transport", says: "unexpected EOF",
		},
		{
			name: "connection closed mid-stream", caseID: "h-stream",
			handler: func(done <-chan struct{}) http.HandlerFunc {
				return func(w http.ResponseWriter, r *http.Request) {
					hijack(w, "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"+
						"10\r\ndata: {\"choices\"\r\n")
				}
			},
			status: vocab.StatusFail, check: "transport", says: "unexpected EOF",
		},
		{
			name: "connection closed before any byte", caseID: "h-json",
			handler: func(done <-chan struct{}) http.HandlerFunc {
				return func(w http.ResponseWriter, r *http.Request) { hijack(w, "") }
			},
			status: vocab.StatusError, check: "transport", says: "EOF",
		},
		{
			name: "garbage status line", caseID: "h-json",
			handler: func(done <-chan struct{}) http.HandlerFunc {
				return func(w http.ResponseWriter, r *http.Request) { hijack(w, "SMTP ready\r\n\r\n") }
			},
			status: vocab.StatusError, check: "transport", says: "malformed HTTP",
		},
		{
			name: "error status with endless body", caseID: "h-json",
			handler: func(done <-chan struct{}) http.HandlerFunc {
				return func(w http.ResponseWriter, r *http.Request) {
					w.Header().Set("Content-Type", "application/json")
					w.WriteHeader(http.StatusInternalServerError)
					writeUntil(w, r, done, bytes.Repeat([]byte("e"), 8<<10), 0, 0)
				}
			},
			status: vocab.StatusFail, check: "status", says: "HTTP status 500",
			extra: func(t *testing.T, r results.Result) {
				assert.Equal(t, 500, r.HTTPStatus)
			},
		},
		{
			name: "image header claims 100000x100000", caseID: "h-image",
			handler: func(done <-chan struct{}) http.HandlerFunc {
				body := fmt.Sprintf(`{"created":1,"data":[{"b64_json":%q}],"output_format":"png","size":"1024x1024"}`,
					base64.StdEncoding.EncodeToString(pngHeader(100000, 100000)))
				return func(w http.ResponseWriter, r *http.Request) {
					w.Header().Set("Content-Type", "application/json")
					w.Write([]byte(body))
				}
			},
			status: vocab.StatusFail, check: "image", says: "pixel cap",
			maxAlloc: 16 << 20, // decoding would need 40 GB
			extra: func(t *testing.T, r results.Result) {
				assert.Empty(t, r.Images, "an image that does not decode is not listed")
			},
		},
		{
			name: "429 with Retry-After then 200", caseID: "h-status",
			handler: func(done <-chan struct{}) http.HandlerFunc {
				return counter(status(http.StatusTooManyRequests, "Retry-After", "1"), modelList)
			},
			opts:    func(o *execute.Options) { o.MaxRetries = -1 },
			atLeast: 900 * time.Millisecond,
			status:  vocab.StatusPass,
			extra: func(t *testing.T, r results.Result) {
				assert.Equal(t, 2, r.Attempts, "waited as asked and sent again, though no retry is allowed")
				assert.False(t, r.Flaky, "a pass after waiting on the rate limit is not flaky")
				assert.Equal(t, 1, r.Waits)
				assert.GreaterOrEqual(t, r.WaitMS, int64(900))
			},
		},
		{
			name: "429 forever", caseID: "h-status",
			handler: func(done <-chan struct{}) http.HandlerFunc {
				return status(http.StatusTooManyRequests)
			},
			// Bare 429s wait 20 ms (RetryWait), then twice as long each
			// time, until the next wait would pass --max-wait.
			opts:   func(o *execute.Options) { o.MaxRetries = 2; o.MaxWait = time.Second },
			status: vocab.StatusThrottled, check: "status", says: "HTTP status 429",
			extra: func(t *testing.T, r results.Result) {
				assert.Greater(t, r.Attempts, 2, "a 429 spends no retry")
				assert.Equal(t, r.Attempts-1, r.Waits, "a wait before every send but the first")
				// The waits planned stop before their sum would pass
				// --max-wait: 20+40+80+160+320 ms, then 640 more would
				// (counted, not timed: a loaded machine sleeps longer).
				assert.LessOrEqual(t, r.Waits, 5, "never more than --max-wait")
				assert.False(t, r.Flaky)
			},
		},
		{
			name: "429 with Retry-After past --max-wait", caseID: "h-status",
			handler: func(done <-chan struct{}) http.HandlerFunc {
				return status(http.StatusTooManyRequests, "Retry-After", "3600")
			},
			opts:   func(o *execute.Options) { o.MaxRetries = 2 },
			status: vocab.StatusThrottled, check: "status", says: "HTTP status 429",
			extra: func(t *testing.T, r results.Result) {
				assert.Equal(t, 1, r.Attempts, "an hour is past the 15 minutes a call may wait")
				assert.Zero(t, r.Waits)
			},
		},
		{
			name: "503 forever, retried", caseID: "h-status",
			handler: func(done <-chan struct{}) http.HandlerFunc {
				return status(http.StatusServiceUnavailable)
			},
			opts:   func(o *execute.Options) { o.MaxRetries = 1 },
			status: vocab.StatusFail, check: "transport", says: "2 attempts; the first: HTTP 503",
		},
		{
			name: "503 then 200", caseID: "h-status",
			handler: func(done <-chan struct{}) http.HandlerFunc {
				return counter(status(http.StatusServiceUnavailable), modelList)
			},
			opts:   func(o *execute.Options) { o.MaxRetries = 2 },
			status: vocab.StatusPass,
			extra: func(t *testing.T, r results.Result) {
				assert.Equal(t, 2, r.Attempts)
				assert.True(t, r.Flaky)
			},
		},
		{
			name: "error echoes the key", caseID: "h-json",
			handler: func(done <-chan struct{}) http.HandlerFunc {
				return func(w http.ResponseWriter, r *http.Request) {
					w.Header().Set("Content-Type", "application/json")
					w.WriteHeader(http.StatusUnauthorized)
					fmt.Fprintf(w, `{"error":{"message":"key %s rejected (%s)"}}`, r.Header.Get("Authorization"), r.Header.Get("Authorization"))
				}
			},
			status: vocab.StatusFail, check: "status", says: "HTTP status 401",
		},
		{
			// The status reason keeps 300 bytes of the body: place the key
			// across that cut, so truncation leaves only a piece of it.
			name: "error echoes the key across the truncation", caseID: "h-json",
			handler: func(done <-chan struct{}) http.HandlerFunc {
				return func(w http.ResponseWriter, r *http.Request) {
					w.WriteHeader(http.StatusUnauthorized)
					// "401 " + pad puts the key's first byte at offset 280.
					fmt.Fprintf(w, "%s%s and more text after it", strings.Repeat("p", 276), hostileKey)
				}
			},
			status: vocab.StatusFail, check: "status", says: "HTTP status 401",
		},
		{
			// The schema message shows at most 80 bytes of the wrong value.
			name: "wrong value echoes the key across the schema's cut", caseID: "h-json",
			handler: func(done <-chan struct{}) http.HandlerFunc {
				return func(w http.ResponseWriter, r *http.Request) {
					w.Header().Set("Content-Type", "application/json")
					key := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
					fmt.Fprintf(w, `{"object":"%s%s","model":"gen-5.5","choices":[{"index":0,"message":{"role":"assistant","content":"hi"},"finish_reason":"stop"}]}`,
						strings.Repeat("o", 50), key)
				}
			},
			status: vocab.StatusFail, check: "schema", says: "chat.completion",
		},
		{
			name: "stream event types echo the key", caseID: "h-stream",
			handler: func(done <-chan struct{}) http.HandlerFunc {
				return func(w http.ResponseWriter, r *http.Request) {
					sseHeaders(w)
					key := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
					fmt.Fprintf(w, "data: {\"type\":%q,\"choices\":[]}\n\ndata: [DONE]\n\n", key)
				}
			},
			status: vocab.StatusPass,
		},
		{
			name: "100k tiny valid events", caseID: "h-stream",
			handler: func(done <-chan struct{}) http.HandlerFunc {
				return func(w http.ResponseWriter, r *http.Request) {
					sseHeaders(w)
					bw := bufio.NewWriterSize(w, 64<<10)
					for i := 0; i < 100_000; i++ {
						bw.WriteString(validChunk)
					}
					bw.WriteString(chunk("[DONE]"))
					bw.Flush()
				}
			},
			opts:  func(o *execute.Options) { o.Timeout, o.MaxBodyBytes = 60*time.Second, 64<<20 },
			guard: 5 * time.Minute, status: vocab.StatusPass,
			extra: func(t *testing.T, r results.Result) {
				assert.Equal(t, 100_001, r.Events)
				assert.LessOrEqual(t, len(r.EventTypes), 200)
			},
		},
		{
			name: "100k tiny invalid events", caseID: "h-stream",
			handler: func(done <-chan struct{}) http.HandlerFunc {
				return func(w http.ResponseWriter, r *http.Request) {
					sseHeaders(w)
					bw := bufio.NewWriterSize(w, 64<<10)
					for i := 0; i < 100_000; i++ {
						// A chunk needs no member (6.2 shows none but
						// choices[].delta.content), but choices, where given,
						// is an array.
						bw.WriteString(chunk(`{"choices":0}`))
					}
					bw.WriteString(chunk("[DONE]"))
					bw.Flush()
				}
			},
			opts:  func(o *execute.Options) { o.Timeout, o.MaxBodyBytes = 60*time.Second, 64<<20 },
			guard: 5 * time.Minute, status: vocab.StatusFail, check: "schema", says: "choices",
			extra: func(t *testing.T, r results.Result) {
				assert.Equal(t, 100_001, r.Events)
				assert.LessOrEqual(t, len(r.EventTypes), 200)
				assert.LessOrEqual(t, len(r.Reasons), 101, "reasons are capped")
			},
		},
		{
			name: "events with huge type names", caseID: "h-stream",
			handler: func(done <-chan struct{}) http.HandlerFunc {
				ev := chunk(`{"choices":0,"type":"` + strings.Repeat("t", 60<<10) + `"}`)
				return func(w http.ResponseWriter, r *http.Request) {
					sseHeaders(w)
					bw := bufio.NewWriterSize(w, 64<<10)
					for i := 0; i < 300; i++ {
						bw.WriteString(ev)
					}
					bw.WriteString(chunk("[DONE]"))
					bw.Flush()
				}
			},
			opts:  func(o *execute.Options) { o.Timeout, o.MaxBodyBytes = 30*time.Second, 64<<20 },
			guard: 5 * time.Minute, status: vocab.StatusFail, check: "schema", says: "choices",
			extra: func(t *testing.T, r results.Result) {
				longest := 0
				for _, typ := range r.EventTypes {
					longest = max(longest, len(typ))
				}
				assert.LessOrEqual(t, longest, 1024, "event types are kept short")
				assert.LessOrEqual(t, len(r.EventTypes), 200)
			},
		},
	}
}

// TestHostileGateway runs one call against each misbehaving gateway: the
// runner returns (a hang guard far above the expected time), with one
// complete result naming the broken check, its memory bounded, and the key
// never shown. Which limit ends a call is decided by the row's bounds, never
// by how fast the machine is.
func TestHostileGateway(t *testing.T) {
	suite := loadHostileSuite(t)
	for _, row := range hostileRows() {
		t.Run(row.name, func(t *testing.T) {
			// Not parallel: the allocation bounds read process-wide counters.
			done := make(chan struct{})
			var url string
			if row.silentTLS {
				url = silentListener(t)
			} else {
				srv := httptest.NewServer(row.handler(done))
				t.Cleanup(srv.Close)
				url = srv.URL
			}
			t.Cleanup(func() { close(done) }) // runs before srv.Close: handlers end first

			o := hostileOptions()
			if row.opts != nil {
				row.opts(&o)
			}
			target := hostileTarget(url)
			runner := suite.Runner(target, o)
			cs := suite.Catalog.Case(row.caseID)
			require.NotNil(t, cs, row.caseID)
			call := plan.Call{Case: cs, Model: cs.Models[0]}

			var got []results.Result
			finished := make(chan struct{})
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			start := time.Now()
			go func() {
				defer close(finished)
				runner.Run(context.Background(), []plan.Call{call}, func(r results.Result) { got = append(got, r) })
			}()
			select {
			case <-finished:
			case <-time.After(cmp.Or(row.guard, time.Minute)):
				t.Fatalf("the runner hangs: no return after %s", time.Since(start))
			}
			took := time.Since(start)
			runtime.ReadMemStats(&after)

			assert.GreaterOrEqual(t, took, row.atLeast, "the wait is honoured")
			if row.maxAlloc > 0 {
				alloc := after.TotalAlloc - before.TotalAlloc
				t.Logf("allocated during the call: %.1f MiB (bound %d MiB)", float64(alloc)/(1<<20), row.maxAlloc>>20)
				assert.Less(t, alloc, row.maxAlloc, "bytes allocated during the call: %d MiB", alloc>>20)
			}
			require.Len(t, got, 1, "one call, one result")
			r := got[0]
			assertComplete(t, r, call)
			// The waits come before the answering send, where the request's
			// duration starts: two parts of the call that never overlap, so
			// together no longer than it. A lower bound on the call's time,
			// which a loaded machine only makes easier to meet.
			assert.GreaterOrEqual(t, took.Milliseconds(), r.DurationMS+r.WaitMS,
				"the wait before the send is not part of the request's duration")
			assert.Equal(t, row.status, r.Status, "reasons: %v", r.Reasons)
			if row.check == "" {
				assert.Empty(t, r.Reasons)
			} else {
				assert.True(t, hasReason(r, row.check, row.says), "want a %s reason saying %q, got %v", row.check, row.says, r.Reasons)
			}
			assertNoKey(t, r)
			b, err := json.Marshal(r)
			require.NoError(t, err)
			assert.Less(t, len(b), 256<<10, "the result line stays small")
			if row.extra != nil {
				row.extra(t, r)
			}
		})
	}
}

// silentListener accepts connections on loopback and never writes a byte;
// it returns an https URL to it.
func silentListener(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	var conns []net.Conn
	var mu sync.Mutex
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	return "https://" + ln.Addr().String()
}

// assertComplete: a result names its call and carries a verdict.
func assertComplete(t *testing.T, r results.Result, call plan.Call) {
	t.Helper()
	assert.Equal(t, call.Case.ID, r.Case)
	assert.Equal(t, call.Model, r.Model)
	assert.Equal(t, call.Case.Feature, r.Feature)
	assert.NotEmpty(t, r.Status)
	assert.False(t, r.Started.IsZero(), "started")
	if r.Status != vocab.StatusPass && r.Status != vocab.StatusSkip {
		assert.NotEmpty(t, r.Reasons, "a %s result says why", r.Status)
	}
}

// assertNoKey: no text of the result holds the key or any 10-byte piece of it.
func assertNoKey(t *testing.T, r results.Result) {
	t.Helper()
	b, err := json.Marshal(r)
	require.NoError(t, err)
	text := string(b)
	for i := 0; i+10 <= len(hostileKey); i++ {
		if piece := hostileKey[i : i+10]; strings.Contains(text, piece) {
			t.Errorf("the result shows part of the key (%q): %s", piece, truncateForLog(text))
			return
		}
	}
}

func truncateForLog(s string) string {
	if len(s) > 2000 {
		return s[:2000] + "…"
	}
	return s
}

// TestHostileCancel cancels a run while many calls hang on a slow gateway:
// Run returns promptly, never emits after returning, and every result it
// emitted is complete; calls cut by the cancellation are errors of the run,
// not failures of the gateway.
func TestHostileCancel(t *testing.T) {
	suite := loadHostileSuite(t)
	done := make(chan struct{})
	mux := http.NewServeMux()
	mux.HandleFunc("/v1/models", modelList)
	mux.HandleFunc("/v1/chat/completions", func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Stream bool `json:"stream"`
		}
		json.NewDecoder(r.Body).Decode(&req)
		if req.Stream {
			sseHeaders(w)
			writeUntil(w, r, done, []byte(": drip\n"), 0, 50*time.Millisecond)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		writeUntil(w, r, done, []byte(" "), 0, 50*time.Millisecond)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(done) })

	o := hostileOptions()
	o.Timeout = time.Hour // only the cancellation can end the slow calls
	o.Concurrency = 4
	runner := suite.Runner(hostileTarget(srv.URL), o)
	var calls []plan.Call
	for i := 0; i < 10; i++ {
		for _, id := range []string{"h-status", "h-stream", "h-json"} {
			calls = append(calls, plan.Call{Case: suite.Catalog.Case(id), Model: fmt.Sprintf("model-%02d", i)})
		}
	}

	ctx, cancel := context.WithCancel(context.Background())
	var (
		mu       sync.Mutex
		got      []results.Result
		returned bool
		late     int
	)
	emit := func(r results.Result) {
		mu.Lock()
		defer mu.Unlock()
		if returned {
			late++
		}
		got = append(got, r)
	}
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		runner.Run(ctx, calls, emit)
		mu.Lock()
		returned = true
		mu.Unlock()
	}()
	time.Sleep(500 * time.Millisecond)
	cancel()
	select {
	case <-finished:
	case <-time.After(time.Minute): // the slow calls would hang for an hour
		t.Fatalf("Run does not return after cancellation")
	}

	time.Sleep(100 * time.Millisecond)
	mu.Lock()
	defer mu.Unlock()
	assert.Zero(t, late, "results emitted after Run returned")
	assert.NotEmpty(t, got)
	assert.Less(t, len(got), len(calls), "calls not started are not reported")
	seen := map[string]bool{}
	var cut int
	for _, r := range got {
		id := r.Case + "/" + r.Model
		assert.False(t, seen[id], "%s reported twice", id)
		seen[id] = true
		assertComplete(t, r, plan.Call{Case: suite.Catalog.Case(r.Case), Model: r.Model})
		assertNoKey(t, r)
		switch r.Case {
		case "h-status":
			// Answered at once; it may still be cut if it started at the cancel.
			if r.Status != vocab.StatusPass {
				assert.Equal(t, vocab.StatusError, r.Status, "%s: %v", id, r.Reasons)
			}
		default:
			// Hung until the cancellation: an error of the run, never a verdict.
			assert.Equal(t, vocab.StatusError, r.Status, "%s: %v", id, r.Reasons)
			cut++
		}
	}
	assert.Positive(t, cut, "some slow calls were in flight at the cancellation")
}

// A call that stalls is named while it stalls: the progress line reads
// Runner.InFlight, with the call's phase and age.
func TestInFlightNamesAStall(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select { // no response byte until released
		case <-release:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(srv.Close)
	suite := loadHostileSuite(t)
	target := hostileTarget(srv.URL)
	calls, err := plan.Make(suite.Catalog, target, plan.Selection{Cases: []string{"h-json"}})
	require.NoError(t, err)
	runner := suite.Runner(target, hostileOptions())
	done := make(chan struct{})
	go func() {
		defer close(done)
		runner.Run(context.Background(), calls, func(results.Result) {})
	}()
	var named []string
	require.Eventually(t, func() bool {
		named = runner.InFlight(0)
		return len(named) > 0 && strings.Contains(named[0], "(first byte, ")
	}, 10*time.Second, 10*time.Millisecond, "the stalled call is never named: %v", named)
	assert.True(t, strings.HasPrefix(named[0], "h-json × "), named[0])
	close(release)
	<-done
	assert.Empty(t, runner.InFlight(0), "a call that ended is no longer in flight")
}
