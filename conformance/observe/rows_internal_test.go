package observe

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gwconform/gwconform/conformance"
	"github.com/gwconform/gwconform/conformance/catalog"
)

// TestEveryCitedRowHasASentence: each row a client rule, a type or an
// owed answer cites, and each a note cites, is a row of the requirements
// with a sentence, so no finding quotes an empty one (issue 33: findings
// on 5.2/use-matching-key and 4/base-url-plus-path did).
func TestEveryCitedRowHasASentence(t *testing.T) {
	suite, err := conformance.LoadSuite("")
	require.NoError(t, err)
	rows := []string{"4.5/rule-3", "4.5/rule-5", "4.5/compression-png-omitted", "4.5/compression-jpeg", "4.5/compression-webp", "8/compression",
		"4.5/size-gen-image-2", "4.5/quality-gen-image-2", "4.5/background-opaque", "4.5/background-auto", "4.4/size-omitted", "4.5/size-omitted",
		"4.3/image-shape", "4.3/alt-image-input", "4.2/other-roles", "4.6/responses", "intro/paths-v1", "1/sonnet-4-6-404", "9/retired-404-messages"}
	for _, ru := range slices.Concat(clientRules, typeRules()) {
		rows = append(rows, ru.row)
		if ru.owed != nil {
			rows = append(rows, ru.owed.row)
		}
	}
	for _, e := range endpoints {
		rows = append(rows, beyondRow(e))
		if r := modelRows[e]; r != "" {
			rows = append(rows, r)
		}
	}
	for _, row := range rows {
		got := suite.Catalog.Spec.RowsOf(catalog.SpecRefs{catalog.SpecRef(row)})
		if assert.Len(t, got, 1, row) {
			assert.NotEmpty(t, got[0].Sentence, row)
		}
	}
}
