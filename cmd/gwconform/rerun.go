package main

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/gwconform/gwconform/conformance"
	"github.com/gwconform/gwconform/conformance/plan"
	"github.com/gwconform/gwconform/conformance/results"
	"github.com/gwconform/gwconform/conformance/vocab"
)

// adopt gives every setting the command line does not set the recorded
// run's value (conformance.Settings.Adopt: the selection, the budgets,
// strict, the execution options, the cases directory, the gateway, the
// waivers, the recording) and resolves the settings again. What the
// command line does give is kept, and sameRun refuses it when it differs
// from the recorded run.
func (f *engineFlags) adopt(s *settings, m conformance.Manifest) error {
	if err := f.set.Adopt(m); err != nil {
		return err
	}
	again, err := f.resolve()
	if err != nil {
		return err
	}
	*s = *again
	return nil
}

// rerunFailed re-runs the results of the run in --out that would page
// someone or leave it incomplete (fail, error, throttled, inconclusive;
// verified and negative, strict under --strict), each negative with its
// control, with the recorded run's selection and settings, within what
// is left of its budget. Each re-run result replaces its line in
// results.jsonl, keeping its first run's status and reasons (a pass is
// flaky), and every report is written again.
func rerunFailed(ss *session, recorded conformance.Manifest, stdout, stderr io.Writer) int {
	if !sameRun(ss, recorded, "--rerun-failed", "re-running", stderr) {
		return exitNotStart
	}
	path := filepath.Join(ss.out, results.FileName)
	recordedRs, err := results.ReadFile(path)
	if err != nil {
		fmt.Fprintln(stderr, "gwconform run --rerun-failed:", err)
		return exitNotStart
	}
	// The plan is re-made without its budget, which plan.Rerun applies to the
	// re-runs with what the recorded results left of it.
	planSel := ss.selection
	planSel.MaxCalls, planSel.MaxCost = 0, 0
	planned, err := plan.Make(ss.suite.Catalog, ss.target, planSel)
	if err != nil {
		fmt.Fprintln(stderr, "gwconform run --rerun-failed:", err)
		return exitNotStart
	}
	run, held := plan.Rerun(planned, recordedRs, ss.strict, ss.selection)
	fmt.Fprintf(stdout, "re-running %d calls of %s: its failed, errored, throttled or inconclusive verified/negative results with the controls of their negatives, and the calls it never finished\n", len(run), path)
	for _, c := range held {
		fmt.Fprintf(stderr, "not re-run: %s: %s\n", c.ID(), c.Skip.Message)
	}

	again, con, _ := runCalls(ss, run, nil, stdout, nil)
	if ss.ctx.Err() != nil {
		// Nothing is written: the recorded run stays whole for another try.
		v := results.Judge(again, ss.strict, completion(run, again, ss.strict, true))
		con.summary(again, v)
		fmt.Fprintf(stderr, "gwconform run --rerun-failed: interrupted; %s is left as it was\n", path)
		return exitCode(v)
	}
	now := map[results.CaseModel]results.Result{}
	for _, r := range again {
		now[r.CaseModel()] = r
	}
	merged := make([]results.Result, 0, len(recordedRs)+len(again))
	flaky, made, controls := 0, 0, 0
	for _, r := range recordedRs {
		k := r.CaseModel()
		if n, ok := now[k]; ok {
			delete(now, k)
			if r.Cancelled {
				// The interrupt cut it: it never ended, so it is made, not re-run.
				merged = append(merged, n)
				made++
				continue
			}
			// Re-run only as the control of a negative: it did not fail.
			companion := !r.Rerunnable(ss.strict)
			r = results.Rerun(r, n)
			switch {
			case companion:
				controls++
			case r.Status == vocab.StatusPass:
				flaky++
			}
		}
		merged = append(merged, r)
	}
	for _, r := range again { // the calls the recorded run never made
		if _, ok := now[r.CaseModel()]; ok {
			merged = append(merged, r)
			made++
		}
	}
	if err := results.WriteFile(path, merged); err != nil {
		fmt.Fprintln(stderr, "gwconform run --rerun-failed:", err)
		return exitFailed
	}
	fmt.Fprintf(stdout, "re-ran %d results: %d now pass (flaky), %d still fail, error, are throttled or inconclusive, %d controls beside their negatives; made %d calls the run never finished\n",
		len(again)-made, flaky, len(again)-made-flaky-controls, controls, made)
	return ss.finish(ending{command: "run --rerun-failed", plan: planned, results: merged, con: con,
		planned: &recorded.Planned.CostUnits, covered: true}, stdout, stderr)
}

// sameRun refuses, saying why, settings that differ from the run recorded
// in --out: continuing it (--resume, --rerun-failed) with others would mix
// two runs in one results.jsonl.
func sameRun(ss *session, recorded conformance.Manifest, flag, doing string, stderr io.Writer) bool {
	d := recorded.Differences(ss.manifest(nil))
	if len(d) == 0 {
		return true
	}
	fmt.Fprintf(stderr, "gwconform run %s: %s holds another run; %s with these settings would mix two runs:\n  %s\n"+
		"(drop the flags that differ: the recorded run's settings are used)\n", flag, ss.out, doing, strings.Join(d, "\n  "))
	return false
}
