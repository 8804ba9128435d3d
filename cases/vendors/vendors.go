// Package vendors holds the table of what a gateway may call the spec's
// models, as data: the vendor words that stand for each neutral word and
// the provider prefixes that may stand before an id (vendors.yaml). It
// lives beside the catalog, a data package as cases/ is, because two sides
// that must not share code read it: the engine (conformance/modelid, for
// the run and the judge) and the reference gateway, which imports nothing
// of the engine. Each reads the bytes with its own reader.
package vendors

import _ "embed"

// YAML is vendors.yaml.
//
//go:embed vendors.yaml
var YAML []byte
