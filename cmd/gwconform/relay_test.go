package main

import (
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gwconform/gwconform/conformance/conformancetest"
	"github.com/gwconform/gwconform/conformance/refgateway"
	"github.com/gwconform/gwconform/fixtures"
)

// relay stands in front of a gateway the way header-routing relays do: it
// refuses a request without its token, and routes by a provider header
// that must match the interface (openai for chat and images, anthropic for
// messages; any for the model list).
func relay(t *testing.T, upstream, token string) *httptest.Server {
	t.Helper()
	u, err := url.Parse(upstream)
	require.NoError(t, err)
	proxy := httputil.NewSingleHostReverseProxy(u)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		want := "openai"
		if r.URL.Path == "/v1/messages" {
			want = "anthropic"
		}
		switch {
		case r.Header.Get("X-Relay-Token") != token:
			http.Error(w, `{"error":"relay: missing or wrong x-relay-token"}`, http.StatusBadRequest)
		case r.URL.Path != "/v1/models" && r.Header.Get("X-Relay-Provider") != want:
			http.Error(w, `{"error":"relay: x-relay-provider must be `+want+`"}`, http.StatusBadRequest)
		default:
			proxy.ServeHTTP(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestRunThroughAHeaderRoutingRelay(t *testing.T) {
	clearEnv(t)
	gw, err := conformancetest.Start(refgateway.Config{}, fixtures.FS)
	require.NoError(t, err)
	t.Cleanup(gw.Close)
	const token = "relay-tok-7c1e9a4f2b"
	t.Setenv("RELAY_TOKEN", token)
	rl := relay(t, gw.BaseURL, token)

	keys := []string{"--text-key", gw.Keys.Text, "--messages-key", gw.Keys.Messages, "--image-key", gw.Keys.Image, "--alt-key", gw.Keys.Alt}
	slice := []string{"--feature", "models.list,chat.*,messages.basic,messages.stream", "--retries", "0", "--base-url", rl.URL}
	routed := []string{"-H", "X-Relay-Token: ${RELAY_TOKEN}",
		"--text-header", "X-Relay-Provider: openai", "--image-header", "X-Relay-Provider: openai",
		"--messages-header", "X-Relay-Provider: anthropic", "--alt-header", "X-Relay-Provider: anthropic"}

	t.Run("with its headers the relay is transparent", func(t *testing.T) {
		out := filepath.Join(t.TempDir(), "out")
		code, stdout, stderr := gw2(t, "run", out, keys, slice, routed)
		require.Equal(t, exitOK, code, "stdout:\n%s\nstderr:\n%s", tail(stdout), stderr)
		assert.Contains(t, stdout, "conformance passed")
		for _, f := range []string{"results.jsonl", "report.json", "matrix.md", "report.html", "junit.xml"} {
			b, err := os.ReadFile(filepath.Join(out, f))
			require.NoError(t, err)
			assert.NotContains(t, string(b), token, "the relay token is redacted like a key in %s", f)
		}
	})
	t.Run("without them it refuses the preflight, and the run does not start", func(t *testing.T) {
		out := filepath.Join(t.TempDir(), "out")
		code, _, stderr := gw2(t, "run", out, keys, slice, nil)
		assert.Equal(t, exitNotStart, code)
		assert.True(t, strings.HasSuffix(stderr, "gwconform run: GET "+rl.URL+"/v1/models with the text key answered 400 Bad Request: relay: missing or wrong x-relay-token\n"), stderr)
	})
	t.Run("a header flag naming Authorization is refused at start", func(t *testing.T) {
		code, _, stderr := gw2(t, "run", t.TempDir(), keys, slice, []string{"-H", "Authorization: Bearer sk-other-key-1234"})
		assert.Equal(t, exitNotStart, code)
		assert.Contains(t, stderr, "Authorization comes from the keys")
	})
}

// gw2 runs a command with its --out and argument groups.
func gw2(t *testing.T, cmd, out string, groups ...[]string) (int, string, string) {
	t.Helper()
	args := []string{cmd, "--out", out}
	for _, g := range groups {
		args = append(args, g...)
	}
	code, stdout, stderr := gw(t, args...)
	return code, strings.TrimSpace(stdout), stderr
}
