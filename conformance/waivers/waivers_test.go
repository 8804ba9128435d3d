package waivers

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gwconform/gwconform/conformance/catalog"
	"github.com/gwconform/gwconform/conformance/results"
	"github.com/gwconform/gwconform/conformance/vocab"
)

const good = `# known deviations of the relay
- case: edit-webp-*
  model: gen-image-2*
  reason: the relay drops output_format
  link: https://tracker.test/GW-1
  expires: 2026-04-01
- case: "messages-unknown-model-404"
  model: "*"
  reason: retired ids answer 400
  link: https://tracker.test/GW-2
  expires: "2026-01-01"
`

func TestParse(t *testing.T) {
	set, err := Parse("w.yaml", []byte(good))
	require.NoError(t, err)
	require.Len(t, set.Entries, 2)
	assert.Equal(t, Entry{Case: "edit-webp-*", Model: "gen-image-2*", Reason: "the relay drops output_format", Link: "https://tracker.test/GW-1",
		Expires: time.Date(2026, 4, 1, 0, 0, 0, 0, time.UTC), Source: "w.yaml:2"}, set.Entries[0])
	assert.Equal(t, "w.yaml:7", set.Entries[1].Source)

	for _, empty := range []string{"", "# nothing waived\n", "[]\n", "~\n"} {
		set, err := Parse("w.yaml", []byte(empty))
		require.NoError(t, err, "%q", empty)
		assert.Empty(t, set.Entries)
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name, src string
		want      []string // file:line:col: message, every one
	}{
		{"not a list", "case: x\n", []string{"w.yaml:1:1: a waivers file is a list of entries"}},
		{"syntax", "- case: [x\n", []string{"w.yaml:1:9: "}},
		{"unknown and missing fields", "- case: a\n  model: b\n  reason: r\n  link: l\n  expires: 2026-01-01\n  colour: red\n- case: c\n",
			[]string{
				"w.yaml:6:3: entry 1: unknown field \"colour\"",
				"w.yaml:7:3: entry 2: expires is missing",
				"w.yaml:7:3: entry 2: link is missing",
				"w.yaml:7:3: entry 2: model is missing",
				"w.yaml:7:3: entry 2: reason is missing",
			}},
		{"bad values", "- case: \"[\"\n  model: b\n  reason: \"\"\n  link: [l]\n  expires: 1 April\n",
			[]string{
				"w.yaml:1:9: entry 1: case \"[\" is not a valid glob",
				"w.yaml:3:11: entry 1: reason is empty",
				"w.yaml:4:9: entry 1: link: want a text value",
				"w.yaml:5:12: entry 1: expires \"1 April\": want a date YYYY-MM-DD",
			}},
		{"repeated field", "- case: a\n  case: b\n  model: b\n  reason: r\n  link: l\n  expires: 2026-01-01\n",
			[]string{`w.yaml:2:3: mapping key "case" already defined at [1:3]`}},
		{"an entry that is not a mapping", "- just text\n", []string{"w.yaml:1:3: entry 1: want a mapping"}},
		// The case files' reader: a did-you-mean, and aliases checked as there.
		{"a misspelt field", "- case: a\n  model: b\n  reson: r\n  link: l\n  expires: 2026-01-01\n",
			[]string{`w.yaml:1:3: entry 1: reason is missing`, `w.yaml:3:3: entry 1: unknown field "reson" (fields: case, model, reason, link, expires); did you mean "reason"?`}},
		{"an alias to nothing", "- case: *nope\n  model: b\n  reason: r\n  link: l\n  expires: 2026-01-01\n",
			[]string{"w.yaml:1:9: alias *nope refers to no anchor defined before it"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("w.yaml", []byte(tt.src))
			require.Error(t, err)
			var diags catalog.Diagnostics
			require.ErrorAs(t, err, &diags)
			require.Len(t, diags, len(tt.want), "%v", err)
			for i, w := range tt.want {
				assert.Contains(t, diags[i].String(), w)
			}
		})
	}
}

