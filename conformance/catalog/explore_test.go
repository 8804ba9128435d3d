package catalog

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gwconform/gwconform/conformance/pairwise"
	"github.com/gwconform/gwconform/conformance/vocab"
)

// exploreFile holds the edit domain of the issue (JSON) and a small
// multipart domain; it has no cases: a file may hold only explore.
const exploreFile = `explore:
  - id: explore-edit
    feature: images.edit.explore
    spec: 4.5/rule-4
    requirement: "Combinations of parameters beyond the verified rows are not guaranteed."
    why: "maps stacked combinations"
    key: image
    models: [gen-image-2.5-flare, gen-image-2]
    request:
      method: POST
      path: /v1/images/edits
      json: {model: "{{ .Model }}", prompt: "Add a boat", images: [{image_url: '{{ dataURL "ref-a-1024.png" }}'}]}
    parameters:
      size: [1024x1024, 1536x1024, 1024x1536, auto]
      quality: [low, medium, high, xhigh, max, auto]
      background: [transparent, opaque, auto]
      output_format: [png, jpeg, webp]
      output_compression: [omit, 0, 50, 100]
      n: [1, 2]
      stream: [false, true]
      partial_images: [omit, 0, 1, 2, 3]
    constraints:
      - if: {background: transparent}
        then: {output_format: [png, webp]}
      - if: {background: opaque}
        then: {output_format: [jpeg]}
      - if: {background: auto}
        then: {output_format: [webp]}
      - if: {output_format: png}
        then: {output_compression: [omit]}
      - if: {output_format: jpeg}
        then: {output_compression: [0, 100]}
      - if: {output_format: webp}
        then: {output_compression: [50]}
      - if: {stream: false}
        then: {partial_images: [omit]}
  - id: explore-gen-form
    feature: images.generate.explore
    spec: "4.4"
    requirement: "r"
    why: "w"
    key: image
    models: [gen-image-2]
    request:
      method: POST
      path: /v1/images/generations
      multipart: {model: "{{ .Model }}", prompt: "A lighthouse", size: 1024x1024}
    parameters:
      n: [omit, 2]
      stream: [true]
      partial_images: [omit, 3]
`

// editDomain is the edit domain above, written out independently of the
// loader: the oracle the generated rows are checked against.
var editDomain = []pairwise.Parameter{
	{Name: "size", Values: []string{"1024x1024", "1536x1024", "1024x1536", "auto"}},
	{Name: "quality", Values: []string{"low", "medium", "high", "xhigh", "max", "auto"}},
	{Name: "background", Values: []string{"transparent", "opaque", "auto"}},
	{Name: "output_format", Values: []string{"png", "jpeg", "webp"}},
	{Name: "output_compression", Values: []string{"omit", "0", "50", "100"}},
	{Name: "n", Values: []string{"1", "2"}},
	{Name: "stream", Values: []string{"false", "true"}},
	{Name: "partial_images", Values: []string{"omit", "0", "1", "2", "3"}},
}

// imageRowOK states the spec's rules (4.5, 8) on a full row directly.
func imageRowOK(r map[string]string) bool {
	bg, f, comp := r["background"], r["output_format"], r["output_compression"]
	switch {
	case bg == "transparent" && f != "png" && f != "webp",
		bg == "opaque" && f != "jpeg",
		bg == "auto" && f != "webp",
		f == "png" && comp != "omit",
		f == "jpeg" && comp != "0" && comp != "100",
		f == "webp" && comp != "50",
		r["stream"] == "false" && r["partial_images"] != "omit":
		return false
	}
	return true
}

// rowOf is a case's full assignment, omitted parameters as "omit".
func rowOf(c *Case, params []pairwise.Parameter) map[string]string {
	r := map[string]string{}
	for _, p := range params {
		r[p.Name] = Omit
		if v, ok := c.Params[p.Name]; ok {
			r[p.Name] = v
		}
	}
	return r
}

type valuePair struct{ p1, v1, p2, v2 string }

