package capability

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gwconform/gwconform/conformance/results"
	reportv1 "github.com/gwconform/gwconform/report/apis/v1"
	. "github.com/gwconform/gwconform/report/internal/reporttest"
)

// capCell finds the cell of model × param=value.
func capCell(t *testing.T, c reportv1.Capability, model, key string) reportv1.CapCell {
	t.Helper()
	for _, row := range c.Rows {
		if reportv1.ParamValue(row.Param, row.Value) != key {
			continue
		}
		for _, cell := range row.Cells {
			if cell.Model == model {
				return cell
			}
		}
	}
	t.Fatalf("no cell %s × %s", model, key)
	return reportv1.CapCell{}
}

func attention(c reportv1.Capability) []string {
	var out []string
	for _, row := range c.Rows {
		if row.Attention {
			out = append(out, reportv1.ParamValue(row.Param, row.Value))
		}
	}
	return out
}

func TestCapabilities(t *testing.T) {
	type want struct {
		model, key                      string
		verdict                         reportv1.CapSupport
		pass, unsupported, fail, errors int
	}
	tests := []struct {
		name      string
		rs        []results.Result
		want      []want
		attention []string
		check     func(t *testing.T, c reportv1.Capability)
	}{
		{
			name: "all pass",
			rs: []results.Result{
				Call("m1", "e-1", P, "size=1024x1024", "n=1"),
				Call("m1", "e-2", P, "size=auto", "n=2"),
				Call("m2", "e-1", P, "size=1024x1024", "n=1"),
				Call("m2", "e-2", P, "size=auto", "n=2"),
			},
			want: []want{
				{"m1", "size=1024x1024", reportv1.CapSupported, 1, 0, 0, 0},
				{"m2", "n=2", reportv1.CapSupported, 1, 0, 0, 0},
			},
			check: func(t *testing.T, c reportv1.Capability) {
				assert.Equal(t, []string{"m1", "m2"}, c.Models)
				require.Len(t, c.Rows, 4)
				for _, s := range c.Summary {
					assert.Empty(t, s.Unsupported)
					assert.Empty(t, s.Mixed)
					assert.Empty(t, s.Failed)
					assert.Equal(t, 2, s.Counts.Pass)
				}
			},
		},
		{
			name: "value declined everywhere, and a combination declined",
			rs:   DeclineRun(),
			want: []want{
				{"gen-image-2", "quality=xhigh", reportv1.CapUnsupported, 0, 2, 0, 0},
				{"gen-image-2", "quality=max", reportv1.CapUnsupported, 0, 1, 0, 0},
				{"gen-image-2", "quality=low", reportv1.CapSupported, 2, 0, 0, 0},
				// declined only in calls that carried xhigh or max: explained
				{"gen-image-2", "size=auto", reportv1.CapMixed, 1, 2, 0, 0},
				{"gen-image-2.5-sunburst", "quality=xhigh", reportv1.CapMixed, 1, 1, 0, 0},
				{"gen-image-2.5-sunburst", "n=2", reportv1.CapMixed, 1, 2, 0, 0},
				{"gen-image-2.5-sunburst", "n=1", reportv1.CapSupported, 2, 0, 0, 0},
				{"gen-image-2.5-sunburst", "quality=max", reportv1.CapSupported, 1, 0, 0, 0},
			},
			// sunburst's other partial values are declined only with n=2 + stream=true
			attention: []string{"n=2", "quality=xhigh", "quality=max", "stream=true"},
			check: func(t *testing.T, c reportv1.Capability) {
				g := capCell(t, c, "gen-image-2", "size=auto")
				assert.True(t, g.Explained)
				require.Len(t, g.Declined, 2)
				assert.Equal(t, "e-3", g.Declined[0].Case)
				assert.Equal(t, []string{"quality=max"}, g.Declined[0].Because)
				assert.Equal(t, map[string]string{"quality": "max", "n": "1", "stream": "true"}, g.Declined[0].Params, "the other params of the combination")
				assert.Equal(t, []string{"quality=xhigh"}, g.Declined[1].Because)

				s := capCell(t, c, "gen-image-2.5-sunburst", "n=2")
				assert.False(t, s.Explained)
				assert.Equal(t, []string{"stream=true"}, s.DeclinedWith, "n=2 passed only without stream")
				assert.Equal(t, []string{"e-2", "e-4"}, []string{s.Declined[0].Case, s.Declined[1].Case})
				assert.Empty(t, s.Declined[0].Because)
				x := capCell(t, c, "gen-image-2.5-sunburst", "quality=xhigh")
				assert.True(t, x.Explained)
				assert.Equal(t, []string{"n=2 + stream=true"}, x.Declined[0].Because)

				sum := map[string]reportv1.CapModel{}
				for _, m := range c.Summary {
					sum[m.Model] = m
				}
				assert.Equal(t, []string{"quality=xhigh", "quality=max"}, sum["gen-image-2"].Unsupported, "domain order kept")
				assert.Empty(t, sum["gen-image-2"].Mixed, "gen-image-2's partial values are explained by xhigh and max")
				assert.Equal(t, []string{"n=2", "stream=true"}, sum["gen-image-2.5-sunburst"].Mixed)
				assert.Equal(t, []string{"n=2 + stream=true"}, sum["gen-image-2.5-sunburst"].Pairs)
				assert.Empty(t, sum["gen-image-2"].Pairs)
				assert.Equal(t, 3, sum["gen-image-2"].Counts.Unsupported)
			},
		},
		{
			name: "a failure",
			rs: []results.Result{
				Call("flare", "e-1", P, "partial_images=1", "stream=true"),
				Call("flare", "e-2", F, "partial_images=3", "stream=true"),
				Call("flare", "e-3", P, "partial_images=3", "stream=true"),
				Call("flare", "e-4", U, "n=2", "stream=false"),
				Call("flare", "e-5", E, "n=3", "stream=false"),
			},
			want: []want{
				{"flare", "partial_images=3", reportv1.CapFailed, 1, 0, 1, 0},
				{"flare", "stream=true", reportv1.CapFailed, 2, 0, 1, 0},
				{"flare", "partial_images=1", reportv1.CapSupported, 1, 0, 0, 0},
				{"flare", "n=2", reportv1.CapUnsupported, 0, 1, 0, 0},
				{"flare", "n=3", reportv1.CapInconclusive, 0, 0, 0, 1},
				{"flare", "stream=false", reportv1.CapUnsupported, 0, 1, 0, 1},
			},
			attention: []string{"n=2", "n=3", "partial_images=3", "stream=true", "stream=false"},
			check: func(t *testing.T, c reportv1.Capability) {
				f := capCell(t, c, "flare", "partial_images=3")
				require.Len(t, f.Failed, 1)
				assert.Equal(t, reportv1.CapCall{Case: "e-2", Params: map[string]string{"stream": "true"}}, f.Failed[0])
				assert.Equal(t, []string{"partial_images=3", "stream=true"}, c.Summary[0].Failed)
				assert.Len(t, capCell(t, c, "flare", "n=3").Failed, 1, "an error is listed with the failures")
			},
		},
		{
			name: "skips, a model without a value, integers in numeric order",
			rs: []results.Result{
				Call("m1", "e-1", P, "output_compression=100"),
				Call("m1", "e-2", P, "output_compression=50"),
				Call("m1", "e-3", P, "output_compression=0"),
				Call("m2", "e-1", S, "output_compression=100"),
			},
			want: []want{
				{"m2", "output_compression=100", reportv1.CapSkip, 0, 0, 0, 0},
				{"m2", "output_compression=0", reportv1.CapNone, 0, 0, 0, 0},
			},
			check: func(t *testing.T, c reportv1.Capability) {
				var vals []string
				for _, row := range c.Rows {
					vals = append(vals, row.Value)
				}
				assert.Equal(t, []string{"0", "50", "100"}, vals)
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			caps := Build([]string{ExploreEdit}, tt.rs)
			require.Len(t, caps, 1)
			c := caps[0]
			assert.Equal(t, ExploreEdit, c.Feature)
			for _, row := range c.Rows {
				require.Len(t, row.Cells, len(c.Models), "cells align with models")
				for i, cell := range row.Cells {
					assert.Equal(t, c.Models[i], cell.Model)
				}
			}
			for _, w := range tt.want {
				cell := capCell(t, c, w.model, w.key)
				assert.Equal(t, w.verdict, cell.Support, "%s × %s", w.model, w.key)
				got := [4]int{cell.Counts.Pass, cell.Counts.Unsupported, cell.Counts.Fail, cell.Counts.Error}
				assert.Equal(t, [4]int{w.pass, w.unsupported, w.fail, w.errors}, got, "%s × %s: pass, unsupported, fail, error", w.model, w.key)
			}
			assert.Equal(t, tt.attention, attention(c))
			if tt.check != nil {
				tt.check(t, c)
			}
		})
	}
}
