// Package runs works across runs, from their reports and results: Compare
// diffs two nights' report.json (regressions, fixes, lost coverage, new and
// removed models; Diff.WriteMarkdown for a job summary), BuildHistory lines
// many nights up (first red night, red since, flapping; History.WriteHTML
// writes history.html) and Merge joins the results of a run's shards.
//
// It reads reports only through their types (package v1), so a report.json
// written by an older build of the suite can be compared years later; it
// never builds or writes a run's own reports, which is package report's job.
package runs
