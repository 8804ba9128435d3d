package catalog

import (
	"os"
	"path/filepath"
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

// TestCatalogLoads loads the whole embedded catalog: zero diagnostics, every
// case renders for every one of its models, and every case cites requirement
// rows by id: a bare section would count as covering each of its rows, and
// the coverage table of cases/README.md must show exactly what is checked.
func TestCatalogLoads(t *testing.T) {
	cat := loadRealCatalog(t)
	require.NotEmpty(t, cat.Cases)
	for i := range cat.Cases {
		cs := &cat.Cases[i]
		for _, r := range cs.Refs {
			assert.True(t, r.IsRow(), "%s: spec cites section %q; cite the requirement ids it checks", cs.Pos, r)
		}
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
