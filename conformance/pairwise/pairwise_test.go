package pairwise

import (
	"fmt"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// editDomain is the parameter domain of image edits (spec 4.5, with the
// verified values of spec 8), background × output_format split into two
// parameters tied by constraints.
func editDomain() ([]Parameter, []Constraint) {
	params := []Parameter{
		{Name: "size", Values: []string{"1024x1024", "1536x1024", "1024x1536", "auto"}},
		{Name: "quality", Values: []string{"low", "medium", "high", "xhigh", "max", "auto"}},
		{Name: "background", Values: []string{"transparent", "opaque", "auto"}},
		{Name: "output_format", Values: []string{"png", "jpeg", "webp"}},
		{Name: "output_compression", Values: []string{"omit", "0", "50", "100"}},
		{Name: "n", Values: []string{"1", "2"}},
		{Name: "stream", Values: []string{"false", "true"}},
		{Name: "partial_images", Values: []string{"omit", "0", "1", "2", "3"}},
	}
	cons := []Constraint{
		// 4.5 background: transparent (with png or webp), opaque (with jpeg), auto (with webp).
		Implies("background", "transparent", "output_format", "png", "webp"),
		Implies("background", "opaque", "output_format", "jpeg"),
		Implies("background", "auto", "output_format", "webp"),
		// 4.5 / 8 output_compression: omitted for png; jpeg 0 and 100; webp 50.
		Implies("output_format", "png", "output_compression", "omit"),
		Implies("output_format", "jpeg", "output_compression", "0", "100"),
		Implies("output_format", "webp", "output_compression", "50"),
		// 4.5 partial_images: streaming only.
		Implies("stream", "false", "partial_images", "omit"),
	}
	return params, cons
}

// enumerate returns every valid full row by brute force over the product,
// checking constraints only on full rows: an oracle independent of the
// generator's pruned search.
func enumerate(params []Parameter, cons []Constraint) [][]string {
	var out [][]string
	row := make([]string, len(params))
	var rec func(i int)
	rec = func(i int) {
		if i == len(params) {
			if valid(params, cons, row) {
				out = append(out, slices.Clone(row))
			}
			return
		}
		for _, v := range params[i].Values {
			row[i] = v
			rec(i + 1)
		}
	}
	rec(0)
	return out
}

func valid(params []Parameter, cons []Constraint, row []string) bool {
	m := make(map[string]string, len(params))
	for i, p := range params {
		m[p.Name] = row[i]
	}
	for _, c := range cons {
		if !c(m) {
			return false
		}
	}
	return true
}

type pair struct {
	i, j int
	a, b string
}

func (p pair) String() string { return fmt.Sprintf("p%d=%s,p%d=%s", p.i, p.a, p.j, p.b) }

func pairsOf(rows [][]string) map[pair]bool {
	set := map[pair]bool{}
	for _, r := range rows {
		for i := range r {
			for j := i + 1; j < len(r); j++ {
				set[pair{i, j, r[i], r[j]}] = true
			}
		}
	}
	return set
}

// assertAllPairs proves coverage by enumeration: every pair that some valid
// full row contains appears in a generated row, every generated row is a
// valid row of the domain, and no generated row holds an infeasible pair
// (which follows from validity, checked for clarity). It returns the number
// of valid full rows.
func assertAllPairs(t *testing.T, params []Parameter, cons []Constraint, rows [][]string) int {
	t.Helper()
	all := enumerate(params, cons)
	feasible := pairsOf(all)
	for _, r := range rows {
		require.Len(t, r, len(params))
		for i, v := range r {
			assert.Contains(t, params[i].Values, v, "row %v: value of %s outside its domain", r, params[i].Name)
		}
		assert.True(t, valid(params, cons, r), "row %v violates a constraint", r)
	}
	covered := pairsOf(rows)
	var missing []string
	for p := range feasible {
		if !covered[p] {
			missing = append(missing, p.String())
		}
	}
	slices.Sort(missing)
	assert.Empty(t, missing, "feasible pairs not covered")
	for p := range covered {
		assert.True(t, feasible[p], "row holds infeasible pair %v", p)
	}
	return len(all)
}

func TestGenerateCoversAllPairs(t *testing.T) {
	three := []string{"0", "1", "2"}
	editParams, editCons := editDomain()
	tests := []struct {
		name    string
		params  []Parameter
		cons    []Constraint
		maxRows int
	}{
		{
			name:    "textbook 3^4 (optimum 9)",
			params:  []Parameter{{"A", three}, {"B", three}, {"C", three}, {"D", three}},
			maxRows: 11,
		},
		{
			name:    "image edit domain (spec 4.5)",
			params:  editParams,
			cons:    editCons,
			maxRows: 40,
		},
		{
			name: "mixed sizes without constraints",
			params: []Parameter{
				{"A", []string{"a1", "a2"}}, {"B", []string{"b1", "b2", "b3", "b4"}},
				{"C", []string{"c1"}}, {"D", []string{"d1", "d2", "d3"}}, {"E", []string{"e1", "e2"}},
			},
			maxRows: 14,
		},
		{
			name:    "two parameters is the full product",
			params:  []Parameter{{"A", three}, {"B", []string{"x", "y"}}},
			maxRows: 6,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rows, err := Generate(tc.params, tc.cons...)
			require.NoError(t, err)
			nValid := assertAllPairs(t, tc.params, tc.cons, rows)
			assert.LessOrEqual(t, len(rows), tc.maxRows)
			assert.Equal(t, nValid, CountValid(tc.params, tc.cons...), "CountValid disagrees with enumeration")
			t.Logf("%d rows; Cartesian product %d; valid full rows %d",
				len(rows), Cartesian(tc.params), nValid)
		})
	}
}

