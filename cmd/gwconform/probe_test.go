package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gwconform/gwconform/cases"
	"github.com/gwconform/gwconform/conformance/conformancetest"
	"github.com/gwconform/gwconform/conformance/refgateway"
	"github.com/gwconform/gwconform/conformance/results"
	"github.com/gwconform/gwconform/conformance/vocab"
	"github.com/gwconform/gwconform/fixtures"
)

// Against a gateway listing two models the catalog does not know, probe
// finds both, runs their families, prints their rows and a YAML snippet;
// pasted into the catalog, the snippet makes the next run include them.
func TestProbeSnippetAddsModelsToTheNextRun(t *testing.T) {
	if testing.Short() {
		t.Skip("runs two model families")
	}
	clearEnv(t)
	srv, err := conformancetest.Start(refgateway.Config{ExtraModels: []refgateway.ExtraModel{
		{Kind: "image", ID: "gen-image-3-nova"}, {Kind: "messages", ID: "msg-nova-1"},
	}}, fixtures.FS)
	require.NoError(t, err)
	defer srv.Close()
	target := []string{"--base-url", srv.BaseURL, "--public-image-url", srv.PublicImageURL,
		"--text-key", srv.Keys.Text, "--messages-key", srv.Keys.Messages, "--image-key", srv.Keys.Image, "--alt-key", srv.Keys.Alt}

	code, out, stderr := gw(t, append([]string{"probe", "--tier", "verified", "--out", t.TempDir()}, target...)...)
	require.Equal(t, exitOK, code, stderr)
	assert.Contains(t, out, "new model gen-image-3-nova (image key)")
	assert.Contains(t, out, "new model msg-nova-1 (messages key)")
	assert.Regexp(t, `gen-image-3-nova\s+images\.edit\.json\s+pass`, out)
	assert.Regexp(t, `msg-nova-1\s+messages\.stream\s+pass`, out)

	snippet := out[strings.Index(out, "model_additions:"):]
	snippet = snippet[:strings.Index(snippet, "\n\n")+1]

	dir := t.TempDir()
	require.NoError(t, fs.WalkDir(cases.FS, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(cases.FS, p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dir, p), b, 0o644)
	}))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "models_added.yaml"), []byte(snippet), 0o644))

	runOut := filepath.Join(t.TempDir(), "run")
	code, stdout, stderr := gw(t, append([]string{"run", "--cases", dir, "--model", "gen-image-3-nova,msg-nova-1", "--tier", "verified", "--out", runOut}, target...)...)
	require.Equal(t, exitOK, code, "%s\n%s", tail(stdout), stderr)
	rs, err := results.ReadFile(filepath.Join(runOut, "results.jsonl"))
	require.NoError(t, err)
	ran := map[string]int{}
	for _, r := range rs {
		assert.Equal(t, vocab.StatusPass, r.Status, "%s %s: %v", r.Model, r.Case, r.Reasons)
		ran[r.Model]++
	}
	assert.Positive(t, ran["gen-image-3-nova"])
	assert.Positive(t, ran["msg-nova-1"])
}

func TestProbeFlags(t *testing.T) {
	clearEnv(t)
	code, _, stderr := gw(t, "probe", "--model-id", "x")
	assert.Equal(t, exitNotStart, code)
	assert.Contains(t, stderr, "--family")
	code, _, _ = gw(t, "probe", "--model-id", "x", "--family", "video")
	assert.Equal(t, exitNotStart, code)
}