// assertAllPairs proves coverage by enumerating the full product: every
// pair some valid row holds is in a generated row, and every generated row
// is valid. It returns the number of valid rows.
func assertAllPairs(t *testing.T, params []pairwise.Parameter, ok func(map[string]string) bool, cs []Case) int {
	t.Helper()
	feasible := map[valuePair]bool{}
	validRows := 0
	row := map[string]string{}
	var rec func(i int)
	rec = func(i int) {
		if i == len(params) {
			if ok(row) {
				validRows++
				for _, pv := range pairsIn(params, row) {
					feasible[pv] = true
				}
			}
			return
		}
		for _, v := range params[i].Values {
			row[params[i].Name] = v
			rec(i + 1)
		}
	}
	rec(0)
	covered := map[valuePair]bool{}
	for i := range cs {
		r := rowOf(&cs[i], params)
		assert.True(t, ok(r), "%s: row %v breaks a constraint", cs[i].ID, r)
		for name, v := range cs[i].Params {
			assert.NotEqual(t, Omit, v, "%s: an omitted parameter is absent from Params", cs[i].ID)
			i := slices.IndexFunc(params, func(p pairwise.Parameter) bool { return p.Name == name })
			if assert.GreaterOrEqual(t, i, 0, "unknown parameter %s", name) {
				assert.Contains(t, params[i].Values, v)
			}
		}
		for _, pv := range pairsIn(params, r) {
			covered[pv] = true
		}
	}
	var missing []string
	for pv := range feasible {
		if !covered[pv] {
			missing = append(missing, fmt.Sprint(pv))
		}
	}
	slices.Sort(missing)
	assert.Empty(t, missing, "feasible pairs no generated case holds")
	return validRows
}

func pairsIn(params []pairwise.Parameter, r map[string]string) []valuePair {
	var out []valuePair
	for i, a := range params {
		for _, b := range params[i+1:] {
			out = append(out, valuePair{a.Name, r[a.Name], b.Name, r[b.Name]})
		}
	}
	return out
}

func casesWithPrefix(cat *Catalog, prefix string) []Case {
	var out []Case
	for _, c := range cat.Cases {
		if strings.HasPrefix(c.ID, prefix) {
			out = append(out, c)
		}
	}
	return out
}

func TestExploreAllPairs(t *testing.T) {
	cat, err := load(t, map[string]string{"explore.yaml": exploreFile})
	require.NoError(t, err)
	edits := casesWithPrefix(cat, "explore-edit-")
	require.NotEmpty(t, edits)
	validRows := assertAllPairs(t, editDomain, imageRowOK, edits)
	t.Logf("edit domain: %d generated cases (calls per model) cover every feasible pair; full Cartesian product %d, of which %d satisfy the constraints",
		len(edits), pairwise.Cartesian(editDomain), validRows)
	assert.Less(t, len(edits), 40, "pairwise should stay near the 6×... lower bound, not approach the product")

	for i, c := range edits {
		assert.Equal(t, fmt.Sprintf("explore-edit-%02d", i+1), c.ID)
		assert.Equal(t, vocab.TierExplore, c.Tier)
		assert.Equal(t, "images.edit.explore", c.Feature)
		assert.Equal(t, "4.5/rule-4", c.Spec)
		assert.Equal(t, "maps stacked combinations", c.Why)
		assert.Equal(t, KeyImage, c.Key)
		assert.Equal(t, []string{"gen-image-2.5-flare", "gen-image-2"}, c.Models)
		assert.Equal(t, "cases/explore.yaml:2:5", c.Pos)
	}

	// Deterministic: the same file gives the same cases.
	again, err := load(t, map[string]string{"explore.yaml": exploreFile})
	require.NoError(t, err)
	assert.Equal(t, cat.Cases, again.Cases)
}

// TestExploreCatalogDomains proves coverage for the domains of the embedded
// catalog (cases/explore_images.yaml).
func TestExploreCatalogDomains(t *testing.T) {
	cat := loadRealCatalog(t)
	edits := casesWithPrefix(cat, "explore-edit-")
	validRows := assertAllPairs(t, editDomain, imageRowOK, edits)
	t.Logf("catalog edit domain: %d cases per model vs Cartesian %d (%d valid)", len(edits), pairwise.Cartesian(editDomain), validRows)

	genDomain := slices.Clone(editDomain)
	genDomain[0] = pairwise.Parameter{Name: "size", Values: []string{"omit", "1024x1024", "1536x1024", "1024x1536", "auto"}}
	gens := casesWithPrefix(cat, "explore-gen-")
	validRows = assertAllPairs(t, genDomain, imageRowOK, gens)
	t.Logf("catalog generation domain: %d cases per model vs Cartesian %d (%d valid)", len(gens), pairwise.Cartesian(genDomain), validRows)
	for _, c := range append(edits, gens...) {
		assert.Equal(t, []string{"gen-image-2.5-flare", "gen-image-2.5-sunburst", "gen-image-2"}, c.Models, c.ID)
	}
}