// TestEditDomainNumbers pins the figures quoted for issue 5 acceptance 2, so
// a change to the generator that changes them is noticed.
func TestEditDomainNumbers(t *testing.T) {
	params, cons := editDomain()
	rows, err := Generate(params, cons...)
	require.NoError(t, err)
	assert.Equal(t, 17280, Cartesian(params))
	nValid := CountValid(params, cons...)
	// 4 sizes × 6 qualities × 5 background/format/compression triples × 2 n ×
	// 6 stream/partial_images pairs.
	assert.Equal(t, 1440, nValid)
	// The lower bound is 30 (quality × partial_images, all feasible).
	assert.Equal(t, 32, len(rows))
	t.Logf("image edit domain: %d generated calls vs Cartesian product %d (valid full rows %d)",
		len(rows), Cartesian(params), nValid)
	for _, r := range rows {
		t.Logf("  %v", r)
	}
}

func TestGenerateDeterministic(t *testing.T) {
	params, cons := editDomain()
	first, err := Generate(params, cons...)
	require.NoError(t, err)
	for range 5 {
		again, err := Generate(params, cons...)
		require.NoError(t, err)
		require.Equal(t, first, again)
	}
}

func TestGenerateInfeasiblePairs(t *testing.T) {
	ab := func(p string) []string { return []string{p + "1", p + "2"} }
	tests := []struct {
		name       string
		params     []Parameter
		cons       []Constraint
		infeasible []pair
	}{
		{
			// No constraint mentions A and B together, yet A=a1 forces C=c1
			// and B=b1 forces C=c2: only a search over C finds that the pair
			// (a1, b1) can occur in no valid row.
			name:   "indirect, found by search",
			params: []Parameter{{"A", ab("a")}, {"B", ab("b")}, {"C", ab("c")}, {"D", ab("d")}},
			cons: []Constraint{
				Implies("A", "a1", "C", "c1"),
				Implies("B", "b1", "C", "c2"),
			},
			infeasible: []pair{{0, 1, "a1", "b1"}, {0, 2, "a1", "c2"}, {1, 2, "b1", "c1"}},
		},
		{
			name:   "direct exclusion",
			params: []Parameter{{"A", ab("a")}, {"B", ab("b")}, {"C", ab("c")}},
			cons: []Constraint{func(m map[string]string) bool {
				return !(m["B"] == "b2" && m["C"] == "c2")
			}},
			infeasible: []pair{{1, 2, "b2", "c2"}},
		},
		{
			// A value that no valid row can hold at all must not be demanded.
			name:   "dead value",
			params: []Parameter{{"A", []string{"a1", "a2", "a3"}}, {"B", ab("b")}, {"C", ab("c")}},
			cons: []Constraint{
				Implies("A", "a3", "B", "b1"),
				Implies("A", "a3", "C", "c1"),
				Implies("B", "b1", "C", "c2"),
			},
			infeasible: []pair{{0, 1, "a3", "b1"}, {0, 1, "a3", "b2"}, {0, 2, "a3", "c1"}, {0, 2, "a3", "c2"}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rows, err := Generate(tc.params, tc.cons...)
			require.NoError(t, err)
			assertAllPairs(t, tc.params, tc.cons, rows)
			covered := pairsOf(rows)
			feasible := pairsOf(enumerate(tc.params, tc.cons))
			for _, p := range tc.infeasible {
				assert.False(t, feasible[p], "test setup: %v should be infeasible", p)
				assert.False(t, covered[p], "infeasible pair %v generated", p)
			}
		})
	}
}

