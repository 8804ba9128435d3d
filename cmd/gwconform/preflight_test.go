package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gwconform/gwconform/conformance/conformancetest"
	"github.com/gwconform/gwconform/conformance/refgateway"
	"github.com/gwconform/gwconform/conformance/results"
	"github.com/gwconform/gwconform/fixtures"
)

// A setup mistake stops the run before any case, with exit 2 and one line
// naming it, rather than failing every case as the gateway's fault.
func TestRunRefusesSetupMistakes(t *testing.T) {
	clearEnv(t)
	srv, err := conformancetest.Start(refgateway.Config{}, fixtures.FS)
	require.NoError(t, err)
	t.Cleanup(srv.Close)

	tests := []struct {
		name   string
		args   []string
		stderr string
	}{
		{name: "a base URL ending in /v1", args: []string{"--base-url", srv.BaseURL + "/v1", "--text-key", srv.Keys.Text},
			stderr: "gwconform run: the base URL should not end in /v1 (GET " + srv.BaseURL + "/v1/v1/models answered 404): give the address without it\n"},
		{name: "the image key given as the text key", args: []string{"--base-url", srv.BaseURL, "--text-key", srv.Keys.Image, "--messages-key", srv.Keys.Messages},
			stderr: "gwconform run: the text key lists image models (gen-image-2, gen-image-2.5-flare, gen-image-2.5-sunburst): is it the image key?\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out")
			code, stdout, stderr := gw(t, append([]string{"run", "--out", out, "--feature", "models.list,chat.*"}, tt.args...)...)
			assert.Equal(t, exitNotStart, code, "stdout:\n%s", tail(stdout))
			assert.True(t, strings.HasPrefix(stderr, "gwconform run: testing "), "the run says which gateway it tests: %s", stderr)
			assert.True(t, strings.HasSuffix(stderr, tt.stderr), "one refusal, last: %s", stderr)
			assert.NoFileExists(t, filepath.Join(out, results.FileName), "no case ran")
		})
	}
}
