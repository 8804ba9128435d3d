package main

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gwconform/gwconform/conformance/refgateway"
)

// startServe runs gwconform serve in-process with args and returns its base
// URL; it stops when the test ends, or at stop(), and must exit 0.
func startServe(t *testing.T, args ...string) (base string, stop func()) {
	t.Helper()
	base, stopCode, _ := startServeCode(t, args...)
	return base, func() { assert.Equal(t, exitOK, stopCode(), "serve %v", args) }
}

// startServeCode is startServe for a serve whose exit code and console the
// test judges: stop() stops it and returns the code (once; again, the
// same); stdout is what it printed.
func startServeCode(t testing.TB, args ...string) (base string, stop func() int, stdout *syncBuffer) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var out, errb syncBuffer
	done := make(chan int, 1)
	go func() { done <- serve(ctx, append([]string{"--addr", "127.0.0.1:0"}, args...), &out, &errb) }()
	re := regexp.MustCompile(`listening on (http://\S+)`)
	deadline := time.Now().Add(10 * time.Second)
	for {
		if m := re.FindStringSubmatch(out.String()); m != nil {
			base = m[1]
			break
		}
		select {
		case code := <-done:
			t.Fatalf("serve %v exited %d: %s", args, code, errb.String())
		default:
		}
		require.True(t, time.Now().Before(deadline), "serve did not start: %s", errb.String())
		time.Sleep(10 * time.Millisecond)
	}
	code, stopped := 0, false
	stop = func() int {
		if !stopped {
			stopped = true
			cancel()
			code = <-done
			if code != exitOK {
				t.Logf("serve %v exited %d: %s", args, code, errb.String())
			}
		}
		return code
	}
	t.Cleanup(func() { stop() })
	return base, stop, &out
}

// gateway starts a reference gateway on loopback.
func refGateway(t *testing.T, cfg refgateway.Config) *httptest.Server {
	t.Helper()
	g, err := refgateway.New(cfg)
	require.NoError(t, err)
	srv := httptest.NewServer(g)
	t.Cleanup(srv.Close)
	return srv
}

func post(t *testing.T, url, key, body string) (*http.Response, string, time.Duration) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	start := time.Now()
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp, string(b), time.Since(start)
}

func TestServeStandInFlags(t *testing.T) {
	rec := t.TempDir()
	tests := []struct {
		name string
		args []string
		says string
	}{
		{"upstream without record", []string{"--upstream", "http://127.0.0.1:1"}, "--upstream needs --record DIR"},
		{"record without upstream", []string{"--record", rec}, "--record needs --upstream URL"},
		{"both roles", []string{"--upstream", "http://127.0.0.1:1", "--record", rec, "--replay", rec}, "one or the other"},
		{"timing without replay", []string{"--replay-timing"}, "--replay-timing needs --replay DIR"},
		{"not a URL", []string{"--upstream", "127.0.0.1:1", "--record", rec}, "want an http or https URL"},
		{"not a recording", []string{"--replay", t.TempDir()}, "is not a recording"},
		{"faults shape the reference gateway only", []string{"--replay", rec, "--fault", "wrong-404"}, "--latency, --rate-limit, --fault and --extra-model shape the reference gateway"},
		{"a rate limit shapes the reference gateway only", []string{"--replay", rec, "--rate-limit", "1/s"}, "--latency, --rate-limit, --fault and --extra-model shape the reference gateway"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := gw(t, append([]string{"serve", "--addr", "127.0.0.1:0"}, tt.args...)...)
			assert.Equal(t, exitNotStart, code)
			assert.Contains(t, stderr, tt.says)
		})
	}
}

