package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gwconform/gwconform/conformance/conformancetest"
	"github.com/gwconform/gwconform/conformance/refgateway"
	"github.com/gwconform/gwconform/conformance/results"
	"github.com/gwconform/gwconform/fixtures"
	reportv1 "github.com/gwconform/gwconform/report/apis/v1"
)

// TestRunReadiness: a run against a faulty reference gateway gives each
// library the readiness its own code predicts, in report.json, matrix.md
// and the console; it decides the exit code only for --require-clients.
func TestRunReadiness(t *testing.T) {
	tests := []struct {
		name     string
		fault    string
		args     []string
		code     int
		want     map[string]results.Readiness // library: verdict
		features [][3]string                  // library, feature, verdict
		says     string                       // in the console and matrix.md
		stderr   string
	}{
		{name: "JSON as text/plain: the Stainless Go reader fails, Python's parses it", fault: "wrong-content-type",
			args: []string{"--feature", "chat.*", "--clients", "openai-go,openai-python"}, code: exitFailed,
			want:     map[string]results.Readiness{"openai-go": results.ReadyNot},
			features: [][3]string{{"openai-python", "chat.basic", string(results.ReadyYes)}},
			says:     "chat.basic: chat-json-strict content"},
		{name: "a stream without [DONE] fails the verdict but no library", fault: "chat-no-done",
			args: []string{"--feature", "chat.*", "--clients", "go-openai,openai-go"}, code: exitFailed,
			features: [][3]string{{"go-openai", "chat.stream", string(results.ReadyYes)}},
			says:     "chat.stream READY"},
		{name: "image routes missing limit the image libraries", fault: "image-routes-missing",
			args: []string{"--feature", "chat.*,images.generate,images.edit.multipart", "--clients", "openai-go"}, code: exitFailed,
			want:     map[string]results.Readiness{"openai-go": results.ReadyLimited},
			features: [][3]string{{"openai-go", "images.generate", string(results.ReadyNot)}},
			says:     "images.generate: gen-basic status fails"},
		{name: "a strict fault passes the run but a required library is limited", fault: "error-member-null",
			args: []string{"--feature", "chat.*", "--clients", "openai-node", "--require-clients", "openai-go"}, code: exitFailed,
			want:     map[string]results.Readiness{"openai-go": results.ReadyLimited},
			features: [][3]string{{"openai-go", "chat.stream", string(results.ReadyNot)}, {"openai-node", "chat.stream", string(results.ReadyYes)}},
			says:     "rule chat.error-member fails", stderr: "--require-clients: openai-go is LIMITED"},
		{name: "readiness alone does not decide", fault: "error-member-null",
			args: []string{"--feature", "chat.*", "--clients", "openai-go"}, code: exitOK,
			want: map[string]results.Readiness{"openai-go": results.ReadyLimited}},
		{name: "the strict tier left out leaves a library unknown", fault: "",
			args: []string{"--feature", "chat.*", "--tier", "verified,negative", "--clients", "openai-go"}, code: exitOK,
			features: [][3]string{{"openai-go", "chat.basic", string(results.ReadyUnknown)}},
			says:     "case chat-json-strict (strict tier) is not in this run"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clearEnv(t)
			cfg := refgateway.Config{}
			if tt.fault != "" {
				cfg.Faults = []string{tt.fault}
			}
			srv, err := conformancetest.Start(cfg, fixtures.FS)
			require.NoError(t, err)
			t.Cleanup(srv.Close)
			out := filepath.Join(t.TempDir(), "out")
			args := append([]string{"run", "--out", out, "--base-url", srv.BaseURL,
				"--text-key", srv.Keys.Text, "--messages-key", srv.Keys.Messages, "--image-key", srv.Keys.Image, "--alt-key", srv.Keys.Alt}, tt.args...)
			code, stdout, stderr := gw(t, args...)
			require.Equal(t, tt.code, code, "stdout:\n%s\nstderr:\n%s", stdout, stderr)
			assert.Contains(t, stderr, tt.stderr)

			f, err := os.Open(filepath.Join(out, "report.json"))
			require.NoError(t, err)
			defer f.Close()
			r, err := reportv1.ReadJSON(f)
			require.NoError(t, err)
			rows := map[string]results.ClientReadiness{}
			for _, row := range r.Readiness {
				rows[row.Client] = row
			}
			for client, want := range tt.want {
				assert.Equal(t, want, rows[client].Verdict, "%s: %v", client, rows[client].Because)
			}
			for _, want := range tt.features {
				var got results.Readiness
				for _, fr := range rows[want[0]].Features {
					if fr.Feature == want[1] {
						got = fr.Verdict
					}
				}
				assert.Equal(t, results.Readiness(want[2]), got, "%s × %s", want[0], want[1])
			}
			md, err := os.ReadFile(filepath.Join(out, "matrix.md"))
			require.NoError(t, err)
			assert.Contains(t, stdout, "CLIENT READINESS")
			assert.Contains(t, string(md), "### Client readiness")
			if tt.says != "" {
				assert.Contains(t, stdout, tt.says)
				assert.Contains(t, string(md), tt.says)
			}
		})
	}
}

// TestRunRequireClientsRefused: a name that is no library stops the run
// before any call, with a did-you-mean.
func TestRunRequireClientsRefused(t *testing.T) {
	clearEnv(t)
	code, _, stderr := gw(t, "run", "--out", t.TempDir(), "--require-clients", "openai-goo")
	assert.Equal(t, exitNotStart, code)
	assert.Contains(t, stderr, `did you mean "openai-go"?`)
}
