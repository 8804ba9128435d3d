package record

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// pngLike is bytes that sniff as PNG, long enough to be a blob.
func pngLike(n int) []byte {
	b := append([]byte("\x89PNG\r\n\x1a\n"), bytes.Repeat([]byte{1, 2, 3, 250}, n/4)...)
	return b
}

// blobName is the name a blob of b gets.
func blobName(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]) + "." + sniffExt(b)
}

// chunked writes s to w in pieces of n bytes (all at once for 0).
func chunked(s string, n int, w func([]byte)) {
	if n == 0 {
		w([]byte(s))
		return
	}
	for len(s) > 0 {
		k := min(n, len(s))
		w([]byte(s[:k]))
		s = s[k:]
	}
}

func TestExtractAndRestoreBlobs(t *testing.T) {
	img := pngLike(2000)
	b64 := base64.StdEncoding.EncodeToString(img)
	name := blobName(img)
	unpadded := strings.TrimRight(base64.StdEncoding.EncodeToString(pngLike(2001)), "=")
	padded := base64.StdEncoding.EncodeToString(pngLike(2001))
	// 767 bytes are 1024 characters with one of padding: long enough
	// only with it.
	short := pngLike(764)[:767]
	tests := []struct {
		name  string
		in    string
		want  string // with "BLOB" for the reference to img
		blobs int
	}{
		{"a JSON string value", `{"b64_json":"` + b64 + `","n":1}`, `{"b64_json":"BLOB","n":1}`, 1},
		{"a data URL", `{"image_url":"data:image/png;base64,` + b64 + `"}`, `{"image_url":"data:image/png;base64,BLOB"}`, 1},
		{"an SSE event", "event: x\ndata: {\"b64_json\":\"" + b64 + "\"}\n\n", "event: x\ndata: {\"b64_json\":\"BLOB\"}\n\n", 1},
		{"twice the same image, one blob", `["` + b64 + `","` + b64 + `"]`, `["BLOB","BLOB"]`, 1},
		{"short base64 stays", `{"b":"aGVsbG8="}`, `{"b":"aGVsbG8="}`, 0},
		{"not base64 stays", `{"t":"` + strings.Repeat("word ", 400) + `"}`, `{"t":"` + strings.Repeat("word ", 400) + `"}`, 0},
		{"unpadded base64 is not the strict encoding: stays", `{"b":"` + unpadded + `"}`, `{"b":"` + unpadded + `"}`, 0},
		{"base64 with a character after its padding stays", `{"b":"` + padded + `A"}`, `{"b":"` + padded + `A"}`, 0},
		{"base64 with an escape in it stays", `{"b":"` + b64[:1500] + `\/` + b64[1500:] + `"}`, `{"b":"` + b64[:1500] + `\/` + b64[1500:] + `"}`, 0},
		{"an unterminated string stays", `{"b":"` + b64, `{"b":"` + b64, 0},
		{"long enough with its padding", `["` + base64.StdEncoding.EncodeToString(short) + `"]`, `["` + blobPrefix + blobName(short) + `"]`, 1},
	}
	for _, tt := range tests {
		for _, n := range []int{0, 1, 7, 1000} {
			t.Run(fmt.Sprintf("%s, %d bytes at a time", tt.name, n), func(t *testing.T) {
				for _, dir := range []string{"", t.TempDir()} {
					sink := &blobSink{dir: dir, mem: map[string][]byte{}}
					ex := newExtractor(sink)
					chunked(tt.in, n, func(p []byte) { ex.Write(p) })
					got, err := ex.finish(false)
					require.NoError(t, err)
					assert.Equal(t, strings.ReplaceAll(tt.want, "BLOB", blobPrefix+name), string(got))
					back, err := restoreBlobs(got, func(name string) ([]byte, error) {
						r, err := sink.open(name)
						if err != nil {
							return nil, err
						}
						defer r.Close()
						return io.ReadAll(r)
					})
					require.NoError(t, err)
					assert.Equal(t, tt.in, string(back), "restored byte for byte")
					if dir == "" {
						assert.Len(t, sink.mem, tt.blobs)
					} else {
						files, err := os.ReadDir(dir)
						require.NoError(t, err)
						assert.Len(t, files, tt.blobs, "the blobs, and no temporary file left")
					}
				}
			})
		}
	}
	assert.True(t, strings.HasSuffix(name, ".png"))
	assert.Equal(t, "<png sha256:"+name[:12]+"…>", describeBlobs(blobPrefix+name))
}

