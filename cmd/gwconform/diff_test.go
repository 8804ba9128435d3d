package main

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gwconform/gwconform/conformance/results"
	"github.com/gwconform/gwconform/conformance/vocab"
	"github.com/gwconform/gwconform/report"
	reportv1 "github.com/gwconform/gwconform/report/apis/v1"
)

// writeNight writes a report.json of one case per status given, and returns its path.
func writeNight(t *testing.T, statuses ...vocab.Status) string {
	t.Helper()
	return writeNamedNight(t, nil, statuses...)
}

// writeNamedNight is writeNight with a model map.
func writeNamedNight(t *testing.T, names []reportv1.ModelName, statuses ...vocab.Status) string {
	t.Helper()
	var rs []results.Result
	for i, st := range statuses {
		rs = append(rs, results.Result{Case: "c" + string(rune('a'+i)), Feature: "chat.basic", Model: "gen-5.5", Tier: vocab.TierVerified,
			Status: st, Reasons: []vocab.Reason{}, Attempts: 1, Started: time.Date(2026, 3, 14, 3, 17, 0, 0, time.UTC)})
	}
	path := filepath.Join(t.TempDir(), report.FileJSON)
	f, err := os.Create(path)
	require.NoError(t, err)
	defer f.Close()
	require.NoError(t, report.Build(reportv1.Meta{SuiteVersion: "dev", ModelMap: names}, rs).WriteJSON(f))
	return path
}

func TestDiffExitCodes(t *testing.T) {
	clearEnv(t)
	pass := writeNamedNight(t, []reportv1.ModelName{{Spec: "gen-5.5", Gateway: "gpt-5.5", Key: "text", Source: reportv1.NameResolved}}, vocab.StatusPass, vocab.StatusPass)
	tests := []struct {
		name string
		new  string
		code int
		says string
	}{
		{"no change", writeNight(t, vocab.StatusPass, vocab.StatusPass), exitOK, "no regressions"},
		{"a regression", writeNight(t, vocab.StatusPass, vocab.StatusFail), exitFailed, "1 regression"},
		{"an incomplete night", writeNight(t, vocab.StatusPass, vocab.StatusThrottled), exitIncomplete, "the night was incomplete"},
		{"a model sent under another id: said, no regression", writeNamedNight(t, []reportv1.ModelName{{Spec: "gen-5.5", Gateway: "company-chat", Key: "text", Source: reportv1.NameGiven}},
			vocab.StatusPass, vocab.StatusPass), exitOK, "**The model names changed:**"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := gw(t, "diff", pass, tt.new)
			assert.Equal(t, tt.code, code, stderr)
			assert.Contains(t, stdout, tt.says)
		})
	}
}
