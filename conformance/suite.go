package conformance

import (
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
// it is not empty; schemas and fixtures are always the embedded ones.
func LoadSuite(casesDir string) (*Suite, error) {
	if casesDir == "" {
		return LoadSuiteFS(cases.FS)
	}
	return LoadSuiteFS(os.DirFS(casesDir), catalog.WithDisplayDir(casesDir))
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