func TestSplitEvents(t *testing.T) {
	t0 := time.Unix(1000, 0)
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"LF", "data: a\n\ndata: b\n\n", []string{"data: a\n\n", "data: b\n\n"}},
		{"CRLF", "event: x\r\ndata: a\r\n\r\ndata: b\r\n\r\n", []string{"event: x\r\ndata: a\r\n\r\n", "data: b\r\n\r\n"}},
		{"CR", "data: a\r\rdata: b\r\r", []string{"data: a\r\r", "data: b\r\r"}},
		{"CR, then CRs", "data: a\r\r\r", []string{"data: a\r\r", "\r"}},
		{"CRLF, then LF", "data: a\r\n\n", []string{"data: a\r\n\n"}},
		{"a comment and a multi-line event", ": ping\n\ndata: 1\ndata: 2\n\n", []string{": ping\n\n", "data: 1\ndata: 2\n\n"}},
		{"a cut tail is an event of its own", "data: a\n\ndata: {\"hal", []string{"data: a\n\n", "data: {\"hal"}},
		{"empty", "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Every byte arrives one millisecond after the one before.
			s := newEventSplitter(&blobSink{mem: map[string][]byte{}})
			for i := range len(tt.in) {
				s.write([]byte(tt.in[i:i+1]), t0.Add(time.Duration(i)*time.Millisecond))
			}
			evs, err := s.finish(false)
			require.NoError(t, err)
			var got []string
			end := 0
			for _, ev := range evs {
				got = append(got, string(ev.text))
				end += len(ev.text)
				assert.Equal(t, t0.Add(time.Duration(end-1)*time.Millisecond), ev.at, "an event arrives with its last byte")
			}
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestKeyKind(t *testing.T) {
	keys := map[string]string{"text": "sk-text-1234", "alt": "sk-shared-999", "messages": "sk-shared-999"}
	tests := []struct {
		name   string
		header http.Header
		prefer string
		want   string
	}{
		{"bearer", http.Header{"Authorization": {"Bearer sk-text-1234"}}, "", "text"},
		{"bearer, scheme in another case", http.Header{"Authorization": {"bearer sk-text-1234"}}, "", "text"},
		{"x-api-key (the Anthropic SDKs)", http.Header{"X-Api-Key": {"sk-text-1234"}}, "", "text"},
		{"no credential", http.Header{}, "", KeyNone},
		{"an invalid key", http.Header{"Authorization": {"Bearer gwconform-invalid-key"}}, "", KeyOther},
		{"one key for two kinds: the call's kind", http.Header{"Authorization": {"Bearer sk-shared-999"}}, "messages", "messages"},
		{"one key for two kinds, no call: the first by name", http.Header{"Authorization": {"Bearer sk-shared-999"}}, "", "alt"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, keyKind(tt.header, keys, tt.prefer))
		})
	}
}

// multipartBody encodes parts with a boundary of its own.
func formData(t *testing.T, boundary string, fields [][2]string, file []byte) (string, []byte) {
	t.Helper()
	var b bytes.Buffer
	w := multipart.NewWriter(&b)
	require.NoError(t, w.SetBoundary(boundary))
	for _, f := range fields {
		require.NoError(t, w.WriteField(f[0], f[1]))
	}
	fw, err := w.CreateFormFile("image[]", "ref.png")
	require.NoError(t, err)
	fw.Write(file)
	require.NoError(t, w.Close())
	return w.FormDataContentType(), b.Bytes()
}

func TestDigestAndModel(t *testing.T) {
	img := pngLike(3000)
	ctA, bodyA := formData(t, "aaaaaaaaaaaaaaaa", [][2]string{{"model", "gen-image-2"}, {"prompt", "blue"}}, img)
	ctB, bodyB := formData(t, "bbbbbbbbbbbbbbbb", [][2]string{{"model", "gen-image-2"}, {"prompt", "blue"}}, img)
	ctC, bodyC := formData(t, "cccccccccccccccc", [][2]string{{"model", "gen-image-2"}, {"prompt", "red"}}, img)
	const js = "application/json"
	tests := []struct {
		name           string
		ct1, b1        string
		ct2, b2        string
		same           bool
		model1, model2 string
	}{
		{"JSON key order and spacing do not matter", js, `{"model":"m","n":1}`, js, "{\n  \"n\": 1,\n  \"model\": \"m\"\n}", true, "m", "m"},
		{"a JSON value does", js, `{"model":"m","n":1}`, js, `{"model":"m","n":2}`, false, "m", "m"},
		{"number text is kept (1.0 is not 1)", js, `{"n":1}`, js, `{"n":1.0}`, false, "", ""},
		{"multipart boundaries do not matter", ctA, string(bodyA), ctB, string(bodyB), true, "gen-image-2", "gen-image-2"},
		{"a multipart value does", ctA, string(bodyA), ctC, string(bodyC), false, "gen-image-2", "gen-image-2"},
		{"raw text as is", "text/plain", "abc", "text/plain", "abd", false, "", ""},
		{"no body", "", "", "", "", true, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d1, d2 := digestBody(tt.ct1, []byte(tt.b1)), digestBody(tt.ct2, []byte(tt.b2))
			assert.Regexp(t, `^sha256:[0-9a-f]{64}$`, d1)
			assert.Equal(t, tt.same, d1 == d2)
			assert.Equal(t, tt.model1, requestModel(tt.ct1, []byte(tt.b1)))
			assert.Equal(t, tt.model2, requestModel(tt.ct2, []byte(tt.b2)))
		})
	}
}

