package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gwconform/gwconform/conformance/conformancetest"
	"github.com/gwconform/gwconform/conformance/refgateway"
	"github.com/gwconform/gwconform/conformance/results"
	"github.com/gwconform/gwconform/conformance/vocab"
	"github.com/gwconform/gwconform/fixtures"
)

// asCLI makes the test binary act as gwconform itself, so a test can run the
// real command in a child process and send it signals.
const asCLI = "GWCONFORM_TEST_AS_CLI"

func TestMain(m *testing.M) {
	if os.Getenv(asCLI) == "1" {
		os.Exit(dispatch(os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// syncBuffer is a bytes.Buffer the child's output copier and the test can
// use at once.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// Ctrl-C during a run keeps every finished result: results.jsonl holds one
// whole line per finished case, in verdict order (verified and negative
// before strict and explore), and the reports are written with the verdict
// incomplete, "interrupted after N of M", never pass; the run exits 3, and
// the calls the interrupt cut count neither way.
func TestInterruptKeepsFinishedResults(t *testing.T) {
	lat, err := refgateway.ParseLatency("images.generations=200ms,images.edits=200ms")
	require.NoError(t, err)
	srv, err := conformancetest.Start(refgateway.Config{Latency: lat}, fixtures.FS)
	require.NoError(t, err)
	defer srv.Close()

	out := t.TempDir()
	cmd := exec.Command(os.Args[0], "run", "--out", out, "--base-url", srv.BaseURL, "--concurrency", "1",
		"--feature", "images.*",
		"--text-key", srv.Keys.Text, "--messages-key", srv.Keys.Messages, "--image-key", srv.Keys.Image, "--alt-key", srv.Keys.Alt)
	cmd.Env = append(envWithout("GWCONFORM_"), asCLI+"=1")
	var stdout, stderr syncBuffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	require.NoError(t, cmd.Start())

	jsonl := filepath.Join(out, "results.jsonl")
	deadline := time.Now().Add(60 * time.Second)
	for {
		b, _ := os.ReadFile(jsonl)
		if bytes.Count(b, []byte("\n")) >= 3 {
			break
		}
		require.True(t, time.Now().Before(deadline), "no results after 60 s: %s", stderr.String())
		time.Sleep(50 * time.Millisecond)
	}
	require.NoError(t, cmd.Process.Signal(syscall.SIGINT))
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err = <-done:
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		t.Fatal("the run did not stop within 30 s of SIGINT")
	}
	var exit *exec.ExitError
	require.ErrorAs(t, err, &exit)
	assert.Equal(t, exitIncomplete, exit.ExitCode(), "stderr: %s", stderr.String())
	assert.Contains(t, stderr.String(), "interrupted after")

	rs, err := results.ReadFile(jsonl)
	require.NoError(t, err, "every line of results.jsonl must be whole")
	assert.GreaterOrEqual(t, len(rs), 3)
	rank := map[vocab.Tier]int{vocab.TierVerified: 0, vocab.TierNegative: 0, vocab.TierStrict: 1, vocab.TierExplore: 2}
	for i, r := range rs {
		assert.NotEmpty(t, r.Case)
		assert.NotEmpty(t, r.Status)
		if i > 0 {
			assert.LessOrEqual(t, rank[rs[i-1].Tier], rank[r.Tier], "%s (%s) ran after %s (%s): what decides the verdict runs first", r.Case, r.Tier, rs[i-1].Case, rs[i-1].Tier)
		}
		if r.Cancelled {
			assert.False(t, r.Failed(), "a call the interrupt cut is no failure")
		}
	}
	b, err := os.ReadFile(jsonl)
	require.NoError(t, err)
	assert.True(t, strings.HasSuffix(string(b), "\n"), "the last line is complete")

	rep, err := readReport(filepath.Join(out, "report.json"))
	require.NoError(t, err)
	assert.Equal(t, "incomplete", rep.Verdict)
	assert.Regexp(t, `^incomplete: interrupted after \d+ of \d+ calls; \d+ verified/negative cases? not run`, rep.Headline)
	require.NotNil(t, rep.Metadata.Completion)
	assert.True(t, rep.Metadata.Completion.Interrupted)
	md, err := os.ReadFile(filepath.Join(out, "matrix.md"))
	require.NoError(t, err)
	assert.NotContains(t, strings.SplitN(string(md), "\n", 2)[0], "✅", "the matrix's first line never says pass")
	assert.Contains(t, string(md), "interrupted after")
}

// envWithout is the process's environment less the variables with that
// prefix: unset, as a clean CI job has them, never set empty.
func envWithout(prefix string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, prefix) {
			env = append(env, kv)
		}
	}
	return env
}
