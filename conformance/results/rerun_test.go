package results

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/gwconform/gwconform/conformance/vocab"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRerunnable(t *testing.T) {
	tests := []struct {
		tier      vocab.Tier
		status    vocab.Status
		strict    bool
		cancelled bool // cut by an interrupt: never finished, of any tier
		want      bool
	}{
		{vocab.TierVerified, vocab.StatusFail, false, false, true},
		{vocab.TierNegative, vocab.StatusError, false, false, true},
		{vocab.TierVerified, vocab.StatusThrottled, false, false, true},
		{vocab.TierNegative, vocab.StatusInconclusive, false, false, true},
		{vocab.TierVerified, vocab.StatusPass, false, false, false},
		{vocab.TierVerified, vocab.StatusWaived, false, false, false},
		{vocab.TierVerified, vocab.StatusSkip, false, false, false},
		{vocab.TierStrict, vocab.StatusFail, false, false, false},
		{vocab.TierStrict, vocab.StatusFail, true, false, true},
		{vocab.TierExplore, vocab.StatusFail, true, false, false},
		{vocab.TierVerified, vocab.StatusError, false, true, true},
		{vocab.TierStrict, vocab.StatusError, false, true, true},
		{vocab.TierExplore, vocab.StatusError, false, true, true},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s/%s/strict=%t/cancelled=%t", tt.tier, tt.status, tt.strict, tt.cancelled), func(t *testing.T) {
			assert.Equal(t, tt.want, Result{Tier: tt.tier, Status: tt.status, Cancelled: tt.cancelled}.Rerunnable(tt.strict))
		})
	}
}

func TestRerun(t *testing.T) {
	wrong := []vocab.Reason{{Check: "status", Expected: "404", Actual: "400", Message: "HTTP status 400, want 404"}}
	first := Result{Case: "c", Model: "m", Status: vocab.StatusFail, Reasons: wrong, CostUnits: 1, Attempts: 1}
	pass := Result{Case: "c", Model: "m", Status: vocab.StatusPass, Reasons: []vocab.Reason{}, CostUnits: 1, Attempts: 1}
	fail := Result{Case: "c", Model: "m", Status: vocab.StatusFail, Reasons: []vocab.Reason{{Check: "schema", Message: "other"}}, CostUnits: 2, Attempts: 2}

	tests := []struct {
		name        string
		first, then Result
		want        Result
	}{
		{"now passes: flaky, first reasons kept", first, pass,
			Result{Case: "c", Model: "m", Status: vocab.StatusPass, Reasons: []vocab.Reason{}, Flaky: true, Attempts: 1, CostUnits: 2, Reruns: 1, FirstStatus: vocab.StatusFail, FirstReasons: wrong}},
		{"fails again: its own reasons, the first kept", first, fail,
			Result{Case: "c", Model: "m", Status: vocab.StatusFail, Reasons: fail.Reasons, Attempts: 2, CostUnits: 3, Reruns: 1, FirstStatus: vocab.StatusFail, FirstReasons: wrong}},
		{"a second re-run keeps the very first run", Rerun(first, fail), pass,
			Result{Case: "c", Model: "m", Status: vocab.StatusPass, Reasons: []vocab.Reason{}, Flaky: true, Attempts: 1, CostUnits: 4, Reruns: 2, FirstStatus: vocab.StatusFail, FirstReasons: wrong}},
		{"a control re-run beside its negative passes again: not flaky", pass, pass,
			Result{Case: "c", Model: "m", Status: vocab.StatusPass, Reasons: []vocab.Reason{}, Attempts: 1, CostUnits: 2, Reruns: 1, FirstStatus: vocab.StatusPass, FirstReasons: []vocab.Reason{}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, Rerun(tt.first, tt.then))
		})
	}
}

func TestWriteFileReplaces(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	require.NoError(t, os.WriteFile(path, []byte("old\n"), 0o600))
	rs := []Result{{Case: "a", Status: vocab.StatusPass}, {Case: "b", Status: vocab.StatusWaived, Waiver: &Waiver{Reason: "r", State: WaiverApplied}}}
	require.NoError(t, WriteFile(path, rs))
	got, err := ReadFile(path)
	require.NoError(t, err)
	require.Len(t, got, 2)
	assert.Equal(t, vocab.StatusWaived, got[1].Status)
	assert.Equal(t, "r", got[1].Waiver.Reason)
	st, err := os.Stat(path)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o644), st.Mode().Perm())
	left, err := filepath.Glob(filepath.Join(filepath.Dir(path), ".*"))
	require.NoError(t, err)
	assert.Empty(t, left, "no temporary file left behind")
}
