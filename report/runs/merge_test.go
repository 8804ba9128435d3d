package runs

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gwconform/gwconform/conformance/results"
	"github.com/gwconform/gwconform/conformance/vocab"
	"github.com/gwconform/gwconform/report"
	reportv1 "github.com/gwconform/gwconform/report/apis/v1"
	. "github.com/gwconform/gwconform/report/internal/reporttest"
)

func TestMerge(t *testing.T) {
	all := Sample()
	// Three disjoint shards, in a scrambled order.
	shards := make([][]results.Result, 3)
	for i, r := range all {
		shards[i%3] = append(shards[i%3], r)
	}
	rand.New(rand.NewPCG(1, 2)).Shuffle(len(shards), func(i, j int) { shards[i], shards[j] = shards[j], shards[i] })

	whole, err := Merge(all)
	require.NoError(t, err)
	merged, err := Merge(shards...)
	require.NoError(t, err)
	assert.Equal(t, whole, merged, "disjoint shards merge to the union")
	assert.Len(t, merged, len(all))

	// ... and render the same report.
	assert.Equal(t, report.Build(SampleMeta(), all).Cells, report.Build(SampleMeta(), merged).Cells)

	tests := []struct {
		name    string
		inputs  [][]results.Result
		wantLen int
		wantErr string
	}{
		{"identical duplicate is kept once", [][]results.Result{all, all[:2]}, len(all), ""},
		{"nil reasons equal empty reasons", [][]results.Result{
			{Res("a", "f", "m", TV, P)},
			{func() results.Result { r := Res("a", "f", "m", TV, P); r.Reasons = nil; return r }()},
		}, 1, ""},
		{"conflicting duplicate is an error", [][]results.Result{all, {set(all, "models-list", "gen-text-1", F)[0]}}, 0,
			`case "models-list" × model "gen-text-1" ran in inputs 1 and 2 with different verdicts (pass, then fail): overlapping shards?`},
		{"same status, other timing still conflicts", [][]results.Result{{Res("a", "f", "m", TV, P)}, {func() results.Result {
			r := Res("a", "f", "m", TV, P)
			r.DurationMS++
			return r
		}()}}, 0, `case "a" × model "m" ran in inputs 1 and 2, both pass (started`},
		{"nothing", nil, 0, ""},
	}
	skipped := func(check string) results.Result {
		r := Res("a", "f", "m", TV, S)
		r.Reasons = []vocab.Reason{{Check: check, Message: check}}
		return r
	}
	ran := Res("a", "f", "m", TV, P)
	yields := []struct {
		name   string
		inputs [][]results.Result
		want   results.Result
	}{
		{"a key-missing skip yields to the result that ran", [][]results.Result{{skipped(vocab.CheckKeyMissing)}, {ran}}, ran},
		{"in either order", [][]results.Result{{ran}, {skipped(vocab.CheckKeyMissing)}}, ran},
		{"a not-offered skip yields", [][]results.Result{{skipped(vocab.CheckNotOffered)}, {ran}}, ran},
		{"a budget skip yields", [][]results.Result{{skipped(vocab.CheckBudget)}, {ran}}, ran},
		{"of two skips the first is kept", [][]results.Result{{skipped(vocab.CheckKeyMissing)}, {skipped(vocab.CheckNotOffered)}}, skipped(vocab.CheckKeyMissing)},
	}
	for _, tt := range yields {
		tests = append(tests, struct {
			name    string
			inputs  [][]results.Result
			wantLen int
			wantErr string
		}{tt.name, tt.inputs, 1, ""})
		t.Run(tt.name+": the one kept", func(t *testing.T) {
			got, err := Merge(tt.inputs...)
			require.NoError(t, err)
			require.Len(t, got, 1)
			assert.Equal(t, tt.want.Status, got[0].Status)
			assert.Equal(t, tt.want.Reasons, got[0].Reasons)
		})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Merge(tt.inputs...)
			if tt.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Len(t, got, tt.wantLen)
			assert.NotNil(t, got)
		})
	}
}

// MergeModelMaps joins the inputs' maps: the union, each spec model once;
// a record that sent nothing yields to one that did; two ids for one spec
// model are refused, naming both inputs.
func TestMergeModelMaps(t *testing.T) {
	input := func(name string, names ...reportv1.ModelName) NamedReport {
		return NamedReport{Name: name, Report: &reportv1.Report{Metadata: reportv1.Metadata{ModelMap: names}}}
	}
	resolved := reportv1.ModelName{Spec: "gen-5.5", Gateway: "gpt-5.5", Key: "text", Source: reportv1.NameResolved}
	givenAlike := reportv1.ModelName{Spec: "gen-5.5", Gateway: "gpt-5.5", Key: "text", Source: reportv1.NameGiven}
	givenOther := reportv1.ModelName{Spec: "gen-5.5", Gateway: "company-chat", Key: "text", Source: reportv1.NameGiven}
	unlisted := reportv1.ModelName{Spec: "gen-5.5", Key: "text", Source: reportv1.NameUnlisted}
	image := reportv1.ModelName{Spec: "gen-image-2", Gateway: "gen-image-2", Key: "image", Source: reportv1.NameListed}
	tests := []struct {
		name    string
		inputs  []NamedReport
		want    []reportv1.ModelName
		wantErr string
	}{
		{"no maps", []NamedReport{input("a"), input("b")}, []reportv1.ModelName{}, ""},
		{"shards of one run: one map", []NamedReport{input("a", resolved, image), input("b", resolved, image)}, []reportv1.ModelName{resolved, image}, ""},
		{"runs of one key kind each: the union, in spec id order", []NamedReport{input("a", image), input("b", resolved)}, []reportv1.ModelName{resolved, image}, ""},
		{"an input without a map takes nothing away", []NamedReport{input("a"), input("b", resolved)}, []reportv1.ModelName{resolved}, ""},
		{"the same id found another way: the first is kept", []NamedReport{input("a", resolved), input("b", givenAlike)}, []reportv1.ModelName{resolved}, ""},
		{"a record that sent nothing yields", []NamedReport{input("a", unlisted), input("b", givenOther)}, []reportv1.ModelName{givenOther}, ""},
		{"in either order", []NamedReport{input("a", givenOther), input("b", unlisted)}, []reportv1.ModelName{givenOther}, ""},
		{"two ids for one model are refused", []NamedReport{input("shard-1/report.json", resolved), input("shard-2/report.json", givenOther)}, nil,
			"shard-1/report.json sent gen-5.5 as gpt-5.5, shard-2/report.json sent it as company-chat: runs merged name each model alike (--model-map gen-5.5=ID on both)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := MergeModelMaps(tt.inputs)
			if tt.wantErr != "" {
				require.EqualError(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}
