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

// Schema is cases.schema.json, the JSON Schema (draft 2020-12) of a case
// file. Editors find it through each file's first line
// (`# yaml-language-server: $schema=./cases.schema.json`); `gwconform lint`
// checks every case file against it (catalog.CheckSchema).
//
//go:embed cases.schema.json
var Schema []byte

//go:generate go run ./requirements/gen -readme README.md
