// Package cases holds the YAML case catalog, embedded into the binary
// (`gwconform run --cases DIR` reads a directory instead). The format and
// the coverage table are in README.md beside the files; the table is
// generated from requirements/requirements.yaml and the cases.
package cases

import "embed"

// FS holds every case file. The pattern matches the top level only, so the
// requirements file in requirements/ is never read as a case file.
//
//go:embed *.yaml
var FS embed.FS

//go:generate go run ./requirements/gen -readme README.md