func TestGenerateSingleParameter(t *testing.T) {
	params := []Parameter{{"A", []string{"x", "y", "z"}}}
	rows, err := Generate(params, Implies("A", "y", "A"))
	require.NoError(t, err)
	assert.Equal(t, [][]string{{"x"}, {"z"}}, rows)
}

func TestGenerateErrors(t *testing.T) {
	tests := []struct {
		name    string
		params  []Parameter
		cons    []Constraint
		wantErr string
	}{
		{"no parameters", nil, nil, "no parameters"},
		{"empty values", []Parameter{{"A", []string{"x"}}, {"B", nil}}, nil, `"B" has no values`},
		{"duplicate name", []Parameter{{"A", []string{"x"}}, {"A", []string{"y"}}}, nil, `duplicate parameter "A"`},
		{"empty name", []Parameter{{"", []string{"x"}}}, nil, "has no name"},
		{"duplicate value", []Parameter{{"A", []string{"x", "x"}}}, nil, `repeats value "x"`},
		{
			"no valid row",
			[]Parameter{{"A", []string{"x"}}, {"B", []string{"y"}}},
			[]Constraint{Implies("A", "x", "B", "z")},
			ErrNoValidRow.Error(),
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rows, err := Generate(tc.params, tc.cons...)
			require.ErrorContains(t, err, tc.wantErr)
			assert.Nil(t, rows)
		})
	}
	_, err := Generate([]Parameter{{"A", []string{"x"}}}, func(map[string]string) bool { return false })
	assert.ErrorIs(t, err, ErrNoValidRow)
}

func TestCartesianAndCountValid(t *testing.T) {
	params, cons := editDomain()
	assert.Equal(t, 4*6*3*3*4*2*2*5, Cartesian(params))
	assert.Equal(t, len(enumerate(params, cons)), CountValid(params, cons...))
	assert.Equal(t, Cartesian(params), CountValid(params))
	assert.Equal(t, 0, Cartesian(nil))
	assert.Equal(t, 0, CountValid(nil))
}

func TestImplies(t *testing.T) {
	c := Implies("background", "opaque", "output_format", "jpeg")
	tests := []struct {
		assign map[string]string
		want   bool
	}{
		{map[string]string{}, true},
		{map[string]string{"background": "opaque"}, true},
		{map[string]string{"output_format": "png"}, true},
		{map[string]string{"background": "opaque", "output_format": "jpeg"}, true},
		{map[string]string{"background": "opaque", "output_format": "png"}, false},
		{map[string]string{"background": "auto", "output_format": "png"}, true},
	}
	for _, tc := range tests {
		assert.Equal(t, tc.want, c(tc.assign), "%v", tc.assign)
	}
}

func BenchmarkGenerateEditDomain(b *testing.B) {
	params, cons := editDomain()
	for b.Loop() {
		if _, err := Generate(params, cons...); err != nil {
			b.Fatal(err)
		}
	}
}