func TestKeepHeaders(t *testing.T) {
	h := http.Header{
		"Authorization":   {"Bearer sk-secret-123456"},
		"X-Api-Key":       {"sk-secret-123456"},
		"Content-Type":    {"application/json"},
		"X-Relay-Token":   {"opaque-relay-value"},
		"X-Request-Id":    {"req_1"},
		"X-Echo":          {"you sent sk-secret-123456"},
		"Date":            {"Mon, 01 Jan 2026 00:00:00 GMT"},
		"Set-Cookie":      {"session=abc"},
		"X-Forwarded-For": {"10.0.0.1"},
		// A relay's diagnostics: names holding "key" that carry no secret,
		// beside one that does.
		"X-Portkey-Provider":          {"openai"},
		"X-Portkey-Gateway-Exception": {"true"},
		"X-Portkey-Api-Key":           {"pk-relay-secret-9876"},
	}
	req := keepHeaders(h, droppedRequestHeaders, redactor{"sk-secret-123456"})
	assert.Equal(t, map[string][]string{
		"Content-Type": {"application/json"}, "X-Relay-Token": {"[REDACTED]"}, "X-Request-Id": {"req_1"},
		"X-Echo": {"you sent [REDACTED]"}, "Date": {"Mon, 01 Jan 2026 00:00:00 GMT"}, "Set-Cookie": {"[REDACTED]"},
		"X-Portkey-Provider": {"openai"}, "X-Portkey-Gateway-Exception": {"true"}, "X-Portkey-Api-Key": {"[REDACTED]"},
	}, req)
	resp := keepHeaders(h, droppedResponseHeaders, redactor{"sk-secret-123456"})
	assert.NotContains(t, resp, "Date")
	assert.NotContains(t, resp, "Set-Cookie")
	assert.Equal(t, []string{"[REDACTED]"}, resp["Authorization"], "a credential a gateway echoes in a response header")
	assert.Equal(t, []string{"req_1"}, resp["X-Request-Id"], "the request id is what operators ask for")
}

func TestSafeName(t *testing.T) {
	assert.Equal(t, "chat-json", safeName("chat-json"))
	assert.Equal(t, "gen-image-2.5-flare", safeName("gen-image-2.5-flare"))
	a, b := safeName("org/model:v1"), safeName("org_model_v1")
	assert.Regexp(t, `^org_model_v1-[0-9a-f]{8}$`, a)
	assert.NotEqual(t, a, b, "a changed name keeps apart from a name that was already so")
	assert.Regexp(t, `^_\.\.-[0-9a-f]{8}$`, safeName(".."))
}

// Playback of a stored body that the test writes by hand: a JSON body is
// served compact, blobs put back.
func TestPlaybackBody(t *testing.T) {
	s, err := Create(t.TempDir(), Meta{Source: SourceRun})
	require.NoError(t, err)
	img := pngLike(2000)
	raw := []byte(`{ "data": [ { "b64_json": "` + base64.StdEncoding.EncodeToString(img) + `" } ] }`)
	ex := newExtractor(newSink(s))
	ex.Write(raw)
	skel, err := ex.finish(false)
	require.NoError(t, err)
	body, err := textBody(skel, int64(len(raw)), nil, newSink(s))
	require.NoError(t, err)
	sent := time.Now()
	head, chunks, err := s.Playback(&Round{Sent: sent, Response: &Response{Received: sent.Add(40 * time.Millisecond), Status: 200, Body: body, EndedMS: 90}})
	require.NoError(t, err)
	assert.Equal(t, 40*time.Millisecond, head)
	require.Len(t, chunks, 1)
	assert.Equal(t, 90*time.Millisecond, chunks[0].At)
	assert.JSONEq(t, string(raw), string(chunks[0].Data))
	assert.NotContains(t, string(body.JSON), base64.StdEncoding.EncodeToString(img)[:100], "the image is a blob")
}

