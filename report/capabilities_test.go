package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gwconform/gwconform/conformance/results"
	"github.com/gwconform/gwconform/conformance/vocab"
)

const exploreEdit = "images.edit.explore"

// call makes an explore result of images.edit.explore with parameters given
// as "k=v" strings.
func call(model, caseID string, st vocab.Status, kv ...string) results.Result {
	p := map[string]string{}
	for _, s := range kv {
		k, v, _ := strings.Cut(s, "=")
		p[k] = v
	}
	return res(caseID, exploreEdit, model, TE, st, func(r *results.Result) { r.Params = p; r.Key = "image" })
}

// capCell finds the cell of model × param=value.
func capCell(t *testing.T, c Capability, model, key string) CapCell {
	t.Helper()
	for _, row := range c.Rows {
		if pv(row.Param, row.Value) != key {
			continue
		}
		for _, cell := range row.Cells {
			if cell.Model == model {
				return cell
			}
		}
	}
	t.Fatalf("no cell %s × %s", model, key)
	return CapCell{}
}

func attention(c Capability) []string {
	var out []string
	for _, row := range c.Rows {
		if row.Attention {
			out = append(out, pv(row.Param, row.Value))
		}
	}
	return out
}

// declineRun: gen-image-2 declines quality xhigh and max in every call, and
// sunburst declines n=2 only together with stream=true.
func declineRun() []results.Result {
	return []results.Result{
		call("gen-image-2", "e-1", P, "quality=low", "size=1024x1024", "n=1", "stream=false"),
		call("gen-image-2", "e-2", U, "quality=xhigh", "size=1024x1024", "n=2", "stream=true"),
		call("gen-image-2", "e-3", U, "quality=max", "size=auto", "n=1", "stream=true"),
		call("gen-image-2", "e-4", P, "quality=low", "size=auto", "n=2", "stream=true"),
		call("gen-image-2", "e-5", U, "quality=xhigh", "size=auto", "n=1", "stream=false"),
		call("gen-image-2.5-sunburst", "e-1", P, "quality=low", "size=1024x1024", "n=1", "stream=false"),
		call("gen-image-2.5-sunburst", "e-2", U, "quality=xhigh", "size=1024x1024", "n=2", "stream=true"),
		call("gen-image-2.5-sunburst", "e-3", P, "quality=max", "size=auto", "n=1", "stream=true"),
		call("gen-image-2.5-sunburst", "e-4", U, "quality=low", "size=auto", "n=2", "stream=true"),
		call("gen-image-2.5-sunburst", "e-5", P, "quality=xhigh", "size=auto", "n=2", "stream=false"),
	}
}