func TestLoad(t *testing.T) {
	p := filepath.Join(t.TempDir(), "waivers.yaml")
	require.NoError(t, os.WriteFile(p, []byte(good), 0o644))
	set, err := Load(p)
	require.NoError(t, err)
	assert.Len(t, set.Entries, 2)
	_, err = Load(filepath.Join(t.TempDir(), "missing.yaml"))
	assert.ErrorIs(t, err, os.ErrNotExist)
}

func TestApply(t *testing.T) {
	set, err := Parse("w.yaml", []byte(good+`- case: edit-webp-*
  model: gen-image-2*
  reason: renewed
  link: https://tracker.test/GW-3
  expires: 2026-06-01
`))
	require.NoError(t, err)
	march := time.Date(2026, 3, 31, 23, 0, 0, 0, time.UTC)
	april := time.Date(2026, 4, 1, 0, 0, 0, 0, time.UTC)
	r := func(caseID string, tier vocab.Tier, st vocab.Status) results.Result {
		return results.Result{Case: caseID, Model: "gen-image-2.5-flare", Tier: tier, Status: st}
	}
	tests := []struct {
		name   string
		res    results.Result
		now    time.Time
		strict bool
		status vocab.Status
		state  results.WaiverState // "" → no waiver recorded
		reason string
	}{
		{"a live entry waives a failure", r("edit-webp-lossy", vocab.TierVerified, vocab.StatusFail), march, false, vocab.StatusWaived, results.WaiverApplied, "the relay drops output_format"},
		{"a pass under a live entry: not needed", r("edit-webp-lossy", vocab.TierVerified, vocab.StatusPass), march, false, vocab.StatusPass, results.WaiverNotNeeded, "the relay drops output_format"},
		{"the first live entry wins over an expired one", r("edit-webp-lossy", vocab.TierVerified, vocab.StatusFail), april, false, vocab.StatusWaived, results.WaiverApplied, "renewed"},
		{"an expired entry no longer applies", r("messages-unknown-model-404", vocab.TierNegative, vocab.StatusFail), march, false, vocab.StatusFail, results.WaiverExpired, "retired ids answer 400"},
		{"an expired entry over a pass is said too", r("messages-unknown-model-404", vocab.TierNegative, vocab.StatusPass), march, false, vocab.StatusPass, results.WaiverExpired, "retired ids answer 400"},
		{"an error is never waived", r("edit-webp-lossy", vocab.TierVerified, vocab.StatusError), march, false, vocab.StatusError, "", ""},
		{"throttled is left alone", r("edit-webp-lossy", vocab.TierVerified, vocab.StatusThrottled), march, false, vocab.StatusThrottled, "", ""},
		{"explore never fails, so is never waived", r("edit-webp-lossy", vocab.TierExplore, vocab.StatusFail), march, false, vocab.StatusFail, "", ""},
		{"strict only under --strict", r("edit-webp-lossy", vocab.TierStrict, vocab.StatusFail), march, true, vocab.StatusWaived, results.WaiverApplied, "the relay drops output_format"},
		{"strict without --strict is untouched", r("edit-webp-lossy", vocab.TierStrict, vocab.StatusFail), march, false, vocab.StatusFail, "", ""},
		{"no entry matches", r("chat-json", vocab.TierVerified, vocab.StatusFail), march, false, vocab.StatusFail, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := tt.res
			set.Apply(&res, tt.strict, tt.now)
			assert.Equal(t, tt.status, res.Status)
			if tt.state == "" {
				assert.Nil(t, res.Waiver)
				return
			}
			require.NotNil(t, res.Waiver)
			assert.Equal(t, tt.state, res.Waiver.State)
			assert.Equal(t, tt.reason, res.Waiver.Reason)
		})
	}

	var none *Set
	res := r("edit-webp-lossy", vocab.TierVerified, vocab.StatusFail)
	none.Apply(&res, false, march)
	assert.Equal(t, vocab.StatusFail, res.Status, "no waivers file: nothing changes")
}
