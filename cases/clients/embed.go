// Package clients holds the table of known client libraries as data: how
// the judge names a client from the headers of its requests, and each
// library's own remedy for a breach its default options make. The catalog
// reads and checks it (catalog.LoadClients); the format is in
// cases/README.md ("Known clients").
package clients

import _ "embed"

// YAML is clients.yaml, the entries in the order they are tried.
//
//go:embed clients.yaml
var YAML []byte
