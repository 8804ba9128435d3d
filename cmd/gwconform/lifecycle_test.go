package main

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gwconform/gwconform/conformance/conformancetest"
	"github.com/gwconform/gwconform/conformance/refgateway"
	"github.com/gwconform/gwconform/conformance/results"
	"github.com/gwconform/gwconform/conformance/vocab"
	"github.com/gwconform/gwconform/fixtures"
	"github.com/gwconform/gwconform/report"
	reportv1 "github.com/gwconform/gwconform/report/apis/v1"
)

// --max-calls spends on what decides the verdict first, and a budget that
// leaves verified or negative cases out ends incomplete (exit 3), never pass.
func TestBudgetSpendsOnTheVerdictFirst(t *testing.T) {
	clearEnv(t)
	out := filepath.Join(t.TempDir(), "out")
	code, stdout, stderr := gw(t, "run", "--out", out, "--max-calls", "40")
	require.Equal(t, exitIncomplete, code, "stdout:\n%s\nstderr:\n%s", tail(stdout), stderr)
	made, counted := 0, 0
	for _, r := range readResultsFile(t, out) {
		if r.Status == vocab.StatusSkip {
			continue
		}
		made++
		if r.Decides(false) {
			counted++
		}
	}
	assert.Equal(t, 40, made)
	assert.Equal(t, 40, counted, "every call the budget allowed checks a verified or negative case")
	rep := readJSONReport(t, out)
	assert.Equal(t, "incomplete", rep.Verdict)
	assert.Regexp(t, `^incomplete: the budget left \d+ verified/negative cases of \d+ unchecked`, rep.Headline)
	t.Logf("--max-calls 40: %d verified/negative checked; %s", counted, rep.Headline)
}

// --rerun-failed after a run that did not finish makes the calls it never
// made: the run ends with every call of the plan, never green by omission.
func TestRerunFailedMakesTheCallsNeverMade(t *testing.T) {
	clearEnv(t)
	out := filepath.Join(t.TempDir(), "out")
	code, stdout, stderr := gw(t, "run", "--out", out, "--feature", "chat.*,models.list")
	require.Equal(t, exitOK, code, "stdout:\n%s\nstderr:\n%s", tail(stdout), stderr)
	whole := readResultsFile(t, out)
	require.Greater(t, len(whole), 6)

	// What a SIGKILL leaves: the first lines, and one cut by the interrupt.
	// The cut one is a strict case's, which decides nothing: a call never
	// finished is made again whatever its tier (the run's line order
	// varies, so it is picked, not taken from a place).
	i := slices.IndexFunc(whole, func(r results.Result) bool { return r.Tier == vocab.TierStrict })
	require.GreaterOrEqual(t, i, 0, "the selection has a strict case")
	cut := whole[i]
	kept := slices.Delete(slices.Clone(whole), i, i+1)[:3]
	cut.Status, cut.Cancelled, cut.Reasons = vocab.StatusError, true, []vocab.Reason{{Check: "transport", Message: "context canceled"}}
	require.NoError(t, results.WriteFile(filepath.Join(out, results.FileName), append(kept, cut)))

	code, stdout, stderr = gw(t, "run", "--out", out, "--rerun-failed")
	require.Equal(t, exitOK, code, "stdout:\n%s\nstderr:\n%s", tail(stdout), stderr)
	assert.Contains(t, stdout, "made "+strconv.Itoa(len(whole)-3)+" calls the run never finished")
	assert.Regexp(t, `\d+ results: \d+ made now, in [0-9.]+m?s; \d+ kept from the run before`, stdout, "the summary's time is the re-run's, said so")
	after := readResultsFile(t, out)
	assert.Len(t, after, len(whole), "each call of the plan once")
	type key struct{ caseID, model string }
	seen := map[key]bool{}
	for _, r := range after {
		assert.False(t, seen[key{r.Case, r.Model}], "%s/%s twice", r.Case, r.Model)
		seen[key{r.Case, r.Model}] = true
		assert.False(t, r.Cancelled)
	}
	assert.Equal(t, "pass", readJSONReport(t, out).Verdict)
}