// A relay records a stream with its timing; the stand-in answers it at
// once, or as recorded with --replay-timing, and answers a request it has
// no recording for with 501 naming the nearest.
func TestServeRelayThenReplay(t *testing.T) {
	lat, err := refgateway.ParseLatency("event=40ms")
	require.NoError(t, err)
	gwSrv := refGateway(t, refgateway.Config{Latency: lat})
	rec := filepath.Join(t.TempDir(), "rec")
	keys := refgateway.DefaultKeys()
	const stream = `{"model":"gen-5.5","stream":true,"max_tokens":256,"messages":[{"role":"user","content":"Say something about rivers."}]}`

	relay, stopRelay := startServe(t, "--upstream", gwSrv.URL, "--record", rec)
	resp, live, took := post(t, relay+"/v1/chat/completions", keys.Text, stream)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	events := strings.Count(live, "\n\n")
	require.Greater(t, events, 4)
	t.Logf("live stream: %d events in %s", events, took)
	stopRelay()
	gwSrv.Close()

	fast, _ := startServe(t, "--replay", rec)
	resp, got, quick := post(t, fast+"/v1/chat/completions", keys.Text, stream)
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, live, got, "the recorded stream, byte for byte")
	assert.Equal(t, "text/event-stream; charset=utf-8", resp.Header.Get("Content-Type"))
	assert.NotEmpty(t, resp.Header.Get("X-Request-Id"), "the recorded request id")

	timed, _ := startServe(t, "--replay", rec, "--replay-timing")
	_, got, slow := post(t, timed+"/v1/chat/completions", keys.Text, stream)
	assert.Equal(t, live, got)
	t.Logf("replayed at once in %s, with the recorded timing in %s", quick, slow)
	assert.Greater(t, slow, time.Duration(events-2)*40*time.Millisecond, "events wait for their recorded offsets")
	assert.Less(t, quick, slow/2)

	resp, body, _ := post(t, fast+"/v1/chat/completions", keys.Text, strings.Replace(stream, "rivers", "mountains", 1))
	assert.Equal(t, http.StatusNotImplemented, resp.StatusCode)
	assert.Contains(t, body, `"type":"no_recording"`)
	assert.Contains(t, body, "no recorded exchange matches POST /v1/chat/completions (key text, model gen-5.5)")
	assert.Contains(t, body, "nearest: "+filepath.ToSlash(filepath.Join(rec, "exchanges/relay/v1_chat_completions")))
	assert.Contains(t, body, "differs in body")

	resp, body, _ = post(t, fast+"/v1/chat/completions", keys.Image, stream)
	assert.Equal(t, http.StatusNotImplemented, resp.StatusCode)
	assert.Contains(t, body, "key image, recorded text", "another key kind is another request")
}

// The official SDKs' tests of the reference gateway run once through a
// recording relay in front of it, then pass against a stand-in answering
// from that recording with the gateway gone.
func TestStandInPassesTheSDKTests(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the gateway's SDK tests twice (make test runs it in its non-race pass)")
	}
	bin := filepath.Join(t.TempDir(), "refgateway.test")
	build := exec.Command("go", "test", "-c", "-o", bin, "github.com/gwconform/gwconform/conformance/refgateway")
	out, err := build.CombinedOutput()
	require.NoError(t, err, "%s", out)
	sdk := func(base string) string {
		cmd := exec.Command(bin, "-test.run", "^TestSDK", "-test.count", "1", "-sdk.base-url", base)
		cmd.Env = append(os.Environ(), "OPENAI_API_KEY=", "ANTHROPIC_API_KEY=", "OPENAI_BASE_URL=", "ANTHROPIC_BASE_URL=")
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "the SDK tests against %s:\n%s", base, tail(string(out)))
		return string(out)
	}

	gwSrv := refGateway(t, refgateway.Config{})
	rec := filepath.Join(t.TempDir(), "rec")
	relay, stopRelay := startServe(t, "--upstream", gwSrv.URL, "--record", rec)
	sdk(relay)
	stopRelay()
	gwSrv.Close()

	files := 0
	require.NoError(t, filepath.WalkDir(filepath.Join(rec, "exchanges"), func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			files++
		}
		return err
	}))
	n := validateRecording(t, rec)
	t.Logf("the relay recorded %d distinct requests (%d files checked against the schemas)", files, n)

	standIn, _ := startServe(t, "--replay", rec)
	got := sdk(standIn)
	assert.Contains(t, got, "PASS")
}