// TestKeyOfBasePaths: each key kind's requests leave out the path of the
// base they were sent to, so a gateway routed under prefixes records (and
// replays) the same paths as one that is not.
func TestKeyOfBasePaths(t *testing.T) {
	keys := map[string]string{"text": "sk-text-0123456789", "messages": "sk-messages-0123456789"}
	bases := BasePaths{Default: "/openai", Kinds: map[string]string{"messages": "/anthropic"}}
	tests := []struct {
		name, url, key, want string
	}{
		{"the default base", "http://gw/openai/v1/chat/completions", "sk-text-0123456789", "/v1/chat/completions"},
		{"a kind's own base", "http://gw/anthropic/v1/messages", "sk-messages-0123456789", "/v1/messages"},
		{"another kind's endpoint, at its base", "http://gw/anthropic/v1/messages", "sk-text-0123456789", "/v1/messages"},
		{"a path under no base", "http://gw/v1/models", "sk-text-0123456789", "/v1/models"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := httptest.NewRequest(http.MethodPost, tt.url, nil)
			req.Header.Set("Authorization", "Bearer "+tt.key)
			assert.Equal(t, tt.want, KeyOf(req, nil, keys, "", bases).Path)
		})
	}
}

// TestRequestBodyAsKeyOf: a request body converted as a stream gives the
// model and digest KeyOf gives the whole body (a replay matches it), and
// the body the file keeps gives back its bytes.
func TestRequestBodyAsKeyOf(t *testing.T) {
	img := pngLike(3000)
	big := pngLike(200 << 10) // past spoolMem: spooled to a file
	dataURL := func(b []byte) string { return "data:image/png;base64," + base64.StdEncoding.EncodeToString(b) }
	ctM, bodyM := formData(t, "bbbbbbbbbbbbbbbb", [][2]string{{"model", "gen-image-2"}, {"prompt", "blue"}}, big)
	tests := []struct{ name, ct, body string }{
		{"JSON", "application/json", `{"n":1,"model":"m"}`},
		{"JSON with two images, spooled", "application/json", `{"model":"m","images":[{"image_url":"` + dataURL(big) + `"},{"image_url":"` + dataURL(img) + `"}]}`},
		{"multipart with a file, spooled", ctM, string(bodyM)},
		{"text", "text/plain", "model says hi"},
		{"bytes", "application/octet-stream", string(big[:100])},
		{"not multipart after all", "multipart/form-data; boundary=x", "--y\r\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Create(t.TempDir(), Meta{Source: SourceRelay})
			require.NoError(t, err)
			sink := newSink(s)
			sp, err := newSpool(strings.NewReader(tt.body), sink)
			require.NoError(t, err)
			defer sp.close()
			b, model, digest, err := requestBody(tt.ct, sp, 0, nil, sink)
			require.NoError(t, err)
			assert.Equal(t, digestBody(tt.ct, []byte(tt.body)), digest)
			assert.Equal(t, requestModel(tt.ct, []byte(tt.body)), model)
			assert.Equal(t, len(tt.body), b.Bytes)
			if b.Multipart != nil {
				assert.Len(t, b.Multipart, 3)
				back, err := s.Blob(b.Multipart[2].Blob)
				require.NoError(t, err)
				assert.Equal(t, big, back)
				return
			}
			back, err := s.BodyBytes(b)
			require.NoError(t, err)
			if b.JSON != nil {
				assert.JSONEq(t, tt.body, string(back))
				assert.Less(t, len(b.JSON), 1000, "the images are blobs")
			} else {
				assert.Equal(t, tt.body, string(back))
			}
		})
	}
	t.Run("past the cap, the parts before the cut", func(t *testing.T) {
		sink := newSink(nil)
		sp, err := newSpool(bytes.NewReader(bodyM), sink)
		require.NoError(t, err)
		defer sp.close()
		b, model, _, err := requestBody(ctM, sp, int64(len(bodyM)/2), nil, sink)
		require.NoError(t, err)
		assert.Equal(t, "gen-image-2", model)
		assert.Equal(t, len(bodyM), b.Bytes, "the size as sent")
		require.Len(t, b.Multipart, 2, "the file was cut")
	})
	t.Run("a key inside a file part is redacted", func(t *testing.T) {
		const key = "sk-secret-0123456789"
		file := append(append(pngLike(5000), key...), pngLike(5000)...)
		ct, body := formData(t, "cccccccccccccccc", nil, file)
		sink := newSink(nil)
		sp, err := newSpool(bytes.NewReader(body), sink)
		require.NoError(t, err)
		b, _, _, err := requestBody(ct, sp, 0, redactor{key}, sink)
		require.NoError(t, err)
		assert.Equal(t, redactor{key}.bytes(file), sink.mem[b.Multipart[0].Blob])
	})
}

