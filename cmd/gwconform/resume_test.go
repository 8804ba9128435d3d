package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
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

// An interrupted run (SIGINT, or SIGKILL: no report written, maybe a torn
// line) is finished by run --resume: the merged results.jsonl holds every
// case × model of an uninterrupted run exactly once, none cancelled, and
// the recording it goes on writing has an exchange for each.
func TestResumeAfterInterrupt(t *testing.T) {
	lat, err := refgateway.ParseLatency("chat=150ms,messages=150ms")
	require.NoError(t, err)
	srv, err := conformancetest.Start(refgateway.Config{Latency: lat}, fixtures.FS)
	require.NoError(t, err)
	defer srv.Close()
	clearEnv(t)
	// Keys are never written down: a resumed run is given them again.
	keys := []string{"--text-key", srv.Keys.Text, "--messages-key", srv.Keys.Messages, "--image-key", srv.Keys.Image, "--alt-key", srv.Keys.Alt}
	args := func(out string) []string {
		return append([]string{"run", "--out", out, "--base-url", srv.BaseURL, "--concurrency", "2", "--feature", "chat.*,messages.*"}, keys...)
	}

	whole := filepath.Join(t.TempDir(), "whole")
	code, stdout, stderr := gw(t, args(whole)...)
	require.Equal(t, exitOK, code, "stdout:\n%s\nstderr:\n%s", tail(stdout), stderr)
	want := verdicts(t, whole)
	require.Greater(t, len(want), 20)

	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGKILL} {
		t.Run(sig.String(), func(t *testing.T) {
			out, rec := filepath.Join(t.TempDir(), "out"), filepath.Join(t.TempDir(), "rec")
			cmd := exec.Command(os.Args[0], append(args(out), "--record", rec)...)
			cmd.Env = append(os.Environ(), asCLI+"=1")
			var cout, cerr syncBuffer
			cmd.Stdout, cmd.Stderr = &cout, &cerr
			require.NoError(t, cmd.Start())
			jsonl := filepath.Join(out, results.FileName)
			deadline := time.Now().Add(60 * time.Second)
			for {
				b, _ := os.ReadFile(jsonl)
				if bytes.Count(b, []byte("\n")) >= 5 {
					break
				}
				require.True(t, time.Now().Before(deadline), "no results after 60 s: %s", cerr.String())
				time.Sleep(20 * time.Millisecond)
			}
			require.NoError(t, cmd.Process.Signal(sig))
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case err = <-done:
			case <-time.After(30 * time.Second):
				cmd.Process.Kill()
				t.Fatalf("the run did not stop within 30 s of %s", sig)
			}
			require.Error(t, err, "the run was cut short")
			before, err := results.ReadFile(jsonl)
			require.NoError(t, err)
			require.Less(t, len(before), len(want), "the interrupt left calls to make")
			cancelled := 0
			for _, r := range before {
				if r.Cancelled {
					cancelled++
				}
			}
			t.Logf("%s left %d of %d results, %d of them cancelled", sig, len(before), len(want), cancelled)
			if sig == syscall.SIGKILL {
				assert.NoFileExists(t, filepath.Join(out, "report.json"), "SIGKILL writes no report")
			} else {
				// Calls wait 150 ms at the gateway, up to four at once: the
				// interrupt cuts some short, and resume must make them again.
				assert.Positive(t, cancelled, "calls in flight at the interrupt are marked cancelled")
			}

			code, stdout, stderr := gw(t, append([]string{"run", "--out", out, "--resume"}, keys...)...)
			require.Equal(t, exitOK, code, "stdout:\n%s\nstderr:\n%s", tail(stdout), stderr)
			assert.Contains(t, stdout, "resuming "+out)
			rs, err := results.ReadFile(jsonl)
			require.NoError(t, err)
			seen := map[key]int{}
			for _, r := range rs {
				seen[key{r.Case, r.Model}]++
				assert.False(t, r.Cancelled, "%s/%s is still cancelled", r.Case, r.Model)
				assert.Equal(t, vocab.StatusPass, r.Status, "%s/%s: %v", r.Case, r.Model, r.Reasons)
				if assert.NotNil(t, r.Transcript, "%s/%s", r.Case, r.Model) {
					assert.FileExists(t, r.Transcript.Exchange, "the resumed run records to the same recording")
				}
			}
			for k := range want {
				assert.Equal(t, 1, seen[k], "%v", k)
			}
			assert.Len(t, seen, len(want), "no case × model beyond the uninterrupted run's")
			assert.FileExists(t, filepath.Join(out, "report.json"))
		})
	}

	t.Run("another selection is refused", func(t *testing.T) {
		out := filepath.Join(t.TempDir(), "out")
		code, _, stderr := gw(t, append(args(out), "--max-calls", "3")...)
		require.Equal(t, exitIncomplete, code, "the budget leaves verified cases out: %s", stderr)
		code, _, stderr = gw(t, append([]string{"run", "--out", out, "--resume", "--feature", "chat.*"}, keys...)...)
		assert.Equal(t, exitNotStart, code)
		assert.Contains(t, stderr, "holds another run")
		assert.Contains(t, stderr, "--feature: chat.*,messages.*, now chat.*")
		code, _, stderr = gw(t, "run", "--out", filepath.Join(t.TempDir(), "none"), "--resume")
		assert.Equal(t, exitNotStart, code)
		assert.Contains(t, stderr, "--resume continues the run recorded in --out")
	})
}
