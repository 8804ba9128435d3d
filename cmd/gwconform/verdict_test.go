package main

import (
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gwconform/gwconform/conformance/conformancetest"
	"github.com/gwconform/gwconform/conformance/refgateway"
	"github.com/gwconform/gwconform/fixtures"
	"github.com/gwconform/gwconform/report"
	reportv1 "github.com/gwconform/gwconform/report/apis/v1"
)

// TestVerdictEntryPoints: a run that could not vouch for the gateway never
// exits 0 or says "passed", and one that cannot start says so at once.
func TestVerdictEntryPoints(t *testing.T) {
	clearEnv(t)
	srv, err := conformancetest.Start(refgateway.Config{}, fixtures.FS)
	require.NoError(t, err)
	t.Cleanup(srv.Close)

	// Every request answered 429 (Retry-After 0; 429s in a row wait 1 s,
	// 2 s…, so --max-wait 2s ends each call within seconds).
	throttling := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "0")
		http.Error(w, `{"error":{"message":"slow down"}}`, http.StatusTooManyRequests)
	}))
	t.Cleanup(throttling.Close)

	// A wrong base path: everything under it answers 404.
	nowhere := httptest.NewServer(http.NotFoundHandler())
	t.Cleanup(nowhere.Close)

	// A port nothing listens on: connections are refused at once.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	closed := "http://" + l.Addr().String()
	l.Close()

	slice := []string{"--feature", "models.list,chat.*", "--retries", "1"}
	tests := []struct {
		name     string
		args     []string
		code     int
		verdict  string
		headline string // in stdout and report.json
		stderr   string
	}{
		{name: "no keys against a base URL", args: []string{"--base-url", srv.BaseURL},
			code: exitIncomplete, verdict: "incomplete", headline: "incomplete: none of the"},
		{name: "unreachable base URL", args: []string{"--base-url", closed, "--text-key", srv.Keys.Text},
			code: exitNotStart, stderr: "cannot reach the gateway"},
		{name: "a wrong text key", args: []string{"--base-url", srv.BaseURL, "--text-key", "sk-wrong-key-0001", "--messages-key", srv.Keys.Messages},
			code: exitIncomplete, verdict: "incomplete", headline: "a configured key was rejected", stderr: "the text key was rejected"},
		{name: "429 to everything", args: []string{"--base-url", throttling.URL, "--text-key", "sk-some-text-key", "--max-wait", "2s"},
			code: exitIncomplete, verdict: "incomplete", headline: "throttled, not verified"},
		{name: "a key too short to redact", args: []string{"--base-url", srv.BaseURL, "--text-key", "x"},
			code: exitNotStart, stderr: "keys shorter than 8 are refused"},
		{name: "a selected family's key set but empty", args: []string{"--base-url", srv.BaseURL, "--text-key", srv.Keys.Text, "--messages-key", srv.Keys.Messages,
			"--image-key", "", "--alt-key", srv.Keys.Alt},
			code: exitIncomplete, verdict: "incomplete", headline: "the key of their family is not set"},
		{name: "nothing at the base: check the base URL", args: []string{"--base-url", nowhere.URL + "/wrong", "--text-key", srv.Keys.Text},
			code: exitNotStart, stderr: "nothing at this address answers as the Model-Gateway API: every key's GET /v1/models and POST /v1/chat/completions answered 404: check the base URL"},
		{name: "the right keys pass", args: []string{"--base-url", srv.BaseURL, "--text-key", srv.Keys.Text, "--messages-key", srv.Keys.Messages,
			"--image-key", srv.Keys.Image, "--alt-key", srv.Keys.Alt},
			code: exitOK, verdict: "pass", headline: "conformance passed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out")
			start := time.Now()
			code, stdout, stderr := gw(t, append(append([]string{"run", "--out", out}, slice...), tt.args...)...)
			assert.Equal(t, tt.code, code, "stdout:\n%s\nstderr:\n%s", tail(stdout), stderr)
			assert.Less(t, time.Since(start), 30*time.Second, "the verdict came within seconds")
			assert.Contains(t, stderr, tt.stderr)
			if tt.verdict == "" {
				assert.NoFileExists(t, filepath.Join(out, report.FileJSON), "a run that could not start writes no report")
				return
			}
			assert.Contains(t, stdout, tt.headline)
			if tt.verdict != "pass" {
				assert.NotContains(t, stdout, "passed")
			}
			f, err := os.Open(filepath.Join(out, report.FileJSON))
			require.NoError(t, err)
			defer f.Close()
			rep, err := reportv1.ReadJSON(f)
			require.NoError(t, err)
			assert.Equal(t, tt.verdict, rep.Verdict)
			assert.Contains(t, rep.Headline, tt.headline)
		})
	}
}