// merge keeps the gateway, the shards' span and their model map, names a
// missing shard (incomplete, exit 3), and refuses shards of different
// gateways or catalogs, or that sent a model under different ids (exit 2).
func TestMergeShards(t *testing.T) {
	clearEnv(t)
	start := time.Date(2026, 11, 20, 2, 0, 0, 0, time.UTC)
	shard := func(t *testing.T, index, baseURL, catalogHash string, offset time.Duration, status vocab.Status, names ...reportv1.ModelName) string {
		dir := filepath.Join(t.TempDir(), "shard-"+index)
		require.NoError(t, os.MkdirAll(dir, 0o755))
		rs := []results.Result{{Case: "case-" + index, Feature: "chat.basic", Model: "gen-5.5", Tier: vocab.TierVerified, Status: status,
			Started: start.Add(offset)}}
		require.NoError(t, results.WriteFile(filepath.Join(dir, results.FileName), rs))
		meta := reportv1.Meta{BaseURL: baseURL, CatalogHash: catalogHash, Shard: index + "/2",
			Started: start.Add(offset), Finished: start.Add(offset + 10*time.Minute), ModelMap: names}
		require.NoError(t, report.WriteAll(dir, report.Build(meta, rs)))
		return dir
	}
	const gateway = "https://gateway.test"
	t.Run("both shards", func(t *testing.T) {
		out := filepath.Join(t.TempDir(), "merged")
		code, stdout, stderr := gw(t, "merge", out, shard(t, "1", gateway, "abc", 0, vocab.StatusPass), shard(t, "2", gateway, "abc", 5*time.Minute, vocab.StatusPass))
		require.Equal(t, exitOK, code, "stdout:\n%s\nstderr:\n%s", stdout, stderr)
		rep := readJSONReport(t, out)
		assert.Equal(t, gateway, rep.Metadata.BaseURL, "the shards' gateway, not the reference gateway")
		assert.Equal(t, start, rep.Metadata.Started.UTC())
		assert.Equal(t, start.Add(15*time.Minute), rep.Metadata.Finished.UTC(), "the last shard's finish, not the merge's")
		assert.Equal(t, "pass", rep.Verdict)
	})
	t.Run("shard 2 missing", func(t *testing.T) {
		out := filepath.Join(t.TempDir(), "merged")
		code, stdout, stderr := gw(t, "merge", out, shard(t, "1", gateway, "abc", 0, vocab.StatusPass))
		require.Equal(t, exitIncomplete, code, "stdout:\n%s\nstderr:\n%s", stdout, stderr)
		rep := readJSONReport(t, out)
		assert.Equal(t, "incomplete", rep.Verdict)
		assert.Equal(t, "incomplete: shard 2/2 missing; nothing that ran failed", rep.Headline)
		assert.Contains(t, stdout, "shard 2/2 missing")
		assert.Contains(t, stdout, "\n  - shard 2/2 missing: its results are not in this report\n", "the notes, as run says them")
	})
	t.Run("a failure exits 1", func(t *testing.T) {
		out := filepath.Join(t.TempDir(), "merged")
		code, _, stderr := gw(t, "merge", out, shard(t, "1", gateway, "abc", 0, vocab.StatusFail), shard(t, "2", gateway, "abc", 0, vocab.StatusPass))
		assert.Equal(t, exitFailed, code, stderr)
	})
	t.Run("two gateways are refused", func(t *testing.T) {
		out := filepath.Join(t.TempDir(), "merged")
		code, _, stderr := gw(t, "merge", out, shard(t, "1", gateway, "abc", 0, vocab.StatusPass), shard(t, "2", "", "abc", 0, vocab.StatusPass))
		assert.Equal(t, exitNotStart, code)
		assert.Contains(t, stderr, "tested https://gateway.test")
		assert.Contains(t, stderr, "tested reference gateway (in-process)")
		assert.NoFileExists(t, filepath.Join(out, report.FileJSON))
	})
	t.Run("the same shard twice is refused", func(t *testing.T) {
		out := filepath.Join(t.TempDir(), "merged")
		one := shard(t, "1", gateway, "abc", 0, vocab.StatusPass)
		code, _, stderr := gw(t, "merge", out, one, one)
		assert.Equal(t, exitNotStart, code)
		assert.Contains(t, stderr, "holds the same results as "+one+": give each shard or run once")
		assert.NotContains(t, stderr, "merge: merge:")
	})
	t.Run("two catalogs are refused", func(t *testing.T) {
		out := filepath.Join(t.TempDir(), "merged")
		code, _, stderr := gw(t, "merge", out, shard(t, "1", gateway, "abc", 0, vocab.StatusPass), shard(t, "2", gateway, "def", 0, vocab.StatusPass))
		assert.Equal(t, exitNotStart, code)
		assert.Contains(t, stderr, "ran catalog abc")
	})
	resolved := reportv1.ModelName{Spec: "gen-5.5", Gateway: "gpt-5.5", Key: "text", Source: reportv1.NameResolved}
	t.Run("the shards' model map is kept", func(t *testing.T) {
		out := filepath.Join(t.TempDir(), "merged")
		code, stdout, stderr := gw(t, "merge", out, shard(t, "1", gateway, "abc", 0, vocab.StatusPass, resolved), shard(t, "2", gateway, "abc", 0, vocab.StatusPass, resolved))
		require.Equal(t, exitOK, code, "stdout:\n%s\nstderr:\n%s", stdout, stderr)
		assert.Equal(t, []reportv1.ModelName{resolved}, readJSONReport(t, out).Metadata.ModelMap)
		md, err := os.ReadFile(filepath.Join(out, report.FileMarkdown))
		require.NoError(t, err)
		assert.Contains(t, string(md), "| feature | gen-5.5 → gpt-5.5 |")
	})
	t.Run("two ids for one model are refused", func(t *testing.T) {
		out := filepath.Join(t.TempDir(), "merged")
		given := reportv1.ModelName{Spec: "gen-5.5", Gateway: "company-chat", Key: "text", Source: reportv1.NameGiven}
		code, _, stderr := gw(t, "merge", out, shard(t, "1", gateway, "abc", 0, vocab.StatusPass, resolved), shard(t, "2", gateway, "abc", 0, vocab.StatusPass, given))
		assert.Equal(t, exitNotStart, code)
		assert.Regexp(t, `gwconform merge: \S+shard-1 sent gen-5.5 as gpt-5.5, \S+shard-2 sent it as company-chat: runs merged name each model alike`, stderr)
		assert.NoFileExists(t, filepath.Join(out, report.FileJSON))
	})
	t.Run("re-rendering one run keeps its gateway and duration", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "run")
		require.NoError(t, os.MkdirAll(dir, 0o755))
		rs := []results.Result{{Case: "c", Feature: "chat.basic", Model: "gen-5.5", Tier: vocab.TierVerified, Status: vocab.StatusPass, Started: start}}
		require.NoError(t, results.WriteFile(filepath.Join(dir, results.FileName), rs))
		require.NoError(t, report.WriteAll(dir, report.Build(reportv1.Meta{BaseURL: gateway, CatalogHash: "abc", Started: start, Finished: start.Add(42 * time.Minute)}, rs)))
		code, _, stderr := gw(t, "merge", dir, filepath.Join(dir, results.FileName))
		require.Equal(t, exitOK, code, stderr)
		rep := readJSONReport(t, dir)
		assert.Equal(t, gateway, rep.Metadata.BaseURL)
		assert.Equal(t, 42*time.Minute, rep.Metadata.Finished.Sub(rep.Metadata.Started))
	})
}

