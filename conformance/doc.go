// Package conformance is the engine of gwconform, the conformance and
// contract test suite for the Model-Gateway API. Data flows one way:
//
//	load     LoadSuite: case files (catalog), response schemas (schemas), fixtures
//	plan     Plan, PlanProbe: case × model, filtered, sharded, capped by a budget (calls, cost units);
//	         a Manifest (manifest.json) records the run before its first call, PlanRerun re-plans its failures
//	execute  Runner: HTTP per key kind, concurrency per key, timeouts, retries; each call's exchange
//	         captured (record.Tap: transcripts, run --record) or answered from a recording (record.Replay)
//	check    status, JSON Schema, gjson matchers, SSE grammars (streams), decoded images (imagecheck);
//	         the rules of every answer of a kind (check_kind.go) in every case that receives one
//	results  one results.Result per case × model, handed on as it finishes
//	report   package report renders results; the engine never imports it
//
// Subpackages: catalog (loading and rendering cases, the requirements),
// results (the result record, results.jsonl and the verdict: results.Judge),
// sse and streams (reading and judging event streams), imagecheck (decoding,
// size, alpha), modelid (the spellings of "model used"), pairwise
// (explore-tier combinations), redact (secrets out of every output), waivers
// (known deviations: --waivers), record (recordings: run --record, --replay,
// serve's relay and stand-in).
//
// The reference gateway (refgateway) is the thing judged: it imports nothing
// of the engine and the engine imports nothing of it. Only the wiring — the
// CLI, the tests and conformancetest — meets both; TestImportRules in
// conformancetest holds that line.
package conformance
