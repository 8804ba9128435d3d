package catalog

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gwconform/gwconform/cases"
)

// schemaNames reads the schema names from ../../schemas/*.json, the files the
// engine embeds, so a case naming a schema that does not exist fails here.
func schemaNames(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob("../../schemas/*.json")
	require.NoError(t, err)
	require.NotEmpty(t, files, "no schemas in ../../schemas")
	var names []string
	for _, f := range files {
		names = append(names, strings.TrimSuffix(filepath.Base(f), ".json"))
	}
	return names
}

func loadRealCatalog(t *testing.T) *Catalog {
	t.Helper()
	cat, err := Load(cases.FS, os.DirFS("../../fixtures"), schemaNames(t))
	require.NoError(t, err, "the embedded catalog must load without diagnostics")
	return cat
}

// TestCatalogLoads loads the whole embedded catalog: zero diagnostics, and
// every case renders for every one of its models.
func TestCatalogLoads(t *testing.T) {
	cat := loadRealCatalog(t)
	require.NotEmpty(t, cat.Cases)
	for i := range cat.Cases {
		cs := &cat.Cases[i]
		for _, m := range cs.Models {
			_, err := cat.Render(cs, m, Env{PublicImageURL: "https://images.example/ref.png"})
			assert.NoError(t, err, "%s for %s", cs.ID, m)
		}
	}
	// Render is safe for concurrent use (the engine renders from many
	// goroutines; -race checks the shared fixture cache).
	var wg sync.WaitGroup
	for i := range cat.Cases {
		wg.Go(func() {
			_, err := cat.Render(&cat.Cases[i], cat.Cases[i].Models[0], Env{PublicImageURL: "https://images.example/ref.png"})
			assert.NoError(t, err)
		})
	}
	wg.Wait()
	// The disk copy and the embedded copy are the same files.
	disk, err := Load(os.DirFS("../../cases"), os.DirFS("../../fixtures"), schemaNames(t))
	require.NoError(t, err)
	assert.Equal(t, cat.Hash(), disk.Hash())
}

var coverageID = regexp.MustCompile("`([a-z0-9][a-z0-9.-]*)`")

// TestCoverageTable checks the coverage table of cases/README.md: every case
// id it names exists, every row names at least one (or says "—" and why),
// and every case of the verified and negative tiers appears in it.
func TestCoverageTable(t *testing.T) {
	cat := loadRealCatalog(t)
	readme, err := os.ReadFile("../../cases/README.md")
	require.NoError(t, err)
	_, table, found := strings.Cut(string(readme), "## Coverage")
	require.True(t, found, "cases/README.md has no '## Coverage' section")
	if end := strings.Index(table, "\n## "); end >= 0 {
		table = table[:end]
	}
	named := map[string]bool{}
	rows := 0
	for _, line := range strings.Split(table, "\n") {
		cells := strings.Split(line, "|")
		if len(cells) < 4 || strings.HasPrefix(strings.TrimSpace(cells[1]), "---") || strings.TrimSpace(cells[1]) == "Spec" {
			continue
		}
		rows++
		idCell := cells[len(cells)-2]
		if strings.HasPrefix(strings.TrimSpace(idCell), "—") {
			continue // a row no single call can check; the cell says why
		}
		ids := coverageID.FindAllStringSubmatch(idCell, -1)
		if !assert.NotEmpty(t, ids, "coverage row names no case: %s", line) {
			continue
		}
		for _, m := range ids {
			named[m[1]] = true
			assert.NotNil(t, cat.Case(m[1]), "coverage table names case %q, which does not exist", m[1])
		}
	}
	assert.Greater(t, rows, 30, "coverage table looks truncated")
	for _, cs := range cat.Cases {
		if cs.Tier == "verified" || cs.Tier == "negative" {
			assert.True(t, named[cs.ID], "%s case %s is missing from the coverage table", cs.Tier, cs.ID)
		}
	}
}
