package record

import "embed"

// SchemaFS holds the JSON Schemas of the format, beside the code that
// writes it: recording.schema.json and exchange.schema.json.
//
//go:embed recording.schema.json exchange.schema.json
var SchemaFS embed.FS
