package main

// Every command that runs cases (run, run --resume, run --rerun-failed,
// probe) follows one sequence: settings → preflight (openSession) → plan →
// execute → judge → write. The last two are finish: one place decides what
// a run concludes, what its reports say and how it exits, so an interrupt,
// a budget or a re-run cannot be judged four ways.

import (
	"fmt"
	"io"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/gwconform/gwconform/conformance/plan"
	"github.com/gwconform/gwconform/conformance/results"
	"github.com/gwconform/gwconform/report"
	reportv1 "github.com/gwconform/gwconform/report/apis/v1"
)

// ending is what a command hands to finish.
type ending struct {
	command string           // "run", "run --resume", ...: the messages' prefix
	plan    []plan.Call      // every call of the run's plan
	results []results.Result // every result the reports show, kept ones included
	con     *console
	// interrupted is read right after the calls: a signal during the
	// coverage listing comes after the last case and ends nothing.
	interrupted bool
	planned     *float64 // the plan's estimated cost units (nil: not known)
	// discovery runs (probe) judge a model, not the gateway: only an
	// interrupt changes their exit code.
	discovery bool
	// covered lists the gateway's models after the cases (coverage drift).
	covered bool
}

// finish judges the run, prints the summary, writes the reports and
// returns the exit code.
func (ss *session) finish(e ending, stdout, stderr io.Writer) int {
	comp := completion(e.plan, e.results, ss.strict, e.interrupted)
	v := results.Judge(e.results, ss.strict, comp)
	// The console's notes say what the report's say of the model names
	// (report.Build adds them itself); the verdict is the same.
	v.Notes = append(v.Notes, report.ModelNameNotes(reportModelMap(ss.target.Names))...)
	e.con.summary(e.results, v)
	readiness := clientReadiness(ss.settings, e.results)
	printReadiness(e.con.w, readiness, ss.requireClients)
	extra := reportExtra{planned: e.planned, completion: comp}
	if e.covered && !e.interrupted {
		extra.uncovered = uncoveredModels(ss, stdout, stderr)
	}
	if err := writeReports(ss.settings, ss.local, ss.suite.Catalog, e.results, extra); err != nil {
		fmt.Fprintf(stderr, "gwconform %s: writing reports: %v\n", e.command, err)
		return exitFailed
	}
	fmt.Fprintf(stdout, "outputs in %s\n", filepath.Clean(ss.out))
	if v.Outcome == results.OutcomeFail {
		nextSteps(stdout, ss.out, e.results, ss.strict)
	}
	if e.interrupted {
		fmt.Fprintf(stderr, "gwconform %s: interrupted after %d of %d calls; the finished ones are in %s: run --resume to finish\n",
			e.command, finished(e.results), len(e.plan), filepath.Join(ss.out, results.FileName))
	}
	if e.discovery {
		if e.interrupted {
			return exitIncomplete
		}
		return exitOK
	}
	return requiredExit(exitCode(v), readiness, ss.requireClients, e.command, stderr)
}

// completion says what of the plan has no result: the counted calls an
// interrupt left undone or cut, or that a re-run held back — the calls
// --resume would still make (plan.Resume).
func completion(planned []plan.Call, rs []results.Result, strict, interrupted bool) results.Completion {
	c := results.Completion{Interrupted: interrupted, Planned: len(planned)}
	_, todo := plan.Resume(planned, rs)
	for _, call := range todo {
		if call.Case.Tier.Decides(strict) {
			c.Unrun++
		}
	}
	return c
}

// finished counts the results that are not cut by an interrupt.
func finished(rs []results.Result) int {
	n := 0
	for _, r := range rs {
		if !r.Cancelled {
			n++
		}
	}
	return n
}

// reportModelMap is the model map as report.json records it: every
// record, a listed one too, so a reader sees each model was sent as is.
func reportModelMap(names plan.ModelNames) []reportv1.ModelName {
	var out []reportv1.ModelName
	for _, n := range names.Records() {
		out = append(out, reportv1.ModelName{Spec: n.Spec, Gateway: n.Gateway, Key: string(n.Key), Source: reportv1.NameSource(n.Source),
			Candidates: n.Candidates, Unlisted: n.Unlisted, Why: n.Why})
	}
	return out
}

// nextSteps ends a red run's console with where to look: the report, and
// the command that sends the first cause's example again.
func nextSteps(w io.Writer, out string, rs []results.Result, strict bool) {
	fmt.Fprintf(w, "next: open %s", filepath.Join(filepath.Clean(out), report.FileHTML))
	if groups := causeGroups(rs, strict); len(groups) > 0 {
		ex := groups[0].Example
		fmt.Fprintf(w, "; send the first cause's example again: gwconform show --out %s --model %s --curl %s", shellWord(filepath.Clean(out)), shellWord(ex.Model), shellWord(ex.Case))
	}
	fmt.Fprintln(w)
}

// plainWord is a word a shell reads as it is.
var plainWord = regexp.MustCompile(`^[A-Za-z0-9._/:=@+-]+$`)

// shellWord is s as one shell word: as it is when plain, else quoted.
func shellWord(s string) string {
	if plainWord.MatchString(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
