package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/gwconform/gwconform/conformance"
	"github.com/gwconform/gwconform/conformance/plan"
	"github.com/gwconform/gwconform/conformance/results"
)

// resumeRun continues the run in --out that an interrupt (Ctrl-C, SIGTERM,
// even SIGKILL) cut short: with the recorded run's manifest (refusing
// other settings), it re-plans the same calls, keeps the results that
// finished, makes the rest — the calls never reported and those the
// interrupt cancelled, whose lines it drops — appending them to
// results.jsonl, and writes the full reports. The outcome is the one an
// uninterrupted run would have had: each case × model once.
func resumeRun(ss *session, recorded conformance.Manifest, stdout, stderr io.Writer) int {
	if !sameRun(ss, recorded, "--resume", "resuming", stderr) {
		return exitNotStart
	}
	path := filepath.Join(ss.out, results.FileName)
	prior, err := results.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		fmt.Fprintln(stderr, "gwconform run --resume:", err)
		return exitNotStart
	}
	planned, err := plan.Make(ss.suite.Catalog, ss.target, ss.selection)
	if err != nil {
		fmt.Fprintln(stderr, "gwconform run --resume:", err)
		return exitNotStart
	}
	kept, todo := plan.Resume(planned, prior)
	// The kept lines replace the file first: a cancelled line or a torn
	// one (SIGKILL mid-write) must not stay beside its re-run.
	if err := results.WriteFile(path, kept); err != nil {
		fmt.Fprintln(stderr, "gwconform run --resume:", err)
		return exitNotStart
	}
	w, err := results.Append(path)
	if err != nil {
		fmt.Fprintln(stderr, "gwconform run --resume:", err)
		return exitNotStart
	}
	fmt.Fprintf(stdout, "resuming %s: %d of %d results kept, %d calls to make\n", ss.out, len(kept), len(planned), len(todo))
	again, con, err := runCalls(ss, todo, kept, stdout, w.Write)
	interrupted := ss.ctx.Err() != nil
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		fmt.Fprintln(stderr, "gwconform run --resume:", err)
		return exitFailed
	}
	return ss.finish(ending{command: "run --resume", plan: planned, results: append(kept, again...), con: con,
		interrupted: interrupted, planned: &recorded.Planned.CostUnits, covered: true}, stdout, stderr)
}
