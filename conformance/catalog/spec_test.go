package catalog

import (
	"strings"
	"testing"

	"github.com/gwconform/gwconform/conformance/vocab"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestEmbeddedSpec loads the committed requirements file: no diagnostics,
// and at least the 112 testable rows issue 9 counted in the spec.
func TestEmbeddedSpec(t *testing.T) {
	s, err := embeddedSpec()
	require.NoError(t, err)
	testable := 0
	for _, row := range s.Rows {
		if row.NotTestable == "" {
			testable++
		}
	}
	assert.GreaterOrEqual(t, testable, 112)
	assert.Equal(t, "4.5", s.byID["4.5/rule-2"].Section)
	assert.Equal(t, vocab.TierNegative, s.byID["4.5/rule-2"].Tier)
}

func TestLoadSpecBad(t *testing.T) {
	const row = "requirements:\n  - id: 4.5/rule-2\n    section: \"4.5\"\n    sentence: file_id is rejected\n    tier: negative\n"
	tests := []struct {
		name string
		data string
		want string
	}{
		{"duplicate id", row + strings.TrimPrefix(row, "requirements:\n"),
			"r.yaml:6:9: duplicate id \"4.5/rule-2\" (first declared at r.yaml:2:9)"},
		{"section differs from id", strings.Replace(row, `"4.5"`, `"4.4"`, 1),
			"r.yaml:3:14: section \"4.4\" does not match the id 4.5/rule-2"},
		{"id without slug", strings.Replace(row, "4.5/rule-2", "4.5", 1),
			"r.yaml:2:9: id \"4.5\" must be <section>/<slug>, e.g. 4.5/rule-2"},
		{"bad tier", strings.Replace(row, "negative", "gold", 1),
			"r.yaml:5:11: tier \"gold\" is not one of verified, negative, strict, explore"},
		{"missing sentence", strings.Replace(row, "    sentence: file_id is rejected\n", "", 1),
			"r.yaml:2:5: missing field sentence"},
		{"empty reason", row + "    not_testable: \"\"\n",
			"r.yaml:6:19: not_testable: empty; give the reason, or leave the field out"},
		{"unknown field", strings.Replace(row, "tier:", "tire:", 1),
			"r.yaml:2:5: missing field tier\nr.yaml:5:5: unknown field \"tire\" in requirement row; did you mean \"tier\"?"},
		{"unknown top-level field", "rows: []\n",
			"r.yaml:1:1: unknown field \"rows\" in requirements file; known fields: requirements\nr.yaml:1:1: expected a mapping with requirements: a list of rows"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := LoadSpec("r.yaml", []byte(tt.data))
			var ds Diagnostics
			require.ErrorAs(t, err, &ds)
			assert.Equal(t, tt.want, err.Error())
		})
	}
}

// TestSpecRefs checks `spec:` of a case against the embedded requirements:
// one reference or a list, row ids or sections.
func TestSpecRefs(t *testing.T) {
	tests := []struct {
		name     string
		spec     string
		wantRefs SpecRefs
		wantSpec string
	}{
		{"list of ids", "[4.5/multipart-two-refs, 4.5/rule-5]", SpecRefs{"4.5/multipart-two-refs", "4.5/rule-5"}, "4.5/multipart-two-refs, 4.5/rule-5"},
		{"one id", "4.5/rule-5", SpecRefs{"4.5/rule-5"}, "4.5/rule-5"},
		{"a section", `"4.5"`, SpecRefs{"4.5"}, "4.5"},
		{"a section as a number", "7", SpecRefs{"7"}, "7"},
		{"block list", "\n      - 4.5/rule-5\n      - intro/paths-v1", SpecRefs{"4.5/rule-5", "intro/paths-v1"}, "4.5/rule-5, intro/paths-v1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cat, err := load(t, map[string]string{"x.yaml": replace(t, "spec: [4.5/multipart-two-refs, 4.5/rule-5]", "spec: "+tt.spec)})
			require.NoError(t, err)
			c := cat.Cases[0]
			assert.Equal(t, tt.wantRefs, c.Refs)
			assert.Equal(t, tt.wantSpec, c.Spec)
		})
	}
}

func TestSpecRefsBad(t *testing.T) {
	const f = "cases/x.yaml:"
	tests := []struct {
		name string
		spec string
		want string
	}{
		{"unknown id, its position in the list", "[4.5/multipart-two-refs, 4.5/rule-9]",
			f + `6:36: spec: unknown requirement "4.5/rule-9"; did you mean "4.5/rule-1"?`},
		{"free text of the old format", `"4.5 multipart; rule 5"`,
			f + `6:11: spec: unknown reference "4.5 multipart; rule 5": give a requirement id such as 4.5/rule-2 or a section such as 4.5 (cases/requirements/requirements.yaml)`},
		{"section without rows", `"4.9"`,
			f + `6:11: spec: unknown reference "4.9": give a requirement id such as 4.5/rule-2 or a section such as 4.5 (cases/requirements/requirements.yaml)`},
		{"row that is not testable", "[4.5/rule-5, 6.4/no-webhooks]",
			f + `6:24: spec: requirement 6.4/no-webhooks is marked not testable (Nothing is pushed, so there is nothing to call or receive.)`},
		{"listed twice", "[4.5/rule-5, 4.5/rule-5]",
			f + `6:24: spec: 4.5/rule-5 listed twice`},
		{"empty", `""`, f + `6:11: spec: empty`},
		{"a mapping", "{id: 4.5/rule-5}", f + `6:11: spec: expected a requirement id or a list of them, got a mapping`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := load(t, map[string]string{"x.yaml": replace(t, "spec: [4.5/multipart-two-refs, 4.5/rule-5]", "spec: "+tt.spec)})
			var ds Diagnostics
			require.ErrorAs(t, err, &ds)
			assert.Equal(t, tt.want, err.Error())
		})
	}
}

// TestRowsOfNotTestableRow: a row no case may cite still has its sentence
// for the judge, which checks it of a client's traffic (issue 33: findings
// on 5.2/use-matching-key quoted an empty sentence); a section names its
// testable rows only, and an unknown id nothing.
func TestRowsOfNotTestableRow(t *testing.T) {
	s, err := embeddedSpec()
	require.NoError(t, err)
	for _, id := range []string{"5.2/use-matching-key", "4/base-url-plus-path", "4.1/method"} {
		rows := s.RowsOf(SpecRefs{SpecRef(id)})
		require.Len(t, rows, 1, id)
		assert.NotEmpty(t, rows[0].NotTestable, id)
		assert.NotEmpty(t, rows[0].Sentence, id)
	}
	for _, row := range s.RowsOf(SpecRefs{"5.2"}) {
		assert.Empty(t, row.NotTestable, row.ID)
	}
	assert.Empty(t, s.RowsOf(SpecRefs{"5.2/no-such-row"}))
}
