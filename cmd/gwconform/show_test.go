package main

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gwconform/gwconform/conformance/vocab"

	"github.com/gwconform/gwconform/conformance/results"

	"github.com/gwconform/gwconform/conformance/conformancetest"
	"github.com/gwconform/gwconform/conformance/refgateway"
	"github.com/gwconform/gwconform/fixtures"
)

// show prints one failing result whole, and its curl command, pasted into
// a shell, sends the same request again: the key from its variable, a JSON
// body inline, multipart files written beside the run.
func TestShowCurlReproducesTheRequest(t *testing.T) {
	clearEnv(t)
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("no curl on this machine (.ci/run installs it)")
	}
	srv, err := conformancetest.Start(refgateway.Config{Faults: []string{"chat-no-done"}}, fixtures.FS)
	require.NoError(t, err)
	t.Cleanup(srv.Close)
	out := filepath.Join(t.TempDir(), "out")
	code, stdout, stderr := gw(t, "run", "--out", out, "--base-url", srv.BaseURL, "--text-key", srv.Keys.Text, "--image-key", srv.Keys.Image,
		"--header", "X-Trace: show-test", "--case", "chat-stream,edit-multipart-one-ref")
	require.Equal(t, exitFailed, code, "stdout:\n%s\nstderr:\n%s", stdout, stderr)

	for _, tc := range []struct {
		caseID, model string
		says          []string // in show's output
		wantStatus    string   // the curl answer's status line
	}{
		{"chat-stream", "", []string{"chat-stream × gen-5.5: FAIL (verified tier", "chat.done-missing", "transcript:", `-H "Authorization: Bearer ${GWCONFORM_TEXT_KEY}"`, "--data-raw '{"}, "HTTP/1.1 200"},
		{"edit-multipart-one-ref", "gen-image-2", []string{"edit-multipart-one-ref × gen-image-2: PASS", `-H "Authorization: Bearer ${GWCONFORM_IMAGE_KEY}"`, "-F 'image=@"}, "HTTP/1.1 200"},
	} {
		t.Run(tc.caseID, func(t *testing.T) {
			args := []string{"show", "--out", out, "--curl", "-H", "X-Trace: show-test"}
			if tc.model != "" {
				args = append(args, "--model", tc.model)
			}
			code, stdout, stderr := gw(t, append(args, tc.caseID)...)
			require.Equal(t, exitOK, code, stderr)
			for _, s := range tc.says {
				assert.Contains(t, stdout, s)
			}
			assert.Contains(t, stdout, `-H "X-Trace: show-test"`, "the header the run sent, given to show as to run")
			for _, key := range []string{srv.Keys.Text, srv.Keys.Image} {
				assert.NotContains(t, stdout, key, "never a key's value")
			}
			cmd := stdout[strings.Index(stdout, "curl -sS"):]
			sh := exec.Command("sh", "-c", cmd)
			sh.Env = append(sh.Environ(), "GWCONFORM_BASE_URL="+srv.BaseURL, "GWCONFORM_TEXT_KEY="+srv.Keys.Text, "GWCONFORM_IMAGE_KEY="+srv.Keys.Image)
			answer, err := sh.CombinedOutput()
			require.NoError(t, err, "%s\n%s", cmd, answer)
			assert.True(t, strings.HasPrefix(string(answer), tc.wantStatus), "%s\n%.400s", cmd, answer)
		})
	}

	code, _, stderr = gw(t, "show", "--out", out, "--model", "gen-9", "chat-stream")
	assert.Equal(t, exitNotStart, code)
	assert.Contains(t, stderr, `case chat-stream has no result for model "gen-9"; it has gen-5.5`)
	code, _, stderr = gw(t, "show", "--out", out, "no-such-case")
	assert.Equal(t, exitNotStart, code)
	assert.Contains(t, stderr, `no result for case "no-such-case"`)
}

// show takes its flags after the case too, as a command is written
// (gwconform show --curl CASE --model MODEL), and says what it expected of
// a case it does not find.
func TestShowFlagsAfterTheCase(t *testing.T) {
	clearEnv(t)
	out := t.TempDir()
	rs := []results.Result{
		{Case: "chat-json", Feature: "chat.basic", Model: "gen-5.5", Tier: vocab.TierVerified, Status: vocab.StatusPass,
			Notes: []string{"temperature 0.2 is listed in 4.2, no verified value (spec 4.2/temperature)"}},
		{Case: "chat-json", Feature: "chat.basic", Model: "gen-6", Tier: vocab.TierVerified, Status: vocab.StatusFail},
	}
	require.NoError(t, results.WriteFile(filepath.Join(out, results.FileName), rs))
	code, stdout, stderr := gw(t, "show", "--out", out, "chat-json", "--model", "gen-5.5")
	require.Equal(t, exitOK, code, stderr)
	assert.Contains(t, stdout, "chat-json × gen-5.5: PASS")
	assert.Contains(t, stdout, "  note: temperature 0.2 is listed in 4.2, no verified value (spec 4.2/temperature)", "a note is shown with the row it cites")
	code, _, stderr = gw(t, "show", "--out", out, "chat-jsn")
	assert.Equal(t, exitNotStart, code)
	assert.Contains(t, stderr, `no result for case "chat-jsn" in this run; did you mean "chat-json"?`)
}

// TestShowPrintsNotes: an observed exchange's notes are shown with its
// reasons, and a relay's client side says it was reported aside.
func TestShowPrintsNotes(t *testing.T) {
	var b strings.Builder
	printResult(&b, results.Result{Case: "observed-000004", Model: "client: OpenAI/JS", Status: vocab.StatusPass, Tier: vocab.TierVerified, Observed: true,
		Side: results.SideClient, Aside: true, Notes: []string{"temperature is listed in 4.2, with no verified value (spec 4.2/temperature)"}})
	assert.Contains(t, b.String(), "note: temperature is listed in 4.2")
	assert.Contains(t, b.String(), "reported aside")
}
