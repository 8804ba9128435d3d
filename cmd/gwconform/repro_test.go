package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gwconform/gwconform/conformance/conformancetest"
	"github.com/gwconform/gwconform/conformance/refgateway"
	"github.com/gwconform/gwconform/fixtures"
	"github.com/gwconform/gwconform/report"
)

// reportDataRE finds report.html's data block.
var reportDataRE = regexp.MustCompile(`(?s)<script type="application/json" id="report-data">(.*?)</script>`)

// Every reproduction a run writes works as copied: each curl command of
// report.json and report.html names the key's variable, carries the run's
// headers (a variable as its ${NAME}) and parses as a shell command; show
// --curl sends the run's headers from its manifest.
func TestReproductionsWorkAsCopied(t *testing.T) {
	clearEnv(t)
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash to parse the commands")
	}
	t.Setenv("RELAY_TOKEN", "relay-token-0123456789")
	srv, err := conformancetest.Start(refgateway.Config{}, fixtures.FS)
	require.NoError(t, err)
	t.Cleanup(srv.Close)
	out := filepath.Join(t.TempDir(), "out")
	code, stdout, stderr := gw2(t, "run", out,
		[]string{"--base-url", srv.BaseURL, "--text-key", srv.Keys.Text, "--image-key", srv.Keys.Image, "--messages-key", srv.Keys.Messages, "--alt-key", srv.Keys.Alt},
		[]string{"--case", "chat-json,gen-basic,gen-text-key-refused,models-text-list", "-H", "X-Team: blue", "--image-header", "X-Relay-Token: ${RELAY_TOKEN}"})
	require.Equal(t, exitOK, code, "stdout:\n%s\nstderr:\n%s", tail(stdout), stderr)

	var commands []string
	b, err := os.ReadFile(filepath.Join(out, report.FileJSON))
	require.NoError(t, err)
	var rep struct {
		Results []struct {
			Case    string `json:"case"`
			Key     string `json:"key"`
			Request struct {
				Path string `json:"path"`
				Curl string `json:"curl"`
			} `json:"request"`
		} `json:"results"`
	}
	require.NoError(t, json.Unmarshal(b, &rep))
	page, err := os.ReadFile(filepath.Join(out, report.FileHTML))
	require.NoError(t, err)
	m := reportDataRE.FindSubmatch(page)
	require.NotNil(t, m, "report.html's data block")
	var html struct {
		Report struct {
			Results []struct {
				Request struct {
					Curl string `json:"curl"`
				} `json:"request"`
			} `json:"results"`
		} `json:"report"`
	}
	require.NoError(t, json.Unmarshal(m[1], &html))
	require.Len(t, html.Report.Results, len(rep.Results))
	for i, r := range rep.Results {
		require.NotEmpty(t, r.Request.Curl, r.Case)
		assert.Equal(t, r.Request.Curl, html.Report.Results[i].Request.Curl, "report.html shows report.json's command")
		commands = append(commands, r.Request.Curl)
		assert.Contains(t, r.Request.Curl, `"Authorization: Bearer ${GWCONFORM_`+strings.ToUpper(r.Key)+`_KEY}"`, r.Case)
		assert.Contains(t, r.Request.Curl, `"X-Team: blue"`, r.Case)
		// The image endpoints' headers go with any key sent there.
		assert.Equal(t, strings.HasPrefix(r.Request.Path, "/v1/images/"), strings.Contains(r.Request.Curl, `"X-Relay-Token: ${RELAY_TOKEN}"`), r.Case)
		assert.NotContains(t, r.Request.Curl, "REDACTED", r.Case)
		assert.NotContains(t, r.Request.Curl, "relay-token-0123456789", r.Case)
	}
	code, stdout, stderr = gw(t, "show", "--out", out, "--curl", "gen-basic")
	require.Equal(t, exitOK, code, stderr)
	shown := stdout[strings.Index(stdout, "curl -sS"):]
	assert.Contains(t, shown, `"X-Relay-Token: ${RELAY_TOKEN}"`, "show --curl sends the run's headers")
	commands = append(commands, shown)
	for _, cmd := range commands {
		parse := exec.Command("bash", "-n", "-c", cmd)
		outp, err := parse.CombinedOutput()
		assert.NoError(t, err, "the shell parses it:\n%s\n%s", cmd, outp)
	}
}
