// Package cases holds the YAML case catalog, embedded into the binary
// (`gwconform run --cases DIR` reads a directory instead). The format and
// the coverage table are in README.md beside the files.
package cases

import "embed"

// FS holds every case file.
//
//go:embed *.yaml
var FS embed.FS