func TestExploreRequestAndExpect(t *testing.T) {
	cat, err := load(t, map[string]string{"explore.yaml": exploreFile})
	require.NoError(t, err)
	find := func(prefix string, match func(map[string]string) bool) *Case {
		t.Helper()
		for i := range cat.Cases {
			if c := &cat.Cases[i]; strings.HasPrefix(c.ID, prefix) && match(c.Params) {
				return c
			}
		}
		t.Fatalf("no %s case matches", prefix)
		return nil
	}

	t.Run("non-streaming JSON row", func(t *testing.T) {
		c := find("explore-edit-", func(p map[string]string) bool {
			return p["stream"] == "false" && p["background"] == "transparent" && p["n"] == "2" && p["size"] != "auto"
		})
		body := c.Request.JSON.(map[string]any)
		// The base request is kept; parameters are added, typed.
		assert.Equal(t, "{{ .Model }}", body["model"])
		assert.Equal(t, "Add a boat", body["prompt"])
		assert.Len(t, body["images"], 1)
		assert.Equal(t, uint64(2), body["n"])
		assert.Equal(t, false, body["stream"])
		assert.Equal(t, c.Params["size"], body["size"])
		assert.NotContains(t, body, "partial_images", "omit leaves the parameter out")
		assert.NotContains(t, c.Params, "partial_images")
		if c.Params["output_format"] == "png" {
			assert.NotContains(t, body, "output_compression")
		}
		assert.Equal(t, Expect{Status: 200, Schema: "image_result", Images: &ImageExpect{
			Format: c.Params["output_format"], Size: c.Params["size"], Count: 2, Transparent: &DefaultTransparency,
		}}, c.Expect)
		// The base request's json is not modified.
		base := find("explore-edit-", func(p map[string]string) bool { return p["n"] == "1" })
		assert.Equal(t, uint64(1), base.Request.JSON.(map[string]any)["n"])
	})

	t.Run("non-streaming jpeg row is opaque", func(t *testing.T) {
		c := find("explore-edit-", func(p map[string]string) bool { return p["stream"] == "false" && p["output_format"] == "jpeg" })
		require.NotNil(t, c.Expect.Images)
		assert.Equal(t, new(false), c.Expect.Images.Alpha)
		assert.Contains(t, []any{uint64(0), uint64(100)}, c.Request.JSON.(map[string]any)["output_compression"])
	})

	t.Run("streaming JSON row", func(t *testing.T) {
		c := find("explore-edit-", func(p map[string]string) bool {
			return p["stream"] == "true" && p["partial_images"] == "3" && p["size"] == "auto"
		})
		body := c.Request.JSON.(map[string]any)
		assert.Equal(t, true, body["stream"])
		assert.Equal(t, uint64(3), body["partial_images"])
		n := map[string]int{"1": 1, "2": 2}[c.Params["n"]]
		assert.Equal(t, Expect{Status: 200, SSE: &SSEExpect{
			Protocol: ProtocolImageEdit, MaxPreviews: new(3),
			Images: &ImageExpect{Format: c.Params["output_format"], Size: "", Count: n},
		}}, c.Expect, "auto: no size check; no alpha check on streams")
	})

	t.Run("multipart row: text fields, defaults derived", func(t *testing.T) {
		c := find("explore-gen-form-", func(p map[string]string) bool { return p["n"] == "2" && p["partial_images"] == "" })
		assert.Nil(t, c.Request.JSON)
		assert.Equal(t, []FormField{
			{Name: "model", Value: "{{ .Model }}"}, {Name: "prompt", Value: "A lighthouse"}, {Name: "size", Value: "1024x1024"},
			{Name: "n", Value: "2"}, {Name: "stream", Value: "true"},
		}, c.Request.Multipart)
		assert.Equal(t, map[string]string{"n": "2", "stream": "true"}, c.Params)
		// size comes from the base request; format defaults to png.
		assert.Equal(t, Expect{Status: 200, SSE: &SSEExpect{
			Protocol: ProtocolImageGeneration, MaxPreviews: new(0),
			Images: &ImageExpect{Format: "png", Size: "1024x1024", Count: 2},
		}}, c.Expect)
		rendered, err := cat.Render(c, "gen-image-2", Env{})
		require.NoError(t, err)
		assert.Contains(t, string(rendered.Body), "name=\"stream\"\r\n\r\ntrue\r\n")
	})

	t.Run("omitted size is 1254x1254", func(t *testing.T) {
		const f = `explore:
  - id: x
    feature: images.generate.explore
    spec: "4.4"
    requirement: r
    why: w
    key: image
    models: [gen-image-2]
    request: {method: POST, path: /v1/images/generations, json: {prompt: p}}
    parameters:
      size: [omit, auto]
`
		cat, err := load(t, map[string]string{"x.yaml": f})
		require.NoError(t, err)
		require.Len(t, cat.Cases, 2)
		assert.Equal(t, "x-01", cat.Cases[0].ID)
		assert.Empty(t, cat.Cases[0].Params)
		assert.NotNil(t, cat.Cases[0].Params, "a generated case has a non-nil Params")
		assert.Equal(t, &ImageExpect{Format: "png", Size: "1254x1254", Count: 1}, cat.Cases[0].Expect.Images)
		assert.Equal(t, &ImageExpect{Format: "png", Count: 1}, cat.Cases[1].Expect.Images)
	})
}

