package conformance

import (
	"fmt"
	"io/fs"
	"os"

	"github.com/gwconform/gwconform/cases"
	"github.com/gwconform/gwconform/conformance/catalog"
	"github.com/gwconform/gwconform/conformance/execute"
	"github.com/gwconform/gwconform/conformance/plan"
	"github.com/gwconform/gwconform/fixtures"
	"github.com/gwconform/gwconform/schemas"
)

// Suite is everything a run reads before it sends a request: the case
// catalog (with the fixtures its templates read) and the JSON Schemas that
// judge the answers. It is the one way in: the CLI and every test load it
// here.
type Suite struct {
	Catalog *catalog.Catalog
	Schemas *schemas.Set
}

// LoadSuite loads the embedded catalog, or the case files of casesDir when
// it is not empty, and beside it the extra case files (--cases-extra: a
// probe's model additions, a team's own cases); schemas and fixtures are
// always the embedded ones.
func LoadSuite(casesDir string, extra ...string) (*Suite, error) {
	var opts []catalog.Option
	for _, name := range extra {
		data, err := os.ReadFile(name)
		if err != nil {
			return nil, fmt.Errorf("--cases-extra: %w", err)
		}
		opts = append(opts, catalog.WithExtraFiles(catalog.ExtraFile{Name: name, Data: data}))
	}
	if casesDir == "" {
		return LoadSuiteFS(cases.FS, opts...)
	}
	return LoadSuiteFS(os.DirFS(casesDir), append(opts, catalog.WithDisplayDir(casesDir))...)
}

// LoadSuiteFS loads the case files of casesFS (tests with cases of their
// own) with the embedded schemas and fixtures.
func LoadSuiteFS(casesFS fs.FS, opts ...catalog.Option) (*Suite, error) {
	set, err := schemas.Load(schemas.FS)
	if err != nil {
		return nil, err
	}
	cat, err := catalog.Load(casesFS, fixtures.FS, set.Names(), opts...)
	if err != nil {
		return nil, err
	}
	return &Suite{Catalog: cat, Schemas: set}, nil
}

// Runner is a runner of the suite's cases against t.
func (s *Suite) Runner(t plan.Target, o execute.Options) *execute.Runner {
	return &execute.Runner{Catalog: s.Catalog, Schemas: s.Schemas, Target: t, Options: o}
}