func TestCapabilities(t *testing.T) {
	type want struct {
		model, key                      string
		verdict                         CapVerdict
		pass, unsupported, fail, errors int
	}
	tests := []struct {
		name      string
		rs        []results.Result
		want      []want
		attention []string
		check     func(t *testing.T, c Capability)
	}{
		{
			name: "all pass",
			rs: []results.Result{
				call("m1", "e-1", P, "size=1024x1024", "n=1"),
				call("m1", "e-2", P, "size=auto", "n=2"),
				call("m2", "e-1", P, "size=1024x1024", "n=1"),
				call("m2", "e-2", P, "size=auto", "n=2"),
			},
			want: []want{
				{"m1", "size=1024x1024", CapSupported, 1, 0, 0, 0},
				{"m2", "n=2", CapSupported, 1, 0, 0, 0},
			},
			check: func(t *testing.T, c Capability) {
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
			rs:   declineRun(),
			want: []want{
				{"gen-image-2", "quality=xhigh", CapUnsupported, 0, 2, 0, 0},
				{"gen-image-2", "quality=max", CapUnsupported, 0, 1, 0, 0},
				{"gen-image-2", "quality=low", CapSupported, 2, 0, 0, 0},
				// declined only in calls that carried xhigh or max: explained
				{"gen-image-2", "size=auto", CapMixed, 1, 2, 0, 0},
				{"gen-image-2.5-sunburst", "quality=xhigh", CapMixed, 1, 1, 0, 0},
				{"gen-image-2.5-sunburst", "n=2", CapMixed, 1, 2, 0, 0},
				{"gen-image-2.5-sunburst", "n=1", CapSupported, 2, 0, 0, 0},
				{"gen-image-2.5-sunburst", "quality=max", CapSupported, 1, 0, 0, 0},
			},
			// sunburst's other partial values are declined only with n=2 + stream=true
			attention: []string{"n=2", "quality=xhigh", "quality=max", "stream=true"},
			check: func(t *testing.T, c Capability) {
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

				sum := map[string]CapModel{}
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
				call("flare", "e-1", P, "partial_images=1", "stream=true"),
				call("flare", "e-2", F, "partial_images=3", "stream=true"),
				call("flare", "e-3", P, "partial_images=3", "stream=true"),
				call("flare", "e-4", U, "n=2", "stream=false"),
				call("flare", "e-5", E, "n=3", "stream=false"),
			},
			want: []want{
				{"flare", "partial_images=3", CapFailed, 1, 0, 1, 0},
				{"flare", "stream=true", CapFailed, 2, 0, 1, 0},
				{"flare", "partial_images=1", CapSupported, 1, 0, 0, 0},
				{"flare", "n=2", CapUnsupported, 0, 1, 0, 0},
				{"flare", "n=3", CapInconclusive, 0, 0, 0, 1},
				{"flare", "stream=false", CapUnsupported, 0, 1, 0, 1},
			},
			attention: []string{"n=2", "n=3", "partial_images=3", "stream=true", "stream=false"},
			check: func(t *testing.T, c Capability) {
				f := capCell(t, c, "flare", "partial_images=3")
				require.Len(t, f.Failed, 1)
				assert.Equal(t, CapCall{Case: "e-2", Params: map[string]string{"stream": "true"}}, f.Failed[0])
				assert.Equal(t, []string{"partial_images=3", "stream=true"}, c.Summary[0].Failed)
				assert.Len(t, capCell(t, c, "flare", "n=3").Failed, 1, "an error is listed with the failures")
			},
		},
		{
			name: "skips, a model without a value, integers in numeric order",
			rs: []results.Result{
				call("m1", "e-1", P, "output_compression=100"),
				call("m1", "e-2", P, "output_compression=50"),
				call("m1", "e-3", P, "output_compression=0"),
				call("m2", "e-1", S, "output_compression=100"),
			},
			want: []want{
				{"m2", "output_compression=100", CapSkip, 0, 0, 0, 0},
				{"m2", "output_compression=0", CapNone, 0, 0, 0, 0},
			},
			check: func(t *testing.T, c Capability) {
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
			r := Build(Meta{Features: []string{exploreEdit}}, tt.rs)
			require.Len(t, r.Capabilities, 1)
			c := r.Capabilities[0]
			assert.Equal(t, exploreEdit, c.Feature)
			for _, row := range c.Rows {
				require.Len(t, row.Cells, len(c.Models), "cells align with models")
				for i, cell := range row.Cells {
					assert.Equal(t, c.Models[i], cell.Model)
				}
			}
			for _, w := range tt.want {
				cell := capCell(t, c, w.model, w.key)
				assert.Equal(t, w.verdict, cell.Verdict, "%s × %s", w.model, w.key)
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

func TestCapabilitiesOnlyParameterisedExplore(t *testing.T) {
	rs := append(sample(), // explore without params, verified with params: not mapped
		res("x", "images.generate.explore", "m", TV, P, func(r *results.Result) { r.Params = map[string]string{"n": "1"} }),
		call("m", "e-1", P, "n=1"),
		res("g-1", "images.generate.explore", "m", TE, U, func(r *results.Result) { r.Params = map[string]string{"n": "2"} }),
	)
	m := meta()
	m.Features = append(m.Features, "images.generate.explore", exploreEdit)
	r := Build(m, rs)
	require.Len(t, r.Capabilities, 2)
	assert.Equal(t, "images.generate.explore", r.Capabilities[0].Feature, "feature order")
	assert.Len(t, r.Capabilities[0].Rows, 1, "only the explore result's n=2")
	assert.Equal(t, exploreEdit, r.Capabilities[1].Feature)

	assert.NotNil(t, Build(meta(), sample()).Capabilities, "empty, not null, in report.json")

	// Build copies the parameters.
	in := []results.Result{call("m", "e-1", P, "n=1")}
	r = Build(meta(), in)
	in[0].Params["n"] = "9"
	assert.Equal(t, "1", r.Results[0].Params["n"])
	assert.Equal(t, "1", r.Capabilities[0].Rows[0].Value)
}

func TestCapabilitiesMarkdown(t *testing.T) {
	rs := declineRun()
	// eleven values every model supports, one failing call of flare
	for i := range 11 {
		for _, m := range []string{"gen-image-2", "gen-image-2.5-sunburst"} {
			rs = append(rs, call(m, fmt.Sprintf("f-%02d", i), P, fmt.Sprintf("size=%dx%d", 256+i, 256+i)))
		}
	}
	rs = append(rs, call("gen-image-2.5-sunburst", "f-99", F, "partial_images=3"))
	m := meta()
	m.Features = append(m.Features, exploreEdit)
	md := markdown(t, Build(m, rs))

	sec, after, ok := strings.Cut(md, "### Capability map (explore)")
	require.True(t, ok, md)
	assert.Contains(t, sec, "### images", "after the matrix")
	assert.Contains(t, after, "### Failures", "before the failures")
	after, _, _ = strings.Cut(after, "### Failures")
	t.Log(after)

	assert.Contains(t, after, "#### `images.edit.explore`")
	assert.Contains(t, after, "| value | gen-image-2 | gen-image-2.5-sunburst |\n|---|:---:|:---:|\n")
	// explained mixed cells read as supported k/n
	assert.Contains(t, after, "| `quality=xhigh` | ⛔ | ✅ 1/2 |\n")
	assert.Contains(t, after, "| `quality=max` | ⛔ | ✅ |\n")
	assert.Contains(t, after, "| `n=2` | ✅ 1/2 | ◐ 1/3 |\n")
	assert.Contains(t, after, "| `stream=true` | ✅ 1/3 | ◐ 1/3 |\n")
	assert.Contains(t, after, "| `partial_images=3` | — | ❌ 1/1 |\n")
	assert.NotContains(t, after, "`n=1`", "fully supported rows are left out")
	assert.NotContains(t, after, "size=auto")
	assert.NotContains(t, after, "size=256x256")
	assert.Contains(t, after, "All other 16 values supported by every model (some declined only together with a value or pair the model declines).")
	assert.Contains(t, after, "- **gen-image-2** (16 calls): declines `quality=xhigh`, `quality=max`.\n")
	assert.Contains(t, after, "- **gen-image-2.5-sunburst** (17 calls): declines `n=2` together with `stream=true`; 1 of 17 calls failed or errored: `f-99` (partial_images=3).\n")

	// One declined call cannot be pinned on a pair: each partial value is noted.
	one := Build(m, []results.Result{
		call("m3", "e-1", P, "n=2", "stream=false", "size=1024x1024"),
		call("m3", "e-2", U, "n=2", "stream=true", "size=auto"),
		call("m3", "e-3", P, "n=1", "stream=true", "size=auto"),
	})
	md = markdown(t, one)
	assert.Contains(t, md, "| `n=2` | ◐ 1/2 |\n")
	assert.Contains(t, md, "- **m3** (3 calls): `n=2` declined in 1 of 2 calls, each time with `size=auto`, `stream=true`; "+
		"`size=auto` declined in 1 of 2 calls, each time with `n=2`; `stream=true` declined in 1 of 2 calls, each time with `n=2`.\n")
	assert.Contains(t, md, "All other 3 values supported by every model.\n")

	// no explore parameters: no section
	assert.NotContains(t, markdown(t, Build(meta(), sample())), "Capability map")
}

func TestCapabilitiesJSON(t *testing.T) {
	m := meta()
	m.Features = append(m.Features, exploreEdit)
	r := Build(m, declineRun())
	var b bytes.Buffer
	require.NoError(t, r.WriteJSON(&b))

	var doc struct {
		APIVersion   string `json:"apiVersion"`
		Capabilities []struct {
			Feature string   `json:"feature"`
			Models  []string `json:"models"`
			Rows    []struct {
				Param, Value string
				Attention    bool
				Cells        []map[string]any
			} `json:"rows"`
			Summary []map[string]any `json:"summary"`
		} `json:"capabilities"`
		Results []map[string]any `json:"results"`
	}
	require.NoError(t, json.Unmarshal(b.Bytes(), &doc))
	assert.Equal(t, APIVersion, doc.APIVersion)
	require.Len(t, doc.Capabilities, 1)
	c := doc.Capabilities[0]
	assert.Equal(t, exploreEdit, c.Feature)
	assert.Equal(t, []string{"gen-image-2", "gen-image-2.5-sunburst"}, c.Models)
	var found bool
	for _, row := range c.Rows {
		if row.Param == "quality" && row.Value == "xhigh" {
			found = true
			assert.True(t, row.Attention)
			assert.Equal(t, "unsupported", row.Cells[0]["verdict"])
			assert.Equal(t, float64(2), row.Cells[0]["counts"].(map[string]any)["unsupported"])
			assert.Equal(t, "mixed", row.Cells[1]["verdict"])
		}
	}
	assert.True(t, found)
	assert.Equal(t, []any{"quality=xhigh", "quality=max"}, c.Summary[0]["unsupported"])
	assert.Contains(t, doc.Results[0], "params", "results keep their parameters")

	got, err := ReadJSON(bytes.NewReader(b.Bytes()))
	require.NoError(t, err)
	assert.Equal(t, r.Capabilities, got.Capabilities, "round trip")
}
