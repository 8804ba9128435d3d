// Package vocab is the vocabulary the stages share: how much weight a case
// carries (Tier), how one case × model ended (Status), and why (Reason,
// whose Check names the kind of expectation, and whose Cause groups alike
// reasons for triage).
//
// Plan, execute, check and the reporters all speak it; the results file
// format (package results) carries it, and is kept apart from it.
//
// The values are part of the interface contract (DESIGN.md): they may be
// added to, never renamed.
package vocab
