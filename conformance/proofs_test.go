package conformance_test

import (
	"path"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gwconform/gwconform/conformance"
	"github.com/gwconform/gwconform/conformance/catalog"
	"github.com/gwconform/gwconform/conformance/refgateway"
)

// Each requirement row names what proves it (requirements.yaml faults: and
// variations:). The names must mean what they say: a fault a row names is
// one TestEveryFaultIsCaught switches on and sees fail a case citing that
// row; a variation a row names is one TestNoFalseAlarmsOnLegalVariation
// runs through a case citing that row; and every detectable fault proves
// some row. So the coverage table's "proven" is backed by tests that run.
func TestRowsNameTheirProofs(t *testing.T) {
	suite, err := conformance.LoadSuite("")
	require.NoError(t, err)
	cat := suite.Catalog
	cites := func(caseID, rowID string) bool {
		cs := cat.Case(caseID)
		if cs == nil {
			return false
		}
		for _, ref := range cs.Refs {
			rows, err := cat.Spec.Resolve(ref)
			if err == nil && slices.ContainsFunc(rows, func(r *catalog.SpecRow) bool { return r.ID == rowID }) {
				return true
			}
		}
		return false
	}
	faults := map[string]bool{}
	for _, f := range refgateway.Faults() {
		faults[f.Name] = true
	}
	vars := map[string]variation{}
	for _, v := range variations() {
		vars[v.name] = v
	}
	named := map[string]bool{}
	for _, row := range cat.Spec.Rows {
		for _, f := range row.Faults {
			named[f] = true
			if !assert.True(t, faults[f], "%s names the fault %q, which the reference gateway does not have", row.ID, f) {
				continue
			}
			caught := slices.ContainsFunc(faultCases, func(fc faultCase) bool { return fc.fault == f && cites(fc.fails, row.ID) })
			assert.True(t, caught, "%s names the fault %s, but no row of faultCases sees it fail a case citing %s", row.ID, f, row.ID)
		}
		for _, name := range row.Variations {
			v, ok := vars[name]
			if !assert.True(t, ok, "%s names the variation %q, which variations() does not have", row.ID, name) {
				continue
			}
			runs := slices.ContainsFunc(cat.Cases, func(cs catalog.Case) bool {
				return cites(cs.ID, row.ID) && slices.ContainsFunc(v.cases, func(g string) bool { m, _ := path.Match(g, cs.ID); return m })
			})
			assert.True(t, runs, "%s names the variation %q, which runs no case citing %s", row.ID, name, row.ID)
		}
	}
	for f := range faults {
		if _, skip := undetectable[f]; !skip {
			assert.True(t, named[f], "the fault %s proves no requirement row: name it in the rows it breaks", f)
		}
	}
}
