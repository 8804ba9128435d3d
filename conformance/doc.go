// Package conformance is the engine of gwconform, the conformance and
// contract test suite for the Model-Gateway API. Data flows one way, a
// package per stage:
//
//	load     LoadSuite: case files (catalog), response schemas (schemas), fixtures
//	plan     plan.Make, plan.Probe: case × model, filtered, sharded, capped by a budget (calls, cost units);
//	         plan.Rerun and plan.Resume re-plan a recorded run's failures or its unfinished calls
//	execute  execute.Runner: HTTP per key kind, concurrency per key, timeouts, retries, pacing (pace);
//	         each call's exchange captured (record.Tap: transcripts, run --record) or answered
//	         from a recording (record.Replay); the model lists a check compares with
//	check    check.Answer: status, JSON Schema, gjson matchers, SSE grammars (streams), decoded
//	         images (imagecheck), the rules of every answer of a kind; it reads what execute
//	         received and sends nothing
//	results  one results.Result per case × model, handed on as it finishes
//	report   package report renders results; the engine never imports it
//
// Traffic gwconform did not send enters at check: observe reads each
// round a relay recorded (record), judges the client's request by its own
// rule table and the gateway's answer by check.Answer, and hands on
// results as check's caller in a run does (gwconform judge, serve --judge).
//
// The stages share a vocabulary (vocab: tiers, statuses, reasons). This
// root package wires a run: its settings (Settings: flags, variables,
// gwconform.yaml), its Manifest (manifest.json, written before the first
// call), and the go test entry (Run, ConfigFromEnv).
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
// CLI, the tests and conformancetest — meets both. TestImportRules in
// conformancetest holds that line and the stages' direction (no stage
// imports a later one; pace and record are execute's and observe's alone), and
// TestCheckSendsNothing holds check to reading.
package conformance
