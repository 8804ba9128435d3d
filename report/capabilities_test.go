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
	reportv1 "github.com/gwconform/gwconform/report/apis/v1"
	. "github.com/gwconform/gwconform/report/internal/reporttest"
)

func TestCapabilitiesOnlyParameterisedExplore(t *testing.T) {
	rs := append(Sample(), // explore without params, verified with params: not mapped
		Res("x", "images.generate.explore", "m", TV, P, func(r *results.Result) { r.Params = map[string]string{"n": "1"} }),
		Call("m", "e-1", P, "n=1"),
		Res("g-1", "images.generate.explore", "m", TE, U, func(r *results.Result) { r.Params = map[string]string{"n": "2"} }),
	)
	m := SampleMeta()
	m.Features = append(m.Features, "images.generate.explore", ExploreEdit)
	r := Build(m, rs)
	require.Len(t, r.Capabilities, 2)
	assert.Equal(t, "images.generate.explore", r.Capabilities[0].Feature, "feature order")
	assert.Len(t, r.Capabilities[0].Rows, 1, "only the explore result's n=2")
	assert.Equal(t, ExploreEdit, r.Capabilities[1].Feature)

	assert.NotNil(t, Build(SampleMeta(), Sample()).Capabilities, "empty, not null, in report.json")

	// Build copies the parameters.
	in := []results.Result{Call("m", "e-1", P, "n=1")}
	r = Build(SampleMeta(), in)
	in[0].Params["n"] = "9"
	assert.Equal(t, "1", r.Results[0].Params["n"])
	assert.Equal(t, "1", r.Capabilities[0].Rows[0].Value)
}

func TestCapabilitiesMarkdown(t *testing.T) {
	rs := DeclineRun()
	// eleven values every model supports, one failing call of flare
	for i := range 11 {
		for _, m := range []string{"gen-image-2", "gen-image-2.5-sunburst"} {
			rs = append(rs, Call(m, fmt.Sprintf("f-%02d", i), P, fmt.Sprintf("size=%dx%d", 256+i, 256+i)))
		}
	}
	rs = append(rs, Call("gen-image-2.5-sunburst", "f-99", F, "partial_images=3"))
	m := SampleMeta()
	m.Features = append(m.Features, ExploreEdit)
	md := renderMD(t, Build(m, rs))

	before, after, ok := strings.Cut(md, "### Capability map (explore)")
	require.True(t, ok, md)
	assert.Contains(t, before, "### images", "after the matrix")
	assert.Contains(t, before, "### Failures by cause", "after the failures by cause, which come first")
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
		Call("m3", "e-1", P, "n=2", "stream=false", "size=1024x1024"),
		Call("m3", "e-2", U, "n=2", "stream=true", "size=auto"),
		Call("m3", "e-3", P, "n=1", "stream=true", "size=auto"),
	})
	md = renderMD(t, one)
	assert.Contains(t, md, "| `n=2` | ◐ 1/2 |\n")
	assert.Contains(t, md, "- **m3** (3 calls): `n=2` declined in 1 of 2 calls, each time with `size=auto`, `stream=true`; "+
		"`size=auto` declined in 1 of 2 calls, each time with `n=2`; `stream=true` declined in 1 of 2 calls, each time with `n=2`.\n")
	assert.Contains(t, md, "All other 3 values supported by every model.\n")

	// no explore parameters: no section
	assert.NotContains(t, renderMD(t, Build(SampleMeta(), Sample())), "Capability map")
}

func TestCapabilitiesJSON(t *testing.T) {
	m := SampleMeta()
	m.Features = append(m.Features, ExploreEdit)
	r := Build(m, DeclineRun())
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
	assert.Equal(t, reportv1.APIVersion, doc.APIVersion)
	require.Len(t, doc.Capabilities, 1)
	c := doc.Capabilities[0]
	assert.Equal(t, ExploreEdit, c.Feature)
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

	got, err := reportv1.ReadJSON(bytes.NewReader(b.Bytes()))
	require.NoError(t, err)
	assert.Equal(t, r.Capabilities, got.Capabilities, "round trip")
}