func TestExploreIDWidth(t *testing.T) {
	// Two parameters of 11 values give 121 rows (every pair): 3-digit ids.
	var a, b []string
	for i := range 11 {
		a = append(a, fmt.Sprintf("a%d", i))
		b = append(b, fmt.Sprintf("b%d", i))
	}
	f := fmt.Sprintf(`explore:
  - id: wide
    feature: images.generate.explore
    spec: "4.4"
    requirement: r
    why: w
    key: image
    models: [gen-image-2]
    request: {method: POST, path: /v1/images/generations, json: {prompt: p}}
    parameters:
      quality: [%s]
      style: [%s]
`, strings.Join(a, ", "), strings.Join(b, ", "))
	cat, err := load(t, map[string]string{"x.yaml": f})
	require.NoError(t, err)
	require.Len(t, cat.Cases, 121)
	assert.Equal(t, "wide-001", cat.Cases[0].ID)
	assert.Equal(t, "wide-121", cat.Cases[120].ID)
}

func TestExploreBad(t *testing.T) {
	const f = "cases/x.yaml:"
	// base is the second domain of exploreFile alone, so positions are short.
	const base = `explore:
  - id: ex
    feature: images.generate.explore
    spec: "4.4"
    requirement: r
    why: w
    key: image
    models: [gen-image-2]
    request:
      method: POST
      path: /v1/images/generations
      json: {model: "{{ .Model }}", prompt: p}
    parameters:
      size: [1024x1024, auto]
      n: [omit, 2]
      stream: [false, true]
      partial_images: [omit, 3]
    constraints:
      - if: {stream: false}
        then: {partial_images: [omit]}
`
	ok := func(t *testing.T) {
		_, err := load(t, map[string]string{"x.yaml": base})
		require.NoError(t, err)
	}
	t.Run("base loads", ok)

	tests := []struct {
		name, old, new string
		want           []string
	}{
		{"unknown key in domain", "    key: image\n", "    key: image\n    tier: explore\n",
			[]string{f + `8:5: unknown field "tier" in explore domain; known fields: id, feature, spec, requirement, why, key, models, requires, request, parameters, constraints`}},
		{"expect is derived", "    key: image\n", "    key: image\n    expect: {status: 200}\n",
			[]string{f + `8:5: unknown field "expect" in explore domain; known fields: id, feature, spec, requirement, why, key, models, requires, request, parameters, constraints`}},
		{"unknown key in constraint", "then: {partial_images: [omit]}", "than: {partial_images: [omit]}",
			[]string{f + `19:9: constraints[0]: missing field then (the values the other parameters may take)`,
				f + `20:9: unknown field "than" in constraint; did you mean "then"?`}},
		{"missing parameters", "    parameters:\n      size: [1024x1024, auto]\n      n: [omit, 2]\n      stream: [false, true]\n      partial_images: [omit, 3]\n    constraints:\n      - if: {stream: false}\n        then: {partial_images: [omit]}\n", "",
			[]string{f + `2:5: missing field parameters (the parameter domain)`}},
		{"empty parameter", "n: [omit, 2]", "n: []",
			[]string{f + `15:7: parameters.n: no values; give a list of at least one value (omit leaves the parameter out)`}},
		{"null parameter", "n: [omit, 2]", "n:",
			[]string{f + `15:7: parameters.n: no values; give a list of at least one value (omit leaves the parameter out)`}},
		{"parameter not a list", "n: [omit, 2]", "n: 2",
			[]string{f + `15:10: parameters.n: expected a list of values, got an integer`}},
		{"parameters not a mapping", "    parameters:\n      size: [1024x1024, auto]\n", "    parameters: [size]\n    x:\n      size: [1024x1024, auto]\n",
			[]string{f + `13:17: parameters: expected a mapping of parameter names to lists of values, got a list`,
				f + `14:5: unknown field "x" in explore domain; did you mean "id"?`}},
		{"duplicate value", "size: [1024x1024, auto]", "size: [1024x1024, auto, auto]",
			[]string{f + `14:31: parameters.size[2]: value "auto" listed twice`}},
		{"integer parameter", "n: [omit, 2]", "n: [omit, two]",
			[]string{f + `15:17: parameters.n[1]: n takes integers (or omit), got "two"`}},
		{"boolean parameter", "stream: [false, true]", "stream: [false, yes]",
			[]string{f + `16:23: parameters.stream[1]: stream takes true or false (or omit), got "yes"`}},
		{"nested value", "size: [1024x1024, auto]", "size: [1024x1024, {w: 1}]",
			[]string{f + `14:25: parameters.size[1]: expected a value, got a mapping`}},
		{"parameter already in the request", "prompt: p}", "prompt: p, n: 1}",
			[]string{f + `15:7: parameters.n: already set in the base request; a parameter is added to the request, so leave it out of request`}},
		{"constraint names an unknown parameter", "if: {stream: false}", "if: {streaming: false}",
			[]string{f + `19:14: constraints[0].if: unknown parameter "streaming"; did you mean "stream"?`}},
		{"constraint names an unknown value", "then: {partial_images: [omit]}", "then: {partial_images: [omit, 4]}",
			[]string{f + `20:39: constraints[0].then.partial_images: "4" is not a value of parameter partial_images (omit, 3)`}},
		{"constraint if value unknown", "if: {stream: false}", "if: {stream: no}",
			[]string{f + `19:22: constraints[0].if.stream: "no" is not a value of parameter stream (false, true)`}},
		{"constraint if takes one value", "if: {stream: false}", "if: {stream: [false]}",
			[]string{f + `19:22: constraints[0].if.stream: expected one value, got a list (a list belongs in then)`}},
		{"constraint without if", "      - if: {stream: false}\n        then", "      - then",
			[]string{f + `19:9: constraints[0]: missing field if (the parameter values the constraint applies to)`}},
		{"constraint empty if", "if: {stream: false}", "if: {}",
			[]string{f + `19:13: constraints[0].if: empty; name at least one parameter`}},
		{"constraints not a list", "    constraints:\n      - if: {stream: false}\n        then: {partial_images: [omit]}\n", "    constraints: {stream: false}\n",
			[]string{f + `18:18: constraints: expected a list, got a mapping`}},
		{"no valid row", "        then: {partial_images: [omit]}\n", "        then: {partial_images: [omit]}\n      - if: {stream: false}\n        then: {n: [2]}\n      - if: {n: 2}\n        then: {stream: [true]}\n      - if: {stream: true}\n        then: {n: [omit]}\n      - if: {n: omit}\n        then: {stream: [false]}\n",
			[]string{f + `18:5: constraints: no row satisfies every constraint (they contradict each other)`}},
		{"value in no valid row", "        then: {partial_images: [omit]}\n", "        then: {partial_images: [omit]}\n      - if: {stream: true}\n        then: {partial_images: [omit]}\n",
			[]string{f + `17:30: parameters.partial_images[1]: value "3" is in no row the constraints allow`}},
		{"raw request", "      json: {model: \"{{ .Model }}\", prompt: p}\n", "      raw: '{}'\n",
			[]string{f + `12:7: request: an explore domain adds parameters to a json or multipart body, not raw`}},
		{"json not a mapping", "json: {model: \"{{ .Model }}\", prompt: p}", "json: [1]",
			[]string{f + `12:13: request.json: expected a mapping (parameters are added at its top level)`}},
		{"path without derived expectations", "path: /v1/images/generations", "path: /v1/chat/completions",
			[]string{f + `11:13: request.path: expectations are derived for /v1/images/edits and /v1/images/generations only, not "/v1/chat/completions"`}},
		{"GET", "method: POST", "method: GET",
			[]string{f + `10:15: request.method: an explore domain sends POST requests, not GET`,
				f + `12:7: request: a GET request has no body (found json)`}},
		{"bad template in the request", "prompt: p}", "prompt: \"{{ .Key }}\"}",
			[]string{f + `12:45: invalid template: unknown field .Key: templates see only .Model`}},
		{"bad template in a value", "size: [1024x1024, auto]", "size: [1024x1024, \"{{ env }}\"]",
			[]string{f + `14:25: invalid template: function "env" not defined`}},
		{"unknown feature with a bad domain", "feature: images.generate.explore", "feature: images.generate.explor",
			[]string{f + `3:14: unknown feature "images.generate.explor"; did you mean "images.generate.explore"?`}},
		{"bad id", "id: ex", "id: Ex_1",
			[]string{f + `2:9: id "Ex_1" must match ^[a-z0-9][a-z0-9.-]*$`}},
		{"missing id", "  - id: ex\n    feature", "  - feature",
			[]string{f + `2:5: missing field id`}},
		{"missing why", "    why: w\n", "",
			[]string{f + `2:5: a explore case needs why (the reason it matters)`}},
		{"explore not a list", "explore:\n  - id: ex\n", "explore: {}\nx:\n  - id: ex\n",
			[]string{f + `1:10: explore: expected a list of domains, got a mapping`,
				f + `2:1: unknown field "x" in file; known fields: feature_group, defaults, cases, explore, model_additions`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Equal(t, 1, strings.Count(base, tt.old), "fragment %q", tt.old)
			src := strings.Replace(base, tt.old, tt.new, 1)
			_, err := load(t, map[string]string{"x.yaml": src})
			require.Error(t, err)
			var ds Diagnostics
			require.ErrorAs(t, err, &ds)
			assert.Equal(t, strings.Join(tt.want, "\n"), err.Error())
		})
	}

	t.Run("the full product is bounded", func(t *testing.T) {
		var extra strings.Builder
		for _, name := range []string{"a", "b", "c", "d", "e"} {
			fmt.Fprintf(&extra, "      %s: [%s]\n", name, seq16())
		}
		src := strings.Replace(base, "    constraints:\n", extra.String()+"    constraints:\n", 1)
		_, err := load(t, map[string]string{"x.yaml": src})
		require.Error(t, err)
		assert.Equal(t, f+`13:5: parameters: the full product has 16777216 rows; at most 1000000 per domain`, err.Error())
	})

	t.Run("a generated id colliding with a case", func(t *testing.T) {
		const cs = `cases:
  - id: ex-01
    feature: images.generate
    tier: verified
    spec: "4.4"
    requirement: r
    key: image
    models: [gen-image-2]
    request: {method: POST, path: /v1/images/generations, json: {prompt: p}}
    expect: {status: 200}
`
		_, err := load(t, map[string]string{"a.yaml": cs, "x.yaml": base})
		require.Error(t, err)
		assert.Equal(t, f+`2:9: duplicate id "ex-01" (first declared at cases/a.yaml:2:9)`, err.Error())
	})
}

// TestExploreParamsCopied: the generated cases share no mutable state with
// each other (the engine may read them concurrently; additions clone).
func TestExploreParamsCopied(t *testing.T) {
	cat, err := load(t, map[string]string{"explore.yaml": exploreFile})
	require.NoError(t, err)
	a, b := cat.Case("explore-edit-01"), cat.Case("explore-edit-02")
	require.NotNil(t, a)
	require.NotNil(t, b)
	before := maps.Clone(b.Params)
	a.Params["size"] = "changed"
	a.Request.JSON.(map[string]any)["size"] = "changed"
	assert.Equal(t, before, b.Params)
	assert.NotEqual(t, "changed", b.Request.JSON.(map[string]any)["size"])
}

// seq16 is the values v0, ..., v15.
func seq16() string {
	vs := make([]string, 16)
	for i := range vs {
		vs[i] = fmt.Sprintf("v%d", i)
	}
	return strings.Join(vs, ", ")
}
