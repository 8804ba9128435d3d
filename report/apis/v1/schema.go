package v1

import "embed"

// SchemaFS holds report.schema.json, the JSON Schema of report.json, beside
// the code that writes it (schemas/ holds the gateway's response schemas).
//
//go:embed report.schema.json
var SchemaFS embed.FS
