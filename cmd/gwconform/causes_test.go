package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gwconform/gwconform/conformance/conformancetest"
	"github.com/gwconform/gwconform/conformance/refgateway"
	"github.com/gwconform/gwconform/fixtures"
	reportv1 "github.com/gwconform/gwconform/report/apis/v1"
)

// A gateway without its image routes fails every image case one way, and
// every report says so once: report.json's causes hold one deciding
// cause, "HTTP 404: Route not found", and matrix.md and report.html name
// it with the command that reproduces its example.
func TestRunReportsCauses(t *testing.T) {
	clearEnv(t)
	srv, err := conformancetest.Start(refgateway.Config{Faults: []string{"image-routes-missing"}}, fixtures.FS)
	require.NoError(t, err)
	t.Cleanup(srv.Close)
	out := filepath.Join(t.TempDir(), "out")
	code, stdout, stderr := gw(t, "run", "--out", out, "--base-url", srv.BaseURL, "--image-key", srv.Keys.Image,
		"--tier", "verified,negative", "--feature", "images.generate,images.edit.json")
	require.Equal(t, exitFailed, code, "stdout:\n%s\nstderr:\n%s", stdout, stderr)

	f, err := os.Open(filepath.Join(out, "report.json"))
	require.NoError(t, err)
	defer f.Close()
	r, err := reportv1.ReadJSON(f)
	require.NoError(t, err)
	require.Len(t, r.Causes, 1, "one cause: %+v", r.Causes)
	c := r.Causes[0]
	assert.Equal(t, "HTTP 404: Route not found", c.Cause)
	assert.True(t, c.Deciding)
	assert.Equal(t, r.Total.Fail+r.Total.Error, c.Results, "every failure is of that cause")
	assert.Positive(t, c.Cells)
	require.NotEmpty(t, c.Cases)
	assert.Contains(t, c.Cases, c.Example.Case)
	t.Logf("%s: %d results in %d cells, cases %v, e.g. %s × %s", c.Cause, c.Results, c.Cells, c.Cases, c.Example.Case, c.Example.Model)
	command := "gwconform show --out . --model " + c.Example.Model + " --curl " + c.Example.Case
	// The console gives the same example for the cause (issue 34), though
	// it read the results as they finished.
	assert.Contains(t, stdout, "    e.g. "+c.Example.Case+" × "+c.Example.Model+": ")
	assert.Contains(t, stdout, "--model "+c.Example.Model+" --curl "+c.Example.Case, "the next step sends the same example")

	// The command runs as written, in the report's directory.
	args := strings.Fields(strings.TrimPrefix(command, "gwconform "))
	t.Chdir(out)
	code, stdout, stderr = gw(t, args...)
	require.Equal(t, exitOK, code, stderr)
	assert.Contains(t, stdout, c.Example.Case+" × "+c.Example.Model+": FAIL")
	assert.Contains(t, stdout, `-H "Authorization: Bearer ${GWCONFORM_IMAGE_KEY}"`)

	md, err := os.ReadFile(filepath.Join(out, "matrix.md"))
	require.NoError(t, err)
	assert.Equal(t, 1, strings.Count(string(md), "\n- ❌ **HTTP 404: Route not found**"), "one line for the cause")
	assert.Contains(t, string(md), "`"+command+"`")
	page, err := os.ReadFile(filepath.Join(out, "report.html"))
	require.NoError(t, err)
	assert.Contains(t, string(page), `"cause":"HTTP 404: Route not found"`, "report.html's data carries the cause its script draws")
	assert.Contains(t, string(page), `<section id="causes"`)
}