// A run records the model map in report.json, heads the model's matrix
// column with both ids, and says a given name its key's list lacks in the
// report's notes and the console's alike.
func TestRunRecordsTheModelMap(t *testing.T) {
	clearEnv(t)
	srv, err := conformancetest.Start(refgateway.Config{}, fixtures.FS)
	require.NoError(t, err)
	t.Cleanup(srv.Close)
	out := filepath.Join(t.TempDir(), "out")
	_, stdout, stderr := gw(t, "run", "--out", out, "--base-url", srv.BaseURL, "--text-key", srv.Keys.Text,
		"--feature", "chat.basic", "--model", "gen-5.5", "--model-map", "gen-5.5=company-chat")
	const note = "company-chat (given for gen-5.5 with --model-map) is not in the text key's list: sent anyway (spec 1: a list does not prove what is served)"

	rep := readJSONReport(t, out)
	assert.Contains(t, rep.Metadata.ModelMap, reportv1.ModelName{Spec: "gen-5.5", Gateway: "company-chat", Key: "text", Source: reportv1.NameGiven, Unlisted: true})
	assert.Contains(t, rep.Notes, note)
	assert.Contains(t, stdout, "  - "+note+"\n", "the console's notes, stderr:\n%s", stderr)
	md, err := os.ReadFile(filepath.Join(out, report.FileMarkdown))
	require.NoError(t, err)
	assert.Contains(t, string(md), "| feature | gen-5.5 → company-chat |")
	for _, r := range readResultsFile(t, out) {
		assert.Equal(t, "gen-5.5", r.Model, "results stay keyed by the spec id")
	}
}
