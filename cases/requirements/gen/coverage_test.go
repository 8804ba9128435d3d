package main

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gwconform/gwconform/conformance/catalog"
	"github.com/gwconform/gwconform/conformance/vocab"
)

// TestCoverageTableFresh regenerates the coverage table in memory and
// compares it with cases/README.md, so a case or requirement change without
// `go generate ./cases` fails here rather than leaving a wrong table.
func TestCoverageTableFresh(t *testing.T) {
	cat, err := loadCatalog()
	require.NoError(t, err)
	readme, err := os.ReadFile("../../README.md")
	require.NoError(t, err)
	want, err := splice(string(readme), coverageTable(cat))
	require.NoError(t, err)
	assert.True(t, want == string(readme), "cases/README.md: the coverage table is stale; run go generate ./cases")
}

func TestSplice(t *testing.T) {
	tests := []struct {
		name    string
		readme  string
		want    string
		wantErr string
	}{
		{"replaces between the markers", "a\n" + beginMarker + "\nold\n" + endMarker + "\nb\n",
			"a\n" + beginMarker + "\nnew\n" + endMarker + "\nb\n", ""},
		{"empty section", beginMarker + endMarker, beginMarker + "\nnew\n" + endMarker, ""},
		{"no begin marker", "a\n" + endMarker, "", "no coverage begin marker"},
		{"no end marker", beginMarker + "\nold\n", "", "no coverage end marker"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := splice(tt.readme, "new\n")
			if tt.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

// TestCoverageTableRows checks the rendering of the three kinds of row on
// the real catalog: covered (with another tier marked), not covered, and
// not testable. The catalog covers every row, so one uncited row is added.
func TestCoverageTableRows(t *testing.T) {
	cat, err := loadCatalog()
	require.NoError(t, err)
	spec := *cat.Spec
	spec.Rows = append(slices.Clone(spec.Rows), catalog.SpecRow{ID: "9/uncited", Section: "9", Sentence: "A sentence no case cites.", Tier: vocab.TierVerified})
	cat.Spec = &spec
	table := coverageTable(cat)
	for _, want := range []string{
		"| `7/edit-file-id` | negative | image edit with `images[].file_id` or `mask.file_id`: 400. | `edit-json-image-file-id` `edit-json-mask-file-id` `edit-json-image-file-id-only` | `file-id-ignored` `file-id-resolved` |  |",
		"| `6.3/stop-reason` | verified |",
		"Proven both ways: ",
		"### Not proven",
		"`messages-image-input` (explore)",
		"`explore-edit-01` … `explore-edit-32`",
		"| `9/retired-404-chat` | strict |",
		"| `9/uncited` | verified | A sentence no case cites. | **not covered** |  |  |",
		"| `6.4/no-webhooks` | explore | No webhooks or other pushed events are shown beyond the stream events above. | not testable: Nothing is pushed, so there is nothing to call or receive. |  |  |",
	} {
		assert.True(t, strings.Contains(table, want), "coverage table lacks %q", want)
	}
}
