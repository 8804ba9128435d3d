// Package v1 is the report.json data model, apiVersion
// gwconform.dev/v1alpha1, kind ConformanceReport: the Report that
// report.Build makes of a run's results and every writer renders, with its
// metadata, cells, per-tier totals, cost, waivers, the explore tier's
// capability map and the failures grouped by cause; Meta, what the runner tells Build beyond the results;
// WriteJSON and ReadJSON, which write report.json and read it back (for
// diff, history and merge, package runs); and SchemaFS, the JSON Schema of
// the format (report.schema.json).
//
// It holds the types and nothing that renders them, as the Kubernetes
// Gateway API keeps its versioned types in apis/v1. Import it as reportv1.
// A change that is not a pure addition bumps APIVersion; ReadJSON refuses
// versions it does not know.
package v1