// TestRedactWriter: secrets are replaced however the bytes arrive, a
// secret across two writes too.
func TestRedactWriter(t *testing.T) {
	red := redactor{"sk-secret-0123456789", "aa"}
	in := "x sk-secret-0123456789 aaa sk-secret-01234 sk-secret-0123456789"
	for _, n := range []int{1, 2, 7, 100} {
		var out bytes.Buffer
		w := newRedactWriter(&out, red)
		chunked(in, n, func(p []byte) { w.Write(p) })
		require.NoError(t, w.flush())
		assert.Equal(t, string(red.bytes([]byte(in))), out.String(), "%d bytes at a time", n)
	}
}

// TestAppendRelayInPlace: rounds appended in place make the very file
// writing them all at once makes, and a file not laid out so is refused.
func TestAppendRelayInPlace(t *testing.T) {
	dir := t.TempDir()
	s, err := Create(dir, Meta{Source: SourceRelay})
	require.NoError(t, err)
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	var rounds []Round
	for i := range 3 {
		r := Round{Sent: t0.Add(time.Duration(i) * time.Second), Request: Request{Method: "POST", Path: "/v1/chat/completions", Key: "text",
			Body: &Body{Bytes: 9, JSON: json.RawMessage(`{"a":"<&>"}`)}, Digest: "sha256:" + strings.Repeat("0", 64)},
			Response: &Response{Received: t0, Status: 200 + i, EndedMS: int64(i)}}
		rounds = append(rounds, r)
		rel, err := s.appendRelay(r)
		require.NoError(t, err)
		require.NoError(t, s.writeJSON("whole.json", &Exchange{Version: Version, Rounds: rounds}))
		got, err := os.ReadFile(filepath.Join(dir, rel))
		require.NoError(t, err)
		want, err := os.ReadFile(filepath.Join(dir, "whole.json"))
		require.NoError(t, err)
		require.Equal(t, string(want), string(got), "after %d rounds", i+1)
	}
	rel := relayFile(rounds[0].Request.MatchKey())
	require.NoError(t, os.WriteFile(filepath.Join(dir, rel), []byte(`{"version":1,"rounds":[]} trailing`), 0o644))
	_, err = s.appendRelay(rounds[0])
	assert.ErrorContains(t, err, "does not end with ]}")
}

// TestSentOrder: the rounds of all files come back one at a time in the
// order they were sent, ties in file order; a file this build cannot read
// is refused before any round is.
func TestSentOrder(t *testing.T) {
	dir := t.TempDir()
	s, err := Create(dir, Meta{Source: SourceRelay})
	require.NoError(t, err)
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	round := func(sec int, path string) Round {
		return Round{Sent: t0.Add(time.Duration(sec) * time.Second), Request: Request{Method: "GET", Path: path, Key: "text", Digest: digestBody("", nil)}}
	}
	// Appended as they ended: /b's second round was sent before its first.
	for _, r := range []Round{round(3, "/a"), round(1, "/a"), round(2, "/b"), round(0, "/b"), round(5, "/c"), round(1, "/c")} {
		_, err := s.appendRelay(r)
		require.NoError(t, err)
	}
	o, err := s.Sent()
	require.NoError(t, err)
	assert.Equal(t, 6, o.Len())
	var got []string
	for k, err := range o.All() {
		require.NoError(t, err)
		assert.Equal(t, relayFile(k.Round.Request.MatchKey()), k.File)
		got = append(got, fmt.Sprintf("%d%s", int(k.Round.Sent.Sub(t0).Seconds()), k.Round.Request.Path))
	}
	assert.Equal(t, []string{"0/b", "1/a", "1/c", "2/b", "3/a", "5/c"}, got)

	for name, text := range map[string]string{
		"version":       `{"version":2,"rounds":[]}`,
		"unknown field": `{"version":1,"rounds":[{"sent":"2026-01-01T00:00:00Z","request":{"method":"GET","path":"/","key":"text","digest":"x"},"extra":1}]}`,
		"no version":    `{"rounds":[]}`,
	} {
		t.Run(name, func(t *testing.T) {
			require.NoError(t, os.WriteFile(filepath.Join(dir, ExchangesDir, "zz.json"), []byte(text), 0o644))
			_, err := s.Sent()
			assert.ErrorContains(t, err, "zz.json")
			_, err = s.Read(filepath.Join(ExchangesDir, "zz.json"))
			assert.Error(t, err, "Read refuses it too")
		})
	}
}
