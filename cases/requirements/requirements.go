// Package requirements holds the spec's testable requirements as data: one
// row per testable sentence of the Model-Gateway API spec, which itself lives
// outside the repository. The catalog checks every case's `spec:` against
// these rows, and `go generate ./cases` joins them with the catalog into the
// coverage table of cases/README.md.
package requirements

import _ "embed"

// YAML is requirements.yaml, the rows in spec order.
//
//go:embed requirements.yaml
var YAML []byte
